"""The named checks a scenario can ask for, evaluated after its turn against the real stores.

A probe reads state (pages, files, tables, audits, the turn's trace) and returns named
boolean checks, plus the outcome field some Appendix G metrics read (authority, correction,
derived and on-disk leakage). Probes observe; they never decide a scenario's expectations,
which the corpus wrote down beforehand.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .corpus import Scenario
from .harness import Harness, TurnRecord
from ..errors import InvalidArgumentError

__all__ = ["ProbeResult", "run_probe", "PROBES", "page_texts", "storage_domain", "scan_files", "scan_tables"]

#: Audit kinds that admit a page into canon; each must carry user or management authority.
_ADMISSIONS = ("candidate-confirmed", "candidate-auto-confirmed", "page-created", "memory-remembered")
_ADMITTING_AUTHORITIES = ("user", "management")


@dataclass
class ProbeResult:
    """Checks from one probe and the outcome fields it sets (``authority_check`` …)."""

    checks: dict[str, bool] = field(default_factory=dict)
    fields: dict[str, Any] = field(default_factory=dict)


def page_texts(mem: Any, *, include_forgotten: bool = False) -> dict[str, str]:
    """Page id → title, description and body of every page (forgotten ones only when asked)."""
    out = {}
    for row in mem.pages(include_forgotten=True).select("id", "status").sort("id").to_dicts():
        if row["status"] == "forgotten" and not include_forgotten:
            continue
        page = mem.page(row["id"])
        out[row["id"]] = "\n".join(filter(None, (page.title, page.description or "", page.body or "")))
    return out


def storage_domain(mem: Any) -> list[Path]:
    """The scope's own folders: its warehouse, its Wiki pages and its evidence exports."""
    return [mem.warehouse_dir, mem.wiki_dir, mem.root / "exports" / mem.scope.storage_key]


def _spellings(text: str) -> list[bytes]:
    """UTF-8 and JSON-escaped spellings of ``text`` (a JSON file may hold either)."""
    escaped = json.dumps(text)[1:-1]
    return list(dict.fromkeys([text.encode("utf-8"), escaped.encode("ascii", "backslashreplace")]))


def scan_files(roots: Iterable[Path], text: str) -> list[str]:
    """Files under ``roots`` whose bytes (zstd files also decompressed) or path hold ``text``."""
    import zstandard

    needles = _spellings(text)
    found = []
    for root in roots:
        if not root.exists():
            continue
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            data = path.read_bytes()
            blobs = [data]
            if path.name.endswith((".zst", ".zstd")):
                try:
                    reader = zstandard.ZstdDecompressor().stream_reader(data, read_across_frames=True)
                    blobs.append(reader.read())
                except zstandard.ZstdError:
                    pass
            if text in str(path) or any(n in blob for n in needles for blob in blobs):
                found.append(str(path))
    return found


def scan_tables(mem: Any, text: str, *, skip: Iterable[str] = ()) -> dict[str, int]:
    """Row counts per table whose text columns hold ``text`` (every table of the warehouse)."""
    return mem.context.stores.tables.text_hits(text, skip=list(skip))


# -- probes ------------------------------------------------------------------------------------
def _authority(h: Harness, s: Scenario, turn: TurnRecord, arg: str) -> ProbeResult:
    """No page holds an excluded claim, every admission had user or management authority, the
    claims left unconfirmed stay pending, and every refusal the corpus expected happened."""
    mem = h.memory()
    texts = page_texts(mem)
    no_claim = not any(x in t for x in s.excludes for t in texts.values())
    audits = mem.audits().to_dicts()
    admitted = [a for a in audits if a["kind"] in _ADMISSIONS]
    authorities = all(a["authority"] in _ADMITTING_AUTHORITIES for a in admitted)
    held = [c for c in mem.candidates(None).to_dicts()
            if any(x in "\n".join(str(c.get(k) or "") for k in ("title", "description", "body")) for x in s.excludes)]
    pending = all(c["status"] in ("pending", "pending_conflict") for c in held)
    refusals = [ok for name, ok in h.checks.items() if name.endswith(": refused")]
    checks = {
        "authority: no page holds an excluded claim": no_claim,
        "authority: every admission carries user or management authority": authorities,
        "authority: unconfirmed claims stay pending": pending,
        "authority: every expected refusal happened": all(refusals),
    }
    return ProbeResult(checks, {"authority_check": all(checks.values())})


def _correction(h: Harness, s: Scenario, turn: TurnRecord, arg: str) -> ProbeResult:
    """The replacement is canonical and the superseded text is gone from pages, files and Resident."""
    mem = h.memory()
    new, old = s.contains[0], s.excludes[0]
    texts = page_texts(mem)
    files = scan_files([mem.wiki_dir], old)
    checks = {
        "correction: the replacement is canonical": any(new in t for t in texts.values()),
        "correction: no live page holds the superseded text": not any(old in t for t in texts.values()),
        "correction: no page file holds the superseded text": not files,
        "correction: the Resident drops the superseded text": old not in mem.resident().text,
    }
    return ProbeResult(checks, {"correction_check": all(checks.values())})


def _temporal(h: Harness, s: Scenario, turn: TurnRecord, arg: str) -> ProbeResult:
    """Appendix G's inclusion/exclusion pair, judged on the model input of the turn."""
    return ProbeResult({
        "inclusion": all(c in turn.injected for c in s.contains),
        "exclusion": not any(x in turn.injected for x in s.excludes),
    })


