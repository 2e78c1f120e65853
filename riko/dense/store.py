"""On-disk dense generations: int8 vectors with per-dimension scales, doc metadata and a pointer.

One generation is one directory holding ``meta.json``, ``vectors.i8``, ``scales.f32`` and
``docs.jsonl.zst``; the ``ACTIVE`` file beside ``generations/`` names the active and previous
generation. docs/vectors.md is the specification of this layout.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import zstandard

from ..errors import StateError

__all__ = [
    "SCHEMA_VERSION",
    "FORMAT",
    "KINDS",
    "INVALIDATION_REASONS",
    "POINTER_NAME",
    "GENERATIONS_DIR",
    "Generation",
    "InvalidGeneration",
    "text_key",
    "quantize",
    "dequantize",
    "write_generation",
    "read_generation",
    "read_meta",
    "read_pointer",
    "write_pointer",
    "remove_tree",
]

SCHEMA_VERSION = 3
FORMAT = "riko-dense-generation"
QUANTIZATION = "int8-absmax-per-dimension"
KINDS = ("page", "evidence", "observation")
INVALIDATION_REASONS = (
    "source-revision-changed",
    "embedding-model-changed",
    "index-schema-changed",
    "vector-degraded",
    "purge-rebuild-required",
)
POINTER_NAME = "ACTIVE"
GENERATIONS_DIR = "generations"
META_NAME = "meta.json"
VECTORS_NAME = "vectors.i8"
SCALES_NAME = "scales.f32"
DOCS_NAME = "docs.jsonl.zst"
_ZSTD_LEVEL = 3


class InvalidGeneration(StateError):
    """A stored generation failed validation; ``reason`` is one of INVALIDATION_REASONS."""

    def __init__(self, reason: str, message: str) -> None:
        self.reason = reason
        super().__init__(f"{reason}: {message}")


def text_key(model: str, text: str) -> str:
    """Cache key of an embedded text: hex SHA-256 of ``model + "\\0" + text`` (UTF-8)."""
    return hashlib.sha256(f"{model}\0{text}".encode()).hexdigest()


def quantize(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric int8 codes with one float32 scale per dimension (column abs-max / 127)."""
    m = np.asarray(matrix, dtype=np.float32)
    if m.shape[0] == 0:
        return np.zeros(m.shape, dtype=np.int8), np.ones(m.shape[1], dtype=np.float32)
    peak = np.abs(m).max(axis=0)
    scales = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
    codes = np.clip(np.rint(m / scales), -127, 127).astype(np.int8)
    return codes, scales


