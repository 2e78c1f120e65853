"""The shape of the package: every import goes down the floors of ``riko.layers.FLOORS`` (or stays
on its floor), the packages form no cycle, imports form no cycle, no stage imports the facade, no module
outside the facade reaches into a Memory's private attributes, SQL lives in ``riko/stores/``
(a ratchet that only goes down), the faces reach the stores only through ``riko.Memory`` and
the scope context imports no stage."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import networkx as nx

from riko.layers import FLOORS, floor_of, floor_table

PACKAGE = Path(__file__).resolve().parents[1] / "riko"
FACADE_USERS = {"riko", "riko.evaluation.samples"}  # the door itself and its thin layers


def _module(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Modules imported at module level (not under TYPE_CHECKING, not inside functions)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    name = _module(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        for sub in ast.walk(node) if not isinstance(node, (ast.FunctionDef, ast.ClassDef)) else ():
            if isinstance(sub, ast.Import):
                found |= {a.name for a in sub.names if a.name.startswith("riko")}
            elif isinstance(sub, ast.ImportFrom):
                if sub.level:
                    base = package.split(".")
                    base = base[: len(base) - sub.level + 1]
                    target = ".".join(base + ([sub.module] if sub.module else []))
                else:
                    target = sub.module or ""
                if target.startswith("riko"):
                    found.add(target)
    return found


def _graph() -> nx.DiGraph:
    g = nx.DiGraph()
    for path in PACKAGE.rglob("*.py"):
        g.add_node(_module(path))
        for target in _imports(path):
            g.add_edge(_module(path), target)
    return g


def test_module_level_imports_form_no_cycle() -> None:
    g = _graph()
    # a package's __init__ re-exporting its submodules is not a cycle of the code itself
    edges = [(a, b) for a, b in g.edges if not (b.startswith(a + ".") or a.startswith(b + ".") and b.count(".") == 0)]
    cycles = list(nx.simple_cycles(nx.DiGraph(edges)))
    assert cycles == [], cycles[:5]


def test_no_stage_imports_the_facade() -> None:
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        name = _module(path)
        if name == "riko.memory" or name in FACADE_USERS or name.startswith(("riko.server", "riko.cli", "riko.mcp")):
            continue
        if re.search(r"^\s*(from\s+(\.+|riko\.)memory\s+import|import\s+riko\.memory)", text, re.M):
            offenders.append(name)
    assert offenders == []


def test_no_listener_is_a_facade_method(tmp_path: Path) -> None:
    """The change signal's listeners belong to the stages owning the derived data, never to Memory."""
    import riko

    with riko.open(tmp_path, owner="o", preset="p") as mem:
        listeners = [entry[2] for entry in mem._ctx.changed._listeners]
        owners = [getattr(fn, "__self__", None) for fn in listeners]
        modules = [getattr(fn, "__module__", "") for fn in listeners]
    assert not any(owner is mem for owner in owners), "a facade method listens on the change signal"
    assert modules == ["riko.resident.store", "riko.recall.projections", "riko.recall.vectors"], modules


def test_nothing_outside_the_facade_reads_its_private_parts() -> None:
    offenders = [f"{path.relative_to(PACKAGE)}:{n}" for path in PACKAGE.rglob("*.py") if path.name != "memory.py"
                 for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if re.search(r"\bmem\._", line)]
    assert offenders == []


# -- SQL lives in the stores -----------------------------------------------------------------------
# A string literal holding a statement (the parts of an f-string taken together).
_SQL = re.compile(r"\b(SELECT\s|INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|"
                  r"CREATE\s+(OR\s+REPLACE\s+)?(TEMP\s+)?(TABLE|INDEX|VIEW|SEQUENCE|UNIQUE)|ALTER\s+TABLE|"
                  r"DROP\s+(TABLE|VIEW|INDEX))")

#: SQL string literals still outside ``riko/stores/``, per module: ceilings that only go down (move
#: a statement into the store that owns the table, then lower its number); a module not listed may
#: hold none.
SQL_LITERALS: dict[str, int] = {}


