"""Recall channels over the cached indexes: each returns document ids in its own rank order.

Lexical and raw-evidence rankings come from BM25 plus the exact-substring bonus; exact,
observation, graph and dense rankings enter fusion in match, score, traversal or provider
order. Evidence is indexed by chunk but recalled by line: a line is ranked at its best
chunk, and that chunk is what would be shown. Every channel takes an eligibility mask (or
filter) and applies it inside its search, so its window holds only recallable documents.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Any, Callable, Collection, Sequence

import numpy as np

from .exact import ExactMatcher, quoted_phrases
from .index_cache import ObservationSide, PageSide, RecallCache
from ..language.text import normalize, tokenize

__all__ = ["Hits", "query_phrases", "document_hits", "raw_evidence", "exact_hits", "graph_expand",
           "dense_hits", "EXACT_BONUS"]

EXACT_BONUS = 1.0
#: Share of each neighbouring line's score a line receives: an answer often spans a question
#: and its reply, so a line is scored with the turns around it as context (while the result
#: stays the line). Chosen on the public dev sets (benchmarks/retrieval_real.py): on REALTALK,
#: RealMem and BEAM 0.5 lifted hit@10 by +.01 to +.11 over the line alone; 1.0 lost hit@1.
NEIGHBOUR_WEIGHT = 0.5
#: Factor on the score of a line that is not the user's words (assistant prose, tool output):
#: they are supplements, recalled where the user's own lines do not answer. Chosen on RealMem's
#: first three conversations (benchmarks/README.md, "Assistant turns"): at 1.0 questions whose
#: gold memory is the user's lost .14 hit@10 to the added assistant turns, at 0.7 .02, while
#: those whose gold memory is the assistant's kept +.05 over indexing user turns alone; 0.5
#: and 0.3 lost on both.
SUPPLEMENT_WEIGHT = 0.7


@dataclass
class Hits:
    """Ranked document ids of one channel; ``chunks`` names the chunk shown for evidence ids."""

    ids: list[str] = field(default_factory=list)
    chunks: dict[str, int] = field(default_factory=dict)
    scores: dict[str, float] = field(default_factory=dict)
    #: How well the best hit covers the query (IDF share matched), for channel weighting.
    quality: float = 1.0

    def add(self, doc_id: str, score: float = 0.0, chunk: int | None = None) -> bool:
        if doc_id in self.scores:
            return False
        self.ids.append(doc_id)
        self.scores[doc_id] = score
        if chunk is not None:
            self.chunks[doc_id] = chunk
        return True


def query_phrases(topic: str, query: str) -> list[str]:
    """Phrases whose verbatim presence earns the exact-substring bonus: the topic and quotes."""
    return [p for p in dict.fromkeys([normalize(topic), *map(normalize, quoted_phrases(query))]) if p]


def _ranked(index: Any, tokens: Sequence[str], phrases: Sequence[str], folded: Any, keys: Sequence[str],
            k: int, allowed: np.ndarray | None = None) -> list[tuple[int, float]]:
    """The best ``k`` documents by BM25 plus the exact bonus, best first (ties by key).

    A phrase held verbatim brings its tokens along, so besides the BM25 top ``k`` only
    documents holding every token of a phrase are considered, and only those whose BM25
    plus every bonus reaches the k-th BM25 score are read.
    """
    idx, scores = index.top(tokens, k, keys=keys, allowed=allowed)
    found = dict(zip(idx.tolist(), scores.tolist()))
    floor = scores[-1] if len(idx) >= k else -np.inf
    reach = EXACT_BONUS * len(phrases)
    extra: set[int] = set()
    for phrase in phrases:
        phrase_tokens = tokenize(phrase)
        if phrase_tokens:
            extra.update(index.containing(phrase_tokens, allowed=allowed).tolist())
    extra -= found.keys()
    if extra:
        docs = sorted(extra)
        for doc, score in zip(docs, index.score_documents(tokens, docs).tolist()):
            if score > 0 and score + reach >= floor:
                found[doc] = score
    ranked = []
    for i, score in found.items():
        text = folded(i)
        ranked.append((i, score + EXACT_BONUS * sum(1 for p in phrases if p in text)))
    ranked.sort(key=lambda pair: (-pair[1], keys[pair[0]]))
    return ranked[:k]


def document_hits(side: PageSide | ObservationSide, tokens: Sequence[str], phrases: Sequence[str], k: int,
                  allowed: np.ndarray | None = None) -> Hits:
    """Whole documents of one side of the cache — canonical pages (``cache.pages``) or
    observations (``cache.observations``) — by BM25 with IDF over that side, plus the
    exact-substring bonus, among the ``allowed`` ones."""
    hits = Hits()
    ranked = _ranked(side.index, tokens, phrases, side.folded.__getitem__, side.ids, k, allowed)
    for i, score in ranked:
        hits.add(side.ids[i], score)
    hits.quality = side.index.coverage(tokens, ranked[0][0]) if ranked else 0.0
    return hits


def raw_evidence(cache: RecallCache, tokens: Sequence[str], phrases: Sequence[str], k: int,
                 *, neighbour_weight: float | None = None, supplement_weight: float | None = None,
                 allowed: np.ndarray | None = None) -> Hits:
    """User L0 lines by their best chunk's BM25 (IDF over every chunk) plus the bonus, each
    line's score raised by ``neighbour_weight`` times its session neighbours' scores."""
    side = cache.evidence
    folded = cache.folded_chunk
    neighbour_weight = NEIGHBOUR_WEIGHT if neighbour_weight is None else neighbour_weight
    supplement_weight = SUPPLEMENT_WEIGHT if supplement_weight is None else supplement_weight
    fetch = k
    while True:
        ranked = _ranked(side.index, tokens, phrases, folded, side.chunk_ids, fetch, allowed)
        lines = {side.chunk_line[i] for i, _ in ranked}
        if len(lines) >= k or len(ranked) < fetch:
            break
        fetch *= 2  # long lines fill the head with their chunks: look further
    hits = Hits()
    hits.quality = side.index.coverage(tokens, ranked[0][0]) if ranked else 0.0
    best: dict[int, tuple[float, int]] = {}  # line -> (its best chunk's score, that chunk)
    for i, score in ranked:
        best.setdefault(side.chunk_line[i], (score, i))
    if neighbour_weight and best:
        scored = _with_neighbours(side, tokens, phrases, folded, best, neighbour_weight)
    else:
        scored = [(score, line, chunk) for line, (score, chunk) in best.items()]
    if supplement_weight != 1.0:
        roles = side.line_role
        scored = [(score * supplement_weight if roles[line] != "user" else score, line, chunk)
                  for score, line, chunk in scored]
    scored.sort(key=lambda item: (-item[0], side.chunk_ids[item[2]]))
    for score, line, chunk in scored[:k]:
        session_id, seq = side.line_keys[line]
        hits.add(f"session:{session_id}/event:{seq}", score, chunk)
    return hits


def _with_neighbours(side: Any, tokens: Sequence[str], phrases: Sequence[str], folded: Any,
                     best: dict[int, tuple[float, int]], weight: float) -> list[tuple[float, int, int]]:
    """``(score, line, chunk)`` of the matched lines, each score being the line's own plus
    ``weight`` times its session neighbours' own. Only a line that matches the query itself
    is a candidate: a neighbour lends context to the ranking, never a seat of its own."""
    prev, nxt = side.prev_line, side.next_line
    own = {line: score for line, (score, _) in best.items()}
    missing = sorted({n for line in best for n in (prev[line], nxt[line]) if n >= 0} - own.keys())
    if missing:
        chunks = [c for line in missing for c in side.line_chunks[line]]
        for chunk, score in zip(chunks, side.index.score_documents(tokens, chunks).tolist()):
            if score > 0:
                score += EXACT_BONUS * sum(1 for p in phrases if p in folded(chunk))
            line = side.chunk_line[chunk]
            own[line] = max(own.get(line, 0.0), score)
    out = []
    for line, (score, chunk) in best.items():
        before, after = prev[line], nxt[line]
        context = (own[before] if before >= 0 else 0.0) + (own[after] if after >= 0 else 0.0)
        out.append((score + weight * context, line, chunk))
    return out


def exact_hits(cache: RecallCache, terms: Sequence[str], k: int, *, pages: bool = True, evidence: bool = True,
               pages_allowed: np.ndarray | None = None, chunks_allowed: np.ndarray | None = None) -> Hits:
    """Pages and lines containing the query's literal terms, most distinct terms first.

    The token postings narrow the corpus to documents holding every token of a term; those
    are matched literally (case, boundaries and paths as :func:`exact_matches` rules), most
    promising first, until no document left could still enter the first ``k`` lines.
    """
    hits = Hits()
    unique = list(dict.fromkeys(t for t in terms if t))
    matcher = ExactMatcher(unique)
    if not matcher:
        return hits
    # candidate key -> [doc_id, text, chunk or None, most terms it could match]
    found: dict[tuple[str, int], list[Any]] = {}
    tokenless = 0
    for term in unique:
        tokens = tokenize(term)
        if not tokens:
            tokenless += 1  # matched only where another term found the document
            continue
        if pages:
            for i in cache.pages.index.containing(tokens, allowed=pages_allowed).tolist():
                entry = found.setdefault(("page", i), [cache.pages.ids[i], cache.pages.raw[i], None, 0])
                entry[3] += 1
        if evidence:
            side = cache.evidence
            for i in side.index.containing(tokens, allowed=chunks_allowed).tolist():
                entry = found.setdefault(("chunk", i), [side.chunk_ids[i], side.chunk_texts[i], i, 0])
                entry[3] += 1
    order = sorted(found.values(), key=lambda e: (-e[3], e[0]))
    matched: list[tuple[int, str, int | None]] = []  # (-count, doc_id, chunk), kept sorted
    for doc_id, text, chunk, bound in order:
        last = _kth_line(cache, matched, k)
        if last is not None and (-last[0] > bound + tokenless or (-last[0] == bound + tokenless and last[1] < doc_id)):
            break  # nothing from here on sorts before the k-th line
        count = matcher.count(text)
        if count:
            bisect.insort(matched, (-count, doc_id, chunk))
    for negative, doc_id, chunk in matched:
        if chunk is None:
            hits.add(doc_id, float(-negative))
        else:
            session_id, seq = cache.evidence.line_keys[cache.evidence.chunk_line[chunk]]
            hits.add(f"session:{session_id}/event:{seq}", float(-negative), chunk)
        if len(hits.ids) >= k:
            break
    return hits


def _kth_line(cache: RecallCache, matched: list[tuple[int, str, int | None]], k: int) -> tuple[int, str, int | None] | None:
    """The match that completes the first ``k`` distinct pages and lines (None before that)."""
    lines: set[Any] = set()
    for entry in matched:
        lines.add(entry[1] if entry[2] is None else cache.evidence.chunk_line[entry[2]])
        if len(lines) >= k:
            return entry
    return None


def graph_expand(graph: Any, roots: Sequence[str], k: int, *, hops: int = 2,
                 allow: Callable[[str], bool] | None = None) -> Hits:
    """Pages one, then two, wikilink hops from ``roots`` (links followed both ways).

    Order: by hop, then by the rank of the root reached from, then by page id. Links to
    missing pages are skipped; a page ``allow`` refuses is neither returned nor walked
    through; an entity page (``hub``) is walked through but never returned, the user's own
    page (``user``) neither. A malformed graph raises; recall records ``graph-degraded``.
    """
    hits = Hits()
    seen = set(roots)
    frontier = list(roots)
    for hop in range(1, hops + 1):
        following: list[str] = []
        for node in frontier:
            neighbours = sorted(set(graph.successors(node)) | set(graph.predecessors(node)))
            for other in neighbours:
                if other in seen:
                    continue
                seen.add(other)
                node = graph.nodes[other]
                if node.get("user"):
                    continue  # the user's own page links every first-person fact: never walked
                if node.get("hub"):
                    if node.get("status") == "confirmed":
                        following.append(other)  # an entity page joins the facts that name it; it is not a hit
                    continue
                if graph.nodes[other]["broken"] or (allow is not None and not allow(other)):
                    continue
                following.append(other)
                hits.add(other, float(-hop))
        frontier = following
    hits.ids = hits.ids[:k]
    return hits


def dense_hits(cache: RecallCache, index: Any, vector: Any, k: int, exclude: Collection[str] | None = None) -> Hits:
    """Nearest documents by cosine; evidence chunks fold into their line, stale ids drop out.

    ``exclude`` names stored documents (page, observation and chunk ids) the index must skip
    while it searches (an hnswlib filter, or a masked exact scan).
    """
    hits = Hits()
    side = cache.evidence
    found = index.search(vector, max(3 * k, k + 8), exclude=exclude) if exclude else index.search(vector, max(3 * k, k + 8))
    for doc_id, score in found:
        if doc_id in cache.pages.docs or doc_id in cache.observations.docs:
            hits.add(doc_id, score)
        else:
            chunk = side.chunk_of.get(doc_id)
            if chunk is None:
                continue
            session_id, seq = side.line_keys[side.chunk_line[chunk]]
            hits.add(f"session:{session_id}/event:{seq}", score, chunk)
        if len(hits.ids) >= k:
            break
    return hits
