"""Dense layer benchmark: embedding speed, hnswlib vs exact agreement, storage, freshness.

Freshness: a scope is built whole with ``mem.index()``, then 1 % new evidence is ingested and
the same provider refreshes it; both are timed in the same run and the ratio is printed (the
target is <= 5 %). The scale run uses ``--provider`` (``local-fast`` by default, or
``deterministic``); a small run does the same with e5. It also shows recall's trace before and
after the refresh, and the cost of one ``capture()`` that refreshes the generation.

Run: ``python benchmarks/dense.py [--sentences 3000] [--e5-sentences 64] [--scale 30000]
[--e5-docs 400] [--executor ray]`` (a few minutes on 2 cores). Sentences are generated, so the
figures are comparable between runs and machines. ``--executor ray`` instead times an e5 build
on one local single-threaded worker beside the same build with its batches on a local
two-worker Ray cluster.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import orjson

import riko
from riko.clock import FixedClock
from riko.dense import DenseDoc, DenseIndex, E5Provider, USEProvider

SUBJECTS = ["my sister", "the old fisherman", "our neighbour", "a young engineer", "the teacher",
            "my grandfather", "the baker", "a tired nurse", "the mayor", "my best friend", "the pilot",
            "a street musician", "我的同事", "那位老师"]
VERBS = ["repaired", "painted", "sold", "borrowed", "photographed", "cooked", "forgot", "discovered",
         "cleaned", "bought", "lost", "described"]
OBJECTS = ["a red bicycle", "the wooden boat", "a bowl of noodles", "an antique clock", "the garden fence",
           "a broken laptop", "a jar of honey", "the kitchen window", "a pair of hiking boots",
           "an oil painting", "the family car", "a stack of letters"]
PLACES = ["near the harbour", "in the mountains", "at the night market", "behind the library",
          "in a small village", "at the train station", "on the rooftop", "beside the river"]
TIMES = ["last winter", "early this morning", "during the storm", "after the wedding", "on a rainy Sunday",
         "before the exam", "in the summer of 2019", "late at night"]
REASONS = ["because it was cheap", "to surprise the kids", "for the festival", "without telling anyone",
           "as a birthday gift", "after a long argument"]


def sentences(n: int, seed: int = 11) -> list[str]:
    """``n`` distinct generated sentences (seeded, so every run embeds the same text)."""
    rng = random.Random(seed)
    out: dict[str, None] = {}
    while len(out) < n:
        words = [rng.choice(SUBJECTS).capitalize(), rng.choice(VERBS), rng.choice(OBJECTS),
                 rng.choice(PLACES), rng.choice(TIMES), rng.choice(REASONS)]
        out[" ".join(words) + "."] = None
    return list(out)


class CountingUSE(USEProvider):
    """USE that counts the texts it embeds, to show what an incremental build really paid."""

    def __init__(self) -> None:
        super().__init__(threads=2)
        self.texts = 0

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        self.texts += len(texts)
        return super().embed_passages(texts)


def passages_per_second(provider: E5Provider | USEProvider, texts: list[str]) -> float:
    provider.embed_passages(texts[:4])  # load the model outside the timed region
    started = time.perf_counter()
    for start in range(0, len(texts), 32):
        provider.embed_passages(texts[start : start + 32])
    return len(texts) / (time.perf_counter() - started)


def agreement(a: DenseIndex, b: DenseIndex, queries: np.ndarray, k: int = 10) -> float:
    overlap = [len({d for d, _ in a.search(q, k)} & {d for d, _ in b.search(q, k)}) / k for q in queries]
    return float(np.mean(overlap))


def ray_row(texts: list[str], batch_size: int = 32) -> None:
    """e5 over ``texts``: one local single-threaded worker vs the batches as tasks on two Ray workers."""
    import ray

    from riko.executor import ParallelPassages, RayExecutor

    docs = [DenseDoc(f"r{i}", t, "evidence") for i, t in enumerate(texts)]
    local = E5Provider(num_threads=1)
    local.embed_passages(texts[:4])
    started = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    executor = RayExecutor()
    boot = time.perf_counter() - started
    parallel = ParallelPassages(local, {"name": "local"}, executor)
    try:
        started = time.perf_counter()
        list(parallel.embed_passage_batches([texts[:2]] * (4 * executor.workers)))  # each worker loads e5
        warm = time.perf_counter() - started
        with tempfile.TemporaryDirectory() as tmp:
            one = DenseIndex(Path(tmp) / "one", local, batch_size=batch_size)
            built_one = one.build(docs, "rev-1")
            two = DenseIndex(Path(tmp) / "ray", parallel, batch_size=batch_size)
            built_two = two.build(docs, "rev-1")
            queries = local.embed_passages(texts[:50])
            agree = agreement(one, two, queries)
        print(f"ray: cluster start {boot:.1f}s, e5 load on the workers {warm:.1f}s")
        print(f"e5 build {len(docs)} passages: local 1 worker {len(docs) / built_one['seconds']:6.1f} passages/s, "
              f"ray {executor.workers} workers {len(docs) / built_two['seconds']:6.1f} passages/s, ratio "
              f"{built_one['seconds'] / built_two['seconds']:.2f}x; top-10 agreement {agree:.4f}")
    finally:
        executor.close()
        ray.shutdown()


def write_log(path: Path, session: str, texts: list[str]) -> None:
    """One riko L0 session log of user turns."""
    path.write_bytes(b"".join(
        orjson.dumps({"schemaVersion": 1, "sessionId": session, "seq": seq, "time": "2026-01-10T09:00:00Z",
                      "type": "user/message", "data": {"message": {"role": "user", "content": text}}}) + b"\n"
        for seq, text in enumerate(texts)
    ))


def freshness(provider: str, n: int, texts: list[str]) -> dict[str, Any]:
    """Full ``mem.index()`` of ``n`` turns vs the refresh after 1 % more, same provider, same run."""
    extra = max(1, n // 100)
    with tempfile.TemporaryDirectory() as tmp:
        root, logs = Path(tmp), Path(tmp) / "logs"
        logs.mkdir()
        write_log(logs / "s1.jsonl", "s1", texts[:n])
        write_log(logs / "s2.jsonl", "s2", texts[n : n + extra])
        cfg = {"embedding_provider": provider, "recall_enabled": True, "recall_vector_enabled": False}  # refresh by hand first
        clock = FixedClock("2026-01-15T09:00:00Z")
        with riko.open(root / "mem", preset="bench", clock=clock, config=cfg) as mem:
            mem.ingest([str(logs / "s1.jsonl")], preset="bench", progress=False)
            started = time.perf_counter()
            full = mem.index(progress=False)
            full_s = time.perf_counter() - started
            mem.ingest([str(logs / "s2.jsonl")], preset="bench", progress=False)
        with riko.open(root / "mem", preset="bench", clock=clock, config={**cfg, "recall_vector_enabled": True}) as mem:
            query = f"do you remember when {texts[n].lower().rstrip('.')}?"
            stale = mem.recall(query).trace["degradedModes"]
            started = time.perf_counter()
            refresh = mem.index(progress=False)
            refresh_s = time.perf_counter() - started
            fresh = mem.recall(query).trace["degradedModes"]
            captures = []
            for i in range(5):
                started = time.perf_counter()
                mem.capture({"session_id": "s3", "type": "user/message",
                             "data": {"message": {"role": "user", "content": texts[n + extra + i]}}})
                captures.append(time.perf_counter() - started)
    return {"provider": provider, "docs": full["total"], "full_s": full_s, "refresh_s": refresh_s,
            "ratio": refresh_s / full_s, "embedded": refresh["embedded"], "mode": refresh["mode"],
            "search_mode": full["search_mode"], "stale": stale, "fresh": fresh,
            "capture_ms": 1000 * float(np.median(captures))}


def print_freshness(row: dict[str, Any]) -> None:
    print(f"freshness [{row['provider']}, {row['docs']} docs, {row['search_mode']}]: full mem.index() "
          f"{row['full_s']:.2f} s; refresh after 1 % new turns {row['refresh_s']:.2f} s "
          f"({row['ratio']:.1%} of the full build; target 5 %), embedded {row['embedded']}, mode {row['mode']}")
    print(f"  recall trace before the refresh {row['stale']}, after {row['fresh']}; "
          f"capture() + refresh after the write: median {row['capture_ms']:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sentences", type=int, default=3000)
    parser.add_argument("--e5-sentences", type=int, default=64)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--executor", choices=["local", "ray"], default="local",
                        help="ray: add the e5 build on one local worker vs two Ray workers")
    parser.add_argument("--ray-sentences", type=int, default=512, help="passages of the Ray row")
    parser.add_argument("--scale", type=int, default=30000, help="turns of the freshness scale run (0 skips it)")
    parser.add_argument("--provider", default="local-fast", choices=["local-fast", "deterministic"])
    parser.add_argument("--e5-docs", type=int, default=400, help="turns of the e5 freshness run (0 skips it)")
    args = parser.parse_args()
    if args.executor == "ray":
        ray_row(sentences(args.ray_sentences, seed=13))
        return

    texts = sentences(args.sentences + args.queries)
    corpus, query_texts = texts[: args.sentences], texts[args.sentences :]

    print(f"local (e5-small)     : {passages_per_second(E5Provider(), corpus[: args.e5_sentences]):8.1f} passages/s")
    print(f"local-fast (USE)     : {passages_per_second(USEProvider(threads=2), corpus[:1000]):8.1f} passages/s")

    provider = CountingUSE()
    docs = [DenseDoc(f"s{i}", t, "evidence") for i, t in enumerate(corpus)]
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp) / "dense"
        index = DenseIndex(directory, provider, batch_size=64, exact_threshold=1)
        index.build(docs, "rev-1")
        exact = DenseIndex(directory, provider, exact_threshold=10**9)
        queries = provider.embed_passages(query_texts)
        print(f"hnswlib top-10 agreement vs exact ({len(docs)} vectors, {len(queries)} queries): "
              f"{agreement(index, exact, queries):.4f}")

        stored = sum(p.stat().st_size for p in index.files() if "generations" in p.parts)
        as_float32 = len(docs) * provider.dimension * 4
        print(f"stored bytes         : {stored:,} vs float32 {as_float32:,} ({stored / as_float32:.1%})")

        rng = random.Random(5)
        changed = list(docs)
        for i in rng.sample(range(len(changed)), max(1, len(changed) // 100)):
            changed[i] = DenseDoc(changed[i].doc_id, changed[i].text.replace(".", ", and then left."), "evidence")
        provider.texts = 0
        delta = index.build(changed, "rev-2")
        print(f"index delta (1 % changed texts, hnswlib): embedded {provider.texts} texts, reused {delta['reused']}, "
              f"mode {delta['mode']}; the refreshed graph agrees with exact search on "
              f"{agreement(index, DenseIndex(directory, provider, exact_threshold=10**9), queries):.4f}")

    if args.scale:
        print_freshness(freshness(args.provider, args.scale, sentences(args.scale + args.scale // 100 + 10, seed=17)))
    if args.e5_docs:
        print_freshness(freshness("local", args.e5_docs, sentences(args.e5_docs + args.e5_docs // 100 + 10, seed=19)))


if __name__ == "__main__":
    main()
