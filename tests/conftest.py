"""Shared fixtures (real files under tmp_path, a fixed clock) and the property-test profiles.

Property tests are deterministic by default: every ``@given`` test runs derandomized, with no
example database, so the suite gives the same result on every machine and every run (CI
included). ``RIKO_HYPOTHESIS=explore python -m pytest …`` runs them with random seeds, the
example database and ten times the examples, to look for new counterexamples locally; a
counterexample found that way becomes an ``@example`` or a plain test.
"""

from __future__ import annotations

import inspect
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

import riko
from riko.clock import FixedClock

# The test helpers (loopback stub servers, the chaos harness, server fixtures) live in tests/support/
# and are imported by name from every test folder.
sys.path.insert(0, str(Path(__file__).resolve().parent / "support"))

PROFILE = os.environ.get("RIKO_HYPOTHESIS", "deterministic")
if PROFILE not in ("deterministic", "explore"):
    raise pytest.UsageError(f"RIKO_HYPOTHESIS must be 'deterministic' or 'explore', got {PROFILE!r}")
_EXPLORE_FACTOR = 10

settings.register_profile("deterministic", derandomize=True, database=None, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile(PROFILE)


#: Whole modules in the slow lane: browsers, Ray, live servers, notebooks, many processes.
SLOW_MODULES = frozenset({"test_chaos", "test_concurrency", "test_executor_ray", "test_review_page_browser",
                          "test_server_live", "test_notebooks", "test_demo", "test_dream_http_e2e", "test_lock_files",
                          "test_readme", "test_cli_docs", "test_wiki_watch"})
#: A test whose own code starts another process (or a loopback server), or loads the embedded e5
#: model, is slow too.
_SLOW_CALLS = ("subprocess.", "sys.executable", "uvicorn", "multiprocessing", "serve_in_thread", "ray.",
               '"embedding_provider": "local"', "E5", "use_corpus", "companion_run")
#: Single tests measured at several seconds of CPU each (whole-corpus runs, large property tests).
SLOW_TESTS = frozenset({
    "test_the_whole_rendered_context_never_exceeds_the_budget", "test_page_files_with_edge_dates_sync_or_are_named",
    "test_compiler_properties", "test_render_parse_round_trip_is_byte_stable", "test_command_writes_per_question_records",
    "test_command_prints_the_table_and_writes_records", "test_calibration_gate_every_case_passes",
    "test_invalidated_exactly_when_contradictions_reach_support", "test_resident_never_exceeds_the_cap",
    "test_cli_flags_at_the_edges", "test_suppressed_and_forgotten_versions_do_not_fill_the_raw_evidence_window",
    "test_dense_channel_filters_hidden_pages_inside_the_search", "test_embedded_model_loads_offline_and_ranks_related_text_first",
    "test_int8_storage_is_small_and_keeps_float32_neighbours", "test_ingest_pipeline_raises_only_riko_errors_and_keeps_good_files",
    "test_every_vector_has_unit_norm", "test_gym_membership_current_page_survives_thirty_expired_and_ten_superseded",
    "test_review_flow_end_to_end", "test_log_reader_turns_every_bad_line_into_an_issue",
})


def _is_slow(item: pytest.Item) -> bool:
    module = getattr(item, "module", None)
    if module is not None and module.__name__.rpartition(".")[2] in SLOW_MODULES:
        return True
    if getattr(item, "originalname", item.name) in SLOW_TESTS:
        return True
    test = getattr(item, "obj", None)
    try:
        source = inspect.getsource(test) if test is not None else ""
    except (OSError, TypeError):
        return False
    return any(call in source for call in _SLOW_CALLS)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the slow lane (``pytest -m "not slow"`` is the fast one), and apply the property-test
    profile to every property test, over its own ``@settings`` decorator."""
    for item in items:
        if _is_slow(item):
            item.add_marker(pytest.mark.slow)
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


@pytest.fixture
def open_mem(tmp_path: Path, clock: FixedClock) -> Iterator[Callable[..., riko.Memory]]:
    """A factory for Memories over real files: ``open_mem(root=tmp_path, preset="companion",
    clock=<the fixed clock>, **config)``; whatever it opened is closed after the test."""
    opened: list[riko.Memory] = []

    def _open(root: Path | None = None, *, preset: str = "companion", clock: Any = clock,
              **config: Any) -> riko.Memory:
        mem = riko.open(root or tmp_path, preset=preset, clock=clock, config=config or None)
        opened.append(mem)
        return mem

    yield _open
    for mem in reversed(opened):
        mem.close()


@pytest.fixture
def mem(open_mem: Callable[..., riko.Memory]) -> riko.Memory:
    """A companion Memory on the embedded defaults under ``tmp_path`` with the fixed clock."""
    return open_mem()
