"""Kill -9 at random points of ingest, Dream with auto-confirm, confirm/create_page and purge.

Each trial reopens the scope, runs the operation again and must hold exactly what a run that
was never interrupted holds: the same live pages, candidates, audits by kind and evidence rows,
page files that match their rows, a clean ``wiki check``, and no temporary or journal files.
More trials: ``python benchmarks/chaos.py``.
"""

from __future__ import annotations

import chaos_harness
import pytest

TRIALS = 10
SEED = 20260115


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    work = tmp_path_factory.mktemp("chaos")
    return work, chaos_harness.prepare(work)


@pytest.mark.slow
@pytest.mark.parametrize("phase", chaos_harness.PHASES)
def test_a_killed_operation_rerun_matches_an_uninterrupted_one(world, phase):
    work, bases = world
    tally = chaos_harness.run_phase(phase, bases, work, TRIALS, SEED)
    assert tally.trials == TRIALS and tally.killed >= TRIALS // 3, tally.to_dict()
    assert tally.clean, "\n".join(tally.failures)
