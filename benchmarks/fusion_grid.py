"""Fusion settings for riko+e5 chosen by leave-one-dataset-out on the four public conversation sets.

Run: ``python benchmarks/fusion_grid.py --data /tmp/ds --vector-cache /tmp/vcache [subset flags of
retrieval_real.py] [--questions-per-conversation realmem=20] [--dump FILE] [--load FILE ...]``.

Every question is asked once: its channel hits (the lexical channels and e5's dense hits with
their cosines, for the ``query:`` prefix and for the query embedded as a passage) come from
:func:`riko.recall.engine.retrieve_hits`, then every candidate fusion setting ranks them, so
a grid costs one pass and no re-encoding. Passage vectors must already be in the cache
(``retrieval_real.py --vector-cache`` fills it): a conversation stage that would need a new
embedding is skipped and counted, never embedded here. The grid's ``lexical`` row equals
``retrieve`` without the dense channel and its ``current`` row, the setting shipped, equals
``retrieve`` with it (both are checked for every question). ``--dump`` keeps every question's
channel lists, so ``--load`` re-fits a new grid, or sets measured in separate runs, without
asking again.

Besides weighted RRF (dense weight, dense k, rank cap, cosine margin, agreement, neighbours,
prefix, keep), three families of rules are meant to cost little where dense does not help: a
query-dependent dense weight (by rawEvidence's BM25 margin between its first and second hit, or
by question length), dense re-ranking only lexical's top k, and calibrated score fusion
(per-query min-max or z-normalised channel scores and cosines, summed). The report gives the
best and the worst setting of each family beside lexical, e5 alone, plain RRF and the shipped
rule. With fewer than three sets nothing is chosen: the figures are exploration only.

For each held-out set the setting whose worst training set does best is fitted on the other
three and reported on the held-out one; the setting finally chosen is, of those fitted, the one
whose worst held-out set is best. "Does best" is, by default, the smallest of its hit@10,
frac@10 and MRR differences to lexical (``--objective min``: every metric must hold), ties
broken by their mean; ``--objective mean`` ranks by the mean.
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import math
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from retrieval_real import (  # noqa: E402
    DATASETS, choose_conversations, parse_caps, parse_named,
)

from riko.evaluation.datasets import load_dataset  # noqa: E402
from riko.evaluation.datasets_systems import Bm25sSystem, RikoSystem, fuse  # noqa: E402
from riko.evaluation.retrieval import evidence_ranks  # noqa: E402

DEPTH = 100
RRF_K = 60
METRICS = ("hit@10", "frac@10", "mrr")
FIXED = ("lexical", "current", "bm25s", "e5", "rrf")


class NotCached(Exception):
    """A passage the cache does not hold (this harness never embeds passages)."""


class CacheOnly:
    """e5 behind the passage cache that refuses to embed a passage the cache lacks."""

    def __init__(self, cached: Any) -> None:
        self.cached, self.model, self.dimension = cached, cached.model, cached.dimension

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        found = self.cached.cache.get(list(texts))
        missing = sum(v is None for v in found)
        if missing:
            raise NotCached(missing)
        return self.cached.embed_passages(texts)

    def embed_query(self, text: str) -> np.ndarray:
        return self.cached.embed_query(text)

    def embed_query_as_passage(self, text: str) -> np.ndarray:
        from riko.dense.providers import normalize_rows

        return normalize_rows(np.asarray(self.cached.inner.embed_passages([text]), dtype=np.float32))[0]


@dataclass(frozen=True)
class Setting:
    """One fusion rule for the dense channel beside the lexical ones."""

    weight: float = 0.7  # dense RRF weight (at full agreement when ``agree`` is set)
    dense_k: int = RRF_K  # the dense channel's RRF k (larger: flatter, reorders the top less)
    agree: float | None = None  # dense weight at zero top-10 agreement with rawEvidence
    rank_cap: int | None = None  # dense-only hits admitted only within this dense rank
    margin: float | None = None  # dense-only hits admitted only within this cosine of the best
    neighbour: float = 0.0  # share of each neighbouring line's fused score a line receives
    prefix: str = "query"  # how the query is embedded: "query:" or as a "passage:"
    keep: int = 0  # the lexical ranking's first ``keep`` stay on top, in their order
    # query-dependent weight by lexical confidence: when rawEvidence's first BM25 score leads
    # its second by at least this share of the first, the dense channel weighs ``confident``
    lex_margin: float | None = None
    confident: float = 0.0
    # query-dependent weight by length: a question of at most this many tokens (riko's
    # tokenizer: stopwords out) has the dense channel at ``short``
    len_split: int | None = None
    short: float = 0.0
    # dense as a re-ranker: only the lexical top ``rerank`` are reordered (by RRF of their
    # lexical place and their cosine place among them, the dense vote at ``weight``); the
    # rest keep the lexical order, so the lexical top-``rerank`` set never changes
    rerank: int | None = None
    # calibrated score fusion instead of RRF: each lexical channel's own scores and the
    # dense cosines, normalised per query ("minmax": to [0, 1]; "z": z-scores cut at 0),
    # summed with the dense part at ``weight``
    calibrated: str | None = None

    @property
    def family(self) -> str:
        """Which kind of rule this is (the grid reports the best of each kind)."""
        if self.weight == 0:
            return "lexical"
        if self.calibrated:
            return "calibrated"
        if self.rerank is not None:
            return "rerank"
        if self.lex_margin is not None:
            return "lexical-margin"
        if self.len_split is not None:
            return "query-length"
        return "rrf"

    @property
    def name(self) -> str:
        if self.calibrated:
            parts = [f"cal-{self.calibrated}", f"w{self.weight:g}"]
            if self.rank_cap is not None:
                parts.append(f"cap{self.rank_cap}")
            return ",".join(parts)
        if self.rerank is not None:
            return f"rerank{self.rerank},w{self.weight:g}"
        parts = [f"w{self.weight:g}"]
        if self.lex_margin is not None:
            parts.append(f"lexmargin{self.lex_margin:g}->w{self.confident:g}")
        if self.len_split is not None:
            parts.append(f"len<={self.len_split}->w{self.short:g}")
        if self.dense_k != RRF_K:
            parts.append(f"k{self.dense_k}")
        if self.agree is not None:
            parts.append(f"agree{self.agree:g}")
        if self.rank_cap is not None:
            parts.append(f"cap{self.rank_cap}")
        if self.margin is not None:
            parts.append(f"margin{self.margin:g}")
        if self.neighbour:
            parts.append(f"nb{self.neighbour:g}")
        if self.prefix != "query":
            parts.append("passage-prefix")
        if self.keep:
            parts.append(f"keep{self.keep}")
        return ",".join(parts)


#: What riko ships (riko.recall.engine: RETRIEVE_DENSE_WEIGHTS, DENSE_ONLY_RANKS for e5).
SHIPPED = Setting(weight=1.0, rank_cap=10)
#: What riko shipped before this grid's four-set fit (DENSE_WEIGHTS 0.7, DENSE_ONLY_RANKS 10).
BEFORE = Setting(weight=0.7, rank_cap=10)
LEXICAL = Setting(weight=0.0)


def grid() -> list[Setting]:
    out = [LEXICAL, SHIPPED, BEFORE]
    for w, k, cap, margin, lo, keep in itertools.product((0.3, 0.5, 0.7, 1.0), (20, 30, RRF_K, 120, 240),
                                                         (None, 10, 20), (None, 0.05), (None, 0.2), (0, 1)):
        out.append(Setting(weight=w, dense_k=k, rank_cap=cap, margin=margin, agree=lo, keep=keep))
    for w, k, cap in itertools.product((0.5, 0.7), (RRF_K, 120), (5, 10)):
        out.append(Setting(weight=w, dense_k=k, rank_cap=cap, margin=0.02))
    # directions measured before and found inconsistent or harmful, kept as a check
    for w, cap in itertools.product((0.5, 0.7), (None, 10)):
        out.append(Setting(weight=w, rank_cap=cap, prefix="passage"))
        out.append(Setting(weight=w, rank_cap=cap, neighbour=0.25))
        out.append(Setting(weight=w, rank_cap=cap, agree=0.0))
    return list(dict.fromkeys(out + families()))


def families() -> list[Setting]:
    """Rules meant to cost little where dense does not help: a weight that depends on the
    query, dense re-ranking lexical's top k, and calibrated score fusion."""
    out: list[Setting] = []
    for w, tau, low in itertools.product((0.7, 1.0), (0.1, 0.2, 0.3, 0.5), (0.0, 0.3)):
        out.append(Setting(weight=w, rank_cap=10, lex_margin=tau, confident=low))
    for w, split, short in itertools.product((0.5, 1.0), (3, 5, 8), (0.0, 0.5, 1.0, 1.5)):
        if short != w:
            out.append(Setting(weight=w, rank_cap=10, len_split=split, short=short))
    for k, w in itertools.product((5, 10, 20, 30, 50), (0.5, 1.0, 2.0)):
        out.append(Setting(weight=w, rerank=k))
    for mode, w, cap in itertools.product(("minmax", "z"), (0.25, 0.5, 1.0, 2.0), (None, 10)):
        out.append(Setting(weight=w, rank_cap=cap, calibrated=mode))
    return out


