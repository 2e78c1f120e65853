"""On-disk dense generations: int8 vectors with per-dimension scales, doc metadata and a pointer.

One generation is one directory holding ``meta.json`` and one or more segments: the base
segment (``vectors.i8``, ``scales.f32``, ``docs.jsonl.zst``), then append-only delta segments
(``delta-0001.vectors.i8`` ...) and a ``dead.u32`` list of superseded rows. A refresh links the
previous generation's segment files into the new directory and writes only the delta, so its
cost follows the change, not the corpus. The ``ACTIVE`` file beside ``generations/`` names the
active and previous generation. docs/vectors.md is the specification of this layout.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import zstandard

from ..errors import StateError

__all__ = [
    "SCHEMA_VERSION",
    "FORMAT",
    "DELTA_PREFIX",
    "KINDS",
    "INVALIDATION_REASONS",
    "POINTER_NAME",
    "GENERATIONS_DIR",
    "Generation",
    "Segment",
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
DEAD_NAME = "dead.u32"
DELTA_PREFIX = "delta-"
SEGMENT_FILES = (VECTORS_NAME, SCALES_NAME, DOCS_NAME)
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
    step = (np.abs(m).max(axis=0) / np.float32(127.0)).astype(np.float32)
    scales = np.where(step > 0, step, np.float32(1.0)).astype(np.float32)  # a denormal peak underflows to 0
    codes = np.clip(np.rint(m / scales), -127, 127).astype(np.int8)
    return codes, scales


def dequantize(codes: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """float32 values ``codes * scales`` (not renormalised)."""
    return codes.astype(np.float32) * scales.astype(np.float32)


@dataclass
class Segment:
    """Rows written together with one set of scales; ``files`` is set when they are on disk.

    A segment read back from disk (or just written) carries its checksummed file entries, so a
    later generation can hard-link its files instead of holding or rewriting its codes.
    """

    prefix: str
    doc_ids: list[str]
    kinds: list[str]
    text_hashes: list[str]
    codes: np.ndarray | None
    scales: np.ndarray | None
    files: dict[str, dict[str, Any]] | None = None
    size: int = -1  # row count of an on-disk segment held without its ids

    @property
    def rows(self) -> int:
        return self.size if self.size >= 0 and not self.doc_ids else len(self.doc_ids)


@dataclass
class Generation:
    """One immutable set of segments with the documents they stand for.

    Rows are numbered across segments in order; rows listed in ``dead`` were superseded by a
    later segment (changed text) or left the document set, and are never searched.
    """

    generation_id: str
    model: str
    dimension: int
    source_revision: str
    created_at: str
    segments: list[Segment]
    dead: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint32))

    @classmethod
    def single(
        cls, generation_id: str, model: str, dimension: int, source_revision: str, created_at: str,
        doc_ids: list[str], kinds: list[str], text_hashes: list[str], codes: np.ndarray, scales: np.ndarray,
    ) -> Generation:
        """A generation of one base segment and no dead rows."""
        segment = Segment("", doc_ids, kinds, text_hashes, codes, scales)
        return cls(generation_id, model, dimension, source_revision, created_at, [segment])

    @property
    def rows(self) -> int:
        """Stored rows, dead ones included."""
        return sum(seg.rows for seg in self.segments)

    @property
    def live(self) -> np.ndarray:
        mask = np.ones(self.rows, dtype=bool)
        mask[self.dead] = False
        return mask

    @property
    def stored_ids(self) -> list[str]:
        """The doc id of every stored row, dead rows included (what a purge must scrub)."""
        return [doc_id for seg in self.segments for doc_id in seg.doc_ids]

    @property
    def doc_ids(self) -> list[str]:
        """The doc ids of live rows, in row order."""
        ids = self.stored_ids
        if not len(self.dead):
            return ids
        return [ids[i] for i in np.flatnonzero(self.live)]

    @property
    def count(self) -> int:
        return self.rows - len(self.dead)

    def column(self, name: str) -> list[str]:
        """``kinds`` or ``text_hashes`` of every stored row."""
        return [value for seg in self.segments for value in getattr(seg, name)]

    def vectors(self) -> np.ndarray:
        """Dequantized float32 values of every stored row (not renormalised)."""
        parts = [dequantize(seg.codes, seg.scales) for seg in self.segments
                 if seg.rows and seg.codes is not None and seg.scales is not None]
        if not parts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.concatenate(parts) if len(parts) > 1 else parts[0]

    def subset(self, keep: np.ndarray) -> Generation:
        """The same generation restricted to stored rows where ``keep`` is true.

        Each segment keeps its codes and scales; segments left empty are dropped and the dead
        list is renumbered.
        """
        keep = np.asarray(keep, dtype=bool)
        segments: list[Segment] = []
        start = 0
        for seg in self.segments:
            part = keep[start : start + seg.rows]
            start += seg.rows
            rows = np.flatnonzero(part)
            if not len(rows):
                continue
            if len(rows) == seg.rows:
                segments.append(seg)
                continue
            assert seg.codes is not None
            segments.append(Segment(
                seg.prefix, [seg.doc_ids[i] for i in rows], [seg.kinds[i] for i in rows],
                [seg.text_hashes[i] for i in rows], seg.codes[rows], seg.scales,
            ))
        renumber = np.cumsum(keep) - 1
        dead = renumber[self.dead[keep[self.dead]]].astype(np.uint32) if len(self.dead) else self.dead
        if not segments:
            segments = [Segment("", [], [], [], np.zeros((0, self.dimension), dtype=np.int8),
                                np.ones(self.dimension, dtype=np.float32))]
        elif segments[0].prefix:
            first = segments[0]
            segments[0] = Segment("", first.doc_ids, first.kinds, first.text_hashes, first.codes, first.scales)
        return Generation(self.generation_id, self.model, self.dimension, self.source_revision, self.created_at,
                          segments, dead)


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


def _encode_docs(seg: Segment) -> bytes:
    compressor = zstandard.ZstdCompressor(level=_ZSTD_LEVEL, write_content_size=True)
    return compressor.compress(b"".join(
        orjson.dumps({"id": i, "kind": k, "text_sha256": h}) + b"\n"
        for i, k, h in zip(seg.doc_ids, seg.kinds, seg.text_hashes)
    ))


def _link_or_copy(source: Path, target: Path) -> None:
    """Hard-link an immutable segment file; copy where the filesystem has no links."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)
        os.chmod(target, 0o600)


