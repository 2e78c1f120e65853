"""Files holding raw conversation are the owner's alone: folders 0700, files 0600."""

from __future__ import annotations

import os
import stat

import riko
from riko.clock import FixedClock


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_warehouse_wiki_and_exports_are_private(tmp_path):
    root = tmp_path / "root"
    old = os.umask(0o022)  # the common default, under which the folders used to be 0755
    try:
        with riko.open(root, preset="companion", clock=FixedClock("2026-02-01T09:00:00Z")) as mem:
            mem.capture({"session_id": "s1", "type": "user/message",
                         "data": {"role": "user", "source": {"kind": "user"}, "content": [{"type": "text", "text": "hi"}]}})
            page = mem.create_page("Tea", "I like oolong tea.")
            export = mem.export_evidence(root / "exports")
            files = [mem.warehouse_dir / "riko.duckdb", mem.warehouse_dir / "writer.lock",
                     mem.wiki_dir / mem.pages().filter(mem.pages()["id"] == page.id)["path"][0]]
            folders = [root / "warehouse", mem.warehouse_dir, root / "wiki", mem.wiki_dir, export]
            exported = [p for p in export.rglob("*")]
    finally:
        os.umask(old)
    assert exported
    for path in files + [p for p in exported if p.is_file()]:
        assert mode(path) == 0o600, (path, oct(mode(path)))
    for path in folders + [p for p in exported if p.is_dir()]:
        assert mode(path) == 0o700, (path, oct(mode(path)))
