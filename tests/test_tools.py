"""The six agent tools over a real scope: L0 events captured live, pages on disk, a real DuckDB."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import riko
from riko.clock import FixedClock
from riko.errors import ReadOnlyError, ScopeError
from riko.tools import (
    CORRECT_REFUSAL,
    MISSING_SESSION,
    REMEMBER_REFUSAL,
    TOOL_NAMES,
    ToolBox,
    has_cue,
    looks_temporal,
)

FORBIDDEN = ("scope", "profile", "session", "preset", "owner")


def say(mem, sid: str, text: str, kind: str = "user"):
    """A user/message event; ``kind`` other than ``user`` is a plugin injection."""
    mem.clock.advance(seconds=1)
    return mem.capture({"session_id": sid, "type": "user/message",
                        "data": {"role": "user", "source": {"kind": kind}, "content": [{"type": "text", "text": text}]}})


def reply(mem, sid: str, text: str):
    mem.clock.advance(seconds=1)
    return mem.capture({"session_id": sid, "type": "assistant/message",
                        "data": {"turn": 1, "step": 0, "message": {"role": "assistant", "content": [{"type": "text", "text": text}],
                                                                   "source": {"kind": "model", "model": "m"}}}})


@pytest.fixture
def mem(tmp_path):
    with riko.open(tmp_path / "root", preset="companion", clock=FixedClock("2026-01-15T09:00:00Z")) as m:
        yield m


def live_ids(mem) -> set[str]:
    return set(mem.pages().filter(mem.pages()["status"] == "confirmed")["id"].to_list())


def remember(mem, box, text: str) -> str:
    say(mem, box.session_id, f"Please remember: {text}.")
    result = box.call("memory_remember", {"content": text})
    assert result.ok, result.error
    return result.id


# ---------------------------------------------------------------------------- schemas


def _walk_keys(value):
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _walk_keys(item)
    elif isinstance(value, list):
        for item in value:
            yield from _walk_keys(item)


def _check_object_schema(schema: dict) -> None:
    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False
    assert set(schema.get("required", [])) <= set(schema["properties"])
    for name, prop in schema["properties"].items():
        assert prop["type"] == "string" and prop["description"]
        assert all(isinstance(v, str) for v in prop.get("enum", []))
        assert not any(word in name.lower() for word in FORBIDDEN)


def test_schemas_in_both_shapes_have_no_scope_or_session_field(mem):
    box = ToolBox(mem, "s1")
    openai, anthropic = box.schemas("openai"), box.schemas("anthropic")
    assert [t["function"]["name"] for t in openai] == list(TOOL_NAMES)
    assert [t["name"] for t in anthropic] == list(TOOL_NAMES)
    for o, a in zip(openai, anthropic):
        assert o["type"] == "function" and o["function"]["description"] == a["description"]
        assert o["function"]["parameters"] == a["input_schema"]
        _check_object_schema(a["input_schema"])
        assert json.loads(json.dumps(o)) == o
        for key in _walk_keys(a["input_schema"]["properties"]):
            assert not any(word in key.lower() for word in FORBIDDEN)
    by_name = {t["name"]: t["input_schema"] for t in anthropic}
    assert by_name["memory_get_resident"]["properties"] == {}
    assert by_name["memory_remember"]["required"] == ["content"]
    assert by_name["memory_remember"]["properties"]["sensitivity"]["enum"] == ["normal", "sensitive"]
    assert by_name["memory_correct"]["required"] == ["id", "content"]
    assert set(by_name["memory_forget"]["properties"]) == {"id", "target"} and "required" not in by_name["memory_forget"]
    with pytest.raises(ValueError, match="openai"):
        box.schemas("xml")


# ---------------------------------------------------------------------------- session binding


def test_every_call_requires_a_session(mem):
    for sid in ("", "   "):
        box = ToolBox(mem, sid)
        for name in TOOL_NAMES:
            with pytest.raises(ScopeError, match=MISSING_SESSION):
                box.call(name, {})


def test_unknown_argument_and_malformed_arguments_are_refused(mem):
    box = ToolBox(mem, "s1")
    say(mem, "s1", "Remember that I prefer green tea.")
    scoped = box.call("memory_remember", {"content": "I prefer green tea", "scope_key": "local:work"})
    assert not scoped.ok and "'scope_key'" in scoped.error
    assert box.call("memory_get_resident", {"session": "other"}).ok is False
    assert "must be a string" in box.call("memory_remember", {"content": 3}).error
    assert "one of normal, sensitive" in box.call("memory_remember", {"content": "I prefer green tea", "sensitivity": "secret"}).error
    assert "not valid JSON" in box.call("memory_remember", "{content:").error
    assert "JSON object" in box.call("memory_remember", "[1]").error
    assert "requires the argument 'content'" in box.call("memory_remember", {}).error
    assert box.call("memory_correct", {"id": "p-x", "content": " "}).error == CORRECT_REFUSAL
    assert "unknown tool" in box.call("memory_purge_everything", {}).error
    assert live_ids(mem) == set()
    refused = mem.audits("memory-tool-refused")
    assert refused.height == 7 and set(refused["authority"]) == {"refused"}


@pytest.fixture(scope="module")
def shared_mem(tmp_path_factory):
    with riko.open(tmp_path_factory.mktemp("prop") / "root", preset="companion",
                   clock=FixedClock("2026-01-15T09:00:00Z")) as m:
        say(m, "s1", "Remember that I prefer green tea.")
        yield m


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(TOOL_NAMES), extra=st.text(min_size=1, max_size=12))
def test_any_argument_outside_the_schema_is_refused(shared_mem, name, extra):
    box = ToolBox(shared_mem, "s1")
    schema = {t["name"]: t["input_schema"] for t in box.schemas("anthropic")}[name]
    if extra in schema["properties"]:
        return
    args = {"content": "I prefer green tea", "id": "p-x", extra: "local:other"}
    args = {k: v for k, v in args.items() if k in schema["properties"] or k == extra}
    result = box.call(name, json.dumps(args))
    assert not result.ok and repr(extra) in result.error
    assert shared_mem.pages().height == 0


# ---------------------------------------------------------------------------- remember


def test_remember_accepts_a_claim_from_the_latest_user_message(mem):
    box = ToolBox(mem, "s1")
    ref = say(mem, "s1", "Please remember that I prefer green tea in the morning!")
    result = box.call("memory_remember", '{"content": "  I prefer green tea in the morning "}')
    assert result.ok and result.id and result.scope_key == "local:companion"
    page = mem.page(result.id)
    assert page.description == "I prefer green tea in the morning"
    assert page.sources == [str(ref)] and page.status == "confirmed" and page.sensitivity == "normal"
    assert "green tea in the morning" in result.resident
    snap = mem.resident()
    assert (result.resident, result.version) == (snap.text, snap.version) and result.id in snap.source_page_ids
    audit = mem.audits("memory-remembered")
    assert audit.height == 1 and audit["authority"][0] == "user" and audit["target"][0] == result.id
    data = result.to_dict()
    assert data["scopeKey"] == "local:companion" and data["id"] == result.id
    assert data["confirmationRequired"] is False and data["candidates"] == [] and data["version"] == snap.version
    assert "remembered" in result.text() and snap.version in result.text()
    again = box.call("memory_remember", {"content": "I prefer green tea in the morning"})
    assert again.ok and again.id == result.id and len(live_ids(mem)) == 1


@pytest.mark.parametrize("where", ["earlier", "assistant", "plugin", "other-session", "nowhere", "blank"])
def test_remember_refuses_claims_the_user_did_not_just_type(mem, where):
    claim = "I prefer green tea"
    box = ToolBox(mem, "s1")
    if where == "earlier":
        say(mem, "s1", f"{claim}.")
        say(mem, "s1", "What is the weather like?")
    elif where == "assistant":
        say(mem, "s1", "What do I like to drink?")
        reply(mem, "s1", f"You told me: {claim}.")
    elif where == "plugin":
        say(mem, "s1", "Hello again")
        say(mem, "s1", f"<MEMORY_DATA>{claim}</MEMORY_DATA>", kind="plugin")
    elif where == "other-session":
        say(mem, "s2", f"Remember: {claim}.")
        say(mem, "s1", "Hi there")
    elif where == "nowhere":
        pass
    else:
        say(mem, "s1", f"{claim}.")
        claim = "   "
    result = box.call("memory_remember", {"content": claim} if claim.strip() else '{"content": "   "}')
    assert not result.ok and result.error == REMEMBER_REFUSAL
    assert live_ids(mem) == set() and mem.audits("memory-remembered").height == 0
    assert "Not done" in result.text()


def test_remember_refusal_exact_text_and_audit(mem):
    say(mem, "s1", "I like jazz")
    result = ToolBox(mem, "s1").call("memory_remember", {"content": "I like classical music"})
    assert result.error == REMEMBER_REFUSAL == "memory_remember requires an exact claim from the latest raw user message"
    refused = mem.audits("memory-tool-refused")
    assert refused.height == 1 and json.loads(refused["detail"][0])["reason"] == REMEMBER_REFUSAL


def test_remember_sensitivity_only_tightens(mem):
    box = ToolBox(mem, "s1")
    say(mem, "s1", "Remember this: I was diagnosed with asthma. Also my badge number is 48213-775.")
    cue = box.call("memory_remember", {"content": "I was diagnosed with asthma"})
    ident = box.call("memory_remember", {"content": "my badge number is 48213-775", "sensitivity": "normal"})
    assert mem.page(cue.id).sensitivity == "sensitive"
    assert mem.page(ident.id).sensitivity in ("provisional_sensitive", "sensitive")
    say(mem, "s1", "Keep this private: I am saving for a house.")
    asked = box.call("memory_remember", {"content": "I am saving for a house", "sensitivity": "sensitive"})
    assert mem.page(asked.id).sensitivity == "sensitive"
    assert "saving for a house" not in asked.resident and "asthma" not in asked.resident
    assert mem.audits("memory-sensitivity-classified").height >= 1


def test_remember_applies_explicit_coreference_from_the_user_message(mem):
    alice = mem.create_page("Alice", type="entity", description="A person the user knows")
    box = ToolBox(mem, "s1")
    say(mem, "s1", "Ally (Alice) is my sister. Please remember that.")
    result = box.call("memory_remember", {"content": "Ally (Alice) is my sister"})
    assert result.ok and "alias" in result.message
    aliases = mem.aliases()
    row = aliases.filter(aliases["alias"] == "Ally")
    assert row.height == 1 and row["entity_id"][0] == alice.id
    assert row["resolution_kind"][0] == "explicit_coreference" and row["status"][0] == "active"
    assert mem.resolve_alias("ally") == alice.id


def test_temporal_reconcile_replaces_the_page_it_changes(tmp_path):
    clock = FixedClock("2026-01-15T09:00:00Z")
    with riko.open(tmp_path / "r", preset="companion", clock=clock, config={"temporal_reconcile_enabled": True}) as mem:
        box = ToolBox(mem, "s1")
        old = remember(mem, box, "I live in Paris")
        remember(mem, box, "I prefer green tea")
        say(mem, "s1", "Update: I now live in Berlin.")
        result = box.call("memory_remember", {"content": "I now live in Berlin"})
        assert result.ok and result.id != old and "replaces" in result.message
        new, closed = mem.page(result.id), mem.page(old)
        assert new.supersedes == old and closed.superseded_by == new.id and closed.valid_to == new.valid_from
        assert "Berlin" in result.resident and "Paris" not in result.resident
        assert mem.audits("page-replaced")["authority"].to_list() == ["user"]
    with riko.open(tmp_path / "off", preset="companion", clock=FixedClock("2026-01-15T09:00:00Z")) as mem:
        box = ToolBox(mem, "s1")
        old = remember(mem, box, "I live in Paris")
        new = remember(mem, box, "I now live in Berlin")
        assert mem.page(old).superseded_by is None and len(live_ids(mem)) == 2 and new != old


def test_temporal_cues():
    assert looks_temporal("I now live in Berlin") and looks_temporal("I no longer eat meat")
    assert looks_temporal("我现在住在柏林") and looks_temporal("我不再喝咖啡")
    assert not looks_temporal("I live in Paris") and not looks_temporal("我喜欢绿茶")


# ---------------------------------------------------------------------------- correct


def test_correct_keeps_identity_and_needs_the_replacement_from_the_user(mem):
    box = ToolBox(mem, "s1")
    pid = remember(mem, box, "I prefer green tea in the morning")
    say(mem, "s1", "Sorry, correction: I prefer oolong tea in the morning.")
    refused = box.call("memory_correct", {"id": pid, "content": "I prefer black coffee"})
    assert refused.error == CORRECT_REFUSAL and mem.page(pid).version == 1
    result = box.call("memory_correct", {"id": pid, "content": "I prefer oolong tea in the morning"})
    assert result.ok and result.id == pid
    page = mem.page(pid)
    assert page.version == 2 and page.description == "I prefer oolong tea in the morning"
    assert mem.page_versions(pid).height == 1 and "oolong" in result.resident
    assert mem.audits("page-corrected")["authority"].to_list() == ["user"]
    missing = box.call("memory_correct", {"id": "p-0000000000000000", "content": "I prefer oolong tea in the morning"})
    assert not missing.ok and "p-0000000000000000" in missing.error and missing.version == result.version


# ---------------------------------------------------------------------------- forget / suppress / restore


def test_cue_lists_in_english_and_chinese():
    assert has_cue("forget", "Please forget that I prefer tea") and has_cue("forget", "delete the tea note")
    assert has_cue("forget", "I don't remember... no, I mean: don't remember that") and has_cue("forget", "请忘记我喜欢绿茶")
    assert has_cue("forget", "别记这个") and not has_cue("forget", "Don't forget my birthday")
    assert not has_cue("forget", "别忘记我的生日") and not has_cue("forget", "I prefer tea")
    assert has_cue("suppress", "Please don't mention my job") and has_cue("suppress", "stop bringing up the divorce")
    assert has_cue("suppress", "Don't bring it up again") and has_cue("suppress", "以后别提面包店")
    assert has_cue("suppress", "请隐藏这条") and not has_cue("suppress", "You can mention my job")
    assert has_cue("restore", "You can mention my job again") and has_cue("restore", "bring the tea thing back")
    assert has_cue("restore", "可以再提面包店了") and has_cue("restore", "恢复那条记忆")
    assert not has_cue("restore", "不可以提面包店") and not has_cue("restore", "don't mention it")
    assert has_cue("restore", "unhide it") and not has_cue("suppress", "unhide it")


@pytest.mark.parametrize("text,target", [
    ("Please suppress the memory about peanuts", "peanuts"),
    ("Can you suppress the peanut allergy?", "peanut allergy"),
    ("mute the peanuts thing, please", "peanuts"),
    ("请屏蔽关于花生的记忆", "花生"),
    ("把花生那条记忆屏蔽掉", "花生"),
    ("别再提花生了", "花生"),
    ("把花生的事藏起来", "花生"),
])
def test_the_word_the_suppress_tool_is_named_after_is_a_suppression_cue(mem, text, target):
    box = ToolBox(mem, "s1")
    pid = remember(mem, box, "I'm allergic to peanuts (花生)")
    say(mem, "s1", text)
    result = box.call("memory_suppress", {"target": target})
    assert result.ok, result.error
    assert result.id == pid and mem.page(pid).usage_policy == "suppressed"


def test_suppress_cues_are_not_read_into_other_words():
    for text in ("Don't suppress the memory about peanuts", "I never asked you to suppress it",
                 "I suppressed my feelings for years", "The mute button is broken", "不要屏蔽花生的记忆"):
        assert not has_cue("suppress", text), text
    for text in ("unsuppress the peanut memory", "取消屏蔽花生那条", "解除屏蔽花生"):
        assert has_cue("restore", text) and not has_cue("suppress", text), text


def test_forget_needs_a_cue_and_keeps_raw_evidence(mem):
    box = ToolBox(mem, "s1")
    pid = remember(mem, box, "I prefer green tea in the morning")
    say(mem, "s1", "Green tea is nice, isn't it?")
    refused = box.call("memory_forget", {"target": "Green tea"})
    assert refused.error == "memory_forget requires an explicit deletion cue in the latest raw user message"
    assert pid in live_ids(mem)
    say(mem, "s1", "Please forget that I like green tea.")
    assert "target named in the latest" in box.call("memory_forget", {"target": "coffee"}).error
    result = box.call("memory_forget", {"target": "green tea"})
    assert result.ok and result.id == pid and result.raw_session_retained is True
    assert result.to_dict()["rawSessionRetained"] is True and "retained" in result.text()
    assert pid not in live_ids(mem) and "green tea" not in result.resident
    texts = mem.evidence("s1")["text"].to_list()
    assert "Please remember: I prefer green tea in the morning." in texts
    assert mem.audits("page-forgotten")["authority"].to_list() == ["user"]


def test_forget_in_chinese_resolves_by_alias(mem):
    alice = mem.create_page("Alice", type="entity", description="A person the user knows")
    mem.add_alias(alice.id, "小爱")
    box = ToolBox(mem, "s1")
    say(mem, "s1", "请忘记小爱")
    result = box.call("memory_forget", {"target": "小爱"})
    assert result.ok and result.id == alice.id and result.raw_session_retained is True
    assert mem.resolve_alias("小爱") is None  # the forgotten entity's aliases are invalidated


def test_suppress_and_restore_in_english_and_chinese(mem):
    box = ToolBox(mem, "s1")
    pid = remember(mem, box, "I work at the corner bakery")
    say(mem, "s1", "The bakery was busy today.")
    assert "suppression cue" in box.call("memory_suppress", {"id": pid}).error
    say(mem, "s1", "Please don't mention the bakery any more.")
    result = box.call("memory_suppress", {"target": "bakery"})
    assert result.ok and result.id == pid and "bakery" not in result.resident
    assert mem.page(pid).usage_policy == "suppressed"
    reason = mem.warehouse.fetchone("SELECT reason FROM suppressions WHERE target_id = ? AND active", [pid])
    assert reason == ("user-requested-suppression",)
    say(mem, "s1", "What did I say about the bakery?")
    assert "restore cue" in box.call("memory_restore", {"target": "bakery"}).error
    say(mem, "s1", "You can mention the bakery again.")
    back = box.call("memory_restore", {"target": "bakery"})
    assert back.ok and "bakery" in back.resident and mem.page(pid).usage_policy == "normal"
    row = mem.warehouse.fetchone("SELECT restore_reason, active FROM suppressions WHERE target_id = ?", [pid])
    assert row == ("user-requested-restore", False)

    zh = remember(mem, box, "我在面包店工作")
    mem.clock.advance(seconds=5)
    say(mem, "s1", "以后别提面包店了")
    hidden = box.call("memory_suppress", {"id": zh})
    assert hidden.ok and "面包店" not in hidden.resident
    mem.clock.advance(seconds=5)
    say(mem, "s1", "可以再提面包店了")
    shown = box.call("memory_restore", {"target": "面包店"})
    assert shown.ok and shown.id == zh and "面包店" in shown.resident


def test_restore_of_a_page_that_is_not_suppressed_fails(mem):
    box = ToolBox(mem, "s1")
    pid = remember(mem, box, "I prefer green tea")
    say(mem, "s1", "Please restore the green tea memory.")
    result = box.call("memory_restore", {"id": pid})
    assert not result.ok and "not suppressed" in result.error and result.version


def test_ambiguous_target_asks_for_confirmation_and_changes_nothing(mem):
    box = ToolBox(mem, "s1")
    a = remember(mem, box, "I like green tea")
    b = remember(mem, box, "I like green apples")
    before = mem.pages()
    audits = mem.audits().height
    say(mem, "s1", "Forget the green stuff.")
    result = box.call("memory_forget", {"target": "green"})
    assert not result.ok and result.confirmation_required
    assert {c["id"] for c in result.candidates} == {a, b}
    assert all(set(c) == {"id", "title", "summary"} for c in result.candidates)
    assert a in result.text() and b in result.text() and "Confirmation required" in result.text()
    assert result.to_dict()["confirmationRequired"] is True
    assert mem.pages().equals(before) and mem.audits().height == audits
    chosen = box.call("memory_forget", {"id": a})
    assert chosen.ok and live_ids(mem) == {b}


def test_no_target_and_missing_target_are_clear_errors(mem):
    box = ToolBox(mem, "s1")
    remember(mem, box, "I like green tea")
    say(mem, "s1", "Delete the note about sailing.")
    assert "no memory" in box.call("memory_forget", {"target": "sailing"}).error
    assert "needs an id or a target" in box.call("memory_forget", {}).error


# ---------------------------------------------------------------------------- get_resident, read-only


def test_get_resident_is_read_only(mem):
    box = ToolBox(mem, "s1")
    remember(mem, box, "I prefer green tea")
    audits, pages = mem.audits().height, mem.pages()
    result = box.call("memory_get_resident", "")
    assert result.ok and result.id is None and "green tea" in result.resident
    assert result.version == mem.warehouse.fetchone("SELECT resident_version FROM profiles")[0]
    assert result.text().endswith(result.resident)
    assert box.call("memory_get_resident", {"scope": "x"}).ok is False
    assert mem.audits().height == audits and mem.pages().equals(pages)


def test_read_only_memory_serves_the_resident_and_raises_on_writes(tmp_path):
    root = tmp_path / "root"
    with riko.open(root, preset="companion", clock=FixedClock("2026-01-15T09:00:00Z")) as mem:
        remember(mem, ToolBox(mem, "s1"), "I prefer green tea")
    with riko.open(root, preset="companion", read_only=True) as ro:
        box = ToolBox(ro, "s1")
        assert "green tea" in box.call("memory_get_resident").resident
        with pytest.raises(ReadOnlyError):
            box.call("memory_remember", {"content": "I prefer green tea"})


def test_an_id_from_another_scope_is_not_reachable(tmp_path):
    root = tmp_path / "root"
    clock = FixedClock("2026-01-15T09:00:00Z")
    with riko.open(root, preset="work", clock=clock) as work:
        foreign = remember(work, ToolBox(work, "s1"), "I prefer standing desks")
    with riko.open(root, preset="companion", clock=clock) as mem:
        box = ToolBox(mem, "s1")
        say(mem, "s1", "Please forget that I prefer standing desks.")
        result = box.call("memory_forget", {"id": foreign})
        assert not result.ok and foreign in result.error and result.scope_key == "local:companion"
        assert "no memory in scope local:companion" in box.call("memory_forget", {"target": "standing desks"}).error
    with riko.open(root, preset="work", clock=clock) as work:
        assert foreign in live_ids(work)


# ---------------------------------------------------------------------------- authority of the target


@pytest.mark.parametrize("tool,cue", [
    ("memory_forget", "ok forget it, never mind"),
    ("memory_suppress", "never mind, don't mention it"),
    ("memory_restore", "fine, you can mention it again"),
])
def test_an_id_the_user_did_not_name_is_refused(mem, tool, cue):
    box = ToolBox(mem, "s1")
    pid = remember(mem, box, "I work at the corner bakery")
    if tool == "memory_restore":
        say(mem, "s1", "Please don't mention the bakery")
        assert box.call("memory_suppress", {"target": "bakery"}).ok
    before = mem.page(pid)
    say(mem, "s1", cue)
    result = box.call(tool, {"id": pid})
    assert not result.ok and result.error == f"{tool} requires a target named in the latest raw user message"
    after = mem.page(pid)
    assert (after.status, after.usage_policy, after.version) == (before.status, before.usage_policy, before.version)
    refusal = mem.audits("memory-tool-refused")
    assert refusal["target"].to_list()[-1] == tool


def test_an_id_written_by_the_user_or_named_by_an_alias_is_accepted(mem):
    box = ToolBox(mem, "s1")
    pid = remember(mem, box, "I work at the corner bakery")
    say(mem, "s1", f"forget {pid} please")
    assert box.call("memory_forget", {"id": pid}).ok
    alice = mem.create_page("Alice", type="entity", description="A person the user knows")
    mem.add_alias(alice.id, "Ali")
    say(mem, "s1", "Never mention Ali again")
    assert box.call("memory_suppress", {"id": alice.id}).ok
    say(mem, "s1", "Delete the other one, the tea thing")
    assert "named in the latest" in box.call("memory_forget", {"id": alice.id}).error


# ---------------------------------------------------------------------------- protected text in tool results


def test_protected_pages_never_reach_the_model_through_tool_text(mem):
    box = ToolBox(mem, "s1")
    hiv = remember(mem, box, "I have HIV diagnosis since 2020")
    pin = remember(mem, box, "my bank PIN is 9999")
    pwd = remember(mem, box, "my bank password is hunter2")
    assert mem.page(hiv).sensitivity == "sensitive" and mem.page(pin).sensitivity != "normal"
    for pid in (hiv, pin, pwd):
        assert not {"HIV", "9999", "hunter2"} & set(mem.page(pid).title.split())
    say(mem, "s1", "Forget my bank stuff")
    ambiguous = box.call("memory_forget", {"target": "my bank"})
    assert ambiguous.confirmation_required and {c["id"] for c in ambiguous.candidates} == {pin, pwd}
    texts = [ambiguous.text(), json.dumps(ambiguous.to_dict())]
    for pid in (hiv, pin, pwd):
        say(mem, "s1", f"Please forget {pid}")
        done = box.call("memory_forget", {"id": pid})
        assert done.ok
        texts += [done.text(), json.dumps(done.to_dict())]
    for text in texts:
        assert not any(word in text for word in ("HIV", "9999", "hunter2", "2020")), text


def test_filler_words_beside_a_cue_name_no_memory(mem):
    box = ToolBox(mem, "s1")
    pid = remember(mem, box, "I never mind the rain, it is just one of those things")
    say(mem, "s1", "ok forget it, never mind, just one thing")
    assert "named in the latest" in box.call("memory_forget", {"id": pid}).error
    say(mem, "s1", "forget the rain one")
    assert box.call("memory_forget", {"id": pid}).ok
