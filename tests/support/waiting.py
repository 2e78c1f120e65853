"""Waiting for what another process or thread does, with patience a loaded machine cannot exhaust."""

from __future__ import annotations

import time
from typing import Any, Callable

import pytest

PATIENCE_S = 30.0  # far above the ~0.1 s a watcher takes, so a loaded machine cannot fail a test


def until(check: Callable[[], Any], what: str) -> Any:
    """The first truthy value of ``check()``, polled every 50 ms; fails the test naming ``what``."""
    deadline = time.monotonic() + PATIENCE_S
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    pytest.fail(f"not seen within {PATIENCE_S:.0f} s: {what}")
