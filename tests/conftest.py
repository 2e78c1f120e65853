"""Shared fixtures (real files under tmp_path, a fixed clock) and the property-test profiles.

Property tests are deterministic by default: every ``@given`` test runs derandomized, with no
example database, so the suite gives the same result on every machine and every run (CI
included). ``RIKO_HYPOTHESIS=explore python -m pytest …`` runs them with random seeds, the
example database and ten times the examples, to look for new counterexamples locally; a
counterexample found that way becomes an ``@example`` or a plain test.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

from riko.clock import FixedClock

PROFILE = os.environ.get("RIKO_HYPOTHESIS", "deterministic")
if PROFILE not in ("deterministic", "explore"):
    raise pytest.UsageError(f"RIKO_HYPOTHESIS must be 'deterministic' or 'explore', got {PROFILE!r}")
_EXPLORE_FACTOR = 10

settings.register_profile("deterministic", derandomize=True, database=None, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile(PROFILE)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Apply the profile to every property test, over its own ``@settings`` decorator."""
    for item in items:
        test = getattr(item, "obj", None)
        own = getattr(test, "_hypothesis_internal_use_settings", None)
        if own is None:
            continue
        if PROFILE == "explore":
            test._hypothesis_internal_use_settings = settings(  # type: ignore[union-attr]
                own, derandomize=False, max_examples=own.max_examples * _EXPLORE_FACTOR)
        else:
            test._hypothesis_internal_use_settings = settings(  # type: ignore[union-attr]
                own, derandomize=True, database=None)


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock("2026-01-15T09:00:00Z")