# -- one question's channel lists, kept compact: documents are numbered in doc_id order, so
# -- sorting by (-score, number) is riko's (-score, doc_id) order
def rank_with(setting: Setting, q: Mapping[str, Any]) -> list[int]:
    """The fused ranking (document numbers, best first, at most DEPTH) of one question under ``setting``."""
    if setting.rerank is not None:
        return _reranked(setting, q)
    base: np.ndarray = q["_base"]
    # calibrated: the lexical RRF score stays as a tie-break far below the calibrated scale,
    # so every document a channel found keeps a place behind those the scores lift
    score = base.copy() if setting.calibrated is None else q["_cal"][setting.calibrated] + 1e-3 * base
    weight = setting.weight
    if setting.lex_margin is not None and q["_lm"] >= setting.lex_margin:
        weight = setting.confident
    if setting.len_split is not None and q["_qlen"] <= setting.len_split:
        weight = setting.short
    if weight > 0:
        key = "dq" if setting.prefix == "query" else "dp"
        ids: list[int] = q[key]
        found: np.ndarray = q["_found"]
        if setting.rank_cap is not None or setting.margin is not None:
            cosines: list[float] = q[key + "s"]
            best = max(cosines, default=0.0)
            ids = [d for i, (d, c) in enumerate(zip(ids, cosines))
                   if found[d] or ((setting.rank_cap is None or i < setting.rank_cap)
                                   and (setting.margin is None or best - c <= setting.margin))]
        if setting.agree is not None:
            top_lexical = set(q["lex"].get("rawEvidence", [])[:10])
            share = len(top_lexical & set(ids[:10])) / 10 if top_lexical else 0.0
            weight = setting.agree + (setting.weight - setting.agree) * share
        if weight > 0 and ids and setting.calibrated is not None:
            norm: dict[int, float] = q["_dcal"][setting.calibrated]
            ranked = np.asarray(ids, dtype=np.int64)
            score[ranked] += weight * np.asarray([norm[d] for d in ids])
        elif weight > 0 and ids:
            ranked = np.asarray(ids, dtype=np.int64)
            score[ranked] += weight / (setting.dense_k + np.arange(1, len(ranked) + 1))
    if setting.neighbour:
        nb: np.ndarray = q["_nb"]
        fused = np.append(score, 0.0)  # index -1: no neighbour
        present = fused[:-1] > 0
        score = score + present * setting.neighbour * (fused[nb[:, 0]] + fused[nb[:, 1]])
    present_ids = np.flatnonzero(score > 0)
    order = present_ids[np.lexsort((present_ids, -score[present_ids]))].tolist()
    if setting.keep and setting.weight > 0:
        top = q["_lexical_order"][:setting.keep]
        order = top + [d for d in order if d not in top]
    return order[:DEPTH]


