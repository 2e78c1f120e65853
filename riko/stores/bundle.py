"""Every store of one scope, built once over its warehouse and handed round frozen."""

from __future__ import annotations

from dataclasses import dataclass

from .warehouse import Warehouse
from .aliases import AliasStore
from .candidates import CandidateStore
from .evidence import EvidenceStore
from .jobs import JobStore
from .observations import ObservationRows
from .overlay import OverlayStore
from .pages import PageStore
from .profiles import ProfileStore
from .projections import ProjectionStore
from .provider_cache import ProviderCacheStore
from .settings import SettingsStore
from .tables import ScopeTables
from .vectors import VectorStore

__all__ = ["Stores"]


@dataclass(frozen=True)
class Stores:
    """One store per record family of a scope (see ``docs/architecture.md`` for who owns which table)."""

    evidence: EvidenceStore
    candidates: CandidateStore
    pages: PageStore
    overlay: OverlayStore
    observations: ObservationRows
    aliases: AliasStore
    jobs: JobStore
    profiles: ProfileStore
    settings: SettingsStore
    vectors: VectorStore
    projections: ProjectionStore
    provider_cache: ProviderCacheStore
    tables: ScopeTables

    @classmethod
    def of(cls, wh: Warehouse) -> "Stores":
        return cls(evidence=EvidenceStore(wh), candidates=CandidateStore(wh), pages=PageStore(wh),
                   overlay=OverlayStore(wh), observations=ObservationRows(wh), aliases=AliasStore(wh),
                   jobs=JobStore(wh), profiles=ProfileStore(wh), settings=SettingsStore(wh), vectors=VectorStore(wh),
                   projections=ProjectionStore(wh), provider_cache=ProviderCacheStore(wh), tables=ScopeTables(wh))
