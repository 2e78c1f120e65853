"""The model path of Dream against a real loopback stub with recorded answers: the prompt asks
for riko's schema and shows the existing pages of the same names; the parser validates the new
fields; riko grounds every page in the user's words and derives type, slot and entities itself,
so a model's duplicates, wrong types and invented facts change nothing riko keeps."""

from __future__ import annotations

import json
from typing import Any

import pytest

import riko
from dream_stub import CREDENTIAL_REF, SECRET, Reply, StubServer, assistant_event, dream_config, user_event
from riko.dream.grounding import ground, rederive
from riko.dream.known import related_pages
from riko.dream.prompt import KnownPage, build_extraction_prompt
from riko.dream.protocol import parse_file_blocks
from riko.dream.transcript import Transcript, TranscriptLine

SID = "s-model"


def block(path: str, **fields: Any) -> str:
    body = fields.pop("body", "")
    front = "\n".join(f"{k}: {json.dumps(v, ensure_ascii=False)}" for k, v in fields.items())
    return f'<<<FILE path="{path}">>>\n---\n{front}\n---\n{body}\n<<<END>>>'


def seqs(mem: riko.Memory, session: str = SID) -> dict[str, int]:
    """User text -> its stored sequence number."""
    return {r["text"]: r["seq"] for r in mem.evidence(session, user_only=True).to_dicts()}


def job_result(mem: riko.Memory, session: str = SID) -> dict[str, Any]:
    row = mem.dream_jobs().filter(session_id=session).to_dicts()[0]
    assert row["status"] == "succeeded", row
    return json.loads(row["result"])


@pytest.fixture
def stub():
    server = StubServer()
    yield server
    server.close()


@pytest.fixture
def mem(tmp_path, stub, monkeypatch):
    monkeypatch.setenv(CREDENTIAL_REF, SECRET)
    with riko.open(tmp_path / "root", preset="companion", config=dream_config(stub)) as m:
        yield m


def converse(mem: riko.Memory, session: str = SID) -> dict[str, int]:
    mem.capture(user_event(session, "My sister Lena lives in Berlin."))
    mem.capture(assistant_event(session, "Berlin is lovely. Does Lena work there as a doctor?"))
    mem.capture(user_event(session, "I prefer green tea in the morning."))
    return seqs(mem, session)


# -- the prompt -------------------------------------------------------------------------------------
def test_prompt_numbers_turns_asks_for_the_schema_and_shows_pages_of_the_same_names(mem, stub):
    converse(mem)
    mem.create_page("Lena works as a nurse", "My sister Lena works as a nurse.", type="relationship")
    mem.create_page("Likes sailing", "I like sailing.", type="concept")
    stub.script = [Reply(text=block("wiki/concepts/tea.md", type="concept", title="Prefers green tea",
                                    description="I prefer green tea in the morning."))]
    mem.dream(progress=False)
    prompt = stub.extraction_requests()[0]["body"]["messages"][0]["content"]
    conversation = prompt.split("<conversation>\n")[1]
    assert "] user: My sister Lena lives in Berlin." in conversation and "] assistant: Berlin is lovely" in conversation
    for field in ("slot:", "entities:", "turns:", "quote:", "action: <add | update | noop>", "updates:",
                  "One fact per page"):
        assert field in prompt, field
    shown = prompt.split("Existing pages about the people and things in this conversation:\n")[1].split("\n\n")[0]
    assert '"Lena works as a nurse" (relationship' in shown and "Likes sailing" not in shown


