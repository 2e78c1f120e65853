"""Streaming readers for session logs: harness logs, riko's own L0 lines, and chat transcripts.

Every format becomes the same bounded :class:`LogEvent` (the L0 evidence projection), read in
constant memory. Damage is recorded as :class:`LogIssue` and reading goes on, and
``bytes_consumed`` marks a safe point to resume from when the log grows.

    >>> reader = LogReader("sessions/--home-mira--/0f8e.../session.jsonl.zstd")  # doctest: +SKIP
    >>> reader.header.preset                                                     # doctest: +SKIP
    'companion'
    >>> for event in reader.events(): ...                                        # doctest: +SKIP
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from ..clock import MAX_MS, MIN_MS, to_ms, utc
from ..errors import IngestError, InvalidArgumentError
from .projection import ROLES, bound_text, bound_value, content_texts, describe_event, project_l0

# The projection helpers under the names riko.ingest.capture imports from this module.
from .projection import bound_text as _bound_text  # noqa: F401
from .projection import bound_value as _bound_value  # noqa: F401
from .projection import event_text as _event_text  # noqa: F401
from .projection import project_l0 as _project  # noqa: F401
from .projection import role_and_source as _role_and_source  # noqa: F401
from .zstd_frames import FrameFault, is_zstd, iter_frames, read_prefix

__all__ = [
    "SKIPPED_TYPES",
    "LogEvent",
    "LogIssue",
    "KEPT_WITH_WARNING",
    "SessionMeta",
    "LogReader",
    "detect_format",
    "iter_log_files",
    "is_skipped_type",
]

SKIPPED_TYPES: frozenset[str] = frozenset({"assistant/chunk", "text-chunks", "reasoning-chunks", "tool-call-chunks"})
_SKIPPED_BYTES = frozenset(t.encode() for t in SKIPPED_TYPES)

_CHAT_ROLE_ALIASES = {"developer": "system", "function": "tool"}
_CHAT_SOURCE = {"user": "user", "assistant": "model", "tool": "tool"}

_LOG_SUFFIXES = (".jsonl", ".jsonl.zstd", ".jsonl.zst", ".zst", ".json")
_READ_SIZE = 1 << 20
_SNIFF_LINES = 8
_SNIFF_BYTES = 8 << 20
_BOM = b"\xef\xbb\xbf"
# The key order the harness and riko's L0 export write; other layouts take the full parse.
_HARNESS_HEAD = re.compile(rb'\{"seq":(\d+),"time":[-+.\w]+,"type":"([^"\\]*)"')
_L0_HEAD = re.compile(rb'\{"schemaVersion":1,"sessionId":"[^"\\]*","seq":\d+,"time":(?:"[^"\\]*"|[-+.\w]+),"type":"([^"\\]*)"')
_PROJECT_KEY_RE = re.compile(r"^--.+--$")


def is_skipped_type(event_type: str) -> bool:
    """True for streaming chunk events, which carry no meaning of their own."""
    return event_type in SKIPPED_TYPES or event_type.endswith("/chunk") or event_type.endswith("-chunks")


def _is_chunk_name(name: bytes) -> bool:
    return name in _SKIPPED_BYTES or name.endswith(b"/chunk") or name.endswith(b"-chunks")


@dataclass(frozen=True, slots=True)
class LogEvent:
    """One meaningful event in the L0 projection, with its text bounded to ``max_text_chars``."""

    session_id: str
    seq: int
    time_ms: int
    type: str
    role: str | None
    source_kind: str | None
    text: str
    data: dict
    line: int
    truncated: bool


#: Issue kinds whose line is still kept as an event (the issue is a warning riding on it):
#: a message with an unusable time is kept without one, and a seq gap is reported on the
#: first event after the gap. Every other kind means the line was dropped (or, with no
#: line, that the file as a whole has a problem).
KEPT_WITH_WARNING = frozenset({"invalid-time", "seq-gap"})


@dataclass(frozen=True, slots=True)
class LogIssue:
    """Something wrong in a log (where, and what); the reader recorded it and went on.

    A line yields at most one event and at most one issue: an issue of a kind in
    :data:`KEPT_WITH_WARNING` accompanies the event of its line, any other line issue
    replaces it.
    """

    path: str
    line: int | None
    offset: int | None
    kind: str
    message: str

    @property
    def kept(self) -> bool:
        """Whether the line this issue names was still kept as an event."""
        return self.kind in KEPT_WITH_WARNING


@dataclass
class SessionMeta:
    """What a log says about one session: its preset (harness only), start, place and lineage."""

    session_id: str
    preset: str | None
    created_ms: int | None
    cwd: str | None
    project_key: str | None
    parent_session: str | None
    format: str


class LogReader:
    """Stream the events of one session log file, whatever its format and compression.

    ``start_offset``/``start_line`` resume after an earlier read (pass its ``bytes_consumed`` and
    ``lines_consumed``). ``session_id`` names the session only where the log itself does not.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        start_offset: int = 0,
        start_line: int = 0,
        max_text_chars: int = 16000,
        session_id: str | None = None,
    ) -> None:
        if max_text_chars < 1:
            raise InvalidArgumentError(f"max_text_chars must be at least 1, got {max_text_chars}")
        if start_offset < 0 or start_line < 0:
            raise InvalidArgumentError("start_offset and start_line must not be negative")
        self.path = Path(path)
        self.max_text_chars = max_text_chars
        self.start_offset = start_offset
        self.start_line = start_line
        self.header: SessionMeta | None = None
        self.sessions: dict[str, SessionMeta] = {}
        self.issues: list[LogIssue] = []
        self.bytes_consumed = start_offset
        self.lines_consumed = start_line
        self._session_arg = session_id
        self._next_seq: int | None = 0 if start_line == 0 and start_offset == 0 else None
        self._last_seq: dict[str, int] = {}
        self._chat_seq: dict[str, int] = {}
        if not self.path.is_file():
            raise IngestError("no such log file", self.path)
        self.compressed = is_zstd(self.path)
        head = read_prefix(self.path, self.compressed, max_lines=_SNIFF_LINES, max_bytes=_SNIFF_BYTES)
        self._layout: str | None
        try:
            self.format, self._layout = _sniff(head, self.path)
        except IngestError as exc:
            self.format, self._layout = "unknown", None
            self._issue(None, 0, "unsupported-format", str(exc))
        self._sid = session_id or _fallback_session_id(self.path)
        if self.format == "harness":
            self._read_header(head)

    def __repr__(self) -> str:
        preset = self.header.preset if self.header is not None else None
        return (
            f"LogReader({str(self.path)!r}, format={self.format!r}, compressed={self.compressed}, "
            f"preset={preset!r}, issues={len(self.issues)})"
        )

    # -- public ---------------------------------------------------------------------------

    def events(self) -> Iterator[LogEvent]:
        """Yield the log's meaningful events in file order; chunk events and the header are skipped."""
        if self.format == "unknown":
            return
        if self._layout == "document":
            yield from self._document_events()
            return
        handle = self._guarded({"harness": self._harness_line, "l0": self._l0_line, "chat": self._chat_line}[self.format])
        if self.format == "chat" and self.start_offset > 0:
            self._prime(handle)
        loop = self._zstd_events if self.compressed else self._plain_events
        yield from loop(handle, self.start_offset, self.start_line)

    def _guarded(self, handle: Callable[[bytes, int], LogEvent | None]) -> Callable[[bytes, int], LogEvent | None]:
        """``handle``, except that a line it cannot take becomes an issue row instead of an error:
        one bad line never stops the rest of the file (or the folder) from arriving."""

        def guarded(raw: bytes, line: int) -> LogEvent | None:
            try:
                return handle(raw, line)
            except (ValueError, TypeError, OverflowError, RecursionError, KeyError, AttributeError) as exc:
                self._issue(line, None, "invalid-event", f"line {line} cannot be read: {type(exc).__name__}: {exc}")
                return None

        return guarded

    # -- header and sessions --------------------------------------------------------------

    def _read_header(self, head: bytes) -> None:
        first = head.split(b"\n", 1)[0].removeprefix(_BOM)
        obj = _loads_or_none(first)
        if isinstance(obj, dict) and obj.get("type") == "session" and "seq" not in obj:
            named = obj.get("id")
            sid = named if isinstance(named, str) and named else self._sid
            self._sid = sid
            preset = obj.get("agentPreset")
            parent = obj.get("parentSession")
            cwd = obj.get("cwd")
            self.header = SessionMeta(
                session_id=sid,
                preset=preset if isinstance(preset, str) and preset else None,
                created_ms=_time_ms(obj.get("createdAt")),
                cwd=cwd if isinstance(cwd, str) else None,
                project_key=_project_key(self.path) or _cwd_project_key(cwd),
                parent_session=parent if isinstance(parent, str) and parent else None,
                format="harness",
            )
            self.sessions[sid] = self.header
        else:
            self.sessions[self._sid] = SessionMeta(self._sid, None, None, None, _project_key(self.path), None, "harness")

    def _session(self, sid: str, time_ms: int | None, fmt: str) -> None:
        if sid not in self.sessions:
            self.sessions[sid] = SessionMeta(sid, None, time_ms or None, None, None, None, fmt)

    def _issue(self, line: int | None, offset: int | None, kind: str, message: str) -> None:
        self.issues.append(LogIssue(str(self.path), line, offset, kind, message))

    # -- line loops -----------------------------------------------------------------------

    def _plain_events(
        self, handle: Callable[[bytes, int], LogEvent | None], start: int, line: int, stop: int | None = None
    ) -> Iterator[LogEvent]:
        pos = read_pos = start
        pending: list[bytes] = []
        first = start == 0
        with open(self.path, "rb") as fh:
            fh.seek(start)
            while True:
                want = _READ_SIZE if stop is None else min(_READ_SIZE, stop - read_pos)
                block = fh.read(want) if want > 0 else b""
                if not block:
                    break
                read_pos += len(block)
                if first:
                    first = False
                    if block.startswith(_BOM):
                        block = block[len(_BOM) :]
                        pos += len(_BOM)
                if pending:
                    if b"\n" not in block:
                        pending.append(block)
                        continue
                    pending.append(block)
                    block = b"".join(pending)
                    pending = []
                lines = block.split(b"\n")
                tail = lines.pop()
                if tail:
                    pending.append(tail)
                for raw in lines:
                    line += 1
                    pos += len(raw) + 1
                    ev = handle(raw, line) if raw and not raw.isspace() else None
                    self.bytes_consumed = pos
                    self.lines_consumed = line
                    if ev is not None:
                        yield ev
        if pending and stop is None:
            ev = self._final_line(handle, b"".join(pending), line + 1)
            if ev is not None:
                yield ev

    def _zstd_events(
        self, handle: Callable[[bytes, int], LogEvent | None], start: int, line: int, stop: int | None = None
    ) -> Iterator[LogEvent]:
        carry = b""
        first = start == 0
        with open(self.path, "rb") as fh:
            for item in iter_frames(fh, start, stop_offset=stop):
                if isinstance(item, FrameFault):
                    self._issue(line + 1, item.offset, item.kind, item.message)
                    carry = b""
                    continue
                payload, end = item
                if first:
                    payload = payload.removeprefix(_BOM)
                    first = False
                if carry:
                    payload = carry + payload
                lines = payload.split(b"\n")
                carry = lines.pop()
                held: LogEvent | None = None
                for raw in lines:
                    line += 1
                    if raw and not raw.isspace():
                        ev = handle(raw, line)
                        if ev is not None:
                            if held is not None:
                                yield held
                            held = ev
                # The resume point moves once the frame's last event is handed over.
                if end is not None and not carry:
                    self.bytes_consumed = end
                    self.lines_consumed = line
                if held is not None:
                    yield held
        if carry and not carry.isspace() and stop is None:
            ev = self._final_line(handle, carry, line + 1)
            if ev is not None:
                yield ev

    def _final_line(self, handle: Callable[[bytes, int], LogEvent | None], raw: bytes, line: int) -> LogEvent | None:
        """An unterminated last line: used when it is whole JSON, never counted as consumed."""
        if raw.isspace():
            return None
        try:
            orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            self._issue(line, None, "malformed-json", f"last line has no newline and is not valid JSON (torn write?): {exc}")
            return None
        return handle(raw, line)

    def _prime(self, handle: Callable[[bytes, int], LogEvent | None]) -> None:
        """Re-count chat messages before ``start_offset`` so per-session seq numbers continue."""
        saved = self.issues
        self.issues = []
        loop = self._zstd_events if self.compressed else self._plain_events
        for _ in loop(handle, 0, 0, self.start_offset):
            pass
        self.issues = saved
        self.bytes_consumed, self.lines_consumed = self.start_offset, self.start_line

    # -- per-format line handlers ---------------------------------------------------------

    def _parse_object(self, raw: bytes, line: int) -> dict | None:
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            self._issue(line, None, "malformed-json", f"line {line} is not valid JSON: {exc}")
            return None
        if not isinstance(obj, dict):
            self._issue(line, None, "invalid-event", f"line {line} is a JSON {type(obj).__name__}, not an object")
            return None
        return obj

    def _harness_line(self, raw: bytes, line: int) -> LogEvent | None:
        # Chunk rows are most of a log: recognise them from the writer's fixed key order and
        # skip the JSON parse. The anchored prefix cannot reach into nested data or a string.
        m = _HARNESS_HEAD.match(raw)
        if m is not None:
            name = m.group(2)
            if (name in _SKIPPED_BYTES or name.endswith(b"/chunk") or name.endswith(b"-chunks")) and raw.endswith(b"}"):
                seq = int(m.group(1))
                if seq == self._next_seq:
                    self._next_seq = seq + 1
                else:
                    self._check_seq(seq, line)
                return None
        obj = self._parse_object(raw, line)
        if obj is None:
            return None
        etype = obj.get("type")
        if etype == "session" and obj.get("seq") is None:
            if line != 1:
                self._issue(line, None, "invalid-event", f"line {line} is a session header; only line 1 may be one")
            return None
        fields = self._event_fields(obj, line)
        if fields is None:
            return None
        seq, time_ms, etype, data = fields
        if not self._check_seq(seq, line) or is_skipped_type(etype):
            return None
        return self._make_event(self._sid, seq, time_ms, etype, project_l0(etype, data), line, len(raw))

    def _l0_line(self, raw: bytes, line: int) -> LogEvent | None:
        m = _L0_HEAD.match(raw)
        if m is not None and _is_chunk_name(m.group(1)) and raw.endswith(b"}"):
            return None
        obj = self._parse_object(raw, line)
        if obj is None:
            return None
        version = obj.get("schemaVersion")
        if version != 1:
            self._issue(line, None, "invalid-event", f"line {line} has schemaVersion {version!r}; only 1 is known")
            return None
        sid = obj.get("sessionId")
        if not isinstance(sid, str) or not sid:
            if self._session_arg is None:
                self._issue(line, None, "invalid-event", f"line {line} has no sessionId")
                return None
            sid = self._session_arg
        fields = self._event_fields(obj, line)
        if fields is None:
            return None
        seq, time_ms, etype, data = fields
        last = self._last_seq.get(sid)
        if last is not None and seq <= last:
            self._issue(line, None, "seq-duplicate", f"session {sid}: seq {seq} at line {line} does not follow {last}; skipped")
            return None
        self._last_seq[sid] = seq
        if is_skipped_type(etype):
            return None
        self._session(sid, time_ms, "l0")
        return self._make_event(sid, seq, time_ms, etype, data, line, len(raw))

    def _chat_line(self, raw: bytes, line: int) -> LogEvent | None:
        obj = self._parse_object(raw, line)
        if obj is None:
            return None
        return self._chat_object(obj, line, len(raw), None)

    def _chat_object(self, obj: Any, line: int, raw_len: int, doc_sid: str | None) -> LogEvent | None:
        if not isinstance(obj, dict):
            self._issue(line, None, "invalid-event", f"message {line} is a JSON {type(obj).__name__}, not an object")
            return None
        role = obj.get("role")
        role = _CHAT_ROLE_ALIASES.get(role, role) if isinstance(role, str) else None
        if role not in ROLES:
            self._issue(line, None, "invalid-event", f"message {line} has role {obj.get('role')!r}; expected user, assistant, system or tool")
            return None
        sid = obj.get("session_id") or obj.get("sessionId")
        if not isinstance(sid, str) or not sid:
            sid = doc_sid or self._sid
        seq = self._chat_seq.get(sid, 0)
        self._chat_seq[sid] = seq + 1
        stamp = obj.get("timestamp", obj.get("time", obj.get("created_at")))
        time_ms = _chat_time_ms(stamp)
        if time_ms is None:
            if stamp is not None:
                self._issue(line, None, "invalid-time", f"message {line} has an unusable time {_shown(stamp)}; kept without one")
            time_ms = 0
        message: dict[str, Any] = {
            "role": role,
            "content": [{"type": "text", "text": t} for t in content_texts(obj.get("content"))],
        }
        kind = _CHAT_SOURCE.get(role)
        if kind is not None:
            message["source"] = {"kind": kind}
        self._session(sid, time_ms, "chat")
        return self._make_event(sid, seq, time_ms, f"{role}/message", {"message": message}, line, raw_len)

    def _event_fields(self, obj: dict, line: int) -> tuple[int, int, str, dict] | None:
        seq = obj.get("seq")
        if not isinstance(seq, int) or isinstance(seq, bool) or not 0 <= seq <= _MAX_SEQ:
            self._issue(line, None, "invalid-event", f"line {line} has no integer seq from 0 to 2^63-1 (got {_shown(seq)})")
            return None
        etype = obj.get("type")
        if not isinstance(etype, str) or not etype:
            self._issue(line, None, "invalid-event", f"line {line} has no event type")
            return None
        time_ms = _time_ms(obj.get("time"))
        if time_ms is None:
            self._issue(line, None, "invalid-event", f"line {line} has no usable time (got {_shown(obj.get('time'))})")
            return None
        data = obj.get("data")
        if data is None:
            data = {}
        elif not isinstance(data, dict):
            self._issue(line, None, "invalid-event", f"line {line}: data is a JSON {type(data).__name__}, not an object")
            return None
        return seq, time_ms, etype, data

    def _check_seq(self, seq: int, line: int) -> bool:
        """Harness seq runs 0, 1, 2, …: report gaps (event kept) and repeats (event dropped)."""
        expected = self._next_seq
        if expected is not None and seq < expected:
            self._issue(line, None, "seq-duplicate", f"seq {seq} at line {line} repeats or goes back (expected {expected}); skipped")
            return False
        if expected is not None and seq > expected:
            self._issue(line, None, "seq-gap", f"seq jumps from {expected - 1} to {seq} at line {line}: {seq - expected} event(s) missing")
        self._next_seq = seq + 1
        return True

    def _make_event(self, sid: str, seq: int, time_ms: int, etype: str, data: dict, line: int, raw_len: int) -> LogEvent:
        limit = self.max_text_chars
        text, role, source_kind = describe_event(etype, data)
        cut = False
        if len(text) > limit:
            text, cut = bound_text(text, limit)
        # No string inside a line can have more characters than the line has bytes.
        if raw_len > limit:
            data, data_cut = bound_value(data, limit)
            cut = cut or data_cut
        return LogEvent(sid, seq, time_ms, etype, role, source_kind, text, data, line, cut)

    # -- whole-document chat transcripts --------------------------------------------------

    def _document_events(self) -> Iterator[LogEvent]:
        raw = self._read_all()
        if raw is None:
            return
        try:
            doc = orjson.loads(raw.removeprefix(_BOM))
        except orjson.JSONDecodeError as exc:
            self._issue(None, None, "malformed-json", f"file is not valid JSON: {exc}")
            return
        doc_sid = None
        if isinstance(doc, dict) and isinstance(doc.get("messages"), list):
            sid = doc.get("session_id") or doc.get("sessionId") or doc.get("id")
            doc_sid = sid if isinstance(sid, str) and sid else None
            items = doc["messages"]
        elif isinstance(doc, list):
            items = doc
        else:
            self._issue(None, None, "unsupported-format", "JSON document is neither a list of messages nor an object with 'messages'")
            return
        for index, obj in enumerate(items, 1):
            before = len(self.issues)
            ev = self._chat_object(obj, index, _BIG, doc_sid)
            if index <= self.start_line:
                del self.issues[before:]
                continue
            self.lines_consumed = index
            if ev is not None:
                yield ev
        self.bytes_consumed = self.path.stat().st_size
        self.lines_consumed = max(len(items), self.start_line)

    def _read_all(self) -> bytes | None:
        if not self.compressed:
            return self.path.read_bytes()
        parts = []
        with open(self.path, "rb") as fh:
            for item in iter_frames(fh, 0):
                if isinstance(item, FrameFault):
                    self._issue(None, item.offset, item.kind, item.message)
                    if item.kind == "torn-frame":
                        break
                    return None
                parts.append(item[0])
        return b"".join(parts)


