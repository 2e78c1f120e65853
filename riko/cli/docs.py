"""``docs/cli.md`` written from the ``riko`` parsers, so the reference cannot drift from the code.

    python -m riko.cli.docs docs/cli.md     # rewrite the page
    python -m riko.cli.docs                 # print it
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Iterator

__all__ = ["cli_markdown", "commands"]

_WIDTH = 100

_INTRO = """# Command line reference

Generated from the parsers by `python -m riko.cli.docs docs/cli.md`; a test keeps it in step.

Every command that opens a memory takes `--root` (env `RIKO_ROOT`, default `.`), `--owner`
(default: `owner_namespace` from env `RIKO_OWNER` or `RIKO_OWNER_NAMESPACE`, else `<root>/riko.toml`,
else `local`: the owner `riko.open` and `riko serve` use on that root), `--preset` (env
`RIKO_PRESET`; default: the `preset` line that `riko init --preset P` records in
`<root>/riko.toml`; there is no global default) and `--json`. `samples` and the `eval` suites take
`--json` only (they open no memory of yours); `serve` takes `--root` and `--owner` and prints no
JSON (it runs a server). Listing commands print a short
table, ids first and whole; `--wide` prints every column and `--json` every field, list fields
as JSON arrays.

`ingest` and `dream` print a short summary; `--json` prints the whole report. Dream's candidate
counts add up to `riko candidates --all`: *new in the table* are the rows the run added (fact
candidates and the entity candidates their facts name, counted with the session that named them
first), *merged* are proposals that became new evidence on a row already there (no new row),
*duplicates dropped* are exact repeats. A model reads at most `max_session_chars` of a session,
newest first: a message longer than that is split at sentence or paragraph boundaries and each
split message is counted in the summary; the offline heuristic reads every line. The `audits`
table keeps kind and authority whole, a long path target by its last two parts, and the detail as
`key=value` with the reason first; `--wide` prints every field whole.

Exit codes: `0` success; `1` a check found problems (`wiki check`, `wiki sync`, `ingest
--strict`, `dream --strict`, `eval … --gate`, a red `eval companion`); `2` bad input, printed as
one line `riko: error: …` that says what was wrong and what to do; `130` interrupted.

Only `init`, `ingest` and `demo` create a scope's warehouse; every other command on a root
without one says how to create it and changes nothing.

Recall follows one rule on every surface: `recall_enabled` (default off) is the switch. Until
it is on, `POST /recall` and `POST /recall/debug` answer 404 `recall-disabled` naming the
setting, and `mem.recall(...)` in Python and `riko recall` stop with an error naming it
(`riko recall`: exit 2). `mem.retrieve` / `riko retrieve`, the ungated research ranking, is not recall.
"""


def _subparsers(parser: argparse.ArgumentParser) -> argparse._SubParsersAction | None:
    return next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)


def commands(parser: argparse.ArgumentParser) -> Iterator[tuple[str, str, argparse.ArgumentParser]]:
    """``(name, help, parser)`` of every command, nested ones as ``"wiki check"``."""
    sub = _subparsers(parser)
    if sub is None:
        return
    helps = {a.dest: a.help or "" for a in sub._choices_actions}
    for name, child in sub.choices.items():
        nested = _subparsers(child)
        if nested is None:
            yield name, helps.get(name, ""), child
            continue
        nested_helps = {a.dest: a.help or "" for a in nested._choices_actions}
        for inner, grandchild in nested.choices.items():
            yield f"{name} {inner}", nested_helps.get(inner, ""), grandchild


def _usage(parser: argparse.ArgumentParser) -> str:
    formatter = argparse.HelpFormatter(parser.prog, width=_WIDTH)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups, prefix="")
    return formatter.format_help().strip()


def _options(parser: argparse.ArgumentParser) -> list[str]:
    rows = []
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        name = ", ".join(f"`{s}`" for s in action.option_strings) or f"`{action.metavar or action.dest}`"
        if action.choices is not None and not isinstance(action.choices, dict):
            name += " (" + " \\| ".join(str(c) for c in action.choices) + ")"
        text = (action.help or "").replace("|", "\\|").replace("\n", " ")
        rows.append(f"| {name} | {text} |")
    return rows


def cli_markdown() -> str:
    """The whole ``docs/cli.md`` page."""
    from .main import build_parser

    parser = build_parser()
    lines = [_INTRO, "## Commands", ""]
    every = list(commands(parser))
    lines += [f"- [`riko {name}`](#riko-{name.replace(' ', '-')}): {text}" for name, text, _ in every]
    for name, text, child in every:
        lines += ["", f"## riko {name}", "", text[:1].upper() + text[1:] + ".", "", "```text",
                  _usage(child), "```", ""]
        options = _options(child)
        if options:
            lines += ["| argument | meaning |", "| --- | --- |", *options]
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    text = cli_markdown()
    if args:
        Path(args[0]).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
