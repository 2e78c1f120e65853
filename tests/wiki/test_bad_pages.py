"""One malformed value in one page file never blocks the scope: reported with file, line, field."""

from __future__ import annotations

import pytest

import riko
from riko.cli.main import main
from riko.errors import RikoError, WikiFormatError
from riko.wiki.journal import JOURNAL_NAME
from riko.wiki.page import parse_page

# (frontmatter line, field named in the error)
BAD_VALUES = [
    ("valid_from: 2026-02-30", "valid_from"),
    ("valid_from: 2026-13-01", "valid_from"),
    ("confidence: !!float abc", "confidence"),
    ("version: " + "9" * 5001, "version"),
    ("valid_from: 0001-01-01T00:00:00+05:00", "valid_from"),
    ("note: &a [*a]", "note"),
    ("note: " + "9" * 5001, "note"),
    ("note: " + "[" * 3000 + "]" * 3000, None),
]


def page_text(extra_line: str) -> str:
    return f"---\nid: p-bad\ntype: concept\ntitle: Broken\n{extra_line}\n---\nbody\n"


@pytest.mark.parametrize(("line", "field"), BAD_VALUES)
def test_parse_page_raises_only_wiki_format_error_with_line_and_field(line, field):
    with pytest.raises(WikiFormatError) as info:
        parse_page(page_text(line), "concepts/broken.md")
    err = info.value
    assert str(err).startswith("concepts/broken.md:")
    if field is not None:
        assert err.field == field and err.line == 5


@pytest.mark.parametrize(("line", "field"), BAD_VALUES[:6])
def test_a_broken_page_is_skipped_and_keeps_its_last_version(tmp_path, capsys, line, field):
    root = tmp_path / "root"
    with riko.open(root, preset="companion") as mem:
        good = mem.create_page("Green tea", "I drink green tea.")
        other = mem.create_page("Oolong", "Sometimes oolong.")
    wiki = root / "wiki" / "local" / "companion"
    target = next(p for p in (wiki / "concepts").glob("*.md") if "green-tea" in p.name)
    text = target.read_text()
    target.write_text(text.replace("version: 1\n", f"version: 1\n{line}\n", 1) if not line.startswith("version")
                      else text.replace("version: 1\n", line + "\n", 1))
    (wiki / "concepts" / "new-broken.md").write_text(page_text(line))
    with riko.open(root, preset="companion") as mem:  # neither file blocks the scope
        errors = mem.last_sync.errors
        assert {e.path.name for e in errors} == {target.name, "new-broken.md"}
        assert all(e.line and e.field == field for e in errors)
        assert mem.page(good.id).body == "I drink green tea." and mem.page(good.id).version == 1
        assert mem.page(other.id).version == 1
        mem.create_page("Hojicha", "Roasted.")  # still writable
    for argv in (["wiki", "check"], ["wiki", "sync"], ["init"]):
        code = main([*argv, "--root", str(root), "--preset", "companion"])
        out, _ = capsys.readouterr()
        if argv == ["init"]:
            assert code == 0
        else:
            assert code == 1
            assert f"{target.name}:" in out and f"field '{field}'" in out


def test_a_failed_open_releases_the_writer_lock(tmp_path):
    root = tmp_path / "root"
    with riko.open(root, preset="companion") as mem:
        mem.create_page("Green tea", "I drink green tea.")
        journal = mem.warehouse_dir / JOURNAL_NAME
    journal.write_text("{not json")
    with pytest.raises(RikoError) as info:
        riko.open(root, preset="companion")
    assert str(journal) in str(info.value)
    journal.unlink()
    with riko.open(root, preset="companion") as mem:  # same process: the lock was let go
        assert mem.pages().height == 1


def test_wiki_check_reports_a_hand_changed_id_as_sync_does(tmp_path, capsys):
    root = tmp_path / "root"
    with riko.open(root, preset="companion") as mem:
        page = mem.create_page("Green tea", "I drink green tea.")
    target = next((root / "wiki" / "local" / "companion" / "concepts").glob("*.md"))
    target.write_text(target.read_text().replace(f"id: {page.id}", "id: p-handmade"))
    code = main(["wiki", "check", "--root", str(root), "--preset", "companion"])
    out, _ = capsys.readouterr()
    assert code == 1 and "id changed" in out and f"{target.name}:2: field 'id'" in out
    code = main(["wiki", "sync", "--root", str(root), "--preset", "companion"])
    out, _ = capsys.readouterr()
    assert code == 1 and "id changed" in out
