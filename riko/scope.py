"""Memory scope: owner namespace + stable agent preset, bound at open and never from text."""

from __future__ import annotations

import hashlib
import os
import shlex
import re
from dataclasses import dataclass
from pathlib import Path

from .errors import MissingScopeError, RikoError, ScopeError

__all__ = ["MemoryScope", "ScopeWarning", "SCHEMA_VERSION", "validate_profile_id", "storage_key", "scope_storage_key", "scope_hash",
           "missing_memory", "require_memory"]

SCHEMA_VERSION = 1
_PROFILE_RE = re.compile(r"[A-Za-z0-9._-]{1,64}")
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def validate_profile_id(value: object, what: str = "profile id") -> str:
    """Return ``value`` when it is a valid profile id (``[A-Za-z0-9._-]{1,64}``), else raise."""
    if not isinstance(value, str) or not value.strip():
        raise ScopeError(
            f"{what} must not be empty: memory scope requires a stable agent preset"
            if what == "preset"
            else f"{what} must not be empty"
        )
    if not _PROFILE_RE.fullmatch(value):
        raise ScopeError(
            f"{what} {value!r} is invalid: profile id must contain only letters, numbers, "
            "dot, underscore and dash (1-64 characters)"
        )
    return value


def storage_key(text: str) -> str:
    """Path-safe form of a key: every character outside ``[A-Za-z0-9_-]`` becomes ``--``."""
    return _UNSAFE.sub("--", text)


_PLAIN_SCOPE = re.compile(r"[A-Za-z0-9_]+:[A-Za-z0-9_]+")


def scope_storage_key(key: str) -> str:
    """The directory name of a scope: readable, and never shared by two scopes.

    ``owner:preset`` made only of letters, digits and ``_`` is ``owner--preset`` (one ``--``,
    so it reads back). Any other key — a ``.`` or ``-`` in a name — gets ``--h`` and 12 hex
    digits of its SHA-256 after the readable form, so ``iso.x`` and ``iso--x`` stay apart.

    >>> scope_storage_key("local:companion"), scope_storage_key("local:iso.x")
    ('local--companion', 'local--iso--x--h17616248a640')
    """
    readable = storage_key(key)
    if _PLAIN_SCOPE.fullmatch(key):
        return readable
    return f"{readable}--h{hashlib.sha256(key.encode('utf-8')).hexdigest()[:12]}"


def scope_hash(key: str) -> str:
    """First 16 hex characters of the SHA-256 of a scope key (safe to log)."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


class ScopeWarning(UserWarning):
    """An explicit owner leaves the scope the configuration names (``riko serve`` will not see it)."""


@dataclass(frozen=True)
class MemoryScope:
    """``<owner>:<preset>``; a missing or empty preset fails closed (no global default)."""

    owner: str
    preset: str
    schema_version: int = SCHEMA_VERSION

    def __post_init__(self) -> None:
        if self.preset is None or (isinstance(self.preset, str) and not self.preset.strip()):
            raise ScopeError("memory scope requires a stable agent preset (preset is missing or empty)")
        validate_profile_id(self.owner, "owner")
        validate_profile_id(self.preset, "preset")

    @property
    def key(self) -> str:
        return f"{self.owner}:{self.preset}"

    @property
    def storage_key(self) -> str:
        """The scope's directory name under ``warehouse/`` and ``exports/`` (see :func:`scope_storage_key`)."""
        return scope_storage_key(self.key)

    @property
    def legacy_storage_key(self) -> str:
        """The directory name older roots used, which two scopes could share."""
        return storage_key(self.key)

    @property
    def hash(self) -> str:
        return scope_hash(self.key)

    def __str__(self) -> str:
        return self.key


def missing_memory(scope: MemoryScope, directory: Path) -> RikoError:
    """The error for a scope that has no warehouse yet (reads never create one); ``directory``
    is ``<root>/warehouse/<storage key>``, and the remedy names that root."""
    return MissingScopeError(f"no memory for scope {scope.key} at {directory}").with_remedy(
        "create", preset=scope.preset, root=shlex.quote(str(Path(directory).parent.parent)))


def require_memory(root: str | os.PathLike[str], scope: MemoryScope) -> None:
    """Raise :func:`missing_memory` unless ``scope`` already has a warehouse under ``root``."""
    directory = Path(root).absolute() / "warehouse" / scope.storage_key
    if not (directory / "riko.duckdb").exists():
        raise missing_memory(scope, directory)
