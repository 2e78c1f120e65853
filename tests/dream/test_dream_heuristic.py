"""The offline heuristic Dream provider: English and Chinese cues, hedges, and no invention."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from riko.dream import (
    Anchor,
    HeuristicProvider,
    ReflectionRequest,
    Transcript,
    TranscriptLine,
    parse_file_blocks,
    parse_reflection,
)
from riko.dream.protocol import ProposedPage


def conversation(*turns: tuple[str, str], session: str = "s1") -> Transcript:
    return Transcript(session, tuple(TranscriptLine(i + 1, role, text) for i, (role, text) in enumerate(turns)))


def pages_of(*turns: tuple[str, str]) -> tuple[ProposedPage, ...]:
    provider = HeuristicProvider()
    text = provider.extract(conversation(*turns))
    return parse_file_blocks(text, allow_empty=provider.empty_answer_ok).pages


def by_quote(pages: tuple[ProposedPage, ...]) -> dict[str, ProposedPage]:
    """The pages by the user's own words they quote."""
    return {p.quote: p for p in pages}


EN_TURNS = (
    ("user", "Hi! My name is Alex."),
    ("assistant", "Nice to meet you, Alex. I love meeting new people and I live in the cloud."),
    ("user", "I love hiking in the Alps, but I hate waking up early."),
    ("user", "I work as a data engineer. I live in Berlin."),
    ("user", "My sister Anna is a nurse in Paris."),
    ("user", "Please don't mention my ex again."),
    ("user", "I'm planning to run a marathon next year."),
    ("user", "Yesterday I went climbing with friends."),
    ("user", "I'm so tired lately."),
    ("assistant", "Yesterday I read about marathons; you should definitely run one next month!"),
)


def test_english_statements_map_to_folders_and_kinds():
    pages = by_quote(pages_of(*EN_TURNS))
    expected = {
        "My name is Alex": ("synthesis", "identity", "identity"),
        "I love hiking in the Alps": ("concepts", "preference", "preferences"),
        "I hate waking up early": ("concepts", "preference", "preferences"),
        "I work as a data engineer": ("synthesis", "identity", "identity"),
        "I live in Berlin": ("synthesis", "identity", "identity"),
        "My sister Anna is a nurse in Paris": ("relationships", "relationship", "people"),
        "Please don't mention my ex again": ("concepts", "boundary", "interaction_rules"),
        "I'm planning to run a marathon next year": ("episodes", "plan", "open_thread"),
        "Yesterday I went climbing with friends": ("episodes", "event", "experience"),
        "I'm so tired lately": ("emotions", "fact", "current_state"),
    }
    assert set(pages) == set(expected)
    for title, (folder, kind, category) in expected.items():
        page = pages[title]
        assert (page.folder, page.kind, page.category) == (folder, kind, category), title
        assert page.status == "candidate" and page.sensitivity == "normal"
    # one fact per page: the clause that carries it, not the whole sentence, stated so that it
    # reads alone; a fact that is its whole line keeps the user's exact words as its description
    assert pages["I love hiking in the Alps"].title == "The user loves hiking in the Alps"
    assert pages["I love hiking in the Alps"].description == "I love hiking in the Alps"
    assert pages["My name is Alex"].title == "The user's name is Alex"
    assert pages["My name is Alex"].description == "My name is Alex"
    assert pages["I'm so tired lately"].title == "The user is so tired lately"
    assert pages["I'm so tired lately"].description == "I'm so tired lately"
    assert pages["My sister Anna is a nurse in Paris"].slot == "Anna/occupation"
    assert [e.name for e in pages["My sister Anna is a nurse in Paris"].entities] == ["Anna", "Paris"]


def test_assistant_lines_never_produce_pages():
    provider = HeuristicProvider()
    only_assistant = conversation(
        ("assistant", "I love jazz. My name is Riko. Yesterday I went to Paris."),
        ("assistant", "我喜欢爵士乐。我叫小助手。"),
    )
    assert provider.extract(only_assistant) == ""
    assert parse_file_blocks("", allow_empty=provider.empty_answer_ok).pages == ()


