"""Request and response plumbing of the control API: JSON out, bounded JSON in, ids, errors.

Every response is JSON with ``cache-control: no-store``; every request body is size-limited
and every id in a path is checked before it reaches :class:`riko.Memory`.
"""

from __future__ import annotations

import dataclasses
import re
from datetime import date, datetime
from pathlib import Path
from typing import Any, Mapping

import orjson
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import Response

from ..clock import utc
from ..errors import (
    AuthorityError,
    ClosedError,
    InvalidArgumentError,
    InvalidDateError,
    ConfigError,
    ConfirmationMismatchError,
    MissingScopeError,
    NotFoundError,
    ProviderError,
    PurgeError,
    ReadOnlyError,
    RikoError,
    RikoLockedError,
    ScopeError,
    StateError,
    StorageError,
    WikiFormatError,
)

__all__ = [
    "MAX_BODY_BYTES",
    "ApiError",
    "JSONResponse",
    "json_response",
    "error_response",
    "read_json",
    "check_id",
    "query_int",
    "query_bool",
    "body_field",
    "body_time",
    "jsonable",
    "status_for",
]

#: Largest accepted request body; a page edit or a Dream settings form is far below it.
MAX_BODY_BYTES = 1 << 20

# Page, candidate, conflict, observation and session ids: path-safe, no leading dot or dash.
_ID_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:-]{0,127}")

NO_STORE = {"cache-control": "no-store", "x-content-type-options": "nosniff"}


class ApiError(Exception):
    """An HTTP-level refusal with a status, a stable machine code and a readable message."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def _default(value: Any) -> Any:
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, date) and not isinstance(value, datetime):
        return value.isoformat()
    if hasattr(value, "to_dicts"):
        return value.to_dicts()
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    return str(value)


def _dumps(value: Any) -> bytes:
    return orjson.dumps(value, default=_default, option=orjson.OPT_NAIVE_UTC | orjson.OPT_UTC_Z | orjson.OPT_NON_STR_KEYS)


class JSONResponse(Response):
    """orjson-encoded JSON that is never cached (naive datetimes are UTC)."""

    media_type = "application/json"

    def __init__(self, content: Any, status_code: int = 200, headers: Mapping[str, str] | None = None,
                 background: BackgroundTask | None = None) -> None:
        super().__init__(content, status_code=status_code, headers={**NO_STORE, **(headers or {})},
                         background=background)

    def render(self, content: Any) -> bytes:
        return _dumps(content)


def json_response(content: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(content, status_code=status)


def error_response(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=status)


def jsonable(value: Any) -> Any:
    """Plain JSON values for a facade result (DataFrames become lists of rows)."""
    return orjson.loads(_dumps(value))


# RikoError subclasses → (status, code); the first matching class wins, so order matters.
_STATUS: tuple[tuple[type[BaseException], int, str], ...] = (
    (NotFoundError, 404, "not-found"),
    (MissingScopeError, 404, "no-scope"),
    (ConfirmationMismatchError, 400, "confirmation-mismatch"),
    (AuthorityError, 403, "authority"),
    (ConfigError, 400, "invalid-config"),
    (ScopeError, 400, "invalid-scope"),
    (WikiFormatError, 400, "invalid-page"),
    (StateError, 409, "state"),
    (ReadOnlyError, 409, "read-only"),
    (PurgeError, 409, "purge"),
    (RikoLockedError, 503, "locked"),
    (ClosedError, 503, "closed"),
    (ProviderError, 502, "provider"),
    (StorageError, 507, "storage"),
    (InvalidArgumentError, 400, "invalid"),
    (RikoError, 400, "riko"),
)


def status_for(exc: BaseException) -> tuple[int, str]:
    for kind, status, code in _STATUS:
        if isinstance(exc, kind):
            return status, code
    return 500, "internal"


async def read_json(request: Request, *, limit: int = MAX_BODY_BYTES, required: bool = True) -> dict[str, Any]:
    """The request's JSON object, refusing bodies over ``limit`` bytes (413) before parsing.

    Read by hand rather than through Starlette's body limit so the refusal is a JSON error and
    works on every supported Starlette.
    """
    declared = request.headers.get("content-length")
    if declared is not None:
        try:
            if int(declared) > limit:
                raise ApiError(413, "body-too-large", f"request body exceeds {limit} bytes")
        except ValueError:
            raise ApiError(400, "bad-request", "content-length is not a number") from None
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise ApiError(413, "body-too-large", f"request body exceeds {limit} bytes")
        chunks.append(chunk)
    raw = b"".join(chunks)
    if not raw.strip():
        if required:
            raise ApiError(400, "bad-request", "a JSON object body is required")
        return {}
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise ApiError(400, "bad-json", "request body is not valid JSON") from None
    if not isinstance(value, dict):
        raise ApiError(400, "bad-json", "request body must be a JSON object")
    return value


def check_id(value: str, kind: str = "id") -> str:
    """``value`` when it is a path-safe record id; anything else (``..``, slashes, spaces) is 400."""
    if not _ID_RE.fullmatch(value) or ".." in value:
        raise ApiError(400, "invalid-id", f"{kind} is not a valid id: use letters, digits, '_', '.', ':' and '-'")
    return value


def query_int(request: Request, name: str, default: int, low: int, high: int) -> int:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ApiError(400, "bad-query", f"{name} must be an integer from {low} to {high}") from None
    if not low <= value <= high:
        raise ApiError(400, "bad-query", f"{name} must be an integer from {low} to {high}")
    return value


def query_bool(request: Request, *names: str) -> bool:
    """True when any of ``names`` is given as 1/true/yes (or present without a value)."""
    for name in names:
        raw = request.query_params.get(name)
        if raw is not None:
            if raw.lower() in ("", "1", "true", "yes"):
                return True
            if raw.lower() not in ("0", "false", "no"):
                raise ApiError(400, "bad-query", f"{name} must be true or false")
    return False


_JSON_KIND = {str: "a string", int: "a number", float: "a number", bool: "true or false", list: "a list",
              dict: "an object"}


def body_field(body: Mapping[str, Any], *names: str, kind: type | tuple[type, ...] = str, required: bool = False) -> Any:
    """The first present of ``names`` (snake_case or the seed's camelCase), type-checked."""
    kinds = kind if isinstance(kind, tuple) else (kind,)
    for name in names:
        if name in body and body[name] is not None:
            value = body[name]
            # JSON true/false must not pass as a number
            if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
                wanted = sorted({_JSON_KIND.get(k, k.__name__) for k in kinds})
                raise ApiError(400, "bad-field", f"{names[0]} must be {' or '.join(wanted)}")
            return value
    if required:
        raise ApiError(400, "missing-field", f"{names[0]} is required")
    return None


def body_time(body: Mapping[str, Any], *names: str, required: bool = False) -> str | None:
    """A date-time field (ISO text), checked by the one date parser; refused as 400 naming its JSON path."""
    value = body_field(body, *names, required=required)
    if value is None:
        return None
    name = next(n for n in names if body.get(n) is not None)
    try:
        utc(value, where=f"$.{name}")
    except InvalidDateError as exc:
        raise ApiError(400, "bad-field", str(exc)) from None
    return str(value)
