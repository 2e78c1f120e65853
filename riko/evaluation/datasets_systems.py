"""The systems a dataset run compares: riko's ``retrieve`` (lexical, and with e5) and the plain
baselines (stemmed bm25s, e5 alone, RRF of the two), all over the same ``Speaker: text`` turns.

Every system follows one conversation at a time: ``open`` starts a fresh memory, ``extend``
adds sessions in order (so a question sees only what was there before it), ``search`` returns
the ranked ``dialogId``\\s. The dense systems share one embedding provider behind a
:class:`~riko.dense.text_cache.CachedProvider`, so passages are embedded once across runs.
"""

from __future__ import annotations

import json
import os
import time
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ConfigError, IngestError
from .retrieval import Bm25Baseline

if TYPE_CHECKING:  # the systems read the loaded records; only datasets.py builds them
    from .datasets import Conversation, Session, Turn

__all__ = ["RIKO_PRESET", "RRF_K", "Bm25sSystem", "E5System", "RikoSystem", "RrfSystem", "make_systems"]

RRF_K = 60
RIKO_PRESET = "retrieval"


class _System(ABC):
    """One ranking system over the turns of the current conversation."""

    name = ""
    extra_ms = 0.0  #: time spent for this query outside search() (parts reused by a fusion)
    provider: Any = None

    def open(self, conv: Conversation, number: int) -> None:
        self.turns: list[Turn] = []
        self.last: tuple[str, int, list[str], float] | None = None

    @abstractmethod
    def extend(self, sessions: Sequence[Session]) -> None:
        """Add the turns of ``sessions`` (in order) to what this system ranks."""

    @abstractmethod
    def _rank(self, question: str, depth: int) -> list[str]:
        """The dialogIds of the current turns, best first."""

    def warm(self) -> None:
        """Pay one-off costs (lazy index builds, model loading) outside the timed queries."""
        self._rank("warm up", 1)

    def search(self, question: str, depth: int) -> list[str]:
        """The ranked dialogIds for ``question`` (at most ``depth``)."""
        started = time.perf_counter()
        ranking = self._rank(question, depth)
        self.last = (question, depth, ranking, (time.perf_counter() - started) * 1000)
        return ranking[:depth]

    def ranked(self, question: str, depth: int) -> tuple[list[str], float]:
        """The whole ranking ``_rank`` gave and the milliseconds it cost, reused when ``question``
        was the last one asked (a fusion then adds that cost to its own)."""
        if self.last is not None and self.last[:2] == (question, depth):
            return self.last[2], self.last[3]
        self.search(question, depth)
        assert self.last is not None
        return self.last[2], 0.0

    def close(self) -> None:  # noqa: B027 - optional hook: most systems hold nothing to release
        """Release what the system holds (a model, a scope); nothing by default."""


class RikoSystem(_System):
    """A fresh riko scope per conversation; each turn ``Speaker: text`` with its time, as a user
    message (an assistant turn as the assistant's message)."""

    def __init__(self, name: str, base: Path, config: Mapping[str, Any], provider: Any = None) -> None:
        self.name, self.base, self.config, self.provider = name, base, dict(config), provider
        self.mem: Any = None

    def open(self, conv: Conversation, number: int) -> None:
        import riko

        super().open(conv, number)
        self.close()
        root = self.base / self.name.replace("+", "-") / f"{number:05d}"
        if root.exists():
            raise ConfigError("work_dir", f"{root} already holds a scope; give an empty work folder so every "
                                          "conversation starts from a fresh memory")
        self.logs = root / "logs"
        self.logs.mkdir(parents=True, exist_ok=True)
        self.mem = riko.open(root / "memory", preset=RIKO_PRESET, config=self.config)
        self.label: dict[tuple[str, int], str] = {}

    def extend(self, sessions: Sequence[Session]) -> None:
        if not sessions:
            return
        paths = []
        for session in sessions:
            path = self.logs / f"{session.name}.jsonl"
            with path.open("w", encoding="utf-8") as out:
                for turn in session.turns:
                    out.write(json.dumps(_l0_line(turn), ensure_ascii=False) + "\n")
                    self.label[(turn.session, turn.seq)] = turn.dialog_id
            paths.append(path)
        report = self.mem.ingest(paths, preset=RIKO_PRESET, progress=False)
        if report.issue_rows:
            first = report.issue_rows[0]
            raise IngestError(f"riko refused {len(report.issue_rows)} turn(s) of the dataset; first: {first}")
        if self.provider is not None:
            from ..recall.engine import build_index

            build_index(self.mem.context, progress=False, provider=self.provider)

    def _rank(self, question: str, depth: int) -> list[str]:
        if self.provider is None:
            frame = self.mem.retrieve(question, k=depth)
        else:
            from ..recall.engine import retrieve

            frame = retrieve(self.mem.context, question, k=depth, provider=self.provider)
        rows = frame.filter(frame["kind"] == "evidence").select("session_id", "seq").rows()
        out = [self.label.get((sid, int(seq))) for sid, seq in rows if sid is not None and seq is not None]
        return list(dict.fromkeys(d for d in out if d is not None))

    def close(self) -> None:
        if self.mem is not None:
            self.mem.close()
            self.mem = None


