"""A standing instruction is a boundary to keep, whether or not it says "I": a rule for how the
other side answers, addresses or treats the speaker from now on ("Always use metric units for
me", "From now on, answer in Spanish", 以后都用中文回答我, 从现在开始叫我小李) is extracted, derived
as a ``boundary`` and proposed by the heuristic Dream, so it lands among the interaction rules.
A one-off instruction — about what is in hand ("this draft", "this time", "now", "here", 这次,
这篇, 上面) or with nothing that makes it last — proposes nothing, in English and Chinese."""

from __future__ import annotations

import pytest

import riko
from riko.dream import Transcript, TranscriptLine
from riko.dream.selection import choose, scored_facts
from riko.language.atoms import extract_facts
from riko.language.cues import is_boundary

STANDING_EN = [
    "Always use metric units for me.",
    "From now on, answer in Spanish.",
    "Never use emoji when you reply to me",
    "Going forward, keep your answers under 100 words",
    "In future, call me Sam",
    "Please always reply in British English.",
    "From now on, address me by my first name.",
    "Answer in Spanish from now on.",
    "Going forward, always include the sources in your answers.",
    "In the future, give me the short version first.",
    "Never write more than three paragraphs for me.",
    "Whenever I ask for a recipe, give me the amounts in grams.",
    # any verb, for whenever the speaker asks
    "Always confirm delivery dates when I ask about accessory orders.",
    "Always clarify the difference between P(A|B) and P(B|A) when I ask about Bayes' theorem problems.",
    "Never skip the units when I'm asking about physics problems.",
    # making sure of something, said as always
    "Just please make sure, as always, that the examples we use are rooted in real-world social science issues.",
    "Always make sure the examples you give me are real.",
]
STANDING_ZH = [
    "以后都用中文回答我。",
    "以后回答我的时候不要用表情",
    "从现在开始叫我小李",
    "今后请用简体中文回复我。",
    "每次回答我都先给结论。",
    "从现在起，回答我的时候用公制单位。",
    "以后给我的回答控制在一百字以内。",
    "永远用敬语称呼我。",
    "总是用中文回答我。",
    "以后叫我老王就行。",
    "以后跟我说话别用英文。",
]
ONE_OFF_EN = [
    "Use the table format for this answer",
    "Now answer in Spanish",
    "Always double-check the numbers in this draft",
    "Answer in Spanish this time.",
    "Use metric units for this recipe.",
    "Keep this answer under 100 words.",
    "Always check the spelling in the paragraph above.",
    "Never mind, use the first option.",
    "Reply in English here.",
    "Always use the same font in these slides.",
    "Never use that word in this essay.",
    "Always keep your head up!",
    "Never give up on your dreams.",
    "Always make sure to double-check this draft.",
    "Just make sure the numbers in this table add up.",
]
ONE_OFF_ZH = [
    "这次用中文回答我。",
    "现在用英文回答。",
    "用表格回答这个问题。",
    "帮我把这段翻译成英文。",
    "这篇文章用简体中文写。",
    "以后再说吧。",
    "这份报告里的数字都用公制单位。",
    "刚才那段话用英文再说一遍。",
    "请用表格列出上面的数据。",
    "以后的事以后再说。",
    "这次回答我的时候用公制单位。",
]


#: Not an instruction at all, though it says "always", 以后 or 每次: no boundary.
NOT_RULES = [
    "I always use metric units.",
    "Every time he calls me, I smile.",
    "以后用得着我的地方尽管说。",
    "每次给我打电话他都很开心。",
]


def _proposed(text: str) -> list[str]:
    t = Transcript("s1", (TranscriptLine(1, "user", text),))
    return [s.fact.text for s in choose(scored_facts(t))]


@pytest.mark.parametrize("text", STANDING_EN + STANDING_ZH)
def test_a_standing_instruction_is_a_boundary_fact(text: str) -> None:
    assert is_boundary(text)
    facts = extract_facts(text)
    assert len(facts) == 1, facts
    assert facts[0].derived.kind == "boundary"
    assert facts[0].derived.attribute == "boundary" and facts[0].derived.slot.startswith("user/boundary:")


@pytest.mark.parametrize("text", STANDING_EN + STANDING_ZH)
def test_the_heuristic_dream_proposes_a_standing_instruction(text: str) -> None:
    proposed = _proposed(text)
    assert len(proposed) == 1 and proposed[0] == extract_facts(text)[0].text


@pytest.mark.parametrize("text", ONE_OFF_EN + ONE_OFF_ZH)
def test_a_one_off_instruction_proposes_nothing(text: str) -> None:
    assert not is_boundary(text)
    assert all(f.derived.kind != "boundary" for f in extract_facts(text))
    assert _proposed(text) == []


@pytest.mark.parametrize("text", NOT_RULES)
def test_a_statement_that_only_sounds_standing_is_no_boundary(text: str) -> None:
    assert not is_boundary(text)
    assert all(f.derived.kind != "boundary" for f in extract_facts(text))


def _say(mem, session: str, text: str) -> None:
    mem.capture({"session_id": session, "type": "user/message",
                 "data": {"role": "user", "source": {"kind": "user"}, "content": [{"type": "text", "text": text}]}})


def test_a_dream_run_keeps_a_standing_instruction_as_an_interaction_rule(tmp_path) -> None:
    with riko.open(tmp_path, preset="companion", config={"candidate_auto_confirm": "user_grounded"}) as mem:
        for text in ["Always use metric units for me.", "Use the table format for this answer.",
                     "以后都用中文回答我。", "这次用英文回答。"]:
            _say(mem, "s1", text)
        mem.dream(progress=False)
        rules = [p for p in mem._review.canon.pages() if p.category == "interaction_rules"]
        said = " | ".join(p.description or "" for p in rules)
        assert "metric units" in said and "中文回答我" in said
        assert "table format" not in said and "英文" not in said
        assert all(p.kind == "boundary" for p in rules if "metric" in (p.description or ""))
