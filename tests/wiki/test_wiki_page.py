"""Page files: render/parse round trips, YAML auto-typing at the boundary, invalid files."""

from __future__ import annotations

import doctest
import re
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import riko.wiki.page as page_module
from riko.errors import WikiFormatError
from riko.wiki import (
    FIELD_ORDER,
    LINK_TYPES,
    PAGE_TYPES,
    SENSITIVITIES,
    STATUSES,
    TYPE_FOLDERS,
    Page,
    WikiLink,
    make_page_id,
    parse_page,
    render_page,
    slugify,
    validate_page,
)

UTC = timezone.utc
DOCS = Path(__file__).resolve().parents[2] / "docs" / "wiki-format.md"


def fm(*lines: str, body: str = "") -> str:
    """A page file from frontmatter lines (the opening '---' is line 1)."""
    text = "---\n" + "".join(line + "\n" for line in lines) + "---\n"
    return text + (f"\n{body}\n" if body else "")


BASE = ("id: p-1", "type: concept", "title: Green tea")

# ------------------------------------------------------------------ strategies

TRICKY = ["yes", "no", "on", "off", "true", "null", "~", "2026", "1e3", "0x1F", "1_000",
          "2026-01-15", "2026-01-15T09:00:00Z", "- dash", "a: b", "#hash", "'single'",
          '"double"', "[x]", "{y}", "*star", "&amp", "!bang", "%pct", "@at", "`tick`",
          "---", "...", "  padded  ", "colon: inside", "é", "東京", "日本語のタイトル", "𝔘𝔫𝔦"]  # fmt: skip
_line_chars = st.characters(codec="utf-8", exclude_categories=("Cc", "Cs", "Zl", "Zp"))
line_text = st.one_of(
    st.sampled_from(TRICKY),
    st.text(_line_chars, min_size=1, max_size=40),
    st.text(st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF), min_size=1, max_size=12),
).filter(lambda s: s.strip())
any_char = st.characters(codec="utf-8", exclude_categories=("Cs",))
free_text = st.one_of(line_text, st.text(any_char, max_size=200))
moments = st.datetimes(
    min_value=datetime(1900, 1, 1),
    max_value=datetime(2200, 1, 1),
    timezones=st.sampled_from([UTC, timezone(timedelta(hours=9)), timezone(timedelta(hours=-5))]),
)
page_ids = st.from_regex(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,30}", fullmatch=True)
session_ids = st.from_regex(r"[A-Za-z0-9_-]{1,12}", fullmatch=True)
sources = st.one_of(
    st.builds(lambda s, n: f"session:{s}/event:{n}", session_ids, st.integers(0, 10**6)),
    st.builds(lambda s: f"manual:{s}", line_text.filter(lambda s: not s[0].isspace())),
    st.builds(lambda s: f"page:{s}", page_ids),
)
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), line_text, free_text,
    st.floats(allow_nan=False), st.dates(), moments,
    st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2200, 1, 1)),
)  # fmt: skip
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(line_text, inner, max_size=3),
    max_leaves=6,
)
extra_keys = st.one_of(
    st.sampled_from(TRICKY), st.from_regex(r"[a-z_][a-z0-9_-]{0,15}", fullmatch=True)
).filter(lambda k: k.strip() and k not in FIELD_ORDER)


@st.composite
def pages(draw: st.DrawFn) -> Page:
    start = draw(st.none() | moments)
    end = draw(st.none() | moments)
    if start and end and start > end:
        start, end = end, start
    return Page(
        id=draw(page_ids),
        type=draw(st.sampled_from(PAGE_TYPES)),
        title=draw(line_text),
        description=draw(st.just("") | free_text),
        body=draw(st.just("") | free_text),
        status=draw(st.sampled_from(STATUSES)),
        consent=draw(st.booleans()),
        locked=draw(st.booleans()),
        sensitivity=draw(st.sampled_from(SENSITIVITIES)),
        version=draw(st.integers(1, 10**9)),
        tags=draw(st.lists(line_text, max_size=5)),
        sources=draw(st.lists(sources, max_size=4)),
        confidence=draw(st.none() | st.floats(0, 1)),
        kind=draw(st.none() | line_text),
        category=draw(st.none() | line_text),
        observed_at=draw(st.none() | moments),
        recorded_at=draw(st.none() | moments),
        valid_from=start,
        valid_to=end,
        supersedes=draw(st.none() | page_ids),
        superseded_by=draw(st.none() | page_ids),
        usage_policy=draw(st.sampled_from(["normal", "suppressed"])),
        extra=draw(st.dictionaries(extra_keys, values, max_size=4)),
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pages())
def test_render_parse_round_trip_is_byte_stable(page: Page) -> None:
    text = render_page(page)
    again = parse_page(text, "p.md")
    assert again == page
    assert render_page(again) == text
    assert text.endswith("\n") and not text.endswith("\n\n")
    assert again.semantic_hash() == page.semantic_hash()


