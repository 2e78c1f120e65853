"""Consolidation into what is already known, and entity pages with links, in English and Chinese."""

from __future__ import annotations

import json
from datetime import datetime

import pytest

import riko
from riko.review.consolidate import SlotIndex, compare, facts

MARCH = datetime(2026, 3, 9, 19, 40)


def said(text: str, when: datetime = MARCH):
    return facts(text, when)


# -- the decision -------------------------------------------------------------------------------
@pytest.mark.parametrize("old, new, outcome", [
    ("My sister Lena lives in Berlin.", "My sister Lena lives in Berlin!", "same"),
    ("我妹妹 Lena 住在柏林。", "我妹妹 Lena 住在柏林", "same"),
    ("My sister Lena lives in Berlin.", "我妹妹 Lena 住在柏林。", "alias"),
    ("我妹妹 Lena 住在柏林。", "My sister Lena lives in Berlin.", "alias"),
    ("My sister Lena lives in Berlin.", "My sister Lena lives in Munich now.", "replacement"),
    ("我妹妹 Lena 住在柏林。", "我妹妹 Lena 住在上海。", "replacement"),
    ("My sister Lena lives in Berlin.", "我妹妹 Lena 住在上海。", "replacement"),
    ("I am 30 years old.", "I am 31 years old.", "replacement"),
    ("My sister Lena lives in Berlin.", "My sister Lena doesn't live in Berlin.", "contradiction"),
    ("我喜欢喝乌龙茶。", "我不喜欢喝乌龙茶。", "contradiction"),
    ("My sister Lena lives in Berlin.", "I prefer dark mode in every app I use.", "distinct"),
    ("I like jazz.", "I like rock.", "distinct"),
])
def test_compare_outcomes(old, new, outcome):
    assert compare(said(new), said(old)) == outcome


@pytest.mark.parametrize("old, new, outcome", [
    # one speaker of a multi-party log: the name is the subject, never the object that keys the slot
    ("Dara: The river walk was beautiful", "Dara: I fixed the fence behind the barn", "distinct"),
    ("dara: I am just getting ready to go out", "dara: My cousin opened a bakery in Leeds", "distinct"),
    ("Dara: I love green tea", "Dara: I really like green tea", "alias"),
    # a multi-valued slot keyed by a few words: the statements themselves must agree
    ("I guess it's because of the weather", "I guess it's because religion mattered more back then", "distinct"),
    ("Let's start with these two", "Let's start with the operations manager", "distinct"),
    ("We need to finish this phase today", "We really need to finish this phase today", "alias"),
    ("我周末常去西湖边跑步", "我周末常去西湖边跑步，空气很好", "alias"),
    ("吴明是我的同事，其年龄是36岁", "吴明是我的同事，其爱好是下棋", "distinct"),
])
def test_a_slot_key_alone_does_not_make_two_statements_one(old, new, outcome):
    assert compare(said(new), said(old)) == outcome


def test_a_month_said_two_ways_is_one_date_and_another_month_is_a_replacement():
    april = said("I'm planning a trip to Kyoto in April.", datetime(2026, 3, 9))
    next_month = said("下个月我想去京都看樱花。", datetime(2026, 3, 16))
    assert april.months == next_month.months == {"2026-04"}
    assert compare(next_month, april) == "alias"
    assert compare(said("I'm planning a trip to Kyoto in May."), april) == "replacement"
    # said a month later, "next month" is May: not the April trip
    assert compare(said("下个月我想去京都看樱花。", datetime(2026, 4, 10)), april) == "replacement"


def test_slot_index_looks_up_one_slot_and_orders_the_strongest_first():
    index = SlotIndex()
    index.add("p1", said("My sister Lena lives in Berlin."), is_page=True)
    index.add("c1", said("My sister Lena lives in Berlin."), is_page=False)
    index.add("p2", said("I prefer dark mode in every app I use."), is_page=True)
    assert len(index) == 3
    found = list(index.matches(said("我妹妹 Lena 住在柏林。")))
    assert found == [("alias", "p1", True), ("alias", "c1", False)]
    assert list(index.matches(said("我妹妹 Lena 住在柏林。"), candidates=False)) == [("alias", "p1", True)]
    assert list(index.matches(said("I like jazz."))) == []