_BIG = 1 << 62  # documents have no per-line length, so always bound their strings


# -- small parsers --------------------------------------------------------------------------


def _loads_or_none(raw: bytes) -> Any:
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None


_MAX_SEQ = (1 << 63) - 1  # a BIGINT column
# Epoch milliseconds of 0001-01-01 and 9999-12-31T23:59:59.999Z: what a timestamp column holds
_MIN_MS, _MAX_MS = MIN_MS, MAX_MS


def _shown(value: Any) -> str:
    """A value for an issue message, cut short (a line may hold a 20-digit number or a long text)."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _in_range(ms: float) -> int | None:
    return int(ms) if ms == ms and _MIN_MS <= ms <= _MAX_MS else None


def _time_ms(value: Any) -> int | None:
    """Epoch milliseconds from a number or an ISO-8601 string; None when out of range or unreadable."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return _in_range(value)
    if isinstance(value, str):
        text = value.strip()
        if text.isascii() and text.isdigit():
            return _in_range(int(text)) if len(text) <= 16 else None
        try:
            return _in_range(to_ms(utc(text)))
        except (ValueError, OverflowError):
            return None
    return None


def _chat_time_ms(value: Any) -> int | None:
    """Chat timestamps are ISO strings, epoch seconds or epoch milliseconds."""
    ms = _time_ms(value)
    if ms is not None and isinstance(value, (int, float)) and abs(value) < 1e11:
        return _in_range(value * 1000)
    return ms


