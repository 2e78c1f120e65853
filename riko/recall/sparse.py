"""An appendable, vectorised BM25 index: the scale path behind :class:`~riko.recall.lexical.BM25Index`.

Scores equal ``BM25Index`` (Okapi BM25, Lucene IDF over the unique query terms), but term
frequencies are kept raw and IDF and length normalisation are applied at query time. So new
evidence lines are indexed by tokenising only them, while every score still uses the
statistics of the whole corpus (bm25s precomputes per-document scores, so any append would
change them all and force a full rebuild). A term's posting weights, once computed, are kept
until the next append moves the statistics.

Top-k search is exact but does not score the whole corpus: the rarest terms seed at least k
candidates, whose k-th full score is a floor; common terms whose score bounds together stay
under it cannot lift a document that holds only them into the top k, so their long posting
lists are only probed at the candidates.

An ``allowed`` mask (one boolean per document) restricts a search to eligible documents
before any top-k is taken: their postings are filtered, while IDF and length statistics
stay those of the whole corpus, so an allowed document scores exactly as without the mask.
"""
from __future__ import annotations

import heapq
from array import array
from collections import Counter
from typing import Iterable, NamedTuple, Sequence

import numpy as np
from ..errors import InvalidArgumentError

__all__ = ["K1", "B", "SparseBM25"]

#: Okapi BM25's term-frequency saturation and length normalisation, riko's one default of each.
K1, B = 1.2, 0.75

# Above this share of the corpus, candidates are scored by one dense accumulation instead
# of probing every posting list for each of them.
_DENSE_SHARE = 0.125
# Unions of posting lists longer than this are taken through a mark per document (linear)
# rather than a sort or hash of their concatenation.
_MARK_ABOVE = 512
# Candidate sets larger than this are probed through a document -> position map (one
# gather per posting) rather than a binary search per posting.
_MAP_ABOVE = 256
# A term held by at least this share of the corpus keeps its weights also as one dense
# column (one float per document), so probing it at candidates is a gather, not a search;
# at most _COLUMN_BYTES of such columns are kept (the most recently used).
_COLUMN_SHARE = 0.0625
_COLUMN_BYTES = 16 << 20


class _Term(NamedTuple):
    term: int
    position: int  # order in the query: contributions are summed in this order
    docs: np.ndarray
    tfs: np.ndarray
    idf: float
    bound: float  # the most one occurrence can add
    kept: np.ndarray | None = None  # positions of ``docs`` in the full posting list (under a mask)


