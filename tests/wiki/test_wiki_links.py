"""Wikilinks: plain, typed, aliased; code is never a link; line numbers point at the link."""

from __future__ import annotations

import doctest

import pytest
from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt

import riko.wiki.links as links_module
from riko.wiki import LINK_TYPES, WikiLink, normalize_title, parse_links, wikilink_plugin


def test_plain_link() -> None:
    assert parse_links("I met [[Mika]] today.") == [WikiLink("Mika", None, 1)]


@pytest.mark.parametrize("rel", LINK_TYPES)
def test_typed_links(rel: str) -> None:
    assert parse_links(f"x [[{rel}::Green tea]] y") == [WikiLink("Green tea", rel, 1)]


def test_alias_and_typed_alias() -> None:
    assert parse_links("[[Mika|my sister]] [[refines::Mika|her]]") == [
        WikiLink("Mika", None, 1, "my sister"),
        WikiLink("Mika", "refines", 1, "her"),
    ]


def test_surrounding_space_is_trimmed_and_rel_is_case_insensitive() -> None:
    assert parse_links("[[ Supports :: Tea | the tea ]]") == [WikiLink("Tea", "supports", 1, "the tea")]


def test_unknown_rel_is_a_plain_link_keeping_the_text() -> None:
    assert parse_links("[[note::Tokyo]] [[a::b::c]]") == [
        WikiLink("note::Tokyo", None, 1),
        WikiLink("a::b::c", None, 1),
    ]


def test_typed_link_target_may_contain_double_colons() -> None:
    assert parse_links("[[supports::C++::STL]]") == [WikiLink("C++::STL", "supports", 1)]


def test_empty_alias_is_no_alias() -> None:
    assert parse_links("[[Mika|]]") == [WikiLink("Mika", None, 1)]


@pytest.mark.parametrize(
    "markdown",
    [
        "`[[Code span]]`",
        "``a [[Double tick]] b``",
        "```\n[[Fenced]]\n```",
        "~~~markdown\n[[supports::Tilde fence]]\n~~~",
        "    [[Indented code]]",
        "\\[[Escaped]]",
        "[[ ]]",
        "[[supports::]]",
        "[[Not\nclosed on one line]]",
        "[[Unclosed",
        "[[a [b] c]]",
        "[single]",
    ],
)
def test_not_links(markdown: str) -> None:
    assert parse_links(markdown) == []


def test_code_and_links_mixed_on_one_line() -> None:
    assert parse_links("`[[no]]` then [[Yes]] and `x` [[Also]]") == [
        WikiLink("Yes", None, 1),
        WikiLink("Also", None, 1),
    ]


def test_cjk_titles() -> None:
    assert parse_links("今日は[[東京 旅行]]と[[supports::緑茶が好き|お茶]]の話。") == [
        WikiLink("東京 旅行", None, 1),
        WikiLink("緑茶が好き", "supports", 1, "お茶"),
    ]


def test_line_numbers_across_blocks() -> None:
    markdown = "\n".join(
        [
            "# Heading [[H]]",  # 1
            "",  # 2
            "Para one [[A]] and [[B]]",  # 3
            "continues [[contradicts::C]]",  # 4
            "",  # 5
            "```",  # 6
            "[[Fenced]]",  # 7
            "```",  # 8
            "> quoted",  # 9
            "> [[Q]]",  # 10
            "",  # 11
            "- item",  # 12
            "  - nested [[N1]] [[N2]]",  # 13
            "",  # 14
            "| a | b |",  # 15
            "|---|---|",  # 16
            "| [[T1]] | x |",  # 17
            "| y | [[T2\\|t]] |",  # 18
            "",  # 19
            "Setext [[S]]",  # 20
            "===",  # 21
            "[link [[Inside]]](https://example.org)",  # 22
        ]
    )
    assert [(link.target, link.line) for link in parse_links(markdown)] == [
        ("H", 1), ("A", 3), ("B", 3), ("C", 4), ("Q", 10), ("N1", 13), ("N2", 13),
        ("T1", 17), ("T2", 18), ("S", 20), ("Inside", 22),
    ]  # fmt: skip


def test_plugin_tokens_and_rendering() -> None:
    md = MarkdownIt("commonmark").use(wikilink_plugin)
    tokens = md.parseInline("a [[derived_from::B & C|shown]] d")[0].children
    assert tokens is not None
    link = next(t for t in tokens if t.type == "wikilink")
    assert link.meta["target"] == "B & C"
    assert link.meta["rel"] == "derived_from"
    assert link.meta["alias"] == "shown"
    html = md.render("see [[B & C]] and [[supports::<x>|y]]")
    assert '<a class="wikilink" data-target="B &amp; C">B &amp; C</a>' in html
    assert '<a class="wikilink" data-target="&lt;x&gt;" data-rel="supports">y</a>' in html


_title_chars = st.characters(
    codec="utf-8", exclude_categories=("Cs", "Cc", "Zl", "Zp"), exclude_characters="[]|`\\<&*_!"
)
titles = st.text(_title_chars, min_size=1, max_size=30).filter(
    lambda s: s.strip() and "::" not in s and not s.strip().endswith(":")
)


@given(titles, st.sampled_from([None, *LINK_TYPES]), st.none() | titles, st.integers(0, 5))
def test_any_title_round_trips_through_the_syntax(
    title: str, rel: str | None, alias: str | None, blank_lines: int
) -> None:
    inner = (f"{rel}::" if rel else "") + title + (f"|{alias}" if alias else "")
    markdown = "Intro line.\n" + "\n" * blank_lines + f"Text [[{inner}]] end."
    assert parse_links(markdown) == [
        WikiLink(title.strip(), rel, 2 + blank_lines, alias.strip() if alias else None)
    ]


def test_normalize_title() -> None:
    assert normalize_title("  Tokyo   Trip\n") == "tokyo trip"
    assert normalize_title("ＴＯＫＹＯ　trip") == "tokyo trip"
    assert normalize_title("Straße") == normalize_title("STRASSE")
    assert normalize_title("東京  旅行") == "東京 旅行"


def test_doctests() -> None:
    assert doctest.testmod(links_module).failed == 0
