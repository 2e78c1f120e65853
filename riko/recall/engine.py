"""The recall engine: plan, search every opened channel, gate, fuse, budget and render.

``recall`` is the per-turn path (planner-gated, eligibility- and mention-gated, bounded,
traced); ``retrieve`` is the ungated research ranking; ``build_index`` refreshes the dense
generation. Every channel failure degrades the result and is named in the trace; none
reaches the caller. Recall writes no canon: only activation counts and derived projections.
"""

from __future__ import annotations

import dataclasses
import math
from datetime import datetime
from typing import TYPE_CHECKING, Any, Iterable, Mapping

import numpy as np
import polars as pl

from ..clock import utc
from ..errors import ConfigError, InvalidTypeError, ProviderError, StateError
from ..stores.warehouse import naive_utc
from .channels import (
    Hits,
    dense_hits,
    exact_hits,
    graph_expand,
    document_hits,
    query_phrases,
    raw_evidence,
)
from .eligibility import mask_of, reason_code, reason_of
from .exact import exact_terms
from .fusion import Fused, dedupe_canonical_evidence, rrf
from .gate import ELIGIBILITY_REASONS, RecallDoc, effective_disclosure, eligibility_reason, mention_decision
from .index_cache import RecallCache, cache_for
from .planner import CHANNEL_ORDER, RecallPlan, analyze_recall_query, strip_recall_cues
from .projections import evidence_guidance
from .render import RenderItem, render_item_for, render_recall_context, select_within_budget
from .reranker import rerank
from .result import RecallResult
from ..language.text import tokenize
from .trace import RecallTrace
from .vectors import (build_generation, dense_index, index_status, provider_for, recorded_degradation,
                      serving_reason, write_index_meta)

if TYPE_CHECKING:
    from ..context import ScopeContext

__all__ = ["recall", "retrieve", "retrieve_hits", "fuse_retrieved", "build_index", "dense_status", "channel_weights", "DENSE_WEIGHTS", "DENSE_MARGINS",
           "DENSE_ONLY_RANKS", "RETRIEVE_DENSE_WEIGHTS",
           "RETRIEVE_CHANNELS", "AUTHORITATIVE_RESERVE"]

#: Fusion weight of the dense channel per embedding model, measured on the public dev sets
#: beside plain BM25 (benchmarks/retrieval_real.py): a model that ranks worse than BM25 alone
#: must not outvote it. Every other channel weighs 1.0: rules that scaled or dropped a BM25
#: channel by its per-query IDF coverage lost 2-4 points of hit@10 on real conversations.
DENSE_WEIGHTS: dict[str, float] = {
    "multilingual-e5-small": 0.7,
    "use-multilingual-v3": 0.3,
    "deterministic-local-v1": 0.5,
}
#: How far below the best cosine a hit only the dense channel found may be and still enter
#: gated recall (``recall``; ``retrieve`` ranks everything). e5's cosines are compressed
#: (unrelated text 0.72-0.82): on the calibration and challenge cases a distractor sat
#: 0.047-0.119 below the answer. A second fact the question needs through a shared name (the
#: sister *in Lyon*, the trip *to Lyon*) sat 0.010-0.040 below, so it is admitted by the
#: bridge rule below instead of by widening the margin. Every decision on the case sets keeps
#: at least 0.005 from these thresholds (a test checks it), so kernel-level differences in
#: the third decimal of a cosine cannot flip one. USE spreads wider.
DENSE_MARGINS: dict[str, float] = {
    "multilingual-e5-small": 0.02,
    "use-multilingual-v3": 0.15,
}
#: A dense-only hit beyond the margin but within this distance of the best cosine enters
#: when it shares a term the question does not contain with a document another channel
#: ranked near its top (or with the best dense hit): the multi-hop bridge. The decision to
#: bridge is lexical, so it does not move with the arithmetic of the embedding.
DENSE_BRIDGE_MARGINS: dict[str, float] = {
    "multilingual-e5-small": 0.06,
    "use-multilingual-v3": 0.25,
}
#: In ``retrieve`` (no gates), a hit only the dense channel found enters the fusion only within
#: this rank of the dense list, and the dense channel weighs :data:`RETRIEVE_DENSE_WEIGHTS`
#: there. Both were chosen by leave-one-dataset-out on the four public conversation sets
#: (benchmarks/fusion_grid.py; the table is in benchmarks/README.md): of the settings fitted on
#: three sets, the one whose worst set and metric (hit@10, frac@10 or MRR) gained most over
#: lexical. Gated ``recall`` keeps :data:`DENSE_WEIGHTS`, which its admission margins and gate
#: cases were measured with.
DENSE_ONLY_RANKS: dict[str, int] = {
    "multilingual-e5-small": 10,
}
RETRIEVE_DENSE_WEIGHTS: dict[str, float] = {
    "multilingual-e5-small": 1.0,
}
#: How many of each other channel's top documents a dense-only hit may bridge to.
_BRIDGE_ROOTS = 3
#: Seats reserved for canonical (authoritative) results before evidence is admitted.
AUTHORITATIVE_RESERVE = 3
RETRIEVE_CHANNELS = CHANNEL_ORDER
_OPTIONS = frozenset({
    "max_candidates", "max_context_chars", "build_index", "record_activation", "debug", "reranker_endpoint",
    "reranker_model", "reranker_timeout_ms", "graph", "provider", "weights",
})
_GRAPH_ROOTS = 3
# Page rejections that hide the L0 lines the page stands on (a candidate, a source page or
# a contested page leaves its evidence alone).
_HIDING = np.zeros(len(ELIGIBILITY_REASONS) + 1, dtype=bool)
_HIDING[[reason_code(r) for r in ("suppressed-by-user", "correction-invalidated", "superseded",
                                  "temporal-superseded", "temporal-invalid")]] = True
