"""``riko serve``: the authenticated control API and the review page, over :class:`riko.Memory`.

    >>> from riko.server import create_app
    >>> app = create_app("demo-root", {"api_tokens": {"companion": "..."}})   # doctest: +SKIP

See ``docs/http-api.md`` for the route table and the authentication modes.
"""

from __future__ import annotations

from .app import create_app
from .auth import PROFILE_HEADERS, AuthPolicy, Principal, check_startable, is_loopback_host, scope_binding
from .wire import MAX_BODY_BYTES

__all__ = [
    "create_app",
    "AuthPolicy",
    "Principal",
    "PROFILE_HEADERS",
    "MAX_BODY_BYTES",
    "check_startable",
    "is_loopback_host",
    "scope_binding",
]
