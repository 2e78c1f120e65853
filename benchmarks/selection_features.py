"""Candidate features for the heuristic Dream's fact selection, each judged by leave-one-dataset-out.

Run: ``python benchmarks/selection_features.py --scratch /tmp/ds --cache /tmp/facts`` (the same
labelled facts and cache as ``benchmarks/extraction_fit.py``, which writes them the first time).

The shipped score (:mod:`riko.dream.selection`) reads 23 features of a fact, its message and its
session. This script asks whether another cheap signal would carry over to a set it was not
fitted on. Each candidate is added to the 23 columns; for every set held out the weights and the
threshold are fitted on the other three exactly as ``extraction_fit.py`` does, and the held-out
F1 is printed beside the first-person-sentence rule. The candidates:

* ``specificity``: how rare the fact's words are among the lines of its session (mean inverse
  line frequency, scaled to [0, 1]);
* ``recurrence``: the share of the fact's words the speaker also uses in another session of the
  same conversation;
* ``words``: the number of its words outside a short stop list;
* ``turn place`` / ``first turn``: where its line stands among the session's user lines;
* ``hashed words``: its words and word pairs hashed into 512 columns (a lexical model; a
  stronger L2 penalty), once for the whole fact and once for its first four words.
* ``sentence vector`` (``--vectors e5,use``): the fact's embedded sentence vector (``local``:
  multilingual-e5-small, 384 columns; ``local-fast``: USE, 512), whole under a strong L2 penalty
  or as its top principal components (fitted on the three training sets only). Embedding every
  fact takes about half an hour for e5 on one core, so the vectors are cached beside the facts
  (``<cache>.<set>.<model>.npy``).

It also prints two references per set: every fact kept, and an *oracle* that keeps exactly the
facts the label calls precise, the best any selection of these facts could do. The oracle shows
whether a gap to the target is one of choosing (selection) or of finding (the extractor).
"""

from __future__ import annotations

import argparse
import math
import re
import sys
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

import extraction_fit as ef  # noqa: E402

_TOKEN = re.compile(r"[a-z][a-z'’]+|\d+|[\u3400-\u9fff]")
_STOP = frozenset("the a an and or but to of in on at for with is are was were be been i my me we our you your it "
                  "this that these those so just really very have has had do did not no".split())
HASH_COLUMNS = 512


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.casefold())


def _own_words(text: str) -> set[str]:
    return {w for w in _tokens(text) if w not in _STOP}


def session_columns(f: ef.Facts) -> np.ndarray:
    """specificity, recurrence and words for every fact of ``f``."""
    sessions = list(f.ext.sessions())
    by_conversation: dict[str, list[set[str]]] = {}
    for conv, transcript, _ in sessions:
        words: set[str] = set()
        for line in transcript.lines:
            if line.role == "user":
                words |= set(_tokens(line.text))
        by_conversation.setdefault(conv, []).append(words)
    frequency: dict[int, tuple[int, dict[str, int]]] = {}
    out = np.zeros((len(f.y), 3))
    for i, text in enumerate(f.text):
        s = f.session[i]
        conv, transcript, _ = sessions[s]
        if s not in frequency:
            counts: dict[str, int] = {}
            for line in transcript.lines:
                for w in set(_tokens(line.text)):
                    counts[w] = counts.get(w, 0) + 1
            frequency[s] = (len(transcript.lines), counts)
        n, counts = frequency[s]
        words = _own_words(text)
        if words:
            out[i, 0] = float(np.mean([math.log((n + 1) / (counts.get(w, 0) + 0.5)) / math.log(n + 2) for w in words]))
            others = by_conversation[conv]
            if len(others) > 1:
                out[i, 1] = sum(1 for w in words if sum(w in o for o in others) >= 2) / len(words)
        out[i, 2] = min(1.0, math.log1p(len(words)) / math.log(31))
    return out


