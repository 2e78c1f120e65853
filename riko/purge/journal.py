"""The journaled purge transaction: lease, journal, snapshot, apply, verify, complete or restore.

A purge writes a ``started`` journal row, snapshots what it will change, applies the plan,
rewrites the database file, verifies every table and owned file, then marks the journal
``completed`` with an audit row. Any failure restores the snapshot, marks it ``failed`` and
re-raises. ``recover_interrupted`` retries started or failed journals when a scope is opened.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import uuid
from pathlib import Path
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from ..clock import iso, utc
from ..errors import ConfirmationMismatchError, NotFoundError, PurgeError
from ..stores.audits import PurgeJournal
from ..stores.warehouse import dumps, naive_utc
from .apply import apply_plan
from .needles import Needles
from .plan import Plan, build_plan, plan_changes, summary
from .storage import compact_database, other_handles, restore_snapshot, take_snapshot, work_dir
from .verify import verify_files, verify_tables

if TYPE_CHECKING:
    from ..context import ScopeContext

__all__ = ["purge_session", "recover_interrupted", "acquire_lease", "release_lease", "LEASE_ID", "LEASE_SECONDS",
           "FAULT_ENV", "KILL_ENV", "CHECKPOINTS"]

LEASE_ID = "purge-lease"
LEASE_SECONDS = 60
#: Fault-injection seams for tests: raise (FAULT) or end the process (KILL) at a checkpoint.
FAULT_ENV = "RIKO_PURGE_FAULT"
KILL_ENV = "RIKO_PURGE_KILL"
KILL_EXIT_CODE = 70
CHECKPOINTS = ("after-journal", "after-apply", "after-verify")
_PROCESS_OWNER = uuid.uuid4().hex
#: ``warehouse/<key>/purge-plans/<token>.json``: what each dry run confirmed (ids, versions,
#: counts and a content digest; no text, no session id), so a void token can say what changed.
PLANS_DIR = "purge-plans"
_KEPT_PLANS = 64


def _checkpoint(name: str) -> None:
    if os.environ.get(KILL_ENV) == name:
        os._exit(KILL_EXIT_CODE)
    if os.environ.get(FAULT_ENV) == name:
        raise PurgeError(f"fault injected at {name} ({FAULT_ENV})")


def _owner(ctx: "ScopeContext") -> str:
    """The lease owner of one open store: this process (token and pid) and this Memory object."""
    return f"{_PROCESS_OWNER}:{os.getpid()}:{id(ctx):x}"


def _owner_gone(owner: str | None) -> bool:
    """True when the process that took a lease has ended (or wrote a form that names no process).

    A process of its own token is this one; another's pid is checked with signal 0.
    """
    parts = (owner or "").split(":")
    if len(parts) != 3 or not parts[1].isdigit():
        return True
    if parts[0] == _PROCESS_OWNER:
        return False
    try:
        os.kill(int(parts[1]), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False  # alive, under another user
    return False


# -- lease ------------------------------------------------------------------------------------
def acquire_lease(ctx: "ScopeContext", owner: str, *, takeover: bool = False) -> None:
    """Take the scope's purge lease for :data:`LEASE_SECONDS`, or raise PurgeError if it is held.

    ``takeover`` ignores a held lease: recovery runs under the writer lock, so whoever
    held it is gone. A lease whose owner process has ended is free at once.
    """
    wh, key = ctx.wh, ctx.scope.key
    now = ctx.clock.now()
    with wh.transaction():
        row = ctx.stores.jobs.lease(LEASE_ID)
        if row is not None and not takeover and row[1] is not None and utc(row[1]) > now and not _owner_gone(row[0]):
            raise PurgeError(
                f"another purge of scope {key} holds the lease until {iso(utc(row[1]))}; "
                "wait for it to finish and retry")
        wh.upsert("jobs", {
            "id": LEASE_ID, "kind": "purge-lease", "session_id": None, "cursor": None, "status": "running",
            "attempts": 1, "last_error": None, "result": None, "lease_owner": owner,
            "lease_expires_at": naive_utc(now + timedelta(seconds=LEASE_SECONDS)),
            "created_at": naive_utc(now), "updated_at": naive_utc(now),
        }, key=("id",))


def release_lease(ctx: "ScopeContext", owner: str) -> None:
    with ctx.wh.transaction():
        ctx.stores.jobs.delete(LEASE_ID, lease_owner=owner)


# -- journal ------------------------------------------------------------------------------------
def _journal(ctx: "ScopeContext", operation_id: str, session_id: str, status: str, *, impact: dict[str, Any] | None = None,
             error: str | None = None) -> None:
    wh, now = ctx.wh, naive_utc(ctx.clock.now())
    with wh.transaction():
        journal = PurgeJournal(wh)
        row = journal.started(operation_id)
        journal.record({
            "id": operation_id, "session_id": session_id, "status": status,
            "impact": dumps(summary(impact)) if impact is not None else (row[1] if row else None),
            "error": error, "created_at": row[0] if row else now, "updated_at": now,
        })


def _sanitized(exc: BaseException) -> str:
    """What the journal may say about a failure: purge errors are worded without content."""
    if isinstance(exc, PurgeError):
        return f"{type(exc).__name__}: {str(exc)[:2000]}"
    return type(exc).__name__


# -- the transaction -----------------------------------------------------------------------------
def _run(ctx: "ScopeContext", operation_id: str, plan: Plan) -> None:
    """Snapshot, apply, verify, complete; on any failure restore and re-raise."""
    snap = None
    try:
        snap = take_snapshot(ctx, plan)
        apply_plan(ctx, plan, operation_id)
        _checkpoint("after-apply")
        compact_database(ctx.wh)
        problems = verify_tables(ctx, plan.needles) + verify_files(ctx, plan.needles)
        if problems:
            raise PurgeError("verification found retained traces of the session: " + "; ".join(problems[:20]))
        _checkpoint("after-verify")
    except BaseException as exc:
        try:
            if snap is not None:
                restore_snapshot(ctx, snap)
        finally:
            with ctx.wh.transaction():  # the journal's state and its audit row go together
                _journal(ctx, operation_id, plan.session_id, "failed", error=_sanitized(exc))
                ctx.wh.audit("raw-session-purge-failed", "management", f"purge:{operation_id}",
                              {"operation": operation_id, "error": type(exc).__name__})
        raise
    with ctx.wh.transaction():  # a kill between the two would leave a completed purge unaudited
        _journal(ctx, operation_id, plan.session_id, "completed")
        ctx.wh.audit("raw-session-purged", "management", f"purge:{operation_id}",
                      {"operation": operation_id, **summary(plan.impact())})
    shutil.rmtree(work_dir(ctx, operation_id), ignore_errors=True)


# -- dry-run records ----------------------------------------------------------------------------
def _session_tag(session_id: str) -> str:
    return hashlib.sha256(session_id.encode("utf-8")).hexdigest()[:16]


def _plans_dir(ctx: "ScopeContext") -> Path:
    return ctx.warehouse_dir / PLANS_DIR


def _record_dry_run(ctx: "ScopeContext", plan: Plan, token: str) -> None:
    """Keep what this dry run confirmed under its token (best effort: a record is only an explanation)."""
    directory = _plans_dir(ctx)
    try:
        directory.mkdir(mode=0o700, exist_ok=True)
        path = directory / f"{token}.json"
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"session": _session_tag(plan.session_id), "confirmed": plan.confirmed()}, fh)
        os.replace(tmp, path)
        records = sorted(directory.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in records[_KEPT_PLANS:]:
            old.unlink(missing_ok=True)
    except OSError:
        return


def _recorded(ctx: "ScopeContext", token: str | None, session_id: str) -> dict[str, Any] | None:
    """What the dry run that returned ``token`` for this session confirmed, if it is on record."""
    if not token or not all(c in "0123456789abcdef" for c in token) or len(token) != 32:
        return None
    try:
        data = json.loads((_plans_dir(ctx) / f"{token}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("session") != _session_tag(session_id):
        return None
    confirmed = data.get("confirmed")
    return confirmed if isinstance(confirmed, dict) else None


def _forget_dry_runs(ctx: "ScopeContext", session_id: str) -> None:
    """Drop the session's dry-run records before it is purged (their tokens are spent)."""
    directory = _plans_dir(ctx)
    if not directory.is_dir():
        return
    tag = _session_tag(session_id)
    for path in directory.glob("*.json"):
        try:
            if json.loads(path.read_text(encoding="utf-8")).get("session") == tag:
                path.unlink(missing_ok=True)
        except (OSError, ValueError, AttributeError):
            continue


