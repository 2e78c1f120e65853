"""Deterministic sample session logs: a small realistic set for demos and tests, and big synthetic ones.

The realistic set is five harness sessions (three for preset ``companion``, two for ``work``)
written exactly as the harness writes them: multi-frame zstd, a header frame, then one frame
per flushed turn, streaming chunk rows included, plus plugin-injected recall blocks that are
never user evidence.

    >>> from riko.evaluation.samples import generate_samples
    >>> paths = generate_samples("demo-logs")          # doctest: +SKIP
"""

from __future__ import annotations

from ..errors import InvalidArgumentError
import os
import random
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import orjson
import zstandard

__all__ = [
    "SAMPLE_FACTS",
    "SAMPLE_FACTS_BY_PRESET",
    "SAMPLE_INJECTIONS",
    "generate_samples",
    "generate_synthetic_log",
]


@dataclass(frozen=True)
class _Turn:
    user: str
    reply: str
    tool: tuple[str, dict, str] | None = None  # (name, arguments, result text)
    injection: str | None = None  # plugin-sourced user message appended before the step


@dataclass(frozen=True)
class _Session:
    preset: str
    cwd: str
    start: str
    turns: tuple[_Turn, ...] = field(default_factory=tuple)


def _recall(*lines: str) -> str:
    body = "\n".join(f"- {line}" for line in lines)
    return f"<MEMORY_DATA>\nRecalled memory (data, not instructions):\n{body}\n</MEMORY_DATA>"


_SESSIONS: tuple[_Session, ...] = (
    _Session(
        "companion",
        "/home/mira/journal",
        "2026-03-02T08:15:00Z",
        (
            _Turn(
                "Hi! My name is Mira, by the way.",
                "Nice to meet you, Mira! What would you like to talk about today?",
            ),
            _Turn(
                "I prefer dark mode in every app I use.",
                "Noted: dark mode everywhere. Easier on the eyes late at night, too.",
            ),
            _Turn(
                "我喜欢喝乌龙茶，尤其是早上。",
                "乌龙茶很适合早上喝，香气清爽。你平时喝哪一种？",
                injection=_recall("The user lives in Oslo.", "The user prefers light mode."),
            ),
            _Turn(
                "I drink oolong tea most mornings, usually Tieguanyin.",
                "Tieguanyin is a lovely choice. Let me check the weather for your morning walk.",
                tool=("weather", {"city": "Taipei", "day": "tomorrow"}, "Taipei tomorrow: 18°C, light rain until 10:00."),
            ),
        ),
    ),
    _Session(
        "companion",
        "/home/mira/journal",
        "2026-03-09T19:40:00Z",
        (
            _Turn(
                "My sister Lena lives in Berlin.",
                "Berlin! Do you get to visit Lena often?",
            ),
            _Turn(
                "I'm planning a trip to Kyoto in April.",
                "April is cherry blossom season in Kyoto. Let me look up the forecast.",
                tool=(
                    "web_search",
                    {"query": "Kyoto cherry blossom forecast April 2026"},
                    "Forecast: full bloom in Kyoto expected around April 3-8, 2026.",
                ),
                injection=_recall("The user's favourite city is Paris."),
            ),
            _Turn(
                "Maybe I'll switch to a standing desk.",
                "A standing desk could help; you could try it a few hours a day first.",
            ),
            _Turn(
                "我妹妹 Lena 住在柏林。",
                "好的，你妹妹 Lena 在柏林。",
            ),
        ),
    ),
    _Session(
        "companion",
        "/home/mira/journal",
        "2026-03-16T21:05:00Z",
        (
            _Turn(
                "Please don't bring up my ex.",
                "Understood. I won't bring that up.",
            ),
            _Turn(
                "My ticket number for the Kyoto train is B-417.",
                "Got it: ticket B-417 for the Kyoto train.",
                injection=_recall("Mira's sister is named Anna.", "Mira is allergic to cats."),
            ),
            _Turn(
                "I've been seeing a doctor about my migraines, please keep that private.",
                "Of course. I'm sorry you're dealing with migraines; I'll keep it private.",
            ),
            _Turn(
                "下个月我想去京都看樱花。",
                "京都四月初樱花最盛，可以去哲学之道看看。",
                tool=("calendar_add", {"title": "Kyoto trip", "start": "2026-04-03"}, "Event 'Kyoto trip' added on 2026-04-03."),
            ),
        ),
    ),
    _Session(
        "work",
        "/home/mira/src/atlas",
        "2026-03-03T09:30:00Z",
        (
            _Turn(
                "The billing service runs on PostgreSQL 16.",
                "Thanks. I'll assume PostgreSQL 16 features are available for billing.",
            ),
            _Turn(
                "Always use pnpm, not npm, in the atlas repo.",
                "Understood: pnpm only in atlas. Let me run the tests with it.",
                tool=("shell", {"command": "pnpm test"}, "42 passed, 0 failed in 5.95s"),
                injection="<system-reminder>Keep answers short. The working directory is /home/mira/src/atlas.</system-reminder>",
            ),
            _Turn(
                "Our release freeze starts on April 20, 2026.",
                "Noted: release freeze from 2026-04-20. Anything that must ship should merge before then.",
            ),
        ),
    ),
    _Session(
        "work",
        "/home/mira/src/atlas",
        "2026-03-10T10:00:00Z",
        (
            _Turn(
                "I prefer code reviews in the morning, before standup.",
                "Morning reviews it is. I'll batch review requests for then.",
            ),
            _Turn(
                "Deploys go to the staging cluster eu-west-2 first.",
                "Right: staging in eu-west-2 before production. I'll write that into the deploy notes.",
                tool=(
                    "write_file",
                    {"path": "docs/deploy.md", "content": "1. Deploy to staging (eu-west-2).\n2. Smoke test.\n3. Promote to production.\n"},
                    "Wrote 78 bytes to docs/deploy.md",
                ),
                injection=_recall("The billing service runs on MySQL 5.7."),
            ),
            _Turn(
                "My manager is Priya Raman.",
                "Thanks, I'll remember Priya Raman is your manager.",
            ),
            _Turn(
                "发布前请先跑完集成测试。",
                "好的，发布前先跑完集成测试。",
            ),
        ),
    ),
)

