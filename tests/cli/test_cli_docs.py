"""``docs/cli.md`` is generated from the parsers, and the README's promise about common options holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from riko.cli.main import build_parser
from riko.cli.docs import cli_markdown, commands

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("RIKO_PRESET", "RIKO_ROOT", "RIKO_OWNER"):
        monkeypatch.delenv(name, raising=False)


def _options(parser) -> set[str]:
    return {s for a in parser._actions for s in a.option_strings}


def test_committed_cli_docs_match_the_parsers() -> None:
    committed = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert committed == cli_markdown(), "regenerate: python -m riko.cli.docs docs/cli.md"


def test_every_command_and_option_is_documented() -> None:
    text = cli_markdown()
    for name, help_text, parser in commands(build_parser()):
        assert f"## riko {name}\n" in text and help_text
        for option in _options(parser) - {"-h", "--help"}:
            assert f"`{option}`" in text.split(f"## riko {name}\n")[1].split("\n## ")[0], (name, option)


def test_the_common_options_promise_holds() -> None:
    """Memory commands take --root, --owner, --preset and --json; the others are named in the docs."""
    without_scope = set()
    for name, _, parser in commands(build_parser()):
        options = _options(parser)
        if "--preset" in options:
            assert {"--root", "--owner", "--json"} <= options, name
        else:
            without_scope.add(name)
            assert ("--json" in options) == (name != "serve"), name
    assert without_scope == {"samples", "serve", "eval companion", "eval cases", "eval retrieval", "eval qa",
                             "eval dream"}
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "Every command that opens a memory takes `--root`" in readme and "docs/cli.md" in readme