def test_related_pages_are_those_naming_what_the_user_names() -> None:
    t = Transcript("s", (TranscriptLine(1, "user", "我妹妹 Lena 住在柏林。"), TranscriptLine(2, "assistant", "Paris?")))
    pages = [KnownPage("Paris trip", "episode"), KnownPage("Lena lives in Munich", "relationship"),
             KnownPage("妹妹住在柏林", "relationship"), KnownPage("Lena", "entity", "Lena lives in 柏林")]
    assert [p.title for p in related_pages(t, pages)] == ["妹妹住在柏林", "Lena", "Lena lives in Munich"]
    assert related_pages(Transcript("s", (TranscriptLine(1, "user", "ok then"),)), pages) == ()
    prompt = build_extraction_prompt("[1] user: hi", existing_pages=[KnownPage("A <<<FILE", "concept", "x", "u/a")])
    assert '- "A ‹‹‹FILE" (concept, slot u/a, confirmed): x' in prompt


# -- the parser -------------------------------------------------------------------------------------
def test_parser_reads_and_validates_the_new_fields_with_clear_errors() -> None:
    good = block("wiki/relationships/lena.md", type="relationship", title="Lena lives in Berlin", turns=[0, 2],
                 action="update", updates="Lena lives in Munich", slot="Lena/lives_in", entities=["Lena", "Berlin"])
    page = parse_file_blocks(good).pages[0]
    assert (page.turns, page.action, page.updates, page.slot) == ((0, 2), "update", "Lena lives in Munich",
                                                                  "Lena/lives_in")
    assert [e.name for e in page.entities] == ["Lena", "Berlin"] and page.field_errors == ()
    assert parse_file_blocks(good.replace("update", "No-op")).pages[0].action == "noop"
    bad = block("wiki/concepts/tea.md", type="concept", title="Likes tea", turns=["first"], action="maybe",
                slot="no slash", entities="Lena")
    result = parse_file_blocks(bad + "\n" + block("wiki/concepts/x.md", type="concept", title="X", action="noop"))
    assert [p.title for p in result.pages] == ["Likes tea", "X"]  # a malformed hint never loses the page
    assert result.pages[0].turns == () and result.pages[0].action == "add"
    assert result.field_errors == (
        ("invalid-slot", "wiki/concepts/tea.md: slot must be subject/attribute text such as Lena/lives_in, "
                         "got 'no slash'"),
        ("invalid-entities", "wiki/concepts/tea.md: entities must be a list of names (or of {name, kind, aliases}), "
                             "got 'Lena'"),
        ("invalid-turns", "wiki/concepts/tea.md: turns must be a list of the [numbers] of conversation lines, "
                          "got ['first']"),
        ("invalid-action", "wiki/concepts/tea.md: action must be one of add, update, noop, got 'maybe'"),
        ("missing-updates", "wiki/concepts/x.md: action noop needs updates: <title of the existing page>"))
    many = parse_file_blocks(block("wiki/concepts/t.md", type="concept", title="T", turns=list(range(25))))
    assert many.pages[0].turns == () and many.field_errors[0][0] == "invalid-turns"


# -- grounding and derivation -----------------------------------------------------------------------
LINES = (TranscriptLine(0, "user", "My sister Lena lives in Berlin."),
         TranscriptLine(1, "assistant", "Does Lena work there as a doctor?"),
         TranscriptLine(2, "user", "I drink green tea every morning."))


def test_grounding_keeps_user_turns_and_refuses_what_nobody_said() -> None:
    assert ground("Lena lives in Berlin", "", "", (0,), LINES).turns == (0,)
    cited_wrong = ground("Lena lives in Berlin", "", "", (2, 1, 99), LINES)
    assert cited_wrong.turns == (0,) and cited_wrong.supported and cited_wrong.cited_elsewhere == (1,)
    assert ground("Tea drinker", "Drinks green tea each morning.", "", (), LINES).turns == (2,)  # paraphrase
    invented = ground("Lena is a doctor", "Lena works as a doctor.", "", (0,), LINES)
    assert not invented.supported  # the assistant asked; the user never said it
    assert not ground("Owns a red bicycle", "", "", (), LINES).supported
    body = ground("Lena lives in Berlin", "", "She is a surgeon at the Charité and has three children.", (0,), LINES)
    assert not body.supported  # an added claim in the body is refused too
    assert ground("Conversation summary", "Small talk.", "", (), LINES, claim=False).supported


