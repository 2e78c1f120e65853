"""Appendix F as the seed states it, read from the seed file at test time and run through riko.

The seed's Appendix F does not list the scenario texts; it states the facts a corpus must
keep: thirty scenarios F.01 to F.30, the four it marks unsupported (with their reasons), the
three that declare ``requiresEvidenceClassification``, the three labels, and, in Appendix G,
which scenarios each metric is computed over. This module parses those facts out of
``shared/seeds/000_*.txt`` beside the checkout (the file must be there: a missing seed fails),
checks riko's corpus against them, and runs every scenario the seed supports with capture
classification switched on exactly where the seed declares it and nowhere else.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import cache
from pathlib import Path

from riko.evaluation.corpus import SCENARIOS, scenario
from riko.evaluation.runner import run_scenario

SEED_GLOB = "000_*.txt"


def _seed_file() -> Path:
    """Seed 000 in a ``shared/seeds`` folder beside the checkout or beside one of its parents."""
    repo = Path(__file__).resolve().parents[2]
    for folder in (repo, *repo.parents):
        found = sorted((folder / "shared" / "seeds").glob(SEED_GLOB))
        if found:
            return found[0]
    raise AssertionError(f"seed 000 not found: no shared/seeds/{SEED_GLOB} beside {repo} or any parent of it")


def _section(text: str, start: str, end: str) -> str:
    begin = text.index(f"\n{start}\n")
    return text[begin:text.index(f"\n{end}\n", begin)]


@cache
def seed_facts() -> dict[str, object]:
    """What Appendices F and G of seed 000 say about the corpus, parsed from the file."""
    text = _seed_file().read_text(encoding="utf-8")
    f = _section(text, "Appendix F: companion corpus", "Appendix G: aggregate metrics")
    g = _section(text, "Appendix G: aggregate metrics", "Commands used to verify")
    span = re.search(r"declares (\w+) scenarios, (F\.\d\d) through (F\.\d\d)", f)
    assert span, "Appendix F no longer says how many scenarios it declares"
    first, last = int(span[2][2:]), int(span[3][2:])
    unsupported = dict(re.findall(r"^(F\.\d\d)\t(.+)$", f, flags=re.M))
    classified = re.search(r"^Scenarios declaring requiresEvidenceClassification\t(\d+): (.+)$", f, flags=re.M)
    assert classified, "Appendix F no longer lists the scenarios declaring requiresEvidenceClassification"
    named = re.search(r"^Scenarios carrying an unsupported reason\t\d+: (.+)$", f, flags=re.M)
    assert named, "Appendix F no longer names the unsupported scenarios"
    labels = re.search(r"expected label of (.+?) with a substring", f)
    assert labels, "Appendix F no longer names the expected labels"
    over = {row[0]: set(re.findall(r"F\.\d\d", row[1]))
            for row in re.findall(r"^(\w+)\t(?:Write|Read|Product)\t[^\t]+\t(Over [^\n]+)$", g, flags=re.M)}
    ranking = re.search(r"Over (\w+) supported ranking scenarios", g)
    assert ranking, "Appendix G no longer says how many ranking scenarios it scores"
    words = {"ten": 10, "thirty": 30}
    return {
        "ids": [f"F.{n:02d}" for n in range(first, last + 1)], "count": words[span[1]],
        "unsupported": unsupported, "classified": set(re.findall(r"F\.\d\d", classified[2])),
        "classified_count": int(classified[1]),
        "unsupported_categories": dict(re.findall(r"(F\.\d\d) ([^,]+)", named[1])),
        "labels": set(re.split(r", | or ", labels[1])), "metric_scenarios": over,
        "ranking_count": words[ranking[1]],
    }


def test_the_seed_file_is_beside_the_checkout_and_parses() -> None:
    facts = seed_facts()
    assert facts["count"] == len(facts["ids"]) == 30
    assert set(facts["unsupported"]) == {"F.21", "F.22", "F.28", "F.30"}
    assert len(facts["classified"]) == facts["classified_count"] == 3
    assert facts["labels"] == {"correct injection", "correct silence", "governed use"}
    # fifteen measured fields: twelve name their scenarios, three score the ranking scenarios
    assert len(facts["metric_scenarios"]) == 15
    assert sum(not ids for ids in facts["metric_scenarios"].values()) == 3


def test_the_corpus_declares_the_seeds_scenarios_labels_and_classification() -> None:
    facts = seed_facts()
    assert [s.id for s in SCENARIOS] == facts["ids"]
    assert {s.label for s in SCENARIOS} <= facts["labels"]
    assert {sid: scenario(sid).category for sid in facts["unsupported"]} == facts["unsupported_categories"]
    # exactly the seed's three declare classification, and only they switch it on
    assert {s.id for s in SCENARIOS if s.requires_evidence_classification} == facts["classified"]
    assert {s.id for s in SCENARIOS if s.config.get("evidence_classification_enabled")} == facts["classified"]


def test_every_metric_is_computed_over_scenarios_the_corpus_can_score() -> None:
    facts = seed_facts()
    supported = [s for s in SCENARIOS if s.id not in facts["unsupported"]]
    for metric, ids in facts["metric_scenarios"].items():
        assert ids <= {s.id for s in supported}, metric
    # recall@k, MRR and NDCG rank one relevant target in each of the seed's ranking scenarios
    assert len([s for s in supported if s.target]) == facts["ranking_count"]
    for sid in facts["metric_scenarios"]["exactDetailRecovery"] | facts["metric_scenarios"]["temporalAccuracy"]:
        assert scenario(sid).target, sid
    for sid in facts["metric_scenarios"]["authorityViolationRate"]:
        assert "authority" in scenario(sid).checks, sid


def test_every_supported_scenario_passes_as_the_seed_declares_it() -> None:
    """Classification on only where the seed declares it, whatever the corpus entry asks for."""
    facts = seed_facts()
    failures: dict[str, object] = {}
    for sid in facts["ids"]:
        if sid in facts["unsupported"]:
            continue
        declared = scenario(sid)
        config = {k: v for k, v in declared.config.items() if k != "evidence_classification_enabled"}
        if sid in facts["classified"]:
            config["evidence_classification_enabled"] = True
        outcome = run_scenario(replace(declared, config=config,
                                       requires_evidence_classification=sid in facts["classified"]))
        if outcome.status != "passed":
            failures[sid] = outcome.error or sorted(name for name, ok in outcome.checks.items() if not ok)
    assert failures == {}
