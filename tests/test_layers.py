"""The shape of the package: module-level imports form no cycle, no stage imports the facade,
and no module outside the facade reaches into a Memory's private attributes."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import networkx as nx

PACKAGE = Path(__file__).resolve().parents[1] / "riko"
FACADE_USERS = {"riko", "riko.cli", "riko.demo", "riko.samples"}  # the door itself and its thin layers


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
        if name == "riko.memory" or name in FACADE_USERS or name.startswith(("riko.server", "riko.cli")):
            continue
        if re.search(r"^\s*(from\s+(\.+|riko\.)memory\s+import|import\s+riko\.memory)", text, re.M):
            offenders.append(name)
    assert offenders == []


def test_nothing_outside_the_facade_reads_its_private_parts() -> None:
    offenders = [f"{path.relative_to(PACKAGE)}:{n}" for path in PACKAGE.rglob("*.py") if path.name != "memory.py"
                 for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if re.search(r"\bmem\._", line)]
    assert offenders == []
