"""Query-time recall: planner, lexical and exact arms, fusion, gates, budget and rendering.

The modules here are pure (no store access): the channel layer feeds them candidates.

    >>> from riko.recall import analyze_recall_query
    >>> analyze_recall_query("do you remember my dentist appointment?").channels()
    ('lexical', 'rawEvidence')
"""

from __future__ import annotations

from .chunking import chunk_sentences, split_sentences
from .exact import classify_term, exact_matches, exact_terms, quoted_phrases
from .fusion import (
    Fused,
    dedupe_canonical_evidence,
    fact_fingerprint,
    fingerprint_description,
    refs_overlap,
    rrf,
)
from .gate import (
    ELIGIBILITY_REASONS,
    GATE_REASONS,
    RecallDoc,
    disclosure_for_sensitivity,
    effective_disclosure,
    eligibility_reason,
    mention_decision,
    topic_matches,
)
from .lexical import BM25Index, bm25_idf
from .planner import CHANNEL_ORDER, INTENTS, RecallPlan, analyze_recall_query, parse_query_time
from .render import (
    BudgetResult,
    RenderItem,
    apply_budget,
    escape,
    is_non_identifying_summary,
    render_item_for,
    render_recall_context,
    select_within_budget,
)
from ..language.text import STOPWORDS, normalize, tokenize
from .trace import DEGRADED_MODES, RecallTrace

__all__ = [
    "normalize",
    "tokenize",
    "STOPWORDS",
    "BM25Index",
    "bm25_idf",
    "exact_terms",
    "exact_matches",
    "quoted_phrases",
    "classify_term",
    "chunk_sentences",
    "split_sentences",
    "RecallPlan",
    "analyze_recall_query",
    "parse_query_time",
    "INTENTS",
    "CHANNEL_ORDER",
    "Fused",
    "rrf",
    "dedupe_canonical_evidence",
    "fact_fingerprint",
    "fingerprint_description",
    "refs_overlap",
    "RecallDoc",
    "ELIGIBILITY_REASONS",
    "GATE_REASONS",
    "eligibility_reason",
    "mention_decision",
    "topic_matches",
    "disclosure_for_sensitivity",
    "effective_disclosure",
    "RenderItem",
    "BudgetResult",
    "escape",
    "render_recall_context",
    "render_item_for",
    "is_non_identifying_summary",
    "apply_budget",
    "select_within_budget",
    "RecallTrace",
    "DEGRADED_MODES",
]
