"""The batch Dream runner: persisted per-session jobs and cursors, a worker pool, the answer cache.

Every session whose evidence moved past its persisted cursor (or every named one) gets one
job (see :mod:`riko.dream.jobs`). Provider calls run in a bounded thread pool; every
warehouse read and write happens on the calling thread under one lock per scope. The
candidates, cached answers and ``succeeded`` job rows of a batch of finished sessions commit
in one transaction, so a run killed at any point leaves each session either fully dreamed or
not at all, and the next run finishes the rest without duplicates.
"""

from __future__ import annotations

import logging
import os
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import islice
from typing import TYPE_CHECKING, Any, Callable

import pyarrow as pa

from ..review.authority import normalize_claim
from ..review.governance import HeldLines, held_lines
from ..contracts import evidence_ref
from ..errors import ConfigError, InvalidTypeError, NotFoundError, ProviderError, RikoError, StorageError
from ..stores.warehouse import dumps, naive_utc, storage_error
from .cache import AnswerCache, calls_out, extraction_key, reflection_key
from .jobs import (JOB_KIND, JOB_STATUSES, in_flight, job_id, jobs_frame, parse_shard, pending_confirms, scope_lock,
                   set_pending_confirms, shard_of, write_jobs)
from .grounding import SUPPORT, ground, rederive
from ..language.atoms import multi_party
from .known import related_pages
from .prompt import KnownPage
from .proposals import Proposal, propose_batch, with_entities
from .protocol import ParseResult, ProposedPage, parse_file_blocks
from .providers import DreamProvider, ProviderChain, extract, provider_from_chain
from .reflection import Anchor, ReflectionRequest, parse_reflection
from .report import DreamReport
from .sanitize import REDACTED, sanitize_error
from .transcript import Transcript, TranscriptLine
from ..executor import open_executor
from ..observations import ObservationStore
from ..progress import progress_enabled

if TYPE_CHECKING:
    from ..context import ScopeContext

__all__ = ["DreamReport", "run_dream", "jobs_frame", "job_id", "parse_shard", "shard_of", "resolve_provider",
           "JOB_KIND", "JOB_STATUSES"]

log = logging.getLogger("riko.dream")

MAX_PAGES_PER_ANSWER = 12  # a provider may state its own bound (``max_pages``), at most _PAGES_CEILING
_PAGES_CEILING = 64
_LOAD_CHUNK = 64          # sessions whose transcripts are read in one query
_APPLY_BATCH = 64         # finished sessions committed in one transaction
_MAX_TITLES = 200
_SESSION_ANCHORS = 40     # reflection: newest user statements of the dreamed session ...
_OTHER_ANCHORS = 40       # ... of the scope's other sessions ...
_PAGE_ANCHORS = 20        # ... and confirmed pages


def _page_limit(provider: object, transcript: Transcript) -> int:
    """How many pages one answer of ``provider`` for ``transcript`` may propose (a provider that
    reads whole sessions states its bound per session: so many pages a window)."""
    limit = getattr(provider, "max_pages", MAX_PAGES_PER_ANSWER)
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        limit = MAX_PAGES_PER_ANSWER
    limit = min(limit, _PAGES_CEILING)
    whole = _whole_session_limit(provider)
    return limit if whole is None else max(limit, int(whole(transcript)))


def _whole_session_limit(provider: object) -> Callable[[Transcript], int] | None:
    """The page bound of a provider that reads every line of a session in windows of its own (no
    context to overflow, so the transcript reaches it unbounded); None for any other provider."""
    page_limit = getattr(provider, "page_limit", None)
    return page_limit if getattr(provider, "reads_whole_sessions", False) is True and callable(page_limit) else None


