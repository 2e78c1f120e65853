"""An appendable, vectorised BM25 index: the scale path behind :class:`~riko.recall.lexical.BM25Index`.

Scores equal ``BM25Index`` (Okapi BM25, Lucene IDF over the unique query terms), but term
frequencies are kept raw and IDF and length normalisation are applied at query time. So new
evidence lines are indexed by tokenising only them, while every score still uses the
statistics of the whole corpus (bm25s precomputes per-document scores, so any append would
change them all and force a full rebuild).
"""

from __future__ import annotations

from array import array
from collections import Counter
from typing import Iterable, Sequence

import numpy as np

__all__ = ["SparseBM25"]


class SparseBM25:
    """Postings (doc index, term frequency) per token, appended to as documents arrive.

    Documents are identified by their position (0, 1, …) in the order they were added.

    >>> index = SparseBM25()
    >>> index.add([["green", "tea"], ["black", "coffee"]])
    >>> [int(i) for i in index.top(["tea"], 5)[0]]
    [0]
    """

    def __init__(self, *, k1: float = 1.2, b: float = 0.75) -> None:
        if k1 < 0 or not 0.0 <= b <= 1.0:
            raise ValueError(f"BM25 needs k1 >= 0 and 0 <= b <= 1, got k1={k1}, b={b}")
        self.k1 = k1
        self.b = b
        self._vocab: dict[str, int] = {}
        self._docs: list[array] = []
        self._tfs: list[array] = []
        self._lengths = array("i")
        self._total_length = 0
        self._lengths_np: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self._lengths)

    @property
    def vocabulary_size(self) -> int:
        return len(self._vocab)

    def add(self, token_lists: Iterable[Sequence[str]]) -> None:
        """Append documents, each given as its token list (duplicates count as frequency)."""
        vocab, docs, tfs = self._vocab, self._docs, self._tfs
        doc = len(self._lengths)
        for tokens in token_lists:
            for token, count in Counter(tokens).items():
                term = vocab.get(token)
                if term is None:
                    term = vocab[token] = len(docs)
                    docs.append(array("i"))
                    tfs.append(array("f"))
                docs[term].append(doc)
                tfs[term].append(count)
            self._lengths.append(len(tokens))
            self._total_length += len(tokens)
            doc += 1
        self._lengths_np = None

    def postings(self, token: str) -> np.ndarray:
        """Indices of the documents containing ``token`` (ascending; empty when unseen)."""
        term = self._vocab.get(token)
        if term is None:
            return np.zeros(0, dtype=np.int32)
        return np.frombuffer(self._docs[term], dtype=np.int32)

    def document_frequency(self, token: str) -> int:
        term = self._vocab.get(token)
        return 0 if term is None else len(self._docs[term])

    def coverage(self, tokens: Sequence[str], doc: int) -> float:
        """Share of the query's IDF mass that document ``doc`` matches (0..1).

        A token the corpus has never seen counts with the largest possible IDF: no document
        can match it, which is exactly what a paraphrased query looks like to a lexical index.
        """
        n = len(self._lengths)
        total = matched = 0.0
        for token in dict.fromkeys(tokens):
            term = self._vocab.get(token)
            df = 0 if term is None else len(self._docs[term])
            idf = float(np.log1p((n - df + 0.5) / (df + 0.5)))
            total += idf
            if term is not None:
                docs = np.frombuffer(self._docs[term], dtype=np.int32)
                at = int(np.searchsorted(docs, doc))
                if at < len(docs) and docs[at] == doc:
                    matched += idf
        return matched / total if total else 0.0

    def scores(self, tokens: Sequence[str]) -> np.ndarray:
        """BM25 of every document for the unique ``tokens`` (0.0 where none matches)."""
        n = len(self._lengths)
        out = np.zeros(n, dtype=np.float64)
        if not n:
            return out
        if self._lengths_np is None:
            self._lengths_np = np.frombuffer(self._lengths, dtype=np.int32).astype(np.float64)
        avgdl = self._total_length / n
        k1, b = self.k1, self.b
        for token in dict.fromkeys(tokens):
            term = self._vocab.get(token)
            if term is None:
                continue
            docs = np.frombuffer(self._docs[term], dtype=np.int32)
            tf = np.frombuffer(self._tfs[term], dtype=np.float32).astype(np.float64)
            df = len(docs)
            idf = np.log1p((n - df + 0.5) / (df + 0.5))
            norm = 1.0 - b + b * (self._lengths_np[docs] / avgdl if avgdl else 0.0)
            out[docs] += idf * tf * (k1 + 1.0) / (tf + k1 * norm)
        return out

    def top(self, tokens: Sequence[str], k: int, *, keys: Sequence[str] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(doc indices, scores)`` of the best ``k`` matching documents, best first.

        Equal scores are ordered by ``keys[index]`` when given, else by index.
        """
        scores = self.scores(tokens)
        matched = np.flatnonzero(scores > 0)
        if k <= 0 or not len(matched):
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        if len(matched) > k:
            # Everything scoring at least the k-th best, so ties at the cut are ordered fully.
            kth = np.partition(scores[matched], len(matched) - k)[len(matched) - k]
            matched = matched[scores[matched] >= kth]
        order = sorted(matched.tolist(), key=lambda i: (-scores[i], keys[i] if keys is not None else i))[:k]
        idx = np.asarray(order, dtype=np.int64)
        return idx, scores[idx]