def _derived_surfaces(mem: Any, text: str) -> list[str]:
    """Derived places that still hold ``text``: live pages, pending candidates, live observations,
    active aliases, projections, the stored Resident, and page files with RESIDENT.md.
    Raw session evidence, audits and version history are not derived memory."""
    found = [f"page {pid}" for pid, t in page_texts(mem).items() if text in t]
    found += [f"table {table}" for table in mem.context.stores.tables.derived_holders(text)]
    found += [f"file {p}" for p in scan_files([mem.wiki_dir], text)]
    return found


def _forget_leakage(h: Harness, s: Scenario, turn: TurnRecord, arg: str) -> ProbeResult:
    mem = h.memory()
    traces = [t for x in s.excludes for t in _derived_surfaces(mem, x)]
    return ProbeResult({"forget: no derived trace of the forgotten memory": not traces},
                       {"derived_leakage": bool(traces), "artifacts": {"derived_traces": traces}})


def _purge_leakage(h: Harness, s: Scenario, turn: TurnRecord, arg: str) -> ProbeResult:
    """After the restart: no table of the warehouse and no file of the storage domain holds the text."""
    mem = h.memory()
    tables = {x: scan_tables(mem, x, skip=("purges",)) for x in s.excludes}
    files = {x: scan_files(storage_domain(mem), x) for x in s.excludes}
    derived = any(tables.values())
    disk = any(files.values())
    return ProbeResult(
        {"purge: no table holds the purged text": not derived, "purge: no stored file holds the purged text": not disk},
        {"derived_leakage": derived, "disk_leakage": disk, "artifacts": {"table_hits": tables, "file_hits": files}},
    )


def _purge_completed(h: Harness, s: Scenario, turn: TurnRecord, arg: str) -> ProbeResult:
    mem = h.memory()
    journal = mem.purges()
    rows = journal.filter(journal["session_id"] == arg)["status"].to_list()
    return ProbeResult({f"purge journal of {arg} completed": bool(rows) and all(r == "completed" for r in rows)})


def _raw_retained(h: Harness, s: Scenario, turn: TurnRecord, arg: str) -> ProbeResult:
    return ProbeResult({f"raw session {arg} retained": h.memory().evidence(arg).height > 0})


def _degraded(h: Harness, s: Scenario, turn: TurnRecord, arg: str) -> ProbeResult:
    return ProbeResult({f"trace degraded mode {arg}": arg in turn.trace.get("degradedModes", [])})


def _stub_called(h: Harness, s: Scenario, turn: TurnRecord, arg: str) -> ProbeResult:
    calls = h.stub.calls[arg] if h.stub is not None else 0
    return ProbeResult({f"stub route {arg} was called": calls > 0})


def _resident_bounded(h: Harness, s: Scenario, turn: TurnRecord, arg: str) -> ProbeResult:
    snap = turn.resident_snapshot
    entries = [e["text"] for block in snap.get("blocks", []) for e in block.get("entries", [])]
    return ProbeResult({
        "Resident within max_resident_chars": len(turn.resident) <= h.memory().config.max_resident_chars,
        "Resident omitted at least one page": bool(snap.get("omitted_page_ids")),
        "Resident entries are whole": all(e in turn.resident for e in entries),
    })


def _resident_unchanged(h: Harness, s: Scenario, turn: TurnRecord, arg: str) -> ProbeResult:
    return ProbeResult({f"Resident version equals mark {arg}": h.marks.get(arg) == turn.resident_version})


def _resident_excludes(h: Harness, s: Scenario, turn: TurnRecord, arg: str) -> ProbeResult:
    return ProbeResult({f"Resident excludes {arg!r}": arg not in turn.resident})


def _delimiters(h: Harness, s: Scenario, turn: TurnRecord, arg: str) -> ProbeResult:
    ctx, res = turn.context, turn.resident
    return ProbeResult({
        "one <MEMORY_DATA> block": ctx.count("<MEMORY_DATA>") == 1 and ctx.count("</MEMORY_DATA>") == 1,
        "one [RECALLED_MEMORY] block": ctx.count("[RECALLED_MEMORY]") == 1 and ctx.count("[/RECALLED_MEMORY]") == 1,
        "one <persistent-memory> block": res.count("<persistent-memory>") == 1 and res.count("</persistent-memory>") == 1,
    })


def _gate(h: Harness, s: Scenario, turn: TurnRecord, arg: str) -> ProbeResult:
    return ProbeResult({f"an injected result has gate reason {arg}":
                        any(r.get("reason") == arg and r.get("injected") for r in turn.results)})


def _observation(h: Harness, s: Scenario, turn: TurnRecord, arg: str) -> ProbeResult:
    ref, status = arg.split(":", 1)
    row = h.memory().observation(h.refs[ref])
    return ProbeResult({f"observation {ref} is {status}": row["status"] == status})


Probe = Callable[[Harness, Scenario, TurnRecord, str], ProbeResult]
PROBES: dict[str, Probe] = {
    "authority": _authority,
    "correction": _correction,
    "temporal": _temporal,
    "forget-leakage": _forget_leakage,
    "purge-leakage": _purge_leakage,
    "purge-completed": _purge_completed,
    "raw-retained": _raw_retained,
    "degraded": _degraded,
    "stub-called": _stub_called,
    "resident-bounded": _resident_bounded,
    "resident-unchanged": _resident_unchanged,
    "resident-excludes": _resident_excludes,
    "delimiters": _delimiters,
    "gate": _gate,
    "observation": _observation,
}


def run_probe(name: str, h: Harness, s: Scenario, turn: TurnRecord) -> ProbeResult:
    """Run the probe ``name`` or ``name:argument`` from a scenario's ``checks``."""
    key, _, arg = name.partition(":")
    if key not in PROBES:
        raise InvalidArgumentError(f"{s.id}: unknown check {name!r}; known: {', '.join(sorted(PROBES))}")
    return PROBES[key](h, s, turn, arg)
