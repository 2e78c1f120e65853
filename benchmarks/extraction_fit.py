"""Choose the heuristic Dream's fact selection by leave-one-dataset-out.

Run: ``python benchmarks/extraction_fit.py --scratch /tmp/ds --cache /tmp/facts`` (the facts of
the four sets take about ten minutes to label once, each set cached in ``<cache>.<set>.pkl``;
the fit then takes a few minutes).

Every fact :func:`riko.dream.selection.scored_facts` finds in the four public sets (RealMem,
REALTALK, all 3,000 MemDaily conversations, BEAM) is rendered, parsed and grounded on its own as
the heuristic provider does, and labelled with the fact-level rule: *precise* when half its
content words occur in the gold of the turns it cites. BEAM has no gold memories: its gold is
the user turns its questions cite as evidence, scored by the same rule (as MemDaily's). Dream's
heuristic reads every line, a long session (only BEAM's are longer than 40,000 characters) in
windows as the provider reads it, so every turn is in play. Then, for each feature family and
each set held out in turn:

1. fit the logistic weights on the other three sets' facts (numpy Newton steps, an L2 penalty,
   each set weighing the same);
2. choose the threshold on those three: the largest mean F1 gain over the first-person-sentence
   rule among the thresholds that cost no training set more than ``TOLERANCE`` F1 against
   keeping every fact;
3. score the held-out set with that fit and threshold, beside both baselines.

The family with the best worst held-out gain is fitted on all four sets: the constants to ship.
"""

from __future__ import annotations

import argparse
import pickle
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from dream_quality import GOLD, Extraction, extract, grounded_pages  # noqa: E402

from riko.dream import selection  # noqa: E402
from riko.dream.heuristic import HeuristicProvider, render_facts  # noqa: E402
from riko.evaluation.memory_score import Cited, Score, score  # noqa: E402

DATASETS = ("realmem", "realtalk", "memdaily", "beam")
PROVIDER = HeuristicProvider()   #: whose page limit (48 a window) bounds a session's facts
L2 = 1.0
#: the thresholds tried (probabilities)
THRESHOLDS = tuple(round(0.03 * i, 2) for i in range(1, 28))


