"""The riko error hierarchy.

Every error riko raises on purpose is a :class:`RikoError`. Messages say what was wrong,
where (file, line, field or id) and what to do next, so a CLI can print them as they are.

    RikoError
    ├── InvalidArgumentError    a bad argument to a public call (also a ValueError)
    ├── ScopeError              missing/invalid preset, owner or profile; scope mismatch
    ├── ConfigError             a config field breaks a validation rule (``.field``)
    ├── RikoLockedError         another process holds the scope's writer lock
    ├── ReadOnlyError           a write was attempted on a read-only memory
    ├── IngestError             a log cannot be read at all (``.path``, ``.line``)
    │   └── PresetMismatchError the log belongs to another preset; nothing was written
    ├── WikiFormatError         a page file is malformed (``.path``, ``.line``, ``.field``)
    ├── NotFoundError           an id that does not exist in this scope
    ├── AuthorityError          a write lacks user evidence or management authority
    ├── StateError              a transition that the current state does not allow
    ├── ProviderError           an LLM / embedding / reranker provider failed (``.reason``)
    └── PurgeError              a purge was refused or failed
        └── ConfirmationMismatchError
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "RikoError",
    "InvalidArgumentError",
    "ScopeError",
    "ConfigError",
    "RikoLockedError",
    "ReadOnlyError",
    "IngestError",
    "PresetMismatchError",
    "WikiFormatError",
    "NotFoundError",
    "AuthorityError",
    "StateError",
    "ProviderError",
    "PurgeError",
    "ConfirmationMismatchError",
]


class RikoError(Exception):
    """Base class of every error riko raises on purpose."""


class InvalidArgumentError(RikoError, ValueError):
    """An argument to a public call is not one riko accepts (the message says which and why).

    It is also a ``ValueError``, so code that caught ``ValueError`` keeps working.
    """


class ScopeError(RikoError):
    """A scope (owner + preset) is missing, malformed, or does not match."""


class ConfigError(RikoError, ValueError):
    """A configuration field breaks a validation rule."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(message if message.startswith(field) else f"{field}: {message}")


class RikoLockedError(RikoError):
    """Another process holds this scope's writer lock."""

    def __init__(self, lock_path: Path | str, pid: int | None) -> None:
        self.lock_path = Path(lock_path)
        self.pid = pid
        holder = f"process {pid}" if pid else "another process"
        super().__init__(
            f"scope is locked for writing by {holder} (lock file {self.lock_path}); "
            "close that memory first, or open this one with read_only=True"
        )


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

    def __init__(self, kind: str, ident: str, hint: str = "") -> None:
        self.kind = kind
        self.ident = ident
        msg = f"no {kind} with id {ident!r} in this scope"
        super().__init__(msg + (f"; {hint}" if hint else ""))

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


class AuthorityError(RikoError):
    """A write lacked the authority it needs (raw user evidence or management)."""


class StateError(RikoError):
    """The requested transition is not allowed from the record's current state."""


class ProviderError(RikoError):
    """A provider call failed; ``reason`` is a sanitized code such as ``http-429``."""

    def __init__(self, reason: str, message: str = "") -> None:
        self.reason = reason
        super().__init__(f"{reason}: {message}" if message else reason)


class PurgeError(RikoError):
    """A purge was refused or could not complete (the scope was restored)."""


class ConfirmationMismatchError(PurgeError):
    """The purge confirmation token does not match the current plan."""