def _reranked(setting: Setting, q: Mapping[str, Any]) -> list[int]:
    """Lexical's top ``setting.rerank`` reordered by RRF of their lexical and cosine places
    among themselves; the rest in lexical order."""
    order: list[int] = q["_lexical_order"]
    k = setting.rerank or 0
    head, tail = order[:k], order[k:]
    cosine: dict[int, float] = q["_cos"]
    by_cosine = sorted(range(len(head)), key=lambda i: (-cosine.get(head[i], -2.0), i))
    score = [1.0 / (RRF_K + i + 1) for i in range(len(head))]
    for place, i in enumerate(by_cosine):
        if head[i] in cosine:
            score[i] += setting.weight / (RRF_K + place + 1)
    ranked = sorted(range(len(head)), key=lambda i: (-score[i], i))
    return ([head[i] for i in ranked] + tail)[:DEPTH]


def _normalised(values: Sequence[float], mode: str) -> list[float]:
    """Scores of one list on a common scale: min-max to [0, 1], or z-scores cut at 0."""
    if not values:
        return []
    arr = np.asarray(values, dtype=np.float64)
    if mode == "minmax":
        lo, hi = float(arr.min()), float(arr.max())
        if hi <= lo:
            return [1.0] * len(values)
        return ((arr - lo) / (hi - lo)).tolist()
    sd = float(arr.std())
    if sd == 0:
        return [1.0] * len(values)
    return np.maximum((arr - float(arr.mean())) / sd, 0.0).tolist()


