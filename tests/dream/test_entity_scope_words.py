"""Entities the scope's words unmask: a Title-Case phrase that any session of the memory scope
also writes in lower case is a heading, a step or an exercise, not a name
(``riko.language.vocabulary.Vocabulary``, kept by ``Review.scope_words``). Names a scope writes
capitalised mid-sentence, names a text gives or sets in italics, and Chinese names stay; an
identifier, a heading about the speaker, a weekday after common words and a step led by an -ing
word name nothing."""

from __future__ import annotations

import pytest

import riko
from dream_stub import assistant_event, user_event
from riko.language.vocabulary import SessionWords, Vocabulary
from riko.review.entities import named_entities

# session one: a coach sets a plan, in lower case
PLAN = [
    ("assistant", "This week, do the offline recall exercise each morning: close the book, then write what "
                  "you remember. Keep the recall short; the exercise works offline, on paper."),
    ("user", "ok, so the offline recall exercise every morning, got it"),
    ("assistant", "Log each morning in minutes: ten minutes of recall, five minutes checking, a few minutes more "
                  "if you like. Add a column for your pain score too, and log your score daily."),
    ("user", "Sounds good. Friday I'll be logging all week's data. We walked the High Line again on Sunday."),
    ("assistant", "Lovely. Keep the line of your back straight and the band high when you stretch."),
]
# session two, days later: the same plan in Title Case, and real names
LATER = [
    ("user", "I need to get back to the Offline Recall Exercise with Grace at Riverside Park."),
    ("user", "Pain Score went down to 3 this week."),
    ("user", "I'm building a startup called Minutes, it turns meetings into notes."),
    ("user", "My favourite walk is still the High Line, and my son loves the High Line too."),
    ("user", "Bourdieu's *Distinction* is on my reading list for Friday."),
    ("user", "I will refer to this information as Information About Myself."),
    ("user", "I'll be tracking Prompt_Text and the LLM_Output_Summary metrics."),
    ("user", "Logging Friday's data in Notion is already on my screen."),
]


def _scope(*sessions) -> Vocabulary:
    words = Vocabulary()
    for lines in sessions:
        words.add(lines)
    return words


def _named(text: str, words: Vocabulary | None) -> set[str]:
    return {e.name for e in named_entities(text, session=words)}


@pytest.mark.parametrize("text, junk", [
    ("I need to get back to the Offline Recall Exercise with Grace at Riverside Park.", "Offline Recall Exercise"),
    ("Pain Score went down to 3 this week.", "Pain Score"),
])
def test_a_phrase_another_session_writes_in_lower_case_names_nothing(text, junk):
    assert junk in _named(text, SessionWords(LATER))  # its own session writes it only in Title Case
    assert junk not in _named(text, _scope(PLAN, LATER))


@pytest.mark.parametrize("text, name", [
    ("I need to get back to the Offline Recall Exercise with Grace at Riverside Park.", "Grace"),
    ("I need to get back to the Offline Recall Exercise with Grace at Riverside Park.", "Riverside Park"),
    ("I'm building a startup called Minutes, it turns meetings into notes.", "Minutes"),  # a name it gives
    ("My favourite walk is still the High Line, and my son loves the High Line too.", "High Line"),  # capitalised mid-sentence
    ("Bourdieu's *Distinction* is on my reading list for Friday.", "Distinction"),  # a title in italics
])
def test_a_name_stays_whatever_the_scope_writes(text, name):
    assert name in _named(text, _scope(PLAN, LATER))


@pytest.mark.parametrize("text, junk", [
    ("I will refer to this information as Information About Myself.", "Information About Myself"),
    ("I'll be tracking Prompt_Text and the LLM_Output_Summary metrics.", "LLM_Output_Summary"),
    ("I'll be tracking Prompt_Text and the LLM_Output_Summary metrics.", "Prompt_Text"),
])
def test_an_identifier_and_a_heading_about_the_speaker_name_nothing(text, junk):
    assert junk not in _named(text, None)


@pytest.mark.parametrize("text, junk", [
    ("Logging Friday's data in Notion is already on my screen.", "Logging Friday"),
    ("Using DSP terms we went over filters and neurons again.", "Using DSP"),
])
def test_a_weekday_after_common_words_and_a_step_in_ing_name_nothing(text, junk):
    words = _scope(PLAN, LATER, [("assistant", "We keep using the same filters; using them is fine, using more is not.")])
    assert junk not in _named(text, words)


def test_chinese_names_stay_with_the_scopes_words():
    zh = [("user", "我妹妹小雨和王芳一起读了 Deep Work 这本书，周末我们去了杭州。"),
          ("assistant", "Deep work means focused work; try deep work blocks in the morning.")]
    found = _named("我妹妹小雨和王芳一起读了 Deep Work 这本书，周末我们去了杭州。", _scope(PLAN, zh))
    assert {"小雨", "王芳", "Hangzhou"} <= found
    assert "Deep Work" not in found


def test_dream_reads_the_lower_case_use_of_another_session_of_the_scope(tmp_path):
    mem = riko.open(tmp_path, preset="coach")
    try:
        for session, lines in (("s1", PLAN), ("s2", LATER)):
            for role, text in lines:
                mem.capture(user_event(session, text) if role == "user" else assistant_event(session, text))
        mem.dream(progress=False)
        entities = {p.title for p in mem.context.canon.pages() if p.type == "entity"}
        candidates = set(mem.candidates()["title"].to_list()) if len(mem.candidates()) else set()
        assert {"Grace", "Riverside Park"} <= entities
        for junk in ("Offline Recall Exercise", "Pain Score", "Information About Myself", "LLM_Output_Summary"):
            assert junk not in entities and junk not in candidates
    finally:
        mem.close()


def test_the_scopes_words_grow_with_new_lines_and_forget_a_purged_session(tmp_path):
    mem = riko.open(tmp_path, preset="coach", config={"purge_enabled": True})
    try:
        review = mem.context.review
        for role, text in PLAN:
            mem.capture(user_event("s1", text) if role == "user" else assistant_event("s1", text))
        assert review.scope_words().lower("recall") >= 3
        mem.capture(user_event("s2", "The recall went well, and the recall after lunch too."))
        assert review.scope_words().lower("lunch") == 1
        token = mem.purge("s1")["confirmation"]
        mem.purge("s1", dry_run=False, confirmation=token)
        words = review.scope_words()
        assert words.lower("recall") == 2 and words.lower("exercise") == 0
    finally:
        mem.close()


class _Pending(Vocabulary):
    """Words that read lines held back until the next question, as a scope reads lines stored since."""

    def __init__(self) -> None:
        super().__init__()
        self.pending: list[tuple[str, str]] = []

    def _ready(self) -> None:
        if self.pending:
            lines, self.pending = self.pending, []
            self.add(lines)


def test_a_question_asked_again_after_new_lines_counts_them():
    words = _Pending()
    words.pending = [("user", "We walked the High Line again on Sunday.")]
    assert words.mid_sentence("High Line") == 1
    assert not words.written_as_code("CalculationDelta")
    words.pending = [("user", "Then we walked the High Line once more."),
                     ("assistant", "Set `CalculationDelta` as the column name.")]
    assert words.mid_sentence("High Line") == 2       # not the answer cached before the new lines
    assert words.written_as_code("CalculationDelta")