class Facts:
    """One set's facts: features, labels, grounded citations and the session each came from."""

    def __init__(self, name: str, ext: Extraction) -> None:
        self.name, self.ext = name, ext
        rows: list[tuple[float, ...]] = []
        self.cited: list[Cited | None] = []
        self.session: list[int] = []
        self.key: list[str] = []
        self.text: list[str] = []
        self.limit: list[int] = []
        for number, (conv, transcript, label) in enumerate(ext.sessions()):
            self.limit.append(PROVIDER.page_limit(transcript))
            window_facts = (s for w in transcript.windows(PROVIDER.max_transcript_chars) for s in selection.scored_facts(w))
            for s in window_facts:
                pages = grounded_pages(conv, transcript, label, render_facts([(s.seq, s.fact)]), max_pages=1)
                rows.append(s.features)
                self.cited.append(pages[0] if pages else None)
                self.session.append(number)
                self.key.append(pages[0].text.casefold() if pages else "")
                self.text.append(s.fact.text)
        self.baselines = {n: ext.score(p) for n, p in ext.baselines.items()}
        self.x = np.asarray(rows, dtype=np.float64)
        self.session_ids = np.asarray(self.session)
        labelled = [Cited(c.conversation, c.turns, c.text, {"i": i}) for i, c in enumerate(self.cited) if c]
        self.y = np.full(len(rows), np.nan)
        for row in ext.score(labelled).proposal_rows:
            self.y[row["i"]] = float(row["precise"])

    def kept(self, probability: np.ndarray, threshold: float) -> list[Cited]:
        """The citations proposed with a threshold: per session a repeated fact once, then
        every fact whose probability is at least ``threshold`` (as :func:`riko.dream.selection.choose`),
        at most the provider's page limit a session."""
        out: list[Cited] = []
        seen: set[tuple[int, str]] = set()
        count: dict[int, int] = {}
        for i, s in enumerate(self.session):
            if self.cited[i] is None or (s, self.key[i]) in seen:
                continue
            seen.add((s, self.key[i]))
            if probability[i] >= threshold and count.get(s, 0) < self.limit[s]:
                count[s] = count.get(s, 0) + 1
                out.append(self.cited[i])  # type: ignore[arg-type]
        return out

    def _index(self) -> tuple[np.ndarray, list[tuple[np.ndarray, list[frozenset[str]], int]]]:
        """Built once: which facts count (first of their words in a session, cited, in a
        conversation with gold) and, per gold point, the facts citing its turns with the gold
        words each holds. A fact's precision does not depend on the others, so ``y`` is it."""
        fast = getattr(self, "_fast", None)
        if fast is not None:
            return fast
        from riko.evaluation.memory_score import content_words

        ext = self.ext
        seen: set[tuple[int, str]] = set()
        first = np.zeros(len(self.y), dtype=bool)
        for i, s in enumerate(self.session):
            if self.cited[i] is not None and (s, self.key[i]) not in seen:
                seen.add((s, self.key[i]))
                first[i] = True
        by_turn: dict[tuple[str, str], list[int]] = {}
        for i, c in enumerate(self.cited):
            if c is not None and first[i]:
                for t in c.turns:
                    by_turn.setdefault((c.conversation, t), []).append(i)
        points = []
        words: dict[int, frozenset[str]] = {}
        window = self.window()
        for conv, golds in ext.groups[ext.group].items():
            names = ext.names.get(conv, frozenset())
            for g in golds:
                gw = content_words(g.text, names, cjk=ext.cjk)
                if not gw or not any((conv, t) in window for t in g.turns):
                    continue
                members = sorted({i for t in g.turns for i in by_turn.get((conv, t), ())})
                for i in members:
                    if i not in words:
                        words[i] = content_words(self.cited[i].text, names, cjk=ext.cjk)  # type: ignore[union-attr]
                points.append((np.asarray(members, dtype=np.int64), [words[i] & gw for i in members], len(gw)))
        self._fast = (first, points)
        return self._fast

    def at(self, probability: np.ndarray, threshold: float) -> tuple[float, float, float]:
        """Recall, precision and F1 of the facts kept at ``threshold`` (the rule of
        :func:`riko.evaluation.memory_score.score`, computed from the index)."""
        first, points = self._index()
        keep = first & (probability >= threshold)
        count: dict[int, int] = {}
        for i in np.flatnonzero(keep):  # the provider's page limit per session
            s = self.session[i]
            count[s] = count.get(s, 0) + 1
            if count[s] > self.limit[s]:
                keep[i] = False
        scored = keep & ~np.isnan(self.y)
        precision = float(self.y[scored].sum() / max(1, scored.sum()))
        recalled = 0
        for members, held, total in points:
            union: set[str] = set()
            for i, w in zip(members, held):
                if keep[i]:
                    union |= w
            recalled += len(union) * 2 >= total
        recall = recalled / max(1, len(points))
        f1 = 2 * recall * precision / (recall + precision) if recall + precision else 0.0
        return recall, precision, f1

    def at_exact(self, probability: np.ndarray, threshold: float) -> tuple[float, float, float]:
        """:meth:`at` through :func:`riko.evaluation.memory_score.score` itself (the check of it)."""
        sc = self.ext.score(self.kept(probability, threshold))
        return sc.recall, sc.precision, sc.f1

    def window(self) -> set[tuple[str, str]]:
        """``(conversation, dialogId)`` of every turn Dream reads (every line of every session's
        transcript): gold and baselines are scored on these turns alone."""
        got = getattr(self, "_window", None)
        if got is None:
            got = {(conv, label[line.seq]) for conv, transcript, label in self.ext.sessions() for line in transcript.lines}
            self._window = got
        return got

    def baseline(self, name: str) -> Score:
        """A baseline's score within :meth:`window`."""
        window = self.window()
        groups = {c: [g for g in gs if any((c, t) in window for t in g.turns)]
                  for c, gs in self.ext.groups[self.ext.group].items()}
        props = [p for p in self.ext.baselines[name] if any((p.conversation, t) in window for t in p.turns)]
        return score(props, {c: gs for c, gs in groups.items() if gs}, self.ext.names, self.ext.turns, cjk=self.ext.cjk)

    def first_person(self) -> float:
        got = getattr(self, "_first_person", None)
        if got is None:
            got = self._first_person = self.baseline("first-person").f1
        return float(got)

    def chosen(self, probability: np.ndarray, budget: int) -> list[Cited]:
        """The citations the provider would propose with these probabilities and this budget:
        per session a repeated fact once, then the ``budget`` most probable (as
        :func:`riko.dream.selection.choose`)."""
        by_session: dict[int, list[int]] = {}
        seen: set[tuple[int, str]] = set()
        for i, s in enumerate(self.session):
            if self.cited[i] is None or (s, self.key[i]) in seen:
                continue
            seen.add((s, self.key[i]))
            by_session.setdefault(s, []).append(i)
        out: list[Cited] = []
        for members in by_session.values():
            ranked = sorted(members, key=lambda i: (-probability[i], i))[:budget]
            out += [self.cited[i] for i in sorted(ranked)]  # type: ignore[misc]
        return out