def ranks_of(q: Mapping[str, Any], ranking: Sequence[int]) -> list[int | None]:
    labels = q["lab"]
    return evidence_ranks([labels[d] for d in ranking if labels[d] is not None], q["gold"])


def prepare(q: dict[str, Any]) -> dict[str, Any]:
    """Precompute the lexical RRF scores (in riko's channel order) and the lookups of a loaded question."""
    n = len(q["lab"])
    score = [0.0] * n
    for ids in q["lex"].values():  # the same sums in the same order as riko.recall.fusion.rrf
        for i, d in enumerate(dict.fromkeys(ids)):
            score[d] += 1.0 / (RRF_K + i + 1)
    q["_base"] = np.asarray(score, dtype=np.float64)
    found = np.zeros(n, dtype=bool)
    for ids in q["lex"].values():
        found[ids] = True
    q["_found"] = found
    q["_nb"] = np.asarray(q["nb"], dtype=np.int64).reshape(n, 2)
    q["_lexical_order"] = rank_with(LEXICAL, q)
    # the inputs of the query-dependent, re-ranking and calibrated rules
    raw = q.get("lexs", {}).get("rawEvidence") or []
    q["_lm"] = 0.0 if not raw else 1.0 if len(raw) < 2 or raw[0] <= 0 else (raw[0] - raw[1]) / raw[0]
    from riko.language.text import tokenize

    q["_qlen"] = len(tokenize(q.get("q", "")))
    q["_cos"] = dict(zip(q["dq"], q["dqs"]))
    q["_cal"], q["_dcal"] = {}, {}
    for mode in ("minmax", "z"):
        lexical_part = np.zeros(n, dtype=np.float64)
        for channel, ids in q["lex"].items():
            scores = q.get("lexs", {}).get(channel)
            if not scores or max(scores) <= 0:  # a channel without scores (graph order): by rank
                scores = [1.0 - i / max(len(ids), 1) for i in range(len(ids))]
            seen: set[int] = set()
            for d, value in zip(ids, _normalised(scores, mode)):
                if d not in seen:
                    seen.add(d)
                    lexical_part[d] += value
        q["_cal"][mode] = lexical_part
        q["_dcal"][mode] = dict(zip(q["dq"], _normalised(q["dqs"], mode)))
    return q


def metrics(rows: Sequence[Sequence[int | None]]) -> dict[str, float]:
    """hit@10, frac@10 and MRR (ranks up to DEPTH) of questions whose gold items sit at ``rows``."""
    n = len(rows)
    if not n:
        return {}
    hit = frac = rr = 0.0
    for ranks in rows:
        present = [r for r in ranks if r is not None]
        best = min(present, default=None)
        hit += best is not None and best <= 10
        frac += sum(r <= 10 for r in present) / len(ranks)
        rr += 1.0 / best if best is not None else 0.0
    return {"queries": float(n), "hit@10": hit / n, "frac@10": frac / n, "mrr": rr / n}


# -- collecting: one pass over a dataset subset
def neighbours_of(cache: Any, number: Mapping[str, int]) -> list[list[int]]:
    side = cache.evidence

    def ref(line: int) -> int:
        if line < 0:
            return -1
        session_id, seq = side.line_keys[line]
        return number.get(f"session:{session_id}/event:{seq}", -1)

    out = []
    for d in number:
        line = side.ref_line.get(d)
        out.append([ref(side.prev_line[line]), ref(side.next_line[line])] if line is not None else [-1, -1])
    return out