_SUPPRESSED = reason_code("suppressed-by-user")
# A forgotten page exists for history recall alone: elsewhere it is neither shown nor counted.
_FORGOTTEN = reason_code("forgotten")


def channel_weights(provider: Any, overrides: Mapping[str, float] | None = None) -> dict[str, float]:
    """RRF weights: 1.0 per channel, the dense channel at its model's measured weight, then
    the caller's overrides."""
    weights = {channel: 1.0 for channel in CHANNEL_ORDER}
    if provider is not None:
        weights["dense"] = DENSE_WEIGHTS.get(getattr(provider, "model", ""), 1.0)
    weights.update(overrides or {})
    return weights


# -- recall -----------------------------------------------------------------------------------
def recall(ctx: "ScopeContext", query: str, *, at_time: Any = None, history: bool = False, **options: Any) -> RecallResult:
    """Planner-gated recall for one user turn; see :meth:`riko.Memory.recall`.

    Options: ``max_candidates``, ``max_context_chars`` (override the config), ``build_index``
    (``False``: never build a missing dense generation in this request, degrade instead; by
    default the first dense request builds it), ``record_activation``
    (default True), ``debug`` (also list rejected candidates), ``reranker_endpoint`` /
    ``reranker_model`` / ``reranker_timeout_ms``, ``graph`` (a networkx graph to expand over),
    ``provider`` (an embedding provider object), ``weights`` (per-channel RRF weights).
    """
    unknown = set(options) - _OPTIONS
    if unknown:
        raise InvalidTypeError(f"unknown recall option(s): {', '.join(sorted(unknown))}; expected {', '.join(sorted(_OPTIONS))}")
    if not isinstance(query, str):
        raise InvalidTypeError(f"query must be a string, got {type(query).__name__}")
    cfg = ctx.config
    now = utc(ctx.clock.now())
    stages = RecallTrace()
    with stages.timed("planner"):
        plan = analyze_recall_query(
            query,
            raw_evidence_enabled=cfg.recall_raw_evidence_enabled,
            observation_enabled=cfg.recall_observation_enabled,
            graph_enabled=cfg.recall_graph_enabled,
            vector_enabled=cfg.recall_vector_enabled,
            max_candidates=int(options.get("max_candidates", cfg.recall_max_candidates)),
            max_context_chars=int(options.get("max_context_chars", cfg.recall_max_context_chars)),
            at_time=at_time if cfg.temporal_enabled else None,
            history=history and cfg.temporal_enabled,
        )
        if not cfg.temporal_enabled:
            plan = dataclasses.replace(plan, temporal_mode="current", at_time=None)
    trace = RecallTrace.for_plan(plan, ctx.scope.key)
    trace.planner_latency_ms = stages.planner_latency_ms
    if not plan.is_open:
        return _result(plan, trace, [], "")
    return _Run(ctx, query, plan, trace, now, options).execute()