@settings(max_examples=100, deadline=None)
@given(pages())
def test_rendered_keys_follow_field_order(page: Page) -> None:
    text = render_page(page)
    head = text.split("---\n")[1]
    keys = [m.group(1) for m in re.finditer(r"^([a-z_]+):", head, re.MULTILINE)]
    known = [k for k in keys if k in FIELD_ORDER]
    assert known == sorted(known, key=FIELD_ORDER.index)
    assert known[:3] == ["id", "type", "title"]


# ------------------------------------------------------------------ rendering


def test_render_is_deterministic_and_human_friendly() -> None:
    page = Page(
        id="p-42",
        type="entity",
        title="Mika",
        description="The user's sister",
        body="Mika lives in [[Osaka]].\n\nShe [[supports::Likes tea|likes tea]].",
        tags=["family", "東京"],
        sources=["session:s1/event:7", "manual:typed by the user"],
        confidence=0.9,
        kind="person",
        observed_at=datetime(2026, 1, 15, 18, 0, tzinfo=timezone(timedelta(hours=9))),
        valid_from=date(2026, 1, 1),
        extra={"nickname": "Mi", "aliases": ["Mi-chan"]},
    )
    assert render_page(page) == (
        "---\n"
        "id: p-42\n"
        "type: entity\n"
        "title: Mika\n"
        "description: The user's sister\n"
        "status: confirmed\n"
        "consent: true\n"
        "locked: false\n"
        "sensitivity: normal\n"
        "version: 1\n"
        "tags: [family, 東京]\n"
        "sources:\n"
        "- session:s1/event:7\n"
        "- manual:typed by the user\n"
        "confidence: 0.9\n"
        "kind: person\n"
        "observed_at: 2026-01-15T09:00:00Z\n"
        "valid_from: 2026-01-01T00:00:00Z\n"
        "aliases:\n"
        "- Mi-chan\n"
        "nickname: Mi\n"
        "---\n"
        "\n"
        "Mika lives in [[Osaka]].\n"
        "\n"
        "She [[supports::Likes tea|likes tea]].\n"
    )


def test_noise_fields_are_omitted() -> None:
    text = render_page(Page(id="p-1", type="concept", title="T"))
    for absent in ("description", "tags", "sources", "confidence", "kind", "category",
                   "observed_at", "valid_to", "supersedes", "usage_policy"):  # fmt: skip
        assert f"\n{absent}:" not in text
    assert text.endswith("version: 1\n---\n")
    assert "usage_policy: suppressed" in render_page(
        Page(id="p-1", type="concept", title="T", usage_policy="suppressed")
    )


def test_extra_null_values_are_kept_verbatim() -> None:
    page = parse_page(fm(*BASE, "reviewer: null", "mood: 3"))
    assert page.extra == {"reviewer": None, "mood": 3}
    assert "reviewer: null\n" in render_page(page)


