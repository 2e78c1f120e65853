"""BM25 over a recall candidate corpus, with an exact-substring bonus.

IDF comes from the corpus being ranked, so a token every document shares (a fixed adapter
prefix, generic chatter) cannot outrank a rare, discriminative one.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Sequence

from .exact import quoted_phrases
from ..language.text import normalize, stem, tokenize
from ..errors import InvalidArgumentError

__all__ = ["BM25Index", "bm25_idf"]


def bm25_idf(n_docs: int, doc_freq: int) -> float:
    """Lucene's non-negative BM25 IDF: ``ln(1 + (N - df + 0.5) / (df + 0.5))``."""
    return math.log(1.0 + (n_docs - doc_freq + 0.5) / (doc_freq + 0.5))


class BM25Index:
    """An in-memory BM25 index over ``(doc_id, text)`` pairs, tokenised with :func:`tokenize`.

    Scores are Okapi BM25 with Lucene IDF over the unique query terms, plus ``exact_bonus``
    for each phrase (the whole normalised query, and every quoted phrase in it) that occurs
    verbatim in the normalised document. A document that matches no query term is never
    returned, bonus or not.

    >>> index = BM25Index([("a", "用户喜欢深色模式"), ("b", "the weather was fine")])
    >>> [doc_id for doc_id, _ in index.search("深色模式")]
    ['a']
    """

    def __init__(
        self,
        docs: Sequence[tuple[str, str]],
        *,
        k1: float = 1.2,
        b: float = 0.75,
        exact_bonus: float = 1.0,
    ) -> None:
        if k1 < 0 or not 0.0 <= b <= 1.0:
            raise InvalidArgumentError(f"BM25 needs k1 >= 0 and 0 <= b <= 1, got k1={k1}, b={b}")
        self.k1 = k1
        self.b = b
        self.exact_bonus = exact_bonus
        self._ids: list[str] = []
        self._texts: list[str] = []
        self._tfs: list[Counter[str]] = []
        self._lengths: list[int] = []
        df: Counter[str] = Counter()
        for doc_id, text in docs:
            tokens = tokenize(text)
            tf = Counter(tokens)
            self._ids.append(doc_id)
            self._texts.append(normalize(text))
            self._tfs.append(tf)
            self._lengths.append(len(tokens))
            df.update(tf.keys())
        self._df = df
        n = len(self._ids)
        self._avgdl = (sum(self._lengths) / n) if n else 0.0
        self._idf = {term: bm25_idf(n, count) for term, count in df.items()}

    def __len__(self) -> int:
        return len(self._ids)

    def idf(self, term: str) -> float:
        """IDF of one term in this corpus (a word is stemmed as the index was); 0.0 when unseen."""
        return self._idf.get(term, self._idf.get(stem(term), 0.0))

    def _term_score(self, tf: int, length: int, idf: float) -> float:
        norm = 1.0 - self.b + self.b * (length / self._avgdl if self._avgdl else 0.0)
        return idf * tf * (self.k1 + 1.0) / (tf + self.k1 * norm)

    def search(self, query: str, k: int = 20) -> list[tuple[str, float]]:
        """The top ``k`` ``(doc_id, score)`` pairs, best first; equal scores by doc_id."""
        terms = list(dict.fromkeys(tokenize(query)))
        if not terms or k <= 0:
            return []
        phrases = [p for p in dict.fromkeys([normalize(query), *map(normalize, quoted_phrases(query))]) if p]
        scored: list[tuple[str, float]] = []
        for doc_id, text, tf, length in zip(self._ids, self._texts, self._tfs, self._lengths):
            matched = [t for t in terms if tf.get(t)]
            if not matched:
                continue
            score = sum(self._term_score(tf[t], length, self._idf[t]) for t in matched)
            score += self.exact_bonus * sum(1 for p in phrases if p in text)
            scored.append((doc_id, score))
        scored.sort(key=lambda pair: (-pair[1], pair[0]))
        return scored[:k]
