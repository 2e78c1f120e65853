"""The command line speaks CLI: remedies, the root's default preset, tables, JSON arrays, pipes, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import riko
from cli_capture import run
from riko.errors import ClosedError

ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
ENV.pop("RIKO_PRESET", None)


@pytest.fixture(autouse=True)
def _no_env_preset(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("RIKO_PRESET", "RIKO_ROOT", "RIKO_OWNER"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A root initialised for companion (default preset recorded), with the samples ingested and dreamt."""
    root = tmp_path_factory.mktemp("cli-output")
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("RIKO_PRESET", raising=False)
        assert run("init", "--root", str(root), "--preset", "companion")[0] == 0
        assert run("samples", str(root / "samples"))[0] == 0
        assert run("ingest", str(root / "samples"), "--root", str(root))[0] == 0
        assert run("dream", "--root", str(root))[0] == 0
    return root


def test_init_records_the_default_preset_and_creates_the_wiki(tmp_path: Path) -> None:
    code, out, _ = run("init", "--root", str(tmp_path), "--preset", "companion")
    assert code == 0 and (tmp_path / "wiki" / "local" / "companion").is_dir()
    assert 'preset = "companion"' in (tmp_path / "riko.toml").read_text()
    assert "commands on this root now need no --preset" in out
    code, out, _ = run("sessions", "--root", str(tmp_path))
    assert code == 0 and "(no sessions)" in out
    # the recorded preset is not a setting: the config still loads
    with riko.open(tmp_path, preset="companion", read_only=True) as mem:
        assert mem.scope.key == "local:companion"


def test_init_keeps_the_other_settings_of_riko_toml(tmp_path: Path) -> None:
    (tmp_path / "riko.toml").write_text("dream_max_tokens = 2000\n")
    assert run("init", "--root", str(tmp_path), "--preset", "work")[0] == 0
    assert run("init", "--root", str(tmp_path), "--preset", "companion")[0] == 0
    text = (tmp_path / "riko.toml").read_text()
    assert text.count("preset =") == 1 and 'preset = "companion"' in text and "dream_max_tokens = 2000" in text
    with riko.open(tmp_path, preset="companion", read_only=True) as mem:
        assert mem.config.dream_max_tokens == 2000


def test_a_root_without_a_default_fails_closed_and_says_how_to_set_one(tmp_path: Path) -> None:
    code, _, err = run("pages", "--root", str(tmp_path))
    assert code == 2 and "--preset" in err and "RIKO_PRESET" in err and "riko init --preset" in err
    assert "preset=" not in err


def test_cli_errors_name_cli_remedies(world: Path, tmp_path: Path) -> None:
    _, _, err = run("confirm", "c-nosuch", "--root", str(world))
    assert "riko candidates" in err and "mem." not in err
    _, _, err = run("recall", "hi", "--root", str(tmp_path), "--preset", "companion")
    assert "riko init --preset companion" in err and "read_only" not in err
    assert not (tmp_path / "warehouse").exists(), "recall in an empty directory creates nothing"
    code, out, _ = run("ingest", str(world / "samples"), "--root", str(world))
    assert "--assign-preset companion" in out and "--preset work" in out and "preset=" not in out
    assert code == 0


def test_python_keeps_python_remedies(tmp_path: Path) -> None:
    with pytest.raises(riko.RikoError, match=r"pass preset=\.\.\."):
        riko.open(tmp_path)
    with pytest.raises(riko.RikoError, match=r"open it once without read_only=True"):
        riko.open(tmp_path, preset="companion", read_only=True)


def test_ingest_strict_exits_1_when_logs_were_left_for_other_presets(world: Path) -> None:
    code, out, _ = run("ingest", str(world / "samples"), "--root", str(world), "--strict")
    assert code == 1 and "2 log(s) belong to other presets and were left for them" in out
    assert run("ingest", str(world / "samples"), "--root", str(world))[0] == 0


def test_evidence_of_an_unknown_session_is_an_error(world: Path) -> None:
    code, out, err = run("evidence", "NOSUCH", "--root", str(world))
    assert code == 2 and out == "" and "no session with id 'NOSUCH'" in err and "riko sessions" in err


