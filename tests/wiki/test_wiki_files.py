"""Page files on disk: layout, slug collisions, atomic writes, scanning a scope's tree."""

from __future__ import annotations

import doctest
import os
import stat
from pathlib import Path

import pytest

import riko.wiki.files as files_module
from riko.errors import ScopeError, WikiFormatError
from riko.wiki import (
    RESIDENT_FILE,
    TYPE_FOLDERS,
    Page,
    page_path,
    parse_page,
    read_page_file,
    render_page,
    scan_pages,
    unique_page_path,
    write_atomic,
)


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.startswith("."))


# ------------------------------------------------------------------ paths


@pytest.mark.parametrize(("type_", "folder"), sorted(TYPE_FOLDERS.items()))
def test_page_path_layout(tmp_path: Path, type_: str, folder: str) -> None:
    page = Page(id="p-1", type=type_, title="Green Tea!")
    assert page_path(tmp_path, "local", "companion", page) == (
        tmp_path / "local" / "companion" / folder / "green-tea.md"
    )


def test_page_path_keeps_cjk_titles_readable(tmp_path: Path) -> None:
    page = Page(id="p-1", type="episode", title="東京 旅行 2026")
    assert page_path(tmp_path, "local", "companion", page).name == "東京-旅行-2026.md"


@pytest.mark.parametrize(("owner", "preset"), [("..", "companion"), ("local", ""), ("a/b", "c"), ("local", "x y")])
def test_page_path_refuses_unsafe_scope_names(tmp_path: Path, owner: str, preset: str) -> None:
    with pytest.raises(ScopeError):
        page_path(tmp_path, owner, preset, Page(id="p-1", type="concept", title="T"))


def test_page_path_refuses_unknown_type(tmp_path: Path) -> None:
    with pytest.raises(WikiFormatError) as info:
        page_path(tmp_path, "local", "companion", Page(id="p-1", type="note", title="T"))
    assert info.value.field == "type"


def test_unique_page_path_appends_counters(tmp_path: Path) -> None:
    page = Page(id="p-new", type="entity", title="Mika")
    base = page_path(tmp_path, "local", "companion", page)
    assert unique_page_path(tmp_path, "local", "companion", page, set()) == base
    taken = {base}
    second = unique_page_path(tmp_path, "local", "companion", page, taken)
    assert second == base.with_name("mika-2.md")
    taken.add(second)
    assert unique_page_path(tmp_path, "local", "companion", page, taken).name == "mika-3.md"


def test_unique_page_path_ignores_other_folders(tmp_path: Path) -> None:
    entity = Page(id="p-1", type="entity", title="Mika")
    concept = Page(id="p-2", type="concept", title="Mika")
    taken = {page_path(tmp_path, "local", "companion", entity)}
    assert unique_page_path(tmp_path, "local", "companion", concept, taken).name == "mika.md"


# ------------------------------------------------------------------ atomic writes


def test_write_atomic_creates_parents_and_writes_exact_bytes(tmp_path: Path) -> None:
    target = tmp_path / "wiki" / "local" / "companion" / "concepts" / "tea.md"
    write_atomic(target, "line one\nline two 東京\n")
    assert target.read_bytes() == "line one\nline two 東京\n".encode("utf-8")
    assert leftovers(target.parent) == []


def test_write_atomic_replaces_and_keeps_permissions(tmp_path: Path) -> None:
    target = tmp_path / "page.md"
    target.write_text("old\n", "utf-8")
    os.chmod(target, 0o640)
    write_atomic(target, "new\n")
    assert target.read_text("utf-8") == "new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert leftovers(tmp_path) == []


def test_write_atomic_new_file_is_private_to_its_owner(tmp_path: Path) -> None:
    target = tmp_path / "page.md"
    write_atomic(target, "x\n")
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_failed_write_leaves_existing_file_and_no_temp_files(tmp_path: Path) -> None:
    target = tmp_path / "page.md"
    target.write_text("the last valid version\n", "utf-8")
    with pytest.raises(UnicodeEncodeError):
        write_atomic(target, "half written \udcff never lands")
    assert target.read_text("utf-8") == "the last valid version\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.md"]


def test_failed_render_never_touches_the_file(tmp_path: Path) -> None:
    good = Page(id="p-1", type="concept", title="Tea", body="Hot.")
    target = tmp_path / "concepts" / "tea.md"
    write_atomic(target, render_page(good))
    before = target.read_bytes()
    with pytest.raises(WikiFormatError):
        write_atomic(target, render_page(good.replace(confidence=7.0)))
    assert target.read_bytes() == before
    assert leftovers(target.parent) == []


def test_written_page_reads_back_equal(tmp_path: Path) -> None:
    page = Page(
        id="p-7",
        type="relationship",
        title="Mika and 東京",
        body="[[supports::Mika]] visited [[東京]].",
        tags=["family"],
        sources=["session:s1/event:4"],
        valid_from="2026-01-01",  # type: ignore[arg-type]
    )
    target = page_path(tmp_path, "local", "companion", page)
    write_atomic(target, render_page(page))
    assert read_page_file(target) == page
    write_atomic(target, render_page(read_page_file(target)))
    assert target.read_text("utf-8") == render_page(page)