# -- admission ----------------------------------------------------------------------------------
def say(mem, session: str, text: str) -> str:
    event = {"session_id": session, "type": "user/message",
             "data": {"role": "user", "source": {"kind": "user"}, "content": [{"type": "text", "text": text}]}}
    return str(mem.capture(event))


def audits(mem, kind: str) -> list[dict]:
    rows = mem.audits(kind).to_dicts()
    for row in rows:
        row["detail"] = json.loads(row["detail"]) if row["detail"] else {}
    return rows


def admit(mem, session: str, *texts: str) -> list[str]:
    ids = [mem.propose(t.rstrip("。."), description=t, session_id=session) for t in texts]
    return mem._review.auto_confirm([i for i in ids if i is not None], "user_grounded")


@pytest.fixture
def mem(tmp_path, clock):
    with riko.open(tmp_path, preset="companion", clock=clock, config={"recall_enabled": True}) as m:
        yield m


def _fact_pages(mem):
    return [p for p in mem._review.canon.pages() if p.category != "entity"]


def _entity(mem, title: str):
    [page] = [p for p in mem._review.canon.pages() if p.category == "entity" and p.title == title]
    return page


@pytest.mark.parametrize("first, again", [
    ("My sister Lena lives in Berlin.", "My sister Lena lives in Berlin!"),
    ("我妹妹 Lena 住在柏林。", "我妹妹 Lena 住在柏林！"),
])
def test_the_same_fact_again_adds_evidence_to_the_page(mem, first, again):
    one = say(mem, "s1", first)
    assert len(admit(mem, "s1", first)) == 1
    two = say(mem, "s2", again)
    assert admit(mem, "s2", again) == []
    [page] = _fact_pages(mem)
    assert page.sources == sorted([one, two]) and page.version == 2
    assert page.description == first  # the page keeps its words; only its evidence grew
    [added] = audits(mem, "page-evidence-added")
    assert (added["target"], added["detail"]["evidence"], added["detail"]["relation"]) == (page.id, two, "same")
    assert mem._review.canon.versions(page.id).height == 1  # the earlier version is kept
    # said once more in a message of other words around it: absorbed at admission, same page
    three = say(mem, "s3", first.rstrip("。.") + "，真的。" if "妹妹" in first else first + " Really.")
    assert admit(mem, "s3", mem.warehouse.fetchone(
        "SELECT text FROM evidence WHERE scope_key = ? ORDER BY rowid DESC LIMIT 1", [mem.scope.key])[0]) == []
    [page] = _fact_pages(mem)
    assert three in page.sources


@pytest.mark.parametrize("first, translation", [
    ("My sister Lena lives in Berlin.", "我妹妹 Lena 住在柏林。"),
    ("我妹妹 Lena 住在柏林。", "My sister Lena lives in Berlin."),
])
def test_a_translation_becomes_a_revocable_alias_of_the_page(mem, first, translation):
    one, two = say(mem, "s1", first), say(mem, "s1", translation)
    done = admit(mem, "s1", first, translation)
    assert len(done) == 1
    [page] = _fact_pages(mem)
    assert page.sources == sorted([one, two]) and page.description == first
    edges = [r for r in mem.aliases().to_dicts() if r["entity_id"] == page.id]
    assert [(e["alias"], e["resolution_kind"], e["status"]) for e in edges] == [
        (translation, "derived_inference", "contested")]
    assert audits(mem, "candidate-merged-into-page")[0]["detail"]["relation"] == "alias"
    # recall shows one memory with both evidence refs
    result = mem.recall("Where does my sister Lena live?")
    facts_injected = [r for r in result.rows if r.get("injected") and r.get("id") == page.id]
    assert len(facts_injected) == 1
    assert one in result.context and two in result.context


@pytest.mark.parametrize("first, changed", [
    ("My sister Lena lives in Berlin.", "My sister Lena lives in Munich now."),
    ("我妹妹 Lena 住在柏林。", "我妹妹 Lena 住在上海。"),
])
def test_a_changed_value_is_a_reviewable_replacement(mem, clock, first, changed):
    say(mem, "s1", first)
    [old_id] = admit(mem, "s1", first)
    say(mem, "s2", changed)
    assert admit(mem, "s2", changed) == []
    [cand] = mem.candidates().to_dicts()
    assert cand["status"] == "pending_conflict" and cand["conflict_page_id"] == old_id
    [conflict] = mem.conflicts().to_dicts()
    assert (conflict["state"], conflict["predicate"], conflict["page_id"]) == ("contested", "replacement", old_id)
    assert mem.page(old_id).version == 1 and mem.page(old_id).description == first  # never overwritten
    [row] = audits(mem, "candidate-contests-page")
    assert row["detail"]["relation"] == "replacement"
    new = mem.resolve_conflict(conflict["id"], "temporal_transition")
    old = mem.page(old_id)
    assert new.supersedes == old_id and old.superseded_by == new.id and old.valid_to == new.valid_from


