"""Shared fixtures: real files under tmp_path, a fixed clock."""

from __future__ import annotations

import pytest

from riko.clock import FixedClock


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock("2026-01-15T09:00:00Z")
