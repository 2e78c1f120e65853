"""What of a session log is recall evidence: the kept/dropped rule for every event kind.

User messages, assistant prose, tool output that carries measurements, errors or command
output, and tool calls that write a file (path and content) are kept; streaming fragments,
plugin injections, file reads, blob JSON and shell / run_code bodies are dropped. A kept
line has a role: ``user`` is the user's own words and the only authority; ``assistant``
and ``tool`` lines are supplements that recall labels and never treats as the user's.

The rule reads stored L0 rows (type, role, source kind, text, projected data), so ingest,
live capture and the recall index apply the same one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import orjson

__all__ = ["KEPT_TOOL_TYPES", "RecallUnit", "Keeper", "label_for", "tool_call_name", "tool_result_call_id"]

#: Event types whose rows the recall index reads besides user messages.
KEPT_TOOL_TYPES = ("assistant/message", "tool/result", "tool/message", "tool/call")

# Tools whose result is a file read back (re-readable on demand, so not memory).
_READ_RE = re.compile(r"read|view|^cat$|^ls$|^head$|^tail$|glob|list_?dir|open_?file|get_?file|fetch_?file",
                      re.IGNORECASE)
# Tools that run code or a shell: their bodies are scratch work, re-runnable.
_SHELL_RE = re.compile(r"bash|shell|exec|run_?code|python|terminal|command|cmd|powershell|sh$", re.IGNORECASE)
# Tools that change a file: the call is the only record of what was written.
_WRITE_RE = re.compile(r"write|edit|create|patch|replace|insert|save|append|delete|remove|rename|move|update",
                       re.IGNORECASE)
_PATH_KEYS = ("path", "file_path", "filepath", "filename", "file", "target_file", "target", "dest", "destination")
_CONTENT_KEYS = ("content", "contents", "text", "new_str", "new_string", "file_text", "patch", "diff", "insert_text",
                 "replacement", "body", "data")
# A command argument that turns an editor tool into a reader.
_READ_COMMANDS = frozenset({"view", "read", "open", "cat", "show", "list"})


@dataclass(frozen=True)
class RecallUnit:
    """One kept line: its role (``user`` / ``assistant`` / ``tool``), tool name, and indexed text."""

    role: str
    text: str
    tool: str | None = None

    @property
    def label(self) -> str:
        """How recall names the line's origin: ``[assistant]``, ``[tool: name]`` (empty for user lines)."""
        return label_for(self.role, self.tool)


def label_for(role: str | None, tool: str | None = None) -> str:
    """The rendered origin label of a line of ``role`` (empty for the user's own words)."""
    if role == "assistant":
        return "[assistant]"
    if role == "tool":
        return f"[tool: {tool}]" if tool else "[tool]"
    return ""


def _json(value: Any) -> Any:
    if isinstance(value, (dict, list)):
        return value
    if isinstance(value, str):
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:
            return None
    return None


def tool_call_name(data: Any) -> str | None:
    """The tool name of a ``tool/call`` row's projected data."""
    data = _json(data)
    name = data.get("name") if isinstance(data, dict) else None
    return name if isinstance(name, str) and name else None


def tool_result_call_id(data: Any) -> str | None:
    """The call id a ``tool/result`` row answers (``source.callId`` or the part's ``toolCallId``)."""
    data = _json(data)
    if not isinstance(data, dict):
        return None
    message = data.get("message")
    if isinstance(message, dict):
        source = message.get("source")
        if isinstance(source, dict) and isinstance(source.get("callId"), str):
            return source["callId"]
        content = message.get("content")
        if isinstance(content, list):
            for part in content:
                if isinstance(part, dict) and isinstance(part.get("toolCallId"), str):
                    return part["toolCallId"]
    return None


def _is_blob(text: str) -> bool:
    """A result that is one JSON object or array: structured data, not a reading of the world."""
    s = text.strip()
    if len(s) < 2 or s[0] not in "{[" or s[-1] not in "}]":
        return False
    try:
        orjson.loads(s)
    except orjson.JSONDecodeError:
        return False
    return True


def _is_read(name: str, arguments: Any) -> bool:
    """A call that reads a file back (by its name, or an editor tool's read command)."""
    if _READ_RE.search(name) and not _WRITE_RE.search(name):
        return True
    args = _json(arguments)
    command = args.get("command") or args.get("action") if isinstance(args, dict) else None
    return isinstance(command, str) and command.lower() in _READ_COMMANDS


def _file_write(name: str, arguments: Any) -> str | None:
    """``path\\ncontent`` of a call that writes or edits a file; None for any other call."""
    if _SHELL_RE.search(name) or not _WRITE_RE.search(name):
        return None
    args = _json(arguments)
    if not isinstance(args, dict):
        return None
    command = args.get("command") or args.get("action")
    if isinstance(command, str) and command.lower() in _READ_COMMANDS:
        return None
    path = next((args[k] for k in _PATH_KEYS if isinstance(args.get(k), str) and args[k].strip()), None)
    if path is None:
        return None
    parts = [path.strip()]
    for key in _CONTENT_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            parts.append(value)
    old = args.get("old_str") or args.get("old_string")
    if isinstance(old, str) and old.strip() and len(parts) > 1:
        parts.insert(1, f"(replacing) {old}")
    return "\n".join(parts)


@dataclass
class Keeper:
    """Applies the kept/dropped rule to rows in log order, remembering each call's tool name
    so a result is judged by the call it answers (a file read's output is dropped)."""

    names: dict[str, str] = field(default_factory=dict)
    reads: set[str] = field(default_factory=set)
    max_names: int = 200_000

    def unit(self, etype: str, is_user: bool, role: str | None, text: str | None, *, name: str | None = None,
             call_id: str | None = None) -> RecallUnit | None:
        """The recall unit of one stored row, or None when the rule drops it.

        ``name`` / ``call_id`` come from the row's data: a call's tool name and id, or the id
        of the call a result answers. A call's ``text`` is its arguments string.
        """
        if is_user:
            return RecallUnit("user", text) if etype == "user/message" and text and text.strip() else None
        if etype == "tool/call":
            if not name:
                return None
            if call_id:
                if len(self.names) >= self.max_names:
                    self.names.clear()
                    self.reads.clear()
                self.names[call_id] = name
                if _is_read(name, text):
                    self.reads.add(call_id)
            written = _file_write(name, text)
            return RecallUnit("tool", written, name) if written else None
        if not text or not text.strip():
            return None
        if etype == "assistant/message":
            return RecallUnit("assistant", text) if role in (None, "assistant") else None
        if etype in ("tool/result", "tool/message"):
            if call_id is not None and call_id in self.reads:
                return None  # a file read back: re-readable on demand
            if _is_blob(text):
                return None
            return RecallUnit("tool", text, self.names.get(call_id) if call_id else None)
        return None

    def event_unit(self, etype: str, is_user: bool, role: str | None, text: str | None, data: Any) -> RecallUnit | None:
        """:meth:`unit` for a row whose projected ``data`` is at hand (ingest and capture)."""
        name = call_id = None
        if etype == "tool/call":
            parsed = _json(data)
            name = tool_call_name(parsed)
            raw = parsed.get("callId") if isinstance(parsed, dict) else None
            call_id = raw if isinstance(raw, str) else None
        elif etype == "tool/result":
            call_id = tool_result_call_id(data)
        return self.unit(etype, is_user, role, text, name=name, call_id=call_id)
