"""Memory quality on the public sets: what Dream extracts, scored against the sets' gold memories.

Run: ``python benchmarks/dream_quality.py [--datasets realmem,realtalk,memdaily] [--provider heuristic]
[--check] [--e5] [--out DIR]``, or ``--extraction-only`` for the heuristic's facts alone.

Every dataset runs through :func:`riko.evaluation.dream_quality.run_dream_quality`: one fresh
scope per conversation, the real Dream, every proposal mapped to the turns it cites and scored
with the fact-level rule beside the two trivial baselines (every first-person sentence; every
whole non-assistant turn) in the same run. RealMem reports its User and Assistant points apart;
REALTALK scores the authors' per-session events; MemDaily (3,000 short conversations) keeps a
fixed subset by default, the first 10 conversations of each of its 26 groups.

``--extraction-only`` skips the warehouse, admission and consolidation: every session's
transcript goes straight through ``HeuristicProvider.extract`` → ``parse_file_blocks`` →
``ground`` (as ``mem.dream`` locates and checks each page) and the grounded pages are scored
with the same rule and baselines (MemDaily: all 3,000 conversations unless
``--memdaily-per-group`` is given). It takes about a minute for all three sets.

The archives ``../shared/datasets/*.tar.zst`` are extracted once into ``--scratch`` and never
enter the repository. ``--check`` writes the reference-scorer folder of each set and runs
``../shared/datasets/score_memories.py`` on every system's proposals, printing both figures
side by side (MemDaily's Chinese needs the CJK bigrams the reference does not have, so it is
not checked).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tarfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from riko.evaluation.datasets import Session, load_dataset  # noqa: E402
from riko.evaluation.dream_quality import _CJK, _groups, _multi_party, _text, gold_points, run_dream_quality  # noqa: E402
from riko.evaluation.memory_score import (  # noqa: E402
    Cited,
    Score,
    baseline_first_person,
    baseline_whole_turns,
    score,
    speaker_names,
)

DATASETS = ("realmem", "realtalk", "memdaily", "beam")
GOLD = {"realmem": "memories.jsonl", "realtalk": "session_events.jsonl", "memdaily": "queries.jsonl",
        "beam": "queries.jsonl"}
MEMDAILY_PER_GROUP = 10
_DONE = ".extracted"
_REF = re.compile(r"fact_recall=([\d.]+) precision=([\d.]+) f1=([\d.]+) proposals_per_100_turns=([\d.]+)")


def extract(archive: Path, scratch: Path, gold: str) -> Path:
    """``<scratch>/<name>/`` from ``<name>.tar.zst``, extracted unless it already holds the gold file."""
    import zstandard

    name = archive.name.removesuffix(".tar.zst")
    target = scratch / name
    if (target / gold).is_file() and (target / "sessions").is_dir():
        return target  # extracted before (by this script or by hand)
    scratch.mkdir(parents=True, exist_ok=True)
    with archive.open("rb") as raw, zstandard.ZstdDecompressor().stream_reader(raw) as stream, \
            tarfile.open(fileobj=stream, mode="r|") as tar:
        tar.extractall(scratch, filter="data")
    if not (target / gold).is_file():
        raise SystemExit(f"{archive} did not hold {name}/{gold}")
    (target / _DONE).write_text(time.strftime("%Y-%m-%dT%H:%M:%S"), encoding="utf-8")
    return target


def memdaily_subset(folder: Path, per_group: int) -> list[str]:
    """The first ``per_group`` conversations (by number) of every MemDaily group."""
    out = []
    for conv in sorted(p.name for p in (folder / "sessions").iterdir() if p.is_dir()):
        group, _, number = conv.rpartition("-")
        if number.isdigit() and int(number) < per_group:
            out.append(conv)
    return out


def check(report, folder: Path, scorer: Path) -> list[str]:  # type: ignore[no-untyped-def]
    """Run the reference scorer on every system's proposals; one line per system and group."""
    report.write_reference(folder)
    lines = []
    for group, systems in report.scores.items():
        role = group if report.kind == "memories" else "User"
        for system, sc in systems.items():
            out = subprocess.run([sys.executable, str(scorer), str(folder), str(folder / f"{system}.jsonl"),
                                  "--role", role], capture_output=True, text=True, check=True).stdout
            match = _REF.search(out)
            ref = tuple(float(x) for x in match.groups()) if match else None
            ours = (round(sc.recall, 3), round(sc.precision, 3), round(sc.f1, 3), round(sc.per_100_turns, 1))
            verdict = "agree" if ref == ours else "DIFFER"
            lines.append(f"  {report.dataset} {group} {system}: riko {ours} reference {ref} -> {verdict}")
    return lines


