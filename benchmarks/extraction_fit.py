"""Choose the heuristic Dream's fact selection by leave-one-dataset-out.

Run: ``python benchmarks/extraction_fit.py --scratch /tmp/ds [--cache facts.pkl] [--verify]``
(about 3 minutes, 5 with ``--verify``).

Every fact :func:`riko.dream.selection.scored_facts` finds in the three public sets (RealMem,
REALTALK, all 3,000 MemDaily conversations) is rendered, parsed and grounded on its own as the
heuristic provider does, and labelled with the fact-level rule: *precise* when half its content
words occur in the gold of the turns it cites. Then, for each set held out in turn:

1. fit the logistic weights of :data:`riko.dream.selection.FEATURES` on the other two sets' facts
   (numpy Newton steps, an L2 penalty, each set weighing the same);
2. choose the per-session budget (``BUDGETS``) on those two sets: the one whose smaller relative
   F1 change over today's selection (the first 48 facts) is largest, to the third decimal, the
   smaller budget on a tie (the sets' F1 differ by a factor four, so the worst *change* is judged);
3. score the held-out set with that fit, its facts chosen as :func:`riko.dream.selection.choose`
   does (per session a repeated fact once, then the most probable ``budget``).

The same fit on all three sets is printed as the constants to ship. ``--verify`` then runs the
real path (``HeuristicProvider.extract`` → parse → ground) on each held-out set with its fold's
constants installed, which must give the figures of step 3.
"""

from __future__ import annotations

import argparse
import pickle
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from dream_quality import GOLD, Extraction, extract, grounded_pages  # noqa: E402

from riko.dream import selection  # noqa: E402
from riko.dream.heuristic import render_facts  # noqa: E402
from riko.evaluation.memory_score import Cited  # noqa: E402

DATASETS = ("realmem", "realtalk", "memdaily")
MAX_PAGES = 48   #: the heuristic provider's page limit: before the budget, its first 48 facts
L2 = 1.0


class Facts:
    """One set's facts: features, labels, grounded citations and the session each came from."""

    def __init__(self, name: str, ext: Extraction) -> None:
        self.name, self.ext = name, ext
        rows: list[tuple[float, ...]] = []
        self.cited: list[Cited | None] = []
        self.session: list[int] = []
        self.key: list[str] = []
        for number, (conv, transcript, label) in enumerate(ext.sessions()):
            for s in selection.scored_facts(transcript):
                pages = grounded_pages(conv, transcript, label, render_facts([(s.seq, s.fact)]))
                rows.append(s.features)
                self.cited.append(pages[0] if pages else None)
                self.session.append(number)
                self.key.append(pages[0].text.casefold() if pages else "")
        self.x = np.asarray(rows, dtype=np.float64)
        self.session_ids = np.asarray(self.session)
        labelled = [Cited(c.conversation, c.turns, c.text, {"i": i}) for i, c in enumerate(self.cited) if c]
        self.y = np.full(len(rows), np.nan)
        for row in ext.score(labelled).proposal_rows:
            self.y[row["i"]] = float(row["precise"])

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

    def figures(self, probability: np.ndarray, budget: int) -> tuple[float, float, float]:
        sc = self.ext.score(self.chosen(probability, budget))
        return sc.recall, sc.precision, sc.f1


def fit(sets: list[Facts]) -> tuple[np.ndarray, float]:
    """Logistic weights and bias on the labelled facts of ``sets``, each set weighing the same."""
    xs, ys, ws = [], [], []
    for f in sets:
        ok = ~np.isnan(f.y)
        xs.append(f.x[ok])
        ys.append(f.y[ok])
        ws.append(np.full(int(ok.sum()), 1.0 / max(1, int(ok.sum()))))
    x = np.hstack([np.vstack(xs), np.ones((sum(len(y) for y in ys), 1))])
    y, w = np.concatenate(ys), np.concatenate(ws) * len(sets) * 1000.0
    beta = np.zeros(x.shape[1])
    penalty = np.full(x.shape[1], L2)
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


BUDGETS = (4, 6, 8, 10, 12, 14, 16, 20, 24, 32, 48)


