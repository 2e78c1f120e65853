"""The error tree drawn in ``riko.errors``' docstring is the class hierarchy, and every class is exported."""

from __future__ import annotations

import inspect
import re

import riko.errors as errors
from riko.errors import RikoError


def drawn_tree() -> dict[str, str]:
    """``{class name: parent name}`` read from the box drawing in the module docstring."""
    parents: dict[str, str] = {}
    stack: list[str] = []
    for line in (errors.__doc__ or "").splitlines():
        m = re.match(r"^    ((?:[│ ]   )*)(?:[├└]── )?([A-Z]\w*Error)\b", line)
        if not m:
            continue
        depth = len(m.group(1)) // 4 + (1 if "──" in line else 0)
        name = m.group(2)
        del stack[depth:]
        if stack:
            parents[name] = stack[-1]
        stack.append(name)
    return parents


def test_the_drawn_tree_is_the_class_hierarchy() -> None:
    classes = {name: cls for name, cls in inspect.getmembers(errors, inspect.isclass)
               if issubclass(cls, RikoError) and cls.__module__ == errors.__name__}
    actual = {name: next(b.__name__ for b in cls.__bases__ if issubclass(b, RikoError))
              for name, cls in classes.items() if cls is not RikoError}
    assert drawn_tree() == actual


def test_every_error_class_is_exported() -> None:
    classes = {name for name, cls in inspect.getmembers(errors, inspect.isclass)
               if issubclass(cls, RikoError) and cls.__module__ == errors.__name__}
    assert classes <= set(errors.__all__)
    # the drawing can fail: a missing class is seen as missing
    assert "InvalidTypeError" in drawn_tree() and drawn_tree()["InvalidTypeError"] == "InvalidArgumentError"