def test_page_normalises_datetimes_lists_and_body() -> None:
    page = Page(
        id="p-1",
        type="episode",
        title="Trip",
        body="\r\n\r\n  line one\r\nline two\r\n\n",
        tags=("a", "b"),  # type: ignore[arg-type]
        observed_at="2026-01-15T18:00:00+09:00",  # type: ignore[arg-type]
        recorded_at=datetime(2026, 1, 15, 9),
        valid_from=date(2026, 1, 1),  # type: ignore[arg-type]
    )
    assert page.body == "line one\nline two"
    assert page.tags == ["a", "b"]
    assert page.observed_at == datetime(2026, 1, 15, 9, tzinfo=UTC)
    assert page.recorded_at is not None and page.recorded_at.tzinfo == UTC
    assert page.valid_from == datetime(2026, 1, 1, tzinfo=UTC)
    assert parse_page(render_page(page)) == page


# ------------------------------------------------------------------ YAML auto-typing


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("title: 2026", "2026"),
        ("title: yes", "yes"),
        ("title: 1.50", "1.50"),
        ("title: 0x1F", "0x1F"),
        ("title: 2026-01-15", "2026-01-15"),
        ("title: 2026-01-15 09:00:00", "2026-01-15 09:00:00"),
        ("title: '2026'", "2026"),
        ("title: 東京 2026", "東京 2026"),
    ],
)
def test_title_keeps_its_source_text(line: str, expected: str) -> None:
    page = parse_page(fm("id: p-1", "type: concept", line))
    assert page.title == expected
    assert parse_page(render_page(page)).title == expected
    assert render_page(parse_page(render_page(page))) == render_page(page)


def test_tags_and_description_keep_source_text() -> None:
    page = parse_page(fm(*BASE, "description: 3.0", "tags: [yes, 2026, 2026-01-15, no, ~x, 1e3]"))
    assert page.description == "3.0"
    assert page.tags == ["yes", "2026", "2026-01-15", "no", "~x", "1e3"]
    rendered = render_page(page)
    assert "tags: ['yes', '2026', '2026-01-15', 'no', ~x, 1e3]" in rendered
    assert parse_page(rendered) == page


def test_block_style_tags_are_accepted() -> None:
    page = parse_page(fm(*BASE, "tags:", "- on", "- 12"))
    assert page.tags == ["on", "12"]


def test_ids_typed_as_numbers_stay_text() -> None:
    page = parse_page(fm("id: 123", "type: concept", "title: T", "supersedes: 7"))
    assert page.id == "123" and page.supersedes == "7"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("observed_at: 2026-01-15", datetime(2026, 1, 15, tzinfo=UTC)),
        ("observed_at: 2026-01-15T09:00:00Z", datetime(2026, 1, 15, 9, tzinfo=UTC)),
        ("observed_at: 2026-01-15 18:00:00+09:00", datetime(2026, 1, 15, 9, tzinfo=UTC)),
        ("observed_at: 2026-01-15T09:00:00", datetime(2026, 1, 15, 9, tzinfo=UTC)),
        ("observed_at: '2026-01-15T09:00:00Z'", datetime(2026, 1, 15, 9, tzinfo=UTC)),
        ("observed_at: 2026-01-15T09:00:00.250Z", datetime(2026, 1, 15, 9, 0, 0, 250000, tzinfo=UTC)),
    ],
)
def test_datetimes_become_aware_utc(line: str, expected: datetime) -> None:
    page = parse_page(fm(*BASE, line))
    assert page.observed_at == expected
    assert page.observed_at is not None and page.observed_at.utcoffset() == timedelta(0)
    rendered = render_page(page)
    assert "observed_at: " + expected.isoformat().replace("+00:00", "Z") in rendered
    assert parse_page(rendered) == page


def test_numbers_and_booleans() -> None:
    page = parse_page(fm(*BASE, "consent: false", "locked: true", "version: 3", "confidence: 1"))
    assert (page.consent, page.locked, page.version) == (False, True, 3)
    assert page.confidence == 1.0 and isinstance(page.confidence, float)
    assert "confidence: 1.0\n" in render_page(page)


def test_defaults_for_missing_optional_fields() -> None:
    page = parse_page(fm(*BASE))
    assert page == Page(id="p-1", type="concept", title="Green tea")
    assert (page.status, page.consent, page.locked, page.sensitivity, page.version) == (
        "confirmed", True, False, "normal", 1,
    )  # fmt: skip


