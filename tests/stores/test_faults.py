"""The fault seam: off by default, and an injected disk fault is a StorageError that keeps nothing half done."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import riko
from riko import faults
from riko.errors import StorageError
from riko.wiki.recovery import leftover_temp_files


@pytest.fixture
def armed() -> Iterator[None]:
    yield
    faults.configure(None)


def test_the_seam_is_off_unless_the_environment_asks() -> None:
    code = "from riko import faults; print(faults.ARMED)"
    env = {k: v for k, v in __import__("os").environ.items() if k != faults.ENV}
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env).stdout.strip() == "False"
    env[faults.ENV] = "page.write:ENOSPC:1"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env).stdout.strip() == "True"


@pytest.mark.parametrize("spec", ["page.write:ENOSPC:1", "page.fsync:EIO:1", "page.rename:EIO:1",
                                  "journal.write:ENOSPC:1", "duckdb.commit:EIO:1"])
def test_an_injected_fault_is_typed_and_leaves_the_scope_as_it_was(tmp_path: Path, armed: None, spec: str) -> None:
    with riko.open(tmp_path, preset="companion") as mem:
        mem.create_page("Green tea", "Likes green tea.")
        before = sorted(p.name for p in mem.wiki_dir.rglob("*.md"))
        audits = mem.audits().height
        faults.configure(spec)
        with pytest.raises(StorageError) as info:
            mem.create_page("Oolong", "Sometimes oolong.")
        assert faults.FIRED == 1 and "injected" in str(info.value) and info.value.errno is not None
        faults.configure(None)
        assert sorted(p.name for p in mem.wiki_dir.rglob("*.md")) == before
        assert mem.audits().height == audits and "Oolong" not in mem.pages()["title"].to_list()
        assert not leftover_temp_files(mem.wiki_dir, mem.warehouse_dir)
        mem.create_page("Oolong", "Sometimes oolong.")  # run again once the disk is fixed
        assert "Oolong" in mem.pages()["title"].to_list() and not mem.wiki_check()


def test_counting_mode_counts_every_pass(tmp_path: Path, armed: None) -> None:
    counts = tmp_path / "counts.json"
    faults.configure(f"count:{counts}")
    with riko.open(tmp_path / "root", preset="companion") as mem:
        mem.create_page("Green tea", "Likes green tea.")
    faults.write_counts()
    seen = __import__("json").loads(counts.read_text())
    assert seen["page.write"] >= 1 and seen["duckdb.commit"] >= 1 and seen["journal.write"] >= 1


def test_a_persistent_fault_fails_every_pass_from_the_nth_on(tmp_path: Path, armed: None) -> None:
    faults.configure("page.write:ENOSPC:2+")
    faults.hit("page.write")  # the first pass goes through
    for _ in range(3):
        with pytest.raises(OSError):
            faults.hit("page.write")
    assert faults.FIRED == 3