class _Run:
    """One execution of a recall plan (state shared by its stages)."""

    def __init__(self, ctx: "ScopeContext", query: str, plan: RecallPlan, trace: RecallTrace, now: datetime,
                 options: Mapping[str, Any]) -> None:
        self.mem, self.query, self.plan, self.trace, self.now = ctx, query, plan, trace, now
        self.options = options
        self.cfg = ctx.config
        self.cache: RecallCache = cache_for(ctx)
        self.topic = strip_recall_cues(query)
        self.tokens = list(plan.keywords)
        self.phrases = query_phrases(self.topic, query)
        self.chunks: dict[str, int] = {}
        self.rows: list[dict[str, Any]] = []
        self.provider: Any = None
        self.dense_scores: dict[str, float] = {}

    # -- stages ---------------------------------------------------------------------------
    def execute(self) -> RecallResult:
        plan, trace, cfg = self.plan, self.trace, self.cfg
        # The lexical indexes are read under the cache lock: a refresh in another thread
        # appends to the posting lists this one scans.
        with trace.timed("lexical"), self.cache.lock:
            self.cache.refresh()
            self._masks()
            rankings = self._lexical_side()
        if plan.search_vector:
            rankings["dense"] = self._dense_admitted(self._dense(), rankings)
        candidates = self._eligible(rankings)
        self.weights = channel_weights(self.provider, self.options.get("weights"))
        fused = rrf(
            {ch: ids for ch, ids in candidates.items() if ids}, k=cfg.rrf_k, weights=self.weights,
            tie_break=self.cache.activation,
        )
        docs = self.docs
        fingerprints = {d: self.cache.fingerprint(doc) for d, doc in docs.items()}
        fused = dedupe_canonical_evidence(
            fused, {d: f for d, f in fingerprints.items() if f}, {d: doc.refs for d, doc in docs.items()},
            {d: doc.kind for d, doc in docs.items()}, tie_break=self.cache.activation,
        )
        trace.fused_candidates = len(fused)
        # The mention gate decides after fusion (a protected result's topic is judged against
        # the query), before the candidate window: what it suppresses takes no seat.
        fused = self._rerank(fused)
        items, decided = self._gate(fused, plan.max_candidates)
        budget = select_within_budget(
            items, plan.max_context_chars, max_candidates=plan.max_candidates,
            authoritative_reserve=AUTHORITATIVE_RESERVE, raw_evidence_max=max(1, math.ceil(plan.max_candidates / 2)),
        )
        for reason in dict.fromkeys(budget.dropped.values()):
            trace.add_reason(reason)
        context = render_recall_context(budget.kept)  # the budget already admitted whole items only
        injected = {item.doc_id for item in budget.kept}
        trace.injected_memories = len(budget.kept)
        trace.context_chars = len(context)
        for row in decided:
            row["injected"] = row["id"] in injected
            if not row["injected"] and row["decision"] != "suppress":
                row["reason"] = budget.dropped.get(row["id"], row["reason"])
            if not row["injected"]:
                row["text"] = None
        # only a real injection is an access: a debug run inspects and never counts
        if self.options.get("record_activation", True) and not self.options.get("debug") and injected:
            self._record_activation([f.doc_id for f in fused if f.doc_id in injected])
        return _result(plan, trace, decided + self.rows, context, self.weights)

    def _masks(self) -> None:
        """Work out which documents of each side may compete, before any channel searches."""
        plan, cache = self.plan, self.cache
        mode, at = plan.temporal_mode, plan.at_time
        honour = bool(self.cfg.temporal_enabled)
        self.page_codes = cache.page_table().codes(mode, self.now, at, honour_start=honour)
        self.observation_codes = cache.observation_table().codes(mode, self.now, at, honour_start=honour)
        lines = cache.line_table()
        self.line_codes = lines.codes(mode, self.now, at)
        self._cover_evidence()
        self._cover_observations()
        self.page_mask = mask_of(self.page_codes)
        self.observation_mask = mask_of(self.observation_codes)
        line_mask = mask_of(self.line_codes)
        self.chunk_mask = None if line_mask is None else line_mask[lines.chunk_line]

    def _cover_evidence(self) -> None:
        """Hide the L0 lines a hidden page stands on (suppressed, superseded, expired, forgotten),
        unless an eligible page stands on them too: a page's text must not come back as its
        own raw evidence."""
        src_page, src_line, gone = self.cache.page_sources()
        codes = self.line_codes
        if not len(codes):
            return
        hiding = _HIDING[self.page_codes[src_page]]
        if not hiding.any() and not len(gone):
            return
        kept = np.zeros(len(codes), dtype=bool)
        kept[src_line[self.page_codes[src_page] == 0]] = True
        if hiding.any():
            lines, reasons = src_line[hiding], self.page_codes[src_page[hiding]]
            open_ = (codes[lines] == 0) & ~kept[lines]
            codes[lines[open_]] = reasons[open_]
        if len(gone):
            gone = gone[(codes[gone] == 0) & ~kept[gone]]
            codes[gone] = _SUPPRESSED

    def _cover_observations(self) -> None:
        """Hide an observation drawn from a line that is hidden (the user asked to stop using
        it, or the fact it told was replaced or ran out)."""
        obs, anchored = self.cache.observation_anchors()
        if len(obs) and len(self.line_codes):
            hit = obs[_HIDING[self.line_codes[anchored]]]
            hit = hit[self.observation_codes[hit] == 0]
            self.observation_codes[hit] = _SUPPRESSED

    def _page_allowed(self, doc_id: str) -> bool:
        if self.page_mask is None:
            return True
        at = self.cache.page_position(doc_id)
        return at is not None and bool(self.page_mask[at])

    def _lexical_side(self) -> dict[str, list[str]]:
        plan, cfg, cache = self.plan, self.cfg, self.cache
        cap = cfg.lexical_candidate_cap
        rankings: dict[str, list[str]] = {}
        lexical = Hits()
        if plan.search_canonical:
            lexical = self._channel("lexical", "lexical-degraded", lambda: document_hits(
                cache.pages, self.tokens, self.phrases, cap, self.page_mask))
            rankings["lexical"] = lexical.ids
            self._count_rejected("page")
        if plan.search_exact:
            hits = self._channel("exact", "exact-degraded", lambda: exact_hits(
                cache, plan.exact_terms, cap, evidence=plan.search_evidence, pages_allowed=self.page_mask,
                chunks_allowed=self.chunk_mask))
            rankings["exact"] = hits.ids
        if plan.search_evidence:
            hits = self._channel("rawEvidence", "evidence-degraded", lambda: raw_evidence(
                cache, self.tokens, self.phrases, cap, allowed=self.chunk_mask))
            rankings["rawEvidence"] = hits.ids
            self._count_rejected("evidence")
        if plan.search_observation:
            hits = self._channel("observation", "observation-degraded", lambda: document_hits(
                cache.observations, self.tokens, self.phrases, plan.max_candidates, self.observation_mask))
            rankings["observation"] = hits.ids
            self._count_rejected("observation")
        if plan.search_graph:
            roots = [d for d in lexical.ids if self._reason(d) is None][:_GRAPH_ROOTS]
            graph = self.options.get("graph")
            hits = self._channel("graph", "graph-degraded", lambda: graph_expand(
                graph if graph is not None else cache.graph(), roots, 2 * plan.max_candidates, allow=self._page_allowed))
            rankings["graph"] = hits.ids
        return rankings

    def _count_rejected(self, side_name: str) -> None:
        """Count, once per document, the matching documents eligibility kept out of a search
        (the trace's rejection counters; with ``debug`` also their rows)."""
        cache = self.cache
        if side_name == "page":
            codes, index, ids = self.page_codes, cache.pages.index, cache.pages.ids
        elif side_name == "observation":
            codes, index, ids = self.observation_codes, cache.observations.index, cache.observations.ids
        else:
            codes, index, ids = self.line_codes, cache.evidence.index, None
        if not len(codes) or not codes.any():
            return
        postings = [index.postings(t) for t in dict.fromkeys(self.tokens)]
        postings = [p for p in postings if len(p)]
        if not postings:
            return
        # Marks, not a sorted union: each posting list sets its documents, then one pass keeps
        # the rejected ones (a union by np.unique cost a quarter of recall with 600 hidden versions).
        chunk_line = cache.line_table().chunk_line if ids is None else None
        hit = np.zeros(len(codes) if chunk_line is None else len(chunk_line), dtype=bool)
        for posting in postings:
            hit[posting] = True
        if chunk_line is not None:  # evidence postings name chunks: count their lines
            lines = np.zeros(len(codes), dtype=bool)
            lines[chunk_line[hit]] = True
            hit = lines
        rejected = np.flatnonzero(hit & (codes != 0) & (codes != _FORGOTTEN))
        if not len(rejected):
            return
        tally = np.bincount(codes[rejected])
        for code in np.flatnonzero(tally).tolist():
            self.trace.reject(str(reason_of(code)), int(tally[code]))
        if self.options.get("debug"):
            for position in rejected.tolist():
                doc = cache.evidence_doc(position, keep=False) if ids is None else cache.doc(ids[position])
                if doc is not None:
                    self.rows.append(_row(doc, None, "rejected", str(reason_of(int(codes[position]))), 0.0))

    def _channel(self, name: str, degraded: str, run: Any) -> Hits:
        try:
            hits = run()
        except Exception:
            self.trace.degrade(degraded)
            hits = Hits()
        for doc_id, chunk in hits.chunks.items():
            self.chunks.setdefault(doc_id, chunk)
        self.trace.count_candidates(name, len(hits.ids))
        return hits

    def _dense(self) -> list[str]:
        trace, cache = self.trace, self.cache
        provider = self.options.get("provider") or provider_for(cache)
        self.provider = provider
        if provider is None:
            trace.degrade("vector-provider-unavailable")
            return []
        try:
            index = dense_index(cache, provider, self.mem.warehouse_dir / "dense", self.mem.clock)
            if not index.searchable and index.degraded_reason == "embedding-model-changed":
                if not self._model_changed(index):
                    return []  # lexical meanwhile
            elif not index.searchable:
                # no generation yet, or one an invalidation (purge, a schema change) took out of
                # service: this dense request builds it, unless the caller said not to or this
                # handle cannot write; a failed build degrades to lexical below
                if self.options.get("build_index") is False or self.mem.read_only:
                    trace.degrade("vector-degraded")
                    return []
                build_generation(cache, index, self.now)
            stale = serving_reason(cache, index, self.now)
            if stale is not None:
                trace.degrade(stale)  # still served: only documents still in the set can hit
            with trace.timed("embedding"):
                vector = provider.embed_query(self.query)
            with trace.timed("vector"):
                hits = dense_hits(cache, index, vector, self.cfg.dense_candidate_cap, exclude=self._dense_excluded())
        except Exception:
            trace.degrade("vector-degraded")
            return []
        for doc_id, chunk in hits.chunks.items():
            self.chunks.setdefault(doc_id, chunk)
        trace.count_candidates("dense", len(hits.ids))
        self.dense_scores = hits.scores
        return hits.ids

    def _model_changed(self, index: Any) -> bool:
        """The stored generation holds another model's (or dimension's) vectors: the first
        dense request records ``embedding-model-changed`` in ``index_meta`` and serves lexical
        recall; the next one rebuilds the generation for the current provider. True when a
        generation is searchable again."""
        cache, trace = self.cache, self.trace
        trace.degrade("embedding-model-changed")
        if self.mem.read_only:
            return False
        if recorded_degradation(cache) != "embedding-model-changed" and not self.options.get("build_index", False):
            write_index_meta(cache, index, self.now, degraded="embedding-model-changed")
            return False
        try:
            build_generation(cache, index, self.now)
        except Exception:
            trace.degrade("vector-degraded")
            return False
        return bool(index.searchable)

    def _dense_excluded(self) -> set[str]:
        """The stored dense documents eligibility hides (pages, observations, evidence chunks)."""
        cache = self.cache
        out: set[str] = set()
        if self.page_mask is not None:
            out.update(cache.pages.ids[i] for i in np.flatnonzero(~self.page_mask).tolist())
        if self.observation_mask is not None:
            out.update(cache.observations.ids[i] for i in np.flatnonzero(~self.observation_mask).tolist())
        if self.chunk_mask is not None:
            out.update(cache.evidence.chunk_ids[i] for i in np.flatnonzero(~self.chunk_mask).tolist())
        return out

    def _dense_admitted(self, ids: list[str], rankings: Mapping[str, list[str]]) -> list[str]:
        """The dense hits recall may use: those another channel also found, those within the
        model's margin of the best cosine, and those within its bridge margin that share a
        term the question lacks with a top document of another channel. In a small scope
        every document is some document's nearest neighbour; only near-best similarity, or a
        shared name, says a dense-only hit is about the question (see DENSE_MARGINS)."""
        model = getattr(self.provider, "model", "")
        margin = DENSE_MARGINS.get(model)
        if margin is None or not ids:
            return ids
        bridge_margin = DENSE_BRIDGE_MARGINS.get(model, margin)
        scores = self.dense_scores
        found = {doc_id for channel, ranked in rankings.items() if channel != "dense" for doc_id in ranked}
        best_id = max(ids, key=lambda d: scores[d])
        best = scores[best_id]
        roots: list[str] | None = None
        query_terms: set[str] = set()
        kept: list[str] = []
        for doc_id in ids:
            if doc_id in found:
                kept.append(doc_id)
                continue
            gap = best - scores[doc_id]
            admitted, bridged = gap <= margin, False
            if not admitted and gap <= bridge_margin:
                if roots is None:
                    roots = [best_id] + [d for channel, ranked in rankings.items() if channel != "dense"
                                         for d in ranked[:_BRIDGE_ROOTS]]
                    query_terms = set(tokenize(self.query))
                bridged = self._bridges(doc_id, roots, query_terms)
                admitted = bridged
            self.trace.dense_admission.append({"gap": round(gap, 4), "margin": margin, "bridgeMargin": bridge_margin,
                                               "bridged": bridged, "admitted": admitted})
            if admitted:
                kept.append(doc_id)
            else:
                self.trace.reject("dense-below-margin")
        return kept

    def _bridges(self, doc_id: str, roots: list[str], query_terms: set[str]) -> bool:
        """Whether ``doc_id`` shares a term outside the question with one of ``roots``."""
        doc = self._doc(doc_id)
        if doc is None:
            return False
        terms = set(tokenize(doc.text)) - query_terms
        for root in roots:
            other = self._doc(root) if root != doc_id else None
            if other is not None and terms & set(tokenize(other.text)):
                return True
        return False

    # -- eligibility ----------------------------------------------------------------------
    @property
    def docs(self) -> dict[str, RecallDoc]:
        return self._docs

    def _doc(self, doc_id: str) -> RecallDoc | None:
        doc = self.cache.doc(doc_id, self.chunks.get(doc_id))
        if doc is not None and not self.cfg.temporal_enabled and doc.valid_from is not None:
            doc = dataclasses.replace(doc, valid_from=None)  # only the end of validity is honoured
        return doc

    def _reason(self, doc_id: str) -> str | None:
        doc = self._doc(doc_id)
        if doc is None:
            return "source-page-not-recallable"
        return self._searched_reason(doc)

    def _searched_reason(self, doc: RecallDoc) -> str | None:
        """``doc``'s eligibility as the channels searched with it: its code in this query's
        arrays (which also hold the lines and observations a hidden page covers), so a
        candidate is judged once and by the same rule as the window it came through."""
        cache = self.cache
        if doc.kind == "page":
            at, codes = cache.page_position(doc.doc_id), self.page_codes
        elif doc.kind == "observation":
            at, codes = cache.observation_position(doc.doc_id), self.observation_codes
        else:
            at, codes = cache.evidence.ref_line.get(doc.doc_id), self.line_codes
        if at is None or at >= len(codes):
            return eligibility_reason(doc, mode=self.plan.temporal_mode, now=self.now, at_time=self.plan.at_time)
        return reason_of(int(codes[at]))

    def _eligible(self, rankings: Mapping[str, list[str]]) -> dict[str, list[str]]:
        """Reject ineligible candidates once each (counted in the trace) and cap every channel."""
        plan, cfg = self.plan, self.cfg
        self._docs: dict[str, RecallDoc] = {}
        verdict: dict[str, str | None] = {}
        caps = {"lexical": cfg.lexical_candidate_cap, "exact": cfg.lexical_candidate_cap,
                "rawEvidence": cfg.lexical_candidate_cap, "observation": plan.max_candidates,
                "graph": 2 * plan.max_candidates, "dense": cfg.dense_candidate_cap}
        out: dict[str, list[str]] = {}
        for channel in CHANNEL_ORDER:
            if channel not in rankings:
                continue
            kept: list[str] = []
            for doc_id in rankings[channel]:
                if doc_id not in verdict:
                    doc = self._doc(doc_id)
                    if doc is None:
                        verdict[doc_id] = "stale"  # a dense hit for a document that is gone
                        continue
                    reason = self._searched_reason(doc)
                    verdict[doc_id] = reason
                    if reason is None:
                        self._docs[doc_id] = doc
                    else:
                        self.trace.reject(reason)
                        if self.options.get("debug"):
                            self.rows.append(_row(doc, None, "rejected", reason, 0.0))
                if verdict[doc_id] is None and len(kept) < caps[channel]:
                    kept.append(doc_id)
            out[channel] = kept
        self.trace.eligible_candidates = len(self._docs)
        return out

    # -- rerank, gate, activation -----------------------------------------------------------
    def _rerank(self, fused: list[Fused]) -> list[Fused]:
        endpoint = self.options.get("reranker_endpoint", self.cfg.reranker_endpoint)
        if not endpoint or len(fused) < 2:
            return fused
        head_size = min(len(fused), max(2 * self.plan.max_candidates, 10))
        head, tail = fused[:head_size], fused[head_size:]
        # Protected text never leaves the process: only normal-disclosure results are sent,
        # and protected ones keep their places in the head.
        open_slots = [i for i, f in enumerate(head) if self._disclosure(self.docs[f.doc_id]) == "normal"
                      and self.docs[f.doc_id].status != "forgotten"]
        if len(open_slots) < 2:
            return fused
        timeout = int(self.options.get("reranker_timeout_ms", self.cfg.reranker_timeout_ms))
        try:
            with self.trace.timed("rerank"):
                order = rerank(endpoint, self.topic or self.query, [self.docs[head[i].doc_id].text for i in open_slots],
                               top_n=len(open_slots), timeout_ms=timeout, model=self.options.get("reranker_model"))
        except (ProviderError, Exception):
            self.trace.degrade("reranker-fallback-rrf")
            return fused
        reordered = list(head)
        for slot, (position, _score) in zip(open_slots, order):
            reordered[slot] = head[open_slots[position]]
        return reordered + tail

    def _disclosure(self, doc: RecallDoc) -> str:
        return effective_disclosure(doc, unclassified=self.cfg.unclassified_evidence_disclosure)

    def _gate(self, fused: list[Fused], seats: int) -> tuple[list[RenderItem], list[dict[str, Any]]]:
        """Mention decisions in fused order until ``seats`` results may be used; a suppressed
        result is listed (and counted) but takes no seat."""
        plan, trace, cache = self.plan, self.trace, self.cache
        unclassified = self.cfg.unclassified_evidence_disclosure
        items: list[RenderItem] = []
        rows: list[dict[str, Any]] = []
        for f in fused:
            if len(items) >= seats:
                break
            doc = self.docs[f.doc_id]
            if f.merged:
                doc = dataclasses.replace(doc, refs=tuple(f.refs))
            decision, reason = mention_decision(doc, self.query, plan, unclassified_disclosure=unclassified)
            if decision != "suppress" and doc.status == "forgotten":
                decision = "explicit"  # only its "forgotten on <date>" label is shown (history mode)
            trace.gate(decision, reason)
            row = _row(doc, f, decision, reason, cache.activation.get(f.doc_id, 0.0))
            rows.append(row)
            if decision == "suppress":
                row["text"] = None
                continue
            projection = cache.projection(doc.doc_id)
            if projection is not None:
                effects, summary = projection.allowed_effects, projection.summary
            else:
                effects, summary = evidence_guidance(doc.text, self._disclosure(doc))
            item = render_item_for(
                doc, decision, user_initiated=plan.explicit_recall,
                tone="neutral" if self._disclosure(doc) == "normal" else "gentle",
                allowed_effects=effects, summary=summary, unclassified_disclosure=unclassified,
            )
            row["text"] = item.text if decision == "explicit" else None
            items.append(item)
        return items, rows

    def _record_activation(self, doc_ids: list[str]) -> None:
        """Count a recall for each injected record; a failure only degrades the trace."""
        try:
            if self.mem.read_only:
                raise StateError("activation cannot be recorded on a read-only memory")
            self.cache.count_recalls(doc_ids, naive_utc(self.now))
        except Exception:
            self.trace.degrade("activation-degraded")


