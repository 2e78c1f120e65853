"""Fusion settings for riko+e5 chosen by leave-one-dataset-out on the four public conversation sets.

Run: ``python benchmarks/fusion_grid.py --data /tmp/ds --vector-cache /tmp/vcache [subset flags of
retrieval_real.py] [--json FILE]``.

Every question is asked once: its channel hits (the lexical channels and e5's dense hits with
their cosines, for the ``query:`` prefix and for the query embedded as a passage) come from
:func:`riko.recall.engine.retrieve_hits`, then every candidate fusion setting ranks them, so
a grid costs one pass and no re-encoding. Passage vectors must already be in the cache
(``retrieval_real.py --vector-cache`` fills it): a conversation stage that would need a new
embedding is skipped and counted, never embedded here. The grid's ``lexical`` row equals
``retrieve`` without the dense channel and its ``current`` row, the setting shipped, equals ``retrieve`` with it
(both are checked for every question).

For each held-out set the setting whose worst training set gains most over lexical (the mean
of its hit@10, frac@10 and MRR differences) is fitted on the other three and reported on the
held-out one; the setting finally chosen is, of those fitted, the one whose worst held-out set
is best.
"""

from __future__ import annotations

import argparse
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

from riko.evaluation.datasets import load_dataset, summarize  # noqa: E402
from riko.evaluation.datasets_systems import Bm25sSystem, RikoSystem, fuse  # noqa: E402
from riko.evaluation.retrieval import evidence_ranks  # noqa: E402

DEPTH = 100
METRICS = ("hit@10", "frac@10", "mrr")


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
    agree: float | None = None  # dense weight at zero top-10 agreement with rawEvidence
    rank_cap: int | None = None  # dense-only hits admitted only within this dense rank
    neighbour: float = 0.0  # share of each neighbouring line's fused score a line receives
    prefix: str = "query"  # how the query is embedded: "query:" or as a "passage:"

    @property
    def name(self) -> str:
        parts = [f"w{self.weight:g}"]
        if self.agree is not None:
            parts.append(f"agree{self.agree:g}")
        if self.rank_cap is not None:
            parts.append(f"cap{self.rank_cap}")
        if self.neighbour:
            parts.append(f"nb{self.neighbour:g}")
        if self.prefix != "query":
            parts.append("passage-prefix")
        return ",".join(parts)


#: What riko ships (riko.recall.engine: DENSE_WEIGHTS, DENSE_ONLY_RANKS for e5).
SHIPPED = Setting(weight=0.7, rank_cap=10)


def grid() -> list[Setting]:
    out = [Setting(weight=w) for w in (0.0, 0.3, 0.5, 0.7, 1.0)]
    for w, lo, cap, nb, prefix in itertools.product((0.5, 0.7, 1.0), (None, 0.0, 0.2), (None, 10, 30),
                                                   (0.0, 0.25), ("query", "passage")):
        setting = Setting(weight=w, agree=lo, rank_cap=cap, neighbour=nb, prefix=prefix)
        if setting not in out:
            out.append(setting)
    return out


def rrf(lists: Mapping[str, Sequence[str]], weights: Mapping[str, float], k: int = 60) -> dict[str, float]:
    score: dict[str, float] = {}
    for channel, ids in lists.items():
        w = weights.get(channel, 1.0)
        for i, d in enumerate(dict.fromkeys(ids)):
            score[d] = score.get(d, 0.0) + w / (k + i + 1)
    return score


def order(score: Mapping[str, float]) -> list[str]:
    return sorted(score, key=lambda d: (-score[d], d))


def rank_with(setting: Setting, lexical: Mapping[str, list[str]], dense: Mapping[str, list[str]],
              neighbours: Mapping[str, tuple[str | None, str | None]]) -> list[str]:
    """The fused ranking of one question under ``setting``."""
    ids = list(dense[setting.prefix])
    found = {d for channel_ids in lexical.values() for d in channel_ids}
    if setting.rank_cap is not None:
        ids = [d for i, d in enumerate(ids) if d in found or i < setting.rank_cap]
    weight = setting.weight
    if setting.agree is not None:
        top_lexical = set(lexical.get("rawEvidence", [])[:10])
        share = len(top_lexical & set(ids[:10])) / 10 if top_lexical else 0.0
        weight = setting.agree + (setting.weight - setting.agree) * share
    lists = {**lexical, "dense": ids} if weight > 0 else dict(lexical)
    score = rrf(lists, {"dense": weight})
    if setting.neighbour:
        base = dict(score)
        for d in base:
            before, after = neighbours.get(d, (None, None))
            score[d] += setting.neighbour * (base.get(before, 0.0) if before else 0.0) \
                + setting.neighbour * (base.get(after, 0.0) if after else 0.0)
    return order(score)


