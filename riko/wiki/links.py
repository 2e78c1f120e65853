"""Wikilinks in page bodies: ``[[Title]]``, ``[[Title|alias]]`` and typed ``[[supports::Title]]``.

Links are found by a markdown-it-py inline rule, so text inside code spans, fenced or indented
code and escaped brackets (``\\[[``) is never mistaken for a link.
"""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Sequence

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

__all__ = ["LINK_TYPES", "WikiLink", "parse_links", "wikilink_plugin", "normalize_title"]

LINK_TYPES = ("supports", "contradicts", "refines", "derived_from", "evidenced_by")

_WS = re.compile(r"\s+")


@dataclass(frozen=True)
class WikiLink:
    """One ``[[rel::Target|alias]]`` occurrence; ``line`` is 1-based within the parsed Markdown."""

    target: str
    rel: str | None
    line: int
    alias: str | None = None


def normalize_title(title: str) -> str:
    """The key a link target resolves by: NFKC, casefolded, whitespace collapsed.

    >>> normalize_title("  Ｔｏｋｙｏ   Trip ")
    'tokyo trip'
    """
    return _WS.sub(" ", unicodedata.normalize("NFKC", title).casefold()).strip()


def _split_inner(inner: str) -> tuple[str, str | None, str | None] | None:
    """Split the text between ``[[`` and ``]]`` into target, relation and alias."""
    target, _, alias_text = inner.partition("|")
    rel: str | None = None
    prefix, sep, rest = target.partition("::")
    if sep and prefix.strip().lower() in LINK_TYPES:
        rel = prefix.strip().lower()
        target = rest
    target = target.strip()
    alias = alias_text.strip() or None
    if not target:
        return None
    return target, rel, alias


def _wikilink_rule(state: StateInline, silent: bool) -> bool:
    src, pos = state.src, state.pos
    if not src.startswith("[[", pos):
        return False
    end = src.find("]]", pos + 2, state.posMax)
    if end < 0:
        return False
    inner = src[pos + 2 : end]
    # A link never spans lines or nests brackets; such text stays plain Markdown.
    if "\n" in inner or "[" in inner or "]" in inner:
        return False
    parts = _split_inner(inner)
    if parts is None:
        return False
    if not silent:
        target, rel, alias = parts
        token = state.push("wikilink", "", 0)
        token.content = inner
        token.markup = "[["
        token.meta = {"target": target, "rel": rel, "alias": alias, "offset": pos}
    state.pos = end + 2
    return True


def _render_wikilink(
    self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    meta = tokens[idx].meta
    rel = f' data-rel="{html.escape(meta["rel"])}"' if meta["rel"] else ""
    label = meta["alias"] or meta["target"]
    return (
        f'<a class="wikilink" data-target="{html.escape(meta["target"])}"{rel}>'
        f"{html.escape(label)}</a>"
    )


def wikilink_plugin(md: MarkdownIt) -> None:
    """Teach ``md`` the wikilink syntax: tokens of type ``wikilink`` with meta target/rel/alias.

    >>> md = MarkdownIt("commonmark").use(wikilink_plugin)
    >>> md.render("see [[supports::Tokyo Trip|the trip]]").strip()
    '<p>see <a class="wikilink" data-target="Tokyo Trip" data-rel="supports">the trip</a></p>'
    """
    md.inline.ruler.before("link", "wikilink", _wikilink_rule)
    md.add_render_rule("wikilink", _render_wikilink)


_MD = MarkdownIt("commonmark").enable(["table", "strikethrough"]).use(wikilink_plugin)


def parse_links(markdown: str) -> list[WikiLink]:
    """Every wikilink in ``markdown`` in document order, with its 1-based line number.

    An unknown relation prefix is not a relation: ``[[foo::Bar]]`` links to the title ``foo::Bar``.

    >>> [(link.target, link.rel, link.alias) for link in parse_links("[[A]]\\n[[refines::B|b]]")]
    [('A', None, None), ('B', 'refines', 'b')]
    """
    links: list[WikiLink] = []
    for token in _MD.parse(markdown):
        if token.type != "inline" or not token.children or token.map is None:
            continue
        first_line = token.map[0]
        for child in token.children:
            if child.type != "wikilink":
                continue
            meta = child.meta
            line = first_line + token.content.count("\n", 0, meta["offset"]) + 1
            links.append(WikiLink(meta["target"], meta["rel"], line, meta["alias"]))
    return links