def choose_budget(sets: list[Facts], weights: np.ndarray, bias: float, base: dict[str, float],
                  ) -> tuple[int, dict[str, tuple[float, float, float]]]:
    """The budget whose smallest relative F1 change on ``sets`` is largest (to the third
    decimal; on a tie the smaller budget), and its figures."""
    best: tuple[float, int, dict[str, Any]] = (-np.inf, 0, {})
    for budget in BUDGETS:
        figs = {f.name: f.figures(probabilities(f, weights, bias), budget) for f in sets}
        worst = round(min(figs[n][2] / base[n] - 1 for n in figs), 3)
        if worst > best[0]:
            best = (worst, budget, figs)
    return best[1], best[2]


def constants(weights: np.ndarray, bias: float, budget: int) -> str:
    names = "\n".join(f"    {w:+.3f},  # {n}" for n, w in zip(selection.FEATURES, weights))
    return f"WEIGHTS: tuple[float, ...] = (\n{names}\n)\nBIAS = {bias:+.3f}\nBUDGET = {budget}"


def verify(ext: Extraction, weights: np.ndarray, bias: float, budget: int) -> tuple[float, float, float]:
    """The held-out figures through the real provider path with these constants installed."""
    saved = selection.WEIGHTS, selection.BIAS, selection.BUDGET
    selection.WEIGHTS = tuple(float(round(w, 3)) for w in weights)
    selection.BIAS, selection.BUDGET = float(round(bias, 3)), budget
    try:
        scores, _ = ext.run()
    finally:
        selection.WEIGHTS, selection.BIAS, selection.BUDGET = saved
    sc = scores[ext.group]["riko"]
    return sc.recall, sc.precision, sc.f1


def load_sets(args: argparse.Namespace) -> list[Facts]:
    """Every set's labelled facts, from ``--cache`` when it exists."""
    if args.cache and Path(args.cache).is_file():
        with open(args.cache, "rb") as f:
            return list(pickle.load(f))
    sets: list[Facts] = []
    for name in DATASETS:
        started = time.perf_counter()
        folder = extract(Path(args.shared) / f"{name}.tar.zst", Path(args.scratch), GOLD[name])
        f = Facts(name, Extraction(folder))
        sets.append(f)
        print(f"{name}: {len(f.y)} facts, {np.nanmean(f.y):.3f} precise, {time.perf_counter() - started:.0f} s",
              flush=True)
    if args.cache:
        with open(args.cache, "wb") as out:
            pickle.dump(sets, out)
    return sets


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", default=str(REPO.parent / "shared" / "datasets"))
    parser.add_argument("--scratch", default="/tmp/riko-datasets")
    parser.add_argument("--verify", action="store_true", help="re-score each held-out set through the provider")
    parser.add_argument("--cache", default=None, help="pickle of the labelled facts (written once, then read)")
    args = parser.parse_args()
    sets = load_sets(args)
    # the selection before the budget: the first 48 facts of a session, in the order said
    base = {f.name: f.figures(np.zeros(len(f.y)), MAX_PAGES)[2] for f in sets}
    print("keeping every fact: " + ", ".join(f"{n} F1 {v:.3f}" for n, v in base.items()))
    rows = ["| held out | budget | training F1 (all facts → chosen) | held-out R / P / F1 | held-out F1, all facts |",
            "| --- | --- | --- | --- | --- |"]
    folds = []
    for held in sets:
        train = [f for f in sets if f is not held]
        weights, bias = fit(train)
        budget, figs = choose_budget(train, weights, bias, base)
        r, p, f1 = held.figures(probabilities(held, weights, bias), budget)
        folds.append((held, weights, bias, budget))
        trained = ", ".join(f"{n} {base[n]:.3f} → {v[2]:.3f}" for n, v in figs.items())
        rows.append(f"| {held.name} | {budget} | {trained} | {r:.3f} / {p:.3f} / {f1:.3f} | {base[held.name]:.3f} |")
        print(f"fold {held.name}:\n{constants(weights, bias, budget)}", flush=True)
    print("\n".join(rows))
    weights, bias = fit(sets)
    budget, figs = choose_budget(sets, weights, bias, base)
    print("all three: " + ", ".join(f"{n} {v[0]:.3f} / {v[1]:.3f} / {v[2]:.3f}" for n, v in figs.items()))
    print(constants(weights, bias, budget))
    if args.verify:
        for held, w, b, t in folds:
            r, p, f1 = verify(held.ext, w, b, t)
            print(f"verified {held.name}: {r:.3f} / {p:.3f} / {f1:.3f}", flush=True)


if __name__ == "__main__":
    main()
