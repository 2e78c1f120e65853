"""Scope directory names are injective, and roots written under the older shared names are migrated."""

from __future__ import annotations

import shutil

import riko
from riko.clock import FixedClock
from riko.scope import MemoryScope, scope_storage_key, storage_key
from riko.stores.warehouse import Warehouse


def test_presets_that_used_to_share_a_directory_do_not():
    keys = ["local:iso.x", "local:iso--x", "local:iso-x", "local.iso:x", "local:iso_x", "local--iso:x"]
    dirs = [scope_storage_key(k) for k in keys]
    assert len(set(dirs)) == len(dirs)
    assert scope_storage_key("local:companion") == "local--companion"  # plain names stay as they were
    assert all(d.startswith(storage_key(k)) for k, d in zip(keys, dirs))  # still readable


def test_two_such_scopes_are_open_at_once_with_their_own_files(tmp_path):
    with riko.open(tmp_path, preset="iso.x") as a, riko.open(tmp_path, preset="iso--x") as b:
        assert a.warehouse_dir != b.warehouse_dir
        a.create_page("Tea", "Green tea.")
        b.create_page("Coffee", "Black coffee.")
        ea, eb = a.export_evidence(tmp_path / "pq"), b.export_evidence(tmp_path / "pq")
        assert ea != eb
        assert a.pages()["title"].to_list() == ["Tea"] and b.pages()["title"].to_list() == ["Coffee"]


def _legacy(root, preset):
    scope = MemoryScope("local", preset)
    return root / "warehouse" / scope.storage_key, root / "warehouse" / scope.legacy_storage_key


def test_a_legacy_directory_of_one_scope_is_renamed(tmp_path):
    with riko.open(tmp_path, preset="my-bot") as mem:
        mem.create_page("Tea", "Green tea.")
    new, old = _legacy(tmp_path, "my-bot")
    new.rename(old)  # what an older root looks like
    with riko.open(tmp_path, preset="my-bot", read_only=True) as mem:  # a reader reads it where it is
        assert mem.warehouse_dir == old and mem.pages().height == 1
    with riko.open(tmp_path, preset="my-bot") as mem:
        assert mem.warehouse_dir == new and mem.pages()["title"].to_list() == ["Tea"]
    assert not old.exists()


def test_a_shared_legacy_directory_is_split_by_scope(tmp_path):
    with riko.open(tmp_path, preset="iso.x") as mem:
        mem.create_page("Tea", "Green tea.")
    new_a, old = _legacy(tmp_path, "iso.x")
    new_a.rename(old)
    clock = FixedClock("2026-01-15T09:00:00Z")
    other = MemoryScope("local", "iso--x")
    wh = Warehouse(old, other, clock)  # the other scope wrote into the same database
    with wh.transaction():
        wh.audit("note", "management", None, {"n": 1})
    wh.close()
    with riko.open(tmp_path, preset="iso--x") as b:
        assert b.warehouse_dir != old and b.pages().height == 0 and b.audits("note").height == 1
        keys = {r[0] for r in b.warehouse.fetchall("SELECT DISTINCT scope_key FROM audits")}
        assert keys == {other.key}
    with riko.open(tmp_path, preset="iso.x") as a:  # the last scope left takes the directory
        assert a.warehouse_dir == new_a and a.pages()["title"].to_list() == ["Tea"]
        assert a.audits("note").height == 0
    assert not old.exists()
    shutil.rmtree(tmp_path / "warehouse")