def test_hand_written_file_settles_after_one_render() -> None:
    text = fm(
        "title: 2026",
        "type: episode",
        "id: p-9",
        "tags: [yes]",
        "observed_at: 2026-01-15 18:00:00+09:00",
        "zeta: 1",
        "alpha: [b, a]",
        body="\n\nBody with [[Link]]\n\n",
    )
    first = render_page(parse_page(text))
    assert first != text
    assert render_page(parse_page(first)) == first
    assert parse_page(first) == parse_page(text)


def test_bom_and_crlf_files_parse() -> None:
    text = "\ufeff---\r\nid: p-1\r\ntype: concept\r\ntitle: T\r\n---\r\n\r\nOne\r\nTwo\r\n"
    page = parse_page(text)
    assert page.body == "One\nTwo"
    assert "\r" not in render_page(page)


def test_content_and_handler_keys_are_extra() -> None:
    # python-frontmatter's loads() reserves these names; parse() keeps them as data.
    page = parse_page(fm(*BASE, "content: c", "handler: h"))
    assert page.extra == {"content": "c", "handler": "h"}


# ------------------------------------------------------------------ invalid files


@pytest.mark.parametrize(
    ("text", "line", "field"),
    [
        pytest.param("Just text, no frontmatter\n", 1, None, id="missing-frontmatter"),
        pytest.param("", 1, None, id="empty-file"),
        pytest.param("---\nid: p-1\ntype: concept\n", 1, None, id="unclosed"),
        pytest.param("\n\n---\nid: p-1\n", 3, None, id="unclosed-after-blank-lines"),
        pytest.param(fm("- a", "- b"), 1, None, id="not-a-mapping"),
        pytest.param(fm("id: p-1", "type: concept", "title: [oops"), 4, None, id="yaml-unclosed-flow"),
        pytest.param(fm("id: p-1", "title: a: b", "type: concept"), 3, None, id="yaml-mapping-value"),
        pytest.param(fm("id: p-1", "\ttype: concept"), 3, None, id="yaml-tab"),
        pytest.param(fm("id: p-1", "type: concept", "title: T", "2026: x"), 5, None, id="non-text-key"),
        pytest.param(fm("id: p-1", "type: thing", "title: T"), 3, "type", id="unknown-type"),
        pytest.param(fm("id: p-1", "title: T"), 1, "type", id="missing-type"),
        pytest.param(fm("type: concept", "title: T"), 1, "id", id="missing-id"),
        pytest.param(fm("id: p-1", "type: concept"), 1, "title", id="missing-title"),
        pytest.param(fm("id: p-1", "type: concept", "title: ''"), 4, "title", id="empty-title"),
        pytest.param(fm("id: p-1", "type: concept", "title: null"), 4, "title", id="null-title"),
        pytest.param(fm("id: ../etc", "type: concept", "title: T"), 2, "id", id="unsafe-id"),
        pytest.param(fm(*BASE, "title: Again"), 5, "title", id="duplicate-key"),
        pytest.param(fm(*BASE, "title2: x", "consent: 'true'"), 6, "consent", id="quoted-bool"),
        pytest.param(fm(*BASE, "locked: 1"), 5, "locked", id="int-bool"),
        pytest.param(fm(*BASE, "version: '2'"), 5, "version", id="quoted-version"),
        pytest.param(fm(*BASE, "version: 0"), 5, "version", id="zero-version"),
        pytest.param(fm(*BASE, "status: confirmd"), 5, "status", id="bad-status"),
        pytest.param(fm(*BASE, "sensitivity: secret"), 5, "sensitivity", id="bad-sensitivity"),
        pytest.param(fm(*BASE, "usage_policy: hidden"), 5, "usage_policy", id="bad-usage-policy"),
        pytest.param(fm(*BASE, "confidence: 1.5"), 5, "confidence", id="confidence-range"),
        pytest.param(fm(*BASE, "confidence: high"), 5, "confidence", id="confidence-text"),
        pytest.param(fm(*BASE, "tags: solo"), 5, "tags", id="tags-not-list"),
        pytest.param(fm(*BASE, "tags: [a, null]"), 5, "tags", id="tags-null-item"),
        pytest.param(fm(*BASE, "tags: [{a: b}]"), 5, "tags", id="tags-mapping-item"),
        pytest.param(fm(*BASE, "sources: [session:s1]"), 5, "sources", id="bad-source"),
        pytest.param(fm(*BASE, "observed_at: last tuesday"), 5, "observed_at", id="bad-datetime"),
        pytest.param(fm(*BASE, "title_x: 1", "valid_from: 2026-02-01", "valid_to: 2026-01-01"), 7,
                     "valid_to", id="interval-reversed"),  # fmt: skip
        pytest.param(fm(*BASE, "description: [a]"), 5, "description", id="description-list"),
        pytest.param(fm(*BASE, "kind: {a: 1}"), 5, "kind", id="kind-mapping"),
        pytest.param(fm(*BASE, "supersedes: a/b"), 5, "supersedes", id="supersedes-unsafe"),
        pytest.param(fm(*BASE, "blob: !!binary aGk="), 5, "blob", id="extra-unstorable"),
    ],
)
def test_invalid_file_reports_line_and_field(text: str, line: int, field: str | None) -> None:
    with pytest.raises(WikiFormatError) as info:
        parse_page(text, "wiki/local/companion/concepts/green-tea.md")
    err = info.value
    assert (err.line, err.field) == (line, field)
    assert err.path == Path("wiki/local/companion/concepts/green-tea.md")
    assert str(err).startswith(f"wiki/local/companion/concepts/green-tea.md:{line}: ")


