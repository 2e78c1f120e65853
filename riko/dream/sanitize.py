"""Error-text sanitising for provider failures.

Provider errors end up in job records, logs and the control plane, so any text that may
carry a credential passes through :func:`sanitize_error` first: bearer tokens, ``sk-`` style
keys and the caller's known secret values are redacted, then the text is bounded.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["sanitize_error", "MAX_ERROR_CHARS", "REDACTED"]

MAX_ERROR_CHARS = 500
REDACTED = "[redacted]"

_BEARER = re.compile(r"(?i)\b(bearer)(\s+|%20|\+)[^\s\"',;}\]]+")
_KEY_LIKE = re.compile(r"\b(sk|pk|rk)-[A-Za-z0-9_\-]{4,}")
_HEADER_VALUE = re.compile(r"(?i)\b(x-api-key|api-key|authorization)(\"?\s*[:=]\s*\"?)(?!bearer\b)[^\s\"',;}\]]+")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def sanitize_error(text: str, secrets: Iterable[str] = ()) -> str:
    """Return ``text`` with credentials redacted and at most 500 characters long.

    Redaction happens before truncation so a secret cut at the boundary never leaks a prefix.

    >>> sanitize_error("401: Bearer abc123 rejected")
    '401: Bearer [redacted] rejected'
    """
    out = str(text)
    # Longest first, so a secret containing another secret is removed whole.
    for secret in sorted({s for s in secrets if s}, key=len, reverse=True):
        out = out.replace(secret, REDACTED)
    out = _BEARER.sub(lambda m: f"{m.group(1)} {REDACTED}", out)
    out = _HEADER_VALUE.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", out)
    out = _KEY_LIKE.sub(lambda m: f"{m.group(1)}-{REDACTED}", out)
    out = _CONTROL.sub(" ", out)
    if len(out) > MAX_ERROR_CHARS:
        out = out[: MAX_ERROR_CHARS - 1] + "…"
    return out
