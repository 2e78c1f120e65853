"""A hidden page stays hidden everywhere: every channel x every way a page can be hidden.

A page can be hidden five ways (suppress, forget, supersede, expire, purge). Whichever, its
text must appear in no recall context, no Resident and no tool result, on every channel:
canonical lexical, exact, raw evidence (its source lines and the user's own request to hide
it), observations drawn from those lines, graph neighbours and dense hits. ``restore`` brings
a suppressed page back with its evidence.
"""

from __future__ import annotations

from typing import Any

import pytest

import riko
from riko.tools import ToolBox
from conversation import say

SECRET = "Boulderhaus"  # a word only the hidden fact and its evidence hold
FACT = f"I love rock climbing at {SECRET} every Friday"
QUERIES = [
    "do you remember what I said about rock climbing?",
    f"what do I do at {SECRET} on Fridays?",
    "remind me which climbing gym I go to every Friday",
    f'what did I say about "{SECRET}"?',
]
CHANNELS = {
    "lexical": {},
    "evidence": {"recall_raw_evidence_enabled": True},
    "graph+observations": {"recall_graph_enabled": True, "recall_observation_enabled": True},
    "dense": {"recall_vector_enabled": True, "embedding_provider": "deterministic", "embedding_dimension": 64},
}
WAYS = ("suppress", "forget", "supersede", "expire", "purge")




def _scope(tmp_path: Any, clock: Any, channels: dict[str, Any]) -> Any:
    config = {"embedding_provider": "off", "evidence_classification_enabled": True, "recall_enabled": True,
              "purge_enabled": True, **channels}
    return riko.open(tmp_path, preset="companion", clock=clock, config=config)


def _world(mem: Any, way: str) -> tuple[Any, ToolBox]:
    """The fact said and remembered in s1, a neighbour page linking it, an observation on it."""
    ref = say(mem, "s1", FACT)
    box = ToolBox(mem, "s1")
    if way == "expire":
        page = mem.create_page(FACT, FACT, description=FACT, sources=[ref], valid_to="2026-01-01T00:00:00Z")
    else:
        result = box.call("memory_remember", {"content": FACT})
        assert result.ok, result.error
        page = mem.page(result.id)
    mem.create_page("Friday plans", f"Fridays: see [[{page.id}]] and dinner with Tom.", description="Friday plans")
    other = say(mem, "s1", "Tom and I have dinner every Friday")
    observation = mem.add_observation(f"The user enjoys rock climbing at {SECRET}", [ref, other], confidence=0.9)
    if observation.get("status") != "active":
        mem.activate_observation(observation["id"])
    return page, ToolBox(mem, "s2")


def _hide(mem: Any, way: str, page: Any, box: ToolBox) -> None:
    if way == "suppress":
        say(mem, "s2", "Please don't ever mention rock climbing again")
        result = box.call("memory_suppress", {"target": "rock climbing"})
        assert result.ok and SECRET not in str(result.to_dict())
    elif way == "forget":
        say(mem, "s2", "Please forget that I love rock climbing")
        result = box.call("memory_forget", {"target": "rock climbing"})
        assert result.ok and SECRET not in str(result.to_dict())
    elif way == "supersede":
        mem.supersede(page.id)
    elif way == "purge":
        token = mem.purge("s1")["confirmation"]
        mem.purge("s1", dry_run=False, confirmation=token)


def _surfaces(mem: Any, box: ToolBox) -> list[str]:
    texts = []
    for query in QUERIES:
        result = mem.recall(query, build_index=True)
        texts.append(result.context)
        texts.extend(str(row.get("text") or "") for row in result.results.iter_rows(named=True))
    texts.append(mem.resident().text)
    texts.append(str(box.call("memory_get_resident", {}).to_dict()))
    return texts


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("channel", sorted(CHANNELS))
def test_hidden_page_text_reaches_no_surface(tmp_path, clock, way: str, channel: str) -> None:
    mem = _scope(tmp_path, clock, CHANNELS[channel])
    try:
        page, box = _world(mem, way)
        before = "\n".join(_surfaces(mem, box))
        if way != "expire":
            assert SECRET in before  # the world is set up so the fact is recallable before it is hidden
        _hide(mem, way, page, box)
        after = _surfaces(mem, box)
        leaks = [t for t in after if SECRET in t or "mention rock climbing" in t or "forget that I love" in t]
        assert leaks == []
    finally:
        mem.close()


def test_rock_climbing_suppression_covers_source_line_and_request_and_restore_brings_them_back(tmp_path, clock) -> None:
    # the probe: after memory_suppress the source line and the user's "don't mention" line
    # still came back as explicit [supplement] evidence
    mem = _scope(tmp_path, clock, {"recall_raw_evidence_enabled": True})
    try:
        ref = say(mem, "s1", "I love rock climbing on weekends with my cousin")
        box = ToolBox(mem, "s1")
        remembered = box.call("memory_remember", {"content": "I love rock climbing on weekends with my cousin"})
        assert remembered.ok
        request = say(mem, "s1", "Don't mention rock climbing")
        suppressed = box.call("memory_suppress", {"target": "rock climbing"})
        assert suppressed.ok
        query = "do you remember what I told you about rock climbing?"
        hidden = mem.recall(query)
        assert "rock climbing" not in hidden.context
        assert "rock climbing" not in mem.resident().text
        # kept in L0
        kept = mem.evidence(session_id="s1")
        assert kept.height == 2
        say(mem, "s1", "You can mention rock climbing again")
        assert box.call("memory_restore", {"id": remembered.id}).ok
        back = mem.recall(query)
        assert "I love rock climbing on weekends with my cousin" in back.context
        assert ref in back.context or remembered.id in str(back.results["id"].to_list())
        assert request  # the request line is restored with the page (it is only lifted, never lost)
    finally:
        mem.close()
