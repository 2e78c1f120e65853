"""The ``openai-compatible`` embedding provider: POST {"model", "input"} to a configured endpoint.

Failures surface as ProviderError with a sanitized reason only (``aborted``,
``credential-unavailable``, ``invalid-config``, ``invalid-response``, ``network-error``,
``timeout``, ``http-<status>``); the credential value never reaches an error, a log or a repr.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Mapping, Sequence
from typing import Any

import httpx
import numpy as np

from ..endpoints import EndpointError, check_endpoint, public_endpoint
from ..errors import InvalidTypeError, ProviderError
from .space import MAX_DIMENSION, MIN_DIMENSION, normalize_rows

__all__ = ["OpenAICompatibleProvider", "DEFAULT_TIMEOUT_MS", "MAX_TIMEOUT_MS", "REASONS"]

DEFAULT_TIMEOUT_MS = 10_000
MAX_TIMEOUT_MS = 120_000
REASONS = (
    "aborted",
    "credential-unavailable",
    "invalid-config",
    "invalid-response",
    "network-error",
    "timeout",
    "http-<status>",
)




def _validate_endpoint(endpoint: str) -> str:
    """The endpoint rule of :mod:`riko.endpoints`, as a provider configuration error."""
    if not isinstance(endpoint, str) or not endpoint.strip():
        raise ProviderError("invalid-config", "endpoint is empty; set an absolute https:// URL")
    try:
        return check_endpoint(endpoint)
    except EndpointError as exc:
        raise ProviderError("invalid-config", f"endpoint {exc.reason}") from None


def _public_endpoint(url: str) -> str:
    """The endpoint without query or fragment, safe to show in messages."""
    return public_endpoint(url)


class OpenAICompatibleProvider:
    """Embeddings from an OpenAI-compatible ``/v1/embeddings`` endpoint.

    The bearer credential is read from the environment variable named ``credential_ref`` on
    every request, so a rotated key is picked up without a restart.

    >>> p = OpenAICompatibleProvider("https://api.example/v1/embeddings", "m", "EMB_KEY", 8)
    >>> p.model, p.dimension
    ('m', 8)
    """

    def __init__(
        self,
        endpoint: str,
        model: str,
        credential_ref: str,
        dimension: int,
        timeout_ms: int = DEFAULT_TIMEOUT_MS,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.endpoint = _validate_endpoint(endpoint)
        if not isinstance(model, str) or not model.strip():
            raise ProviderError("invalid-config", "model is empty; set the embedding model name")
        if not isinstance(credential_ref, str) or not credential_ref.strip():
            raise ProviderError(
                "invalid-config", "credential_ref is empty; name the environment variable holding the key"
            )
        if isinstance(dimension, bool) or not isinstance(dimension, int) or not (
            MIN_DIMENSION <= dimension <= MAX_DIMENSION
        ):
            raise ProviderError(
                "invalid-config", f"dimension must be an integer in {MIN_DIMENSION}..{MAX_DIMENSION}"
            )
        if isinstance(timeout_ms, bool) or not isinstance(timeout_ms, (int, float)) or not (
            math.isfinite(timeout_ms) and timeout_ms > 0
        ):
            raise ProviderError("invalid-config", "timeout_ms must be a positive number of milliseconds")
        self.model = model.strip()
        self.credential_ref = credential_ref.strip()
        self.dimension = dimension
        self.timeout_ms = int(min(timeout_ms, MAX_TIMEOUT_MS))
        self._environ = environ
        self._aborted = threading.Event()
        self._client = httpx.Client(timeout=self.timeout_ms / 1000.0, follow_redirects=False)

    def __repr__(self) -> str:
        return (
            f"OpenAICompatibleProvider(endpoint={_public_endpoint(self.endpoint)!r}, "
            f"model={self.model!r}, credential_ref={self.credential_ref!r}, "
            f"dimension={self.dimension}, timeout_ms={self.timeout_ms})"
        )

    def abort(self) -> None:
        """Refuse further requests (and the pending retry) with reason ``aborted``."""
        self._aborted.set()

    def close(self) -> None:
        """Release the HTTP connection pool."""
        self._client.close()

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise InvalidTypeError("embed_passages takes a sequence of strings, not one string")
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return self._embed(list(texts))

    def embed_query(self, text: str) -> np.ndarray:
        return self._embed([text])[0]

    def _credential(self) -> str:
        env = self._environ if self._environ is not None else os.environ
        value = env.get(self.credential_ref, "")
        if not value or not value.strip():
            raise ProviderError(
                "credential-unavailable",
                f"environment variable {self.credential_ref} is not set or empty",
            )
        return value.strip()

    def _embed(self, texts: list[str]) -> np.ndarray:
        body = {"model": self.model, "input": texts}
        status, response = self._post(body)
        if status == 429 or 500 <= status <= 599:
            # One retry for throttling and server faults; every other failure is final.
            status, response = self._post(body)
        if not 200 <= status <= 299:
            raise ProviderError(f"http-{status}", f"{_public_endpoint(self.endpoint)} answered HTTP {status}")
        return self._parse(response, len(texts))

    def _post(self, body: dict[str, Any]) -> tuple[int, httpx.Response]:
        if self._aborted.is_set():
            raise ProviderError("aborted", "the embedding request was aborted")
        headers = {"Authorization": f"Bearer {self._credential()}", "Content-Type": "application/json"}
        try:
            response = self._client.post(self.endpoint, json=body, headers=headers)
        except httpx.TimeoutException:
            raise ProviderError(
                "timeout", f"no answer from {_public_endpoint(self.endpoint)} within {self.timeout_ms} ms"
            ) from None
        except httpx.HTTPError as exc:
            raise ProviderError(
                "network-error", f"{type(exc).__name__} reaching {_public_endpoint(self.endpoint)}"
            ) from None
        return response.status_code, response

    def _parse(self, response: httpx.Response, expected: int) -> np.ndarray:
        try:
            payload: Any = response.json()
        except ValueError:
            raise ProviderError("invalid-response", "the answer is not JSON") from None
        data = payload.get("data") if isinstance(payload, dict) else None
        if not isinstance(data, list):
            raise ProviderError("invalid-response", "the answer has no data[] array")
        if len(data) != expected:
            raise ProviderError(
                "invalid-response", f"expected {expected} embeddings, the answer has {len(data)}"
            )
        data = _in_index_order(data)
        rows: list[list[float]] = []
        for item in data:
            vector = item.get("embedding") if isinstance(item, dict) else None
            if not isinstance(vector, list) or not vector:
                raise ProviderError("invalid-response", "data[].embedding is missing or empty")
            if not all(
                isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
                for x in vector
            ):
                raise ProviderError("invalid-response", "data[].embedding holds a non-finite or non-number value")
            if rows and len(vector) != len(rows[0]):
                raise ProviderError("invalid-response", "embeddings have inconsistent dimensions")
            rows.append(vector)
        if len(rows[0]) != self.dimension:
            raise ProviderError(
                "invalid-response",
                f"embedding dimension {len(rows[0])} differs from the configured {self.dimension}",
            )
        matrix = np.asarray(rows, dtype=np.float64)
        if not np.all(np.isfinite(matrix.astype(np.float32))) or np.any(
            np.linalg.norm(matrix, axis=1) == 0
        ):
            raise ProviderError("invalid-response", "an embedding is zero or overflows float32")
        return normalize_rows(matrix)


def _in_index_order(data: list[Any]) -> list[Any]:
    """Order items by their ``index`` field when every item carries a distinct valid one."""
    indices = [item.get("index") if isinstance(item, dict) else None for item in data]
    valid = [i for i in indices if isinstance(i, int) and not isinstance(i, bool)]
    if len(valid) == len(data) and sorted(valid) == list(range(len(data))):
        return [item for _, item in sorted(zip(valid, data), key=lambda pair: pair[0])]
    return data
