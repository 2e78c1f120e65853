"""A disk cache of passage vectors by model and text hash, shared by every scope and run.

Embedding is the slow step (e5: tens of passages a second per core), so a benchmark or an
evaluation that re-embeds the same corpus should pay only once. Vectors are appended as
immutable shard files ``<dir>/<model>/<dimension>/shard-*.npz`` (keys are
:func:`riko.dense.store.text_key`), written to a temporary name and renamed, so concurrent
writers never see each other's partial files and a killed run loses at most its last shard.
"""

from __future__ import annotations

import os
import secrets
import threading
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InvalidArgumentError, InvalidTypeError, ProviderError
from .providers import normalize_rows
from .store import text_key

__all__ = ["PassageCache", "CachedProvider", "default_cache_dir"]

_SHARD_GLOB = "shard-*.npz"


def default_cache_dir() -> Path:
    """``$RIKO_VECTOR_CACHE`` or ``~/.cache/riko/vectors``."""
    env = os.environ.get("RIKO_VECTOR_CACHE")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "riko" / "vectors"


class PassageCache:
    """Passage vectors of one model and dimension, keyed by text hash."""

    def __init__(self, directory: str | os.PathLike[str], model: str, dimension: int) -> None:
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in model)
        self.model, self.dimension = model, int(dimension)
        self.path = Path(directory).expanduser() / safe / str(self.dimension)
        self._lock = threading.Lock()
        self._vectors: dict[str, np.ndarray] = {}
        self._seen: set[str] = set()
        self.skipped: list[str] = []  #: shard files that were unreadable or of another shape

    def _load_new_shards(self) -> None:
        if not self.path.is_dir():
            return
        for shard in sorted(self.path.glob(_SHARD_GLOB)):
            if shard.name in self._seen:
                continue
            self._seen.add(shard.name)  # shards are immutable: one look is enough
            try:
                with np.load(shard, allow_pickle=False) as data:
                    keys, vectors = data["keys"], data["vectors"]
            except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
                self.skipped.append(shard.name)  # a foreign or damaged file is no reason to fail a run
                continue
            if vectors.ndim != 2 or vectors.shape[1] != self.dimension or keys.ndim != 1 \
                    or len(keys) != len(vectors):
                self.skipped.append(shard.name)
                continue
            for key, vector in zip(keys.tolist(), vectors):
                self._vectors[str(key)] = vector

    def __len__(self) -> int:
        with self._lock:
            self._load_new_shards()
            return len(self._vectors)

    def get(self, texts: Sequence[str]) -> list[np.ndarray | None]:
        """The cached vector of each text, or None where it has none."""
        with self._lock:
            self._load_new_shards()
            return [self._vectors.get(text_key(self.model, t)) for t in texts]

    def put(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        """Store vectors for texts as one new shard (no-op for an empty batch)."""
        matrix = np.asarray(vectors, dtype=np.float32)
        if len(texts) == 0:
            return
        if matrix.shape != (len(texts), self.dimension):
            raise InvalidArgumentError(f"expected {len(texts)} vectors of dimension {self.dimension}, got {matrix.shape}")
        keys = np.array([text_key(self.model, t) for t in texts])
        self.path.mkdir(parents=True, exist_ok=True, mode=0o700)
        name = f"shard-{os.getpid()}-{secrets.token_hex(6)}.npz"
        tmp = self.path / f".{name}.tmp"
        try:
            with open(tmp, "wb") as fh:
                np.savez(fh, keys=keys, vectors=matrix)
            os.replace(tmp, self.path / name)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        with self._lock:
            self._seen.add(name)
            for key, vector in zip(keys.tolist(), matrix):
                self._vectors[str(key)] = vector


class CachedProvider:
    """An embedding provider whose passage vectors go through a :class:`PassageCache`.

    Same model name and dimension as the wrapped provider, so its vectors live in the same
    space; queries are always embedded (their latency is part of what recall measures).
    """

    def __init__(self, provider: Any, directory: str | os.PathLike[str] | None = None,
                 *, batch_size: int = 64) -> None:
        self.inner = provider
        self.model = provider.model
        self.dimension = int(provider.dimension)
        self.cache = PassageCache(directory or default_cache_dir(), self.model, self.dimension)
        self.batch_size = batch_size
        self.embedded = 0  #: passages this wrapper had to embed (cache misses)

    def __repr__(self) -> str:
        return f"CachedProvider({self.inner!r}, {str(self.cache.path)!r})"

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise InvalidTypeError("embed_passages takes a sequence of strings, not one string")
        texts = list(texts)
        found = self.cache.get(texts)
        missing = sorted({t for t, v in zip(texts, found) if v is None})
        fresh: dict[str, np.ndarray] = {}
        for start in range(0, len(missing), self.batch_size):
            batch = missing[start:start + self.batch_size]
            vectors = np.asarray(self.inner.embed_passages(batch), dtype=np.float32)
            if vectors.shape != (len(batch), self.dimension):
                raise ProviderError("invalid-response", f"provider {self.model!r} returned shape {vectors.shape}")
            self.cache.put(batch, vectors)
            fresh.update(zip(batch, vectors))
            self.embedded += len(batch)
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for i, (text, vector) in enumerate(zip(texts, found)):
            out[i] = vector if vector is not None else fresh[text]
        return normalize_rows(out) if len(texts) else out

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(text)

    def close(self) -> None:
        close = getattr(self.inner, "close", None)
        if callable(close):
            close()