def _row(doc: RecallDoc, fused: Fused | None, decision: str, reason: str, activation: float) -> dict[str, Any]:
    ranks = fused.ranks if fused is not None else {}
    return {
        "id": doc.doc_id, "kind": doc.kind, "channels": list(fused.channels) if fused else [],
        "score": fused.score if fused else 0.0, "decision": decision, "reason": reason, "injected": False,
        "activation": activation, "session_id": doc.session_id, "seq": doc.seq, "role": doc.role, "text": None,
        **{f"rank_{channel}": ranks.get(channel) for channel in CHANNEL_ORDER},
    }


def _result(plan: RecallPlan, trace: RecallTrace, rows: list[dict[str, Any]], context: str,
            weights: dict[str, float] | None = None) -> RecallResult:
    return RecallResult(None, context, trace.to_dict(), plan, rows, weights or {})


# -- retrieve ---------------------------------------------------------------------------------
_RETRIEVE_SCHEMA: dict[str, Any] = {
    "doc_id": pl.Utf8, "kind": pl.Utf8, "session_id": pl.Utf8, "seq": pl.Int64, "page_id": pl.Utf8,
    "score": pl.Float64, "channels": pl.List(pl.Utf8), "role": pl.Utf8,
}


def retrieve(ctx: "ScopeContext", query: str, *, k: int = 10, channels: Iterable[str] | None = None,
             provider: Any = None, weights: Mapping[str, float] | None = None) -> pl.DataFrame:
    """Ungated research ranking over every channel, raw evidence included; see :meth:`riko.Memory.retrieve`.

    No planner, eligibility or mention gate: every page (not forgotten), kept L0 line (user,
    assistant, tool; ``role`` says which) and observation competes. The dense channel joins when a provider and a generation exist
    (``channels=["dense", ...]`` requires them). Nothing is written.
    """
    if k < 1:
        raise ConfigError("k", f"must be at least 1, got {k}")
    cache = cache_for(ctx)
    found, used_provider = retrieve_hits(ctx, query, k=k, channels=channels, provider=provider)
    fused = fuse_retrieved(found, used_provider, rrf_k=ctx.config.rrf_k, weights=weights)[:k]
    rows = []
    for f in fused:
        kind = cache.kind_of(f.doc_id)
        doc = cache.doc(f.doc_id) if kind == "evidence" else None
        rows.append({
            "doc_id": f.doc_id, "kind": kind, "session_id": doc.session_id if doc else None,
            "seq": doc.seq if doc else None, "page_id": f.doc_id if kind == "page" else None,
            "score": f.score, "channels": list(f.channels), "role": doc.role if doc else None,
        })
    return pl.DataFrame(rows, schema=_RETRIEVE_SCHEMA) if rows else pl.DataFrame(schema=_RETRIEVE_SCHEMA)


