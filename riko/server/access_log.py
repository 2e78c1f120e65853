"""The access log never holds a credential: query values under credential-like names are masked.

A client may send a token as ``?token=...``; uvicorn's access log writes the path with its
query string, so the filter below rewrites that argument before any handler sees it.
"""

from __future__ import annotations

import logging
import re
from urllib.parse import parse_qsl, quote, urlsplit

__all__ = ["install_access_log_filter", "redact_query"]

_CREDENTIAL_NAME = re.compile(r"(?i)token|secret|passw|auth|credential|signature|^sig$|key|cookie|session_?id")
_MASK = "[redacted]"


def redact_query(path: str) -> str:
    """``path`` with the values of credential-like query parameters masked.

    >>> redact_query("/memory/v1/resident?token=abc&limit=3")
    '/memory/v1/resident?token=[redacted]&limit=3'
    """
    parts = urlsplit(path)
    if not parts.query:
        return path
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    shown = "&".join(f"{quote(name, safe='')}={_MASK if _CREDENTIAL_NAME.search(name) else quote(value, safe='')}"
                     for name, value in pairs)
    return f"{parts.path}?{shown}"


class _RedactQuery(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) >= 3 and isinstance(args[2], str) and "?" in args[2]:
            record.args = (*args[:2], redact_query(args[2]), *args[3:])
        return True


def install_access_log_filter(logger_name: str = "uvicorn.access") -> None:
    """Mask credentials in ``logger_name``'s records (idempotent)."""
    logger = logging.getLogger(logger_name)
    if not any(isinstance(f, _RedactQuery) for f in logger.filters):
        logger.addFilter(_RedactQuery())