def _strip_log_suffix(name: str) -> str:
    for suffix in (".zstd", ".zst"):
        name = name.removesuffix(suffix)
    for suffix in (".jsonl", ".json"):
        name = name.removesuffix(suffix)
    return name


def _fallback_session_id(path: Path) -> str:
    """Harness layout names the folder after the session; elsewhere the file stem is the id."""
    stem = _strip_log_suffix(path.name)
    if stem == "session" and path.parent.name:
        return path.parent.name
    return stem


def _project_key(path: Path) -> str | None:
    for folder in (path.parent.parent.name, path.parent.name):
        if _PROJECT_KEY_RE.match(folder):
            return folder
    return None


def _cwd_project_key(cwd: Any) -> str | None:
    """The harness's project key for a working directory, for logs kept outside its folders."""
    if not isinstance(cwd, str) or not cwd.strip("/"):
        return None
    return "--" + cwd.strip("/").replace("/", "-") + "--"


def _classify(obj: Any) -> tuple[str, str] | None:
    if isinstance(obj, list):
        return "chat", "document"
    if not isinstance(obj, dict):
        return None
    if "schemaVersion" in obj and "sessionId" in obj:
        return "l0", "lines"
    if obj.get("type") == "session" and "seq" not in obj:
        return "harness", "lines"
    if "seq" in obj and "type" in obj:
        return "harness", "lines"
    if "role" in obj:
        return "chat", "lines"
    if isinstance(obj.get("messages"), list):
        return "chat", "document"
    return None