def _sql_literals(path: Path) -> int:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parts: set[int] = set()
    found = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            parts |= {id(v) for v in node.values}
            found += bool(_SQL.search("".join(v.value for v in node.values if isinstance(v, ast.Constant))))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in parts:
            found += bool(_SQL.search(node.value))
    return found


def sql_outside_stores() -> dict[str, int]:
    counts = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).as_posix()
        if not rel.startswith("riko/stores/") and (n := _sql_literals(path)):
            counts[rel] = n
    return counts


def test_sql_stays_in_the_stores() -> None:
    counts = sql_outside_stores()
    risen = {m: f"{n} (recorded {SQL_LITERALS.get(m, 0)})" for m, n in counts.items() if n > SQL_LITERALS.get(m, 0)}
    assert risen == {}, ("SQL belongs in the store that owns the table (riko/stores/); "
                         f"these modules gained statements: {risen}")


def test_the_sql_counter_sees_statements(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text('a = "SELECT x FROM t"\nb = f"DELETE FROM {t} WHERE k = ?"\nc = "select a friend"\n'
                      'd = ("UPDATE pages SET path = ? "\n     "WHERE id = ?")\n', encoding="utf-8")
    assert _sql_literals(sample) == 3


# -- lazy imports --------------------------------------------------------------------------------
#: riko modules imported inside functions (a ceiling: lower it when a lazy import goes).
LAZY_IMPORTS = 71


def _all_imports(path: Path) -> tuple[set[str], int]:
    """Every riko module ``path`` imports when it runs (module level or inside functions, not
    under TYPE_CHECKING), and how many imports sit inside functions."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    name = _module(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    lazy = 0
    inner = {id(sub) for fn in ast.walk(tree) if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
             for sub in ast.walk(fn)}
    typing_only = {id(sub) for node in ast.walk(tree) if isinstance(node, ast.If)
                   and "TYPE_CHECKING" in ast.unparse(node.test) for sub in ast.walk(node)}
    for sub in ast.walk(tree):
        if id(sub) in typing_only:
            continue
        targets: list[str] = []
        if isinstance(sub, ast.Import):
            targets = [a.name for a in sub.names if a.name.startswith("riko")]
        elif isinstance(sub, ast.ImportFrom):
            if sub.level:
                base = package.split(".")
                base = base[: len(base) - sub.level + 1]
                target = ".".join(base + ([sub.module] if sub.module else []))
            else:
                target = sub.module or ""
            if sub.module is None:  # ``from . import server``: the submodules themselves
                targets = [f"{target}.{a.name}" for a in sub.names]
            else:
                targets = [target] if target.startswith("riko") else []
        targets = [t for t in targets if t != name]
        found |= set(targets)
        if targets and id(sub) in inner:
            lazy += len(targets)
    return found, lazy


def test_lazy_imports_form_no_cycle_and_do_not_grow() -> None:
    g = nx.DiGraph()
    lazy = 0
    for path in PACKAGE.rglob("*.py"):
        found, n = _all_imports(path)
        lazy += n
        for target in found:
            g.add_edge(_module(path), target)
    edges = [(a, b) for a, b in g.edges if not (b.startswith(a + ".") or a.startswith(b + ".") and b.count(".") == 0)]
    cycles = list(nx.simple_cycles(nx.DiGraph(edges)))
    assert cycles == [], f"an import inside a function still closes a cycle: {cycles[:5]}"
    assert lazy <= LAZY_IMPORTS, f"{lazy} imports inside functions (ceiling {LAZY_IMPORTS}): import at module level"


# -- who may import what -------------------------------------------------------------------------
FACES = ("riko.cli", "riko.server", "riko.evaluation", "riko.mcp")
#: the modules that own tables (the store floor); faces reach them only through riko.Memory
STORE_MODULES = ("riko.stores", "riko.observations", "riko.wiki.aliases", "riko.wiki.canon", "riko.resident.store")
#: the pipeline stages the scope context is handed to
STAGES = ("riko.wiki.canon", "riko.review", "riko.resident", "riko.ingest", "riko.dream",
          "riko.recall", "riko.purge", "riko.tools", "riko.observations", "riko.wiki.aliases")


def _in(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _import_sites(path: Path) -> list[str]:
    found, _ = _all_imports(path)
    return sorted(found)


def test_faces_do_not_import_the_stores() -> None:
    sites = [f"{_module(p)} -> {t}" for p in PACKAGE.rglob("*.py") if _in(_module(p), FACES)
             for t in _import_sites(p) if _in(t, STORE_MODULES)]
    assert sites == [], f"faces go through riko.Memory, not the stores: {sites}"


def test_the_context_imports_no_stage() -> None:
    sites = [t for t in _import_sites(PACKAGE / "context.py") if _in(t, STAGES)]
    assert sites == [], f"riko/context.py imports stages: {sites}"


# -- the root shows the layers -------------------------------------------------------------------
#: The modules that stand at the package root: the door, the context, the ground and the few
#: concepts small enough to stand alone. Everything else lives in the folder of its layer
#: (docs/architecture.md, "The folders"); a new root module is a decision, so it is added here.
ROOT_MODULES = {
    "__init__", "__main__", "memory", "door", "context", "tools",                # the door
    "clock", "config", "contracts", "endpoints", "errors", "executor", "faults",  # the ground
    "private_files", "progress", "root_preset", "rows", "scope", "settings", "vocabulary", "layers",
    "graph", "observations", "request_cues",                                     # small concepts
}


def test_the_root_holds_only_the_door_the_ground_and_small_concepts() -> None:
    found = {p.stem for p in PACKAGE.glob("*.py")}
    assert found - ROOT_MODULES == set(), f"put these in the folder of their layer: {sorted(found - ROOT_MODULES)}"
    packages = {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    assert {"cli", "review", "resident", "sensitivity", "stores", "wiki", "recall", "dream", "ingest"} <= packages


# -- the floors ----------------------------------------------------------------------------------
def _unit(module: str) -> str:
    """The package (``riko.<sub>``) or root module a module belongs to; the door's own names
    (``riko``, ``from riko import __version__``) belong to ``riko``."""
    parts = module.split(".")
    if len(parts) == 1:
        return "riko"
    sub = PACKAGE / parts[1]
    return f"riko.{parts[1]}" if sub.is_dir() or sub.with_suffix(".py").exists() else "riko"


def _unit_edges() -> dict[tuple[str, str], list[str]]:
    """Every import between two units (module level, inside functions, not under TYPE_CHECKING),
    with the module-level sites that make it."""
    edges: dict[tuple[str, str], list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        source = _module(path)
        for target in _all_imports(path)[0]:
            a, b = _unit(source), _unit(target)
            if a != b:
                edges.setdefault((a, b), []).append(f"{source} -> {target}")
    return edges


def test_every_unit_stands_on_a_floor() -> None:
    units = {_unit(_module(p)) for p in PACKAGE.rglob("*.py")}
    placed = {u for _, members in FLOORS for u in members}
    assert units - placed == set(), f"place these in riko/layers.py FLOORS: {sorted(units - placed)}"
    assert placed - units == set(), f"FLOORS names units that do not exist: {sorted(placed - units)}"


def test_every_import_goes_down() -> None:
    """An import, lazy ones included, reaches a lower floor or its own: never a higher one."""
    up = {e: sites for e, sites in _unit_edges().items() if floor_of(e[0]) < floor_of(e[1])}
    assert up == {}, f"{len(up)} upward arrows: {up}"


def test_packages_form_no_cycle() -> None:
    cycles = list(nx.simple_cycles(nx.DiGraph(list(_unit_edges()))))
    assert cycles == [], f"{len(cycles)} package cycles, e.g. {sorted(cycles, key=len)[:5]}"


def test_the_floor_check_sees_an_upward_arrow() -> None:
    # the language floor reading review would be an arrow up; the door reading the stores is down
    assert floor_of("riko.language") < floor_of("riko.review") < floor_of("riko.memory")
    assert floor_of("riko.stores") < floor_of("riko")


def test_the_architecture_page_draws_the_floors_of_the_code() -> None:
    text = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert floor_table() in text, "docs/architecture.md: paste riko.layers.floor_table() into the floors section"
