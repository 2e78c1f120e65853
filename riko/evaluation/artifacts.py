"""A bounded artifacts directory for evaluation runs.

Each run writes into its own ``<prefix><timestamp>-<random>`` folder under the base
directory. Creating a run prunes the oldest folders carrying the same prefix so at most
``keep`` remain; entries without the prefix are never touched. ``raw-results.json``
(``schemaVersion`` 1, outcomes in corpus order) is rewritten atomically after every
scenario, so an interrupted run still leaves everything it finished.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from ..errors import InvalidArgumentError

__all__ = ["ArtifactRun", "prune_runs", "write_atomic", "RAW_RESULTS", "SCHEMA_VERSION"]

RAW_RESULTS = "raw-results.json"
SCHEMA_VERSION = 1


def prune_runs(base: str | os.PathLike[str], prefix: str, keep: int) -> list[Path]:
    """Delete all but the newest ``keep`` run folders named ``<prefix>…``; returns what was removed."""
    if keep < 1:
        raise InvalidArgumentError(f"keep must be at least 1, got {keep}")
    root = Path(base)
    if not root.is_dir():
        return []
    runs = [p for p in root.iterdir() if p.is_dir() and not p.is_symlink() and p.name.startswith(prefix)]
    runs.sort(key=lambda p: (p.stat().st_mtime, p.name), reverse=True)
    removed = runs[keep:]
    for path in removed:
        shutil.rmtree(path, ignore_errors=True)
    return removed


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename: readers see the old file or the new one."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class ArtifactRun:
    """One run's folder: ``raw-results.json`` plus any named JSON or text files."""

    def __init__(self, base: str | os.PathLike[str], prefix: str = "companion-", keep: int = 3) -> None:
        self.base = Path(base)
        self.base.mkdir(parents=True, exist_ok=True)
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")
        self.run_id = f"{stamp}-{secrets.token_hex(3)}"
        self.path = self.base / f"{prefix}{self.run_id}"
        self.path.mkdir()
        self.prefix = prefix
        self.pruned = prune_runs(self.base, prefix, keep)

    def write_results(self, outcomes: list[dict[str, Any]], **meta: Any) -> Path:
        """Rewrite ``raw-results.json`` with every outcome so far (corpus order)."""
        path = self.path / RAW_RESULTS
        payload = {"schemaVersion": SCHEMA_VERSION, "runId": self.run_id, **meta, "outcomes": outcomes}
        write_atomic(path, json.dumps(payload, ensure_ascii=False, indent=1, default=str))
        return path

    def write_json(self, name: str, data: Any) -> Path:
        path = self.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps(data, ensure_ascii=False, indent=1, default=str))
        return path

    def write_text(self, name: str, text: str) -> Path:
        path = self.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, text)
        return path
