"""Recall benchmark: latency at scale against plain bm25s, dense agreement and size, retrieval quality.

Scale: a synthetic scope of ``--pages`` canonical pages and ``--lines`` user L0 lines (ingested
from riko L0 JSONL files) plus their vectors (``--provider``, default ``local-fast``). Prints
recall p50/p95 with every channel on (the query's embedding excluded and shown apart), the
same for plain bm25s over the same texts in the same run and their ratio; hnswlib top-10
agreement with exact search; stored bytes against float32; embedding throughput; and the
incremental refresh after a 1 % change.

Quality: labelled English and Chinese cases (``riko/data/cases/retrieval_*.jsonl``): each fact
is a user message among chatter and the other facts; each question must find it. Prints
Recall@10 and MRR@10 of fused ``retrieve``, of each channel alone and of plain bm25s.

Usage: ``python benchmarks/recall.py [--pages 10000] [--lines 100000] [--skip-scale] [--skip-quality]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import bm25s
import numpy as np
import pyarrow as pa

import riko
from riko.dense.query_cache import QUERY_VECTORS
from riko.stores.migrations import RECORD_SCHEMA_VERSION
from riko.recall.index_cache import cache_for

CASES = Path(riko.__file__).parent / "data" / "cases"

# -- synthetic scope ------------------------------------------------------------------------------------
NAMES = ["Maya", "Tom", "Priya", "Hugo", "Aisha", "Jonas", "Lily", "Ben", "Ines", "Marco", "Lucia", "Okafor",
         "Chen", "Sofia", "Rafael", "Noor", "Kenji", "Elena", "Omar", "Greta", "Ravi", "Zara", "Felix", "Mina"]
PLACES = ["Rotterdam", "Lisbon", "Kyoto", "Nairobi", "Leeds", "Berlin", "Porto", "Oslo", "Hangzhou", "Lima",
          "Quebec", "Tbilisi", "Dakar", "Hanoi", "Bergen", "Cork", "Graz", "Malmo", "Split", "Bilbao"]
OBJECTS = [w.strip() for w in (
    "bike, cello, laptop, boiler, garden, kitchen, passport, marathon, recipe, sourdough, flat, car, phone, "
    "camera, violin, tent, kayak, piano, printer, sofa, balcony, drone, guitar, telescope, aquarium, "
    "motorbike, scooter, blender, oven, heater, router, monitor, keyboard, backpack, suitcase, umbrella, "
    "jacket, boots, glasses, watch, wallet, notebook, calendar, ticket, invoice, contract, lease, mortgage, "
    "insurance, pension, allotment, greenhouse, chicken coop, beehive, loom, kiln, canoe, sailboat").split(",")]
VERBS = ["fixed", "bought", "sold", "lost", "found", "booked", "cancelled", "painted", "cleaned", "moved",
         "borrowed", "returned", "upgraded", "repaired", "measured", "planned", "ordered", "shipped"]
EXTRAS = ["last week", "yesterday", "on Sunday", "after work", "before the holidays", "with my sister",
          "for the second time", "without telling anyone", "in the rain", "at the weekend", "this morning"]


def _zipf(rng: random.Random, items: list[str]) -> str:
    return items[min(int(rng.paretovariate(1.2)) - 1, len(items) - 1)]


def _sentence(rng: random.Random, codes: list[str]) -> str:
    text = (f"I {rng.choice(VERBS)} my {_zipf(rng, OBJECTS)} with {_zipf(rng, NAMES)} in {_zipf(rng, PLACES)} "
            f"{rng.choice(EXTRAS)}")
    if rng.random() < 0.2:
        text += f", reference {rng.choice(codes)}"
    if rng.random() < 0.3:
        text += f". The {_zipf(rng, OBJECTS)} still needs a {_zipf(rng, OBJECTS)} from {_zipf(rng, PLACES)}"
    return text + "."


def _write_logs(directory: Path, lines: int, rng: random.Random, codes: list[str], *, prefix: str,
                sessions: int = 50, unique: bool = False) -> None:
    """``lines`` user messages in ``sessions`` logs; ``unique`` ends each with its own note
    number, so no text repeats one already stored (the generator's sentences do repeat)."""
    directory.mkdir(parents=True, exist_ok=True)
    start = int(datetime(2025, 1, 1, tzinfo=timezone.utc).timestamp() * 1000)
    per = max(1, lines // sessions)
    written = 0
    for s in range(sessions):
        count = per if s < sessions - 1 else lines - written
        with open(directory / f"{prefix}-{s}.jsonl", "w", encoding="utf-8") as f:
            for seq in range(count):
                f.write(json.dumps({
                    "schemaVersion": 1, "sessionId": f"{prefix}-{s}", "seq": seq, "time": start + (written + seq) * 60_000,
                    "type": "user/message",
                    "data": {"message": {"role": "user", "source": {"kind": "user"},
                                         "content": [{"type": "text", "text": _sentence(rng, codes) + (
                                             f" Note {prefix}-{s}-{seq}." if unique else "")}]}},
                }) + "\n")
        written += count


def _insert_pages(mem: Any, n: int, rng: random.Random, codes: list[str]) -> list[str]:
    titles = [f"{_zipf(rng, NAMES)} {OBJECTS[i % len(OBJECTS)]} {i}" for i in range(n)]
    now = datetime(2025, 6, 1)
    rows: dict[str, list[Any]] = {k: [] for k in (
        "id", "type", "title", "description", "body", "status", "consent", "locked", "sensitivity",
        "sensitivity_history", "version", "tags", "sources", "usage_policy", "recorded_at", "updated_at")}
    for i, title in enumerate(titles):
        links = " ".join(f"[[{titles[rng.randrange(n)]}]]" for _ in range(2))
        rows["id"].append(f"p-bench{i:06d}")
        rows["type"].append(rng.choice(["entity", "concept", "episode", "relationship"]))
        rows["title"].append(title)
        rows["description"].append(_sentence(rng, codes))
        rows["body"].append(f"{_sentence(rng, codes)} See also {links}.")
        rows["status"].append("confirmed")
        rows["consent"].append(True)
        rows["locked"].append(True)
        rows["sensitivity"].append("normal")
        rows["sensitivity_history"].append("[]")
        rows["version"].append(1)
        rows["tags"].append("[]")
        rows["sources"].append("[]")
        rows["usage_policy"].append("normal")
        rows["recorded_at"].append(now)
        rows["updated_at"].append(now)
    table = pa.table({"scope_key": [mem.scope.key] * n, "schema_version": [RECORD_SCHEMA_VERSION] * n, **rows})
    mem.warehouse.insert_arrow("pages", table)
    return titles


def _insert_observations(mem: Any, n: int, rng: random.Random) -> None:
    for i in range(n):
        mem.warehouse.con.execute(
            "INSERT INTO observations (scope_key, schema_version, id, text, anchors, status, sensitivity, "
            "epistemic_status, confidence) VALUES (?, ?, ?, ?, '[]', 'active', 'normal', 'inferred_observation', 0.9)",
            [mem.scope.key, RECORD_SCHEMA_VERSION, f"o-bench{i:05d}",
             f"The user tends to take care of the {_zipf(rng, OBJECTS)} with {_zipf(rng, NAMES)}"])


STAGES = ("planner", "lexical", "vector", "rerank", "other", "embedding")
STAGE_NAMES = {
    "planner": "planner",
    "lexical": "lexical side (refresh, BM25, exact, observations, graph)",
    "vector": "dense search (hnswlib)",
    "rerank": "reranker",
    "other": "eligibility, fusion, gates, budget, render, activation",
    "embedding": "query embedding (excluded from the totals)",
}


class _KnownQueries:
    """The scope's embedding provider with the benchmark's query vectors computed beforehand,
    so the timed recalls exclude the query embedding exactly (wall and CPU time alike)."""

    def __init__(self, inner: Any, queries: list[str]) -> None:
        self.inner, self.model, self.dimension = inner, inner.model, inner.dimension
        self.vectors = {q: inner.embed_query(q) for q in dict.fromkeys(queries)}

    def embed_query(self, text: str) -> Any:
        found = self.vectors.get(text)
        return found if found is not None else self.inner.embed_query(text)

    def embed_passages(self, texts: Any) -> Any:
        return self.inner.embed_passages(texts)


class _E5QueriesHashedPassages:
    """e5's query embedding (really computed, on one core) beside 384-d feature-hashed passages.

    Embedding 110,000 passages with e5 takes hours on one core; the latency of a recall with
    e5 on does not depend on what the stored vectors say, only on their number and size, so
    ``--provider e5-query`` times the real query embedding and an hnswlib search over as many
    384-d vectors. Its rankings mean nothing and are not reported.
    """

    model = "multilingual-e5-small"
    dimension = 384

    def __init__(self) -> None:
        from riko.dense.providers import DeterministicProvider, E5Provider

        self.e5, self.hashed = E5Provider(num_threads=1), DeterministicProvider(dimension=self.dimension)

    def embed_query(self, text: str) -> Any:
        return self.e5.embed_query(text)

    def embed_passages(self, texts: Any) -> Any:
        return self.hashed.embed_passages(texts)


def _pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


def query_cost(mem: Any, rng: random.Random, codes: list[str], n: int, e5: Any) -> None:
    """Recall with e5 on, a query asked the first time (cold: e5 encodes it) and again at once
    (the query cache answers), beside recall with the dense channel off over the same scope
    and the ``local-fast`` (USE) encoding of the same text; all interleaved per query."""
    import dataclasses

    from riko.dense.providers import USEProvider
    from riko.recall.engine import recall as engine_recall

    ctx = mem.context
    lexical_ctx = dataclasses.replace(ctx, config=dataclasses.replace(ctx.config, recall_vector_enabled=False))
    use = USEProvider(threads=1)
    use.embed_query("warm up")
    e5.e5.embed_query("warm up")
    queries = list(dict.fromkeys(
        f"do you remember what I {rng.choice(VERBS)} with my {_zipf(rng, OBJECTS)} and {_zipf(rng, NAMES)} in "
        f"{_zipf(rng, PLACES)}, order {rng.choice(codes)}, note {i}?" for i in range(n)))
    QUERY_VECTORS.clear()
    rows: dict[str, list[float]] = {k: [] for k in ("lexical", "cold", "repeated", "e5_encode", "use_encode")}
    cpu: dict[str, list[float]] = {k: [] for k in ("lexical", "cold", "repeated")}
    for q in queries:
        for name, run in (("lexical", lambda q=q: engine_recall(lexical_ctx, q)),
                          ("cold", lambda q=q: mem.recall(q, provider=e5)),
                          ("repeated", lambda q=q: mem.recall(q, provider=e5))):
            c, t = time.thread_time(), time.perf_counter()
            result = run()
            rows[name].append((time.perf_counter() - t) * 1000)
            cpu[name].append((time.thread_time() - c) * 1000)
            assert not result.trace["degradedModes"], result.trace["degradedModes"]
            if name != "lexical":
                assert result.trace["candidatesByChannel"].get("dense"), "the dense channel did not run"
            if name == "cold":
                rows["e5_encode"].append(result.trace.get("embeddingLatencyMs") or 0.0)
            if name == "lexical":
                assert "dense" not in result.trace["candidatesByChannel"]
        t = time.perf_counter()
        use.embed_query(q)  # a text USE has not seen: a real encoding
        rows["use_encode"].append((time.perf_counter() - t) * 1000)
    assert QUERY_VECTORS.hits >= len(queries), (QUERY_VECTORS.hits, len(queries))
    lex50, cold50, rep50 = (_pct(rows[k], 50) for k in ("lexical", "cold", "repeated"))
    print(f"QUERY COST, {len(queries)} new queries interleaved (lexical / e5 cold / e5 repeated / USE encode), "
          f"wall p50 / p95 ms:")
    for name, label in (("lexical", "recall, dense channel off"), ("cold", "recall, e5 on, first asking"),
                        ("repeated", "recall, e5 on, same query again (query cache)")):
        print(f"  {label:<48} {_pct(rows[name], 50):7.2f} / {_pct(rows[name], 95):7.2f}   "
              f"CPU {_pct(cpu[name], 50):7.2f} / {_pct(cpu[name], 95):7.2f}")
    print(f"  {'e5 query encoding (traced, cold)':<48} {_pct(rows['e5_encode'], 50):7.2f} / "
          f"{_pct(rows['e5_encode'], 95):7.2f}")
    print(f"  {'local-fast (USE) query encoding, same texts':<48} {_pct(rows['use_encode'], 50):7.2f} / "
          f"{_pct(rows['use_encode'], 95):7.2f}")
    print(f"  RATIOS p50 wall: e5 cold / lexical {cold50 / lex50:.2f}x, e5 repeated / lexical {rep50 / lex50:.2f}x, "
          f"e5 repeated / e5 cold {rep50 / cold50:.2f}x; CPU: cold / lexical "
          f"{_pct(cpu['cold'], 50) / _pct(cpu['lexical'], 50):.2f}x, repeated / lexical "
          f"{_pct(cpu['repeated'], 50) / _pct(cpu['lexical'], 50):.2f}x; USE / e5 encoding "
          f"{_pct(rows['use_encode'], 50) / _pct(rows['e5_encode'], 50):.2f}x")


def scale(args: argparse.Namespace, work: Path) -> None:
    rng = random.Random(7)
    codes = [f"B-{rng.randrange(100, 999)}" for _ in range(300)]
    dense = args.provider != "off"
    e5_query = args.provider == "e5-query"
    config = {"embedding_provider": "deterministic" if e5_query else args.provider, "recall_enabled": True, "recall_vector_enabled": dense, "recall_graph_enabled": True,
              "recall_observation_enabled": True, "evidence_classification_enabled": True}
    t = time.perf_counter()
    _write_logs(work / "logs", args.lines, rng, codes, prefix="bench")
    mem = riko.open(work / "scope", preset="bench", config=config)
    report = mem.ingest(work / "logs", preset="bench", progress=False)
    _insert_pages(mem, args.pages, rng, codes)
    _insert_observations(mem, args.observations, rng)
    print(f"scope: {args.pages} pages, {report.events} evidence lines, {args.observations} observations "
          f"({time.perf_counter() - t:.1f} s to create)")

    t = time.perf_counter()
    cache_for(mem.context).refresh()
    print(f"recall cache build (tokenise + index every page, line and observation): {time.perf_counter() - t:.1f} s")

    timing_provider = _E5QueriesHashedPassages() if e5_query else None
    if dense:
        t = time.perf_counter()
        if timing_provider is not None:
            from riko.recall.engine import build_index

            stats = build_index(mem.context, progress=False, provider=timing_provider)
        else:
            stats = mem.index(progress=False)
        build_s = time.perf_counter() - t
        print(f"dense build ({stats['model']}, {stats['dimension']}-d): {stats['embedded']} texts embedded in "
              f"{stats['seconds']:.1f} s = {stats['embedded'] / max(stats['seconds'], 1e-9):.0f} texts/s "
              f"(whole build incl. hnsw {build_s:.1f} s)")
    else:
        print("dense channel off (--provider off): the lexical channels alone")

    queries = [f"do you remember what happened with my {_zipf(rng, OBJECTS)} and {_zipf(rng, NAMES)} "
               f"in {_zipf(rng, PLACES)}, order {rng.choice(codes)}?" for _ in range(args.queries)]
    cache = cache_for(mem.context)
    texts = [cache.pages.raw[i] for i in range(len(cache.pages.ids))] + cache.evidence.chunk_texts
    t = time.perf_counter()
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)
    bm25_build = time.perf_counter() - t

    def plain_bm25s(q: str) -> None:
        retriever.retrieve(bm25s.tokenize([q], stopwords="en", show_progress=False), k=10, show_progress=False)

    from riko.recall.vectors import dense_index, provider_for

    options: dict[str, Any] = {}
    if timing_provider is not None:
        options["provider"] = timing_provider  # each query is embedded inside the timed call
    elif dense:
        options["provider"] = _KnownQueries(provider_for(cache), queries)
    for q in queries[:5]:
        mem.recall(q, **options)  # warm: loads lazy structures
        plain_bm25s(q)
    QUERY_VECTORS.clear()  # the timed loop embeds each distinct query once, as a first asking does
    # Interleaved, so a load change on a shared machine weighs on both sides alike. Wall time
    # and the CPU time of this thread are both taken: on a busy machine the wall time of a
    # millisecond-long call is mostly waiting for a core, its CPU time far less so.
    total, plain, total_cpu, plain_cpu, whole = [], [], [], [], []
    stages: dict[str, list[float]] = {stage: [] for stage in STAGES}
    channels_seen: set[str] = set()
    for q in queries:
        c, t = time.thread_time(), time.perf_counter()
        result = mem.recall(q, **options)
        elapsed = (time.perf_counter() - t) * 1000
        total_cpu.append((time.thread_time() - c) * 1000)
        c, t = time.thread_time(), time.perf_counter()
        plain_bm25s(q)
        plain.append((time.perf_counter() - t) * 1000)
        plain_cpu.append((time.thread_time() - c) * 1000)
        trace = result.trace
        measured = {stage: trace.get(f"{stage}LatencyMs") or 0.0 for stage in STAGES if stage != "other"}
        whole.append(elapsed)
        total.append(elapsed - measured["embedding"])
        measured["other"] = total[-1] - sum(v for k, v in measured.items() if k != "embedding")
        for stage, value in measured.items():
            stages[stage].append(value)
        channels_seen.update(c for c, n in trace["candidatesByChannel"].items() if n)
        assert not trace["degradedModes"], trace["degradedModes"]
    print(f"recall with {'every channel on' if dense else 'the lexical channels'} "
          f"({', '.join(sorted(channels_seen))}), {len(total)} queries timed: "
          f"p50 {_pct(total, 50):.2f} ms, p95 {_pct(total, 95):.2f} ms (the query's embedding excluded: "
          f"{'its traced time subtracted' if timing_provider else 'its vectors were computed beforehand'}); CPU time p50 {_pct(total_cpu, 50):.2f} ms, "
          f"p95 {_pct(total_cpu, 95):.2f} ms")
    print("  stages (trace latencies), p50 / p95 ms:")
    for stage in STAGES:
        print(f"    {STAGE_NAMES[stage]:<58} {_pct(stages[stage], 50):6.2f} / {_pct(stages[stage], 95):6.2f}")
    print(f"plain bm25s over the same {len(texts)} texts (built in {bm25_build:.1f} s), {len(plain)} queries "
          f"timed, interleaved: "
          f"p50 {_pct(plain, 50):.2f} ms, p95 {_pct(plain, 95):.2f} ms; CPU time p50 {_pct(plain_cpu, 50):.2f} ms, "
          f"p95 {_pct(plain_cpu, 95):.2f} ms")
    print(f"RATIO recall/bm25s: p50 {_pct(total, 50) / _pct(plain, 50):.2f}x, p95 {_pct(total, 95) / _pct(plain, 95):.2f}x "
          f"(target <= 3x); CPU time p50 {_pct(total_cpu, 50) / _pct(plain_cpu, 50):.2f}x, "
          f"p95 {_pct(total_cpu, 95) / _pct(plain_cpu, 95):.2f}x; recall p95 {_pct(total, 95):.2f} ms (target <= 30 ms)")
    if timing_provider is not None:
        embed = stages["embedding"]
        print(f"WITH E5 ON, the query embedding included (e5 on one core, {len(whole)} queries, 384-d hnswlib over "
              f"{stats.get('count', stats.get('embedded'))} vectors): p50 {_pct(whole, 50):.2f} ms, "
              f"p95 {_pct(whole, 95):.2f} ms (target p50 <= 40 ms); CPU time p50 {_pct(total_cpu, 50):.2f} ms, "
              f"p95 {_pct(total_cpu, 95):.2f} ms; the embedding alone p50 {_pct(embed, 50):.2f} ms, "
              f"p95 {_pct(embed, 95):.2f} ms")
    if timing_provider is not None:
        query_cost(mem, rng, codes, args.cost_queries, timing_provider)
    if not dense or timing_provider is not None:
        mem.close()
        return

    from riko.dense.index import _search_exact

    provider = provider_for(cache)
    index = dense_index(cache, provider, mem.warehouse_dir / "dense", mem.clock)
    loaded = index._active
    agree = []
    for q in queries[:200]:
        vector_q = provider.embed_query(q)
        approx = {d for d, _ in index.search(vector_q, 10)}
        exact = {d for d, _ in _search_exact(loaded, vector_q, 10, None)}
        agree.append(len(approx & exact) / 10)
    status = index.status()
    gen_dir = mem.warehouse_dir / "dense" / "generations" / status["active_generation"]
    gen_bytes = sum(p.stat().st_size for p in gen_dir.iterdir())
    float_bytes = status["count"] * status["dimension"] * 4
    print(f"dense top-10 agreement hnswlib vs exact ({status['search_mode']}, {status['count']} vectors, "
          f"{len(agree)} queries): "
          f"{statistics.mean(agree):.4f} (target >= 0.98)")
    print(f"stored generation: {gen_bytes} bytes = {gen_bytes / float_bytes:.1%} of float32 ({float_bytes} bytes) "
          f"(target <= 30 %)")

    change = max(1, round(0.01 * (args.lines + args.pages)))
    _write_logs(work / "logs2", change, rng, codes, prefix="delta", sessions=5, unique=True)
    mem.ingest(work / "logs2", preset="bench", progress=False)
    t = time.perf_counter()
    refresh = mem.index(progress=False)
    refresh_s = time.perf_counter() - t
    print(f"incremental refresh after a 1 % change ({change} new lines, every text new): {refresh_s:.1f} s = "
          f"{refresh_s / max(build_s, 1e-9):.1%} of the full build, {refresh['embedded']} texts embedded, "
          f"{refresh['reused']} reused" + ("" if refresh["embedded"] >= change else
                                           f" (FEWER embedded than the {change} new lines)"))
    t = time.perf_counter()
    mem.recall(queries[0])
    print(f"first recall after the change (appends {change} lines to the lexical index): "
          f"{(time.perf_counter() - t) * 1000:.1f} ms")
    mem.close()


# -- quality --------------------------------------------------------------------------------------------
def _load(lang: str) -> tuple[list[dict], list[dict]]:
    rows = [json.loads(line) for line in (CASES / f"retrieval_{lang}.jsonl").read_text(encoding="utf-8").splitlines() if line]
    return [r for r in rows if r["kind"] == "case"], [r for r in rows if r["kind"] == "chatter"]


def _metrics(ranks: list[int | None]) -> tuple[float, float]:
    hits = [r for r in ranks if r is not None and r <= 10]
    return len(hits) / len(ranks), sum(1 / r for r in hits) / len(ranks)


def quality(args: argparse.Namespace, work: Path, lang: str) -> dict[str, tuple[float, float]]:
    cases, chatter = _load(lang)
    rng = random.Random(11)
    messages = [(c["id"], c["fact"]) for c in cases] + [(c["id"], c["text"]) for c in chatter]
    rng.shuffle(messages)
    mem = riko.open(work / f"quality-{lang}", preset="bench", config={"embedding_provider": args.quality_provider, "recall_enabled": True})
    where: dict[str, str] = {}
    for i, (cid, text) in enumerate(messages):
        session = f"{lang}-s{i // 8}"
        ref = mem.capture({"session_id": session, "type": "user/message",
                           "data": {"message": {"role": "user", "content": text}}})
        where[cid] = str(ref)
    stats = mem.index(progress=False)
    texts = [text for _, text in messages]
    refs = [where[cid] for cid, _ in messages]
    retriever = bm25s.BM25()
    stop = "en" if lang == "en" else None
    retriever.index(bm25s.tokenize(texts, stopwords=stop, show_progress=False), show_progress=False)

    def rank(ids: list[str], gold: str) -> int | None:
        return ids.index(gold) + 1 if gold in ids else None

    ranks: dict[str, list[int | None]] = {"fused": [], "rawEvidence": [], "dense": [], "exact": [], "bm25s": []}
    for case in cases:
        gold = where[case["id"]]
        q = case["question"]
        ranks["fused"].append(rank(mem.retrieve(q, k=10)["doc_id"].to_list(), gold))
        for channel in ("rawEvidence", "dense", "exact"):
            ranks[channel].append(rank(mem.retrieve(q, k=10, channels=[channel])["doc_id"].to_list(), gold))
        docs, scores = retriever.retrieve(bm25s.tokenize([q], stopwords=stop, show_progress=False), k=10,
                                          show_progress=False)
        # bm25s fills k with zero-score documents; only a document matching a query term is retrieved.
        ranks["bm25s"].append(rank([refs[int(i)] for i, s in zip(docs[0], scores[0]) if s > 0], gold))
    mem.close()
    out = {name: _metrics(r) for name, r in ranks.items()}
    print(f"quality {lang.upper()} ({len(cases)} questions over {len(messages)} messages, dense {stats['model']}):")
    for name, (r10, mrr) in out.items():
        print(f"  {name:<12} Recall@10 {r10:.3f}  MRR@10 {mrr:.3f}")
    best = max(("rawEvidence", "dense", "exact"), key=lambda n: out[n])
    beats = out["fused"][0] > out["bm25s"][0] and out["fused"][1] > out["bm25s"][1]
    holds = out["fused"][0] >= out[best][0] and out["fused"][1] >= out[best][1]
    ratio = lambda a, b: f"{a / b:.2f}x" if b else "inf (bm25s found none)"  # noqa: E731
    print(f"  fused vs plain bm25s: Recall@10 {ratio(out['fused'][0], out['bm25s'][0])}, "
          f"MRR {ratio(out['fused'][1], out['bm25s'][1])} -> {'beats' if beats else 'DOES NOT beat'} plain BM25")
    print(f"  fused vs best single channel ({best}): {'not below' if holds else 'BELOW'} it on both metrics "
          f"(Recall@10 {out['fused'][0] - out[best][0]:+.4f}, MRR {out['fused'][1] - out[best][1]:+.4f})")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", type=int, default=10_000)
    ap.add_argument("--lines", type=int, default=100_000)
    ap.add_argument("--observations", type=int, default=1_000)
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--provider", default="local-fast",
                    help="embedding provider of the scale section; off times the lexical channels alone; e5-query "
                         "times e5's query embedding and search over hashed 384-d passage vectors")
    ap.add_argument("--cost-queries", type=int, default=100,
                    help="with --provider e5-query: new queries of the query-cost section (cold, repeated, lexical)")
    ap.add_argument("--quality-provider", default="local", help="embedding provider of the quality section")
    ap.add_argument("--skip-scale", action="store_true")
    ap.add_argument("--skip-quality", action="store_true")
    args = ap.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    work = Path(tempfile.mkdtemp(prefix="riko-bench-recall-"))
    try:
        if not args.skip_quality:
            for lang in ("en", "zh"):
                quality(args, work, lang)
        if not args.skip_scale:
            scale(args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