def _mismatch(ctx: "ScopeContext", session_id: str, confirmation: str | None, plan: Plan) -> ConfirmationMismatchError:
    """The refusal of a token that does not match, saying what changed since its dry run."""
    head = f"confirmation does not match the current purge plan of session {session_id!r}"
    tail = "run a new dry run and pass the token it returns (nothing was changed)"
    if not confirmation:
        return ConfirmationMismatchError(f"{head}: no confirmation was given; {tail}")
    before = _recorded(ctx, confirmation, session_id)
    if before is None:
        return ConfirmationMismatchError(f"{head}: no dry run of session {session_id!r} gave this token "
                                         f"(mistyped, for another session, or from an older plan); {tail}")
    changes = plan_changes(before, plan.confirmed(), session_id) or ["the plan changed"]
    shown = "; ".join(changes[:12]) + (f"; and {len(changes) - 12} more change(s)" if len(changes) > 12 else "")
    return ConfirmationMismatchError(f"{head}: {shown} since the dry run; {tail}")


def _report(ctx: "ScopeContext", plan: Plan, token: str) -> dict[str, Any]:
    return {
        "sessionId": plan.session_id, "dryRun": True, "changed": False, "impact": plan.impact(),
        "confirmation": token, "residentRebuild": plan.resident_rebuild, "gitTrackedPaths": plan.git_tracked,
        "sourcePaths": sorted(plan.source_paths), "blockers": plan.blockers,
    }


