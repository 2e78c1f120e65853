"""Frame-by-frame reading of multi-frame zstd logs, so torn and corrupt frames are found, not hidden.

A session log is many independent zstd frames, one per durably flushed batch. Decoding each
frame on its own gives exact frame boundaries: a safe resume offset after every frame, a torn
tail reported with its offset, and a corrupt frame skipped by resynchronising on the next
frame's magic number.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import BinaryIO, Iterator

import zstandard

__all__ = ["ZSTD_MAGIC", "FrameFault", "iter_frames", "is_zstd", "read_prefix"]

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
READ_SIZE = 1 << 20
# Feeding small slices keeps the per-frame copy of `unused_data` small.
FEED_SIZE = 1 << 15
# A frame's output is held back until its checksum is verified; past this size it is released
# early so a single-frame multi-GB log still streams in bounded memory.
MAX_FRAME_BUFFER = 32 << 20


@dataclass(frozen=True, slots=True)
class FrameFault:
    """A frame that could not be used: ``kind`` is "torn-frame" or "corrupt-frame"."""

    kind: str
    offset: int
    message: str


def is_zstd(path: object) -> bool:
    """True when the file starts with the zstd frame magic number (the name is not trusted)."""
    with open(path, "rb") as fh:  # type: ignore[call-overload]
        return fh.read(4) == ZSTD_MAGIC


def iter_frames(
    fh: BinaryIO,
    start_offset: int = 0,
    *,
    stop_offset: int | None = None,
    read_size: int = READ_SIZE,
    feed_size: int = FEED_SIZE,
    max_buffer: int = MAX_FRAME_BUFFER,
) -> Iterator[tuple[bytes, int | None] | FrameFault]:
    """Yield ``(payload, end_offset)`` per complete frame, or a :class:`FrameFault`.

    ``end_offset`` is the file offset just after the frame. A frame larger than ``max_buffer``
    is released in pieces whose ``end_offset`` is None, the last piece carrying the offset.
    Reading stops at the first frame ending at or after ``stop_offset`` when given.
    """
    dctx = zstandard.ZstdDecompressor()
    fh.seek(start_offset)
    base = start_offset  # file offset of buf[0]
    buf = b""
    pos = 0
    obj = None
    frame_start = start_offset
    parts: list[bytes] = []
    held = 0
    resyncing = False
    while True:
        if pos >= len(buf):
            base += len(buf)
            buf = fh.read(read_size)
            pos = 0
            if not buf:
                break
        view = memoryview(buf)[pos : pos + feed_size]
        if obj is None:
            obj = dctx.decompressobj()
            frame_start = base + pos
        try:
            out = obj.decompress(view)
        except zstandard.ZstdError as exc:
            if not resyncing:
                yield FrameFault("corrupt-frame", frame_start, f"zstd frame at byte {frame_start} is corrupt ({exc}); skipped")
            resyncing = True
            obj, parts, held = None, [], 0
            nxt = _find_magic(fh, frame_start + 1, read_size)
            if nxt is None:
                return
            fh.seek(nxt)
            base, buf, pos = nxt, b"", 0
            continue
        if out:
            parts.append(out)
            held += len(out)
        if obj.eof:
            pos += len(view) - len(obj.unused_data)
            end = base + pos
            yield (b"".join(parts), end)
            obj, parts, held = None, [], 0
            resyncing = False
            if stop_offset is not None and end >= stop_offset:
                return
        else:
            pos += len(view)
            if held > max_buffer:
                yield (b"".join(parts), None)
                parts, held = [], 0
    if obj is not None and not resyncing:
        yield FrameFault(
            "torn-frame", frame_start, f"last zstd frame at byte {frame_start} is incomplete (torn write); its lines were not read"
        )


def _find_magic(fh: BinaryIO, offset: int, read_size: int) -> int | None:
    """File offset of the next frame magic at or after ``offset``, or None."""
    fh.seek(offset)
    tail = b""
    at = offset
    while True:
        block = fh.read(read_size)
        if not block:
            return None
        data = tail + block
        i = data.find(ZSTD_MAGIC)
        if i != -1:
            return at - len(tail) + i
        tail = data[-3:]
        at += len(block)


def read_prefix(path: object, compressed: bool, *, max_lines: int, max_bytes: int) -> bytes:
    """The first ``max_lines`` lines (or ``max_bytes``) of the decompressed stream, for sniffing."""
    with open(path, "rb") as fh:  # type: ignore[call-overload]
        if not compressed:
            out = bytearray()
            for _ in range(max_lines):
                line = fh.readline(max_bytes - len(out))
                if not line:
                    break
                out += line
                if len(out) >= max_bytes:
                    break
            return bytes(out)
        got: list[bytes] = []
        size = newlines = 0
        for item in iter_frames(fh, 0, read_size=1 << 16, max_buffer=max_bytes):
            if isinstance(item, FrameFault):
                break
            got.append(item[0])
            size += len(item[0])
            newlines += item[0].count(b"\n")
            if newlines >= max_lines or size >= max_bytes:
                break
        return b"".join(got)