def test_error_messages_say_what_to_do() -> None:
    with pytest.raises(WikiFormatError, match="did you mean 'concept'"):
        parse_page(fm("id: p-1", "type: concpt", "title: T"))
    with pytest.raises(WikiFormatError, match="unquoted"):
        parse_page(fm(*BASE, "consent: 'true'"))
    with pytest.raises(WikiFormatError, match=r"first on line 4"):
        parse_page(fm(*BASE, "title: Again"))
    with pytest.raises(WikiFormatError, match=r"on line 5 \(while parsing a flow sequence started here\)"):
        parse_page(fm("id: p-1", "type: concept", "title: [oops"))


def test_lone_surrogate_text_is_reported_as_bad_utf8() -> None:
    text = fm(*BASE, body="fine\nbad \udcff here")
    with pytest.raises(WikiFormatError, match="not valid UTF-8") as info:
        parse_page(text, "x.md")
    assert info.value.line == 8


# ------------------------------------------------------------------ validate_page


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"id": ""}, "id"),
        ({"id": ".hidden"}, "id"),
        ({"type": "note"}, "type"),
        ({"title": "   "}, "title"),
        ({"title": "two\nlines"}, "title"),
        ({"status": "pending"}, "status"),
        ({"consent": "yes"}, "consent"),
        ({"version": True}, "version"),
        ({"tags": ["ok", ""]}, "tags"),
        ({"sources": ["session:s1/event:x"]}, "sources"),
        ({"sources": ["manual:"]}, "sources"),
        ({"confidence": -0.1}, "confidence"),
        ({"confidence": float("nan")}, "confidence"),
        ({"valid_from": datetime(2026, 2, 1, tzinfo=UTC), "valid_to": datetime(2026, 1, 1, tzinfo=UTC)}, "valid_to"),
        ({"superseded_by": "x y"}, "superseded_by"),
        ({"extra": {"title": "dup"}}, "title"),
        ({"extra": {"obj": object()}}, "obj"),
        ({"extra": {"f": float("nan")}}, "f"),
    ],
)
def test_validate_page_names_the_field(changes: dict, field: str) -> None:
    page = Page(id="p-1", type="concept", title="T").replace(**changes)
    with pytest.raises(WikiFormatError) as info:
        validate_page(page, "x.md")
    assert info.value.field == field
    with pytest.raises(WikiFormatError):
        render_page(page)


def test_valid_sources_are_accepted() -> None:
    page = Page(
        id="p-1",
        type="source",
        title="T",
        sources=["session:abc-1/event:0", "page:p-2", "manual:created in the review UI"],
    )
    validate_page(page)


# ------------------------------------------------------------------ helpers on Page