def neighbour_map(cache: Any, ids: set[str]) -> dict[str, tuple[str | None, str | None]]:
    side = cache.evidence

    def ref(line: int) -> str | None:
        if line < 0:
            return None
        session_id, seq = side.line_keys[line]
        return f"session:{session_id}/event:{seq}"

    out = {}
    for d in ids:
        line = side.ref_line.get(d)
        if line is not None:
            out[d] = (ref(side.prev_line[line]), ref(side.next_line[line]))
    return out


def run_set(name: str, folder: Path, conversations: list[str] | None, limit: int | None, provider: CacheOnly,
            settings: list[Setting], work: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    from riko.recall.engine import fuse_retrieved, retrieve_hits
    from riko.recall.channels import dense_hits
    from riko.recall.index_cache import cache_for
    from riko.recall.vectors import dense_index

    data = load_dataset(folder, conversations=conversations)
    ranked = [q for q in data.queries if q.evidence]
    if limit is not None:
        ranked = ranked[:limit]
    by_conv: dict[str, list[Any]] = {}
    for q in ranked:
        by_conv.setdefault(q.conversation, []).append(q)
    records: list[dict[str, Any]] = []
    info = {"questions_wanted": len(ranked), "skipped_not_cached": 0, "mismatch_current": 0, "mismatch_lexical": 0,
            "conversations": 0}
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
                    found, used_provider = retrieve_hits(ctx, q.question, k=DEPTH, provider=provider)
                    lexical = {c: h.ids for c, h in found.items() if c != "dense" and h.ids}
                    cap = max(3 * DEPTH, ctx.config.lexical_candidate_cap)
                    dense = {"query": found["dense"].ids if "dense" in found else [],
                             "passage": dense_hits(cache, index, provider.embed_query_as_passage(q.question), cap).ids}
                    current = [f.doc_id for f in fuse_retrieved(found, used_provider, rrf_k=ctx.config.rrf_k)][:DEPTH]
                    plain = [f.doc_id for f in fuse_retrieved({c: h for c, h in found.items() if c != "dense"},
                                                              None, rrf_k=ctx.config.rrf_k)][:DEPTH]
                    every: set[str] = set().union(*lexical.values(), *dense.values())
                    neighbours = neighbour_map(cache, every)
                    labels = {i: _label(system, cache, i) for i in every}
                    ranks: dict[str, list[int | None]] = {}
                    for setting in settings:
                        ranking = rank_with(setting, lexical, dense, neighbours)[:DEPTH]
                        if setting == SHIPPED:
                            info["mismatch_current"] += ranking != current
                        if setting == Setting(weight=0.0):
                            info["mismatch_lexical"] += ranking != plain
                        ranks[setting.name] = evidence_ranks(_labelled(ranking, labels), q.evidence)
                    ranks["lexical"] = evidence_ranks(_labelled(plain, labels), q.evidence)
                    # plain baselines of the same run: bm25s over the turns, e5 alone (riko's
                    # chunk vectors, a turn at its best chunk) and their RRF
                    bm25_ids = bm25.search(q.question, DEPTH)
                    e5_ids = _labelled(dense["query"], labels)
                    ranks["bm25s"] = evidence_ranks(bm25_ids, q.evidence)
                    ranks["e5"] = evidence_ranks(e5_ids, q.evidence)
                    ranks["rrf"] = evidence_ranks(fuse([bm25.ranked(q.question, DEPTH)[0], e5_ids], DEPTH),
                                                  q.evidence)
                    ranks["current"] = evidence_ranks(_labelled(current, labels), q.evidence)
                    records.append({"id": q.id, "ranks": ranks, "latency_ms": {s: 0.0 for s in ranks}})
        finally:
            system.close()
        info["conversations"] += used
    info["questions"] = len(records)
    return records, info


def _labelled(ids: list[str], labels: Mapping[str, str | None]) -> list[str]:
    return [d for d in (labels.get(i) for i in ids) if d is not None]


def _label(system: RikoSystem, cache: Any, doc_id: str) -> str | None:
    doc = cache.doc(doc_id) if cache.kind_of(doc_id) == "evidence" else None
    if doc is None or doc.session_id is None or doc.seq is None:
        return None
    return system.label.get((doc.session_id, int(doc.seq)))


def score(summary: Mapping[str, float], lexical: Mapping[str, float]) -> float:
    """Mean gain over lexical of hit@10, frac@10 and MRR."""
    return sum(summary[m] - lexical[m] for m in METRICS) / len(METRICS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, help="folder holding the extracted <dataset>/ folders")
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--vector-cache", required=True)
    parser.add_argument("--max-conversations", action="append", default=[], metavar="DATASET=N")
    parser.add_argument("--first-conversations", action="append", default=[], metavar="DATASET=N")
    parser.add_argument("--every-conversations", action="append", default=[], metavar="DATASET=N")
    parser.add_argument("--conversations", action="append", default=[], metavar="DATASET=A,B")
    parser.add_argument("--questions", action="append", default=[], metavar="DATASET=N")
    parser.add_argument("--json", default=None, help="write every setting's summary per set here")
    parser.add_argument("--merge", action="append", default=[], metavar="FILE",
                        help="also use the sets of an earlier --json file (same grid), e.g. sets measured apart")
    args = parser.parse_args()

    from riko.dense.providers import E5Provider
    from riko.dense.text_cache import CachedProvider

    provider = CacheOnly(CachedProvider(E5Provider(), args.vector_cache))
    caps = parse_caps(args.max_conversations)
    named = parse_named(args.conversations, "--conversations")
    first = parse_named(args.first_conversations, "--first-conversations")
    every = parse_named(args.every_conversations, "--every-conversations")
    questions = parse_named(args.questions, "--questions")
    settings = grid()
    summaries: dict[str, dict[str, dict[str, float]]] = {}
    infos: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="riko-fusion-grid-") as tmp:
        for name in [d.strip() for d in args.datasets.split(",") if d.strip()]:
            folder = Path(args.data) / name
            conversations, note = choose_conversations(name, folder, caps, named, first, every)
            started = time.perf_counter()
            records, info = run_set(name, folder, conversations, int(questions[name]) if name in questions else None,
                                    provider, settings, Path(tmp))
            info["note"] = note
            info["seconds"] = round(time.perf_counter() - started, 1)
            infos[name] = info
            names = ["lexical", "current", "bm25s", "e5", "rrf", *(s.name for s in settings)]
            summaries[name] = {s: summarize(records, s) for s in names} if records else {}
            print(f"{name}: {json.dumps(info)}", file=sys.stderr, flush=True)
    for extra in args.merge:
        earlier = json.loads(Path(extra).read_text(encoding="utf-8"))
        for name, summary in earlier["summaries"].items():
            if name not in summaries and summary:
                summaries[name], infos[name] = summary, earlier["infos"][name]
    sets = [s for s in summaries if summaries[s]]
    names = [s.name for s in settings]
    gains = {s: {d: score(summaries[d][s], summaries[d]["lexical"]) for d in sets} for s in names}
    print("sets measured: " + ", ".join(f"{d} ({infos[d]['questions']} questions)" for d in sets))
    for d in sets:
        print(f"  {d}: {infos[d]}")
    print("\nleave-one-dataset-out (fit: best worst-training-set mean gain over lexical of hit@10, frac@10, MRR)")
    print("| held out | fitted setting | worst training gain | held-out Δhit@10 | Δfrac@10 | ΔMRR |")
    print("| --- | --- | --- | --- | --- | --- |")
    fitted = {}
    for held in sets:
        train = [d for d in sets if d != held]
        best = max(names, key=lambda s: (min(gains[s][d] for d in train),
                                         sum(gains[s][d] for d in train)))
        fitted[held] = best
        out, lex = summaries[held][best], summaries[held]["lexical"]
        print(f"| {held} | {best} | {min(gains[best][d] for d in train):+.4f} | "
              f"{out['hit@10'] - lex['hit@10']:+.3f} | {out['frac@10'] - lex['frac@10']:+.3f} | "
              f"{out['mrr'] - lex['mrr']:+.3f} |")
    candidates = list(dict.fromkeys(fitted.values()))
    chosen = max(candidates, key=lambda s: (min(gains[s][d] for d in sets), sum(gains[s][d] for d in sets)))
    print(f"\nchosen: {chosen} (worst set gain {min(gains[chosen][d] for d in sets):+.4f}, on "
          f"{min(sets, key=lambda d: gains[chosen][d])})")
    print("\nlexical: riko retrieve without the dense channel; current: with it as shipped; e5: riko's chunk "
          "vectors alone (a turn at its best chunk, top 300); rrf: bm25s and e5, k = 60")
    print("\n| set | system | n | hit@10 | frac@10 | MRR |")
    print("| --- | --- | --- | --- | --- | --- |")
    for d in sets:
        for s in ("lexical", "current", chosen, "bm25s", "e5", "rrf"):
            row = summaries[d][s]
            print(f"| {d} | {s} | {int(row['queries'])} | {row['hit@10']:.3f} | {row['frac@10']:.3f} | {row['mrr']:.3f} |")
    top = sorted(names, key=lambda s: -min(gains[s][d] for d in sets))[:12]
    print("\nbest settings by worst-set gain: " + "; ".join(
        f"{s} " + "/".join(f"{gains[s][d]:+.3f}" for d in sets) for s in top))
    if args.json:
        Path(args.json).write_text(json.dumps({"summaries": summaries, "infos": infos, "fitted": fitted,
                                               "chosen": chosen}, indent=1), encoding="utf-8")
    if any(math.isnan(v) for g in gains.values() for v in g.values()):
        raise SystemExit("a gain is NaN")


if __name__ == "__main__":
    main()
