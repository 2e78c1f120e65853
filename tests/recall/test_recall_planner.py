"""The recall planner: intents in English and Chinese, utility shutdown, channels, time."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from riko.errors import ConfigError
from riko.recall import CHANNEL_ORDER, analyze_recall_query, parse_query_time

ALL_ON = dict(observation_enabled=True, graph_enabled=True, vector_enabled=True)


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    ("query", "intent"),
    [
        ("Actually, my sister moved to Berlin", "correction_check"),
        ("其实我妹妹搬到柏林了", "correction_check"),
        ("Is that still correct about my job?", "correction_check"),
        ("When did we talk about the Japan trip?", "temporal"),
        ("我们上次什么时候聊过日本旅行？", "temporal"),
        ("What happened to the project my sister started?", "multi_hop"),
        ("我妹妹的那个项目后来怎么样了？", "multi_hop"),
        ("Do you remember my dentist appointment?", "episodic"),
        ("你还记得我们聊过深色模式吗", "episodic"),
        ("What kind of coffee do I prefer?", "stable_profile"),
        ("我喜欢什么口味的咖啡？", "stable_profile"),
        ("Dr Chen's phone number?", "entity"),
        ("我的订单号是多少", "entity"),
        ("hello there", "none"),
        ("你好", "none"),
    ],
)
def test_intents_in_english_and_chinese(query: str, intent: str) -> None:
    plan = analyze_recall_query(query)
    assert plan.intent == intent
    assert plan.utility is False
    assert plan.is_open is (intent != "none")


@pytest.mark.parametrize(
    ("query", "channels"),
    [
        ("Actually, my sister moved to Berlin", ("lexical", "rawEvidence", "observation", "graph", "dense")),
        ("When did we talk about the Japan trip?", ("lexical", "rawEvidence", "observation", "graph", "dense")),
        # "我妹妹" is the user's own sister, a detail like "my sister" in English: evidence opens too
        ("我妹妹的那个项目后来怎么样了？", ("lexical", "rawEvidence", "observation", "graph", "dense")),
        ("Do you remember my dentist appointment?", ("lexical", "rawEvidence", "observation", "graph", "dense")),
        ("What kind of coffee do I prefer?", ("lexical", "observation", "dense")),
        ("我喜欢什么口味的咖啡？", ("lexical", "observation", "dense")),
        ("What's my order number B-417?", ("lexical", "exact", "rawEvidence", "observation", "graph", "dense")),
        ("hello there", ()),
    ],
)
def test_channel_gating_follows_cues(query: str, channels: tuple[str, ...]) -> None:
    assert analyze_recall_query(query, **ALL_ON).channels() == channels


def test_feature_flags_close_their_channels() -> None:
    query = "Do you remember what happened to order B-417?"
    everything = analyze_recall_query(query, **ALL_ON)
    assert everything.channels() == CHANNEL_ORDER
    defaults = analyze_recall_query(query)
    assert defaults.channels() == ("lexical", "exact", "rawEvidence")
    no_raw = analyze_recall_query(query, raw_evidence_enabled=False)
    assert no_raw.channels() == ("lexical", "exact")


@pytest.mark.parametrize(
    "query",
    [
        "what is 17*23",
        "What is 17 x 23?",
        "Explain how TCP handshakes work",
        "How do I reverse a list in Python?",
        "Translate 'good morning' into French",
        "Define entropy",
        "Write a function that sorts a list",
        "Can you help me debug this stack trace?",
        "解释一下量子纠缠",
        "帮我翻译这句话",
        "什么是区块链",
        "计算17乘以23",
        "帮我写一个排序函数",
    ],
)
def test_utility_queries_open_no_channel(query: str) -> None:
    plan = analyze_recall_query(query, **ALL_ON)
    assert plan.utility is True
    assert plan.personal is False
    assert plan.intent == "none"
    assert plan.channels() == ()


@pytest.mark.parametrize(
    "query",
    [
        "Explain what I told you about my knee",
        "Can you translate the poem I wrote for my mother?",
        "Remember when I asked you what 17*23 is?",
        "解释一下我的体检报告",
        "计算我的房贷还剩多少",
        "你还记得我让你翻译的那封信吗",
    ],
)
def test_personal_cue_reopens_a_utility_query(query: str) -> None:
    plan = analyze_recall_query(query, vector_enabled=True)
    assert plan.utility is True
    assert plan.personal is True
    assert plan.intent != "none"
    assert plan.channels()[0] == "lexical"
    assert "dense" in plan.channels()


@pytest.mark.parametrize(
    ("query", "is_open"),
    [
        ("status of B-417?", False),
        ("what does RFC 7231 say", False),
        ("订单B-417的状态", False),
        ("status of my order B-417?", True),
        ("我的订单B-417到哪了", True),
        ("What did Alice say on 2026-04-03?", True),  # a date is a time cue, not an identifier
    ],
)
def test_identifier_shaped_detail_needs_a_personal_cue(query: str, is_open: bool) -> None:
    assert analyze_recall_query(query).is_open is is_open


@pytest.mark.parametrize(
    ("query", "intent"),
    [
        ("我妹妹住在哪里？", "entity"),  # a possessive without 的 names the user's own sister
        ("Where does my sister live?", "entity"),
        ("What tea do I drink in the morning?", "stable_profile"),
        ("我早上喝什么茶？", "stable_profile"),
        ("Where do I work?", "stable_profile"),
        ("我在哪里工作？", "stable_profile"),
        ("我叫什么名字？", "entity"),
        ("What is my name?", "entity"),
        ("Who is my dentist?", "entity"),
        ("我的牙医是谁？", "entity"),
        ("我妈住哪？", "entity"),
        ("我家在哪个城市", "entity"),
    ],
)
def test_a_question_about_the_user_searches_canonical(query: str, intent: str) -> None:
    plan = analyze_recall_query(query, vector_enabled=True)
    assert plan.intent == intent
    assert plan.personal is True and plan.utility is False
    assert plan.search_canonical and plan.channels()[0] == "lexical"
    assert "dense" in plan.channels()


@pytest.mark.parametrize(
    "query",
    [
        "What is 17 * 23?",
        "17 * 23 等于多少？",
        "解释一下递归",
        "Explain recursion",
        "translate 'good morning' to French",
        "把“早上好”翻译成法语",
        "How do I reverse a list in Python?",
        "Python 里怎么反转列表？",
    ],
)
def test_a_utility_question_stays_shut(query: str) -> None:
    plan = analyze_recall_query(query, **ALL_ON)
    assert plan.intent == "none" and plan.channels() == ()


@pytest.mark.parametrize(
    "query",
    ["what time is it?", "Should I bring an umbrella?", "Can you tell me a joke?", "请问现在几点？", "今天天气怎么样？"],
)
def test_a_question_without_a_first_person_cue_opens_nothing(query: str) -> None:
    assert analyze_recall_query(query, **ALL_ON).channels() == ()


def test_request_phrasing_is_not_a_personal_cue() -> None:
    assert analyze_recall_query("How do I sort a dict?").personal is False
    assert analyze_recall_query("Tell me how to compute 2^10").personal is False
    assert analyze_recall_query("Tell me about my sister").personal is True


@pytest.mark.parametrize(
    ("query", "at_time"),
    [
        ("Where did I live in March 2026?", utc(2026, 3, 1)),
        ("What did we decide in 2026-03?", utc(2026, 3, 1)),
        ("2026年3月我们聊过什么？", utc(2026, 3, 1)),
        ("我2026年3月住在哪里？", utc(2026, 3, 1)),
        ("What did I do in 2024?", utc(2024, 1, 1)),
        ("我2024年在哪里工作？", utc(2024, 1, 1)),
        ("What did Alice say on 2026-04-03?", utc(2026, 4, 3)),
        ("Where was I on Sept 5, 2025?", utc(2025, 9, 5)),
    ],
)
def test_explicit_period_selects_at_mode(query: str, at_time: datetime) -> None:
    plan = analyze_recall_query(query)
    assert plan.temporal_mode == "at"
    assert plan.at_time == at_time


@pytest.mark.parametrize(
    "query",
    ["Where did I use to work?", "What did I previously say about tea?", "我以前在哪里工作？", "我曾经养过什么宠物？"],
)
def test_historical_cue_selects_history_mode(query: str) -> None:
    plan = analyze_recall_query(query)
    assert plan.temporal_mode == "history"
    assert plan.at_time is None
    assert plan.is_open


@pytest.mark.parametrize(
    "query",
    ["What did I do last week?", "Did we talk yesterday?", "上周我们聊了什么？", "我昨天说过什么", "a few days ago"],
)
def test_relative_dates_never_invent_a_time(query: str) -> None:
    plan = analyze_recall_query(query, now=utc(2026, 5, 20))
    assert plan.at_time is None
    assert plan.temporal_mode == "current"


def test_explicit_arguments_override_the_query() -> None:
    forced = analyze_recall_query("Where did I live in March 2026?", at_time="2025-01-01T00:00:00Z")
    assert (forced.temporal_mode, forced.at_time) == ("at", utc(2025, 1, 1))
    history = analyze_recall_query("Where did I live in March 2026?", history=True)
    assert (history.temporal_mode, history.at_time) == ("history", None)
    both = analyze_recall_query("hello", at_time=utc(2024, 6, 1), history=True)
    assert (both.temporal_mode, both.at_time) == ("at", utc(2024, 6, 1))


def test_parse_query_time_rejects_impossible_dates_and_takes_the_first() -> None:
    assert parse_query_time("see 2026-13") is None
    assert parse_query_time("between 2024 and 2025") == utc(2024, 1, 1)
    assert parse_query_time("order B-2026 arrived") is None
    assert parse_query_time("nothing here") is None


def test_temporal_intent_needs_an_episodic_cue() -> None:
    assert analyze_recall_query("When did we meet Alice?").intent == "temporal"
    assert analyze_recall_query("what time is it").intent == "none"


def test_plan_terms_and_flags() -> None:
    plan = analyze_recall_query('Do you remember what Alice said about "dark mode" for B-417?')
    assert plan.explicit_recall is True
    assert "remember" not in plan.keywords
    assert {"alic", "dark", "mode", "b-417"} <= set(plan.keywords)  # index terms: stemmed
    assert plan.exact_terms == ("dark mode", "B-417")
    assert "Alice" in plan.entities and "B-417" in plan.entities
    assert plan.max_candidates == 8 and plan.max_context_chars == 3000


def test_asks_observations_in_both_languages() -> None:
    assert analyze_recall_query("Have you noticed any patterns in how I sleep?").asks_observations is True
    assert analyze_recall_query("你观察到我有什么规律吗").asks_observations is True
    assert analyze_recall_query("Do you remember my dentist?").asks_observations is False
    plan = analyze_recall_query("Have you noticed any patterns in how I sleep?", observation_enabled=True)
    assert "observation" in plan.channels()


def test_budgets_are_validated() -> None:
    with pytest.raises(ConfigError):
        analyze_recall_query("hi", max_candidates=0)
    with pytest.raises(ConfigError):
        analyze_recall_query("hi", max_candidates=33)
    with pytest.raises(ConfigError):
        analyze_recall_query("hi", max_context_chars=100)
    plan = analyze_recall_query("Do you remember my dog?", max_candidates=3, max_context_chars=500)
    assert (plan.max_candidates, plan.max_context_chars) == (3, 500)


def test_to_dict_leaves_query_terms_out_by_default() -> None:
    plan = analyze_recall_query("Do you remember my dentist appointment in 2026-03?")
    data = plan.to_dict()
    assert "keywords" not in data and "exact_terms" not in data
    assert "dentist" not in repr(data)
    assert data["channels"] == list(plan.channels())
    assert data["at_time"] == "2026-03-01T00:00:00+00:00"
    assert "dentist" in plan.to_dict(include_terms=True)["keywords"]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("abcdeimrwyIMy 0123456789*-/.?年月我的记得解释翻译 \"")), max_size=40))
def test_plan_is_total_and_channels_are_ordered(query: str) -> None:
    plan = analyze_recall_query(query, **ALL_ON)
    channels = plan.channels()
    assert list(channels) == [c for c in CHANNEL_ORDER if c in channels]
    if plan.utility and not plan.personal:
        assert channels == ()
    if plan.intent == "none":
        assert "dense" not in channels
    if plan.at_time is not None:
        assert plan.temporal_mode == "at" and plan.at_time.tzinfo is not None
