"""BM25 over a recall candidate corpus, with an exact-substring bonus.

IDF comes from the corpus being ranked, so a token every document shares (a fixed adapter
prefix, generic chatter) cannot outrank a rare, discriminative one. The scoring is
:class:`~riko.recall.sparse.SparseBM25`'s, the one BM25 riko has; this class adds the
tokeniser, document ids and the exact-phrase bonus a small candidate pool wants.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from .exact import quoted_phrases
from .sparse import B, K1, SparseBM25
from ..language.text import normalize, stem, tokenize

__all__ = ["BM25Index", "bm25_idf"]


def bm25_idf(n_docs: int, doc_freq: int) -> float:
    """Lucene's non-negative BM25 IDF: ``ln(1 + (N - df + 0.5) / (df + 0.5))``."""
    return math.log(1.0 + (n_docs - doc_freq + 0.5) / (doc_freq + 0.5))


class BM25Index:
    """An in-memory BM25 index over ``(doc_id, text)`` pairs, tokenised with :func:`tokenize`.

    Scores are Okapi BM25 with Lucene IDF over the unique query terms (``k1`` and ``b`` as
    :class:`SparseBM25` takes them), plus ``exact_bonus`` for each phrase (the whole normalised
    query, and every quoted phrase in it) that occurs verbatim in the normalised document. A
    document that matches no query term is never returned, bonus or not.

    >>> index = BM25Index([("a", "用户喜欢深色模式"), ("b", "the weather was fine")])
    >>> [doc_id for doc_id, _ in index.search("深色模式")]
    ['a']
    """

    def __init__(self, docs: Sequence[tuple[str, str]], *, k1: float = K1, b: float = B,
                 exact_bonus: float = 1.0) -> None:
        self._index = SparseBM25(k1=k1, b=b)  # checks k1 and b
        self.k1, self.b, self.exact_bonus = k1, b, exact_bonus
        self._ids = [doc_id for doc_id, _ in docs]
        self._texts = [normalize(text) for _, text in docs]
        self._index.add(tokenize(text) for _, text in docs)

    def __len__(self) -> int:
        return len(self._ids)

    def idf(self, term: str) -> float:
        """IDF of one term in this corpus (a word is stemmed as the index was); 0.0 when unseen."""
        for token in (term, stem(term)):
            df = self._index.document_frequency(token)
            if df:
                return bm25_idf(len(self._ids), df)
        return 0.0

    def search(self, query: str, k: int = 20) -> list[tuple[str, float]]:
        """The top ``k`` ``(doc_id, score)`` pairs, best first; equal scores by doc_id."""
        terms = list(dict.fromkeys(tokenize(query)))
        if not terms or k <= 0 or not self._ids:
            return []
        scores = self._index.scores(terms)
        phrases = [p for p in dict.fromkeys([normalize(query), *map(normalize, quoted_phrases(query))]) if p]
        scored = [(self._ids[i], float(scores[i]) + self.exact_bonus * sum(1 for p in phrases if p in self._texts[i]))
                  for i in np.flatnonzero(scores > 0.0)]
        scored.sort(key=lambda pair: (-pair[1], pair[0]))
        return scored[:k]