@pytest.mark.parametrize("first, negated", [
    ("My sister Lena lives in Berlin.", "My sister Lena doesn't live in Berlin."),
    ("我喜欢喝乌龙茶。", "我不喜欢喝乌龙茶。"),
    ("I like calculus.", "I dont like calculus."),  # chat drops the apostrophe; the negation stays
])
def test_a_contradiction_opens_a_conflict(mem, first, negated):
    say(mem, "s1", first)
    [old_id] = admit(mem, "s1", first)
    say(mem, "s2", negated)
    assert admit(mem, "s2", negated) == []
    [conflict] = mem.conflicts().to_dicts()
    assert (conflict["predicate"], conflict["page_id"]) == ("contradiction", old_id)
    assert old_id not in mem.resident().source_page_ids  # contested: not current truth


def test_entity_pages_are_created_with_aliases_and_linked_from_the_fact(mem):
    ref = say(mem, "s1", "My sister Lena lives in Berlin.")
    [fact_id] = admit(mem, "s1", "My sister Lena lives in Berlin.")
    lena, berlin = _entity(mem, "Lena"), _entity(mem, "Berlin")
    assert (lena.type, lena.kind, lena.status, lena.sources) == ("entity", "person", "confirmed", [ref])
    assert "my sister" in lena.tags and berlin.kind == "place"
    fact = mem.page(fact_id)
    assert "[[Lena]]" in fact.body and "[[Berlin]]" in fact.body
    graph = mem.graph()
    assert graph.has_edge(fact_id, lena.id) and graph.has_edge(fact_id, berlin.id)
    edges = {r["alias"]: r for r in mem.aliases().to_dicts() if r["entity_id"] == lena.id}
    assert edges["my sister"]["resolution_kind"] == "explicit_coreference" and edges["my sister"]["status"] == "active"
    # the user's own page is written to link the sister (the fact itself is Lena's, not the user's)
    user = _entity(mem, "User")
    assert {r["target"] for r in audits(mem, "entity-page-created")} == {lena.id, berlin.id, user.id}
    assert "sister [[Lena]]" in user.body and "[[User]]" not in fact.body
    # the Chinese statement names the same two entities: no new entity page, the words it used are aliases
    say(mem, "s1", "我妹妹 Lena 住在柏林。")
    admit(mem, "s1", "我妹妹 Lena 住在柏林。")
    assert len([p for p in mem._review.canon.pages() if p.category == "entity"]) == 3
    assert "妹妹" in _entity(mem, "Lena").tags


def test_a_chinese_fact_links_the_entity_by_its_page_title(mem):
    say(mem, "s1", "My sister Lena lives in Berlin.")
    admit(mem, "s1", "My sister Lena lives in Berlin.")
    say(mem, "s2", "我住在柏林。")
    [mine] = admit(mem, "s2", "我住在柏林。")
    assert "[[Berlin|柏林]]" in mem.page(mine).body
    assert mem.graph().has_edge(mine, _entity(mem, "Berlin").id)


def test_nothing_is_admitted_without_user_words(mem):
    """A proposal no user event grounds stays a candidate, and so does every entity it names."""
    say(mem, "s1", "I'm fine, thanks.")
    cid = mem.propose("Lena", description="My sister Lena lives in Berlin.", session_id="s1")
    assert mem._review.auto_confirm([cid], "user_grounded") == []
    assert mem.pages().height == 0 and mem.aliases().height == 0
    assert [c["status"] for c in mem.candidates().to_dicts()] == ["pending"]


def test_consolidation_writes_are_audited_and_keep_every_version(mem):
    say(mem, "s1", "My sister Lena lives in Berlin.")
    say(mem, "s1", "我妹妹 Lena 住在柏林。")
    admit(mem, "s1", "My sister Lena lives in Berlin.", "我妹妹 Lena 住在柏林。")
    kinds = {r["kind"] for r in mem.audits().to_dicts()}
    assert {"entity-page-created", "candidate-auto-confirmed", "page-evidence-added", "alias-upserted",
            "candidate-merged-into-page", "entity-aliases-added"} <= kinds
    [fact] = _fact_pages(mem)
    versions = mem._review.canon.versions(fact.id)
    assert versions["version"].to_list() == [1] and fact.version == 2