def turn_columns(f: ef.Facts) -> np.ndarray:
    """turn place (0 first … 1 last user line) and first turn (0/1) for every fact of ``f``."""
    place: dict[tuple[int, str], tuple[int, int]] = {}
    for s, (_, transcript, label) in enumerate(f.ext.sessions()):
        users = [line for line in transcript.lines if line.role == "user"]
        for k, line in enumerate(users):
            place[(s, label[line.seq])] = (k, len(users))
    out = np.zeros((len(f.y), 2))
    for i, cited in enumerate(f.cited):
        if cited is not None:
            k, n = place.get((f.session[i], sorted(cited.turns)[0]), (0, 1))
            out[i] = (k / (n - 1) if n > 1 else 0.0, float(k == 0))
    return out


def hashed_columns(f: ef.Facts, lead: int | None) -> np.ndarray:
    """The fact's words and word pairs (its first ``lead`` words when given), hashed."""
    out = np.zeros((len(f.y), HASH_COLUMNS))
    for i, text in enumerate(f.text):
        words = _tokens(text)[:lead] if lead else _tokens(text)
        for gram in set(words) | {f"{a} {b}" for a, b in zip(words, words[1:])}:
            out[i, zlib.crc32(gram.encode()) % HASH_COLUMNS] = 1.0
    return out


def sentence_vectors(f: ef.Facts, model: str, cache: str | None) -> np.ndarray:
    """The embedded sentence vector of every fact of ``f`` (``e5`` or ``use``), cached as ``.npy``."""
    path = Path(f"{cache}.{f.name}.{model}.npy") if cache else None
    if path is not None and path.is_file():
        return np.load(path).astype(np.float64)
    from riko.dense.providers import E5Provider, USEProvider

    provider = E5Provider(num_threads=1) if model == "e5" else USEProvider(threads=1)
    rows = [provider.embed_passages(f.text[i:i + 64]) for i in range(0, len(f.text), 64)]
    vectors = np.vstack(rows) if rows else np.zeros((0, provider.dimension))
    if path is not None:
        np.save(path, vectors.astype(np.float32))
    return vectors.astype(np.float64)


def components(vectors: dict[str, np.ndarray], train: list[str], k: int) -> dict[str, np.ndarray]:
    """Every set's vectors projected on the top ``k`` whitened principal components of ``train``
    (each training set weighing the same), so the held-out set shapes nothing."""
    mean = np.mean([vectors[n].mean(0) for n in train], axis=0)
    cov = sum(np.cov((vectors[n] - mean).T, bias=True) for n in train) / len(train)
    values, axes = np.linalg.eigh(cov)
    top = axes[:, ::-1][:, :k] / np.sqrt(np.maximum(values[::-1][:k], 1e-12))
    return {n: (v - mean) @ top for n, v in vectors.items()}