def fit(sets: list[Facts], columns: np.ndarray | None = None, *, matrices: dict[str, np.ndarray] | None = None,
        l2: float = L2) -> tuple[np.ndarray, float]:
    """Logistic weights and bias on the labelled facts of ``sets``, each set weighing the same
    (``columns``: a 0/1 mask of the features used, the others get weight 0; ``matrices``: a
    feature matrix per set name in place of each set's own ``x``)."""
    xs, ys, ws = [], [], []
    for f in sets:
        ok = ~np.isnan(f.y)
        x = f.x if matrices is None else matrices[f.name]
        xs.append(x[ok] * (np.ones(x.shape[1]) if columns is None else columns))
        ys.append(f.y[ok])
        ws.append(np.full(int(ok.sum()), 1.0 / max(1, int(ok.sum()))))
    x = np.hstack([np.vstack(xs), np.ones((sum(len(y) for y in ys), 1))])
    y, w = np.concatenate(ys), np.concatenate(ws) * len(sets) * 1000.0
    beta = np.zeros(x.shape[1])
    penalty = np.full(x.shape[1], l2)
    penalty[-1] = 0.0
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ beta, -40, 40)))
        grad = x.T @ (w * (p - y)) + penalty * beta
        hess = (x * (w * p * (1 - p))[:, None]).T @ x + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hess, grad)
        beta -= step
        if np.abs(step).max() < 1e-8:
            break
    return beta[:-1], float(beta[-1])


def probabilities(f: Facts, weights: np.ndarray, bias: float) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(f.x @ weights + bias, -40, 40)))


#: the thresholds tried (probabilities); 0 keeps every fact
THRESHOLDS = tuple(round(0.01 * i, 2) for i in range(0, 41))
#: a threshold may cost a training set at most this much F1 against keeping every fact
TOLERANCE = 0.005
#: the feature sets tried, each fitted and thresholded per fold
FAMILIES = {
    "threshold, the budget's 20 features": selection.FEATURES[:20],
    "threshold, 23 features (+ content, session facts, to you)": selection.FEATURES,
    # whether the session-level features, a soft limit on long sessions, earn their place
    "threshold, 22 features (no session facts)": tuple(f for f in selection.FEATURES if f != "session_facts"),
    "threshold, 21 features (no session facts, no session asks)":
        tuple(f for f in selection.FEATURES if f not in ("session_facts", "session_asks")),
}


def mask(names: tuple[str, ...]) -> np.ndarray:
    return np.asarray([float(n in names) for n in selection.FEATURES])


def choose_threshold(sets: list[Facts], probs: dict[str, np.ndarray]) -> tuple[float, float]:
    """The threshold with the largest mean F1 gain over the first-person rule on ``sets`` (to
    the third decimal; a tie goes to the lower), among those that cost no set more than
    ``TOLERANCE`` F1 against keeping every fact; and that gain."""
    every = {f.name: f.at(probs[f.name], 0.0)[2] for f in sets}
    best = (-np.inf, 0.0)
    for t in THRESHOLDS:
        f1 = {f.name: f.at(probs[f.name], t)[2] for f in sets}
        if any(f1[n] < every[n] - TOLERANCE for n in f1):
            continue
        gain = round(float(np.mean([f1[f.name] - f.first_person() for f in sets])), 3)
        if gain > best[0]:
            best = (gain, t)
    return best[1], best[0]


def constants(weights: np.ndarray, bias: float, threshold: float) -> str:
    names = "\n".join(f"    {w:+.3f},  # {n}" for n, w in zip(selection.FEATURES, weights))
    return f"WEIGHTS: tuple[float, ...] = (\n{names}\n)\nBIAS = {bias:+.3f}\nTHRESHOLD = {threshold:.2f}"


class _CacheReader(pickle.Unpickler):
    """Reads a cache whoever wrote it: run as a script, this module pickles ``__main__.Facts``."""

    def find_class(self, module: str, name: str) -> type:
        return Facts if name == "Facts" else super().find_class(module, name)


