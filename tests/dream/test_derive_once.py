"""Derive once: the offline provider hands the runner its proposals as fields, and those fields are
exactly what its FILE text parses back to (English, Chinese, two speakers, no content, a full page
budget); a provider that rewrites ``extract`` is still asked for text."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

import riko
from riko.dream import HeuristicProvider, Transcript, TranscriptLine, parse_file_blocks
from riko.dream.protocol import Draft, accept_drafts
from riko.dream.runner import _states_fields
from riko.errors import ProviderError
from riko.evaluation.samples import generate_samples

WHEN = datetime(2023, 5, 8, 9, 30, tzinfo=timezone.utc)


def transcript(*turns: tuple[str, str], session: str = "s1") -> Transcript:
    return Transcript(session, tuple(TranscriptLine(i + 1, role, text, WHEN) for i, (role, text) in enumerate(turns)))


CASES = {
    "english": transcript(
        ("user", "Hi! My name is Alex. I work as a data engineer in Berlin."),
        ("assistant", "Nice to meet you, Alex."),
        ("user", "My sister Anna is a nurse in Paris, and she has a cat called Miso."),
        ("user", "Yesterday I went climbing with friends. I definitely don't like hotels, no hotels at all."),
        ("user", "Please never call me Bob."),
    ),
    "chinese": transcript(
        ("user", "我叫王芳，我住在上海。"),
        ("assistant", "你好！"),
        ("user", "我妹妹在北京当护士。我不喜欢喝咖啡。昨天我去爬山了。"),
    ),
    "two speakers": transcript(
        ("user", "Jon: I play clarinet in a community band."),
        ("assistant", "Gina: My mom is a hairdresser, and I volunteer at an LGBTQ+ youth center."),
        ("user", "Jon: What are their names?"),
        ("assistant", "Gina: Luna and Oliver! They are so sweet and playful."),
    ),
    "small talk only": transcript(("user", "Thanks!"), ("assistant", "You're welcome."), ("user", "ok")),
    "many facts": transcript(*[("user", f"I collected {n} blue stamps from Peru in {1990 + n}.") for n in range(60)]),
}


def _text_path(provider: HeuristicProvider, tr: Transcript, titles: tuple[str, ...]) -> object:
    try:
        return parse_file_blocks(provider.extract(tr, existing_titles=titles), max_pages=provider.page_limit(tr),
                                 allow_empty=True)
    except ProviderError as exc:
        return ("error", exc.reason)


def _field_path(provider: HeuristicProvider, tr: Transcript, titles: tuple[str, ...]) -> object:
    try:
        return provider.propose(tr, existing_titles=titles)
    except ProviderError as exc:
        return ("error", exc.reason)


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("titles", [(), ("Alex", "Anna", "王芳")])
def test_fields_equal_the_text_parsed_back(name: str, titles: tuple[str, ...]) -> None:
    provider = HeuristicProvider()
    direct = _field_path(provider, CASES[name], titles)
    assert direct == _text_path(provider, CASES[name], titles)
    if name not in ("small talk only",):
        assert getattr(direct, "pages", ()), f"{name}: the case proposes nothing, so it proves nothing"


def test_page_budget_is_the_same_on_both_paths() -> None:
    provider = HeuristicProvider()
    tr = CASES["many facts"]
    direct = provider.propose(tr)
    assert not isinstance(direct, tuple)
    assert 0 < len(direct.pages) <= provider.page_limit(tr)


def test_accepted_drafts_are_checked_like_parsed_blocks() -> None:
    meta = {"type": "concept", "title": "Tea", "description": "I like tea", "quote": "I like tea",
            "kind": "preference", "sensitivity": "normal"}
    good = Draft("wiki/concepts/tea.md", meta, "The user likes tea")
    result = accept_drafts([good, good], max_pages=4, allow_empty=False)
    assert [p.title for p in result.pages] == ["Tea"]
    assert [reason for reason, _ in result.rejected] == ["duplicate-path"]
    for bad in (Draft("../escape.md", meta, ""), Draft("wiki/concepts/x.md", {**meta, "type": "nonsense"}, "")):
        with pytest.raises(ProviderError, match="invalid-path|type-mismatch"):
            accept_drafts([bad], max_pages=4, allow_empty=False)


class _Counting(HeuristicProvider):
    """The heuristic provider, counting which path the runner takes (both methods from one class)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = {"propose": 0, "extract": 0}

    def propose(self, transcript, *, existing_titles=()):  # type: ignore[no-untyped-def]
        self.calls["propose"] += 1
        return super().propose(transcript, existing_titles=existing_titles)

    def extract(self, transcript, *, existing_titles=()):  # type: ignore[no-untyped-def]
        self.calls["extract"] += 1
        return super().extract(transcript, existing_titles=existing_titles)


class _Rewriting(HeuristicProvider):
    """A subclass that rewrites ``extract`` only: its text is the answer, so it must be parsed."""

    def __init__(self) -> None:
        super().__init__()
        self.extracts = 0

    def extract(self, transcript, *, existing_titles=()):  # type: ignore[no-untyped-def]
        self.extracts += 1
        return super().extract(transcript, existing_titles=existing_titles)


def test_which_providers_hand_over_fields() -> None:
    assert _states_fields(HeuristicProvider()) and _states_fields(_Counting())
    assert not _states_fields(_Rewriting())
    assert not _states_fields(object())


def _dream(root, logs, provider):  # type: ignore[no-untyped-def]
    with riko.open(root, preset="companion", config={"candidate_auto_confirm": "off"}) as mem:
        mem.ingest(logs, progress=False)
        report = mem.dream(provider=provider, progress=False)
        assert report.failed == 0 and report.succeeded == mem.sessions().height
        cands = mem.candidates().drop("id", "created_at", "updated_at", strict=False)
        return sorted(map(repr, cands.to_dicts()))


def test_a_dream_run_is_the_same_on_both_paths(tmp_path) -> None:
    generate_samples(tmp_path / "logs")
    counting, rewriting = _Counting(), _Rewriting()
    by_fields = _dream(tmp_path / "a", tmp_path / "logs", counting)
    by_text = _dream(tmp_path / "b", tmp_path / "logs", rewriting)
    assert counting.calls["propose"] >= 3 and counting.calls["extract"] == 0
    assert rewriting.extracts >= 3
    assert by_fields and by_fields == by_text
