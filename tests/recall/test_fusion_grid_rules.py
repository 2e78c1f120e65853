"""The fusion grid's rule families rank kept channel lists as they claim (benchmarks/fusion_grid.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import fusion_grid  # noqa: E402  (the benchmark module itself, from this tree)


def record(raw_scores: list[float]) -> dict:
    """Twelve documents: rawEvidence finds 0..9 in order with ``raw_scores``; dense ranks 11, 10,
    9, ..., 0 (so it disagrees with lexical everywhere) with falling cosines."""
    dense = list(range(11, -1, -1))
    q = {
        "id": "q", "q": "where did my sister move last spring", "gold": ["t9"],
        "lab": [f"t{i}" for i in range(12)],
        "lex": {"rawEvidence": list(range(10))},
        "lexs": {"rawEvidence": raw_scores},
        "dq": dense, "dqs": [0.9 - 0.01 * i for i in range(12)],
        "dp": [], "dps": [], "nb": [[-1, -1]] * 12,
    }
    return fusion_grid.prepare(q)


def test_the_reranker_never_changes_lexicals_top_k_set() -> None:
    q = record([10.0 - i for i in range(10)])
    lexical = fusion_grid.rank_with(fusion_grid.LEXICAL, q)
    for k in (5, 10):
        ranked = fusion_grid.rank_with(fusion_grid.Setting(weight=2.0, rerank=k), q)
        assert set(ranked[:k]) == set(lexical[:k]) and ranked[k:] == lexical[k:]
        assert ranked[:k] != lexical[:k]  # the dense vote did reorder them
    assert 10 not in fusion_grid.rank_with(fusion_grid.Setting(weight=2.0, rerank=10), q)  # dense-only stays out


def test_a_confident_lexical_margin_drops_the_dense_weight() -> None:
    confident = record([10.0, 5.0] + [4.0 - 0.1 * i for i in range(8)])  # first leads second by half
    unsure = record([10.0, 9.5] + [4.0 - 0.1 * i for i in range(8)])
    rule = fusion_grid.Setting(weight=1.0, lex_margin=0.3, confident=0.0)
    assert confident["_lm"] == pytest.approx(0.5) and unsure["_lm"] == pytest.approx(0.05)
    assert fusion_grid.rank_with(rule, confident) == fusion_grid.rank_with(fusion_grid.LEXICAL, confident)
    assert fusion_grid.rank_with(rule, unsure) == fusion_grid.rank_with(fusion_grid.Setting(weight=1.0), unsure)


@pytest.mark.parametrize("mode", ["minmax", "z"])
def test_calibrated_fusion_keeps_every_lexical_hit_ranked(mode: str) -> None:
    q = record([10.0 - i for i in range(10)])
    ranked = fusion_grid.rank_with(fusion_grid.Setting(weight=1.0, calibrated=mode), q)
    assert set(range(10)) <= set(ranked)
    assert ranked[0] in (0, 11)  # lexical's first or dense's first, whichever stands further out


def test_every_family_is_in_the_grid_once() -> None:
    settings = fusion_grid.grid()
    assert len({s.name for s in settings}) == len(settings)
    assert {s.family for s in settings} == {"lexical", "rrf", "lexical-margin", "query-length", "rerank", "calibrated"}
