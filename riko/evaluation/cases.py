"""Labelled recall cases: a calibration gate and a challenge set, in English and Chinese.

Two files with different jobs (the shape of 004's evaluation):

* ``cases.calibration.jsonl`` — the regression gate. Every case must pass; the test suite
  runs it. A case that starts failing is a regression, not noise.
* ``cases.challenge.jsonl`` — a tracked score of known weaknesses (multi-fact composition,
  temporal ordering, paraphrase, cross-lingual). Kept apart so the gate stays green and
  readable while each weakness keeps a name and a number.

One JSON object per line::

    {"id": "cal-en-01", "lang": "en", "dimension": "preference",
     "pages": [{"title": "Tea", "body": "I prefer oolong tea.", "type": "concept"}],
     "events": [{"session": "s1", "text": "…", "role": "user"}],
     "corrections": [{"title": "Tea", "content": "…"}],
     "replacements": [{"title": "Home", "content": "…", "valid_from": "2026-03-01T00:00:00Z"}],
     "supersessions": [{"title": "Old Wi-Fi", "by": "Home network"}],
     "config": {}, "query": "What tea do I like?", "history": false, "at_time": null,
     "expect": {"contains": ["oolong"], "excludes": [], "silence": false}, "note": "…"}

Each case runs in its own temporary root: the pages are created by management, the events
captured as L0 evidence, corrected, replaced or superseded by title, then ``mem.recall(query)`` runs and its rendered context is judged —
the dynamic recall only, never the always-on Resident.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..clock import FixedClock
from ..errors import InvalidArgumentError

if TYPE_CHECKING:
    import polars

__all__ = ["Case", "CaseResult", "CaseReport", "load_cases", "run_case", "run_cases", "case_file",
           "CASE_CONFIG", "CASE_SETS"]

CASE_SETS = ("calibration", "challenge")
#: Defaults under every case: recall on, user evidence classified at capture, no dense channel.
CASE_CONFIG: dict[str, Any] = {"recall_enabled": True, "evidence_classification_enabled": True,
                               "embedding_provider": "off"}
_KEYS = {"id", "lang", "dimension", "pages", "events", "corrections", "replacements", "supersessions", "config",
         "query", "history", "at_time", "expect", "note"}
_START = "2026-06-01T09:00:00Z"


@dataclass(frozen=True)
class Case:
    """One labelled recall case (see the module docstring for the line format)."""

    id: str
    lang: str
    dimension: str
    query: str
    expect_contains: tuple[str, ...] = ()
    expect_excludes: tuple[str, ...] = ()
    expect_silence: bool = False
    pages: tuple[Mapping[str, Any], ...] = ()
    events: tuple[Mapping[str, Any], ...] = ()
    corrections: tuple[Mapping[str, Any], ...] = ()
    replacements: tuple[Mapping[str, Any], ...] = ()
    supersessions: tuple[Mapping[str, Any], ...] = ()
    config: Mapping[str, Any] = field(default_factory=dict)
    history: bool = False
    at_time: str | None = None
    note: str = ""

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str = "case") -> "Case":
        """Validate one decoded line; errors name the case and the field."""
        unknown = sorted(set(data) - _KEYS)
        if unknown:
            raise InvalidArgumentError(f"{where}: unknown key(s) {', '.join(unknown)}")
        for key in ("id", "lang", "dimension", "query"):
            if not isinstance(data.get(key), str) or not data[key].strip():
                raise InvalidArgumentError(f"{where}: {key!r} must be a non-empty string")
        expect = data.get("expect") or {}
        contains = tuple(expect.get("contains") or ())
        excludes = tuple(expect.get("excludes") or ())
        silence = bool(expect.get("silence", False))
        if not contains and not silence:
            raise InvalidArgumentError(f"{where} ({data['id']}): expect needs 'contains' or 'silence': true")
        if silence and contains:
            raise InvalidArgumentError(f"{data['id']}: a silent case cannot also expect text")
        return cls(
            id=data["id"], lang=data["lang"], dimension=data["dimension"], query=data["query"],
            expect_contains=contains, expect_excludes=excludes, expect_silence=silence,
            pages=tuple(data.get("pages") or ()), events=tuple(data.get("events") or ()),
            corrections=tuple(data.get("corrections") or ()), replacements=tuple(data.get("replacements") or ()),
            supersessions=tuple(data.get("supersessions") or ()),
            config=dict(data.get("config") or {}), history=bool(data.get("history", False)),
            at_time=data.get("at_time"), note=data.get("note", ""),
        )


@dataclass
class CaseResult:
    """What one case returned: pass or fail, and which expectation broke."""

    id: str
    lang: str
    dimension: str
    passed: bool
    missing: list[str]
    leaked: list[str]
    silent: bool
    context: str
    channels: list[str]
    seconds: float
    error: str | None = None
    #: The trace's dense admission decisions (gaps below the best cosine and thresholds).
    dense_admission: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def case_file(name: str) -> Path:
    """The packaged case file of a set: ``calibration`` or ``challenge``."""
    if name not in CASE_SETS:
        raise InvalidArgumentError(f"case set must be one of {', '.join(CASE_SETS)}, got {name!r}")
    return Path(str(resources.files("riko"))) / "data" / "cases" / f"cases.{name}.jsonl"


def load_cases(path: str | os.PathLike[str]) -> list[Case]:
    """Read a case file (JSONL; blank lines and ``#`` lines are skipped); ids must be unique."""
    source = Path(path)
    cases: list[Case] = []
    for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        where = f"{source.name}:{number}"
        try:
            data = json.loads(line)
        except ValueError as exc:
            raise InvalidArgumentError(f"{where}: not JSON ({exc})") from None
        if not isinstance(data, dict):
            raise InvalidArgumentError(f"{where}: each line must be a JSON object")
        cases.append(Case.from_dict(data, where))
    seen: set[str] = set()
    for case in cases:
        if case.id in seen:
            raise InvalidArgumentError(f"{source.name}: duplicate case id {case.id!r}")
        seen.add(case.id)
    return cases


def _setup(mem: Any, case: Case, clock: FixedClock) -> None:
    titles: dict[str, str] = {}
    for page in case.pages:
        clock.advance(minutes=1)
        fields = {k: v for k, v in page.items() if k not in ("title", "body", "type")}
        created = mem.create_page(page["title"], page.get("body", ""), type=page.get("type", "concept"), **fields)
        titles[page["title"]] = created.id
    for event in case.events:
        clock.advance(minutes=1)
        role = event.get("role", "user")
        data: dict[str, Any]
        if role == "user":
            data = {"role": "user", "source": {"kind": "user"}, "content": [{"type": "text", "text": event["text"]}]}
        else:
            data = {"message": {"role": "assistant", "content": [{"type": "text", "text": event["text"]}],
                                "source": {"kind": "model"}}}
        mem.capture({"session_id": event["session"], "type": f"{role}/message", "data": data})
    for change in case.corrections:
        clock.advance(minutes=1)
        mem.correct(titles[change["title"]], change["content"])
    for change in case.replacements:
        clock.advance(minutes=1)
        titles[change["title"]] = mem.replace(titles[change["title"]], change["content"], change["valid_from"]).id
    for change in case.supersessions:
        clock.advance(minutes=1)
        mem.supersede(titles[change["title"]], by=titles[change["by"]])


def run_case(case: Case, *, config: Mapping[str, Any] | None = None) -> CaseResult:
    """Run one case in a fresh temporary root and judge its recall context."""
    import riko

    started = time.perf_counter()
    settings = {**CASE_CONFIG, **case.config, **(config or {})}
    clock = FixedClock(_START)
    with tempfile.TemporaryDirectory(prefix=f"riko-case-{case.id}-") as tmp:
        try:
            with riko.open(tmp, preset="cases", config=settings, clock=clock) as mem:
                _setup(mem, case, clock)
                clock.advance(minutes=1)
                options: dict[str, Any] = {"record_activation": False}  # scoring inspects, it injects nothing
                if settings.get("recall_vector_enabled"):
                    options["build_index"] = True
                result = mem.recall(case.query, at_time=case.at_time, history=case.history, **options)
        except Exception as exc:
            return CaseResult(case.id, case.lang, case.dimension, False, list(case.expect_contains), [], False,
                              "", [], time.perf_counter() - started, f"{type(exc).__name__}: {exc}")
    context = result.context
    missing = [text for text in case.expect_contains if text not in context]
    leaked = [text for text in case.expect_excludes if text in context]
    silent = not context.strip()
    passed = not missing and not leaked and (silent if case.expect_silence else True)
    return CaseResult(case.id, case.lang, case.dimension, passed, missing, leaked, silent, context,
                      list(result.trace.get("planChannels", [])), time.perf_counter() - started,
                      dense_admission=list(result.trace.get("denseAdmission", [])))


@dataclass
class CaseReport:
    """Results of one case file: the score, per-dimension and per-language breakdowns."""

    name: str
    results: list[CaseResult]

    @property
    def passed(self) -> int:
        return sum(r.passed for r in self.results)

    @property
    def total(self) -> int:
        return len(self.results)

    @property
    def score(self) -> float:
        return self.passed / self.total if self.total else 0.0

    def failures(self) -> list[CaseResult]:
        return [r for r in self.results if not r.passed]

    def breakdown(self, key: str) -> dict[str, str]:
        """``passed/total`` per ``dimension`` or ``lang``."""
        groups: dict[str, list[bool]] = {}
        for r in self.results:
            groups.setdefault(getattr(r, key), []).append(r.passed)
        return {name: f"{sum(v)}/{len(v)}" for name, v in sorted(groups.items())}

    def frame(self) -> "polars.DataFrame":
        import polars as pl

        return pl.DataFrame([{k: v for k, v in r.to_dict().items() if k != "context"} for r in self.results])

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "passed": self.passed, "total": self.total, "score": round(self.score, 4),
                "by_dimension": self.breakdown("dimension"), "by_lang": self.breakdown("lang"),
                "results": [r.to_dict() for r in self.results]}

    def __repr__(self) -> str:
        return f"CaseReport({self.name!r}, {self.passed}/{self.total} passed)"


def run_cases(cases: Iterable[Case] | str | os.PathLike[str], *, config: Mapping[str, Any] | None = None,
              name: str | None = None) -> CaseReport:
    """Run a case file (a path, or ``calibration`` / ``challenge``) or a list of cases."""
    label = name
    if isinstance(cases, (str, os.PathLike)):
        path = case_file(str(cases)) if str(cases) in CASE_SETS else Path(cases)
        label = label or path.name
        cases = load_cases(path)
    return CaseReport(label or "cases", [run_case(case, config=config) for case in cases])
