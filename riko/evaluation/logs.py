"""Write harness session logs (the primary export format) for the corpus and the retrieval tests.

The files are what an agent harness writes: ``<dir>/<projectKey>/<sessionId>/session.jsonl.zstd``,
one zstd frame for the header line and one per batch of event lines. Only user and assistant
messages are written, each with its own ``seq``, so a dataset can cite ``(session_id, seq)``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import orjson
import zstandard

from ..clock import to_ms, utc
from ..errors import InvalidArgumentError

__all__ = ["write_harness_log", "message_event", "PROJECT_KEY"]

PROJECT_KEY = "--eval--"
_FRAME_EVENTS = 16
_STEP_MS = 37_000


def message_event(seq: int, time_ms: int, role: str, text: str) -> dict:
    """One ``user/message`` or ``assistant/message`` event line of a harness log."""
    if role == "user":
        return {"seq": seq, "time": time_ms, "type": "user/message",
                "data": {"id": f"m{seq}", "role": "user", "source": {"kind": "user"},
                         "content": [{"type": "text", "text": text}]}}
    if role == "assistant":
        return {"seq": seq, "time": time_ms, "type": "assistant/message",
                "data": {"turn": seq, "step": 0, "message": {
                    "role": "assistant", "content": [{"type": "text", "text": text}],
                    "source": {"kind": "model", "provider": "eval", "model": "eval"}}}}
    raise InvalidArgumentError(f"role must be user or assistant, got {role!r}")


def write_harness_log(
    directory: str | os.PathLike[str],
    session_id: str,
    preset: str,
    turns: Sequence[tuple[str, str]],
    *,
    start: str = "2026-01-01T09:00:00Z",
) -> Path:
    """Write ``turns`` (``(role, text)`` pairs, seq 0, 1, …) as a multi-frame zstd harness log."""
    created = to_ms(utc(start))
    header = {"type": "session", "version": 4, "id": session_id, "createdAt": created, "delegationDepth": 0,
              "cwd": "/home/eval/project", "agentPreset": preset}
    lines = [orjson.dumps(message_event(seq, created + (seq + 1) * _STEP_MS, role, text))
             for seq, (role, text) in enumerate(turns)]
    compressor = zstandard.ZstdCompressor(write_checksum=True)
    frames = [compressor.compress(orjson.dumps(header) + b"\n")]
    for at in range(0, len(lines), _FRAME_EVENTS):
        frames.append(compressor.compress(b"".join(line + b"\n" for line in lines[at:at + _FRAME_EVENTS])))
    path = Path(directory) / PROJECT_KEY / session_id / "session.jsonl.zstd"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(frames))
    return path