def test_summary_prefers_description_then_body_then_title() -> None:
    page = Page(id="p-1", type="concept", title="  The   title ")
    assert page.summary() == "The title"
    assert page.replace(body="\n\n  first   line\nsecond").summary() == "first line"
    assert page.replace(body="x", description=" Short\n description ").summary() == "Short description"


def test_semantic_hash_tracks_content() -> None:
    page = Page(id="p-1", type="concept", title="T", body="b")
    assert re.fullmatch(r"[0-9a-f]{64}", page.semantic_hash())
    assert page.semantic_hash() == Page(id="p-1", type="concept", title="T", body="b\n\n").semantic_hash()
    assert page.semantic_hash() != page.replace(body="c").semantic_hash()
    assert page.semantic_hash() != page.replace(extra={"k": 1}).semantic_hash()


def test_unreadable_datetime_argument_names_the_field() -> None:
    with pytest.raises(WikiFormatError) as info:
        Page(id="p-1", type="concept", title="T", valid_to="next spring")  # type: ignore[arg-type]
    assert info.value.field == "valid_to"


def test_replace_returns_a_new_page() -> None:
    page = Page(id="p-1", type="concept", title="T")
    other = page.replace(version=2, valid_from="2026-01-01")
    assert page.version == 1 and other.version == 2
    assert other.valid_from == datetime(2026, 1, 1, tzinfo=UTC)


def test_page_links_come_from_the_body() -> None:
    page = Page(id="p-1", type="concept", title="T", body="See [[A]].\n\n`[[not]]` [[refines::B]]")
    assert page.links() == [WikiLink("A", None, 1), WikiLink("B", "refines", 3)]


def test_make_page_id_is_deterministic() -> None:
    assert make_page_id("seed") == make_page_id("seed")
    assert make_page_id("seed") != make_page_id("seed2")
    assert re.fullmatch(r"p-[0-9a-f]{16}", make_page_id("東京"))
    validate_page(Page(id=make_page_id("x"), type="concept", title="T"))


@pytest.mark.parametrize(
    ("title", "slug"),
    [
        ("Green Tea", "green-tea"),
        ("  Tokyo -- Trip!! 2026 ", "tokyo-trip-2026"),
        ("東京 旅行", "東京-旅行"),
        ("ＡＢＣ１２３", "abc123"),
        ("Crème brûlée", "crème-brûlée"),
        ("हिन्दी नाम", "हिन्दी-नाम"),
        ("../../etc/passwd", "etc-passwd"),
        ("!!!", "untitled"),
        ("", "untitled"),
    ],
)
def test_slugify(title: str, slug: str) -> None:
    assert slugify(title) == slug


@given(st.text(max_size=300))
def test_slugify_is_always_a_safe_name(title: str) -> None:
    slug = slugify(title)
    assert 0 < len(slug) <= 80
    assert not slug.startswith("-") and not slug.endswith("-")
    assert "/" not in slug and "." not in slug and "--" not in slug
    assert slug == slug.lower()


def test_type_folders_cover_every_type() -> None:
    assert set(TYPE_FOLDERS) == set(PAGE_TYPES)
    assert len(set(TYPE_FOLDERS.values())) == len(PAGE_TYPES)


def test_doctests() -> None:
    assert doctest.testmod(page_module).failed == 0


# ------------------------------------------------------------------ the spec page


def test_format_doc_names_every_field_and_value() -> None:
    doc = DOCS.read_text("utf-8")
    for name in FIELD_ORDER:
        assert f"`{name}`" in doc, f"docs/wiki-format.md does not describe the field {name!r}"
    for value in (*PAGE_TYPES, *TYPE_FOLDERS.values(), *STATUSES, *SENSITIVITIES, *LINK_TYPES):
        assert value in doc, f"docs/wiki-format.md does not mention {value!r}"


def test_format_doc_example_page_parses() -> None:
    doc = DOCS.read_text("utf-8")
    examples = re.findall(r"```markdown\n(---\n.*?)```", doc, re.DOTALL)
    assert examples, "docs/wiki-format.md has no ```markdown example page"
    for example in examples:
        page = parse_page(example, "docs/wiki-format.md")
        assert render_page(page) == example
