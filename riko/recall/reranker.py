"""An optional HTTP reranker in the ``/v1/rerank`` shape served by common local rerank servers.

Request ``POST {model?, query, documents: [...], top_n}``; response
``{results: [{index, relevance_score}, ...]}``. Any failure raises ProviderError with a
sanitized reason, and recall keeps the RRF order (``reranker-fallback-rrf``).
"""

from __future__ import annotations

import math
from typing import Sequence
import httpx

from ..endpoints import EndpointError, check_endpoint, public_endpoint
from ..errors import ProviderError

__all__ = ["rerank"]


def _where(endpoint: str) -> str:
    return public_endpoint(endpoint)


def rerank(
    endpoint: str,
    query: str,
    documents: Sequence[str],
    *,
    top_n: int | None = None,
    timeout_ms: int = 5000,
    model: str | None = None,
) -> list[tuple[int, float]]:
    """``(document index, relevance score)`` pairs, most relevant first.

    Every index is checked to be in range and every score finite; indices the server left
    out keep their input order after the scored ones.
    """
    if not documents:
        return []
    try:
        check_endpoint(endpoint)
    except EndpointError as exc:
        raise ProviderError("invalid-config", f"reranker endpoint {exc.reason}") from None
    body: dict[str, object] = {"query": query, "documents": list(documents), "top_n": top_n or len(documents)}
    if model:
        body["model"] = model
    timeout = httpx.Timeout(max(timeout_ms, 1) / 1000.0)
    try:
        response = httpx.post(endpoint, json=body, timeout=timeout)
    except httpx.TimeoutException:
        raise ProviderError("timeout", f"reranker at {_where(endpoint)} timed out") from None
    except httpx.HTTPError:
        raise ProviderError("network-error", f"reranker at {_where(endpoint)} is unreachable") from None
    if response.status_code != 200:
        raise ProviderError(f"http-{response.status_code}", f"reranker at {_where(endpoint)} answered {response.status_code}")
    try:
        results = response.json()["results"]
        pairs = [(int(item["index"]), float(item["relevance_score"])) for item in results]
    except (ValueError, KeyError, TypeError):
        raise ProviderError("invalid-response", f"reranker at {_where(endpoint)} sent an unreadable answer") from None
    seen: set[int] = set()
    for index, score in pairs:
        if not 0 <= index < len(documents) or index in seen or not math.isfinite(score):
            raise ProviderError("invalid-response", f"reranker at {_where(endpoint)} sent a bad index or score")
        seen.add(index)
    pairs.sort(key=lambda pair: (-pair[1], pair[0]))
    missing = [(i, float("-inf")) for i in range(len(documents)) if i not in seen]
    return pairs + missing
