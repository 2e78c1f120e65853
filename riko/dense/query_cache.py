"""A bounded, process-wide cache of query vectors of the embedded models.

Encoding the query is most of a recall with e5 on (about 36 of 42 ms on one core), and an
agent asks the same words often (a retry, a follow-up turn, the same cue in every scope). A
query vector depends only on the model and the exact text, never on the stored memories, so
no write, purge or rebuild invalidates an entry; the least recently used one leaves when the
cache is full. Remote (``openai-compatible``) providers are not cached: the model behind an
endpoint name is not provably the same from one request to the next.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

import numpy as np

from ..errors import InvalidArgumentError

__all__ = ["QueryVectorCache", "QUERY_VECTORS", "DEFAULT_QUERY_CACHE_SIZE"]

#: Entries kept per process: 1,024 e5 vectors are 1.5 MB.
DEFAULT_QUERY_CACHE_SIZE = 1024


class QueryVectorCache:
    """Least-recently-used query vectors keyed by ``(model, dimension, text)``; thread-safe.

    Cached vectors are returned read-only, so a caller cannot change what the next one gets.

    >>> cache = QueryVectorCache(2)
    >>> v = cache.get_or_embed(("m", 2, "hi"), lambda: np.ones(2, dtype=np.float32))
    >>> cache.get_or_embed(("m", 2, "hi"), lambda: np.zeros(2, dtype=np.float32)).tolist()
    [1.0, 1.0]
    >>> cache.hits, cache.misses
    (1, 1)
    """

    def __init__(self, maxsize: int = DEFAULT_QUERY_CACHE_SIZE) -> None:
        if isinstance(maxsize, bool) or not isinstance(maxsize, int) or maxsize < 0:
            raise InvalidArgumentError(f"query cache size must be an integer >= 0, got {maxsize!r}")
        self.maxsize = maxsize
        self._entries: OrderedDict[Hashable, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0  #: lookups answered from the cache
        self.misses = 0  #: lookups that had to encode

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def get_or_embed(self, key: Hashable, embed: Callable[[], np.ndarray]) -> np.ndarray:
        """The cached vector of ``key``, or ``embed()`` stored under it (a failure stores nothing).

        The encoder runs outside the lock: two threads asking a new query at once may both
        encode it, and neither waits for the other's model call.
        """
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
                self.hits += 1
                return found
            self.misses += 1
        vector = np.array(embed(), dtype=np.float32)  # a private copy the caller cannot alias
        vector.flags.writeable = False
        if self.maxsize:
            with self._lock:
                self._entries[key] = vector
                self._entries.move_to_end(key)
                while len(self._entries) > self.maxsize:
                    self._entries.popitem(last=False)
        return vector

    def clear(self) -> None:
        """Forget every entry and reset the counters."""
        with self._lock:
            self._entries.clear()
            self.hits = self.misses = 0


#: The cache the embedded providers share in this process.
QUERY_VECTORS = QueryVectorCache()