def dequantize(codes: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """float32 values ``codes * scales`` (not renormalised)."""
    return codes.astype(np.float32) * scales.astype(np.float32)


@dataclass
class Generation:
    """One immutable set of quantized vectors with the documents they stand for."""

    generation_id: str
    model: str
    dimension: int
    source_revision: str
    created_at: str
    doc_ids: list[str]
    kinds: list[str]
    text_hashes: list[str]
    codes: np.ndarray
    scales: np.ndarray

    @property
    def count(self) -> int:
        return len(self.doc_ids)

    def subset(self, keep: np.ndarray) -> Generation:
        """The same generation restricted to rows where ``keep`` is true (scales unchanged)."""
        rows = np.flatnonzero(keep)
        return Generation(
            self.generation_id,
            self.model,
            self.dimension,
            self.source_revision,
            self.created_at,
            [self.doc_ids[i] for i in rows],
            [self.kinds[i] for i in rows],
            [self.text_hashes[i] for i in rows],
            self.codes[rows],
            self.scales,
        )


def _write_file(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        # Some filesystems refuse a directory fsync; the rename stays atomic without it.
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


def write_generation(path: Path, gen: Generation) -> dict[str, Any]:
    """Write ``gen`` into the new directory ``path`` (data files first, meta.json last)."""
    path.mkdir(mode=0o700, parents=False, exist_ok=False)
    compressor = zstandard.ZstdCompressor(level=_ZSTD_LEVEL, write_content_size=True)
    docs = b"".join(
        orjson.dumps({"id": i, "kind": k, "text_sha256": h}) + b"\n"
        for i, k, h in zip(gen.doc_ids, gen.kinds, gen.text_hashes)
    )
    payloads = {
        # int8 codes of dense embeddings are near-incompressible, so they are stored raw.
        VECTORS_NAME: np.ascontiguousarray(gen.codes, dtype=np.int8).tobytes(),
        SCALES_NAME: np.ascontiguousarray(gen.scales, dtype="<f4").tobytes(),
        DOCS_NAME: compressor.compress(docs),
    }
    files = {}
    for name, data in payloads.items():
        _write_file(path / name, data)
        files[name] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    meta = {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "generation_id": gen.generation_id,
        "model": gen.model,
        "dimension": gen.dimension,
        "count": gen.count,
        "source_revision": gen.source_revision,
        "created_at": gen.created_at,
        "quantization": QUANTIZATION,
        "text_hash": "sha256(model NUL text)",
        "files": files,
    }
    _write_file(path / META_NAME, orjson.dumps(meta, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))
    _fsync_dir(path)
    return meta


def read_meta(path: Path) -> dict[str, Any]:
    """The parsed meta.json of a generation directory; InvalidGeneration when unreadable."""
    try:
        meta = orjson.loads((path / META_NAME).read_bytes())
    except FileNotFoundError:
        raise InvalidGeneration("vector-degraded", f"{path / META_NAME} is missing") from None
    except (OSError, orjson.JSONDecodeError) as exc:
        raise InvalidGeneration("vector-degraded", f"{path / META_NAME} is unreadable: {exc}") from None
    if not isinstance(meta, dict):
        raise InvalidGeneration("vector-degraded", f"{path / META_NAME} is not a JSON object")
    return meta


def _read_checked(path: Path, name: str, meta: dict[str, Any]) -> bytes:
    entry = meta.get("files", {}).get(name) if isinstance(meta.get("files"), dict) else None
    if not isinstance(entry, dict):
        raise InvalidGeneration("vector-degraded", f"meta.json does not describe {name}")
    try:
        data = (path / name).read_bytes()
    except OSError as exc:
        raise InvalidGeneration("vector-degraded", f"{path / name} is unreadable: {exc}") from None
    if len(data) != entry.get("bytes") or hashlib.sha256(data).hexdigest() != entry.get("sha256"):
        raise InvalidGeneration("vector-degraded", f"{path / name} does not match its checksum in meta.json")
    return data


def read_generation(
    path: Path, *, model: str | None = None, dimension: int | None = None
) -> Generation:
    """Load and validate a generation; ``model``/``dimension``, when given, must match the meta."""
    meta = read_meta(path)
    if meta.get("format") != FORMAT or meta.get("schema_version") != SCHEMA_VERSION:
        raise InvalidGeneration(
            "index-schema-changed",
            f"{path.name} has format {meta.get('format')!r} schema {meta.get('schema_version')!r}; "
            f"this riko reads {FORMAT!r} schema {SCHEMA_VERSION}",
        )
    if model is not None and meta.get("model") != model:
        raise InvalidGeneration(
            "embedding-model-changed", f"{path.name} holds {meta.get('model')!r} vectors, provider is {model!r}"
        )
    dim, count = meta.get("dimension"), meta.get("count")
    if dimension is not None and dim != dimension:
        raise InvalidGeneration(
            "embedding-model-changed", f"{path.name} holds {dim}-d vectors, provider gives {dimension}-d"
        )
    if not isinstance(dim, int) or not isinstance(count, int) or dim < 1 or count < 0:
        raise InvalidGeneration("vector-degraded", f"{path.name} meta has a bad dimension or count")
    raw = _read_checked(path, VECTORS_NAME, meta)
    try:
        docs_raw = zstandard.ZstdDecompressor().decompress(_read_checked(path, DOCS_NAME, meta))
    except zstandard.ZstdError as exc:
        raise InvalidGeneration("vector-degraded", f"{path.name} does not decompress: {exc}") from None
    scales = np.frombuffer(_read_checked(path, SCALES_NAME, meta), dtype="<f4").astype(np.float32)
    if len(raw) != count * dim or scales.shape != (dim,):
        raise InvalidGeneration("vector-degraded", f"{path.name} vector data does not hold {count}x{dim} values")
    if not np.all(np.isfinite(scales)) or np.any(scales <= 0):
        raise InvalidGeneration("vector-degraded", f"{path.name} has a non-finite or non-positive scale")
    codes = np.frombuffer(raw, dtype=np.int8).reshape(count, dim).copy()
    if count and np.any(~codes.any(axis=1)):
        raise InvalidGeneration("vector-degraded", f"{path.name} holds an all-zero vector")
    ids, kinds, hashes = _parse_docs(path, docs_raw, count)
    return Generation(
        str(meta.get("generation_id", path.name)),
        str(meta.get("model", "")),
        dim,
        str(meta.get("source_revision", "")),
        str(meta.get("created_at", "")),
        ids,
        kinds,
        hashes,
        codes,
        scales,
    )


def _parse_docs(path: Path, docs_raw: bytes, count: int) -> tuple[list[str], list[str], list[str]]:
    ids: list[str] = []
    kinds: list[str] = []
    hashes: list[str] = []
    for line in docs_raw.splitlines():
        try:
            row = orjson.loads(line)
            doc_id, kind, digest = row["id"], row["kind"], row["text_sha256"]
        except (orjson.JSONDecodeError, KeyError, TypeError):
            raise InvalidGeneration("vector-degraded", f"{path.name} has a malformed docs line") from None
        if not isinstance(doc_id, str) or kind not in KINDS or not isinstance(digest, str):
            raise InvalidGeneration("vector-degraded", f"{path.name} has a docs line with bad fields")
        ids.append(doc_id)
        kinds.append(kind)
        hashes.append(digest)
    if len(ids) != count or len(set(ids)) != count:
        raise InvalidGeneration("vector-degraded", f"{path.name} docs do not list {count} distinct ids")
    return ids, kinds, hashes


def read_pointer(directory: Path) -> dict[str, Any] | None:
    """The ACTIVE pointer, ``None`` when absent; InvalidGeneration when unreadable."""
    try:
        data = orjson.loads((directory / POINTER_NAME).read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, orjson.JSONDecodeError) as exc:
        raise InvalidGeneration("vector-degraded", f"{directory / POINTER_NAME} is unreadable: {exc}") from None
    if not isinstance(data, dict):
        raise InvalidGeneration("vector-degraded", f"{directory / POINTER_NAME} is not a JSON object")
    return {
        "active": data.get("active") if isinstance(data.get("active"), str) else None,
        "previous": data.get("previous") if isinstance(data.get("previous"), str) else None,
        "degraded_reason": data.get("degraded_reason") if data.get("degraded_reason") in INVALIDATION_REASONS else None,
        "schema_version": data.get("schema_version"),
    }


def write_pointer(
    directory: Path, active: str | None, previous: str | None, degraded_reason: str | None
) -> None:
    """Atomically replace the ACTIVE pointer (temp file, fsync, os.replace)."""
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    body = orjson.dumps(
        {
            "active": active,
            "previous": previous,
            "degraded_reason": degraded_reason,
            "schema_version": SCHEMA_VERSION,
        },
        option=orjson.OPT_INDENT_2,
    )
    tmp = directory / f".{POINTER_NAME}.{os.getpid()}.tmp"
    _write_file(tmp, body)
    os.replace(tmp, directory / POINTER_NAME)
    _fsync_dir(directory)


def remove_tree(paths: Iterable[Path]) -> None:
    """Delete generation directories (or stray files) that are no longer referenced."""
    for path in paths:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
