"""The floors of the package, lowest first: a module imports from its own floor or the ones below,
never from above (``tests/test_layers.py`` checks every import, lazy ones included, and that
docs/architecture.md draws this same table)."""

from __future__ import annotations

#: (floor, the packages and root modules standing on it), lowest first.
FLOORS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("ground", ("riko.errors", "riko.faults", "riko.endpoints", "riko.private_files", "riko.progress",
                "riko.rows", "riko.vocabulary", "riko.clock", "riko.scope", "riko.layers")),
    ("language", ("riko.language",)),
    ("contracts", ("riko.config", "riko.contracts", "riko.root_preset", "riko.request_cues")),
    ("stores", ("riko.stores", "riko.dense")),
    ("rules", ("riko.settings", "riko.sensitivity", "riko.context")),
    ("evidence and pages", ("riko.ingest", "riko.observations", "riko.wiki", "riko.graph")),
    ("review", ("riko.review", "riko.resident")),
    ("recall", ("riko.recall", "riko.purge")),
    ("dream", ("riko.executor", "riko.dream", "riko.tools")),
    ("door", ("riko", "riko.memory", "riko.door")),
    ("faces", ("riko.server", "riko.mcp", "riko.cli", "riko.evaluation", "riko.__main__")),
)


def floor_of(unit: str) -> int:
    """The floor number (0 lowest) of a package or root module such as ``riko.review``."""
    for number, (_, members) in enumerate(FLOORS):
        if unit in members:
            return number
    raise KeyError(unit)


def floor_table() -> str:
    """The floors as the Markdown table docs/architecture.md shows, top floor first."""
    rows = [f"| {n} | {name} | {', '.join(f'`{m}`' for m in members)} |"
            for n, (name, members) in reversed(list(enumerate(FLOORS)))]
    return "\n".join(["| floor | name | packages and modules |", "|---|---|---|", *rows])
