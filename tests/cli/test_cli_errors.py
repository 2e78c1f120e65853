"""Every ``riko`` command given bad input answers with one line on stderr and exit 2, never a traceback."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from riko.cli.main import build_parser, main


def _command_names() -> set[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    names = set()
    for name, child in sub.choices.items():
        nested = [a for a in child._actions if a.__class__.__name__ == "_SubParsersAction"]
        names |= {f"{name} {n}" for n in nested[0].choices} if nested else {name}
    return names


def _cases(tmp: Path) -> dict[str, list[str]]:
    root, empty, afile = tmp / "r", tmp / "empty", tmp / "afile"
    R = ["--root", str(root), "--preset", "companion"]
    E = ["--root", str(empty), "--preset", "companion"]
    nosuch = str(tmp / "nosuch")
    return {
        "init": ["init", "--root", str(empty), "--preset", "bad preset!"],
        "ingest": ["ingest", nosuch, *R],
        "sessions": ["sessions", "--root", str(empty)],
        "evidence": ["evidence", "NOSUCH", *R],
        "audits": ["audits", *E],
        "export": ["export", "evidence", "--out", str(afile), *R],
        "samples": ["samples", str(afile)],
        "demo": ["demo", "--root", str(afile)],
        "candidates": ["candidates", *E],
        "propose": ["propose", "", *R],
        "confirm": ["confirm", "NOSUCH", *R],
        "reject": ["reject", "NOSUCH", *R],
        "pages": ["pages", *E],
        "page": ["page", "NOSUCH", "--versions", *R],
        "correct": ["correct", "NOSUCH", "x", *R],
        "replace": ["replace", "NOSUCH", "x", "--valid-from", "yesterday", *R],
        "supersede": ["supersede", "NOSUCH", *R],
        "forget": ["forget", "NOSUCH", *R],
        "suppress": ["suppress", "NOSUCH", *R],
        "restore": ["restore", "NOSUCH", *R],
        "sensitivity": ["sensitivity", "NOSUCH", "normal", *R],
        "resident": ["resident", *E],
        "conflicts": ["conflicts", *E],
        "resolve": ["resolve", "NOSUCH", "correction", *R],
        "aliases": ["aliases", *E],
        "graph": ["graph", *E],
        "wiki check": ["wiki", "check", "--root", str(empty)],
        "wiki sync": ["wiki", "sync", *E],
        "wiki watch": ["wiki", "watch", *E],
        "wiki new": ["wiki", "new", "Tea", "--supersedes", "NOSUCH-PAGE", *R],
        "dream": ["dream", "--session", "NOSUCH", *R],
        "dream-jobs": ["dream-jobs", "--status", "bogus", *R],
        "observations": ["observations", *E],
        "observation": ["observation", "activate", "NOSUCH", *R],
        "recall": ["recall", "hello", "--at", "not-a-time", *R],
        "retrieve": ["retrieve", "hello", "-k", "0", *R],
        "index": ["index", *E],
        "serve": ["serve", "--root", str(root), "--host", "0.0.0.0", "--port", "0"],
        "purge": ["purge", "NOSUCH", *R],
        "eval companion": ["eval", "companion", "--only", "F.99"],
        "eval cases": ["eval", "cases", nosuch + ".jsonl"],
        "eval retrieval": ["eval", "retrieval", "--sessions", nosuch, "--queries", nosuch + ".jsonl"],
        "eval qa": ["eval", "qa", "--dataset", nosuch, "--answer-endpoint", "http://127.0.0.1:9/v1",
                    "--answer-model", "m"],
        "eval dream": ["eval", "dream", "--dataset", nosuch],
        "mark-evidence": ["mark-evidence", "session:NOSUCH/event:0", "normal", *R],
        "capture": ["capture", "--event", "{not json", *R],
        "mcp": ["mcp", "--http", "--host", "0.0.0.0", "--port", "0", *R],
    }


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("cli-errors")
    (tmp / "empty").mkdir()
    (tmp / "afile").write_text("a file where a folder is expected\n")
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["init", "--root", str(tmp / "r"), "--preset", "companion"]) == 0
    return tmp


def test_every_command_has_a_bad_input_case(tmp_path: Path) -> None:
    assert set(_cases(tmp_path)) == _command_names()


@pytest.mark.parametrize("name", sorted(_cases(Path("/x"))))
def test_bad_input_is_one_line_and_exit_2(world: Path, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RIKO_PRESET", raising=False)
    argv = _cases(world)[name]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse refusals
            code = exc.code
    lines = err.getvalue().splitlines()
    assert code == 2, (argv, err.getvalue())
    assert len(lines) == 1 and lines[0].startswith("riko") and ": error: " in lines[0], lines
    assert "Traceback" not in err.getvalue() + out.getvalue()


@pytest.mark.parametrize("name", ["evidence", "samples", "recall", "eval companion"])
def test_a_real_process_prints_no_traceback(world: Path, name: str) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    env.pop("RIKO_PRESET", None)
    proc = subprocess.run([sys.executable, "-m", "riko", *_cases(world)[name]], capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
