"""The outcome row one Appendix F scenario run leaves for the Appendix G aggregator.

A corpus runner fills one :class:`ScenarioOutcome` per scenario; the metrics read only these
rows, so a row records observations (what was injected, what recall returned, which checks
held), never a verdict computed from them. Rows survive a JSON round trip through
``to_dict``/``from_dict`` so a run can be re-scored from its saved raw results.

Field conventions the metrics rely on:

- ``injected`` is the whole model input the turn received (Resident + recall context);
  ``recall_context`` is only the dynamic part recall added for the turn (the rendered
  ``<MEMORY_DATA>`` block, ``""`` when recall injected nothing), so the utility trial can be
  judged on dynamic recall alone while an always-on Resident stays out of it.
- ``target`` is the one relevant substring a ranking scenario must find in ``recall_results``
  (for F.29 it is the linked destination); ``contains``/``excludes`` are the corpus judgments.
- ``derived_leakage``/``disk_leakage`` are True when a trace was found, False when the scan ran
  and found none, None when no scan was recorded; unknown never reads as clean.
- ``checks`` holds every named boolean check; temporal trials record ``"inclusion"`` and
  ``"exclusion"`` there.
- ``artifacts["answer"]`` holds the final assistant reply when an answer model was configured.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any
from ..errors import InvalidArgumentError

__all__ = [
    "SCHEMA_VERSION",
    "STATUSES",
    "LABELS",
    "INCLUSION_CHECK",
    "EXCLUSION_CHECK",
    "GRAPH_CHANNEL",
    "ANSWER_ARTIFACT",
    "ScenarioOutcome",
]

SCHEMA_VERSION = 1
STATUSES = ("passed", "failed", "unsupported", "error")
LABELS = ("correct injection", "correct silence", "governed use")
INCLUSION_CHECK = "inclusion"
EXCLUSION_CHECK = "exclusion"
GRAPH_CHANNEL = "graph"
ANSWER_ARTIFACT = "answer"

_RESULT_KEYS = ("text", "channels", "doc_id")


@dataclass
class ScenarioOutcome:
    """Observations from one scenario run; see the module docstring for field meanings."""

    id: str
    category: str
    status: str
    label: str
    checks: dict[str, bool]
    injected: str = ""
    resident: str = ""
    recall_context: str = ""
    recall_results: list[dict] = field(default_factory=list)
    target: str | None = None
    contains: tuple[str, ...] = ()
    excludes: tuple[str, ...] = ()
    candidate_judgments: dict[str, bool] = field(default_factory=dict)
    extracted_candidates: list[str] = field(default_factory=list)
    authority_check: bool | None = None
    correction_check: bool | None = None
    derived_leakage: bool | None = None
    disk_leakage: bool | None = None
    unsupported_reason: str | None = None
    error: str | None = None
    artifacts: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        where = f"scenario {self.id!r}"
        if not isinstance(self.id, str) or not self.id:
            raise InvalidArgumentError(f"{where}: id must be a non-empty string such as 'F.01'")
        if self.status not in STATUSES:
            raise InvalidArgumentError(f"{where}: status {self.status!r} is not one of {', '.join(STATUSES)}")
        if self.label not in LABELS:
            raise InvalidArgumentError(f"{where}: label {self.label!r} is not one of {', '.join(LABELS)}")
        if self.status == "unsupported" and not self.unsupported_reason:
            raise InvalidArgumentError(f"{where}: an unsupported row must say why in unsupported_reason")
        if self.status == "error" and not self.error:
            raise InvalidArgumentError(f"{where}: an error row must carry its error text")
        bad_checks = sorted(name for name, value in self.checks.items() if not isinstance(value, bool))
        if bad_checks:
            raise InvalidArgumentError(f"{where}: checks must be booleans; not boolean: {', '.join(bad_checks)}")
        self.contains = tuple(self.contains)
        self.excludes = tuple(self.excludes)
        for position, result in enumerate(self.recall_results, start=1):
            missing = [key for key in _RESULT_KEYS if not isinstance(result, dict) or key not in result]
            if missing:
                raise InvalidArgumentError(f"{where}: recall result {position} lacks {', '.join(missing)}")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (tuples become lists) carrying ``schema_version``."""
        data = asdict(self)
        data["contains"] = list(self.contains)
        data["excludes"] = list(self.excludes)
        return {"schema_version": SCHEMA_VERSION, **data}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ScenarioOutcome:
        """Rebuild a row from :meth:`to_dict` output; unknown keys or versions are rejected."""
        data = dict(d)
        version = data.pop("schema_version", SCHEMA_VERSION)
        if version != SCHEMA_VERSION:
            raise InvalidArgumentError(f"outcome row schema_version {version!r} is not supported (expected {SCHEMA_VERSION})")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise InvalidArgumentError(f"outcome row {data.get('id')!r} has unknown keys: {', '.join(unknown)}")
        data["contains"] = tuple(data.get("contains", ()))
        data["excludes"] = tuple(data.get("excludes", ()))
        return cls(**data)
