"""The riko error hierarchy.

Every error riko raises on purpose is a :class:`RikoError`. Messages say what was wrong,
where (file, line, field or id) and what to do next, so a CLI can print them as they are.

    RikoError
    ├── InvalidArgumentError    a bad argument to a public call (also a ValueError)
    │   ├── InvalidDateError    a date-time that cannot be read or lies outside years 1-9999 in UTC
    │   └── InvalidTypeError    an argument of the wrong type (also a TypeError)
    ├── ScopeError              missing/invalid preset, owner or profile; scope mismatch
    │   └── MissingScopeError   the scope has no warehouse yet (reads never create one)
    ├── ConfigError             a config field breaks a validation rule (``.field``)
    ├── RikoLockedError         another process kept the scope's file past lock_timeout_ms
    ├── ClosedError             a memory was used after close()
    ├── UsageError              an argument value is wrong (also a ValueError)
    ├── ReadOnlyError           a write was attempted on a read-only memory
    ├── IngestError             a log cannot be read at all (``.path``, ``.line``)
    │   └── PresetMismatchError the log belongs to another preset; nothing was written
    ├── WikiFormatError         a page file is malformed (``.path``, ``.line``, ``.field``)
    ├── NotFoundError           an id that does not exist in this scope
    ├── AuthorityError          a write lacks user evidence or management authority
    ├── StateError              a transition that the current state does not allow
    ├── ProviderError           an LLM / embedding / reranker provider failed (``.reason``)
    ├── StorageError            a disk write failed (full disk, I/O error); earlier records are intact
    └── PurgeError              a purge was refused or failed
        └── ConfirmationMismatchError
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "REMEDIES",
    "phrase",
    "RikoError",
    "InvalidArgumentError",
    "InvalidDateError",
    "InvalidTypeError",
    "ClosedError",
    "ScopeError",
    "MissingScopeError",
    "ConfigError",
    "RikoLockedError",
    "ReadOnlyError",
    "UsageError",
    "IngestError",
    "PresetMismatchError",
    "WikiFormatError",
    "NotFoundError",
    "AuthorityError",
    "StateError",
    "ProviderError",
    "StorageError",
    "PurgeError",
    "ConfirmationMismatchError",
]


#: How each surface phrases the remedy of an error: the message is written once, and the layer
#: that prints it (Python, the ``riko`` command line, HTTP) names its own way out.
REMEDIES: dict[str, dict[str, str]] = {
    "preset": {
        "python": "pass preset=... (there is no global default)",
        "cli": "pass --preset NAME or set RIKO_PRESET, or record a default for this root with "
               "`riko init --preset NAME` (there is no global default)",
        "http": "send the profile header or a profile-bound token",
    },
    "create": {
        "python": "open it once without read_only=True to create it",
        "cli": "create it with `riko init --preset {preset} --root {root}`",
        "http": "reads never create a scope: a write request for this profile, or "
                "`riko init --preset {preset} --root {root}`, creates it",
    },
    "unlock": {
        "python": "retry when it is idle, or raise lock_timeout_ms to wait longer",
        "cli": "retry when that command is done, or set RIKO_LOCK_TIMEOUT_MS to wait longer",
        "http": "retry once the other program has let go of the scope",
    },
    "assign": {
        "python": "pass preset={preset!r} to assign it here on purpose",
        "cli": "pass --assign-preset {preset} to assign it here on purpose",
        "http": "assign it with the ingest request's preset field",
    },
    "other-preset": {
        "python": "ingest it into a memory opened with preset={other!r}, or pass preset={preset!r} "
                  "to assign it here on purpose",
        "cli": "ingest it with --preset {other}, or pass --assign-preset {preset} to assign it here on purpose",
        "http": "ingest it into the scope of preset {other!r}",
    },
    "list": {
        "python": "list {what} with mem.{what}()",
        "cli": "list {what} with `riko {what}`",
        "http": "list {what} with GET /{route}",
    },
    "sync": {
        "python": "run mem.sync() and fix any error it reports first",
        "cli": "run `riko wiki sync` and fix any error it reports first",
        "http": "POST /wiki/sync and fix any error it reports first",
    },
    "index": {
        "python": "run mem.index() first",
        "cli": "run `riko index` first",
        "http": "build it with `riko index` first",
    },
    "closed": {
        "python": "reopen it with riko.open(...)",
        "cli": "run the command again",
        "http": "retry the request",
    },
}

SURFACES = ("python", "cli", "http")

#: The control API route that lists each kind of record, where it is not ``GET /<plural>``.
HTTP_LISTINGS = {"pages": "wiki"}


def phrase(key: str, surface: str, **fields: str) -> str:
    """The remedy ``key`` as ``surface`` words it, e.g. ``phrase("list", "cli", what="pages")``."""
    return REMEDIES[key][surface].format(**fields)


class RikoError(Exception):
    """Base class of every error riko raises on purpose.

    ``remedy`` names an entry of :data:`REMEDIES`; :meth:`render` phrases it for one surface and
    ``str()`` for Python callers.
    """

    remedy: str | None = None
    remedy_fields: dict[str, str] = {}  # noqa: RUF012 - replaced per instance, never mutated

    def with_remedy(self, key: str, **fields: str) -> "RikoError":
        """Attach the remedy ``key`` (filled with ``fields``) and return the error, for ``raise``."""
        if key not in REMEDIES:
            raise KeyError(f"unknown remedy {key!r}")
        self.remedy, self.remedy_fields = key, fields
        return self

    def message(self) -> str:
        """The message without its remedy."""
        return str(self.args[0]) if self.args else ""

    def render(self, surface: str = "python") -> str:
        """The message with its remedy phrased for ``surface`` (python, cli or http)."""
        text = self.message()
        if self.remedy is not None:
            text += "; " + phrase(self.remedy, surface, **self.remedy_fields)
        return text

    def __str__(self) -> str:
        return self.render("python")


class InvalidArgumentError(RikoError, ValueError):
    """An argument to a public call is not one riko accepts (the message says which and why).

    It is also a ``ValueError``, so code that caught ``ValueError`` keeps working.
    """


class InvalidDateError(InvalidArgumentError):
    """A date-time riko cannot use: unreadable, or outside 0001-01-01..9999-12-31 once in UTC.

    ``where`` names the field, flag or JSON path it came from (or is None); ``reason`` is the
    message without it, for a caller that names the place its own way (file and line).
    """

    def __init__(self, reason: str, where: str | None = None) -> None:
        self.reason = reason
        self.where = where
        super().__init__(f"{where}: {reason}" if where else reason)


class InvalidTypeError(InvalidArgumentError, TypeError):
    """An argument of the wrong type (also a ``TypeError``, for code that caught that)."""


class ScopeError(RikoError):
    """A scope (owner + preset) is missing, malformed, or does not match."""


class MissingScopeError(ScopeError):
    """The scope has no warehouse yet; reads never create one."""


class ConfigError(RikoError, ValueError):
    """A configuration field breaks a validation rule."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(message if message.startswith(field) else f"{field}: {message}")


