"""The README's end-to-end run over the sample logs, on the embedded offline defaults."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["run_demo"]


def _say(title: str) -> None:
    print(f"\n== {title} " + "=" * max(0, 60 - len(title)))


def run_demo(root: Path, *, owner: str = "local", preset: str = "companion", as_json: bool = False) -> int:
    """Samples → evidence, printing each stage; returns a process exit code."""
    import polars as pl

    import riko
    from riko.samples import generate_samples

    root = root.absolute()
    samples = root / "samples"
    if not samples.exists():
        generate_samples(samples)
    summary: dict[str, Any] = {"root": str(root), "scope": f"{owner}:{preset}"}
    with riko.open(root, owner=owner, preset=preset) as mem, pl.Config(
        tbl_rows=30, fmt_str_lengths=70, tbl_width_chars=160
    ):
        report = mem.ingest(samples, progress=False)
        summary["ingest"] = report.to_dict()
        sessions = mem.sessions()
        summary["sessions"] = sessions.height
        user_lines = mem.evidence(user_only=True)
        summary["user_evidence"] = user_lines.height
        if not as_json:
            _say("1. ingest sample session logs → L0 evidence")
            print(report)
            for r in report.refused:
                print(f"  (other preset, left for its own scope) {Path(r['path']).parent.name}")
            _say("sessions")
            print(sessions.select("session_id", "format", "event_count", "user_event_count"))
            _say("user evidence")
            print(user_lines.select("session_id", "seq", "text"))
    if as_json:
        print(json.dumps(summary, ensure_ascii=False, indent=2, default=str))
    return 0
