"""The door is typed: no ``Any`` in the signatures of ``riko.open``, ``Memory``'s public methods
or ``ToolBox`` (what a user's type checker sees first)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import riko

PACKAGE = Path(riko.__file__).parent


def _signature_text(source: str, fn: ast.FunctionDef) -> str:
    """The annotations of ``fn``'s parameters and return, as written."""
    args = fn.args
    params = [*args.posonlyargs, *args.args, *args.kwonlyargs, *([args.vararg] if args.vararg else []),
              *([args.kwarg] if args.kwarg else [])]
    parts = [ast.get_source_segment(source, a.annotation) or "" for a in params if a.annotation is not None]
    if fn.returns is not None:
        parts.append(ast.get_source_segment(source, fn.returns) or "")
    return " ".join(parts)


def _public(path: Path, owner: str | None) -> dict[str, str]:
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    body = tree.body
    if owner is not None:
        body = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == owner).body
    return {fn.name: _signature_text(source, fn) for fn in body
            if isinstance(fn, ast.FunctionDef) and (not fn.name.startswith("_") or fn.name == "__init__")}


def _uses_any(annotation: str) -> bool:
    return re.search(r"\bAny\b", annotation) is not None


def test_open_memory_and_toolbox_signatures_name_no_any() -> None:
    found = {
        "riko.open": _public(PACKAGE / "__init__.py", None)["open"],
        **{f"Memory.{k}": v for k, v in _public(PACKAGE / "memory.py", "Memory").items()},
        **{f"ToolBox.{k}": v for k, v in _public(PACKAGE / "tools.py", "ToolBox").items()},
    }
    assert len(found) > 60  # the scan sees the whole door
    offenders = {name: text for name, text in found.items() if _uses_any(text)}
    assert offenders == {}


def test_the_scan_finds_an_any() -> None:
    source = "def f(a: dict[str, Any], b: int) -> None: ...\n"
    fn = ast.parse(source).body[0]
    assert isinstance(fn, ast.FunctionDef)
    assert _uses_any(_signature_text(source, fn))
    assert not _uses_any("AnyStr | Anything")