def run_set(name: str, folder: Path, conversations: list[str] | None, limit: int | None, per_conversation: int | None,
            provider: CacheOnly, work: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    from riko.recall.channels import dense_hits
    from riko.recall.engine import fuse_retrieved, retrieve_hits
    from riko.recall.index_cache import cache_for
    from riko.recall.vectors import dense_index

    data = load_dataset(folder, conversations=conversations)
    ranked = [q for q in data.queries if q.evidence]
    if limit is not None:
        ranked = ranked[:limit]
    by_conv: dict[str, list[Any]] = {}
    for q in ranked:
        if per_conversation is None or len(by_conv.get(q.conversation, [])) < per_conversation:
            by_conv.setdefault(q.conversation, []).append(q)
    records: list[dict[str, Any]] = []
    info: dict[str, Any] = {"questions_wanted": sum(map(len, by_conv.values())), "skipped_not_cached": 0,
                            "mismatch_current": 0, "mismatch_lexical": 0, "conversations": 0}
    for number, (conv_name, questions) in enumerate(by_conv.items(), start=1):
        conv = data.conversations[conv_name]
        system = RikoSystem("riko+e5", work / name, {"embedding_provider": "local", "recall_vector_enabled": True},
                            provider=provider)
        system.open(conv, number)
        bm25 = Bm25sSystem()
        bm25.open(conv, number)
        done, used = 0, False
        try:
            for visible in sorted({q.visible for q in questions}):
                try:
                    system.extend(conv.sessions[done:visible])
                    bm25.extend(conv.sessions[done:visible])
                except NotCached:
                    info["skipped_not_cached"] += sum(1 for q in questions if q.visible >= visible)
                    break
                done = visible
                used = True
                ctx = system.mem.context
                cache = cache_for(ctx)
                index = dense_index(cache, provider, ctx.warehouse_dir / "dense", ctx.clock)
                for q in (q for q in questions if q.visible == visible):
                    records.append(_question(q, system, cache, index, provider, bm25, ctx, info,
                                             retrieve_hits, fuse_retrieved, dense_hits))
        finally:
            system.close()
        info["conversations"] += used
    info["questions"] = len(records)
    return records, info


def _question(q: Any, system: RikoSystem, cache: Any, index: Any, provider: CacheOnly, bm25: Bm25sSystem, ctx: Any,
              info: dict[str, Any], retrieve_hits: Any, fuse_retrieved: Any, dense_hits: Any) -> dict[str, Any]:
    found, used_provider = retrieve_hits(ctx, q.question, k=DEPTH, provider=provider)
    cap = max(3 * DEPTH, ctx.config.lexical_candidate_cap)
    lexical = {c: h.ids for c, h in found.items() if c != "dense" and h.ids}
    dense_query = found["dense"] if "dense" in found else None
    dense_passage = dense_hits(cache, index, provider.embed_query_as_passage(q.question), cap)
    current = [f.doc_id for f in fuse_retrieved(found, used_provider, rrf_k=ctx.config.rrf_k)][:DEPTH]
    plain = [f.doc_id for f in fuse_retrieved({c: h for c, h in found.items() if c != "dense"}, None,
                                              rrf_k=ctx.config.rrf_k)][:DEPTH]
    every = set().union(*lexical.values(), dense_passage.ids, dense_query.ids if dense_query else [])
    number = {d: i for i, d in enumerate(sorted(every))}
    labels = [_label(system, cache, d) for d in number]
    record: dict[str, Any] = {
        "id": q.id, "gold": list(q.evidence), "lab": labels,
        "q": q.question,
        "lex": {c: [number[d] for d in ids] for c, ids in lexical.items()},
        # each lexical channel's own scores (BM25 and bonuses), for margin and calibrated rules
        "lexs": {c: [round(float(found[c].scores.get(d, 0.0)), 6) for d in ids] for c, ids in lexical.items()},
        "dq": [number[d] for d in dense_query.ids] if dense_query else [],
        "dqs": [round(float(dense_query.scores[d]), 6) for d in dense_query.ids] if dense_query else [],
        "dp": [number[d] for d in dense_passage.ids],
        "dps": [round(float(dense_passage.scores[d]), 6) for d in dense_passage.ids],
        "nb": neighbours_of(cache, number),
    }
    prepare(record)
    if rank_with(SHIPPED, record) != [number[d] for d in current]:
        info["mismatch_current"] += 1
    if rank_with(LEXICAL, record) != [number[d] for d in plain]:
        info["mismatch_lexical"] += 1
    # plain baselines of the same run: bm25s over the turns, e5 alone (riko's chunk vectors, a
    # turn at its best chunk) and their RRF
    bm25_ids = bm25.search(q.question, DEPTH)
    e5_ids = [labels[i] for i in record["dq"] if labels[i] is not None]
    record["fixed"] = {
        "lexical": ranks_of(record, [number[d] for d in plain]),
        "current": ranks_of(record, [number[d] for d in current]),
        "bm25s": evidence_ranks(bm25_ids, q.evidence),
        "e5": evidence_ranks(e5_ids, q.evidence),
        "rrf": evidence_ranks(fuse([bm25.ranked(q.question, DEPTH)[0], e5_ids], DEPTH), q.evidence),
    }
    return record


def _label(system: RikoSystem, cache: Any, doc_id: str) -> str | None:
    doc = cache.doc(doc_id) if cache.kind_of(doc_id) == "evidence" else None
    if doc is None or doc.session_id is None or doc.seq is None:
        return None
    return system.label.get((doc.session_id, int(doc.seq)))


class _Model:
    """The provider identity ``fuse_retrieved`` reads (its model name), for re-fusing kept lists."""

    def __init__(self, model: str) -> None:
        self.model = model


def engine_mismatches(questions: Sequence[Mapping[str, Any]]) -> int:
    """Questions whose kept channel lists ``fuse_retrieved`` (this tree's engine) ranks otherwise
    than the grid's :data:`SHIPPED` row (document numbers keep the doc_id order as padded strings)."""
    from riko.recall.channels import Hits
    from riko.recall.engine import fuse_retrieved

    wrong = 0
    for q in questions:
        name = lambda d: f"{d:08d}"  # noqa: E731
        found = {c: Hits(ids=[name(d) for d in ids]) for c, ids in q["lex"].items()}
        found["dense"] = Hits(ids=[name(d) for d in q["dq"]])
        fused = [int(f.doc_id) for f in fuse_retrieved(found, _Model("multilingual-e5-small"), rrf_k=RRF_K)][:DEPTH]
        wrong += fused != rank_with(SHIPPED, q)
    return wrong


def _joined(a: Mapping[str, Any], b: Mapping[str, Any]) -> dict[str, Any]:
    """The info of one set measured in two runs: counts added, notes kept side by side."""
    out = {k: a.get(k, 0) + b.get(k, 0) for k in a if isinstance(a.get(k), (int, float))}
    out["note"] = f"{a.get('note')} + {b.get('note')}"
    return out


def _public(q: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in q.items() if not k.startswith("_")}


# -- fitting
def gain(summary: Mapping[str, float], lexical: Mapping[str, float], objective: str) -> float:
    """How much better than lexical: the smallest metric difference (``min``) or their mean."""
    deltas = [summary[m] - lexical[m] for m in METRICS]
    return min(deltas) if objective == "min" else sum(deltas) / len(deltas)


def fit(summaries: Mapping[str, Mapping[str, Mapping[str, float]]], names: Sequence[str],
        objective: str) -> tuple[dict[str, str], str, dict[str, dict[str, float]]]:
    """Leave-one-dataset-out: the setting fitted for each held-out set, the chosen one, and every gain."""
    sets = list(summaries)
    gains = {s: {d: gain(summaries[d][s], summaries[d]["lexical"], objective) for d in sets} for s in names}

    def key(s: str, over: Sequence[str]) -> tuple[float, float]:
        mean = [gain(summaries[d][s], summaries[d]["lexical"], "mean") for d in over]
        return min(gains[s][d] for d in over), sum(mean) / len(mean)

    fitted = {held: max(names, key=lambda s: key(s, [d for d in sets if d != held])) for held in sets}
    candidates = list(dict.fromkeys(fitted.values()))
    chosen = max(candidates, key=lambda s: key(s, sets))
    return fitted, chosen, gains


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=None, help="folder holding the extracted <dataset>/ folders")
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--vector-cache", default=None)
    parser.add_argument("--max-conversations", action="append", default=[], metavar="DATASET=N")
    parser.add_argument("--first-conversations", action="append", default=[], metavar="DATASET=N")
    parser.add_argument("--every-conversations", action="append", default=[], metavar="DATASET=N")
    parser.add_argument("--conversations", action="append", default=[], metavar="DATASET=A,B")
    parser.add_argument("--questions", action="append", default=[], metavar="DATASET=N")
    parser.add_argument("--questions-per-conversation", action="append", default=[], metavar="DATASET=N",
                        help="the first N ranked questions of each conversation of DATASET (in file order)")
    parser.add_argument("--dump", default=None, help="write every question's channel lists here (.json.gz)")
    parser.add_argument("--load", action="append", default=[], metavar="FILE",
                        help="use the sets of an earlier --dump instead of asking (repeatable; --datasets may be empty)")
    parser.add_argument("--objective", choices=("min", "mean"), default="min")
    parser.add_argument("--json", default=None, help="write every setting's summary per set here")
    args = parser.parse_args()

    caps = parse_caps(args.max_conversations)
    named = parse_named(args.conversations, "--conversations")
    first = parse_named(args.first_conversations, "--first-conversations")
    every = parse_named(args.every_conversations, "--every-conversations")
    questions = parse_named(args.questions, "--questions")
    per_conv = parse_named(args.questions_per_conversation, "--questions-per-conversation")
    sets: dict[str, dict[str, Any]] = {}
    for path in args.load:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            for name, entry in json.load(fh)["sets"].items():
                loaded = [prepare(q) for q in entry["questions"]]
                if name in sets:  # the same set measured in parts (other conversations): one set
                    sets[name]["questions"] += loaded
                    sets[name]["info"] = _joined(sets[name]["info"], entry["info"])
                else:
                    sets[name] = {"info": entry["info"], "questions": loaded}
    wanted = [d.strip() for d in args.datasets.split(",") if d.strip() and d.strip() not in sets]
    if wanted:
        if not args.data or not args.vector_cache:
            raise SystemExit("--data and --vector-cache are needed to ask " + ", ".join(wanted))
        from riko.dense.providers import E5Provider
        from riko.dense.text_cache import CachedProvider

        provider = CacheOnly(CachedProvider(E5Provider(), args.vector_cache))
        with tempfile.TemporaryDirectory(prefix="riko-fusion-grid-") as tmp:
            for name in wanted:
                folder = Path(args.data) / name
                conversations, note = choose_conversations(name, folder, caps, named, first, every)
                started = time.perf_counter()
                records, info = run_set(name, folder, conversations,
                                        int(questions[name]) if name in questions else None,
                                        int(per_conv[name]) if name in per_conv else None, provider, Path(tmp))
                info["note"] = note
                if name in per_conv:
                    info["note"] = f"{note or name}; the first {per_conv[name]} ranked questions of each conversation"
                info["seconds"] = round(time.perf_counter() - started, 1)
                sets[name] = {"info": info, "questions": records}
                print(f"{name}: {json.dumps(info)}", file=sys.stderr, flush=True)
        if args.dump:
            with gzip.open(args.dump, "wt", encoding="utf-8") as fh:
                json.dump({"sets": {n: {"info": e["info"], "questions": [_public(q) for q in e["questions"]]}
                                    for n, e in sets.items() if n in wanted}}, fh)
    sets = {n: e for n, e in sets.items() if e["questions"]}
    if not sets:
        raise SystemExit("no questions were measured")
    for entry in sets.values():
        entry["info"]["engine_mismatch_shipped"] = engine_mismatches(entry["questions"])
    settings = grid()
    names = [s.name for s in settings]
    summaries: dict[str, dict[str, dict[str, float]]] = {}
    for name, entry in sets.items():
        qs = entry["questions"]
        summaries[name] = {s: metrics([q["fixed"][s] for q in qs]) for s in FIXED}
        for setting in settings:
            summaries[name][setting.name] = metrics([ranks_of(q, rank_with(setting, q)) for q in qs])
    report(sets, summaries, names, args.objective)
    if args.json:
        fitted, chosen, _ = fit(summaries, names, args.objective) if len(sets) > 1 else ({}, "", {})
        Path(args.json).write_text(json.dumps({"summaries": summaries, "infos": {n: e["info"] for n, e in sets.items()},
                                               "fitted": fitted, "chosen": chosen}, indent=1), encoding="utf-8")


