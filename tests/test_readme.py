"""The README runs as written: its two commands, and every Python block, in a fresh directory and after the demo."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
ENV.pop("RIKO_PRESET", None)


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def _run(code: str, cwd: Path) -> str:
    proc = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=ENV, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_readme_starts_with_exactly_its_two_commands() -> None:
    first = _blocks("bash")[0].strip().splitlines()
    assert first == ["python -m pip install -e . && python -m riko demo",
                     "./scripts/test"]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert ci.rstrip().endswith("python -m pip install -e . && python -m riko demo\n./scripts/test"), \
        ".ci/run runs exactly the README's two commands, last"


def test_the_test_script_installs_extras_and_chromium_and_runs_everything() -> None:
    script = (ROOT / "scripts" / "test").read_text(encoding="utf-8")
    assert "pip install -q -e '.[dev,ray,mcp]'" in script
    assert "apt-get install" in script and "/usr/bin/chromium" in script
    assert script.rstrip().splitlines()[-1].startswith("exec python -m pytest")
    assert (ROOT / "scripts" / "test").stat().st_mode & 0o111, "scripts/test is executable"
    assert README.read_text(encoding="utf-8").index("```bash") < README.read_text(encoding="utf-8").index("```python")


def _check_outputs(outputs: list[str], root: Path) -> None:
    main, tools = outputs
    versions = re.search(r"^(\d+) \[([\d, ]+)\]$", main, re.M)
    assert versions, main
    version, kept = int(versions[1]), [int(v) for v in versions[2].split(",")]
    assert kept == list(range(1, version)), "the corrected page keeps every earlier version"
    assert "<persistent-memory>" in main and "I prefer light mode now." in main
    assert "<MEMORY_DATA>" in main and "Berlin" in main.split("<MEMORY_DATA>")[1]
    assert "memory_remember: ok" in tools
    pages = list((root / "wiki" / "local" / "companion").rglob("*.md"))
    assert any("I prefer light mode now." in p.read_text(encoding="utf-8") for p in pages)


@pytest.mark.parametrize("start", ["fresh directory", "after riko demo"])
def test_python_blocks_run_as_written(tmp_path: Path, start: str) -> None:
    blocks = _blocks("python")
    assert len(blocks) == 2
    if start == "after riko demo":
        demo = subprocess.run([sys.executable, "-m", "riko", "demo"], cwd=tmp_path, env=ENV,
                              capture_output=True, text=True, timeout=300)
        assert demo.returncode == 0, demo.stderr
    outputs = [_run(block, tmp_path) for block in blocks]
    _check_outputs(outputs, tmp_path)
    if start == "fresh directory":  # and again: every line is safe to repeat
        _check_outputs([_run(block, tmp_path) for block in blocks], tmp_path)