class RikoLockedError(RikoError):
    """Another process kept this scope's file past the wait bound (``lock_timeout_ms``)."""

    def __init__(self, lock_path: Path | str, pid: int | None, *, activity: str | None = None,
                 since: str | None = None, waited_s: float | None = None, wanted: str | None = None) -> None:
        self.lock_path = Path(lock_path)
        self.pid = pid
        self.activity = activity
        self.since = since
        self.waited_s = waited_s
        holder = f"process {pid}" if pid else "another process"
        doing = f" ({activity}" + (f" since {since}" if since else "") + ")" if activity else ""
        waited = f" after waiting {waited_s:.1f} s" if waited_s is not None else ""
        purpose = f" for {wanted}" if wanted else ""
        super().__init__(f"scope is busy: {holder}{doing} holds it (lock file {self.lock_path}); gave up{purpose}{waited}")
        self.with_remedy("unlock")


class ClosedError(RikoError):
    """A memory was used after ``close()`` (or after its ``with`` block ended)."""

    def __init__(self) -> None:
        super().__init__("this memory is closed")
        self.with_remedy("closed")


class UsageError(RikoError, ValueError):
    """An argument value is wrong (a method argument or a command-line option)."""


class ReadOnlyError(RikoError):
    """A write was attempted through a memory opened with ``read_only=True``."""


class IngestError(RikoError):
    """A session log could not be ingested."""

    def __init__(self, message: str, path: Path | str | None = None, line: int | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self.line = line
        where = ""
        if path is not None:
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        super().__init__(where + message)


class PresetMismatchError(IngestError):
    """The log's ``agentPreset`` is not the memory's preset; nothing of it was written."""


class WikiFormatError(RikoError):
    """A Wiki page file is malformed; the file is left untouched."""

    def __init__(
        self,
        message: str,
        path: Path | str | None = None,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        self.path = Path(path) if path is not None else None
        self.line = line
        self.field = field
        where = ""
        if path is not None:
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        if field:
            where += f"field '{field}': "
        super().__init__(where + message)


class NotFoundError(RikoError, KeyError):
    """An id does not exist in this scope."""

    def __init__(self, kind: str, ident: str, hint: str = "", *, listing: str | None = None) -> None:
        self.kind = kind
        self.ident = ident
        msg = f"no {kind} with id {ident!r} in this scope"
        super().__init__(msg + (f"; {hint}" if hint else ""))
        if listing is not None:  # the plural a surface lists them by: candidates, pages, sessions...
            self.with_remedy("list", what=listing, route=HTTP_LISTINGS.get(listing, listing))

    def __str__(self) -> str:  # KeyError would quote the message
        return self.render("python")


class AuthorityError(RikoError):
    """A write lacked the authority it needs (raw user evidence or management)."""


class StateError(RikoError):
    """The requested transition is not allowed from the record's current state."""


class ProviderError(RikoError):
    """A provider call failed; ``reason`` is a sanitized code such as ``http-429``."""

    def __init__(self, reason: str, message: str = "") -> None:
        self.reason = reason
        super().__init__(f"{reason}: {message}" if message else reason)


class StorageError(RikoError):
    """A write to disk failed (a full disk, an I/O error, a failed fsync or rename).

    The unit of work it ended was rolled back: what was committed before is intact, and the
    operation can be run again once the disk is fixed. ``path`` and ``errno`` say where and why.
    """

    def __init__(self, message: str, path: Path | str | None = None, errno: int | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self.errno = errno
        super().__init__(message)

    @classmethod
    def from_os(cls, exc: OSError, path: Path | str | None = None) -> "StorageError":
        where = path if path is not None else exc.filename
        reason = exc.strerror or str(exc)
        target = f" {where}" if where is not None else " to the disk"
        return cls(f"could not write{target}: {reason}; nothing of this change was kept, earlier records are "
                   "intact; free space or fix the disk, then run it again", where, exc.errno)


class PurgeError(RikoError):
    """A purge was refused or could not complete (the scope was restored)."""


class ConfirmationMismatchError(PurgeError):
    """The purge confirmation token does not match the current plan."""
