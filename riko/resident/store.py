"""Persisting the Resident: the last valid snapshot in ``profiles`` and ``RESIDENT.md`` on disk."""

from __future__ import annotations

import json
from typing import Any

from ..wiki.canon import Canon
from ..clock import Clock, utc
from ..config import RikoConfig
from ..wiki.journal import resident_stale
from .compile import ResidentBlock, ResidentSnapshot, compile_resident
from ..scope import MemoryScope
from ..stores.audits import last_audit_id
from ..stores.warehouse import Warehouse, dumps, naive_utc
from ..wiki import write_atomic

__all__ = ["ResidentStore"]


class ResidentStore:
    """Compiles from canonical rows, keeps the last valid snapshot, writes ``RESIDENT.md``."""

    def __init__(self, wh: Warehouse, scope: MemoryScope, canon: Canon, config: RikoConfig, clock: Clock) -> None:
        self.wh, self.scope, self.canon, self.config, self.clock = wh, scope, canon, config, clock
        self.stores = canon.stores  # Memory builds the Resident before its context: the canon's bundle
        self.overlay, self.profile = self.stores.overlay, self.stores.profiles

    def _overlay(self) -> tuple[set[str], set[str], dict[str, float]]:
        return self.overlay.overlay()

    def _pages(self) -> list[Any]:
        """Canonical pages as the compiler should judge them.

        A temporally replaced page stays true until its ``valid_to``, so its forward link is
        left out here and its validity window decides (the replacement starts at that moment).
        """
        temporal = self.stores.pages.temporally_closed_ids()
        return [p.replace(superseded_by=None) if p.id in temporal and p.status == "confirmed" else p
                for p in self.canon.pages()]

    def compile(self) -> ResidentSnapshot:
        """Compile the Resident from the current canonical state (nothing is persisted)."""
        cfg = self.config
        suppressed, contested, activation = self._overlay()
        pages = self._pages()
        now = self.clock.now()
        # the Resident changes by itself only when a validity interval opens or closes
        self._boundary = min(
            (t for p in pages for t in (p.valid_from, p.valid_to) if t is not None and t > now), default=None)
        return compile_resident(
            pages, max_chars=cfg.max_resident_chars, now=now, suppressed=suppressed,
            contested=contested, activation=activation, temporal_enabled=cfg.temporal_enabled,
            sensitive_resident_enabled=cfg.sensitive_resident_enabled, blocks_enabled=cfg.resident_blocks_enabled,
            v2_enabled=cfg.resident_v2_enabled,
        )

    def stored(self) -> ResidentSnapshot | None:
        row = self.profile.snapshot()
        if row is None or row[2] is None:
            return None
        text, blocks, version, generated, max_chars, sources, omitted, diagnostics = row
        return ResidentSnapshot(
            text=text or "",
            blocks=tuple(ResidentBlock(b["kind"], b["heading"], tuple((e["page_id"], e["text"]) for e in b["entries"]))
                         for b in json.loads(blocks or "[]")),
            version=version, source_page_ids=tuple(json.loads(sources or "[]")),
            omitted_page_ids=tuple(json.loads(omitted or "[]")), diagnostics=json.loads(diagnostics or "{}"),
            generated_at=utc(generated), max_chars=int(max_chars or 0),
        )

    def _revision(self) -> int:
        return last_audit_id(self.wh)

    def current(self) -> ResidentSnapshot:
        """The Resident for the next prompt: cached until a mutation is audited or a validity
        interval opens or closes, so the hot path does not recompile the Wiki."""
        cached = getattr(self, "_cached", None)
        if cached is not None:
            snap, revision, boundary = cached
            if revision == self._revision() and (boundary is None or self.clock.now() < boundary):
                return snap
        return self.refresh()

    def refresh(self) -> ResidentSnapshot:
        """Recompile and persist when the content changed; on failure keep the last valid one."""
        self._cached = None
        self._failed = False
        snap = self._refresh()
        if not self._failed:  # a failed compile is retried on the next read
            self._cached = (snap, self._revision(), getattr(self, "_boundary", None))
        return snap

    def _refresh(self) -> ResidentSnapshot:
        previous = self.stored()
        try:
            snap = self.compile()
        except Exception as exc:  # the last valid Resident keeps being served
            self._failed = True
            if not self.wh.read_only:
                with self.wh.transaction():
                    self.wh.audit("resident-compile-failed", "deterministic_rule", None, {"error": str(exc)[:500]})
            if previous is not None:
                return previous
            raise
        if self.wh.read_only:
            return snap
        if previous is not None and _same(previous, snap) and self.canon.resident_path().exists():
            if resident_stale(self.stores.jobs):
                with self.wh.transaction():
                    self.canon.resident_written()
            return previous
        data = snap.to_dict()
        with self.wh.transaction():
            self.profile.save_snapshot({
                "resident_text": snap.text, "resident_blocks": dumps(data["blocks"]),
                "resident_version": snap.version, "resident_generated_at": naive_utc(snap.generated_at),
                "max_chars": snap.max_chars, "source_page_ids": dumps(list(snap.source_page_ids)),
                "omitted_page_ids": dumps(list(snap.omitted_page_ids)), "diagnostics": dumps(snap.diagnostics),
                "updated_at": naive_utc(self.clock.now()),
            })
            self.wh.audit("resident-compiled", "deterministic_rule", snap.version,
                          {"included": len(snap.source_page_ids), "omitted": len(snap.omitted_page_ids)})
            write_atomic(self.canon.resident_path(), _resident_file(snap))
            self.canon.resident_written()
        return snap


def _same(a: ResidentSnapshot, b: ResidentSnapshot) -> bool:
    """Equal content and accounting (the generation time aside)."""
    return (a.text, a.version, a.blocks, a.source_page_ids, a.omitted_page_ids, a.diagnostics, a.max_chars) == (
        b.text, b.version, b.blocks, b.source_page_ids, b.omitted_page_ids, b.diagnostics, b.max_chars)


def _resident_file(snap: ResidentSnapshot) -> str:
    return (f"<!-- generated by riko: Resident version {snap.version}; {len(snap.source_page_ids)} page(s). "
            "Edit the pages, not this file. -->\n\n" + (snap.text or "") + "\n")
