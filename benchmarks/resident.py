"""Resident benchmark: compile and refresh over a large Wiki, and ``sync`` over unchanged files.

Builds one scope with ``--pages`` confirmed, eligible pages (default 10,000): every page file is
rendered with ``render_page`` and written to disk, and the matching ``pages`` rows are inserted
in one Arrow batch (importing them through ``sync`` would write one audited transaction per
page). Then it measures, each beside a naive baseline in the same run:

(a) ``compile_resident`` over the Page objects (median of ``--runs``) against a straightforward
    compiler that re-joins the whole block and the whole Resident for every entry it considers
    and finds duplicates by scanning a list of the entries considered (same output, checked);
(b) ``mem.resident()`` end to end: cached (nothing changed) and after one page changed
    (recompile from canonical rows + persist), plus a file edit picked up by ``mem.sync()``;
(c) ``mem.sync()`` over the unchanged files against a sync that parses every file with
    ``parse_page`` and compares it with its stored page.

Targets: (a) <= 50 ms and (c) <= 1 s at 10,000 pages.
Usage: ``python benchmarks/resident.py [--pages 10000] [--runs 15] [--keep DIR]``.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pyarrow as pa

import riko
from riko.canon import Canon, file_hash
from riko.clock import FixedClock
from riko.migrations import RECORD_SCHEMA_VERSION
from riko.resident import (
    BLOCK_ORDER,
    PREFIX,
    SUFFIX,
    TYPE_PRIORITY,
    assign_block,
    compile_resident,
    entry_text,
    live_pages,
)
from riko.wiki import Page, parse_page, render_page, scan_pages, slugify
from riko.wiki.page import TYPE_FOLDERS

TARGET_COMPILE_S = 0.050
TARGET_SYNC_S = 1.0
NOW = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)
_TYPES = ("entity", "concept", "episode", "emotion", "relationship", "synthesis", "entity", "concept")
_PEOPLE = ("sister", "colleague", "neighbour", "mentor", "friend", "cousin")
_TOPICS = ("tea", "trains", "jazz", "climbing", "Lisbon", "Atlas", "ramen", "chess", "gardening", "Rust")


def make_pages(n: int) -> list[Page]:
    """``n`` confirmed, consented, currently valid pages across every Resident block."""
    pages = []
    for i in range(n):
        kind = _TYPES[i % len(_TYPES)]
        topic = _TOPICS[i % len(_TOPICS)]
        person = _PEOPLE[i % len(_PEOPLE)]
        title = f"{person.title()} {i}" if kind == "entity" and i % 3 == 0 else f"{topic.title()} note {i}"
        pages.append(Page(
            id=f"p-{i:06d}", type=kind, title=title,
            description=f"Fact {i}: the user mentioned {topic} while talking about their {person}." if i % 4 else "",
            body=f"Noted in session {i % 97}: {topic} matters.\n\nSee [[{topic.title()}]].",
            tags=[topic, person] if i % 5 == 0 else [],
            sources=[f"session:s-{i % 97}/event:{i % 40}"],
            confidence=round(0.5 + (i % 50) / 100, 2) if i % 7 else None,
            kind="preference" if i % 11 == 0 else None,
            category="interaction_rules" if i % 53 == 0 else None,
            observed_at=NOW - timedelta(days=400 - i % 400),
            recorded_at=NOW - timedelta(days=400 - i % 400, minutes=i % 60),
            valid_from=NOW - timedelta(days=800) if i % 9 == 0 else None,
            valid_to=NOW + timedelta(days=30 + i % 300) if i % 13 == 0 else None,
        ))
    return pages


def build_scope(mem: Any, pages: Sequence[Page]) -> tuple[float, float]:
    """Write every page file and bulk-insert the rows; returns (files s, rows s)."""
    t = time.perf_counter()
    rows: list[dict[str, Any]] = []
    now = mem.clock.now()
    for page in pages:
        text = render_page(page)
        rel = f"{TYPE_FOLDERS[page.type]}/{slugify(page.title)}.md"
        path = mem.wiki_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        rows.append({"scope_key": mem.scope.key, "schema_version": RECORD_SCHEMA_VERSION,
                     **Canon._row(page, rel, file_hash(text), None, [], [], now)})
    files_s = time.perf_counter() - t
    t = time.perf_counter()
    with mem.warehouse.transaction():
        mem.warehouse.insert_arrow("pages", pa.Table.from_pylist(rows))
        mem.warehouse.audit("bench-bulk-import", "management", None, {"pages": len(rows)})
    return files_s, time.perf_counter() - t


# -- naive baselines ------------------------------------------------------------------------------
def naive_rank(page: Page) -> tuple:
    """Type priority, confidence desc, update time desc, id (no activation in this benchmark)."""
    updated = page.recorded_at or page.observed_at
    return (TYPE_PRIORITY.get(page.type, TYPE_PRIORITY["other"]), page.confidence is None, -(page.confidence or 0.0),
            updated is None, -(updated.timestamp() if updated else 0.0), page.id)


def naive_compile(pages: Sequence[Page], *, max_chars: int, now: datetime) -> str:
    """The Resident text as a straightforward compiler reaches it.

    Per block it scans all pages, sorts them, and for every entry re-joins the whole block to
    check the block budget and scans the entries considered so far for a duplicate; the blocks are then
    fitted by re-rendering the whole Resident each time.
    """
    eligible = live_pages(pages, now)
    budget = (max_chars - len(PREFIX) - len(SUFFIX)) // len(BLOCK_ORDER)
    considered: list[str] = []
    blocks: list[str] = []
    for kind in BLOCK_ORDER:
        members = sorted((p for p in eligible if assign_block(p) == kind), key=naive_rank)
        lines = [f"## {kind}"]
        for page in members:
            entry = entry_text(page)
            key = entry.casefold()
            if key in considered:  # a list: every check scans all entries considered so far
                continue
            considered.append(key)
            if len("\n".join([*lines, entry])) <= budget:
                lines.append(entry)
        if len(lines) > 1:
            blocks.append("\n".join(lines))
    kept: list[str] = []
    for block in blocks:
        if len(PREFIX + "\n\n".join([*kept, block]) + SUFFIX) <= max_chars:
            kept.append(block)
    return PREFIX + "\n\n".join(kept) + SUFFIX if kept else ""


def naive_sync(canon: Canon) -> int:
    """Parse every page file and compare it with its stored page; returns the unchanged count."""
    stored = {page.id: page for page in canon.pages()}
    unchanged = 0
    for path, text in scan_pages(canon.dir):
        page = parse_page(text, path)
        if stored.get(page.id) == page:
            unchanged += 1
    return unchanged


# -- measurement ----------------------------------------------------------------------------------
def timed(fn: Callable[[], Any], runs: int) -> tuple[float, Any]:
    """Median wall time of ``runs`` calls, and the last result."""
    times, result = [], None
    for _ in range(runs):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), result


def ms(seconds: float) -> str:
    return f"{seconds * 1000:9.2f} ms"


def verdict(value: float, target: float) -> str:
    return "meets target" if value <= target else "OVER TARGET"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=15, help="timed runs per measurement (median reported)")
    ap.add_argument("--naive-runs", type=int, default=3)
    ap.add_argument("--keep", type=Path, default=None, help="build the scope here and keep it")
    args = ap.parse_args()

    work = args.keep or Path(tempfile.mkdtemp(prefix="riko-bench-resident-"))
    clock = FixedClock(NOW)
    try:
        t0 = time.perf_counter()
        pages = make_pages(args.pages)
        with riko.open(work, preset="bench", clock=clock) as mem:
            files_s, rows_s = build_scope(mem, pages)
        t = time.perf_counter()
        mem = riko.open(work, preset="bench", clock=clock)  # opening syncs every file once
        open_s = time.perf_counter() - t
        assert mem.last_sync is not None and not mem.last_sync.changed and not mem.last_sync.errors, mem.last_sync
        print(f"setup: {args.pages} pages; files rendered+written {files_s:.2f} s, rows inserted {rows_s:.2f} s, "
              f"first open (sync) {open_s:.2f} s, total {time.perf_counter() - t0:.2f} s")

        canon: Canon = mem._canon
        store = mem._resident
        max_chars = mem.config.max_resident_chars

        # (a) compile_resident over Page objects
        t = time.perf_counter()
        objs = canon.pages()
        load_s = time.perf_counter() - t
        fast_s, snap = timed(lambda: compile_resident(objs, max_chars=max_chars, now=NOW), args.runs)
        naive_s, naive_text = timed(lambda: naive_compile(objs, max_chars=max_chars, now=NOW), args.naive_runs)
        assert naive_text == snap.text, "naive baseline disagrees with compile_resident"
        print(f"\n(a) compile_resident over {len(objs)} pages (eligible {snap.diagnostics['eligibleCount']}, "
              f"included {len(snap.source_page_ids)}, {len(snap.text)}/{max_chars} chars)")
        print(f"    compile_resident      {ms(fast_s)}  (median of {args.runs})  target {TARGET_COMPILE_S * 1000:.0f} ms: "
              f"{verdict(fast_s, TARGET_COMPILE_S)}")
        print(f"    naive baseline        {ms(naive_s)}  (median of {args.naive_runs}): per entry re-joins the "
              "whole block and scans a list of considered entries for duplicates; blocks fitted by re-rendering")
        print(f"    ratio                 {naive_s / fast_s:9.1f}x faster than the baseline")
        print(f"    Canon.pages() (rows -> Page objects) {ms(load_s)}")

        # (b) mem.resident() end to end
        mem.resident()  # compile + persist once
        cached_s, _ = timed(mem.resident, max(args.runs, 50))
        target_id = mem.resident().source_page_ids[0]

        def change_and_read(counter: list[int] = [0]) -> Any:
            counter[0] += 1
            page = canon.get(target_id)
            canon.save(page.replace(description=f"Changed description #{counter[0]}", version=page.version + 1),
                       authority="management", audit_kind="page-corrected", previous=page)
            t = time.perf_counter()
            snap = mem.resident()
            return time.perf_counter() - t, snap

        refresh_times = []
        for _ in range(args.runs):
            elapsed, snap = change_and_read()
            refresh_times.append(elapsed)
        assert "Changed description" in snap.text
        refresh_s = statistics.median(refresh_times)
        compile_only_s, _ = timed(store.compile, max(3, args.runs // 3))
        print("\n(b) mem.resident() end to end")
        print(f"    cached (nothing changed)                  {ms(cached_s)}  (median of {max(args.runs, 50)})")
        print(f"    after one page changed (recompile+persist) {ms(refresh_s)}  (median of {args.runs})")
        print(f"      of which compile from canonical rows     {ms(compile_only_s)}")
        print(f"    ratio changed/cached                      {refresh_s / cached_s:9.1f}x")

        edit_path = mem.wiki_dir / canon.row(target_id)["path"]
        edit_times = []
        for i in range(max(3, args.runs // 3)):
            text = edit_path.read_text(encoding="utf-8")
            edit_path.write_text(re.sub(r"^description: .*$", f"description: Hand-edited description {i}", text,
                                        count=1, flags=re.MULTILINE), encoding="utf-8")
            t = time.perf_counter()
            report = mem.sync()
            snap = mem.resident()
            edit_times.append(time.perf_counter() - t)
            assert report.edited == [target_id], report
        print(f"    one file edited: mem.sync() + mem.resident() {ms(statistics.median(edit_times))}  "
              f"(median of {len(edit_times)})")

        # (c) mem.sync() over unchanged files
        sync_s, report = timed(mem.sync, max(3, args.runs // 3))
        assert not report.changed and report.unchanged == args.pages, report
        naive_sync_s, unchanged = timed(lambda: naive_sync(canon), 1)
        assert unchanged == args.pages, unchanged
        print(f"\n(c) mem.sync() over {args.pages} unchanged page files")
        print(f"    mem.sync()            {ms(sync_s)}  (median of {max(3, args.runs // 3)})  "
              f"target {TARGET_SYNC_S * 1000:.0f} ms: {verdict(sync_s, TARGET_SYNC_S)}")
        print(f"    naive baseline        {ms(naive_sync_s)}  (1 run): parse_page on every file, "
              "compared with its stored page")
        print(f"    ratio                 {naive_sync_s / sync_s:9.1f}x faster than the baseline")
        mem.close()
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