def purge_session(ctx: "ScopeContext", session_id: str, *, dry_run: bool = True,
                  confirmation: str | None = None) -> dict[str, Any]:
    """Plan (dry run) or carry out the purge of one raw session.

    The dry run returns the impact and the confirmation token; execution needs that exact
    token and returns the same report with ``operationId``, ``changed`` and ``verified``.
    """
    if not ctx.config.purge_enabled:
        raise PurgeError("raw-session purge is disabled; set purge_enabled = true in riko.toml (or RIKO_PURGE_ENABLED=1)")
    if not isinstance(session_id, str) or not session_id.strip():
        raise PurgeError("purge needs a non-empty session id")
    if dry_run:
        _, plan, report = _plan_report(ctx, session_id)
        _record_dry_run(ctx, plan, report["confirmation"])
        return report
    ctx.wh.require_writable()
    if other_handles(ctx.wh):
        raise PurgeError("other handles of this scope are open in this process; close them and retry the purge")
    owner = _owner(ctx)
    acquire_lease(ctx, owner)  # before planning, so no other purge moves the state under this plan
    try:
        needles, plan, report = _plan_report(ctx, session_id)
        if confirmation != report["confirmation"]:
            raise _mismatch(ctx, session_id, confirmation, plan)
        if plan.blockers:
            raise PurgeError("purge refused, nothing was changed: " + "; ".join(plan.blockers))
        _forget_dry_runs(ctx, session_id)
        operation_id = "purge-" + uuid.uuid4().hex[:16]
        needles.save(work_dir(ctx, operation_id) / "needles.json")
        _journal(ctx, operation_id, session_id, "started", impact=plan.impact())
        _checkpoint("after-journal")
        _run(ctx, operation_id, plan)
    finally:
        release_lease(ctx, owner)
    report.update(dryRun=False, changed=True, verified=True, operationId=operation_id)
    return report


def _plan_report(ctx: "ScopeContext", session_id: str) -> tuple[Needles, Plan, dict[str, Any]]:
    needles = Needles.of(ctx, session_id)
    plan = build_plan(ctx, needles)
    if plan.empty:
        raise NotFoundError("session", session_id, listing="sessions")
    return needles, plan, _report(ctx, plan, plan.token(ctx.scope.key))


def recover_interrupted(ctx: "ScopeContext") -> list[str]:
    """Retry every started or failed purge journal; returns the operation ids now completed.

    A retry that fails again stays ``failed`` (its error recorded) and is retried on the next
    open. Working folders of journals that are no longer open are removed.
    """
    if ctx.read_only:
        return []
    pending = PurgeJournal(ctx.wh).unfinished()
    done: list[str] = []
    for operation_id, session_id in pending:
        path = work_dir(ctx, operation_id) / "needles.json"
        needles = Needles.load(path) if path.is_file() else Needles.of(ctx, session_id)
        owner = _owner(ctx)
        acquire_lease(ctx, owner, takeover=True)
        try:
            plan = build_plan(ctx, needles)
            if plan.blockers:
                _journal(ctx, operation_id, session_id, "failed",
                         error="PurgeError: refused: " + "; ".join(plan.blockers))
                continue
            needles.save(path)
            _journal(ctx, operation_id, session_id, "started")
            _run(ctx, operation_id, plan)
            done.append(operation_id)
        except Exception:  # recorded as failed by _run; retried on the next open
            continue
        finally:
            release_lease(ctx, owner)
    base = work_dir(ctx)
    if base.is_dir():
        still_open = {r[0] for r in PurgeJournal(ctx.wh).unfinished()}
        for entry in base.iterdir():
            if entry.name not in still_open:
                shutil.rmtree(entry, ignore_errors=True)
    return done
