"""Page files are written with libyaml where it writes exactly what PyYAML's own emitter writes,
and with PyYAML's emitter everywhere else: the bytes of a page file never depend on which one ran."""

from __future__ import annotations


import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from riko.wiki import page as wiki_page
from riko.wiki import Page, parse_page, render_page


def _python_dump(data: dict) -> str:
    return yaml.dump(data, Dumper=wiki_page._Dumper, sort_keys=False, allow_unicode=True,
                     default_flow_style=False, width=10_000)


_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)
_ODD = st.sampled_from(["😀 emoji", "𝔘nicode", "line\u2028break", "a\rb", "yes", "null", "- dash", "#tag", "x: y",
                        "'q'", '"dq"', "\x85", "\ufeff", "妹妹 Lena", "  padded  ", ""])
_VALUE = st.one_of(_TEXT, _ODD, st.lists(st.one_of(_TEXT, _ODD), max_size=4), st.booleans(), st.integers(),
                   st.builds(lambda xs: wiki_page._FlowList(xs), st.lists(_ODD, max_size=3)),
                   st.dictionaries(st.one_of(_ODD, st.sampled_from(["inner", "k-1"])), _ODD, max_size=2))


@settings(max_examples=400)
@given(st.dictionaries(st.one_of(st.sampled_from(["title", "description", "tags", "links", "x_extra"]), _ODD),
                       _VALUE, min_size=1, max_size=5))
def test_the_emitter_chosen_writes_what_pyyaml_writes(data: dict) -> None:
    assert wiki_page._dump(data) == _python_dump(data)


@pytest.mark.parametrize("text", ["I love 😀 mornings", "a" * 12_000, "word " * 3_000])
def test_texts_libyaml_would_write_otherwise_take_pyyamls_emitter(text: str) -> None:
    data = {"title": text, "tags": wiki_page._FlowList([text[:5000], text[:5000]])}
    assert wiki_page._dump(data) == _python_dump(data)
    assert not wiki_page._libyaml_safe(data)


def test_plain_pages_take_libyaml() -> None:
    assert wiki_page._libyaml_safe({"title": "My sister Lena lives in Berlin", "tags": ["妹妹"], "version": 2})


def test_a_page_with_an_emoji_round_trips_byte_for_byte() -> None:
    page = Page(id="p-1", type="concept", title="Sunday brunch 🥞", description="I love pancakes 🥞 on Sundays.",
                body="Hot.", tags=("food 🍳", "weekend"))
    text = render_page(page)
    assert "🥞" in text and "\\U0001F95E" not in text
    assert render_page(parse_page(text)) == text
