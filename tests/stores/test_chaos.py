"""Kill -9 and injected I/O faults in ingest, Dream with auto-confirm, confirm/create_page, purge and sync.

Each trial reopens the scope, runs the operation again and must hold exactly what a run that
was never interrupted holds: the same live pages, candidates, audits by kind and evidence rows,
page files that match their rows, a clean ``wiki check``, and no temporary or journal files.
An injected fault (a full disk, an I/O error, a failed fsync or rename, a failed commit) must
reach the caller as a RikoError. More trials: ``python benchmarks/chaos.py``.
"""

from __future__ import annotations

import chaos_harness
import pytest

TRIALS = 6
FAULTS_PER_POINT = 1
SESSIONS = 4
SEED = 20260115


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    work = tmp_path_factory.mktemp("chaos")
    yield work, chaos_harness.prepare(work, SESSIONS)
    for zygote in chaos_harness._ZYGOTES:
        zygote.close()
    chaos_harness._ZYGOTES.clear()


@pytest.mark.slow
@pytest.mark.parametrize("phase", chaos_harness.PHASES)
def test_a_killed_operation_rerun_matches_an_uninterrupted_one(world, phase):
    work, bases = world
    tally = chaos_harness.run_phase(phase, bases, work, TRIALS, SEED)
    assert tally.trials == TRIALS and tally.killed >= TRIALS // 3, tally.to_dict()
    assert tally.clean, "\n".join(tally.failures)
    assert len(tally.lock_free_s) == tally.killed  # every kill let go of the writer lock


@pytest.mark.slow
@pytest.mark.parametrize("phase", ["confirm", "dream"])  # both write at every point; Dream confirms in a batch
def test_a_fault_at_every_write_point_is_typed_and_loses_nothing(world, phase):
    work, bases = world
    tallies = chaos_harness.run_faults(phase, bases, work, FAULTS_PER_POINT)
    assert {t.point for t in tallies if t.passes} == set(chaos_harness.FAULT_POINTS)
    for tally in tallies:  # the first pass of each point
        assert tally.fired == tally.trials == FAULTS_PER_POINT, (tally.to_dict(), tally.failures)
        assert tally.typed == tally.fired and tally.clean, (tally.to_dict(), tally.failures)


@pytest.mark.slow
def test_a_disk_that_stays_full_stops_dream_with_its_confirmations_still_owed(world):
    """Every page write fails from the first on: Dream must stop with a StorageError, not skip the
    candidates it owes confirmation one by one (which dropped them), so the re-run confirms them."""
    work, bases = world
    [tally] = chaos_harness.run_faults("dream", bases, work, 2, ("page.write",), persistent=True)
    assert tally.fired == tally.trials == 2 and tally.typed == 2, (tally.to_dict(), tally.failures)
    assert tally.clean, (tally.to_dict(), tally.failures)
