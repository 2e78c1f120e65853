"""Questions and conversations of a conversational-memory dataset folder, for answer-side evaluation.

The folder layout: ``queries.jsonl`` (one question a line: ``id``, ``conversation``,
``question``, ``answer``, ``category``; optionally ``query_session`` when the question is asked
inside the released dialogue) and ``sessions/<conversation>/<session>.jsonl`` (one turn a line,
``data.message`` holding ``speaker`` and ``text``). One conversation is one memory. Turns are
rewritten as riko session-log lines whose text is ``Speaker: text``, so the speaker stays
searchable and visible to the answer model.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..errors import IngestError
from .datasets import _json_lines, _natural_key

__all__ = ["QADataset", "QAQuestion", "load_qa_dataset"]

@dataclass(frozen=True)
class QAQuestion:
    """One question with its gold answer; ``before_session`` limits the memory to earlier sessions."""

    id: str
    conversation: str
    question: str
    answer: str
    category: str
    before_session: str | None = None


@dataclass(frozen=True)
class QADataset:
    """A loaded dataset folder: its questions and where each conversation's sessions live."""

    name: str
    root: Path
    questions: tuple[QAQuestion, ...]

    def session_files(self, conversation: str, before: str | None = None) -> list[Path]:
        """The conversation's session files in order; with ``before``, only those preceding it."""
        folder = self.root / "sessions" / conversation
        if not folder.is_dir():
            raise IngestError(f"conversation {conversation!r} has no session folder", folder)
        files = sorted(folder.glob("*.jsonl"), key=lambda p: _natural_key(p.stem))
        if before is not None:
            files = [p for p in files if _natural_key(p.stem) < _natural_key(before)]
        return files

    def turns(self, conversation: str, before: str | None = None) -> list[tuple[str, dict[str, object]]]:
        """``(file name, riko session-log line)`` for every turn of the conversation, in order."""
        out: list[tuple[str, dict[str, object]]] = []
        for path in self.session_files(conversation, before):
            for number, line in _json_lines(path):
                try:
                    message = line["data"]["message"]
                    text = f"{message.get('speaker') or message.get('role') or 'user'}: {message['text']}"
                except (KeyError, TypeError) as exc:
                    raise IngestError(f"not a turn line ({type(exc).__name__}: {exc})", path, number) from None
                out.append((path.name, {"sessionId": line.get("sessionId", path.stem), "seq": line.get("seq"),
                                        "time": line.get("time"), "type": "user/message",
                                        "data": {"message": {"role": "user", "content": text}}}))
        return out

    def write_logs(self, conversation: str, dest: Path, before: str | None = None) -> Path:
        """Write the conversation (up to ``before``) as riko session logs under ``dest``."""
        dest.mkdir(parents=True, exist_ok=True)
        by_file: dict[str, list[str]] = {}
        for name, line in self.turns(conversation, before):
            by_file.setdefault(name, []).append(json.dumps(line, ensure_ascii=False))
        for name, lines in by_file.items():
            (dest / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
        return dest


def load_qa_dataset(path: str | os.PathLike[str], *, conversations: Iterable[str] | None = None,
                    limit: int | None = None) -> QADataset:
    """Read ``queries.jsonl`` of a dataset folder; ``limit`` keeps the first N questions (after the
    ``conversations`` filter). Raises :class:`IngestError` naming the file and line of a bad question."""
    root = Path(path)
    source = root / "queries.jsonl"
    if not source.is_file():
        raise IngestError("a dataset folder needs queries.jsonl and sessions/<conversation>/", source)
    wanted = set(conversations) if conversations is not None else None
    questions: list[QAQuestion] = []
    seen: set[str] = set()
    for number, data in _json_lines(source):
        fields: dict[str, str] = {}
        for name in ("id", "conversation", "question", "answer"):
            value = data.get(name)
            if not isinstance(value, str) or not value.strip():
                raise IngestError(f"field {name!r} must be a non-empty string", source, number)
            fields[name] = value
        if fields["id"] in seen:
            raise IngestError(f"duplicate question id {fields['id']!r}", source, number)
        seen.add(fields["id"])
        if wanted is not None and fields["conversation"] not in wanted:
            continue
        before = data.get("query_session")
        questions.append(QAQuestion(fields["id"], fields["conversation"], fields["question"], fields["answer"],
                                    str(data.get("category") if data.get("category") is not None else ""),
                                    before if isinstance(before, str) and before else None))
        if limit is not None and len(questions) >= limit:
            break
    return QADataset(root.name, root, tuple(questions))
