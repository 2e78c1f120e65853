"""Sensitivity levels, the conservative classifier and the authority matrix."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from riko.errors import ConfigError
from riko.sensitivity.rules import (
    AUTHORITIES,
    LEVELS,
    can_transition,
    classify_text,
    disclosure_for,
    has_identifier,
    observation_is_sensitive,
    rank,
    safe_classify,
    sensitive_cue_categories,
    stricter,
)


def test_levels_and_ranks() -> None:
    assert LEVELS == ("normal", "provisional_sensitive", "sensitive")
    assert [rank(level) for level in LEVELS] == [0, 1, 2]
    assert AUTHORITIES == ("deterministic_rule", "model_proposal", "user", "management")
    assert stricter("normal", "sensitive") == "sensitive"
    assert stricter("provisional_sensitive", "normal") == "provisional_sensitive"
    with pytest.raises(ConfigError):
        rank("secret")


# --- classifier -------------------------------------------------------------------------

NORMAL_TEXTS = [
    "I like oolong tea",
    "我喜欢深色模式",
    "我喜欢喝乌龙茶",
    "Please keep answers short",
    "My sister Anna lives in Lisbon",
    "I prefer std::vector over raw arrays",
    "The new album is coming out next week",
    "Meeting on 2024-01-15 at 10:30",
    "I walked 10000 steps today",
    "I have 3 cats and 2 dogs",
    "Upgraded to version 1.2.3",
    "I paid 2024 yen for lunch",
    "我在上海工作",
    "周末想去爬山",
    "Call me Sam",
    "",
]


@pytest.mark.parametrize("text", NORMAL_TEXTS)
def test_ordinary_claims_stay_normal(text: str) -> None:
    assert classify_text(text) == "normal"
    assert sensitive_cue_categories(text) == ()
    assert not has_identifier(text)


SENSITIVE_TEXTS = [
    ("Please keep this private, it's a secret", "private"),
    ("这是我的秘密，别告诉别人", "private"),
    ("I was diagnosed with diabetes last year", "medical"),
    ("我妈妈刚做完手术", "medical"),
    ("She is pregnant", "medical"),
    ("I've been struggling with depression", "psychological"),
    ("I see a therapist every week", "psychological"),
    ("我最近很焦虑，在看心理医生", "psychological"),
    ("有时候会想到自杀", "psychological"),
    ("He came out as bisexual", "sexual"),
    ("我们的性生活不太好", "sexual"),
    ("my password is hunter2", "credential"),
    ("Here is my API key for the server", "credential"),
    ("我的支付密码是六个八", "credential"),
    ("My passport expires in May", "identity"),
    ("身份证丢了", "identity"),
    ("My salary went up this year", "financial"),
    ("我还有二十万房贷", "financial"),
    ("I'm drowning in credit card debt", "financial"),
]


@pytest.mark.parametrize(("text", "category"), SENSITIVE_TEXTS)
def test_sensitive_cues_classify_sensitive(text: str, category: str) -> None:
    assert category in sensitive_cue_categories(text)
    assert classify_text(text) == "sensitive"
    assert classify_text(text, "provisional_sensitive") == "sensitive"


def test_english_cues_are_word_bounded_and_case_insensitive() -> None:
    assert classify_text("PASSWORD reset done") == "sensitive"
    assert classify_text("Ｐａｓｓｗｏｒｄ: x") == "sensitive"  # full-width letters fold
    assert classify_text("I visited Essex") == "normal"
    assert classify_text("The therapeutics company") == "normal"
    assert classify_text("I study the history of Gaya") == "normal"


IDENTIFIER_TEXTS = [
    "my email is anna@example.com",
    "call me at +1 (415) 555-0132",
    "office line 555-0132",
    "我的手机号是13800138000",
    "138 0013 8000 is my number",
    "id: A1234567",
    "account no: 1234-5678",
    "DE89 3704 0044 0532 0130 00",
    "GB82WEST12345698765432",
    "order 123456 arrived",
    "I live at 221B Baker Street",
    "we moved to 12 Rue Oberkampf Avenue",
    "我家在建国路88号",
    "她住3号楼2单元",
]


@pytest.mark.parametrize("text", IDENTIFIER_TEXTS)
def test_identifier_shaped_content_is_at_least_provisional(text: str) -> None:
    assert has_identifier(text)
    assert sensitive_cue_categories(text) == ()
    assert classify_text(text) == "provisional_sensitive"
    assert classify_text(text, "provisional_sensitive") == "provisional_sensitive"
    assert classify_text(text, "sensitive") == "sensitive"


@pytest.mark.parametrize(("text", "found"), [
    ("我觉得这个计划很好" * 2000 + "，邮箱是anna@example.com", True),   # after a long run of word characters
    ("x" * 20_000 + "anna@example.com", True),                           # one long word ending in an address
    ("x" * 20_000 + " anna at example dot com", False),
    ("a@b.c+d@e.f", True),
], ids=["after a long run", "one long word", "no address", "two joined"])
def test_an_address_is_found_however_long_the_text_before_it(text: str, found: bool) -> None:
    """The address pattern is tried where a run of address characters starts, so a long paste is read
    once (it was read once per character, 1.2 s for 20,000) and finds the same addresses."""
    assert has_identifier(text) is found


def test_identifier_with_sensitive_cue_is_sensitive() -> None:
    assert classify_text("My passport number is E12345678") == "sensitive"
    assert classify_text("card number 4111 1111 1111 1111") == "sensitive"


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200), st.sampled_from(LEVELS))
def test_classifier_never_loosens_the_baseline(text: str, baseline: str) -> None:
    assert rank(classify_text(text, baseline)) >= rank(baseline)


def test_classifier_refuses_an_unknown_baseline() -> None:
    with pytest.raises(ConfigError):
        classify_text("tea", "private")


# --- authority matrix -------------------------------------------------------------------


def expected_transition(current: str | None, new: str, authority: str) -> bool:
    relaxing = authority in ("user", "management")
    if current is None:
        # Unclassified reads as sensitive: writing normal relaxes the fail-closed default.
        return relaxing if new == "normal" else True
    if LEVELS.index(new) > LEVELS.index(current):
        return True
    return relaxing


@pytest.mark.parametrize(
    ("current", "new", "authority"),
    list(itertools.product((None, *LEVELS), LEVELS, AUTHORITIES)),
)
def test_authority_matrix(current: str | None, new: str, authority: str) -> None:
    assert can_transition(current, new, authority) is expected_transition(current, new, authority)


def test_authority_matrix_spot_checks() -> None:
    assert can_transition("normal", "sensitive", "model_proposal")
    assert can_transition("provisional_sensitive", "sensitive", "deterministic_rule")
    assert not can_transition("sensitive", "normal", "model_proposal")
    assert not can_transition("sensitive", "provisional_sensitive", "deterministic_rule")
    assert can_transition("sensitive", "normal", "user")
    assert can_transition("sensitive", "normal", "management")
    assert not can_transition(None, "normal", "deterministic_rule")
    assert can_transition(None, "provisional_sensitive", "model_proposal")
    # Re-stating the same level is not a tightening.
    assert not can_transition("normal", "normal", "deterministic_rule")
    assert can_transition("normal", "normal", "user")


@pytest.mark.parametrize(
    ("current", "new", "authority"),
    [("normal", "private", "user"), ("private", "normal", "user"), ("normal", "sensitive", "model")],
)
def test_unknown_levels_or_authorities_are_refused(current: str, new: str, authority: str) -> None:
    with pytest.raises(ConfigError):
        can_transition(current, new, authority)


# --- disclosure -------------------------------------------------------------------------


def test_disclosure_mapping() -> None:
    assert disclosure_for("normal") == "normal"
    assert disclosure_for("provisional_sensitive") == "user_explicit_only"
    assert disclosure_for("sensitive") == "never_explicit"
    assert disclosure_for(None) == "never_explicit"
    assert disclosure_for(None, "user_explicit_only") == "user_explicit_only"
    # The fallback lowers only the unclassified case.
    assert disclosure_for("sensitive", "user_explicit_only") == "never_explicit"
    assert disclosure_for("garbled") == "never_explicit"
    with pytest.raises(ConfigError):
        disclosure_for(None, "normal")


# --- observations -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "sensitive"),
    [
        ("User seems anxious and mentions therapy often", True),
        ("用户经常提到失眠和抑郁", True),
        ("Talks about a medication schedule", True),
        ("Often brings up sexual orientation", True),
        ("Keeps asking to store a password", True),
        ("Mentions the passport renewal", True),
        ("Worries about the mortgage", True),
        ("用户最近常提到工资", True),
        ("Prefers short replies in the evening", False),
        ("喜欢在周末聊电影", False),
        ("Calls it a secret recipe", False),
    ],
)
def test_observation_sensitive_cues(text: str, sensitive: bool) -> None:
    assert observation_is_sensitive(text) is sensitive


# --- an unusable classifier -------------------------------------------------------------


def test_safe_classify_fails_closed() -> None:
    def raising(text: str, baseline: str) -> str:
        raise RuntimeError("classifier crashed")

    assert safe_classify(raising, "I like tea", "normal") == "sensitive"
    assert safe_classify(lambda t, b: "private", "I like tea", "normal") == "sensitive"
    assert safe_classify(lambda t, b: None, "I like tea", "normal") == "sensitive"
    assert safe_classify(lambda t, b: 0, "I like tea", "normal") == "sensitive"
    assert safe_classify(classify_text, "I like tea", "bogus") == "sensitive"


def test_safe_classify_passes_through_a_usable_answer_without_loosening() -> None:
    assert safe_classify(classify_text, "I like oolong tea", "normal") == "normal"
    assert safe_classify(classify_text, "anna@example.com", "normal") == "provisional_sensitive"
    assert safe_classify(lambda t, b: "normal", "I like tea", "provisional_sensitive") == "provisional_sensitive"


# ---------------------------------------------------------------------------- the labelled set


@pytest.mark.parametrize("text", [
    "My bank PIN is 4412", "locker code Z-9981", "ticket B-417", "call me on 0912 345 678",
    "My IBAN is DE89 3704 0044 0532 0130 00", "我的储物柜号码是Z-9981", "我的车牌号是沪A12345",
])
def test_identifier_shaped_claims_are_protected(text):
    assert classify_text(text) != "normal"


@pytest.mark.parametrize("text", ["I read 3 books in 2023", "The room was 25 degrees all night",
                                  "我2023年读了3本书", "我3月2号去北京出差"])
def test_numbers_that_identify_nothing_stay_normal(text):
    assert classify_text(text) == "normal"


def test_the_labelled_sensitivity_set_meets_its_targets():
    from riko.evaluation.labelled import labelled_file, score_sensitivity

    rows = labelled_file("sensitivity").read_text(encoding="utf-8").splitlines()
    assert len(rows) >= 300 and {'"lang": "en"', '"lang": "zh"'} <= {r[r.index('"lang"'):r.index('"lang"') + 12] for r in rows}
    report = score_sensitivity()
    for label in ("sensitive", "identifier", "protected"):
        assert report.classes[label].recall >= 0.95, report.text()
    for label in ("sensitive", "identifier", "normal", "protected"):
        assert report.classes[label].precision >= 0.85, report.text()
    assert report.to_dict()["classes"]["protected"]["support"] == report.classes["protected"].support