def test_entity_pages_are_walked_by_recall_but_never_injected(mem):
    say(mem, "s1", "My sister Lena lives in Berlin.")
    say(mem, "s2", "My sister Lena is a nurse.")
    [berlin_fact] = admit(mem, "s1", "My sister Lena lives in Berlin.")
    [nurse_fact] = admit(mem, "s2", "My sister Lena is a nurse.")
    lena = _entity(mem, "Lena")
    from riko.recall.channels import graph_expand

    hits = graph_expand(mem.graph(), [berlin_fact], 10)
    assert nurse_fact in hits.ids and lena.id not in hits.ids  # two hops through the entity page
    result = mem.recall("Tell me about Lena")
    injected = {r.get("id") for r in result.rows if r.get("injected")}
    assert lena.id not in injected and {berlin_fact, nurse_fact} & injected


def test_a_person_page_stays_in_the_resident_only_while_a_current_fact_names_it(mem):
    say(mem, "s1", "My sister Lena lives in Berlin.")
    [fact] = admit(mem, "s1", "My sister Lena lives in Berlin.")
    lena, berlin = _entity(mem, "Lena"), _entity(mem, "Berlin")
    resident = mem.resident()
    assert lena.id in resident.source_page_ids and berlin.id not in resident.source_page_ids
    mem.supersede(fact)
    assert lena.id not in mem.resident().source_page_ids


@pytest.mark.parametrize("path", ["batch", "review"])
def test_pending_candidates_of_one_slot_merge_a_translation_but_not_a_changed_value(tmp_path, clock, path):
    from riko.dream.proposals import Proposal, propose_batch
    from riko.dream.protocol import ProposedPage

    def page(title: str) -> ProposedPage:
        return ProposedPage(path="", folder="relationships", type="relationship", title=title, description=title,
                            body="", tags=(), confidence=0.6, kind="relationship", category="people",
                            sensitivity="normal", links=())

    with riko.open(tmp_path, preset="companion", clock=clock, config={"candidate_auto_confirm": "off"}) as mem:
        refs = [say(mem, "s1", "My sister Lena lives in Berlin."), say(mem, "s2", "我妹妹 Lena 住在柏林。"),
                say(mem, "s3", "My sister Lena lives in Munich now.")]
        items = [Proposal(page("My sister Lena lives in Berlin."), "s1", (refs[0],)),
                 Proposal(page("我妹妹 Lena 住在柏林。"), "s2", (refs[1],)),
                 Proposal(page("My sister Lena lives in Munich now."), "s3", (refs[2],))]
        with mem._wh.transaction():
            if path == "batch":
                outcomes = propose_batch(mem._review, items)
            else:
                outcomes = [mem._review.propose(title=p.page.title, type=p.page.type, description=p.page.description,
                                                category=p.page.category, kind=p.page.kind, source="dream",
                                                session_id=p.session_id, evidence=list(p.evidence),
                                                authority="model_proposal") for p in items]
        assert [o.action for o in outcomes] == ["created", "merged", "created"]
        cands = {c["id"]: c for c in mem.candidates().to_dicts()}
        first = cands[outcomes[0].candidate_id]
        assert json.loads(first["evidence"]) == sorted(refs[:2]) and first["title"] == "My sister Lena lives in Berlin."
        assert len(cands) == 2  # the changed value stays its own candidate, for review
        [merged] = audits(mem, "candidate-merged")
        assert merged["detail"]["relation"] == "alias" and merged["detail"]["title"] == "我妹妹 Lena 住在柏林。"
        [edge] = mem.aliases().to_dicts()
        assert (edge["entity_id"], edge["alias"], edge["status"]) == (first["id"], "我妹妹 Lena 住在柏林。", "contested")
        page = mem.confirm(first["id"])
        [edge] = mem.aliases().to_dicts()
        assert edge["entity_id"] == page.id  # the other wording follows the candidate to its page
        assert sorted(page.sources) == sorted(refs[:2])
        mem.invalidate_alias(edge["id"], "not the same statement")
        assert mem.aliases().to_dicts()[0]["status"] == "invalidated"