# ------------------------------------------------------------------ scanning


def _tree(scope: Path) -> None:
    files = {
        "entities/mika.md": "m",
        "concepts/tea.md": "t",
        "concepts/deeper/green.md": "g",
        "synthesis/week.md": "w",
        "sources/raw/log.md": "l",
        RESIDENT_FILE: "resident",
        "concepts/RESIDENT.md": "resident copy",
        "concepts/.draft.md": "hidden",
        "concepts/.tea.md.abc.tmp": "temp",
        ".git/notes.md": "git",
        "concepts/.obsidian/x.md": "settings",
        "concepts/notes.txt": "not markdown",
        "other/page.md": "outside the seven folders",
        "top.md": "outside the seven folders",
    }
    for rel, text in files.items():
        path = scope / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")


def test_scan_pages_reads_the_seven_folders_sorted(tmp_path: Path) -> None:
    scope = tmp_path / "local" / "companion"
    _tree(scope)
    found = [(p.relative_to(scope).as_posix(), text) for p, text in scan_pages(scope)]
    assert found == [
        ("concepts/deeper/green.md", "g"),
        ("concepts/tea.md", "t"),
        ("entities/mika.md", "m"),
        ("sources/raw/log.md", "l"),
        ("synthesis/week.md", "w"),
    ]


def test_page_files_sort_like_paths_and_skip_linked_directories(tmp_path: Path) -> None:
    scope = tmp_path / "scope"
    for rel in ("entities/a b.md", "entities/a/b.md", "entities/a-b.md", "entities/a.md", "entities/Z.md",
                "entities/x.md.d/y.md", "entities/.hidden/h.md", "concepts/deep/er/q.md"):
        (scope / rel).parent.mkdir(parents=True, exist_ok=True)
        (scope / rel).write_text(rel, "utf-8")
    (scope / "entities" / "folder.md").mkdir()  # a directory named like a page is not one
    os.symlink(scope / "concepts" / "deep", scope / "entities" / "linked")  # not followed
    os.symlink(scope / "entities" / "a.md", scope / "entities" / "alias.md")  # a linked file is read
    listed = files_module.page_files(scope)
    # "a/b.md" sorts before "a b.md" as a path (its first part "a" is shorter), unlike as a string
    assert [rel for rel, _ in listed] == [
        "concepts/deep/er/q.md", "entities/Z.md", "entities/a/b.md", "entities/a b.md", "entities/a-b.md",
        "entities/a.md", "entities/alias.md", "entities/x.md.d/y.md",
    ]
    assert listed == sorted(listed, key=lambda item: Path(item[0]).parts)
    assert [(Path(full), files_module.read_bytes(full).decode()) for _, full in listed] == [
        (path, text) for path, text in scan_pages(scope)]
    assert files_module.read_bytes(listed[-2][1]) == b"entities/a.md"


def test_scan_pages_of_missing_scope_is_empty(tmp_path: Path) -> None:
    assert list(scan_pages(tmp_path / "nobody")) == []


def test_scan_yields_bad_utf8_for_parse_to_report(tmp_path: Path) -> None:
    scope = tmp_path / "scope"
    (scope / "concepts").mkdir(parents=True)
    good = render_page(Page(id="p-1", type="concept", title="Good"))
    (scope / "concepts" / "a-good.md").write_text(good, "utf-8")
    (scope / "concepts" / "b-bad.md").write_bytes(good.encode() + b"\nLatin-1 caf\xe9\n")
    (scope / "concepts" / "c-good.md").write_text(good.replace("p-1", "p-3"), "utf-8")
    results: list[tuple[str, object]] = []
    for path, text in scan_pages(scope):
        try:
            results.append((path.name, parse_page(text, path).id))
        except WikiFormatError as err:
            results.append((path.name, (err.line, "UTF-8" in str(err), err.path == path)))
    assert results == [("a-good.md", "p-1"), ("b-bad.md", (12, True, True)), ("c-good.md", "p-3")]


def test_read_page_file_reports_bad_utf8_with_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.md"
    path.write_bytes(b"---\nid: p-1\ntype: concept\ntitle: caf\xe9\n---\n")
    with pytest.raises(WikiFormatError, match="not valid UTF-8") as info:
        read_page_file(path)
    assert (info.value.path, info.value.line) == (path, 4)


def test_read_page_file_names_the_file_on_format_errors(tmp_path: Path) -> None:
    path = tmp_path / "concepts" / "broken.md"
    path.parent.mkdir()
    path.write_text("---\nid: p-1\ntype: concept\ntitle: T\nlocked: 'no'\n---\n", "utf-8")
    with pytest.raises(WikiFormatError) as info:
        read_page_file(path)
    assert str(info.value).startswith(f"{path}:5: field 'locked': ")


def test_doctests() -> None:
    assert doctest.testmod(files_module).failed == 0
