"""The rest of the recall path: projections persisted by writes, a changed embedding model."""

from __future__ import annotations

import riko

QUERY = "do you remember my Fitwell gym?"


def _meta(mem) -> list[tuple]:
    return mem.warehouse.fetchall("SELECT degraded_reason, dimension FROM index_meta WHERE scope_key = ? AND name = 'dense'",
                                  [mem.scope.key])


def test_model_change_is_recorded_served_lexically_then_rebuilt(tmp_path, clock) -> None:
    config = {"embedding_provider": "deterministic", "embedding_dimension": 64, "recall_vector_enabled": True,
              "recall_enabled": True}
    with riko.open(tmp_path, preset="c", clock=clock, config=config) as mem:
        mem.create_page("Fitwell", "Orchid tier at the gym", description="Orchid tier at the Fitwell gym")
        mem.index(progress=False)
        assert mem.recall(QUERY).trace["candidatesByChannel"].get("dense") == 1
    with riko.open(tmp_path, preset="c", clock=clock, config={**config, "embedding_dimension": 32}) as mem:
        first = mem.recall(QUERY)
        # the probe: this read "vector-degraded", index_meta kept no reason and nothing rebuilt
        assert "embedding-model-changed" in first.trace["degradedModes"]
        assert "vector-degraded" not in first.trace["degradedModes"]
        assert "dense" not in first.trace["candidatesByChannel"] and "Orchid tier" in first.context  # lexical meanwhile
        assert _meta(mem) == [("embedding-model-changed", 64)]
        second = mem.recall(QUERY)  # the next dense request rebuilds for the new provider
        assert second.trace["candidatesByChannel"].get("dense") == 1
        assert _meta(mem) == [(None, 32)]
        assert mem.recall(QUERY).trace["degradedModes"] == []


def test_writes_persist_projections_without_a_recall(tmp_path, clock) -> None:
    with riko.open(tmp_path, preset="c", clock=clock, config={"embedding_provider": "off"}) as mem:
        page = mem.create_page("Therapy", "I see a therapist on Mondays", description="I see a therapist on Mondays")
        rows = dict(mem.warehouse.fetchall("SELECT record_id, disclosure FROM projections WHERE scope_key = ?",
                                           [mem.scope.key]))
        assert rows.get(page.id) == "never_explicit"  # a sensitive page: written before any recall ran
        mem.forget(page.id)
        assert mem.warehouse.fetchall("SELECT record_id FROM projections WHERE scope_key = ? AND record_id = ?",
                                      [mem.scope.key, page.id]) == []
        assert mem.persist() == 0