def test_riko_derives_type_slot_and_entities_from_the_users_words() -> None:
    wrong = parse_file_blocks(block("wiki/emotions/lena.md", type="emotion", title="Lena lives in Berlin",
                                    kind="emotion", slot="user/mood", entities=["Paris"])).pages[0]
    kept = rederive(wrong, [LINES[0].text])
    assert kept is not None and kept.type == "emotion"  # riko has no derivation for feelings
    typed = parse_file_blocks(block("wiki/entities/lena.md", type="entity", title="Lena lives in Berlin",
                                    kind="identity", category="identity", slot="user/name",
                                    entities=[{"name": "Paris", "kind": "place"}])).pages[0]
    fixed = rederive(typed, [LINES[0].text])
    assert fixed is not None and (fixed.type, fixed.kind, fixed.slot) == ("relationship", "relationship", "Lena/lives_in")
    assert [e.name for e in fixed.entities] == ["Lena", "Berlin"]
    entity = parse_file_blocks(block("wiki/entities/lena.md", type="entity", title="Lena", category="entity")).pages[0]
    assert rederive(entity, [LINES[0].text]) is None


# -- end to end over the stub -----------------------------------------------------------------------
def test_a_model_with_duplicates_wrong_types_and_invented_facts_changes_nothing_riko_keeps(tmp_path, stub,
                                                                                             monkeypatch):
    monkeypatch.setenv(CREDENTIAL_REF, SECRET)
    config = dream_config(stub, candidate_auto_confirm="all")  # even admitting everything it stores
    with riko.open(tmp_path / "root", preset="companion", config=config) as mem:
        said = converse(mem)
        lena, tea = said["My sister Lena lives in Berlin."], said["I prefer green tea in the morning."]
        answer = "\n\n".join([
            # right fact, wrong type: riko types it a relationship
            block("wiki/concepts/lena-berlin.md", type="concept", title="Lena lives in Berlin", kind="preference",
                  description="My sister Lena lives in Berlin.", turns=[lena], slot="user/likes", action="add",
                  body="Lives in [[Berlin]]."),
            # the same fact again under another path: the parser keeps the first
            block("wiki/concepts/lena-berlin-2.md", type="concept", title="Lena lives in Berlin", turns=[lena]),
            # invented: the assistant asked, the user never said it
            block("wiki/relationships/lena-doctor.md", type="relationship", title="Lena is a doctor",
                  description="Lena works as a doctor.", turns=[lena], action="add"),
            # a fact cited only to the assistant's line
            block("wiki/concepts/berlin.md", type="concept", title="Berlin is lovely", turns=[lena + 1]),
            # an entity page of the model's own
            block("wiki/entities/lena.md", type="entity", title="Lena", category="entity", kind="person"),
            # a repeat the model marks noop, and a malformed hint
            block("wiki/concepts/tea.md", type="concept", title="Prefers green tea in the morning",
                  description="I prefer green tea in the morning.", turns=[tea], action="noop",
                  updates="Prefers green tea", kind="fact", slot=42),
        ])
        stub.script = [Reply(text=answer)]
        report = mem.dream(progress=False)
        assert report.succeeded == 1
        result = job_result(mem)
        reasons = sorted(r["reason"] for r in result["rejected"])
        assert reasons == ["duplicate-page", "proposed-entity-page", "unsupported-fact", "unsupported-fact"]
        assert result["actions"] == {"add": 1, "noop": 1}  # recorded, never acted on
        assert [e["reason"] for e in result["field_errors"]] == ["invalid-slot"]  # reported, the page kept
        cands = {c["title"]: c for c in mem.candidates(status=None).to_dicts()}
        assert "Lena is a doctor" not in cands and "Berlin is lovely" not in cands
        fact = cands["Lena lives in Berlin"]
        assert fact["type"] == "relationship"  # riko's derivation, not the model's "concept"
        assert json.loads(fact["evidence"]) == [f"session:{SID}/event:{lena}"]
        assert cands["Prefers green tea in the morning"]["type"] == "concept"
        assert "Lena" in cands and cands["Lena"]["type"] == "entity"  # riko's own entity page
        titles = set(mem.pages()["title"].to_list())
        assert "Lena is a doctor" not in titles and "Berlin is lovely" not in titles
        assert "Lena lives in Berlin" in titles
        page = mem.pages().filter(title="Lena lives in Berlin").to_dicts()[0]
        assert page["type"] == "relationship"


