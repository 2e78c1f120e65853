"""Labelled classifier sets: sensitivity lines and conflict pairs, scored per class.

``sensitivity.jsonl`` holds one line per claim::

    {"id": "sens-en-001", "lang": "en", "label": "sensitive" | "identifier" | "normal", "text": "…"}

``identifier`` is an identifier-shaped claim with no sensitive cue; the classifier must give it
at least ``provisional_sensitive``. ``conflicts.jsonl`` holds one pair per line::

    {"id": "conf-en-001", "lang": "en", "kind": "contradiction" | "addition" | "paraphrase" | "temporal",
     "old": {"title": "…", "claim": "…"}, "new": {"title": "…", "claim": "…"}}

and the detector must call exactly the ``contradiction`` pairs contradictions. ``cues.holdout``
(and ``cues.holdout2``, written after the token patterns) holds natural requests per cue family, labelled ``true`` (a request of that family) or
``false`` (a near miss: a negation, a question, another act)::

    {"id": "cue-ho-forget-001", "family": "forget", "lang": "en", "label": true, "text": "…"}

scored against what riko decides on them (the tools' governance cues, the planner's explicit
recall, the sensitivity classifier). Every set runs offline in a second and reports
precision and recall, never just a pass count.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import InvalidArgumentError, RikoError

__all__ = [
    "LABELLED_SETS",
    "TARGETS",
    "ClassScore",
    "LabelledReport",
    "labelled_file",
    "run_labelled",
    "score_conflicts",
    "score_cues",
    "score_sensitivity",
]

LABELLED_SETS = ("sensitivity", "conflicts", "sensitivity.holdout", "conflicts.holdout", "cues.holdout",
                 "cues.holdout2")
CUE_FAMILIES = ("remember", "forget", "suppress", "restore", "explicit_recall", "protected")
SENSITIVITY_LABELS = ("normal", "identifier", "sensitive")
CONFLICT_KINDS = ("contradiction", "addition", "paraphrase", "temporal")
_LEVEL_CLASS = {"normal": "normal", "provisional_sensitive": "identifier", "sensitive": "sensitive"}
#: (class, measure, floor) every packaged set of a kind must reach: ``riko eval cases NAME --gate``.
TARGETS = {
    "sensitivity": (("sensitive", "recall", 0.95), ("identifier", "recall", 0.95), ("protected", "recall", 0.95),
                    ("sensitive", "precision", 0.85), ("identifier", "precision", 0.85),
                    ("protected", "precision", 0.85)),
    "conflicts": (("contradiction", "precision", 0.9), ("contradiction", "recall", 0.8)),
    "cues": tuple((family, measure, 0.9) for family in CUE_FAMILIES for measure in ("precision", "recall")),
}


class LabelledSetError(RikoError):
    """A labelled line that cannot be read: names the file, the line and the field."""


@dataclass(frozen=True)
class ClassScore:
    """Precision and recall of one class (``None`` when nothing was predicted or labelled)."""

    label: str
    support: int
    predicted: int
    correct: int

    @property
    def precision(self) -> float | None:
        return self.correct / self.predicted if self.predicted else None

    @property
    def recall(self) -> float | None:
        return self.correct / self.support if self.support else None

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "support": self.support, "predicted": self.predicted,
                "correct": self.correct, "precision": self.precision, "recall": self.recall}


def below_floors(scores: Mapping[str, ClassScore], floors: Iterable[tuple[str, str, float]]) -> list[str]:
    """Each ``(label, measure, floor)`` a score misses (or cannot tell), e.g. ``kind recall 0.412 < 0.45``."""
    out = []
    for label, measure, floor in floors:
        value = getattr(scores[label], measure)
        if value is None or value < floor:
            out.append(f"{label} {measure} {'-' if value is None else f'{value:.3f}'} < {floor}")
    return out


@dataclass
class LabelledReport:
    """Per-class scores of one labelled set, the errors by id, and a per-language breakdown."""

    name: str
    total: int
    classes: dict[str, ClassScore]
    errors: list[dict[str, str]] = field(default_factory=list)
    by_lang: dict[str, dict[str, ClassScore]] = field(default_factory=dict)

    def shortfalls(self) -> list[str]:
        """The targets this report misses, e.g. ``identifier recall 0.930 < 0.95``."""
        kind = ("sensitivity" if "sensitive" in self.classes else "cues" if "forget" in self.classes
                else "conflicts")
        return below_floors(self.classes, TARGETS[kind])

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "total": self.total, "shortfalls": self.shortfalls(),
                "classes": {k: v.to_dict() for k, v in self.classes.items()},
                "by_lang": {lang: {k: v.to_dict() for k, v in scores.items()} for lang, scores in self.by_lang.items()},
                "errors": list(self.errors)}

    def text(self) -> str:
        def fmt(x: float | None) -> str:
            return "-" if x is None else f"{x:.3f}"
        lines = [f"{self.name}: {self.total} labelled lines"]
        for score in self.classes.values():
            lines.append(f"  {score.label:<14} precision {fmt(score.precision)}  recall {fmt(score.recall)}"
                         f"  (support {score.support}, predicted {score.predicted})")
        for lang, scores in self.by_lang.items():
            lines.append(f"  [{lang}] " + ", ".join(f"{s.label} P {fmt(s.precision)} R {fmt(s.recall)}"
                                                   for s in scores.values()))
        lines += [f"  MISS {e['id']}: labelled {e['label']}, got {e['got']}" for e in self.errors]
        lines += [f"  BELOW TARGET: {s}" for s in self.shortfalls()]
        return "\n".join(lines)


def labelled_file(name: str) -> Path:
    """The packaged file of a labelled set: ``sensitivity``, ``conflicts`` or their ``.holdout`` sets."""
    if name not in LABELLED_SETS:
        raise InvalidArgumentError(f"labelled set must be one of {', '.join(LABELLED_SETS)}, got {name!r}")
    return Path(str(resources.files("riko"))) / "data" / "cases" / f"{name}.jsonl"


def _read(path: Path, required: dict[str, tuple[Any, ...] | None]) -> list[dict[str, Any]]:
    rows, seen = [], set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        where = f"{path.name}:{number}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise LabelledSetError(f"{where}: not valid JSON ({exc.msg})") from None
        if not isinstance(row, dict):
            raise LabelledSetError(f"{where}: expected a JSON object")
        for key, allowed in required.items():
            if key not in row:
                raise LabelledSetError(f"{where}: missing field {key!r}")
            if allowed is not None and row[key] not in allowed:
                raise LabelledSetError(f"{where}: field {key!r} must be one of {', '.join(allowed)}, got {row[key]!r}")
        if row["id"] in seen:
            raise LabelledSetError(f"{where}: duplicate id {row['id']!r}")
        seen.add(row["id"])
        rows.append(row)
    return rows


def _scores(pairs: list[tuple[str, str]], labels: tuple[str, ...]) -> dict[str, ClassScore]:
    support = Counter(gold for gold, _ in pairs)
    predicted = Counter(got for _, got in pairs)
    correct = Counter(gold for gold, got in pairs if gold == got)
    return {label: ClassScore(label, support[label], predicted[label], correct[label]) for label in labels}


def _report(name: str, rows: list[dict[str, Any]], gold_key: str, got: list[str],
            labels: tuple[str, ...]) -> LabelledReport:
    pairs = [(row[gold_key], g) for row, g in zip(rows, got)]
    by_lang = {lang: _scores([p for row, p in zip(rows, pairs) if row["lang"] == lang], labels)
               for lang in sorted({row["lang"] for row in rows})}
    errors = [{"id": row["id"], "label": gold, "got": g} for row, (gold, g) in zip(rows, pairs) if gold != g]
    return LabelledReport(name, len(rows), _scores(pairs, labels), errors, by_lang)


def score_sensitivity(path: str | os.PathLike[str] | None = None) -> LabelledReport:
    """Score :func:`riko.sensitivity.rules.classify_text` (baseline ``normal``) on a sensitivity set.

    Besides the three classes, ``protected`` scores the binary question that matters most:
    is a sensitive or identifier-shaped line kept from ordinary use at all?
    """
    from ..sensitivity.rules import classify_text

    source = Path(path) if path is not None else labelled_file("sensitivity")
    rows = _read(source, {"id": None, "lang": None, "label": SENSITIVITY_LABELS, "text": None})
    got = [_LEVEL_CLASS[classify_text(str(row["text"]))] for row in rows]
    report = _report(source.name, rows, "label", got, SENSITIVITY_LABELS)
    protected = [(row["label"] != "normal", g != "normal") for row, g in zip(rows, got)]
    report.classes["protected"] = ClassScore("protected", sum(gold for gold, _ in protected),
                                             sum(p for _, p in protected), sum(gold and p for gold, p in protected))
    return report


def score_conflicts(path: str | os.PathLike[str] | None = None) -> LabelledReport:
    """Score :func:`riko.review.conflicts.contradicts` on a pair set: ``contradiction`` against the rest."""
    from ..review.conflicts import contradicts

    source = Path(path) if path is not None else labelled_file("conflicts")
    rows = _read(source, {"id": None, "lang": None, "kind": CONFLICT_KINDS, "old": None, "new": None})
    got = []
    for row in rows:
        old, new = row["old"], row["new"]
        hit = contradicts(str(old.get("title", "")), str(old["claim"]), str(new.get("title", "")), str(new["claim"]))
        got.append("contradiction" if hit else "other")
    gold = [{**row, "gold": "contradiction" if row["kind"] == "contradiction" else "other"} for row in rows]
    report = _report(source.name, gold, "gold", got, ("contradiction", "other"))
    kinds = {row["id"]: row["kind"] for row in rows}
    report.errors = [{**e, "label": kinds[e["id"]]} for e in report.errors]
    return report


def cue_decision(family: str, text: str) -> bool:
    """What riko decides on ``text`` for one cue family (True = it reads as that request)."""
    from ..recall.planner import analyze_recall_query
    from ..sensitivity.rules import classify_text
    from ..tools import CUE_ACTIONS, has_cue

    if family == "explicit_recall":
        return analyze_recall_query(text).explicit_recall
    if family == "protected":
        return classify_text(text) != "normal"
    return family in CUE_ACTIONS and has_cue(family, text)  # a family with no matcher recognises nothing


def score_cues(path: str | os.PathLike[str] | None = None) -> LabelledReport:
    """Score the cue families on a cue set: per family, precision and recall of its requests."""
    source = Path(path) if path is not None else labelled_file("cues.holdout")
    rows = _read(source, {"id": None, "lang": None, "family": CUE_FAMILIES, "label": (True, False), "text": None})
    got = [cue_decision(str(row["family"]), str(row["text"])) for row in rows]

    def scores(chosen: list[tuple[dict[str, Any], bool]]) -> dict[str, ClassScore]:
        out = {}
        for family in CUE_FAMILIES:
            mine = [(bool(r["label"]), g) for r, g in chosen if r["family"] == family]
            out[family] = ClassScore(family, sum(gold for gold, _ in mine), sum(p for _, p in mine),
                                     sum(gold and p for gold, p in mine))
        return out

    pairs = list(zip(rows, got))
    by_lang = {lang: scores([(r, g) for r, g in pairs if r["lang"] == lang]) for lang in sorted({r["lang"] for r in rows})}
    errors = [{"id": r["id"], "label": f"{r['family']}={str(r['label']).lower()}", "got": str(g).lower()}
              for r, g in pairs if bool(r["label"]) != g]
    return LabelledReport(source.name, len(rows), scores(pairs), errors, by_lang)


def run_labelled(name: str) -> LabelledReport:
    """Score a packaged labelled set by name (a ``.holdout`` set was written after the rules, unseen by them)."""
    if name not in LABELLED_SETS:
        raise InvalidArgumentError(f"labelled set must be one of {', '.join(LABELLED_SETS)}, got {name!r}")
    if name.startswith("cues"):
        return score_cues(labelled_file(name))
    score = score_sensitivity if name.startswith("sensitivity") else score_conflicts
    return score(labelled_file(name))
