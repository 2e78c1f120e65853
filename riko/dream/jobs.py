"""Dream job records: deterministic ids, shards, the per-scope lock and the ``jobs`` rows.

A job row (``kind = 'dream'``) per session: ``cursor`` is the last evidence ``seq`` a
successful pass consumed (NULL before the first), ``attempts`` counts the runs that took the
job, ``status`` is queued, running, succeeded or failed, ``last_error`` is sanitized.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import polars as pl
import pyarrow as pa

from ..errors import ConfigError
from ..stores.migrations import RECORD_SCHEMA_VERSION
from ..stores.jobs import JobStore
from ..stores.warehouse import naive_utc

if TYPE_CHECKING:
    from ..context import ScopeContext
    from ..stores.warehouse import Turn

__all__ = ["JOB_KIND", "JOB_STATUSES", "job_id", "shard_of", "parse_shard", "scope_lock", "in_flight",
           "write_jobs", "jobs_frame", "pending_confirms", "set_pending_confirms"]

JOB_KIND = "dream"
JOB_STATUSES = ("queued", "running", "succeeded", "failed")

def scope_lock(ctx: "ScopeContext") -> "Turn":
    """The lock every Dream read and write of the scope happens under: holding it is a unit of
    work on the scope's file (threads take turns; other processes wait their turn)."""
    return ctx.dream_lock


def in_flight(ctx: "ScopeContext", session_id: str, *, claim: bool) -> bool:
    """Claim a session for a run of this process (False when another run here holds it), or release it."""
    return ctx.wh.claim(f"dream:{session_id}", claim=claim)


def job_id(scope_key: str, session_id: str) -> str:
    """The Dream job id of a session: 24 hex characters of SHA-256 of ``<scope key>:<session id>``."""
    return hashlib.sha256(f"{scope_key}:{session_id}".encode()).hexdigest()[:24]


def shard_of(session_id: str, shards: int) -> int:
    """The shard (0-based) a session belongs to among ``shards``; the same on every machine."""
    return int(hashlib.sha256(session_id.encode("utf-8")).hexdigest()[:16], 16) % shards


def parse_shard(value: str | Sequence[int] | None) -> tuple[int, int] | None:
    """``"I/N"`` or ``(I, N)`` with ``0 <= I < N`` → ``(I, N)``; None stays None.

    >>> parse_shard("1/4")
    (1, 4)
    """
    if value is None:
        return None
    try:
        if isinstance(value, str):
            left, right = value.split("/")
            index, count = int(left), int(right)
        else:
            index, count = (int(v) for v in value)
    except (ValueError, TypeError):
        raise ConfigError("shard", f"expected I/N (for example 0/4), got {value!r}") from None
    if count < 1 or not 0 <= index < count:
        raise ConfigError("shard", f"shard I/N needs 0 <= I < N, got {index}/{count}")
    return index, count


_TYPES = {"cursor": pa.int64(), "attempts": pa.int32(), "lease_expires_at": pa.timestamp("us"),
          "created_at": pa.timestamp("us"), "updated_at": pa.timestamp("us")}


def write_jobs(jobs: JobStore, rows: list[dict[str, Any]]) -> None:
    """Replace the job rows with these ids in one statement pair (inside the caller's transaction)."""
    if not rows:
        return
    table = pa.table({
        "scope_key": pa.array([jobs.scope_key] * len(rows), pa.string()),
        "schema_version": pa.array([RECORD_SCHEMA_VERSION] * len(rows), pa.int32()),
        **{name: pa.array([r[name] for r in rows], _TYPES.get(name, pa.string())) for name in rows[0]},
    })
    jobs.replace(table)


def jobs_frame(ctx: "ScopeContext") -> pl.DataFrame:
    """``mem.dream_jobs()``: the scope's Dream job records, most recently updated first."""
    with scope_lock(ctx):
        return ctx.stores.jobs.of_kind(JOB_KIND)


# Candidates a committed batch left for auto-confirm: written with the batch, removed with the
# confirmations, so a run killed between the two is finished by the next run.
_CONFIRM_ID = "dream-auto-confirm"


def pending_confirms(jobs: JobStore) -> list[str]:
    """Candidate ids whose auto-confirm a committed Dream batch still owes."""
    result = jobs.result(_CONFIRM_ID)
    return list(json.loads(result)) if result else []


def set_pending_confirms(jobs: JobStore, ids: Sequence[str]) -> None:
    """Record (inside the caller's transaction) the candidate ids auto-confirm still owes."""
    store = jobs
    store.delete(_CONFIRM_ID)
    if ids:
        now = naive_utc(jobs.wh.clock.now())
        store.insert({
            "id": _CONFIRM_ID, "kind": _CONFIRM_ID, "session_id": None, "cursor": None, "status": "queued",
            "attempts": 0, "last_error": None, "result": json.dumps(list(dict.fromkeys(ids))),
            "lease_owner": None, "lease_expires_at": None, "created_at": now, "updated_at": now})