ZH_TURNS = (
    ("user", "我叫小明。我是一名程序员，我住在上海。"),
    ("user", "我喜欢喝绿茶，我讨厌下雨天。"),
    ("user", "我姐姐在北京工作。"),
    ("user", "请不要再提我的前任。"),
    ("user", "我打算下个月去日本旅行。"),
    ("user", "昨天我去爬山了。"),
    ("user", "我今天好累。"),
    ("assistant", "我也喜欢绿茶！"),
)


def test_chinese_statements_map_to_folders_and_kinds():
    pages = by_quote(pages_of(*ZH_TURNS))
    expected = {
        "我叫小明": "identity",
        "我是一名程序员": "identity",
        "我住在上海": "identity",
        "我喜欢喝绿茶": "preference",
        "我讨厌下雨天": "preference",
        "我姐姐在北京工作": "relationship",
        "请不要再提我的前任": "boundary",
        "我打算下个月去日本旅行": "plan",
        "昨天我去爬山了": "event",
        "我今天好累": "fact",
    }
    assert {t: p.kind for t, p in pages.items()} == expected
    assert pages["我喜欢喝绿茶"].title == "用户喜欢喝绿茶" and pages["我喜欢喝绿茶"].description == "我喜欢喝绿茶"
    assert pages["我今天好累"].description == "我今天好累"  # the whole line: the user's exact words
    assert pages["请不要再提我的前任"].category == "interaction_rules"


@pytest.mark.parametrize("line", [
    "Don't tell my sister about the party.",
    "Please don't tell my sister about the party.",
    "Never tell anyone about my diagnosis.",
    "Don't share my address with anyone.",
    "不要告诉别人我怀孕了。",
    "别透露我的地址。",
])
def test_what_must_not_be_passed_on_is_a_boundary(line: str) -> None:
    """A secret the user asks to keep is an interaction rule, in English and Chinese; the bare
    "Don't tell my sister …" was read as a request and dropped."""
    (page,) = pages_of(("user", line))
    assert (page.kind, page.category) == ("boundary", "interaction_rules"), line
    assert page.description == line.rstrip(".。")


def test_a_one_off_dont_tell_me_is_no_secret() -> None:
    assert pages_of(("user", "Don't tell me the ending.")) == ()


@pytest.mark.parametrize(
    ("text", "hedge"),
    [
        ("Maybe I like jazz, but I'm not sure.", "Maybe"),
        ("I might move to Lisbon next year.", "might"),
        ("I probably prefer tea over coffee.", "probably"),
        ("我可能喜欢爵士乐。", "可能"),
        ("我也许打算明年换工作。", "也许"),
    ],
)
def test_hedges_are_preserved(text, hedge):
    (page,) = pages_of(("user", text))
    assert hedge in page.title and hedge in page.description and hedge in page.body
    assert "hedged" in page.tags
    assert page.confidence is not None and page.confidence < 0.5


def test_inference_trap_work_was_tiring():
    # a state is kept in the user's own words; nothing the words do not hold is added
    pages = pages_of(("user", "Work was tiring today."), ("user", "今天工作好累。"))
    assert [p.description for p in pages] == ["Work was tiring today", "今天工作好累"]
    mixed = pages_of(("user", "Work was tiring today. I love my cat Mochi."))
    assert [p.quote for p in mixed] == ["Work was tiring today", "I love my cat Mochi"]
    assert [p.title for p in mixed] == ["Work was tiring today", "The user loves their cat Mochi"]
    assert all("hate" not in (p.title + p.description + p.body).casefold() for p in mixed)


@pytest.mark.parametrize(
    "text",
    [
        "Do you like jazz?",
        "Do you think I should learn piano",
        "What do you love about hiking?",
        "If I won the lottery I would love to buy a boat.",
        "Imagine I lived in Tokyo.",
        "你喜欢爵士乐吗？",
        "如果我有钱，我会买房子。",
        "假如我住在东京就好了。",
        "My password is hunter2.",
        "我的银行卡号是6222020200112233445。",
        "I love it.",
        "I love you.",
        "I'd like a coffee.",
        "I used to like jazz.",
        "我叫了外卖。",
        "ok",
    ],
)
def test_questions_hypotheticals_secrets_and_vague_lines_produce_nothing(text):
    assert HeuristicProvider().extract(conversation(("user", text))) == ""


