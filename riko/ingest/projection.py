"""The L0 projection of a session event, its readable text, and the bound that keeps lines small.

Shared by every log reader so the same event read from a harness log, an L0 export or a chat
transcript projects, reads and truncates the same way.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

__all__ = [
    "ROLES",
    "project_l0",
    "content_texts",
    "describe_event",
    "event_text",
    "role_and_source",
    "bound_text",
    "bound_value",
]

ROLES = frozenset({"user", "assistant", "tool", "system"})
_DEFAULT_SOURCE = {"user/message": "user", "assistant/message": "model", "tool/result": "tool"}
_TEXT_PART_TYPES = frozenset({"text", "input_text", "output_text"})
_MARKER_RE = re.compile(r"…\[truncated \d+ chars\]\Z")


def project_l0(etype: str, data: dict) -> dict:
    """The L0 projection: user messages keep the message, assistant/tool results add turn and step."""
    if etype == "user/message":
        if "message" in data and "content" not in data:
            return data
        return {"message": data}
    if etype in ("assistant/message", "tool/result"):
        return {"message": data.get("message"), "turn": data.get("turn"), "step": data.get("step")}
    return data


def content_texts(content: Any) -> list[str]:
    """Text parts of a message content, following tool results into their nested content."""
    if isinstance(content, str):
        return [content]
    out: list[str] = []
    if isinstance(content, list):
        for part in content:
            if isinstance(part, str):
                out.append(part)
            elif isinstance(part, dict):
                kind = part.get("type")
                if kind in _TEXT_PART_TYPES and isinstance(part.get("text"), str):
                    out.append(part["text"])
                elif kind == "tool-result":
                    out.extend(content_texts(part.get("content")))
    return out


def describe_event(etype: str, data: dict) -> tuple[str, str | None, str | None]:
    """(text, role, source kind) of a projected event.

    Text is the joined text parts (assistant reasoning excluded, tool results followed into their
    nested content) or, for a tool call, its arguments string.
    """
    role = kind = None
    text = ""
    message = data.get("message")
    if isinstance(message, dict):
        role = message.get("role")
        if role not in ROLES:
            role = None
        source = message.get("source")
        if isinstance(source, dict):
            kind = source.get("kind")
            if not isinstance(kind, str):
                kind = None
        content = message.get("content")
        if isinstance(content, list) and len(content) == 1 and isinstance(content[0], dict) and content[0].get("type") == "text":
            part = content[0].get("text")
            text = part if isinstance(part, str) else ""
        else:
            text = "\n".join(content_texts(content))
    elif etype == "tool/call":
        args = data.get("arguments")
        if isinstance(args, str):
            text = args
        elif args is not None:
            text = orjson.dumps(args).decode()
    if role is None:
        prefix = etype.partition("/")[0]
        role = prefix if prefix in ROLES else None
    if kind is None:
        kind = _DEFAULT_SOURCE.get(etype)
    return text, role, kind


def event_text(etype: str, data: dict) -> str:
    """The readable text of a projected event (see :func:`describe_event`)."""
    return describe_event(etype, data)[0]


def role_and_source(etype: str, data: dict) -> tuple[str | None, str | None]:
    """The (role, source kind) of a projected event (see :func:`describe_event`)."""
    _, role, kind = describe_event(etype, data)
    return role, kind


def bound_text(text: str, limit: int) -> tuple[str, bool]:
    """Cut ``text`` to ``limit`` characters plus a marker; a string already cut stays as it is."""
    if len(text) <= limit:
        return text, False
    marker = _MARKER_RE.search(text, max(0, len(text) - 40))
    if marker is not None and marker.start() <= limit:
        return text, True
    return f"{text[:limit]}…[truncated {len(text) - limit} chars]", True


def bound_value(value: Any, limit: int) -> tuple[Any, bool]:
    """Apply :func:`bound_text` to every string inside a JSON value; report whether any was cut."""
    if isinstance(value, str):
        return bound_text(value, limit)
    if isinstance(value, dict):
        cut = False
        out = {}
        for key, item in value.items():
            out[key], c = bound_value(item, limit)
            cut = cut or c
        return out, cut
    if isinstance(value, list):
        cut = False
        items = []
        for item in value:
            bounded, c = bound_value(item, limit)
            items.append(bounded)
            cut = cut or c
        return items, cut
    return value, False