def test_short_tables_show_whole_ids_first_and_wide_shows_everything(world: Path, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = run("candidates", "--all", "--root", str(world))
    lines = out.splitlines()
    assert code == 0 and lines[0].split()[0] == "id"
    assert all(len(line) <= 80 for line in lines[:-1] if line.isascii())
    ids = json.loads(run("candidates", "--all", "--root", str(world), "--json")[1])
    for row in ids:
        assert any(line.startswith(row["id"] + " ") for line in lines), row["id"]
    assert "more column(s) with --wide" in lines[-1]
    code, wide, _ = run("candidates", "--all", "--root", str(world), "--wide")
    assert code == 0 and "source_sessions" in wide and "created_at" in wide
    pid = json.loads(run("pages", "--root", str(world), "--json")[1])[0]["id"]
    assert run("confirm", "x", "--root", str(world))[0] == 2
    assert any(line.startswith(pid + " ") for line in run("pages", "--root", str(world))[1].splitlines())


def test_json_list_fields_are_arrays(world: Path) -> None:
    rows = json.loads(run("candidates", "--all", "--root", str(world), "--json")[1])
    assert rows and all(isinstance(r["tags"], list) and isinstance(r["evidence"], list)
                        and isinstance(r["source_sessions"], list) for r in rows)
    assert any(r["evidence"] and r["evidence"][0].startswith("session:") for r in rows)
    audits = json.loads(run("audits", "--root", str(world), "--json")[1])
    assert any(isinstance(a["detail"], dict) for a in audits)


def test_version() -> None:
    code, out, _ = run("--version")
    assert code == 0 and out.strip() == f"riko {riko.__version__}"


def test_a_closed_pipe_is_quiet(world: Path) -> None:
    """`riko page ID | head`: the reader is gone before riko writes; riko stops without a traceback."""
    pid = json.loads(run("pages", "--root", str(world), "--json")[1])[0]["id"]
    for argv in (["page", pid], ["audits", "--wide"], ["pages", "--json"]):
        proc = subprocess.Popen([sys.executable, "-m", "riko", *argv, "--root", str(world)], env=ENV,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        proc.stdout.close()  # type: ignore[union-attr]  # the reader exits at once, like `head -c 0`
        err = proc.stderr.read().decode()  # type: ignore[union-attr]
        assert proc.wait(timeout=120) == 141, (argv, err)
        assert "Traceback" not in err and "BrokenPipe" not in err and err == "", (argv, err)


def _progress_decision(in_terminal: bool) -> str:
    code = "from riko.progress import progress_enabled; import sys; print(progress_enabled(True), file=sys.stderr)"
    if not in_terminal:
        proc = subprocess.run([sys.executable, "-c", code], env=ENV, capture_output=True, text=True, timeout=60)
        return proc.stderr.strip()
    import pty

    pid, fd = pty.fork()
    if pid == 0:  # the child's stdout and stderr are a terminal
        os.execvpe(sys.executable, [sys.executable, "-c", code], ENV)
    chunks = []
    while True:
        try:
            data = os.read(fd, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.waitpid(pid, 0)
    return b"".join(chunks).decode().strip()


def test_progress_bars_only_on_a_terminal() -> None:
    assert _progress_decision(in_terminal=True) == "True"
    assert _progress_decision(in_terminal=False) == "False"


def test_a_closed_memory_raises_a_clear_error(tmp_path: Path) -> None:
    with riko.open(tmp_path, preset="companion") as mem:
        pass
    with pytest.raises(ClosedError, match=r"this memory is closed; reopen it with riko\.open"):
        mem.sessions()
    with pytest.raises(ClosedError):
        mem.capture({"session_id": "s1", "type": "user/message",
                     "data": {"role": "user", "source": {"kind": "user"},
                              "content": [{"type": "text", "text": "hello"}]}})


def test_every_remedy_is_phrased_for_every_surface() -> None:
    from riko.errors import REMEDIES, SURFACES

    fields = {"preset": "companion", "other": "work", "what": "pages", "root": "/data"}
    for key, phrases in REMEDIES.items():
        assert set(phrases) == set(SURFACES), key
        cli = phrases["cli"].format(**fields)
        assert "mem." not in cli and "preset=" not in cli and "read_only" not in cli, (key, cli)
