"""Dense recall expansion: embedding providers and on-disk vector generations.

    >>> from riko.dense import DenseIndex, DenseDoc, make_embedding_provider
    >>> provider = make_embedding_provider("deterministic", dimension=64)
    >>> index = DenseIndex(tmp / "dense", provider)                      # doctest: +SKIP
    >>> index.build([DenseDoc("p1", "Alice drinks oolong", "page")], "rev-1")  # doctest: +SKIP
"""

from __future__ import annotations

from .http_provider import OpenAICompatibleProvider
from .index import DenseDoc, DenseIndex
from .providers import (
    DeterministicProvider,
    E5Provider,
    EmbeddingProvider,
    USEProvider,
    make_embedding_provider,
)
from .store import INVALIDATION_REASONS, KINDS, SCHEMA_VERSION

__all__ = [
    "EmbeddingProvider",
    "DeterministicProvider",
    "E5Provider",
    "USEProvider",
    "OpenAICompatibleProvider",
    "make_embedding_provider",
    "DenseDoc",
    "DenseIndex",
    "INVALIDATION_REASONS",
    "KINDS",
    "SCHEMA_VERSION",
]