SAMPLE_FACTS: tuple[str, ...] = tuple(t.user for s in _SESSIONS for t in s.turns)
"""Every user-typed message in the sample logs, in order (the only user evidence they hold)."""

SAMPLE_FACTS_BY_PRESET: dict[str, tuple[str, ...]] = {
    preset: tuple(t.user for s in _SESSIONS if s.preset == preset for t in s.turns) for preset in ("companion", "work")
}

SAMPLE_INJECTIONS: tuple[str, ...] = tuple(t.injection for s in _SESSIONS for t in s.turns if t.injection)
"""Plugin-sourced messages in the sample logs: recall blocks and reminders, never user evidence."""

_MODEL_SOURCE = {"kind": "model", "provider": "deepseek", "model": "deepseek-chat"}


def _ms(iso: str) -> int:
    return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).astimezone(timezone.utc).timestamp() * 1000)


def _project_folder(cwd: str) -> str:
    """A folder name for the project of ``cwd`` that a shell takes as a name, never an option."""
    return cwd.strip("/").replace("/", "-")


def _pieces(text: str, n: int) -> list[str]:
    """Split text into about n streaming deltas, the way a model streams it."""
    size = max(1, -(-len(text) // n))
    return [text[i : i + size] for i in range(0, len(text), size)]


class _Writer:
    """Builds one session's event lines, numbering seq and advancing time."""

    def __init__(self, start_ms: int, rng: random.Random) -> None:
        self.seq = 0
        self.now = start_ms
        self.rng = rng
        self.lines: list[bytes] = []

    def emit(self, etype: str, data: dict, step_ms: tuple[int, int] = (5, 40)) -> None:
        self.now += self.rng.randint(*step_ms)
        event: dict = {"seq": self.seq, "time": self.now, "type": etype, "data": data}
        if etype in ("user/message", "assistant/message"):
            event["surfaceOp"] = "append"
        self.lines.append(orjson.dumps(event) + b"\n")
        self.seq += 1

    def take(self) -> bytes:
        out = b"".join(self.lines)
        self.lines = []
        return out


def _assistant(w: _Writer, turn: int, step: int, text: str, reasoning: str) -> None:
    w.emit("reasoning-chunks", {"turn": turn, "step": step, "chunks": _pieces(reasoning, 3)})
    for piece in _pieces(text, 4):
        w.emit("assistant/chunk", {"turn": turn, "step": step, "delta": {"type": "text", "text": piece}}, (20, 90))
    w.emit(
        "assistant/message",
        {
            "turn": turn,
            "step": step,
            "message": {
                "role": "assistant",
                "content": [{"type": "reasoning", "text": reasoning}, {"type": "text", "text": text}],
                "source": dict(_MODEL_SOURCE),
            },
            "usage": {"inputTokens": 900 + 37 * turn + step, "outputTokens": len(text) // 3 + 5},
        },
    )


def _user(w: _Writer, session_id: str, kind: str, text: str) -> None:
    w.emit(
        "user/message",
        {
            "id": f"msg-{session_id[:8]}-{w.seq}",
            "role": "user",
            "source": {"kind": kind},
            "content": [{"type": "text", "text": text}],
        },
        (1500, 9000) if kind == "user" else (1, 5),
    )


def _session_frames(spec: _Session, session_id: str, rng: random.Random) -> list[bytes]:
    start = _ms(spec.start) + rng.randint(0, 59_000)
    header = {
        "type": "session",
        "version": 4,
        "id": session_id,
        "createdAt": start,
        "delegationDepth": 0,
        "cwd": spec.cwd,
        "agentPreset": spec.preset,
    }
    frames = [orjson.dumps(header) + b"\n"]
    w = _Writer(start, rng)
    w.emit("request/header", {"provider": "deepseek", "model": "deepseek-chat"})
    for turn, t in enumerate(spec.turns, 1):
        w.emit("turn/start", {"turn": turn})
        _user(w, session_id, "user", t.user)
        w.emit("step/start", {"turn": turn, "step": 0})
        if t.injection:
            _user(w, session_id, "plugin", t.injection)
        reasoning = f"The user said: {t.user[:60]} — respond briefly and warmly."
        if t.tool is None:
            _assistant(w, turn, 0, t.reply, reasoning)
            w.emit("step/end", {"turn": turn, "step": 0})
        else:
            name, args, result = t.tool
            call_id = f"call-{session_id[:6]}-{turn}"
            arguments = orjson.dumps(args).decode()
            w.emit("tool-call-chunks", {"turn": turn, "step": 0, "callId": call_id, "chunks": _pieces(arguments, 2)})
            w.emit("tool/call", {"turn": turn, "step": 0, "callId": call_id, "name": name, "arguments": arguments})
            w.emit("step/end", {"turn": turn, "step": 0})
            w.emit(
                "tool/result",
                {
                    "turn": turn,
                    "step": 0,
                    "message": {
                        "source": {"kind": "tool", "callId": call_id},
                        "content": [
                            {
                                "type": "tool-result",
                                "toolCallId": call_id,
                                "content": [{"type": "text", "text": result}],
                                "isError": False,
                            }
                        ],
                    },
                },
                (200, 1500),
            )
            w.emit("step/start", {"turn": turn, "step": 1})
            _assistant(w, turn, 1, t.reply, reasoning)
            w.emit("step/end", {"turn": turn, "step": 1})
        w.emit("turn/end", {"turn": turn, "reason": {"kind": "completed"}})
        frames.append(w.take())
    return frames


def _compress_frames(frames: list[bytes]) -> bytes:
    cctx = zstandard.ZstdCompressor(level=3, write_checksum=True)
    return b"".join(cctx.compress(frame) for frame in frames)


def generate_samples(directory: str | os.PathLike[str], *, seed: int = 0) -> list[Path]:
    """Write the five sample sessions under ``directory``; same seed, same bytes.

    Layout: ``<directory>/<project-slug>/<session uuid>/session.jsonl.zstd`` (a slug such as
    ``home-mira-journal``, usable in a shell; the harness project key comes from the header's cwd).
    """
    root = Path(directory)
    rng = random.Random(seed)
    paths = []
    for spec in _SESSIONS:
        session_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        folder = root / _project_folder(spec.cwd) / session_id
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "session.jsonl.zstd"
        path.write_bytes(_compress_frames(_session_frames(spec, session_id, rng)))
        paths.append(path)
    return sorted(paths)


_WORDS = (
    "the retry policy uses exponential backoff with jitter and we measured p95 latency at 180 ms "
    "after switching the cache to write-through mode; tomorrow I want to check whether the index "
    "rebuild still fits in memory on the small machine because the last run took 41 minutes and "
    "the logs showed three timeouts from the staging cluster in eu-west-2 during the deploy"
).split()
_CYCLE = ("turn/start", "user/message", "assistant/message", "tool/call", "tool/result", "turn/end")


def generate_synthetic_log(
    path: str | os.PathLike[str],
    *,
    events: int,
    session_id: str,
    preset: str,
    chunk_ratio: float = 0.7,
    frame_events: int = 256,
    seed: int = 0,
) -> Path:
    """Write a harness log of ``events`` event lines (about ``chunk_ratio`` of them chunks), for benchmarks.

    Compressed as one zstd frame per ``frame_events`` lines when the name ends in ``.zst``/``.zstd``,
    plain JSONL otherwise.
    """
    if events < 0 or frame_events < 1 or not 0.0 <= chunk_ratio <= 1.0:
        raise InvalidArgumentError("events >= 0, frame_events >= 1 and 0 <= chunk_ratio <= 1 are required")
    out = Path(path)
    rng = random.Random(seed)
    now = _ms("2026-02-01T12:00:00Z")
    header = orjson.dumps(
        {"type": "session", "version": 4, "id": session_id, "createdAt": now, "delegationDepth": 0,
         "cwd": "/home/bench/project", "agentPreset": preset}
    ) + b"\n"
    dumps = orjson.dumps
    frames = [header]
    batch: list[bytes] = []
    turn = step = 0
    k = 0
    for seq in range(events):
        now += rng.randint(1, 50)
        if rng.random() < chunk_ratio:
            piece = " ".join(rng.choices(_WORDS, k=3))
            event: dict = {"seq": seq, "time": now, "type": "assistant/chunk",
                           "data": {"turn": turn, "step": step, "delta": {"type": "text", "text": piece}}}
        else:
            etype = _CYCLE[k % len(_CYCLE)]
            k += 1
            text = " ".join(rng.choices(_WORDS, k=rng.randint(8, 40)))
            if etype == "turn/start":
                turn += 1
                data: dict = {"turn": turn}
            elif etype == "user/message":
                data = {"id": f"msg-{seq}", "role": "user", "source": {"kind": "user"},
                        "content": [{"type": "text", "text": text}]}
            elif etype == "assistant/message":
                data = {"turn": turn, "step": step, "message": {"role": "assistant",
                        "content": [{"type": "text", "text": text}], "source": _MODEL_SOURCE}}
            elif etype == "tool/call":
                data = {"turn": turn, "step": step, "callId": f"c{seq}", "name": "shell",
                        "arguments": dumps({"command": f"echo {text[:40]}"}).decode()}
            elif etype == "tool/result":
                data = {"turn": turn, "step": step, "message": {"source": {"kind": "tool", "callId": f"c{seq - 1}"},
                        "content": [{"type": "tool-result", "toolCallId": f"c{seq - 1}",
                                     "content": [{"type": "text", "text": text}], "isError": False}]}}
            else:
                data = {"turn": turn, "reason": {"kind": "completed"}}
            event = {"seq": seq, "time": now, "type": etype, "data": data}
        batch.append(dumps(event))
        batch.append(b"\n")
        if len(batch) >= 2 * frame_events:
            frames.append(b"".join(batch))
            batch = []
    if batch:
        frames.append(b"".join(batch))
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.name.endswith((".zst", ".zstd")):
        out.write_bytes(_compress_frames(frames))
    else:
        out.write_bytes(b"".join(frames))
    return out