def resolve_provider(
    config: Any,
    provider: Any = None,
    *,
    url: str | None = None,
    model: str | None = None,
    credential_ref: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> DreamProvider:
    """A provider object from ``provider`` (an object, a provider name, or None for the configured one)."""
    if provider is None or isinstance(provider, (str, list, tuple)):
        return provider_from_chain(
            provider or config.dream_provider,
            url=url or config.dream_api_url,
            model=model or config.dream_model,
            credential_ref=credential_ref or config.dream_credential_ref,
            max_tokens=config.dream_max_tokens,
            timeout_ms=min(config.dream_timeout_ms, 120_000),
            environ=environ,
        )
    if not isinstance(provider, DreamProvider):
        raise InvalidTypeError(f"provider must be a name or a Dream provider object, got {type(provider).__name__}")
    return provider


def _slot_of(extra: Any) -> str | None:
    slot = extra.get("slot") if isinstance(extra, dict) else None
    return slot if isinstance(slot, str) and slot else None


def _secrets(provider: Any, environ: Mapping[str, str] | None) -> list[str]:
    """Credential values the provider may hold, so every stored or logged text can be scrubbed of them."""
    members = provider.providers if isinstance(provider, ProviderChain) else (provider,)
    found: list[str] = []
    for member in members:
        ref = getattr(member, "credential_ref", None)
        if not isinstance(ref, str) or not ref:
            continue
        env = getattr(member, "_environ", None) or environ or os.environ
        value = env.get(ref) or ""
        found.extend(v for v in (value, value.strip()) if v)
    return found


# -- one session's work ---------------------------------------------------------------------------
@dataclass
class _Work:
    session_id: str
    job_id: str
    cursor: int | None         # persisted cursor: last consumed seq (None: never dreamed)
    after: int | None          # read evidence past this seq (None: from the start)
    upto: int                  # the session's last seq when selected
    attempt: int               # this run's attempt number
    created_at: datetime | None
    transcript: Transcript | None = None
    key: str | None = None
    answer: str | None = None
    parsed: ParseResult | None = None
    error: ProviderError | None = None
    outcome: str = ""
    result: dict[str, Any] = field(default_factory=dict)
    grounded: list[str] = field(default_factory=list)
    auto_ids: list[str] = field(default_factory=list)
    related: tuple[KnownPage, ...] = ()          # existing pages shown to a model provider
    refused: list[tuple[str, str]] = field(default_factory=list)  # pages riko would not store
    fallbacks: list[dict[str, str]] = field(default_factory=list)  # a provider chain's switches
    split: int = 0      # messages longer than max_session_chars, split to fit
    unread: int = 0     # characters of new evidence the budget left out
    _users: list[tuple[str, str]] | None = None

    def release_text(self) -> None:
        """Drop the transcript and answer once stored, so a long batch holds only its job summaries."""
        self.transcript = self.answer = self.parsed = self._users = None

    def user_lines(self) -> list[tuple[str, str]]:
        """``(evidence ref, normalized text)`` of the transcript's user lines, computed once."""
        if self._users is None:
            lines = self.transcript.lines if self.transcript else ()
            self._users = [(evidence_ref(self.session_id, line.seq), normalize_claim(line.text))
                           for line in lines if line.role == "user"]
        return self._users


def _states_fields(provider: object) -> bool:
    """Whether ``provider`` hands its proposals over as fields: it has ``propose``, from the same
    class as its ``extract`` (a subclass that rewrites ``extract`` is asked for text)."""
    def owner(name: str) -> type | None:
        return next((k for k in type(provider).__mro__ if name in vars(k)), None)

    return owner("propose") is not None and owner("propose") is owner("extract")


def _extract(provider: Any, transcript: Transcript, titles: Sequence[str], pages: Sequence[KnownPage] = (),
             *, fields: bool = False) -> tuple[str | None, ParseResult | None, ProviderError | None]:
    """Ask the provider and parse its answer; runs on a pool thread and touches no database.

    With ``fields`` the provider hands its proposals over as fields (``propose``: the offline
    provider's facts, derived once) and there is no answer text to parse."""
    answer: str | None = None
    try:
        if fields:
            return None, provider.propose(transcript, existing_titles=titles), None
        answer = extract(provider, transcript, titles, pages)
        allow_empty = bool(getattr(provider, "empty_answer_ok", False))
        return answer, parse_file_blocks(answer, max_pages=_page_limit(provider, transcript),
                                         allow_empty=allow_empty), None
    except ProviderError as exc:
        return answer, None, exc
    except Exception as exc:  # a provider bug fails one job, never the batch
        return answer, None, ProviderError("provider-error", f"{type(exc).__name__}: {exc}")


def _reflect(provider: Any, request: ReflectionRequest) -> tuple[str | None, ProviderError | None]:
    try:
        return provider.reflect(request), None
    except ProviderError as exc:
        return None, exc
    except Exception as exc:
        return None, ProviderError("reflection-provider-error", f"{type(exc).__name__}: {exc}")


def _raise_disk_fault(exc: BaseException) -> None:
    """Re-raise a failed disk write as :class:`StorageError`: the disk failed, not a candidate, so
    confirming one by one (or skipping one) would only fail again or drop what is owed; the
    confirms stay owed and the next run applies them once the disk is fixed."""
    if isinstance(exc, StorageError):
        raise exc
    typed = storage_error(exc)
    if typed is not None:
        raise typed from exc

class _Run:
    """State of one ``run_dream`` call."""

    def __init__(self, ctx: "ScopeContext", provider: Any, *, workers: int, progress: bool, shard: tuple[int, int] | None,
                 use_cache: bool, replay_only: bool, rescan: bool, reflection: bool, secrets: list[str],
                 executor: Any = None) -> None:
        self.mem, self.wh, self.scope, self.cfg = ctx, ctx.wh, ctx.scope, ctx.config
        self.stores = ctx.stores
        self.provider = provider
        self.executor = executor
        self.workers = executor.workers if executor is not None else workers
        self.progress = progress
        self.shard = shard
        self.rescan = rescan
        self.reflection = reflection
        self.secrets = secrets
        self.remote = calls_out(provider)
        self.replay_only = replay_only and self.remote
        self.cache = AnswerCache(self.stores.provider_cache, self.scope, ctx.clock, read=use_cache)
        self.lock = scope_lock(ctx)
        self.run_id = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.report = DreamReport(run_id=self.run_id, provider=str(provider.name), model=str(provider.model), shard=shard)
        self.claimed: list[str] = []
        self.titles: tuple[str, ...] = ()
        self.held = HeldLines()  # read with every chunk of transcripts
        self.bar: Any = None

    def _sanitize(self, text: str) -> str:
        return sanitize_error(text, self.secrets)

    def _scrub(self, answer: str | None) -> str | None:
        """Remove credential values from a provider answer before it is parsed or stored."""
        if answer is None:
            return None
        for secret in sorted(set(self.secrets), key=len, reverse=True):
            answer = answer.replace(secret, REDACTED)
        return answer

    # -- selection --------------------------------------------------------------------------------
    def select(self, sessions: Iterable[str] | None) -> list[_Work]:
        rows = self.stores.jobs.session_cursors(JOB_KIND)
        known = {r[0]: r for r in rows}
        if sessions is not None:
            names = list(dict.fromkeys([sessions] if isinstance(sessions, str) else sessions))
            missing = [s for s in names if s not in known]
            if missing:
                raise NotFoundError("session", missing[0], listing="sessions")
            rows = [known[s] for s in names]
        works: list[_Work] = []
        for sid, last_seq, cursor, attempts, created in rows:
            if self.shard and shard_of(sid, self.shard[1]) != self.shard[0]:
                continue
            upto = -1 if last_seq is None else int(last_seq)
            after = None if cursor is None or self.rescan else int(cursor)
            cursor = None if cursor is None else int(cursor)
            work = _Work(sid, job_id(self.scope.key, sid), cursor, after, upto, int(attempts or 0) + 1, created)
            if after is not None and after >= upto:
                if sessions is None:
                    continue  # nothing new: not part of this batch
                work.outcome = "already-dreamed"
                self._row(work, "skipped", cursor=cursor, attempts=int(attempts or 0))
                continue
            if not in_flight(self.mem, sid, claim=True):
                work.outcome = "already-running"
                self._row(work, "skipped", cursor=cursor, attempts=int(attempts or 0))
                continue
            self.claimed.append(sid)
            works.append(work)
        self.report.sessions = len(works) + self.report.skipped
        return works

    def release(self) -> None:
        for sid in self.claimed:
            in_flight(self.mem, sid, claim=False)
        self.claimed.clear()

    # -- job rows ---------------------------------------------------------------------------------
    def _job_row(self, w: _Work, status: str, *, cursor: int | None, attempts: int, error: str | None,
                 result: dict[str, Any] | None) -> dict[str, Any]:
        now = naive_utc(self.mem.clock.now())
        lease = status == "running"
        return {
            "id": w.job_id, "kind": JOB_KIND, "session_id": w.session_id, "cursor": cursor, "status": status,
            "attempts": attempts, "last_error": error, "result": dumps(result) if result is not None else None,
            "lease_owner": self.run_id if lease else None,
            "lease_expires_at": now + timedelta(milliseconds=2 * self.cfg.dream_timeout_ms + 10_000) if lease else None,
            "created_at": naive_utc(w.created_at) if w.created_at else now, "updated_at": now,
        }

    def mark(self, works: Sequence[_Work], status: str) -> None:
        rows = [self._job_row(w, status, cursor=w.cursor, attempts=w.attempt - (status == "queued"),
                              error=None, result=None) for w in works]
        with self.lock, self.wh.transaction():
            write_jobs(self.stores.jobs, rows)

    # -- transcripts ------------------------------------------------------------------------------
    def load_transcripts(self, works: Sequence[_Work]) -> None:
        """Read the new user and assistant lines (past each cursor) of ``works`` in one query.

        Plugin-sourced user messages are not user evidence and never reach a provider, nor do
        held lines (governed ones, and user lines repeating held words: see
        :func:`riko.review.governance.held_lines`). The SQL window keeps roughly the newest
        ``max_session_chars``; ``Transcript.tail`` bounds exactly.
        """
        budget = self.cfg.max_session_chars
        whole = _whole_session_limit(self.provider) is not None
        sel = pa.table({
            "session_id": pa.array([w.session_id for w in works], pa.string()),
            "after": pa.array([-1 if w.after is None else w.after for w in works], pa.int64()),
            "upto": pa.array([w.upto for w in works], pa.int64()),
        })
        lines: dict[str, list[TranscriptLine]] = {w.session_id: [] for w in works}
        rows = self.stores.evidence.transcript_rows(sel, None if whole else budget + self.cfg.max_event_chars)
        self.held = held = held_lines(self.stores)
        for sid, seq, role, text, when in rows:
            if role == "user" and held.holds_text(text):
                continue
            lines[sid].append(TranscriptLine(int(seq), role, text, when))
        for w in works:
            # bounded as a model sees it (numbered lines), so no model gets more than the budget;
            # a provider reading whole sessions gets every line and windows them itself
            full = Transcript(w.session_id, tuple(lines[w.session_id]))
            w.transcript = full if whole else full.tail(budget, numbered=True)
            w.split, w.unread = w.transcript.split, w.transcript.unread
            if w.split:
                log.warning("session %s: %d message(s) longer than max_session_chars=%d split; %d "
                            "character(s) not read", w.session_id, w.split, budget, w.unread)

    def work_iter(self, works: list[_Work]) -> Iterator[_Work]:
        for start in range(0, len(works), _LOAD_CHUNK):
            chunk = works[start : start + _LOAD_CHUNK]
            with self.lock:
                self.load_transcripts(chunk)
                keys = {}
                if self.remote:
                    known = self._known_pages() if getattr(self.provider, "reads_existing_pages", False) else None
                    for w in chunk:
                        transcript = w.transcript  # load_transcripts gave every work of the chunk one
                        if transcript is not None and not transcript.is_empty():
                            if known is not None:
                                w.related = related_pages(transcript, known)
                            w.key = extraction_key(self.provider, transcript, self.titles, w.related)
                            keys[w.key] = w
                    for key, answer in self.cache.get_many(keys).items():
                        keys[key].answer = answer
            yield from chunk

    # -- preparing and finishing a session ---------------------------------------------------------
    def prepare(self, w: _Work) -> Callable[[], Any] | None:
        """Settle ``w`` without a call when possible; otherwise return the call to make."""
        assert w.transcript is not None
        if w.transcript.is_empty():
            w.outcome = "empty"
            return None
        if w.answer is not None:
            w.outcome = "cached"
            try:
                w.parsed = parse_file_blocks(w.answer, max_pages=_page_limit(self.provider, w.transcript),
                                             allow_empty=bool(getattr(self.provider, "empty_answer_ok", False)))
            except ProviderError as exc:
                w.error = exc
            return None
        if self.replay_only:
            w.error = ProviderError("cache-miss", "replay_only is set and no cached answer matches this request")
            return None
        w.outcome = "dreamed"
        provider, transcript, titles, related = self.provider, w.transcript, self.titles, w.related
        # an offline provider that states its proposals as fields skips the text round trip; a
        # credential to scrub (only a model provider holds one) keeps the text path
        fields = _states_fields(provider) and not self.remote and not self.secrets
        return lambda: _extract(provider, transcript, titles, related, fields=fields)

    def _known_pages(self) -> list[KnownPage]:
        """The current confirmed pages, as a model may be shown them. Canon only, like the known
        titles: a prompt that changed with every pending candidate would never replay from cache."""
        return [KnownPage(p.title, p.type, p.description or "", _slot_of(p.extra), "confirmed")
                for p in self.mem.canon.pages() if p.status == "confirmed" and p.superseded_by is None]

    def finish_call(self, w: _Work, outcome: tuple[str | None, ParseResult | None, ProviderError | None]) -> None:
        answer, parsed, w.error = outcome
        if isinstance(self.provider, ProviderChain):
            w.fallbacks = self.provider.take_fallbacks(w.session_id)
            self.report.fallbacks.extend({"session_id": w.session_id, **f} for f in w.fallbacks)
        w.answer = self._scrub(answer)
        if parsed is not None and w.answer != answer:
            assert w.transcript is not None
            w.parsed = parse_file_blocks(w.answer or "", max_pages=_page_limit(self.provider, w.transcript),
                                         allow_empty=bool(getattr(self.provider, "empty_answer_ok", False)))
        else:
            w.parsed = parsed
        self.report.provider_calls += 1

    def apply(self, done: list[_Work]) -> None:
        """Commit finished sessions: one transaction for the batch, or one each if the batch fails."""
        if not done:
            return
        # pages and user lines read once for the batch; the Resident recompiled once after it
        with self.lock, self.mem.review.batch(), self.mem.changed.coalesced():
            try:
                with self.wh.transaction():
                    self._store(done)
            except Exception:
                for w in done:
                    self._store_alone(w)
            for w in done:
                self._tally(w)
            self._auto_confirm(done)

    def _store(self, done: list[_Work]) -> None:
        """The proposals of every succeeded session as one batch, then every job row."""
        proposals: list[Proposal] = []
        owners: list[_Work] = []
        for w in done:
            w.result, w.grounded, w.auto_ids, w.refused = {}, [], [], []
            for page in (w.parsed.pages if w.error is None and w.parsed else ()):
                lines = w.transcript.lines if w.transcript else ()
                located = ground(page.title, page.description, page.body, page.turns, lines,
                                 claim=page.type != "source", quote=page.quote)
                if page.type != "source" and self.held.holds_text(page.description):
                    w.refused.append(("governed-claim", f"{page.path}: the user had it forgotten or suppressed"))
                    continue
                if not located.supported:  # a fact the user's words do not carry is never stored
                    w.refused.append(("unsupported-fact", f"{page.path}: the user's words hold "
                                      f"{located.share:.0%} of its words (needs {SUPPORT:.0%})"
                                      + ("" if located.turns else "; no user turn carries it")))
                    continue
                said = {line.seq: line.text for line in lines}
                # type, kind, slot and entities: riko's derivation from the user's words, not the proposer's
                derived = rederive(page, [said[seq] for seq in located.turns])
                if derived is None:
                    w.refused.append(("proposed-entity-page", f"{page.path}: riko derives entity pages itself"))
                    continue
                evidence = tuple(evidence_ref(w.session_id, seq) for seq in located.turns)
                proposals.append(Proposal(derived, w.session_id, evidence))
                owners.append(w)
        # riko's own entity links on every fact, and one entity candidate per entity named
        multi = {w.session_id for w in done if w.transcript
                 and multi_party(line.text for line in w.transcript.lines if line.role == "user")}
        # the scope's words, every session's (admission in the batch reads the same)
        expanded, _ = with_entities(proposals, multi, self.mem.review.scope_words())
        all_outcomes = propose_batch(self.mem.review, expanded) if proposals else []
        outcomes = all_outcomes[:len(proposals)]
        proposals = expanded[:len(proposals)]
        settled: dict[int, list[tuple[ProposedPage, Any]]] = {id(w): [] for w in done}
        for w, proposal, outcome in zip(owners, proposals, outcomes):
            settled[id(w)].append((proposal.page, outcome))
        # the entity candidates are rows of the candidates table too: count them with the
        # session that named them first, so the report adds up to what the table shows
        by_session = {w.session_id: w for w in done}
        named: dict[int, list[Any]] = {id(w): [] for w in done}
        for proposal, outcome in zip(expanded[len(proposals):], all_outcomes[len(proposals):]):
            if proposal.session_id in by_session:
                named[id(by_session[proposal.session_id])].append(outcome)
        write_jobs(self.stores.jobs, [self._settle(w, settled[id(w)], named[id(w)]) for w in done])
        policy = self.cfg.candidate_auto_confirm
        if policy != "off":  # committed with the cursors, so a killed run's confirmations are not lost
            owed = [cid for w in done for cid in (w.auto_ids if policy == "all" else w.grounded)]
            if owed:
                set_pending_confirms(self.stores.jobs, [*pending_confirms(self.stores.jobs), *owed])

    def _store_alone(self, w: _Work) -> None:
        try:
            with self.wh.transaction():
                self._store([w])
        except Exception as exc:
            w.error = ProviderError("store-error", f"{type(exc).__name__}: {exc}")
            w.result, w.grounded, w.auto_ids = {}, [], []
            with self.wh.transaction():
                write_jobs(self.stores.jobs, [self._settle(w, [])])

    def _settle(self, w: _Work, outcomes: list[tuple[ProposedPage, Any]],
                entities: Sequence[Any] = ()) -> dict[str, Any]:
        """The job row of ``w`` (and its cached answer or failure audit), from its proposal outcomes
        and those of the entity candidates its facts named (``entities``)."""
        base = {"provider": self.report.provider, "model": self.report.model, "run": self.run_id,
                "source": w.outcome, "upto": w.upto}
        if w.fallbacks:
            base["fallbacks"] = list(w.fallbacks)
        if w.error is not None:
            message = self._sanitize(str(w.error))
            w.result = {**base, "reason": w.error.reason}
            self.wh.audit("dream-job-failed", "deterministic_rule", w.job_id,
                          {"session_id": w.session_id, "reason": w.error.reason})
            return self._job_row(w, "failed", cursor=w.cursor, attempts=w.attempt, error=message, result=w.result)
        created: list[str] = []
        merged: list[str] = []
        dropped = conflicts = 0
        rejected = [{"reason": r, "detail": self._sanitize(d)}
                    for r, d in [*(w.parsed.rejected if w.parsed else ()), *w.refused]]
        if w.outcome == "dreamed" and self.remote and w.key and w.answer is not None:
            self.cache.put(w.key, self.report.provider, self.report.model, w.answer)
        for page, outcome in outcomes:
            if isinstance(outcome, Exception):
                rejected.append({"reason": "propose-refused", "detail": self._sanitize(f"{page.path}: {outcome}")})
                continue
            if outcome.candidate_id is None:
                dropped += 1
                continue
            (created if outcome.action in ("created", "conflict") else merged).append(outcome.candidate_id)
            conflicts += outcome.action == "conflict"
            if outcome.action != "conflict" and self._grounded(page, w):
                w.grounded.append(outcome.candidate_id)
            w.auto_ids.append(outcome.candidate_id)
        entity_ids: list[str] = []
        for o in entities:  # the entity candidates its facts named: rows of the table too
            if isinstance(o, Exception) or o.candidate_id is None:
                continue
            (created if o.action in ("created", "conflict") else merged).append(o.candidate_id)
            entity_ids.append(o.candidate_id)
        w.result = {**base, "created": created, "merged": merged, "dropped": dropped, "conflicts": conflicts,
                    "rejected": rejected, "entities": entity_ids}
        if w.parsed is not None and w.parsed.field_errors:
            w.result["field_errors"] = [{"reason": r, "detail": self._sanitize(d)} for r, d in w.parsed.field_errors]
        actions = [page.action for page, _ in outcomes]
        if any(a != "add" for a in actions):  # what the model said against existing pages (a hint)
            w.result["actions"] = {a: actions.count(a) for a in sorted(set(actions))}
        return self._job_row(w, "succeeded", cursor=w.upto, attempts=w.attempt, error=None, result=w.result)

    @staticmethod
    def _grounded(page: ProposedPage, w: _Work) -> bool:
        """Whether the description is exactly one whole user line (the case user_grounded admits)."""
        target = normalize_claim(page.description)
        return bool(target) and any(text == target for _, text in w.user_lines())

    def _tally(self, w: _Work) -> None:
        r = self.report
        failed = w.error is not None
        r.failed += failed
        r.succeeded += not failed
        r.cache_hits += w.outcome == "cached" and not failed
        created, merged = w.result.get("created", []), w.result.get("merged", [])
        r.candidates_created += len(created)
        r.candidates_merged += len(merged)
        r.entity_candidates += len(set(w.result.get("entities", ())) & set(created))
        r.candidates_dropped += w.result.get("dropped", 0)
        r.blocks_rejected += len(w.result.get("rejected", []))
        if failed:
            log.warning("dream job %s (session %s) failed: %s", w.job_id, w.session_id,
                        self._sanitize(str(w.error)))
        self._row(w, "failed" if failed else "succeeded", cursor=w.cursor if failed else w.upto,
                  attempts=w.attempt, created=len(created), merged=len(merged),
                  rejected=len(w.result.get("rejected", [])),
                  reason=w.error.reason if w.error is not None else None,
                  error=self._sanitize(str(w.error)) if failed else None)
        if self.bar is not None:
            self.bar.update(1)
            self.bar.set_postfix(candidates=r.candidates, failed=r.failed, refresh=False)

    def _row(self, w: _Work, status: str, *, cursor: int | None, attempts: int, created: int = 0, merged: int = 0,
             rejected: int = 0, reason: str | None = None, error: str | None = None) -> None:
        self.report.skipped += status == "skipped"
        self.report.messages_split += w.split
        self.report.chars_unread += w.unread
        self.report.rows.append({
            "session_id": w.session_id, "job_id": w.job_id, "status": status,
            "outcome": "failed" if status == "failed" else w.outcome, "attempts": attempts, "cursor": cursor,
            "candidates": created, "created": created, "merged": merged, "rejected_blocks": rejected,
            "reason": reason, "error": error, "reflection": None, "split_messages": w.split, "unread_chars": w.unread,
        })

    def _auto_confirm(self, done: list[_Work] | None = None) -> None:
        """Apply ``candidate_auto_confirm`` to the candidates committed batches still owe it
        (one Resident recompile per batch); the record of what is owed goes with them."""
        policy = self.cfg.candidate_auto_confirm
        ids = pending_confirms(self.stores.jobs)
        if not ids:
            return
        if policy == "off":  # the policy was turned off since: nothing more is owed
            with self.wh.transaction():
                set_pending_confirms(self.stores.jobs, [])
            return
        try:
            # one transaction for the batch: a failure undoes its page files and rows together
            with self.mem.canon.transaction():
                confirmed = self.mem.review.auto_confirm(ids, policy)
                set_pending_confirms(self.stores.jobs, [])
            self.report.auto_confirmed.extend(confirmed)
            return
        except (RikoError, OSError) as exc:
            _raise_disk_fault(exc)
            log.warning("auto-confirm of a batch failed, retrying one by one: %s", self._sanitize(str(exc)))
        for cid in ids:
            try:
                self.report.auto_confirmed.extend(self.mem.review.auto_confirm([cid], policy))
            except (RikoError, OSError) as exc:
                _raise_disk_fault(exc)
                log.warning("auto-confirm of candidate %s skipped: %s", cid, self._sanitize(str(exc)))
        with self.wh.transaction():
            set_pending_confirms(self.stores.jobs, [])

    # -- reflection -------------------------------------------------------------------------------
    def wants_reflection(self, w: _Work) -> bool:
        return self.reflection and w.error is None and w.outcome in ("dreamed", "cached")

    def reflection_request(self, w: _Work) -> ReflectionRequest:
        """Anchors: the session's user statements, the scope's other recent ones, confirmed pages."""
        lines = self.stores.evidence
        own = lines.newest_user_lines(w.session_id, _SESSION_ANCHORS)
        other = lines.newest_user_lines(w.session_id, _OTHER_ANCHORS, others=True)
        pages = self.stores.pages.recent_confirmed(_PAGE_ANCHORS)
        anchors = [Anchor(evidence_ref(sid, int(seq)), sid, text) for sid, seq, text in sorted(own + other)
                   if not self.held.holds_text(text)]  # a repeat of held words anchors nothing either
        anchors += [Anchor(f"page:{pid}", None, f"{title}: {desc}" if desc else title) for pid, title, desc in pages]
        return ReflectionRequest(w.session_id, tuple(anchors), self.cfg.reflection_max_observations,
                                 self.cfg.min_observation_evidence)

    def prepare_reflection(self, w: _Work) -> tuple[ReflectionRequest, str | None, Callable[[], Any] | None, str | None]:
        """``(request, cache key, call or None, cached answer or None)``; a miss under replay_only fails."""
        with self.lock:
            request = self.reflection_request(w)
            key = reflection_key(self.provider, request) if self.remote else None
            cached = self.cache.get(key) if key else None
        if cached is not None or (self.replay_only and key):
            return request, key, None, cached
        provider = self.provider
        return request, key, lambda: _reflect(provider, request), None

    def apply_reflection(self, w: _Work, request: ReflectionRequest, key: str | None, answer: str | None,
                         error: ProviderError | None, called: bool) -> None:
        """Store the observations, or record a reflection failure; the Dream job stays succeeded."""

        if answer is None and error is None:
            error = ProviderError("reflection-cache-miss", "replay_only is set and no cached reflection matches")
        summary: dict[str, Any]
        with self.lock:
            store = ObservationStore.of(self.mem)
            try:
                if error is not None:
                    raise error
                answer = self._scrub(answer)
                proposed = parse_reflection(answer or "", valid_anchors=request.anchor_refs(),
                                            min_evidence=request.min_evidence,
                                            max_observations=request.max_observations)
                with self.wh.transaction():
                    outcomes = store.propose_many([(o.text, o.anchors, o.confidence) for o in proposed],
                                                  authority="model_proposal", session_id=w.session_id)
                    if called and key and answer is not None:
                        self.cache.put(key, self.report.provider, self.report.model, answer)
                    summary = {"status": "ok", "observations": [o.id for o in outcomes],
                               "source": "provider" if called else "cache"}
                    self._update_result(w, summary)
                self.report.observations += sum(o.action == "created" for o in outcomes)
                text = "ok"
            except (RikoError, ValueError) as exc:
                reason = exc.reason if isinstance(exc, ProviderError) else (
                    "reflection-invalid-anchor" if isinstance(exc, NotFoundError) else "reflection-invalid")
                message = self._sanitize(str(exc))
                with self.wh.transaction():
                    self.wh.audit("reflection-failed", "deterministic_rule", w.job_id,
                                  {"session_id": w.session_id, "reason": reason, "error": message})
                    self._update_result(w, {"status": "failed", "reason": reason})
                self.report.reflection_failures += 1
                log.warning("riko-memory reflection degraded (session %s): %s", w.session_id, message)
                text = f"failed:{reason}"
        if called:
            self.report.provider_calls += 1
        for row in self.report.rows:
            if row["job_id"] == w.job_id:
                row["reflection"] = text

    def _update_result(self, w: _Work, reflection: dict[str, Any]) -> None:
        w.result = {**w.result, "reflection": reflection}
        self.stores.jobs.set_result(w.job_id, dumps(w.result), naive_utc(self.mem.clock.now()))

    # -- the loop ---------------------------------------------------------------------------------
    def _bar(self, total: int) -> Any:
        if self.progress:
            from tqdm.auto import tqdm
        else:  # tqdm.auto warns in a notebook without widgets even when the bar is off
            from tqdm import tqdm
        return tqdm(total=total, desc="dream", unit="session", disable=not self.progress, leave=False)

    def run_on_executor(self, works: list[_Work]) -> None:
        """Provider calls of each batch on ``self.executor`` (every call, offline ones included);
        results are applied here in selection order and in the batches a local inline run uses,
        so both runs write the same candidates, pages, job rows and audits."""
        self.bar = self._bar(len(works))
        source = self.work_iter(works)

        def send() -> tuple[list[_Work], list[tuple[_Work, Future[Any]]]]:
            batch = list(islice(source, _APPLY_BATCH))
            calls = [(w, self.prepare(w)) for w in batch]
            submitted = [(w, self.executor.submit(call)) for w, call in calls if call is not None]
            if submitted:
                self.mark([w for w, _ in submitted], "running")
            return batch, submitted

        try:
            batch, submitted = send()
            while batch:
                # the next batch's calls run while this one is applied (prompts never depend on it)
                following = send()
                for w, future in submitted:
                    self.finish_call(w, future.result())
                self.apply(batch)
                reflections = []
                for w in batch:
                    w.release_text()
                    if self.wants_reflection(w):
                        request, key, call, cached = self.prepare_reflection(w)
                        reflections.append((w, request, key, cached,
                                            self.executor.submit(call) if call is not None else None))
                for w, request, key, cached, pending in reflections:
                    if pending is None:
                        self.apply_reflection(w, request, key, cached, None, False)
                    else:
                        answer, error = pending.result()
                        self.apply_reflection(w, request, key, answer, error, True)
                batch, submitted = following
        finally:
            self.executor.shutdown(wait=False, cancel_futures=True)
            self.bar.close()

    def run(self, works: list[_Work]) -> None:
        with self.lock:
            self.titles = self.stores.pages.confirmed_titles(_MAX_TITLES)
        if not works:
            return
        self.mark(works, "queued")
        if self.executor is not None:
            self.run_on_executor(works)
            return
        inline = not self.remote or self.workers == 1
        pool = None if inline else ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="riko-dream")
        pending: dict[Future[Any], tuple[str, _Work, Any]] = {}
        ready: list[_Work] = []
        source = self.work_iter(works)
        exhausted = False

        self.progress = progress_enabled(self.progress)
        if self.progress:
            from tqdm.auto import tqdm
        else:  # tqdm.auto warns in a notebook without widgets even when the bar is off
            from tqdm import tqdm

        self.bar = tqdm(total=len(works), desc="dream", unit="session", disable=not self.progress, leave=False)
        try:
            while True:
                started: list[_Work] = []
                while not exhausted and len(pending) < 2 * self.workers and len(ready) < _APPLY_BATCH:
                    w = next(source, None)
                    if w is None:
                        exhausted = True
                        break
                    call = self.prepare(w)
                    if call is None:
                        ready.append(w)
                    elif pool is None:
                        self.finish_call(w, call())
                        ready.append(w)
                    else:
                        pending[pool.submit(call)] = ("extract", w, None)
                        started.append(w)
                if started:
                    self.mark(started, "running")
                if pending and (not ready or exhausted or len(ready) < _APPLY_BATCH):
                    done, _ = wait(pending, timeout=None if not ready else 0.05, return_when=FIRST_COMPLETED)
                    for fut in done:
                        stage, w, extra = pending.pop(fut)
                        if stage == "extract":
                            self.finish_call(w, fut.result())
                            ready.append(w)
                        else:
                            answer, error = fut.result()
                            self.apply_reflection(w, extra[0], extra[1], answer, error, True)
                if not ready and not pending and exhausted:
                    break
                batch, ready = ready, []
                self.apply(batch)
                for w in batch:
                    w.release_text()
                    if not self.wants_reflection(w):
                        continue
                    request, key, call, cached = self.prepare_reflection(w)
                    if call is None:
                        self.apply_reflection(w, request, key, cached, None, False)
                    elif pool is None:
                        answer, error = call()
                        self.apply_reflection(w, request, key, answer, error, True)
                    else:
                        pending[pool.submit(call)] = ("reflect", w, (request, key))
        finally:
            if pool is not None:
                pool.shutdown(wait=False, cancel_futures=True)
            self.bar.close()