def test_sensitive_statements_are_tightened():
    (page,) = pages_of(("user", "I feel depressed these days."))
    assert page.sensitivity == "sensitive"


def test_existing_titles_are_reused_exactly():
    provider = HeuristicProvider()
    text = provider.extract(conversation(("user", "I love hiking in the Alps.")), existing_titles=["I LOVE hiking in the alps"])
    assert parse_file_blocks(text).pages[0].title == "I LOVE hiking in the alps"


def test_repeats_in_one_transcript_are_written_once_and_output_is_deterministic():
    turns = (("user", "I love jazz."), ("user", "I love jazz!"), ("user", "i love   jazz"))
    provider = HeuristicProvider()
    first = provider.extract(conversation(*turns))
    assert first == provider.extract(conversation(*turns))
    assert len(parse_file_blocks(first).pages) == 1


def test_max_pages_bounds_the_answer():
    turns = tuple(("user", f"I love topic number {i}.") for i in range(20))
    provider = HeuristicProvider(max_pages=5)
    assert len(parse_file_blocks(provider.extract(conversation(*turns))).pages) == 5


SENTENCES = [
    "I love hiking.",
    "Maybe I like jazz.",
    "Work was tiring today.",
    "Do you like tea?",
    "My brother Tom plays chess.",
    "我喜欢猫。",
    "我可能下个月去北京。",
    "Never bring up my job.",
    "The weather is nice.",
    "I'm a teacher.",
    "昨天我见了朋友。",
    "If I had time I would love to paint.",
]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["user", "assistant"]), st.sampled_from(SENTENCES)), max_size=10))
def test_every_page_quotes_a_user_line(turns):
    provider = HeuristicProvider()
    user_text = " ".join(text for role, text in turns if role == "user")
    for page in parse_file_blocks(provider.extract(conversation(*turns)), allow_empty=True).pages:
        # the user's words are the quote; the description is them or riko's statement of them
        assert page.quote in user_text
        assert page.description in user_text and page.title == page.body


def test_request_key_depends_on_the_transcript():
    provider = HeuristicProvider()
    a = conversation(("user", "I love jazz."))
    b = conversation(("user", "I love tea."))
    assert provider.request_key(a) == provider.request_key(a) != provider.request_key(b)


# --- heuristic reflection --------------------------------------------------------------------


def test_reflect_finds_repeated_statements_across_sessions():
    anchors = (
        Anchor("session:a/event:1", "a", "I love jazz music."),
        Anchor("session:b/event:3", "b", "I really love jazz music a lot."),
        Anchor("session:c/event:2", "c", "Jazz music, I love it."),
        Anchor("session:c/event:5", "c", "My sister lives in Paris."),
        Anchor("session:d/event:1", "d", "我喜欢喝绿茶。"),
        Anchor("session:e/event:7", "e", "我真的喜欢喝绿茶。"),
        Anchor("session:f/event:1", "f", "I feel depressed."),
        Anchor("session:g/event:1", "g", "I feel depressed again."),
    )
    request = ReflectionRequest("c", anchors, max_observations=3, min_evidence=2)
    text = HeuristicProvider().reflect(request)
    observations = parse_reflection(text, valid_anchors=request.anchor_refs(), min_evidence=2, max_observations=3)
    assert [o.anchors for o in observations] == [
        ("session:a/event:1", "session:b/event:3", "session:c/event:2"),
        ("session:d/event:1", "session:e/event:7"),
    ]
    assert "I love jazz music." in observations[0].text
    assert all(0 <= o.confidence <= 1 for o in observations)
    assert observations[0].confidence > observations[1].confidence


def test_reflect_respects_bounds_and_returns_valid_empty_json():
    request = ReflectionRequest("s", (Anchor("session:a/event:1", "a", "I love jazz."),), max_observations=3, min_evidence=2)
    assert json.loads(HeuristicProvider().reflect(request)) == {"observations": []}
    topics = ["jazz piano", "green tea", "mountain hiking", "chess openings", "french cooking"]
    many = tuple(Anchor(f"session:s{i}/event:{j}", f"s{i}", f"I love {t}.") for i, t in enumerate(topics) for j in range(2))
    request = ReflectionRequest("s", many, max_observations=2, min_evidence=2)
    assert len(json.loads(HeuristicProvider().reflect(request))["observations"]) == 2
