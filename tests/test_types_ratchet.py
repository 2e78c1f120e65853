"""Types that only get stricter: mypy checks the bodies of unannotated functions too, and the
explicit ``Any`` in riko's signatures (outside the faces ``cli/`` and ``evaluation/``) has a
ceiling per module that only goes down."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "riko"
EXEMPT = ("riko/cli/", "riko/evaluation/")

#: Explicit ``Any`` in parameter and return annotations, per module: ceilings that only go down
#: (give a parameter its real type, then lower the number); a module not listed may hold none.
ANY_CEILINGS: dict[str, int] = {
    "riko/__init__.py": 1,
    "riko/config.py": 19,
    "riko/context.py": 4,
    "riko/dense/http_provider.py": 3,
    "riko/dense/index.py": 8,
    "riko/dense/providers.py": 4,
    "riko/dense/store.py": 6,
    "riko/dense/text_cache.py": 1,
    "riko/dream/cache.py": 4,
    "riko/dream/http_providers.py": 13,
    "riko/dream/jobs.py": 1,
    "riko/dream/proposals.py": 6,
    "riko/dream/protocol.py": 11,
    "riko/dream/providers.py": 5,
    "riko/dream/reflection.py": 2,
    "riko/dream/report.py": 1,
    "riko/dream/runner.py": 20,
    "riko/executor.py": 22,
    "riko/ingest/capture.py": 4,
    "riko/ingest/keep.py": 7,
    "riko/ingest/pipeline.py": 4,
    "riko/ingest/projection.py": 3,
    "riko/ingest/readers.py": 7,
    "riko/mcp/server.py": 20,
    "riko/memory.py": 6,
    "riko/observations.py": 10,
    "riko/purge/apply.py": 4,
    "riko/purge/journal.py": 5,
    "riko/purge/needles.py": 2,
    "riko/purge/plan.py": 18,
    "riko/recall/activation.py": 1,
    "riko/recall/channels.py": 7,
    "riko/recall/engine.py": 19,
    "riko/recall/index_cache.py": 13,
    "riko/recall/projections.py": 6,
    "riko/recall/result.py": 1,
    "riko/recall/vectors.py": 12,
    "riko/resident/compile.py": 24,
    "riko/resident/index.py": 3,
    "riko/resident/store.py": 1,
    "riko/review/authority.py": 1,
    "riko/review/governance.py": 18,
    "riko/review/machine.py": 9,
    "riko/rows.py": 6,
    "riko/sensitivity/evidence.py": 2,
    "riko/server/app.py": 3,
    "riko/server/context.py": 4,
    "riko/server/redact.py": 18,
    "riko/server/routes_admin.py": 6,
    "riko/server/routes_audit.py": 18,
    "riko/server/routes_review.py": 11,
    "riko/server/routes_wiki.py": 38,
    "riko/server/scheduler.py": 1,
    "riko/server/scopes.py": 3,
    "riko/server/wire.py": 12,
    "riko/settings.py": 4,
    "riko/stores/aliases.py": 2,
    "riko/stores/audits.py": 1,
    "riko/stores/base.py": 7,
    "riko/stores/candidates.py": 3,
    "riko/stores/evidence.py": 10,
    "riko/stores/jobs.py": 1,
    "riko/stores/observations.py": 1,
    "riko/stores/overlay.py": 1,
    "riko/stores/pages.py": 4,
    "riko/stores/profiles.py": 1,
    "riko/stores/revision.py": 1,
    "riko/stores/settings.py": 2,
    "riko/stores/tables.py": 10,
    "riko/stores/warehouse.py": 50,
    "riko/tools.py": 3,
    "riko/wiki/canon.py": 14,
    "riko/wiki/check.py": 1,
    "riko/wiki/corrections.py": 1,
    "riko/wiki/links.py": 1,
    "riko/wiki/page.py": 23,
    "riko/wiki/watch.py": 6,
}


def _any_in(node: ast.expr | None) -> int:
    if node is None:
        return 0
    return sum(1 for n in ast.walk(node) if (isinstance(n, ast.Name) and n.id == "Any")
               or (isinstance(n, ast.Attribute) and n.attr == "Any")
               or (isinstance(n, ast.Constant) and isinstance(n.value, str) and _string_any(n.value)))


def _string_any(text: str) -> bool:
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        return False
    return any(isinstance(n, ast.Name) and n.id == "Any" for n in ast.walk(tree))


def any_in_signatures() -> dict[str, int]:
    """``{module path: explicit Any count}`` over every function signature outside the faces."""
    counts: dict[str, int] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).as_posix()
        if rel.startswith(EXEMPT):
            continue
        found = 0
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                a = node.args
                params = [*a.posonlyargs, *a.args, *a.kwonlyargs, *(x for x in (a.vararg, a.kwarg) if x)]
                found += sum(_any_in(p.annotation) for p in params) + _any_in(node.returns)
        if found:
            counts[rel] = found
    return counts


def test_explicit_any_only_goes_down() -> None:
    counts = any_in_signatures()
    risen = {m: f"{n} (ceiling {ANY_CEILINGS.get(m, 0)})" for m, n in counts.items() if n > ANY_CEILINGS.get(m, 0)}
    assert risen == {}, "an explicit Any was added to a signature; give it its real type"


def test_the_ceilings_are_kept_tight() -> None:
    """A ceiling above its module's count is lowered to it, so the ratchet holds what was won."""
    counts = any_in_signatures()
    loose = {m: f"{c} recorded, {counts.get(m, 0)} now" for m, c in ANY_CEILINGS.items() if counts.get(m, 0) < c}
    assert loose == {}


def test_the_counter_sees_every_kind_of_annotation() -> None:
    source = ("from typing import Any\nimport typing\n"
              "def f(a: Any, *b: 'Any', c: dict[str, Any] = {}, **d: typing.Any) -> list[Any]: ...\n")
    tree = ast.parse(source)
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
    a = fn.args
    params = [*a.args, *a.kwonlyargs, a.vararg, a.kwarg]
    assert sum(_any_in(p.annotation) for p in params if p) + _any_in(fn.returns) == 5


def test_mypy_checks_untyped_function_bodies() -> None:
    config = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert config["check_untyped_defs"] is True
