"""The provider answer cache: one row per request hash in the warehouse's ``provider_cache``.

A request hash covers the provider name, the model and the exact prompt, so the same request
always replays the same answer: a re-run Dream costs nothing and proposes the same pages.
Only answers a provider returned successfully are stored; a failure is always retried.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ..clock import Clock
from ..scope import MemoryScope
from ..stores.provider_cache import ProviderCacheStore
from ..stores.warehouse import naive_utc
from .heuristic import HeuristicProvider
from .prompt import build_reflection_prompt, prompt_key
from .providers import ProviderChain
from .reflection import ReflectionRequest
from .transcript import Transcript

__all__ = ["AnswerCache", "extraction_key", "reflection_key", "calls_out"]



def extraction_key(provider: Any, transcript: Transcript, existing_titles: Sequence[str] = (),
                   existing_pages: Sequence[Any] = ()) -> str:
    """The cache key of an extraction request: the provider's own ``request_key`` (with the
    existing pages its prompt shows, when it reads them)."""
    if existing_pages and getattr(provider, "reads_existing_pages", False):
        return str(provider.request_key(transcript, existing_titles, existing_pages))
    return str(provider.request_key(transcript, existing_titles))


def reflection_key(provider: Any, request: ReflectionRequest) -> str:
    """The cache key of a reflection request (the provider's ``reflection_key`` when it has one)."""
    own = getattr(provider, "reflection_key", None)
    if callable(own):
        return str(own(request))
    return prompt_key(str(provider.name), str(provider.model), build_reflection_prompt(request))


def calls_out(provider: Any) -> bool:
    """True when ``provider`` answers over the network (and so is worth caching).

    The offline heuristic computes its answer faster than a cache lookup, so it is neither
    cached nor refused by ``replay_only``; a chain calls out when any member does.
    """
    if isinstance(provider, ProviderChain):
        return any(calls_out(p) for p in provider.providers)
    return not isinstance(provider, HeuristicProvider)


class AnswerCache:
    """Read and write cached provider answers of one scope.

    ``read=False`` bypasses lookups (answers are still stored, so a later run can replay them).
    Writes join the caller's open transaction, so an answer is stored together with the
    candidates it produced.
    """

    def __init__(self, store: ProviderCacheStore, scope: MemoryScope, clock: Clock, *, read: bool = True) -> None:
        self.store = store  # the scope's ``provider_cache`` store (``ctx.stores.provider_cache``)
        self.scope = scope
        self.clock = clock
        self.read = read

    def get(self, key: str) -> str | None:
        """The cached answer for ``key``, or None (always None when reading is off)."""
        return self.get_many([key]).get(key)

    def get_many(self, keys: Iterable[str]) -> dict[str, str]:
        """Cached answers for those of ``keys`` that have one."""
        if not self.read:
            return {}
        return self.store.responses(sorted(set(keys)))

    def put(self, key: str, provider: str, model: str, response: str) -> None:
        """Store (or replace) the answer for ``key``."""
        self.store.upsert({"request_hash": key, "provider": provider, "model": model, "response": response,
                           "created_at": naive_utc(self.clock.now())})

    def count(self) -> int:
        """Number of cached answers in this scope."""
        return self.store.count()