def _sniff(head: bytes, path: Path) -> tuple[str, str]:
    """Decide (format, layout) from the first lines of the decompressed stream."""
    head = head.removeprefix(_BOM)
    stripped = head.lstrip()
    if stripped.startswith(b"["):
        return "chat", "document"
    lines = [ln for ln in head.split(b"\n") if ln.strip()][:_SNIFF_LINES]
    for index, raw in enumerate(lines):
        obj = _loads_or_none(raw)
        if obj is None:
            if index == 0 and raw.strip() == b"{" and ".json" in path.name and ".jsonl" not in path.name:
                return "chat", "document"
            continue
        found = _classify(obj)
        if found is not None:
            return found
    if _strip_log_suffix(path.name) == "session" and ".jsonl" in path.name:
        return "harness", "lines"
    raise IngestError(
        "not a recognised session log: expected a harness log, riko L0 lines or a chat transcript "
        "(JSONL or a JSON array of {role, content})",
        path,
    )


def detect_format(path: str | os.PathLike[str]) -> str:
    """``"harness"``, ``"l0"`` or ``"chat"``, sniffed from the first lines after decompression.

    Raises :class:`~riko.errors.IngestError` when the file is none of them.
    """
    p = Path(path)
    if not p.is_file():
        raise IngestError("no such log file", p)
    compressed = is_zstd(p)
    return _sniff(read_prefix(p, compressed, max_lines=_SNIFF_LINES, max_bytes=_SNIFF_BYTES), p)[0]


def _is_log_name(name: str) -> bool:
    return name.endswith(_LOG_SUFFIXES) or name.endswith(".jsonl.zstd")


def iter_log_files(paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> Iterator[Path]:
    """Log files under the given files and directories, each once, in a stable sorted order.

    Directories are walked recursively (hidden entries skipped) for ``*.jsonl``, ``*.jsonl.zstd``,
    ``*.jsonl.zst``, ``*.zst`` and ``*.json``; a file named explicitly is taken as given.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    seen: set[Path] = set()
    for item in paths:
        root = Path(item)
        if root.is_file():
            found = [root]
        elif root.is_dir():
            found = []
            for folder, dirs, files in os.walk(root):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                found.extend(Path(folder, f) for f in files if not f.startswith(".") and _is_log_name(f))
            found.sort(key=lambda p: p.parts)
        else:
            raise IngestError("no such file or directory", root)
        for path in found:
            key = path.resolve()
            if key not in seen:
                seen.add(key)
                yield path