def load_sets(args: argparse.Namespace) -> list[Facts]:
    """Every set's labelled facts, each from ``<--cache>.<set>.pkl`` when it exists (written once)."""
    sets: list[Facts] = []
    for name in args.datasets.split(","):
        cache = Path(f"{args.cache}.{name}.pkl") if args.cache else None
        if cache is not None and cache.is_file():
            with cache.open("rb") as f:
                sets.append(_CacheReader(f).load())
            continue
        started = time.perf_counter()
        folder = extract(Path(args.shared) / f"{name}.tar.zst", Path(args.scratch), GOLD[name])
        facts = Facts(name, Extraction(folder))
        sets.append(facts)
        print(f"{name}: {len(facts.y)} facts, {np.nanmean(facts.y):.3f} precise, "
              f"{time.perf_counter() - started:.0f} s", flush=True)
        if cache is not None:
            with cache.open("wb") as out:
                pickle.dump(facts, out)
    return sets


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", default=str(REPO.parent / "shared" / "datasets"))
    parser.add_argument("--scratch", default="/tmp/riko-datasets")
    parser.add_argument("--cache", default=None, help="prefix of the per-set pickles of labelled facts")
    parser.add_argument("--datasets", default=",".join(DATASETS), help="comma-separated (default all four)")
    args = parser.parse_args()
    sets = load_sets(args)
    rows = ["| held out | family | threshold | training mean gain over first-person | held-out R / P / F1 | "
            "first-person R / P / F1 | held-out gain |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for f in sets:  # the references: every fact, and the budget of 16 the score replaced
        fp = f.baseline("first-person")
        every = f.at(np.ones(len(f.y)), 0.0)
        old = f.at(_budget_mask(f, 16), 0.5)
        print(f"{f.name}: every fact {every[0]:.3f} / {every[1]:.3f} / {every[2]:.3f}; budget 16 (previous constants) "
              f"{old[0]:.3f} / {old[1]:.3f} / {old[2]:.3f}; first-person {fp.recall:.3f} / {fp.precision:.3f} / "
              f"{fp.f1:.3f}; whole turns {f.baseline('whole-turns').f1:.3f}", flush=True)
    worst: dict[str, float] = {}
    for family, names in FAMILIES.items():
        for held in sets:
            train = [f for f in sets if f is not held]
            weights, bias = fit(train, mask(names))
            probs = {f.name: probabilities(f, weights, bias) for f in sets}
            threshold, gain = choose_threshold(train, probs)
            r, p, f1 = held.at(probs[held.name], threshold)
            fp = held.baseline("first-person")
            worst[family] = min(worst.get(family, np.inf), f1 - fp.f1)
            rows.append(f"| {held.name} | {family} | {threshold:.2f} | {gain:+.3f} | {r:.3f} / {p:.3f} / {f1:.3f} | "
                        f"{fp.recall:.3f} / {fp.precision:.3f} / {fp.f1:.3f} | {f1 - fp.f1:+.3f} |")
    print("\n".join(rows))
    chosen = max(worst, key=lambda k: worst[k])
    print("worst held-out gain per family: " + ", ".join(f"{k} {v:+.3f}" for k, v in worst.items()) + f"; chosen: {chosen}")
    weights, bias = fit(sets, mask(FAMILIES[chosen]))
    probs = {f.name: probabilities(f, weights, bias) for f in sets}
    threshold, gain = choose_threshold(sets, probs)
    print("all four: " + ", ".join(f"{f.name} " + " / ".join(f"{v:.3f}" for v in f.at(probs[f.name], threshold))
                                   for f in sets))
    print(constants(weights, bias, threshold))


def _budget_mask(f: Facts, budget: int) -> np.ndarray:
    """1 for the facts the previous selection kept (its 20-feature score, ``budget`` a session), else 0."""
    old = (+0.183, +0.671, -0.823, -0.851, +0.240, +0.188, +0.176, +0.486, +0.263, -0.128, +2.588, -0.738, -0.226,
           -0.302, -0.755, +3.370, +0.348, -5.188, +0.651, -0.224)
    p = probabilities(f, np.asarray(old + (0.0,) * (len(selection.FEATURES) - len(old))), -0.979)
    keep = {id(c) for c in f.chosen(p, budget)}
    return np.asarray([float(c is not None and id(c) in keep) for c in f.cited])


if __name__ == "__main__":
    main()