def retrieve_hits(ctx: "ScopeContext", query: str, *, k: int = 10, channels: Iterable[str] | None = None,
                  provider: Any = None) -> tuple[dict[str, Hits], Any]:
    """Every wanted channel's hits for ``retrieve`` (each up to ``max(3 k, lexical cap)``) and
    the embedding provider the dense channel used (None when it did not run)."""
    wanted = tuple(RETRIEVE_CHANNELS if channels is None else dict.fromkeys(channels))
    unknown = [c for c in wanted if c not in RETRIEVE_CHANNELS]
    if unknown:
        raise ConfigError("channels", f"unknown channel(s) {', '.join(unknown)}; expected {', '.join(RETRIEVE_CHANNELS)}")
    cache = cache_for(ctx)
    cap = max(3 * k, ctx.config.lexical_candidate_cap)
    topic = strip_recall_cues(query)
    tokens = list(dict.fromkeys(tokenize(topic)))
    phrases = query_phrases(topic, query)
    found: dict[str, Hits] = {}
    with cache.lock:
        cache.refresh()
        live = cache.live_page_mask()
        lexical = document_hits(cache.pages, tokens, phrases, cap, live) if {"lexical", "graph"} & set(wanted) else Hits()
        if "lexical" in wanted:
            found["lexical"] = lexical
        if "exact" in wanted:
            found["exact"] = exact_hits(cache, exact_terms(query), cap, pages_allowed=live)
        if "rawEvidence" in wanted:
            found["rawEvidence"] = raw_evidence(cache, tokens, phrases, cap)
        if "observation" in wanted:
            found["observation"] = document_hits(cache.observations, tokens, phrases, cap)
    if "graph" in wanted:
        found["graph"] = graph_expand(cache.graph(), lexical.ids[:_GRAPH_ROOTS], cap)
    used_provider = None
    if "dense" in wanted:
        used_provider = provider or provider_for(cache)
        index = None
        if used_provider is not None:
            index = dense_index(cache, used_provider, ctx.warehouse_dir / "dense", ctx.clock)
        if index is not None and index.searchable:
            serving_reason(cache, index, utc(ctx.clock.now()))  # a stale generation hides gone documents
            found["dense"] = dense_hits(cache, index, used_provider.embed_query(query), cap)
        elif channels is not None:
            raise StateError("the dense channel needs an embedding provider and a built generation").with_remedy("index")
    return found, used_provider