def report(sets: Mapping[str, Mapping[str, Any]], summaries: Mapping[str, Mapping[str, Mapping[str, float]]],
           names: Sequence[str], objective: str) -> None:
    order = list(sets)
    print("sets measured: " + ", ".join(f"{d} ({len(sets[d]['questions'])} questions)" for d in order))
    for d in order:
        print(f"  {d}: {json.dumps(sets[d]['info'])}")
    if len(order) < 2:
        gains = {s: {d: gain(summaries[d][s], summaries[d]["lexical"], objective) for d in order} for s in names}
        print("\none set measured: no leave-one-dataset-out; EXPLORATION ONLY, nothing below is a choice")
        families_report(order, summaries, names, gains)
        return
    fitted, chosen, gains = fit(summaries, names, objective)
    rule = "smallest of Δhit@10, Δfrac@10, ΔMRR" if objective == "min" else "mean of Δhit@10, Δfrac@10, ΔMRR"
    if len(order) < 3:
        print(f"\n{len(order)} sets measured: EXPLORATION ONLY (a shipped setting is chosen over three or more)")
    print(f"\nleave-one-dataset-out (fit: the best worst training set by the {rule} over lexical)")
    print("| held out | fitted on the other sets | worst training gain | held-out Δhit@10 | Δfrac@10 | ΔMRR |")
    print("| --- | --- | --- | --- | --- | --- |")
    for held in order:
        best = fitted[held]
        out, lex = summaries[held][best], summaries[held]["lexical"]
        worst = min(gains[best][d] for d in order if d != held) if len(order) > 1 else float("nan")
        print(f"| {held} | {best} | {worst:+.4f} | {out['hit@10'] - lex['hit@10']:+.3f} | "
              f"{out['frac@10'] - lex['frac@10']:+.3f} | {out['mrr'] - lex['mrr']:+.3f} |")
    print(f"\nchosen: {chosen} (worst set gain {min(gains[chosen][d] for d in order):+.4f}, on "
          f"{min(order, key=lambda d: gains[chosen][d])})")
    print(f"\nlexical: riko retrieve without the dense channel; {SHIPPED.name}: with it as shipped; {BEFORE.name}: "
          "as shipped before; e5: riko's chunk vectors alone (a turn at its best chunk, top 300); rrf: bm25s and e5, "
          "k = 60")
    print("\n| set | system | n | hit@10 | frac@10 | MRR |")
    print("| --- | --- | --- | --- | --- | --- |")
    for d in order:
        for s in dict.fromkeys(("lexical", BEFORE.name, SHIPPED.name, chosen, "bm25s", "e5", "rrf")):
            row = summaries[d][s]
            print(f"| {d} | {s} | {int(row['queries'])} | {row['hit@10']:.3f} | {row['frac@10']:.3f} | {row['mrr']:.3f} |")
    top = sorted(names, key=lambda s: -min(gains[s][d] for d in order))[:15]
    print("\nbest settings by worst-set gain (" + "/".join(order) + "): " + "; ".join(
        f"{s} " + "/".join(f"{gains[s][d]:+.3f}" for d in order) for s in top))
    print("\nper-set Δ vs lexical (hit@10 / frac@10 / MRR) of the best 15:")
    for s in top:
        print(f"  {s}: " + "  ".join(
            f"{d} " + "/".join(f"{summaries[d][s][m] - summaries[d]['lexical'][m]:+.3f}" for m in METRICS)
            for d in order))
    families_report(order, summaries, names, gains)
    if any(math.isnan(v) for g in gains.values() for v in g.values()):
        raise SystemExit("a gain is NaN")


