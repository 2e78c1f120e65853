"""Hand edits seen live: real file writes (editor-style atomic renames included) against an open
memory, a running ``riko serve`` process and ``riko wiki watch``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

import riko
from waiting import until
from riko.wiki.watch import is_page_file

ROOT = Path(__file__).resolve().parents[2]
API = "/memory/v1"
TOKEN = "watch-test-token-0123456789"
#: How long a test waits for the watcher: far above the ~0.1 s it takes, so a loaded machine
#: cannot fail the test; the figure itself is measured by benchmarks, not asserted.


def _page_file(mem: Any, page_id: str) -> Path:
    return next(p for p in mem.wiki_dir.rglob("*.md") if is_page_file(p) and page_id in p.read_text(encoding="utf-8"))


def _editor_save(path: Path, text: str) -> None:
    """What most editors do: write a temporary file beside the page, then rename it over."""
    tmp = path.with_name(f".{path.name}.swp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def test_an_open_memory_with_watch_serves_a_hand_edit(tmp_path: Path) -> None:
    reports: list[Any] = []
    with riko.open(tmp_path, preset="companion", watch=True) as mem:
        page = mem.create_page("Tea", "I prefer green tea.")
        mem.watch(on_report=reports.append)  # already watching: the call keeps the running watcher
        path = _page_file(mem, page.id)
        _editor_save(path, path.read_text(encoding="utf-8").replace("green tea", "oolong tea"))
        until(lambda: "oolong" in mem.page(page.id).body, "the edited body")
        assert mem.page(page.id).version == 2
        assert mem.page_versions(page.id)["version"].to_list() == [1]  # the earlier version is kept
        assert "oolong tea" in mem.resident().text and "green tea" not in mem.resident().text
        assert "page-edited-externally" in mem.audits()["kind"].to_list()
        # an in-place write (no rename) is seen too
        path.write_text(path.read_text(encoding="utf-8").replace("oolong tea", "jasmine tea"), encoding="utf-8")
        until(lambda: "jasmine" in mem.page(page.id).body, "the second edit")


def test_a_malformed_edit_is_reported_and_the_previous_version_keeps_serving(tmp_path: Path) -> None:
    reports: list[Any] = []
    with riko.open(tmp_path, preset="companion") as mem:
        page = mem.create_page("Tea", "I prefer green tea.")
        mem.watch(on_report=reports.append)
        path = _page_file(mem, page.id)
        broken = path.read_text(encoding="utf-8").replace("title: Tea", "title: [Tea", 1)
        _editor_save(path, broken)
        report = until(lambda: next((r for r in reports if getattr(r, "errors", None)), None), "a refused edit")
        error = report.errors[0]
        assert Path(error.path).name == path.name and error.line is not None
        assert mem.page(page.id).body == "I prefer green tea." and mem.page(page.id).version == 1
        assert path.read_text(encoding="utf-8") == broken  # never overwritten
        # fixing the file is applied like any edit
        _editor_save(path, broken.replace("title: [Tea", "title: Tea", 1).replace("green tea", "white tea"))
        until(lambda: "white tea" in mem.page(page.id).body, "the fixed edit")


def test_a_read_only_memory_cannot_watch(tmp_path: Path) -> None:
    with riko.open(tmp_path, preset="companion"):
        pass
    with riko.open(tmp_path, preset="companion", read_only=True) as mem:
        with pytest.raises(riko.errors.ReadOnlyError):
            mem.watch()


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RIKO_")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


@pytest.mark.slow
def test_a_running_server_serves_a_hand_edit(tmp_path: Path) -> None:
    (tmp_path / "riko.toml").write_text(f'api_token = "{TOKEN}"\napi_token_profile = "companion"\n', encoding="utf-8")
    with riko.open(tmp_path, preset="companion") as mem:
        page = mem.create_page("Bike", "My bike is a blue Brompton.")
        path = _page_file(mem, page.id)
    proc = subprocess.Popen([sys.executable, "-m", "riko", "serve", "--root", str(tmp_path), "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env())
    headers = {"x-dsh-memory-profile": "companion", "authorization": f"Bearer {TOKEN}"}
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        match = re.search(r"listening on (http://127\.0\.0\.1:\d+)", line)
        assert match, line
        with httpx.Client(base_url=match[1] + API, headers=headers, timeout=30) as c:
            assert "blue Brompton" in c.get(f"/wiki/pages/{page.id}").text
            _editor_save(path, path.read_text(encoding="utf-8").replace("blue Brompton", "green Brompton"))
            until(lambda: "green Brompton" in c.get(f"/wiki/pages/{page.id}").text, "the edit over HTTP")
            until(lambda: "green Brompton" in c.get("/resident").text, "the recompiled Resident")
            broken = path.read_text(encoding="utf-8").replace("---\n", "---\ntitle: [\n", 1)
            _editor_save(path, broken)
            time.sleep(1.0)  # give the watcher a chance to (wrongly) act on it
            served = c.get(f"/wiki/pages/{page.id}")
            assert served.status_code == 200 and "green Brompton" in served.text
            assert path.read_text(encoding="utf-8") == broken
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert "Traceback" not in err


@pytest.mark.slow
def test_riko_wiki_watch_prints_a_line_per_change(tmp_path: Path) -> None:
    with riko.open(tmp_path, preset="companion") as mem:
        page = mem.create_page("Plant", "I keep a fig tree on the balcony.")
        path = _page_file(mem, page.id)
    proc = subprocess.Popen([sys.executable, "-m", "riko", "wiki", "watch", "--root", str(tmp_path),
                             "--preset", "companion"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=_env())
    try:
        assert proc.stderr is not None and "watching" in proc.stderr.readline()
        time.sleep(0.3)
        _editor_save(path, path.read_text(encoding="utf-8").replace("fig tree", "lemon tree"))
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == f"edited {page.id}"
        _editor_save(path, path.read_text(encoding="utf-8").replace("---\n", "---\ntitle: [\n", 1))
        refused = proc.stdout.readline()
        assert refused.startswith("refused ") and path.name in refused and "previous version keeps serving" in refused
    finally:
        proc.terminate()
        proc.communicate(timeout=30)
    with riko.open(tmp_path, preset="companion", read_only=True) as mem:
        assert "lemon tree" in mem.page(page.id).body
