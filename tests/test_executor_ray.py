"""Dream and dense indexing on Ray tasks give exactly what a local run gives; retried tasks apply once.

One local Ray cluster (``ray.init(num_cpus=2)`` on loopback) serves the whole module.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

import riko  # noqa: E402 (after the skip when Ray is missing)
from riko.clock import FixedClock  # noqa: E402 (after the skip when Ray is missing)
from riko.dream import HeuristicProvider  # noqa: E402 (after the skip when Ray is missing)
from riko.executor import LocalExecutor, RayExecutor, open_executor  # noqa: E402 (after the skip when Ray is missing)
from riko.evaluation.samples import generate_samples  # noqa: E402 (after the skip when Ray is missing)

NOW = datetime(2026, 3, 10, tzinfo=UTC)
CONFIG = {"candidate_auto_confirm": "user_grounded", "embedding_provider": "deterministic",
          "recall_enabled": True, "recall_vector_enabled": True, "reflection_enabled": True}


@pytest.fixture(scope="module")
def cluster():
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def samples(tmp_path_factory):
    logs = tmp_path_factory.mktemp("samples") / "logs"
    generate_samples(logs)
    return logs


def _open(root: Path, samples: Path):
    mem = riko.open(root, preset="companion", clock=FixedClock(NOW), config=CONFIG)
    mem.ingest(samples, progress=False)
    return mem


def _state(mem) -> dict:
    """Everything Dream and indexing write, without what names one run (run id, paths of the roots)."""
    audits = mem.audits().drop("id").to_dicts()
    for row in audits:
        if row["kind"] == "dream-run":
            row["target"] = "<run>"
        if row["kind"] == "evidence-ingested":
            row["target"] = Path(row["target"]).parent.name
    jobs = mem.dream_jobs().drop("lease_owner", "result").to_dicts()
    pages = {p.relative_to(mem.wiki_dir).as_posix(): p.read_text() for p in sorted(mem.wiki_dir.rglob("*.md"))}
    return {"candidates": mem.candidates(None).to_dicts(), "pages": mem.pages().drop("path").to_dicts(),
            "observations": mem.observations().to_dicts(),
            "files": pages, "audits": audits, "jobs": jobs, "resident": mem.resident().text}


def test_ray_dream_and_index_match_a_local_run(tmp_path, cluster, samples):
    local = _open(tmp_path / "local", samples)
    remote = _open(tmp_path / "ray", samples)
    try:
        expected = local.dream(provider="heuristic", progress=False)
        ex = RayExecutor()
        assert ex.workers == 2
        got = remote.dream(provider="heuristic", progress=False, executor=ex)
        assert (got.succeeded, got.candidates, len(got.auto_confirmed)) == \
            (expected.succeeded, expected.candidates, len(expected.auto_confirmed))
        # every sample session dreamed, with candidates and admissions to compare (the counts
        # themselves follow the extractor; the equality above is what this test is about)
        assert expected.succeeded == 3 and expected.candidates > 3 and len(expected.auto_confirmed) > 1
        assert _state(remote) == _state(local)
        # a second run finds nothing new on either side
        assert remote.dream(provider="heuristic", progress=False, executor=ex).sessions == 0
        built_local = local.index(progress=False)
        built_ray = remote.index(progress=False, executor=ex)
        assert built_ray["embedded"] == built_local["embedded"] > 0
        for query in ("green tea", "Lena Berlin", "京都"):
            a = local.retrieve(query, k=5, channels=["dense"])
            b = remote.retrieve(query, k=5, channels=["dense"])
            assert a.height > 0 and a.equals(b)
        ex.close()
        assert ray.is_initialized()  # the executor joined this cluster, so it leaves it up
    finally:
        local.close()
        remote.close()


class DyingOnce(HeuristicProvider):
    """The heuristic, whose worker process dies the first time it meets each session."""

    def __init__(self, marks: Path) -> None:
        super().__init__()
        self.marks = marks

    def extract(self, transcript, *, existing_titles=()):
        mark = self.marks / transcript.session_id
        if not mark.exists():
            mark.write_text(str(os.getpid()))
            os._exit(1)  # the worker is killed mid-task; Ray retries it on a fresh worker
        return super().extract(transcript, existing_titles=existing_titles)


def test_a_killed_worker_is_retried_and_its_result_applied_once(tmp_path, cluster, samples):
    marks = tmp_path / "marks"
    marks.mkdir()
    local = _open(tmp_path / "local", samples)
    remote = _open(tmp_path / "ray", samples)
    try:
        expected = local.dream(provider="heuristic", progress=False)
        with open_executor(RayExecutor()) as ex:
            report = remote.dream(provider=DyingOnce(marks), progress=False, executor=ex)
        sessions = remote.sessions()["session_id"].to_list()
        assert sorted(p.name for p in marks.iterdir()) == sorted(sessions)   # every task died once
        assert all(int(p.read_text()) != os.getpid() for p in marks.iterdir())
        # three extractions and three reflections, each counted once although every extraction ran twice
        assert (report.succeeded, report.failed, report.provider_calls) == (3, 0, expected.provider_calls) == (3, 0, 6)
        assert set(remote.dream_jobs()["attempts"].to_list()) == {1}
        assert _state(remote)["candidates"] == _state(local)["candidates"]
        assert _state(remote)["files"] == _state(local)["files"]
    finally:
        local.close()
        remote.close()


def test_cli_dream_and_index_join_a_cluster_by_address(tmp_path, cluster, samples):
    repo = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(repo)}
    root = tmp_path / "root"
    (root).mkdir()
    (root / "riko.toml").write_text('embedding_provider = "deterministic"\n')

    def riko_cli(*args: str) -> dict:
        proc = subprocess.run([sys.executable, "-m", "riko", *args, "--root", str(root), "--preset", "companion",
                               "--json"], capture_output=True, text=True, env=env, timeout=180, check=False)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)

    riko_cli("ingest", str(samples))
    dreamed = riko_cli("dream", "--provider", "heuristic", "--executor", "ray", "--address", "auto")
    with riko.open(tmp_path / "local", preset="companion") as mem:  # the same samples, dreamed locally
        mem.ingest(samples, progress=False)
        local = mem.dream(provider="heuristic", progress=False)
    assert (dreamed["succeeded"], dreamed["candidates"]) == (local.succeeded, local.candidates)
    assert local.succeeded == 3 and local.candidates > 3
    built = riko_cli("index", "--executor", "ray", "--address", "auto")
    assert built["status"] == "built" and built["embedded"] > 0
    bad = subprocess.run([sys.executable, "-m", "riko", "dream", "--root", str(root), "--preset", "companion",
                          "--address", "auto"], capture_output=True, text=True, env=env, timeout=60, check=False)
    assert bad.returncode == 2 and "address" in bad.stderr and "Traceback" not in bad.stderr


def test_local_executor_embeds_batches_in_order(tmp_path, samples):
    mem = _open(tmp_path / "local", samples)
    other = _open(tmp_path / "pool", samples)
    try:
        a = mem.index(progress=False)
        with open_executor("local", workers=2) as ex:
            assert isinstance(ex, LocalExecutor)
            b = other.index(progress=False, executor=ex)
        assert a["embedded"] == b["embedded"]
        assert mem.retrieve("Lena", k=5, channels=["dense"]).equals(other.retrieve("Lena", k=5, channels=["dense"]))
    finally:
        mem.close()
        other.close()