def held_out(sets: list[ef.Facts], matrices: dict[str, np.ndarray] | None, l2: float = ef.L2,
             vectors: dict[str, np.ndarray] | None = None, k: int = 0) -> list[tuple[float, ...]]:
    """Per set held out: threshold, R, P, F1 and gain over the first-person rule, fitted on the
    others: on ``matrices``, or with ``vectors`` and ``k`` on the shipped features beside the
    vectors' top components on the training sets (computed per fold)."""
    rows = []
    for held in sets:
        train = [f for f in sets if f is not held]
        fold = matrices
        if vectors is not None and k:
            projected = components(vectors, [f.name for f in train], k)
            fold = {f.name: np.hstack([f.x, projected[f.name]]) for f in sets}
        if fold is None:
            raise ValueError("held_out needs matrices, or vectors with k")
        weights, bias = ef.fit(train, matrices=fold, l2=l2)
        probs = {f.name: 1.0 / (1.0 + np.exp(-np.clip(fold[f.name] @ weights + bias, -40, 40))) for f in sets}
        threshold, _ = ef.choose_threshold(train, probs)
        r, p, f1 = held.at(probs[held.name], threshold)
        rows.append((threshold, r, p, f1, f1 - held.first_person()))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", default=str(REPO.parent / "shared" / "datasets"))
    parser.add_argument("--scratch", default="/tmp/riko-datasets")
    parser.add_argument("--cache", default=None, help="prefix of extraction_fit.py's per-set pickles")
    parser.add_argument("--datasets", default=",".join(ef.DATASETS))
    parser.add_argument("--vectors", default="", help="comma-separated sentence vectors to try: e5, use")
    args = parser.parse_args()
    models = [m for m in args.vectors.split(",") if m]
    if any(m not in ("e5", "use") for m in models):
        parser.error(f"--vectors takes e5 and/or use, got {args.vectors!r}")
    sets = ef.load_sets(args)
    for f in sets:
        y = np.nan_to_num(f.y, nan=0.0)
        every, oracle, fp = f.at(np.ones(len(y)), 0.0), f.at(y, 0.5), f.baseline("first-person")
        print(f"{f.name}: {len(y)} facts, {np.nanmean(f.y):.3f} precise; every fact {every[2]:.3f}, "
              f"oracle {oracle[0]:.3f} / {oracle[1]:.3f} / {oracle[2]:.3f}, first-person {fp.f1:.3f} "
              f"(target {fp.f1 + 0.08:.3f})", flush=True)
    session = {f.name: session_columns(f) for f in sets}
    turn = {f.name: turn_columns(f) for f in sets}
    candidates: dict[str, tuple[Callable[[ef.Facts], np.ndarray], float]] = {
        "23 features (shipped)": (lambda f: f.x, ef.L2),
        "+ specificity": (lambda f: np.hstack([f.x, session[f.name][:, :1]]), ef.L2),
        "+ recurrence": (lambda f: np.hstack([f.x, session[f.name][:, 1:2]]), ef.L2),
        "+ words": (lambda f: np.hstack([f.x, session[f.name][:, 2:]]), ef.L2),
        "+ the three above": (lambda f: np.hstack([f.x, session[f.name]]), ef.L2),
        "+ turn place": (lambda f: np.hstack([f.x, turn[f.name][:, :1]]), ef.L2),
        "+ first turn": (lambda f: np.hstack([f.x, turn[f.name][:, 1:]]), ef.L2),
        "+ hashed words (L2 10)": (lambda f: np.hstack([f.x, hashed_columns(f, None)]), 10.0),
        "+ hashed first four words (L2 10)": (lambda f: np.hstack([f.x, hashed_columns(f, 4)]), 10.0),
    }
    names = [f.name for f in sets]
    print("| candidate | " + " | ".join(f"{n} held out: t / R / P / F1 / gain" for n in names) + " | worst | mean |")
    print("| --- |" + " --- |" * (len(names) + 2))
    for label, (columns, l2) in candidates.items():
        _print_row(label, held_out(sets, {f.name: columns(f) for f in sets}, l2))
    for model in models:
        vectors = {f.name: sentence_vectors(f, model, args.cache) for f in sets}
        for l2 in (1.0, 100.0):
            _print_row(f"+ {model} vector (L2 {l2:g})",
                       held_out(sets, {f.name: np.hstack([f.x, vectors[f.name]]) for f in sets}, l2))
        _print_row(f"+ {model} top 16 components", held_out(sets, None, ef.L2, vectors, 16))


def _print_row(label: str, rows: list[tuple[float, ...]]) -> None:
    """One candidate's line of the table: every held-out set's cell, then the worst and mean gain."""
    cells = [f"{t:.2f} / {r:.3f} / {p:.3f} / {f1:.3f} / {g:+.3f}" for t, r, p, f1, g in rows]
    gains = [row[-1] for row in rows]
    print(f"| {label} | " + " | ".join(cells) + f" | {min(gains):+.3f} | {np.mean(gains):+.3f} |", flush=True)


if __name__ == "__main__":
    main()
