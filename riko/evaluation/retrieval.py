"""Retrieval harness for public conversational-memory datasets, beside a plain BM25 baseline.

It ingests session logs into a fresh scope, runs ``mem.retrieve`` for every question and
scores the ranked evidence references ``(session_id, seq)`` against the gold ones: hit@k,
all-evidence@k, Recall@k, MRR, nDCG@10 and per-query latency. In the same run a plain
BM25 (``bm25s``; English stopwords, no stemming, CJK character bigrams) ranks the very same
user turns, so the two columns are comparable. No dataset ships with riko; convert one to
session logs plus a query file and point the harness at them.

Query file, one JSON object per line::

    {"id": "q1", "question": "Where did I buy the lamp?",
     "evidence": [{"session_id": "s1", "seq": 4}], "category": "single-hop"}

    >>> report = run_retrieval("logs/", "queries.jsonl", ks=(1, 5, 10))   # doctest: +SKIP
    >>> report.summary_frame()                                          # doctest: +SKIP
"""

from __future__ import annotations

import functools
import json
import math
import os
import re
import statistics
import tempfile
import time
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from ..errors import InvalidArgumentError

if TYPE_CHECKING:
    import polars

__all__ = [
    "NDCG_CUTOFF",
    "SYSTEMS",
    "Bm25Baseline",
    "Query",
    "RetrievalReport",
    "evidence_ranks",
    "load_queries",
    "ndcg_gain",
    "percentile",
    "run_retrieval",
    "score_ranking",
]

Ref = tuple[str, int]
NDCG_CUTOFF = 10
SYSTEMS = ("riko", "bm25")
_PRESET = "retrieval"
_LATIN = re.compile(r"[^\W\d_]{2,}|\d+", re.UNICODE)
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


@dataclass(frozen=True)
class Query:
    """One labelled question and its gold evidence references."""

    id: str
    question: str
    evidence: tuple[Ref, ...]
    category: str = ""


def load_queries(path: str | os.PathLike[str]) -> list[Query]:
    """Read a query file (JSONL); every line needs id, question and a non-empty evidence list."""
    source = Path(path)
    out: list[Query] = []
    seen: set[str] = set()
    for number, line in enumerate(source.read_text(encoding="utf-8").split("\n"), start=1):
        if not line.strip():
            continue
        where = f"{source.name}:{number}"
        try:
            data = json.loads(line)
        except ValueError as exc:
            raise InvalidArgumentError(f"{where}: not JSON ({exc})") from None
        if not isinstance(data, dict) or not isinstance(data.get("id"), str) or not isinstance(data.get("question"), str):
            raise InvalidArgumentError(f"{where}: each line needs string 'id' and 'question'")
        evidence = data.get("evidence")
        if not isinstance(evidence, list) or not evidence:
            raise InvalidArgumentError(f"{where}: 'evidence' must be a non-empty list of {{session_id, seq}}")
        refs = []
        for item in evidence:
            if not isinstance(item, dict) or not isinstance(item.get("session_id"), str) \
                    or not isinstance(item.get("seq"), int) or isinstance(item.get("seq"), bool):
                raise InvalidArgumentError(f"{where}: evidence items need a string session_id and an integer seq")
            refs.append((item["session_id"], item["seq"]))
        if data["id"] in seen:
            raise InvalidArgumentError(f"{where}: duplicate query id {data['id']!r}")
        seen.add(data["id"])
        out.append(Query(data["id"], data["question"], tuple(dict.fromkeys(refs)), str(data.get("category") or "")))
    return out


def evidence_ranks(ranked: Sequence[Hashable], gold: Iterable[Hashable]) -> list[int | None]:
    """The 1-based position of each distinct gold item in ``ranked`` (repeats collapsed), None
    where it is absent, in gold order.

    >>> evidence_ranks(["b", "a", "b", "c"], ["c", "x"])
    [3, None]
    """
    position: dict[Hashable, int] = {}
    for item in ranked:
        position.setdefault(item, len(position) + 1)
    return [position.get(item) for item in dict.fromkeys(gold)]


def ndcg_gain(ranks: Sequence[int | None], cutoff: int = NDCG_CUTOFF) -> float:
    """Binary-gain nDCG@cutoff of a query whose gold items sit at ``ranks`` (None: not retrieved)."""
    if not ranks:
        raise InvalidArgumentError("a query needs at least one gold evidence reference")
    dcg = math.fsum(1.0 / math.log2(r + 1) for r in ranks if r is not None and r <= cutoff)
    ideal = math.fsum(1.0 / math.log2(i + 1) for i in range(1, min(len(ranks), cutoff) + 1))
    return dcg / ideal


