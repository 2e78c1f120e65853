"""The ``provider_cache`` table: provider answers by request hash, so re-runs are reproducible and free."""

from __future__ import annotations

from collections.abc import Sequence

from .base import Store, marks

__all__ = ["ProviderCacheStore"]

_CHUNK = 500


class ProviderCacheStore(Store):
    """Cached answers of one scope, by request hash."""

    table = "provider_cache"
    key = ("request_hash",)
    order = "request_hash"

    def responses(self, hashes: Sequence[str]) -> dict[str, str]:
        """request hash → stored answer, for those of ``hashes`` that have one."""
        found: dict[str, str] = {}
        for start in range(0, len(hashes), _CHUNK):
            chunk = list(hashes[start : start + _CHUNK])
            for key, response in self.wh.fetchall(
                f"SELECT request_hash, response FROM provider_cache WHERE scope_key = ? AND request_hash IN ({marks(chunk)})",
                [self.scope_key, *chunk],
            ):
                if response is not None:
                    found[key] = response
        return found