def _l0_line(turn: Turn) -> dict[str, Any]:
    """The riko L0 line of one dataset turn: a typed user message, or the assistant's message."""
    if turn.role == "assistant":
        return {"schemaVersion": 1, "sessionId": turn.session, "seq": turn.seq, "time": turn.time_ms,
                "type": "assistant/message",
                "data": {"message": {"role": "assistant", "source": {"kind": "model"},
                                     "content": [{"type": "text", "text": turn.passage}]}}}
    return {"schemaVersion": 1, "sessionId": turn.session, "seq": turn.seq, "time": turn.time_ms,
            "type": "user/message",
            "data": {"message": {"role": "user", "source": {"kind": "user"},
                                 "content": [{"type": "text", "text": turn.passage}]}}}


class Bm25sSystem(_System):
    """bm25s (Lucene BM25), English stopwords and the Snowball stemmer; CJK as character bigrams."""

    name = "bm25s"

    def open(self, conv: Conversation, number: int) -> None:
        super().open(conv, number)
        self.model: Bm25Baseline | None = None
        self.tokens: list[list[str]] = []

    def extend(self, sessions: Sequence[Session]) -> None:
        added = [t for s in sessions for t in s.turns]
        if not added:
            return
        self.turns.extend(added)
        tokenizer = Bm25Baseline([], stem=True)
        self.tokens.extend(tokenizer.tokens(t.passage) for t in added)  # each turn tokenized once
        self.model = Bm25Baseline([t.dialog_id for t in self.turns], stem=True, tokens=self.tokens)

    def _rank(self, question: str, depth: int) -> list[str]:
        # every turn with a positive score, so a fusion sees the whole list (search cuts at depth)
        return self.model.search(question, len(self.turns)) if self.model is not None else []


class E5System(_System):
    """Cosine similarity of the query vector to every passage vector (exhaustive)."""

    name = "e5"

    def __init__(self, provider: Any) -> None:
        self.provider = provider

    def open(self, conv: Conversation, number: int) -> None:
        super().open(conv, number)
        self.matrix = np.zeros((0, int(self.provider.dimension)), dtype=np.float32)

    def extend(self, sessions: Sequence[Session]) -> None:
        added = [t for s in sessions for t in s.turns]
        if not added:
            return
        self.turns.extend(added)
        self.matrix = np.vstack([self.matrix, self.provider.embed_passages([t.passage for t in added])])

    def warm(self) -> None:
        self.provider.embed_query("warm up")  # loads the model even before any passage is in

    def _rank(self, question: str, depth: int) -> list[str]:
        if not self.turns:
            return []
        scores = self.matrix @ np.asarray(self.provider.embed_query(question), dtype=np.float32)
        order = np.argsort(-scores, kind="stable")  # the whole corpus: search cuts at depth
        return [self.turns[int(i)].dialog_id for i in order]