def fuse_retrieved(found: Mapping[str, Hits], provider: Any, *, rrf_k: int = 60,
                   weights: Mapping[str, float] | None = None) -> list[Fused]:
    """The ``retrieve`` ranking of the channels' hits: weighted RRF (see :func:`channel_weights`,
    the dense channel at :data:`RETRIEVE_DENSE_WEIGHTS` where its model has one), the dense-only
    hits cut at their model's rank (see :data:`DENSE_ONLY_RANKS`)."""
    rankings = {c: h.ids for c, h in found.items() if h.ids}
    model = getattr(provider, "model", "")
    cap = DENSE_ONLY_RANKS.get(model)
    if cap is not None and "dense" in rankings:
        other = {d for c, ids in rankings.items() if c != "dense" for d in ids}
        rankings["dense"] = [d for i, d in enumerate(rankings["dense"]) if d in other or i < cap]
    fused_weights = channel_weights(provider)
    if provider is not None and model in RETRIEVE_DENSE_WEIGHTS:
        fused_weights["dense"] = RETRIEVE_DENSE_WEIGHTS[model]
    fused_weights.update(weights or {})
    return rrf(rankings, k=rrf_k, weights=fused_weights)


# -- index --------------------------------------------------------------------------------------
def _provider_or_raise(ctx: "ScopeContext", cache: RecallCache, provider: Any) -> Any:
    chosen = provider or provider_for(cache)
    if chosen is None:
        detail = f" ({cache.provider_error})" if cache.provider_error else ""
        raise ConfigError("embedding_provider",
                          f"no embedding provider is available{detail}; set embedding_provider to "
                          "deterministic, local, local-fast or openai-compatible")
    return chosen


def build_index(ctx: "ScopeContext", *, progress: bool = True, force: bool = False, provider: Any = None) -> dict[str, Any]:
    """Build or refresh the scope's dense generation; see :meth:`riko.Memory.index`.

    Incremental: vectors of unchanged texts are reused by text hash; only new texts are
    embedded, in batches. A provider failure keeps the previous generation serving and
    raises ProviderError. Returns build statistics and the generation summary.
    """
    cache = cache_for(ctx)
    cache.refresh()
    chosen = _provider_or_raise(ctx, cache, provider)
    index = dense_index(cache, chosen, ctx.warehouse_dir / "dense", ctx.clock)
    return build_generation(cache, index, utc(ctx.clock.now()), progress=progress, force=force)


def dense_status(ctx: "ScopeContext", *, provider: Any = None) -> dict[str, Any]:
    """The dense generation's status and whether the scope's documents moved since it was built."""
    cache = cache_for(ctx)
    cache.refresh()
    chosen = _provider_or_raise(ctx, cache, provider)
    index = dense_index(cache, chosen, ctx.warehouse_dir / "dense", ctx.clock)
    return index_status(cache, index, utc(ctx.clock.now()))