def test_the_same_fact_from_two_sessions_is_one_candidate_with_both_turns(tmp_path, stub, monkeypatch):
    monkeypatch.setenv(CREDENTIAL_REF, SECRET)
    mem = riko.open(tmp_path / "root", preset="companion", config=dream_config(stub, candidate_auto_confirm="off"))
    first = converse(mem, "s-one")
    second = converse(mem, "s-two")
    # the model cites turn 0 in both sessions and calls it a concept once
    answers = iter([block("wiki/relationships/lena.md", type="relationship", title="Lena lives in Berlin",
                          description="My sister Lena lives in Berlin.", turns=[0]),
                    block("wiki/concepts/lena.md", type="concept", title="Lena lives in Berlin", turns=[0])])
    stub.responder = lambda prompt: Reply(text=next(answers))
    assert mem.dream(progress=False, workers=1).succeeded == 2
    rows = mem.candidates(status=None).filter(title="Lena lives in Berlin").to_dicts()
    mem.close()
    assert len(rows) == 1 and rows[0]["type"] == "relationship"
    lena = "My sister Lena lives in Berlin."
    assert sorted(json.loads(rows[0]["evidence"])) == [f"session:s-one/event:{first[lena]}",
                                                       f"session:s-two/event:{second[lena]}"]


def test_field_errors_are_kept_in_the_job_result(mem, stub):
    said = converse(mem)
    stub.script = [Reply(text=block("wiki/concepts/tea.md", type="concept", title="Prefers green tea",
                                    description="I prefer green tea in the morning.", turns="the second one",
                                    action="remember"))]
    mem.dream(progress=False)
    result = job_result(mem)
    assert [e["reason"] for e in result["field_errors"]] == ["invalid-turns", "invalid-action"]
    assert "wiki/concepts/tea.md" in result["field_errors"][0]["detail"]
    cand = mem.candidates(status=None).to_dicts()[0]
    # without usable turns riko locates the evidence itself
    assert json.loads(cand["evidence"]) == [f"session:{SID}/event:{said['I prefer green tea in the morning.']}"]


# -- one batch, one change announced ----------------------------------------------------------------
def test_a_dream_batch_recompiles_the_resident_once(mem, stub):
    """A batch that contests a page (the model reused its title for another value) and admits
    another announces one change, after it: the Resident is recompiled once per batch, not once
    per conflict, and shows what the batch left (the contested page out, the new one in)."""
    mem.create_page("Home", "I live in Lisbon.", type="synthesis")
    assert "I live in Lisbon" in mem.resident().text
    mem.capture(user_event(SID, "I live in Porto."))
    mem.capture(user_event(SID, "I play the cello."))
    stub.script = [Reply(text=block("wiki/synthesis/home.md", type="synthesis", title="Home",
                                    description="I live in Porto.")
                       + "\n" + block("wiki/concepts/cello.md", type="concept", title="Plays the cello",
                                      description="I play the cello."))]
    changes: list[str] = []
    mem._ctx.changed.subscribe(lambda: changes.append("canon"), kinds={"canon"})
    report = mem.dream(progress=False)
    assert mem.conflicts("contested").height == 1 and len(report.auto_confirmed) == 1
    assert changes == ["canon"]
    text = mem.resident().text
    assert "I play the cello" in text and "Lisbon" not in text