class RrfSystem(_System):
    """Plain reciprocal-rank fusion of bm25s and e5 over their whole rankings: score = sum of
    1 / (k + rank), k = 60."""

    name = "rrf"

    def __init__(self, parts: Sequence[_System], owned: Sequence[bool]) -> None:
        self.parts, self.owned = list(parts), list(owned)
        self.provider = self.parts[-1].provider

    def open(self, conv: Conversation, number: int) -> None:
        super().open(conv, number)
        for part, own in zip(self.parts, self.owned):
            if own:
                part.open(conv, number)

    def extend(self, sessions: Sequence[Session]) -> None:
        for part, own in zip(self.parts, self.owned):
            if own:
                part.extend(sessions)

    def warm(self) -> None:
        for part, own in zip(self.parts, self.owned):
            if own:
                part.warm()

    def _rank(self, question: str, depth: int) -> list[str]:
        return self.search(question, depth)  # the fusion is search() itself: it reuses its parts' timings

    def search(self, question: str, depth: int) -> list[str]:
        self.extra_ms = 0.0
        lists = []
        for part in self.parts:
            ranking, reused_ms = part.ranked(question, depth)
            self.extra_ms += reused_ms
            lists.append(ranking)
        return fuse(lists, depth)


def fuse(rankings: Sequence[Sequence[str]], depth: int, k: int = RRF_K) -> list[str]:
    """Reciprocal-rank fusion; ties keep the order of first appearance (first list first).

    >>> fuse([["a", "b"], ["b", "c"]], 3)
    ['b', 'a', 'c']
    """
    score: dict[str, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            score[item] = score.get(item, 0.0) + 1.0 / (k + rank)
    order = sorted(score, key=lambda item: -score[item])  # sorted() is stable: first appearance wins ties
    return order[:depth]


def make_systems(chosen: Sequence[str], base: Path, *, vector_cache: str | os.PathLike[str] | None = None,
                 provider: Any = None) -> dict[str, _System]:
    """The systems of a run by name (in ``chosen`` order), sharing one cached embedding provider."""
    from ..dense.providers import DeterministicProvider, E5Provider, USEProvider
    from ..dense.text_cache import CachedProvider, default_cache_dir

    if {"bm25s", "rrf"} & set(chosen):
        import importlib.util

        missing = [m for m in ("bm25s", "Stemmer") if importlib.util.find_spec(m) is None]
        if missing:
            raise ConfigError("systems", f"bm25s and rrf need the packages bm25s and PyStemmer (missing: "
                                         f"{', '.join(missing)}); install them with pip install 'riko[dev]'")
    cache_dir = vector_cache if vector_cache is not None else default_cache_dir()
    cached = None
    if any(name in ("riko+e5", "e5", "rrf") for name in chosen):
        cached = CachedProvider(provider if provider is not None else E5Provider(), cache_dir)
    out: dict[str, _System] = {}
    for name in chosen:
        if name == "riko":
            out[name] = RikoSystem(name, base, {"embedding_provider": "off"})
        elif name == "riko+e5":
            kind = "deterministic" if cached.model == DeterministicProvider.model else "local"  # type: ignore[union-attr]
            config: dict[str, Any] = {"embedding_provider": kind, "recall_vector_enabled": True}
            if kind == "deterministic":
                config["embedding_dimension"] = cached.dimension  # type: ignore[union-attr]
            out[name] = RikoSystem(name, base, config, provider=cached)
        elif name == "riko+fast":
            fast = CachedProvider(USEProvider(threads=1), cache_dir)
            out[name] = RikoSystem(name, base, {"embedding_provider": "local-fast", "recall_vector_enabled": True},
                                   provider=fast)
        elif name == "bm25s":
            out[name] = Bm25sSystem()
        elif name == "e5":
            out[name] = E5System(cached)
    if "rrf" in chosen:
        shared = [out.get("bm25s"), out.get("e5")]
        parts = [shared[0] or Bm25sSystem(), shared[1] or E5System(cached)]
        out["rrf"] = RrfSystem(parts, [shared[0] is None, shared[1] is None])
        # the fusion reuses its parts' rankings, so they must answer each question before it
        out = {**{n: s for n, s in out.items() if n != "rrf"}, "rrf": out["rrf"]}
    return out