def markdown(reports: list) -> str:  # type: ignore[type-arg]
    rows = ["| set | gold | system | gold points | fact recall | precision | F1 | proposals / 100 turns | "
            "median words |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in reports:
        for group, systems in r.scores.items():
            for system, sc in systems.items():
                rows.append(f"| {r.dataset} | {group} | {system} | {sc.gold:,} | {sc.recall:.3f} | {sc.precision:.3f} | "
                            f"{sc.f1:.3f} | {sc.per_100_turns:.1f} | {sc.median_words:g} |")
    rows += ["", "| set | fact proposals | near-duplicates | with a link | linked to an entity page | entity pages | "
                 "isolated nodes | Resident fill | Dream s | sessions/s |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in reports:
        st, s = r.structure, r.setup
        rows.append(f"| {r.dataset} | {st['fact_proposals']:,} | {st['near_duplicate_share']:.3f} | "
                    f"{st['linked_share']:.3f} | {st['entity_linked_share']:.3f} | {st['entity_pages']} | "
                    f"{st['isolated_share']:.3f} | {st['resident_fill_mean']:.3f} | {s['dream_seconds']:.1f} | "
                    f"{s['sessions_per_second']:.0f} |")
    return "\n".join(rows)


# -- extraction only -------------------------------------------------------------------------------
def transcript_of(session: Session, multi: bool):  # type: ignore[no-untyped-def]
    """The Dream transcript of one dataset session (turn ``seq`` as the line's sequence number) and
    the dialogId of every sequence number."""
    from datetime import datetime, timezone

    from riko.dream.transcript import Transcript, TranscriptLine

    lines, label = [], {}
    for turn in session.turns:
        assistant = not multi and turn.speaker.lower() == "assistant"
        text = f"{turn.speaker}: {turn.text}" if multi else turn.text
        # a turn without a time only keeps the order of the file (a few ms after 1970)
        when = datetime.fromtimestamp(turn.time_ms / 1000, timezone.utc).replace(tzinfo=None) \
            if turn.time_ms > 86_400_000 else None
        lines.append(TranscriptLine(turn.seq, "assistant" if assistant else "user", text, when))
        label[turn.seq] = turn.dialog_id
    return Transcript(session.name, tuple(lines)), label


def grounded_pages(conv: str, transcript, label: dict[int, str], answer: str,  # type: ignore[no-untyped-def]
                   max_pages: int) -> list[Cited]:
    """Parse a heuristic answer (at most ``max_pages`` pages), locate and check every page as
    ``mem.dream`` does, and cite the dialogIds of the user turns that carry it (pages that fail
    the check are dropped)."""
    from riko.dream.grounding import ground
    from riko.dream.protocol import parse_file_blocks

    if not answer.strip():
        return []
    parsed = parse_file_blocks(answer, max_pages=max_pages, allow_empty=True)
    out = []
    for page in parsed.pages:
        g = ground(page.title, page.description, page.body, page.turns, transcript.lines, quote=page.quote)
        if g.supported:
            out.append(Cited(conv, frozenset(label[s] for s in g.turns),
                             _text(page.title, page.description, page.body), {"kind": page.kind or ""}))
    return out


class Extraction:
    """One dataset loaded for extraction-only scoring: its gold groups, names, turns and baselines."""

    def __init__(self, folder: Path, conversations: list[str] | None = None) -> None:
        self.data = load_dataset(folder, conversations=conversations)
        self.kind, gold = gold_points(self.data)
        self.cjk = self.kind == "evidence" and any(_CJK.search(g.text) for g in gold)
        self.groups = _groups(self.kind, gold)
        self.names = {c: frozenset().union(*(speaker_names(t.speaker) for t in conv.turns()))
                      for c, conv in self.data.conversations.items()}
        self.turns = sum(len(c.turns()) for c in self.data.conversations.values())
        all_turns = [(c, t.dialog_id, t.speaker, t.text) for c, conv in self.data.conversations.items()
                     for t in conv.turns()]
        self.baselines = {"first-person": baseline_first_person(all_turns, cjk=self.cjk),
                          "whole-turns": baseline_whole_turns(all_turns)}

    @property
    def group(self) -> str:
        """The group the selection is judged on: the User points where the gold has them apart
        (RealMem, BEAM), else all."""
        return "User" if "User" in self.groups else "all"

    def sessions(self):  # type: ignore[no-untyped-def]
        """``(conversation, transcript, label)`` for every session, the transcript as the provider
        gets it: every line (the heuristic reads a long session window by window)."""
        for name, conv in self.data.conversations.items():
            multi = _multi_party(conv)
            for session in conv.sessions:
                transcript, label = transcript_of(session, multi)
                yield name, transcript, label

    def score(self, proposals: list[Cited], group: str | None = None) -> Score:
        return score(proposals, self.groups[group or self.group], self.names, self.turns, cjk=self.cjk)

    def run(self) -> tuple[dict[str, dict[str, Score]], float]:
        """Every group's scores of riko's heuristic extraction and the baselines, and the CPU
        seconds of extract + parse + ground."""
        from riko.dream.heuristic import HeuristicProvider

        provider = HeuristicProvider()
        riko_props: list[Cited] = []
        started = time.process_time()
        for conv, transcript, label in self.sessions():
            riko_props += grounded_pages(conv, transcript, label, provider.extract(transcript),
                                         provider.page_limit(transcript))
        seconds = time.process_time() - started
        systems = {"riko": riko_props, **self.baselines}
        return ({g: {s: self.score(p, g) for s, p in systems.items()} for g in self.groups}, seconds)


def extraction_only(shared: Path, scratch: Path, chosen: list[str], per_group: int) -> None:
    rows = ["| set | gold | system | gold points | fact recall | precision | F1 | proposals / 100 turns | "
            "median words |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name in chosen:
        folder = extract(shared / f"{name}.tar.zst", scratch, GOLD[name])
        conversations = memdaily_subset(folder, per_group) if name == "memdaily" and per_group else None
        scores, seconds = Extraction(folder, conversations).run()
        print(f"{name}: extract + parse + ground {seconds:.1f} CPU s", flush=True)
        for group, systems in scores.items():
            for system, sc in systems.items():
                rows.append(f"| {name} | {group} | {system} | {sc.gold:,} | {sc.recall:.3f} | {sc.precision:.3f} | "
                            f"{sc.f1:.3f} | {sc.per_100_turns:.1f} | {sc.median_words:g} |")
    print("\n".join(rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", default=",".join(DATASETS), help="comma-separated (default all three)")
    parser.add_argument("--shared", default=str(REPO.parent / "shared" / "datasets"), help="folder of the archives")
    parser.add_argument("--scratch", default="/tmp/riko-datasets", help="extraction folder (reused)")
    parser.add_argument("--provider", default="heuristic", help="Dream provider (default heuristic)")
    parser.add_argument("--memdaily-per-group", type=int, default=MEMDAILY_PER_GROUP,
                        help=f"MemDaily conversations per group (default {MEMDAILY_PER_GROUP}; 0: all 3,000)")
    parser.add_argument("--max-conversations", type=int, default=None, help="cap every set (quick runs)")
    parser.add_argument("--e5", action="store_true", help="near-duplicates by e5 embeddings")
    parser.add_argument("--vector-cache", default=None, help="passage-vector cache for --e5")
    parser.add_argument("--check", action="store_true", help="compare every figure with the reference scorer")
    parser.add_argument("--out", default=None, metavar="DIR", help="write <set>.json per-proposal records here")
    parser.add_argument("--extraction-only", action="store_true",
                        help="the heuristic's grounded facts alone (no warehouse, admission or consolidation)")
    args = parser.parse_args()
    shared, scratch = Path(args.shared), Path(args.scratch)
    chosen = [d.strip() for d in args.datasets.split(",") if d.strip()]
    if args.extraction_only:
        per_group = args.memdaily_per_group if "--memdaily-per-group" in sys.argv else 0
        return extraction_only(shared, scratch, chosen, per_group)
    reports, checks = [], []
    for name in chosen:
        if name not in DATASETS:
            raise SystemExit(f"unknown dataset {name!r}; expected {', '.join(DATASETS)}")
        folder = extract(shared / f"{name}.tar.zst", scratch, GOLD[name])
        conversations = None
        if name == "memdaily" and args.memdaily_per_group:
            conversations = memdaily_subset(folder, args.memdaily_per_group)
        report = run_dream_quality(folder, provider=args.provider, conversations=conversations,
                                   max_conversations=args.max_conversations, e5=args.e5,
                                   vector_cache=args.vector_cache)
        print(report.text(), flush=True)
        print(flush=True)
        reports.append(report)
        if args.out:
            report.write_json(Path(args.out) / f"{name}.json")
        if args.check and report.kind in ("memories", "events"):
            target = Path(args.out or scratch / "reference") / f"{name}-reference"
            checks += check(report, target, shared / "score_memories.py")
        elif args.check:  # the reference scorer reads gold memories and events, not evidence turns
            checks.append(f"  {report.dataset}: not compared (gold is evidence turns, which the reference does not score)")
    print(markdown(reports))
    if checks:
        print("\nreference scorer (fact recall, precision, F1, proposals / 100 turns):")
        print("\n".join(checks))
    if args.out:
        summary = {r.dataset: r.to_dict() for r in reports}
        (Path(args.out) / "summary.json").write_text(json.dumps(summary, indent=1, default=str), encoding="utf-8")


if __name__ == "__main__":
    main()