class SparseBM25:
    """Postings (doc index, term frequency) per token, appended to as documents arrive.

    Documents are identified by their position (0, 1, …) in the order they were added.

    >>> index = SparseBM25()
    >>> index.add([["green", "tea"], ["black", "coffee"]])
    >>> [int(i) for i in index.top(["tea"], 5)[0]]
    [0]
    """

    def __init__(self, *, k1: float = K1, b: float = B) -> None:
        if k1 < 0 or not 0.0 <= b <= 1.0:
            raise InvalidArgumentError(f"BM25 needs k1 >= 0 and 0 <= b <= 1, got k1={k1}, b={b}")
        self.k1 = k1
        self.b = b
        self._vocab: dict[str, int] = {}
        self._docs: list[array] = []
        self._tfs: list[array] = []
        # Per term: its largest frequency and its shortest document, which bound what any
        # one occurrence can score under the corpus statistics of the moment.
        self._max_tf: list[int] = []
        self._min_length: list[int] = []
        self._lengths = array("i")
        self._total_length = 0
        self._lengths_np: np.ndarray | None = None
        # Per term, the BM25 of each posting under the current corpus statistics: filled as
        # terms are scored in full, emptied when documents are added (the statistics move).
        self._posting_weights: dict[int, np.ndarray] = {}
        # Scratch of one entry per document, -1 everywhere between uses (see _positions).
        self._scratch: np.ndarray = np.zeros(0, dtype=np.int32)
        self._columns: dict[int, np.ndarray] = {}  # term -> weight per document (0.0 where absent)

    def __len__(self) -> int:
        return len(self._lengths)

    @property
    def vocabulary_size(self) -> int:
        return len(self._vocab)

    def add(self, token_lists: Iterable[Sequence[str]]) -> None:
        """Append documents, each given as its token list (duplicates count as frequency)."""
        vocab, docs, tfs, max_tf, min_length = self._vocab, self._docs, self._tfs, self._max_tf, self._min_length
        doc = len(self._lengths)
        for tokens in token_lists:
            length = len(tokens)
            for token, count in Counter(tokens).items():
                term = vocab.get(token)
                if term is None:
                    term = vocab[token] = len(docs)
                    docs.append(array("i"))
                    tfs.append(array("f"))
                    max_tf.append(count)
                    min_length.append(length)
                else:
                    if count > max_tf[term]:
                        max_tf[term] = count
                    if length < min_length[term]:
                        min_length[term] = length
                docs[term].append(doc)
                tfs[term].append(count)
            self._lengths.append(length)
            self._total_length += length
            doc += 1
        self._lengths_np = None
        self._posting_weights.clear()
        self._columns.clear()

    def postings(self, token: str) -> np.ndarray:
        """Indices of the documents containing ``token`` (ascending; empty when unseen)."""
        term = self._vocab.get(token)
        if term is None:
            return np.zeros(0, dtype=np.int32)
        return np.array(self._docs[term], dtype=np.int32)

    def containing(self, tokens: Sequence[str], *, allowed: np.ndarray | None = None) -> np.ndarray:
        """Indices of the documents holding every one of ``tokens`` (ascending; only
        ``allowed`` ones when a mask is given).

        Intersected rarest first, each step probing the next posting list only at the
        documents still in the running.
        """
        found_terms = [self._vocab.get(t) for t in dict.fromkeys(tokens)]
        terms = [t for t in found_terms if t is not None]
        if not terms or len(terms) < len(found_terms):
            return np.zeros(0, dtype=np.int32)
        lists = sorted((self._docs[t] for t in terms), key=len)
        found = np.array(lists[0], dtype=np.int32)
        for other in lists[1:]:
            if not len(found):
                break
            docs = np.frombuffer(other, dtype=np.int32)
            at = np.minimum(np.searchsorted(docs, found), len(docs) - 1)
            found = found[docs[at] == found]
        if allowed is not None and len(found):
            found = found[allowed[found]]
        return found

    def score_documents(self, tokens: Sequence[str], docs: Sequence[int] | np.ndarray) -> np.ndarray:
        """Exact BM25 of the given distinct documents (any order) for the unique ``tokens``."""
        docs = np.asarray(docs, dtype=np.int64)
        terms = self._terms(tokens)
        if not terms or not len(docs):
            return np.zeros(len(docs))
        order = np.argsort(docs, kind="stable")
        scores = np.empty(len(docs))
        scores[order] = self._score_candidates(terms, docs[order])
        return scores

    def document_frequency(self, token: str) -> int:
        term = self._vocab.get(token)
        return 0 if term is None else len(self._docs[term])

    def _idf(self, df: int) -> float:
        n = len(self._lengths)
        return float(np.log1p((n - df + 0.5) / (df + 0.5)))

    def coverage(self, tokens: Sequence[str], doc: int) -> float:
        """Share of the query's IDF mass that document ``doc`` matches (0..1).

        A token the corpus has never seen counts with the largest possible IDF: no document
        can match it, which is exactly what a paraphrased query looks like to a lexical index.
        """
        total = matched = 0.0
        for token in dict.fromkeys(tokens):
            term = self._vocab.get(token)
            df = 0 if term is None else len(self._docs[term])
            idf = self._idf(df)
            total += idf
            if term is not None:
                docs = np.frombuffer(self._docs[term], dtype=np.int32)
                at = int(np.searchsorted(docs, doc))
                if at < len(docs) and docs[at] == doc:
                    matched += idf
        return matched / total if total else 0.0

    # -- scoring ----------------------------------------------------------------------------
    def _doc_lengths(self) -> np.ndarray:
        if self._lengths_np is None:
            self._lengths_np = np.array(self._lengths, dtype=np.float64)
        return self._lengths_np

    def _terms(self, tokens: Sequence[str], allowed: np.ndarray | None = None) -> list[_Term]:
        """The query's known unique terms, in query order (views of their postings: the
        caller must not add documents while it holds them). Under ``allowed`` each posting
        list keeps only allowed documents; IDF and bounds stay the whole corpus's."""
        terms = []
        for token in dict.fromkeys(tokens):
            term = self._vocab.get(token)
            if term is None:
                continue
            docs = np.frombuffer(self._docs[term], dtype=np.int32)
            tfs = np.frombuffer(self._tfs[term], dtype=np.float32)
            idf = self._idf(len(docs))
            tf, norm = self._max_tf[term], self._norm(self._min_length[term])
            bound = idf * tf * (self.k1 + 1.0) / (tf + self.k1 * norm)
            kept = None
            if allowed is not None:
                kept = np.flatnonzero(allowed[docs])
                if len(kept) == len(docs):
                    kept = None
                else:
                    docs, tfs = docs[kept], tfs[kept]
                    if not len(docs):
                        continue
            terms.append(_Term(term, len(terms), docs, tfs, idf, bound, kept))
        return terms

    def _norm(self, length: float) -> float:
        avgdl = self._total_length / len(self._lengths)
        return 1.0 - self.b + self.b * (length / avgdl if avgdl else 0.0)

    def _weights(self, term: _Term, tf: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """BM25 of ``term`` for occurrences with frequencies ``tf`` in documents of ``lengths``.

        Written in the reference scorer's operation order so equal inputs give equal bits.
        """
        tf = tf.astype(np.float64)
        avgdl = self._total_length / len(self._lengths)
        norm = 1.0 - self.b + self.b * (lengths / avgdl if avgdl else 0.0)
        return term.idf * tf * (self.k1 + 1.0) / (tf + self.k1 * norm)

    def _all_weights(self, term: _Term) -> np.ndarray:
        """The BM25 of every posting of ``term`` (kept until documents are added)."""
        weights = self._full_weights(term) if term.kept is not None else self._posting_weights.get(term.term)
        if weights is None:
            weights = self._posting_weights[term.term] = self._weights(term, term.tfs, self._doc_lengths()[term.docs])
        return weights if term.kept is None else weights[term.kept]

    def _full_weights(self, term: _Term) -> np.ndarray:
        """The BM25 of every posting of ``term`` over its unfiltered list (kept as above)."""
        weights = self._posting_weights.get(term.term)
        if weights is None:
            docs = np.frombuffer(self._docs[term.term], dtype=np.int32)
            tfs = np.frombuffer(self._tfs[term.term], dtype=np.float32)
            weights = self._posting_weights[term.term] = self._weights(term, tfs, self._doc_lengths()[docs])
        return weights

    def _dense(self, terms: list[_Term]) -> np.ndarray:
        """Scores of every document (one accumulation in query-term order)."""
        docs = np.concatenate([t.docs for t in terms])
        weights = np.concatenate([self._all_weights(t) for t in terms])
        return np.bincount(docs, weights=weights, minlength=len(self._lengths))

    def _union(self, lists: Sequence[np.ndarray]) -> np.ndarray:
        """The ascending distinct documents of ``lists`` (posting lists of this index)."""
        joined = lists[0] if len(lists) == 1 else np.concatenate(lists)
        if len(joined) <= _MARK_ABOVE:
            return np.unique(joined)
        marks = np.zeros(len(self._lengths), dtype=np.bool_)
        for docs in lists:
            marks[docs] = True
        return np.flatnonzero(marks).astype(np.int32)

    def _positions(self) -> np.ndarray:
        """The per-document scratch map (-1 for every document), grown to the corpus. Its
        users restore it before they return; callers hold the recall cache lock, as for any
        read of the postings."""
        if len(self._scratch) < len(self._lengths):
            self._scratch = np.full(len(self._lengths), -1, dtype=np.int32)
        return self._scratch

    def _score_candidates(self, terms: list[_Term], candidates: np.ndarray) -> np.ndarray:
        """Exact scores of the ascending ``candidates``: every term probed only at them."""
        scores = np.zeros(len(candidates))
        last = len(candidates) - 1
        positions = None
        try:
            for term in terms:  # query order, as the reference sums
                if len(term.docs) <= len(candidates):
                    if len(candidates) > _MAP_ABOVE:
                        if positions is None:
                            positions = self._positions()
                            positions[candidates] = np.arange(len(candidates), dtype=np.int32)
                        found = positions[term.docs]
                        hit = found >= 0
                        scores[found[hit]] += self._all_weights(term)[hit]
                        continue
                    at = np.minimum(np.searchsorted(candidates, term.docs), last)
                    hit = candidates[at] == term.docs
                    scores[at[hit]] += self._all_weights(term)[hit]
                    continue
                self._probe(term, candidates, scores)
        finally:
            if positions is not None:
                positions[candidates] = -1
        return scores

    def _column(self, term: _Term) -> np.ndarray | None:
        """``term``'s weight for every document when it is common enough to keep one."""
        n = len(self._lengths)
        if term.kept is not None or len(term.docs) < _COLUMN_SHARE * n or 8 * n > _COLUMN_BYTES:
            return None  # under a mask the filtered list is probed as it is
        column = self._columns.pop(term.term, None)
        if column is None:
            column = np.zeros(n)
            column[term.docs] = self._all_weights(term)
            while self._columns and 8 * n * (len(self._columns) + 1) > _COLUMN_BYTES:
                del self._columns[next(iter(self._columns))]  # the least recently used
        self._columns[term.term] = column
        return column

    def _probe(self, term: _Term, candidates: np.ndarray, scores: np.ndarray) -> None:
        """Add ``term``'s weights at the ``candidates`` it holds, searching its longer list."""
        column = self._column(term)
        if column is not None:
            scores += column[candidates]  # adding 0.0 where the term is absent changes no bit
            return
        at = np.minimum(np.searchsorted(term.docs, candidates), len(term.docs) - 1)
        hit = term.docs[at] == candidates
        rows, postings = np.flatnonzero(hit), at[hit]
        known = self._posting_weights.get(term.term)
        if known is not None and term.kept is not None:
            known = known[term.kept]
        if known is not None:
            scores[rows] += known[postings]
        else:  # a long list probed at a few documents: weigh only those
            scores[rows] += self._weights(term, term.tfs[postings], self._doc_lengths()[candidates[rows]])

    def scores(self, tokens: Sequence[str]) -> np.ndarray:
        """BM25 of every document for the unique ``tokens`` (0.0 where none matches)."""
        terms = self._terms(tokens)
        if not terms or not len(self._lengths):
            return np.zeros(len(self._lengths), dtype=np.float64)
        return self._dense(terms)

    def _candidates(self, terms: list[_Term], k: int) -> tuple[np.ndarray, np.ndarray]:
        """Documents (in no particular order) that include the exact top ``k``, with their exact scores.

        The rarest terms seed at least ``k`` documents, scored in full: their k-th score is
        a floor the final k-th cannot fall below. Terms whose bounds together stay under that
        floor cannot lift a document holding only them into the top ``k``; the documents of
        every other term join the seed, and that set is scored.
        """
        dense_above = _DENSE_SHARE * len(self._lengths)
        rarest = sorted(terms, key=lambda t: (len(t.docs), t.position))
        taken, size = 0, 0
        while taken < len(rarest) and size < k:
            size += len(rarest[taken].docs)
            taken += 1
        while True:
            if size > dense_above:
                return self._dense_matches(terms)
            seed = self._union([t.docs for t in rarest[:taken]])
            if len(seed) >= k or taken == len(rarest):
                break
            size += len(rarest[taken].docs)  # postings overlap: take one more term
            taken += 1
        scores = self._score_candidates(terms, seed)
        if taken == len(rarest):
            return seed, scores
        floor = float(np.partition(scores, len(scores) - k)[len(scores) - k])
        outside = 0.0  # the most the terms left out could give a document holding only them
        left_out: set[int] = set()
        for term in sorted(terms, key=lambda t: (t.bound, -len(t.docs))):
            if (outside + term.bound) * (1 + 1e-9) >= floor:
                break
            outside += term.bound
            left_out.add(term.position)
        extra = [t for t in rarest[taken:] if t.position not in left_out]
        if not extra:
            return seed, scores
        if size + sum(len(t.docs) for t in extra) > dense_above:
            return self._dense_matches(terms)
        joining = self._union([t.docs for t in extra])
        at = np.minimum(np.searchsorted(seed, joining), len(seed) - 1)
        joining = joining[seed[at] != joining]  # only documents the seed did not hold
        if not len(joining):
            return seed, scores
        return np.concatenate([seed, joining]), np.concatenate([scores, self._score_candidates(terms, joining)])

    def _dense_matches(self, terms: list[_Term]) -> tuple[np.ndarray, np.ndarray]:
        scores = self._dense(terms)
        found = np.flatnonzero(scores > 0)
        return found, scores[found]

    def top(self, tokens: Sequence[str], k: int, *, keys: Sequence[str] | None = None,
            allowed: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(doc indices, scores)`` of the best ``k`` matching documents, best first.

        Equal scores are ordered by ``keys[index]`` when given, else by index. With
        ``allowed`` only documents whose mask entry is True compete (the window is taken
        after the filter, never before).
        """
        terms = self._terms(tokens, allowed)
        if k <= 0 or not terms:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        matched, scores = self._candidates(terms, k)
        if len(matched) > k:
            # Everything above the k-th best score, and of the documents tied with it only
            # those first by key: the cut is ordered as a full sort would order it.
            kth = np.partition(scores, len(scores) - k)[len(scores) - k]
            above, tied = matched[scores > kth], matched[scores == kth].tolist()
            need = k - len(above)
            if len(tied) > need:
                tied = heapq.nsmallest(need, tied, key=None if keys is None else keys.__getitem__)
            keep = np.concatenate([above, np.asarray(tied, dtype=matched.dtype)])
            scores = np.concatenate([scores[scores > kth], np.full(len(tied), kth)])
            matched = keep
        pairs = sorted(zip(scores.tolist(), matched.tolist()),
                       key=lambda p: (-p[0], p[1] if keys is None else keys[p[1]]))[:k]
        return (np.fromiter((i for _, i in pairs), dtype=np.int64, count=len(pairs)),
                np.fromiter((score for score, _ in pairs), dtype=np.float64, count=len(pairs)))