def percentile(values: Sequence[float], share: float) -> float:
    """Nearest-rank percentile (``share`` in (0, 1]): the smallest value with at least that share at or below it."""
    if not values:
        raise InvalidArgumentError("percentile of no values")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))]


def score_ranking(ranked: Sequence[Ref], gold: Iterable[Ref], ks: Sequence[int]) -> dict[str, float]:
    """hit@k, all@k and recall@k for each k, MRR over the whole list, nDCG@10 (binary gains).

    >>> score_ranking([("s", 2), ("s", 1)], [("s", 1)], [1, 2])["mrr"]
    0.5
    """
    ranks = evidence_ranks(ranked, gold)
    if not ranks:
        raise InvalidArgumentError("a query needs at least one gold evidence reference")
    out: dict[str, float] = {}
    for k in ks:
        found = sum(r is not None and r <= k for r in ranks)
        out[f"hit@{k}"] = float(found > 0)
        out[f"all@{k}"] = float(found == len(ranks))
        out[f"recall@{k}"] = found / len(ranks)
    first = min((r for r in ranks if r is not None), default=0)
    out["mrr"] = 1.0 / first if first else 0.0
    out[f"ndcg@{NDCG_CUTOFF}"] = ndcg_gain(ranks)
    return out


def baseline_tokens(text: str, stemmer: Any = None) -> list[str]:
    """The baseline's tokens: lowercased Latin words and numbers without English stopwords (each
    stemmed when a PyStemmer ``stemmer`` is given), and CJK character bigrams (a lone character
    stays a unigram)."""
    lowered = text.lower()
    tokens = [w for w in _LATIN.findall(_CJK_RUN.sub(" ", lowered)) if w not in _english_stopwords()]
    if stemmer is not None and tokens:
        tokens = stemmer.stemWords(tokens)
    for run in _CJK_RUN.findall(lowered):
        tokens.extend([run] if len(run) == 1 else [run[i:i + 2] for i in range(len(run) - 1)])
    return tokens


@functools.cache
def _english_stopwords() -> frozenset[str]:
    from bm25s.stopwords import STOPWORDS_EN

    return frozenset(STOPWORDS_EN)


@functools.cache
def _english_stemmer() -> Any:
    import Stemmer

    return Stemmer.Stemmer("english")


class Bm25Baseline:
    """Plain BM25 (bm25s, Lucene variant) over a fixed list of turns; ``stem`` adds the Snowball
    English stemmer (PyStemmer) to the Latin words. ``tokens`` (from :meth:`tokens`) replaces
    ``texts`` when a growing corpus is re-indexed, so each text is tokenized once."""

    def __init__(self, refs: Sequence[Any], texts: Sequence[str] = (), *, stem: bool = False,
                 tokens: Sequence[list[str]] | None = None) -> None:
        import bm25s

        self.refs = list(refs)
        self.stemmer = _english_stemmer() if stem else None
        self.model = bm25s.BM25()
        if self.refs:
            corpus = list(tokens) if tokens is not None else [self.tokens(t) for t in texts]
            self.model.index(corpus, show_progress=False)

    def tokens(self, text: str) -> list[str]:
        """The indexed tokens of one text (a placeholder for a text without any)."""
        return baseline_tokens(text, self.stemmer) or ["\u2205"]

    def search(self, question: str, k: int) -> list[Any]:
        tokens = baseline_tokens(question, self.stemmer)
        if not tokens or not self.refs:
            return []
        docs, scores = self.model.retrieve([tokens], k=min(k, len(self.refs)), show_progress=False)
        return [self.refs[int(d)] for d, s in zip(docs[0], scores[0]) if s > 0]


@dataclass
class RetrievalReport:
    """Per-query rows and per-system summaries of one harness run."""

    ks: tuple[int, ...]
    channels: tuple[str, ...] | None
    rows: list[dict[str, Any]]
    setup: dict[str, Any] = field(default_factory=dict)

    def summary(self) -> dict[str, dict[str, float]]:
        """Mean of every metric per system, plus latency p50/p95 (ms) and the query count."""
        out: dict[str, dict[str, float]] = {}
        for system in SYSTEMS:
            rows = [r for r in self.rows if r["system"] == system]
            if not rows:
                continue
            metrics = [key for key in rows[0] if key.startswith(("hit@", "all@", "recall@", "mrr", "ndcg@"))]
            latency = [r["latency_ms"] for r in rows]
            out[system] = {
                "queries": float(len(rows)),
                **{m: statistics.fmean(r[m] for r in rows) for m in metrics},
                "latency_p50_ms": statistics.median(latency),
                "latency_p95_ms": percentile(latency, 0.95),
            }
        return out

    def by_category(self) -> dict[str, dict[str, dict[str, float]]]:
        """The same summary per query category."""
        cats = sorted({r["category"] for r in self.rows})
        return {cat: RetrievalReport(self.ks, self.channels, [r for r in self.rows if r["category"] == cat]).summary()
                for cat in cats}

    def summary_frame(self) -> "polars.DataFrame":
        import polars as pl

        return pl.DataFrame([{"system": name, **values} for name, values in self.summary().items()])

    def frame(self) -> "polars.DataFrame":
        import polars as pl

        return pl.DataFrame([{k: v for k, v in r.items() if k != "ranked"} for r in self.rows])

    def to_dict(self) -> dict[str, Any]:
        return {"ks": list(self.ks), "channels": list(self.channels) if self.channels else None,
                "setup": self.setup, "summary": self.summary(), "by_category": self.by_category(),
                "rows": self.rows}


