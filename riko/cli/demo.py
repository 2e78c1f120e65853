"""The README's end-to-end run over the sample logs, on the embedded offline defaults:
sample logs → L0 evidence → Dream → review → Resident → recall."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["run_demo", "DEMO_QUERIES"]

DEMO_QUERIES = (
    "Where does my sister Lena live?",
    "我喜欢喝什么茶？",
    "Do you remember my ticket number for the Kyoto train?",
    "What is 17 * 23?",
)


#: Every stage header is exactly this many terminal columns wide.
RULE_WIDTH = 72


def _say(title: str) -> None:
    from ..rows import clip, display_width

    head = f"== {clip(title, RULE_WIDTH - 7)} "
    print("\n" + head + "=" * (RULE_WIDTH - display_width(head)))


def _silent_use_note(result: Any) -> str | None:
    """Why a recalled memory shows guidance instead of its text, when one does."""
    withheld = [r for r in result.rows if r.get("decision") == "silent_use" and r.get("injected")]
    if not withheld:
        return None
    return (f"   silent_use ({len(withheld)}): the memory's text is withheld (never cleared for explicit\n"
            "   recall); only guidance on tone and topics to avoid is injected")


def run_demo(root: Path, *, owner: str | None = None, preset: str = "companion", as_json: bool = False) -> int:
    """Run every stage once, printing what each produced; returns a process exit code."""
    import polars as pl

    import riko
    from riko.evaluation.samples import generate_samples

    root = root.absolute()
    samples = root / "samples"
    if not samples.exists():
        generate_samples(samples)
    summary: dict[str, Any] = {"root": str(root)}
    show = not as_json
    with riko.open(root, owner=owner, preset=preset, config={"recall_enabled": True}) as mem, pl.Config(
        tbl_rows=30, fmt_str_lengths=70, tbl_width_chars=160
    ):
        summary["scope"] = mem.scope.key
        report = mem.ingest(samples, progress=False)
        summary["ingest"] = report.to_dict()
        if show:
            _say("1. ingest sample session logs → L0 evidence")
            print(f"read {report.files} log file(s): {report.sessions} session(s), {report.events} event(s), "
                  f"{len(report.issue_rows)} issue(s)")
            if report.refused:
                others = sorted({str(r["remedy_fields"].get("other")) for r in report.refused
                                 if r.get("remedy_fields", {}).get("other")})
                print(f"  {len(report.refused)} log(s) belong to other presets ({', '.join(others)}) "
                      "and were left for them")
            print(mem.sessions().select("session_id", "format", "event_count", "user_event_count"))

        dream = mem.dream(provider="heuristic", progress=False)
        summary["dream"] = dream.to_dict()
        if show:
            _say("2. Dream (offline heuristic provider) → L1 candidates")
            print(dream)
            print(mem.candidates(status=None).select("status", "type", "title", "description"))

        pending = mem.candidates()
        confirmed_now = []
        # a person reviews the pending facts and confirms them (entity candidates follow the facts
        # that name them): a fact split out of a longer message is not exactly what the user typed,
        # so only review makes it canon
        # (a sensitive one is left for the person to decide)
        facts = [r["id"] for r in pending.to_dicts() if mem.candidate(r["id"])["category"] != "entity"]
        for candidate_id in facts:
            candidate = mem.candidate(candidate_id)
            if candidate["status"] == "pending" and candidate["sensitivity"] == "normal":
                confirmed_now.append(mem.confirm(candidate_id).id)
        summary["review"] = {"pending_before": pending.height, "confirmed_by_management": confirmed_now}
        if show:
            _say("3. review: auto-confirmed, plus the pending facts confirmed by management")
            print(mem.pages().select("type", "title", "description", "version", "path"))

        snap = mem.resident()
        summary["resident"] = {"version": snap.version, "chars": len(snap.text), "pages": len(snap.source_page_ids)}
        if show:
            _say(f"4. Resident (version {snap.version[:8]}, {len(snap.text)} chars, "
                 f"{len(snap.source_page_ids)} pages)")
            print(snap.text)

        summary["recall"] = []
        for query in DEMO_QUERIES:
            result = mem.recall(query)
            trace = result.trace
            summary["recall"].append({"query": query, "context": result.context, "trace": trace})
            if show:
                _say(f"5. recall: {query}")
                print(result.context or "(nothing recalled)")
                note = _silent_use_note(result)
                if note:
                    print(note)
                print(f"   plan={trace.get('planMode')} channels={trace.get('planChannels')} "
                      f"candidates={trace.get('candidatesByChannel')} injected={trace.get('injectedMemories')} "
                      f"degraded={trace.get('degradedModes')}")
        if show:
            _say("files")
            print(f"sample logs under {samples} (written once; `riko samples DIR` writes them anywhere)")
            print(f"Wiki pages under {mem.wiki_dir} (edit them, then `riko wiki sync`)")
            print(f"Resident at {mem.wiki_dir / 'RESIDENT.md'}; warehouse at {mem.warehouse_dir}")
    if as_json:
        print(json.dumps(summary, ensure_ascii=False, indent=2, default=str))
    return 0