def write_generation(path: Path, gen: Generation, *, link_from: Path | None = None) -> dict[str, Any]:
    """Write ``gen`` into the new directory ``path`` (data files first, meta.json last).

    Segments that carry ``files`` are hard-linked from ``link_from`` (their checksums are
    reused, not recomputed); the others are encoded and written.
    """
    path.mkdir(mode=0o700, parents=False, exist_ok=False)
    files: dict[str, dict[str, Any]] = {}
    segments = []
    for seg in gen.segments:
        if seg.files is not None and link_from is not None:
            for name in SEGMENT_FILES:
                _link_or_copy(link_from / f"{seg.prefix}{name}", path / f"{seg.prefix}{name}")
                files[f"{seg.prefix}{name}"] = seg.files[name]
        else:
            assert seg.codes is not None and seg.scales is not None
            payloads = {
                # int8 codes of dense embeddings are near-incompressible, so they are stored raw.
                VECTORS_NAME: np.ascontiguousarray(seg.codes, dtype=np.int8).tobytes(),
                SCALES_NAME: np.ascontiguousarray(seg.scales, dtype="<f4").tobytes(),
                DOCS_NAME: _encode_docs(seg),
            }
            entries = {}
            for name, data in payloads.items():
                _write_file(path / f"{seg.prefix}{name}", data)
                entries[name] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
                files[f"{seg.prefix}{name}"] = entries[name]
            seg.files = entries
        segments.append({"prefix": seg.prefix, "rows": seg.rows})
    if len(gen.dead):
        data = np.ascontiguousarray(gen.dead, dtype="<u4").tobytes()
        _write_file(path / DEAD_NAME, data)
        files[DEAD_NAME] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    meta = {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "generation_id": gen.generation_id,
        "model": gen.model,
        "dimension": gen.dimension,
        "count": gen.count,
        "rows": gen.rows,
        "segments": segments,
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


def _segment_plan(path: Path, meta: dict[str, Any], count: int) -> list[tuple[str, int]]:
    """(prefix, rows) of every segment; a meta without ``segments`` is one base segment."""
    raw = meta.get("segments")
    if raw is None:
        return [("", count)]
    if not isinstance(raw, list) or not raw:
        raise InvalidGeneration("vector-degraded", f"{path.name} meta has a bad segments list")
    plan = []
    for entry in raw:
        prefix = entry.get("prefix") if isinstance(entry, dict) else None
        rows = entry.get("rows") if isinstance(entry, dict) else None
        if not isinstance(prefix, str) or "/" in prefix or not isinstance(rows, int) or rows < 0:
            raise InvalidGeneration("vector-degraded", f"{path.name} meta has a bad segment entry {entry!r}")
        plan.append((prefix, rows))
    if plan[0][0] != "" or len({prefix for prefix, _ in plan}) != len(plan):
        raise InvalidGeneration("vector-degraded", f"{path.name} segments must start with the base and be distinct")
    return plan


def _read_segment(path: Path, meta: dict[str, Any], prefix: str, rows: int, dim: int) -> Segment:
    names = {name: f"{prefix}{name}" for name in SEGMENT_FILES}
    raw = _read_checked(path, names[VECTORS_NAME], meta)
    try:
        docs_raw = zstandard.ZstdDecompressor().decompress(_read_checked(path, names[DOCS_NAME], meta))
    except zstandard.ZstdError as exc:
        raise InvalidGeneration("vector-degraded", f"{path.name} does not decompress: {exc}") from None
    scales = np.frombuffer(_read_checked(path, names[SCALES_NAME], meta), dtype="<f4").astype(np.float32)
    if len(raw) != rows * dim or scales.shape != (dim,):
        raise InvalidGeneration("vector-degraded", f"{path.name} vector data does not hold {rows}x{dim} values")
    if not np.all(np.isfinite(scales)) or np.any(scales <= 0):
        raise InvalidGeneration("vector-degraded", f"{path.name} has a non-finite or non-positive scale")
    codes = np.frombuffer(raw, dtype=np.int8).reshape(rows, dim).copy()
    if rows and np.any(~codes.any(axis=1)):
        raise InvalidGeneration("vector-degraded", f"{path.name} holds an all-zero vector")
    ids, kinds, hashes = _parse_docs(path, docs_raw, rows)
    files = {name: meta["files"][full] for name, full in names.items()}
    return Segment(prefix, ids, kinds, hashes, codes, scales, files)


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
    segments = [_read_segment(path, meta, prefix, rows, dim) for prefix, rows in _segment_plan(path, meta, count)]
    total = sum(seg.rows for seg in segments)
    dead = np.zeros(0, dtype=np.uint32)
    if DEAD_NAME in meta.get("files", {}):
        dead = np.frombuffer(_read_checked(path, DEAD_NAME, meta), dtype="<u4").astype(np.uint32)
        if len(dead) and (int(dead.max()) >= total or len(np.unique(dead)) != len(dead)):
            raise InvalidGeneration("vector-degraded", f"{path.name} dead rows do not fit its {total} rows")
    gen = Generation(
        str(meta.get("generation_id", path.name)), str(meta.get("model", "")), dim,
        str(meta.get("source_revision", "")), str(meta.get("created_at", "")), segments, np.sort(dead),
    )
    live_ids = gen.doc_ids
    if len(live_ids) != count or len(set(live_ids)) != count:
        raise InvalidGeneration("vector-degraded", f"{path.name} docs do not list {count} distinct live ids")
    return gen


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
    if len(ids) != count:  # ids are distinct among live rows (checked per generation), not per segment
        raise InvalidGeneration("vector-degraded", f"{path.name} docs do not list {count} ids")
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