def _ranked_refs(frame: Any) -> list[Ref]:
    rows = frame.filter(frame["kind"] == "evidence").select("session_id", "seq").rows()
    return [(sid, int(seq)) for sid, seq in rows if sid is not None and seq is not None]


def run_retrieval(
    sessions: str | os.PathLike[str],
    queries: str | os.PathLike[str] | Sequence[Query],
    *,
    ks: Sequence[int] = (1, 5, 10),
    channels: Sequence[str] | None = None,
    embedding: str | None = None,
    config: Mapping[str, Any] | None = None,
    root: str | os.PathLike[str] | None = None,
) -> RetrievalReport:
    """Ingest ``sessions`` into a fresh scope, rank every question with riko and with BM25, score both.

    ``channels`` restricts ``mem.retrieve``; ``embedding`` names an embedding provider whose
    dense generation is built before the queries (and adds the dense channel). ``root`` keeps
    the scope instead of a temporary one.
    """
    import riko

    cutoffs = tuple(sorted({int(k) for k in ks}))
    if not cutoffs or cutoffs[0] < 1:
        raise InvalidArgumentError(f"ks must be positive integers, got {list(ks)}")
    items = list(queries) if not isinstance(queries, (str, os.PathLike)) else load_queries(queries)
    depth = max(cutoffs[-1], NDCG_CUTOFF)
    settings = {"embedding_provider": embedding or "off", **(config or {})}
    setup: dict[str, Any] = {"queries": len(items), "embedding": embedding}
    with tempfile.TemporaryDirectory(prefix="riko-retrieval-") as tmp:
        with riko.open(root or tmp, preset=_PRESET, config=settings) as mem:
            started = time.perf_counter()
            report = mem.ingest([sessions], preset=_PRESET, progress=False)
            setup.update(ingest_seconds=round(time.perf_counter() - started, 3), sessions=report.sessions,
                         events=report.events, ingest_issues=len(report.issue_rows))
            if embedding:
                started = time.perf_counter()
                mem.index(progress=False)
                setup["index_seconds"] = round(time.perf_counter() - started, 3)
            turns = mem.evidence(user_only=True).select("session_id", "seq", "text").rows()
            refs = [(sid, int(seq)) for sid, seq, _ in turns]
            reachable = set(refs)
            setup["turns"] = len(refs)
            setup["unreachable_evidence"] = sum(ref not in reachable for q in items for ref in q.evidence)
            started = time.perf_counter()
            mem.retrieve("warm up", k=1, channels=channels)
            setup["riko_warmup_seconds"] = round(time.perf_counter() - started, 3)
            started = time.perf_counter()
            baseline = Bm25Baseline(refs, [text or "" for _, _, text in turns])
            setup["bm25_index_seconds"] = round(time.perf_counter() - started, 3)
            rows: list[dict[str, Any]] = []
            for query in items:
                started = time.perf_counter()
                ranked = _ranked_refs(mem.retrieve(query.question, k=depth, channels=channels))
                rows.append(_row("riko", query, ranked, cutoffs, time.perf_counter() - started))
                started = time.perf_counter()
                ranked = baseline.search(query.question, depth)
                rows.append(_row("bm25", query, ranked, cutoffs, time.perf_counter() - started))
    return RetrievalReport(cutoffs, tuple(channels) if channels else None, rows, setup)


def _row(system: str, query: Query, ranked: list[Ref], ks: Sequence[int], seconds: float) -> dict[str, Any]:
    return {"system": system, "id": query.id, "category": query.category, "evidence": len(query.evidence),
            **score_ranking(ranked, query.evidence, ks), "latency_ms": round(seconds * 1000, 3),
            "ranked": [f"{sid}#{seq}" for sid, seq in ranked[:max(ks)]]}