def families_report(order: Sequence[str], summaries: Mapping[str, Mapping[str, Mapping[str, float]]],
                    names: Sequence[str], gains: Mapping[str, Mapping[str, float]]) -> None:
    """Per family of rules: the best setting by its worst set and metric over the sets measured
    (in-sample: the same questions pick and score it) and how much the family's worst setting
    loses, beside the fixed systems of the same run."""
    by_name = {s.name: s for s in grid()}
    kinds: dict[str, list[str]] = {}
    for n in names:
        kinds.setdefault(by_name[n].family, []).append(n)
    worst = {n: min(gains[n][d] for d in order) for n in names}
    mean = {n: sum(gain(summaries[d][n], summaries[d]["lexical"], "mean") for d in order) / len(order)
            for n in names}
    best = {kind: max(members, key=lambda n: (worst[n], mean[n], n == SHIPPED.name))
            for kind, members in kinds.items() if kind != "lexical"}
    print("\nfamilies (best = largest worst-set-and-metric gain over lexical, IN-SAMPLE; "
          "floor = the family's worst setting's worst gain; share = settings never below lexical):")
    for kind, members in kinds.items():
        if kind == "lexical":
            continue
        safe = sum(worst[n] >= 0 for n in members)
        print(f"  {kind:<15} {len(members):3d} settings  best {best[kind]} ({worst[best[kind]]:+.4f}, "
              f"mean {mean[best[kind]]:+.4f})  "
              f"floor {min(worst[n] for n in members):+.4f}  share {safe}/{len(members)}")
    print("\n| set | system | n | hit@10 | frac@10 | MRR |")
    print("| --- | --- | --- | --- | --- | --- |")
    rows = [("lexical", "lexical"), ("e5", "e5"), ("rrf", "rrf"), (SHIPPED.name, f"current ({SHIPPED.name})")]
    rows += [(best[k], f"{k}: {best[k]}") for k in ("rrf", "lexical-margin", "query-length", "rerank", "calibrated")
             if k in best]
    for d in order:
        for key, label in rows:
            row = summaries[d][key]
            print(f"| {d} | {label} | {int(row['queries'])} | {row['hit@10']:.3f} | {row['frac@10']:.3f} | "
                  f"{row['mrr']:.3f} |")


if __name__ == "__main__":
    main()
