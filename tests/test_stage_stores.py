"""The stages (ingest, Dream, review, Resident, recall, purge, the Wiki canon, observations, tools,
sensitivity, the Dream settings) reach their stores through ``ctx.stores`` (or the canon's bundle,
which is the same object): no function there builds a store (``EvidenceStore(ctx.wh)``,
``ObservationRows(wh)``, ``Stores.of(wh)``) except the few on the allow-list, whose
warehouse-only signature is called from outside these stages."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "riko"
STAGES = ("ingest", "purge", "observations.py", "tools.py", "sensitivity", "recall", "wiki", "review", "dream",
          "resident", "settings.py")
#: store classes whose names do not end in ``Store``, and the bundle itself
OTHER_STORES = {"ObservationRows", "ScopeTables", "Stores"}

#: ``module:function`` -> why it still builds a store
ALLOWED = {
    "riko.purge.needles:Needles.from_warehouse": "tests build needles from a bare warehouse",
    "riko.review.authority:UserLines.__init__": "tests build the snapshot over a bare warehouse",
    "riko.review.authority:latest_user_message": "riko.tools and tests ask it with a bare warehouse",
    "riko.review.authority:user_grounded_match": "tests ask it with a bare warehouse",
    "riko.wiki.aliases:_store": "Memory, riko.tools and tests call the alias functions with a bare warehouse",
}


def _modules() -> list[Path]:
    found: list[Path] = []
    for name in STAGES:
        path = PACKAGE / name
        found.extend(sorted(path.rglob("*.py")) if path.is_dir() else [path])
    return found


def _module(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_store(name: str) -> bool:
    return name.endswith("Store") or name in OTHER_STORES


class _Finder(ast.NodeVisitor):
    """Each call building a store, as ``module:Qualified.function``."""

    def __init__(self, module: str, aliases: dict[str, str]) -> None:
        self.module, self.aliases = module, aliases
        self.where: list[str] = []
        self.found: list[tuple[str, str, int]] = []

    def _scoped(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        self.where.append(node.name)
        self.generic_visit(node)
        self.where.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _scoped

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        name = (self.aliases.get(func.id, func.id) if isinstance(func, ast.Name)
                else func.attr if isinstance(func, ast.Attribute) else "")
        if name == "of" and isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            name = self.aliases.get(func.value.id, func.value.id)  # Stores.of(wh) (ObservationStore.of(ctx) is fine)
            name = name if name == "Stores" else ""
        if _is_store(name):
            self.found.append((f"{self.module}:{'.'.join(self.where) or '<module>'}", name, node.lineno))
        self.generic_visit(node)


def _constructions(source: str, module: str) -> list[tuple[str, str, int]]:
    tree = ast.parse(source)
    aliases = {a.asname: a.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
               for a in node.names if a.asname}
    finder = _Finder(module, aliases)
    finder.visit(tree)
    return finder.found


def _all() -> list[tuple[str, str, int]]:
    return [hit for path in _modules() for hit in _constructions(path.read_text(encoding="utf-8"), _module(path))]


def test_stages_take_their_stores_from_the_context() -> None:
    offenders = [f"{where} builds {name} (line {line}): use ctx.stores" for where, name, line in _all()
                 if where not in ALLOWED]
    assert offenders == []


def test_allow_list_has_no_stale_entries() -> None:
    used = {where for where, _, _ in _all()}
    assert sorted(set(ALLOWED) - used) == []


def test_a_new_construction_is_caught() -> None:
    source = (PACKAGE / "purge" / "apply.py").read_text(encoding="utf-8")
    line = "    wh = ctx.wh\n"
    assert line in source
    added = "    EvidenceStore(ctx.wh)\n    tables.ScopeTables(wh)\n    S.of(wh)\n"
    source = source.replace(line, line + added, 1) + "from ..stores.bundle import Stores as S\n"
    assert [(where, name) for where, name, _ in _constructions(source, "riko.purge.apply")] == [
        ("riko.purge.apply:apply_plan", "EvidenceStore"), ("riko.purge.apply:apply_plan", "ScopeTables"),
        ("riko.purge.apply:apply_plan", "Stores")]