def run_dream(
    ctx: "ScopeContext",
    sessions: Iterable[str] | str | None = None,
    provider: Any = None,
    workers: int | None = None,
    progress: bool = True,
    *,
    shard: str | Sequence[int] | None = None,
    use_cache: bool = True,
    replay_only: bool = False,
    rescan: bool = False,
    reflection: bool | None = None,
    url: str | None = None,
    model: str | None = None,
    credential_ref: str | None = None,
    environ: Mapping[str, str] | None = None,
    executor: Any = None,
    address: str | None = None,
) -> DreamReport:
    """Dream every session whose evidence moved past its cursor (or the named ``sessions``).

    ``provider``: an object, a name (``heuristic``, ``openai-compatible``, ``anthropic``,
    ``auto``) or None for ``config.dream_provider``. ``workers`` bounds concurrent provider
    calls (default ``config.dream_workers``). ``shard="I/N"`` keeps the sessions whose id hashes
    to shard I of N. ``use_cache=False`` ignores cached answers; ``replay_only=True`` fails a
    job (``cache-miss``) instead of calling out. ``rescan=True`` ignores cursors and re-reads
    whole sessions (candidates merge by fingerprint). ``reflection`` overrides
    ``config.reflection_enabled``. ``executor`` (``"ray"``, ``"local"`` or an executor from
    :mod:`riko.executor`; ``address`` names a Ray cluster) runs the provider calls elsewhere while
    this process stays the one writer. Never writes canon itself; ``candidate_auto_confirm`` applies.
    """
    if isinstance(executor, str) and executor != "local" or address is not None:

        with open_executor(executor or "ray", address=address) as chosen_executor:
            return run_dream(ctx, sessions, provider, workers, progress, shard=shard, use_cache=use_cache,
                             replay_only=replay_only, rescan=rescan, reflection=reflection, url=url, model=model,
                             credential_ref=credential_ref, environ=environ, executor=chosen_executor)
    if executor == "local":
        executor = None
    started = time.perf_counter()
    ctx.wh.require_writable()
    cfg = ctx.config
    count = cfg.dream_workers if workers is None else workers
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 64:
        raise ConfigError("workers", f"must be an integer from 1 to 64, got {workers!r}")
    saved = ctx.dream_settings()
    if saved:  # settings saved for this scope (review page, POST /config) override the file config
        cfg = cfg.replace(**saved)
    chosen = resolve_provider(cfg, provider, url=url, model=model, credential_ref=credential_ref, environ=environ)
    run = _Run(ctx, chosen, workers=count, progress=progress, shard=parse_shard(shard), use_cache=use_cache,
               replay_only=replay_only, rescan=rescan,
               reflection=cfg.reflection_enabled if reflection is None else bool(reflection),
               secrets=_secrets(chosen, environ), executor=executor)
    try:
        with run.lock:
            with ctx.review.batch():
                run._auto_confirm()  # what a killed run committed but did not confirm yet
            works = run.select(sessions)
        run.run(works)
    finally:
        run.release()
    report = run.report
    report.seconds = time.perf_counter() - started
    with run.lock, ctx.wh.transaction():
        ctx.wh.audit("dream-run", "deterministic_rule", run.run_id, {
            "provider": report.provider, "model": report.model, "sessions": report.sessions,
            "succeeded": report.succeeded, "failed": report.failed, "skipped": report.skipped,
            "candidates": report.candidates, "shard": report.to_dict()["shard"],
        })
    return report
