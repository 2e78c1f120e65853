"""Memory quality: what Dream extracts from a public set's conversations, scored against its gold.

Each conversation of a dataset folder (the shared layout, see :mod:`riko.evaluation.datasets`)
becomes one fresh scope in a temporary root: its turns are ingested (``user`` / ``assistant``
speakers as user and assistant messages; in a multi-party log every turn is a user message
``Speaker: text``), the real Dream runs over it, and every fact it proposed (candidates of any
status, plus pages no candidate stands for; entity pages are counted apart) is mapped back to
the turns its evidence cites. :func:`~riko.evaluation.memory_score.score` then applies the
fact-level rule beside two trivial baselines in the same run: every first-person sentence, and
every whole non-assistant turn.

The gold depends on what the folder holds:

- ``memories.jsonl`` (RealMem): the set's extracted memory points, each with the turn it came
  from, reported apart for the User and the Assistant turns;
- ``session_events.jsonl`` (REALTALK): per-session events about one speaker, without turn ids;
  an event may be recalled by any proposal citing a turn of that speaker in that session;
- otherwise the questions' evidence turns (MemDaily): each one is a statement a memory should
  hold. Text with CJK characters is also compared by character bigrams there.

    >>> report = run_dream_quality("/tmp/ds/realmem", max_conversations=2)   # doctest: +SKIP
    >>> print(report.text())                                                  # doctest: +SKIP
"""

from __future__ import annotations

import json
import os
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..contracts import parse_ref
from ..review.entities import ENTITY_CATEGORY
from ..errors import ConfigError, IngestError
from .datasets import Conversation, Dataset, Turn, _json_lines, load_dataset
from .memory_score import (
    Cited,
    GoldPoint,
    Score,
    baseline_first_person,
    baseline_whole_turns,
    content_words,
    score,
    speaker_names,
)
from ..dense.providers import E5Provider
from ..dense.text_cache import CachedProvider, default_cache_dir

__all__ = ["SYSTEMS", "DreamQualityReport", "gold_points", "run_dream_quality"]

SYSTEMS = ("riko", "first-person", "whole-turns")
PRESET = "dream-eval"
DUPLICATE_JACCARD = 0.6   #: content-word overlap at which two proposals of one subject say the same thing
DUPLICATE_COSINE = 0.92   #: e5 cosine at which they do (with ``e5``)
_TOPIC = re.compile(r"^【[^】]*】\s*")
_CJK = re.compile(r"[\u3400-\u9fff]")


def is_entity_page(page_type: str | None, kind: str | None, category: str | None = None) -> bool:
    """An entity page (a person, place, pet... with its aliases) indexes facts rather than
    stating one; identity statements (typed ``entity`` on pages written before they became
    ``synthesis`` pages) stay facts."""
    return page_type == "entity" and (category == ENTITY_CATEGORY or (kind or "") != "identity")


# -- gold -------------------------------------------------------------------------------------------
def gold_points(data: Dataset) -> tuple[str, list[GoldPoint]]:
    """The kind of gold the folder holds (``memories``, ``events`` or ``evidence``) and its points,
    for the loaded conversations only."""
    root = data.root
    if (root / "memories.jsonl").is_file():
        return "memories", _memories(root / "memories.jsonl", data)
    if (root / "session_events.jsonl").is_file():
        return "events", _events(root / "session_events.jsonl", data)
    return "evidence", _evidence(data)


def _memories(path: Path, data: Dataset) -> list[GoldPoint]:
    out = []
    for number, m in _json_lines(path):
        conv = m.get("conversation")
        if conv not in data.conversations or not m.get("dialogId"):
            continue  # another subset's conversation, or a point whose turn was not found
        if not isinstance(m.get("content"), (str, type(None))):
            raise IngestError("a memory needs a string 'content'", path, number)
        text = _TOPIC.sub("", m.get("content") or "")
        out.append(GoldPoint(conv, frozenset({str(m["dialogId"])}), text, str(m.get("type") or ""),
                             str(m.get("role") or ""), f"{path.name}:{number}"))
    return out


def _events(path: Path, data: Dataset) -> list[GoldPoint]:
    out = []
    for number, e in _json_lines(path):
        conv = data.conversations.get(e.get("conversation"))  # type: ignore[arg-type]
        if conv is None:
            continue
        for key in ("sessionId", "speaker", "event"):
            if not isinstance(e.get(key), str):
                raise IngestError(f"an event needs a string {key!r}", path, number)
        sessions = {s.name: s for s in conv.sessions}
        if e["sessionId"] not in sessions:
            raise IngestError(f"sessionId {e['sessionId']!r} is not a session of {conv.name!r}", path, number)
        turns = frozenset(t.dialog_id for t in sessions[e["sessionId"]].turns if t.speaker == e["speaker"])
        out.append(GoldPoint(conv.name, turns, e["event"], "event", e["speaker"],
                             f"{path.name}:{number} ({e['sessionId']}, {e['speaker']})"))
    return out


def _evidence(data: Dataset) -> list[GoldPoint]:
    out = []
    seen: set[tuple[str, str]] = set()
    for q in data.queries:
        conv = data.conversations[q.conversation]
        texts = {t.dialog_id: t for t in conv.turns()}
        for dialog in q.evidence:
            if (q.conversation, dialog) in seen or dialog not in texts:
                continue
            seen.add((q.conversation, dialog))
            turn = texts[dialog]
            out.append(GoldPoint(q.conversation, frozenset({dialog}), turn.text, q.category, turn.speaker,
                                 f"queries.jsonl:{q.line} ({q.id})"))
    return out


def _groups(kind: str, gold: Sequence[GoldPoint]) -> dict[str, dict[str, list[GoldPoint]]]:
    """Report groups: the User and Assistant points apart where the gold holds both (RealMem's
    memories; BEAM's evidence turns, which are user and assistant turns), otherwise all points
    together (REALTALK's events; MemDaily's evidence, all user statements)."""
    both = kind == "memories" or (kind == "evidence" and any(g.role.lower() == "assistant" for g in gold))
    names = ("User", "Assistant") if both else ("all",)
    out: dict[str, dict[str, list[GoldPoint]]] = {}
    for name in names:
        by_conv: dict[str, list[GoldPoint]] = defaultdict(list)
        for g in gold:
            if name == "all" or g.role.lower() == name.lower():
                by_conv[g.conversation].append(g)
        out[name] = dict(by_conv)
    return out


# -- one conversation through riko ------------------------------------------------------------------
def _multi_party(conv: Conversation) -> bool:
    return any(t.speaker.lower() not in ("user", "assistant") for t in conv.turns())


def _l0_lines(turns: Sequence[Turn], multi: bool) -> Iterable[dict[str, Any]]:
    for turn in turns:
        text = f"{turn.speaker}: {turn.text}" if multi else turn.text
        content = [{"type": "text", "text": text}]
        if not multi and turn.speaker.lower() == "assistant":
            yield {"schemaVersion": 1, "sessionId": turn.session, "seq": turn.seq, "time": turn.time_ms,
                   "type": "assistant/message",
                   "data": {"message": {"role": "assistant", "content": content,
                                        "source": {"kind": "model", "provider": "dataset", "model": "dataset"}}}}
        else:
            yield {"schemaVersion": 1, "sessionId": turn.session, "seq": turn.seq, "time": turn.time_ms,
                   "type": "user/message",
                   "data": {"message": {"role": "user", "source": {"kind": "user"}, "content": content}}}


def _json_list(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, list):
        return value
    try:
        parsed = json.loads(value)
    except (TypeError, ValueError):
        return []
    return parsed if isinstance(parsed, list) else []


def _slot(row: Mapping[str, Any]) -> str | None:
    """The subject/slot key riko derived for a proposal, wherever the row carries it."""
    for key in ("slot", "slot_key"):
        if isinstance(row.get(key), str) and row[key]:
            return str(row[key])
    extra = row.get("extra")
    if isinstance(extra, str):
        try:
            extra = json.loads(extra)
        except ValueError:
            extra = None
    if isinstance(extra, dict) and isinstance(extra.get("slot"), str) and extra["slot"]:
        return str(extra["slot"])
    for tag in _json_list(row.get("tags")):
        if isinstance(tag, str) and tag.startswith("slot:"):
            return tag[5:]
    return None



@dataclass
class _Dreamed:
    conversation: str
    proposals: list[Cited]
    entity_titles: set[str]
    structure: dict[str, Any]
    dream_seconds: float
    sessions: int


def _dream_conversation(conv: Conversation, number: int, base: Path, dream: Mapping[str, Any],
                        config: Mapping[str, Any]) -> _Dreamed:
    import riko

    root = base / f"{number:05d}"
    if root.exists():
        raise ConfigError("work_dir", f"{root} already holds a scope; give an empty work folder")
    logs = root / "logs"
    logs.mkdir(parents=True)
    multi = _multi_party(conv)
    label: dict[tuple[str, int], Turn] = {}
    paths = []
    for session in conv.sessions:
        path = logs / f"{session.name}.jsonl"
        with path.open("w", encoding="utf-8") as out:
            for line in _l0_lines(session.turns, multi):
                out.write(json.dumps(line, ensure_ascii=False) + "\n")
        label.update({(t.session, t.seq): t for t in session.turns})
        paths.append(path)
    mem = riko.open(root / "memory", preset=PRESET, config=dict(config))
    try:
        report = mem.ingest(paths, preset=PRESET, progress=False)
        if report.issue_rows:
            raise IngestError(f"riko refused {len(report.issue_rows)} turn(s) of {conv.name!r}; "
                              f"first: {report.issue_rows[0]}")
        started = time.perf_counter()
        mem.dream(progress=False, **dream)
        seconds = time.perf_counter() - started
        ctx = mem.context
        candidates = ctx.review.cands.records()
        pages = {p.id: p for p in ctx.canon.pages() if p.status != "forgotten"}
        resident = mem.resident()
        graph = mem.graph()
    finally:
        mem.close()

    def turns_of(refs: Iterable[Any]) -> frozenset[str]:
        out = set()
        for ref in refs:
            parsed = parse_ref(ref) if isinstance(ref, str) else None
            if parsed is not None and parsed in label:
                out.add(label[parsed].dialog_id)
        return frozenset(out)

    speaker = {t.dialog_id: t.speaker for t in label.values()}
    entity_titles = {c["title"] for c in candidates if is_entity_page(c["type"], c.get("kind"), c.get("category"))}
    entity_titles |= {p.title for p in pages.values() if is_entity_page(p.type, p.kind, p.category)}
    stood_for = {c["page_id"] for c in candidates if c.get("page_id")}
    proposals = []
    for c in candidates:
        if is_entity_page(c["type"], c.get("kind"), c.get("category")):
            continue
        cited = turns_of(_json_list(c.get("evidence")))
        proposals.append(Cited(conv.name, cited, _text(c.get("title"), c.get("description"), c.get("body")), {
            "id": c["id"], "kind": "candidate", "status": c["status"], "type": c["type"], "slot": _slot(c),
            "links": [str(x) for x in _json_list(c.get("links"))],
            "speakers": sorted({speaker[d] for d in cited}),
        }))
    for page in pages.values():
        if page.id in stood_for or is_entity_page(page.type, page.kind, page.category):
            continue
        cited = turns_of(page.sources)
        proposals.append(Cited(conv.name, cited, _text(page.title, page.description, page.body), {
            "id": page.id, "kind": "page", "status": page.status, "type": page.type,
            "slot": _slot({"extra": page.extra, "tags": list(page.tags)}),
            "links": [link.target for link in page.links()],
            "speakers": sorted({speaker[d] for d in cited}),
        }))
    nodes = [n for n in graph.nodes if not graph.nodes[n].get("broken")]
    structure = {
        "graph_nodes": len(nodes),
        "isolated_nodes": sum(1 for n in nodes if graph.degree(n) == 0),
        "graph_edges": sum(1 for a, b in graph.edges if not graph.nodes[b].get("broken")),
        "resident_chars": len(resident.text), "resident_max_chars": resident.max_chars,
        "resident_blocks": {b.kind: len(b.text) for b in resident.blocks},
        "resident_entries": sum(len(b.entries) for b in resident.blocks),
    }
    return _Dreamed(conv.name, proposals, entity_titles, structure, seconds, len(conv.sessions))


def _text(*parts: Any) -> str:
    """Title, description and body together; a part another part already holds (a title that is
    the description, a description repeated as the body) is counted once, so repeating a fact
    does not lengthen it."""
    kept = [p for p in parts if isinstance(p, str) and p.strip()]
    folded = [" " + " ".join(re.findall(r"\w+", p.casefold())) + " " for p in kept]  # whole words only
    return "\n".join(p for i, p in enumerate(kept)
                     if not any(folded[i] in other and (folded[i] != other or j < i)
                                for j, other in enumerate(folded) if j != i))


# -- structure figures ------------------------------------------------------------------------------
def _normal_title(title: str) -> str:
    return " ".join(title.casefold().split())


def near_duplicates(proposals: Sequence[Cited], names: Mapping[str, frozenset[str]], *, cjk: bool = False,
                    vectors: Mapping[int, Any] | None = None) -> list[tuple[int, int]]:
    """Pairs ``(earlier, later)`` of proposals of one conversation and one subject (riko's slot
    key, else the page type) that say the same thing: content words with Jaccard at least
    ``DUPLICATE_JACCARD``, or with ``vectors`` (index → unit vector) cosine at least
    ``DUPLICATE_COSINE``."""
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, p in enumerate(proposals):
        groups[(p.conversation, str(p.info.get("slot") or p.info.get("type") or ""))].append(i)
    pairs = []
    for (conv, _), members in groups.items():
        words = {i: content_words(proposals[i].text, names.get(conv, frozenset()), cjk=cjk) for i in members}
        if vectors is not None:
            import numpy as np

            matrix = np.asarray([vectors[i] for i in members], dtype=np.float32)
            sims = matrix @ matrix.T
            for a in range(len(members)):
                for b in range(a + 1, len(members)):
                    if sims[a, b] >= DUPLICATE_COSINE:
                        pairs.append((members[a], members[b]))
            continue
        index: dict[str, list[int]] = defaultdict(list)
        for i in members:
            near: set[int] = set()
            for w in words[i]:
                near.update(index[w])
                index[w].append(i)
            for j in sorted(near):
                union = words[i] | words[j]
                if union and len(words[i] & words[j]) / len(union) >= DUPLICATE_JACCARD:
                    pairs.append((j, i))
    return sorted(pairs)


def _structure(proposals: Sequence[Cited], dreamed: Sequence[_Dreamed], duplicates: Sequence[tuple[int, int]],
               ) -> dict[str, Any]:
    entity_by_conv = {d.conversation: {_normal_title(t) for t in d.entity_titles} for d in dreamed}
    linked = sum(1 for p in proposals if p.info.get("links"))
    to_entity = sum(1 for p in proposals
                    if any(_normal_title(x) in entity_by_conv.get(p.conversation, set()) for x in p.info.get("links", ())))
    later = {b for _, b in duplicates}
    nodes = sum(d.structure["graph_nodes"] for d in dreamed)
    isolated = sum(d.structure["isolated_nodes"] for d in dreamed)
    fills = [d.structure["resident_chars"] / max(1, d.structure["resident_max_chars"]) for d in dreamed]
    blocks: dict[str, int] = defaultdict(int)
    for d in dreamed:
        for kind, chars in d.structure["resident_blocks"].items():
            blocks[kind] += chars
    n = len(proposals)
    return {
        "fact_proposals": n,
        "near_duplicate_share": len(later) / max(1, n), "near_duplicate_pairs": len(duplicates),
        "linked_share": linked / max(1, n), "entity_linked_share": to_entity / max(1, n),
        "entity_pages": sum(len(titles) for titles in entity_by_conv.values()),
        "graph_nodes": nodes, "graph_edges": sum(d.structure["graph_edges"] for d in dreamed),
        "isolated_share": isolated / max(1, nodes),
        "resident_fill_mean": statistics.fmean(fills) if fills else 0.0,
        "resident_fill_max": max(fills, default=0.0),
        "resident_entries": sum(d.structure["resident_entries"] for d in dreamed),
        "resident_block_chars": dict(sorted(blocks.items())),
    }


# -- the report -------------------------------------------------------------------------------------
@dataclass
class DreamQualityReport:
    """Scores per gold group and system, structure figures of riko's Wiki, and every item."""

    dataset: str
    kind: str
    setup: dict[str, Any]
    scores: dict[str, dict[str, Score]]                      # group -> system -> score
    structure: dict[str, Any]
    proposals: dict[str, list[Cited]] = field(default_factory=dict)   # system -> its proposals
    gold: list[GoldPoint] = field(default_factory=list)
    regroup: dict[str, dict[str, str]] = field(default_factory=dict)  # conversation -> dialogId -> gold id

    def summary(self) -> dict[str, dict[str, dict[str, float]]]:
        return {g: {s: sc.figures() for s, sc in systems.items()} for g, systems in self.scores.items()}

    def by_type(self) -> dict[str, dict[str, dict[str, dict[str, float]]]]:
        return {g: {s: sc.by_type() for s, sc in systems.items()} for g, systems in self.scores.items()}

    def to_dict(self) -> dict[str, Any]:
        return {"dataset": self.dataset, "gold": self.kind, "setup": self.setup, "summary": self.summary(),
                "by_type": self.by_type(), "structure": self.structure}

    def write_json(self, path: str | os.PathLike[str]) -> Path:
        """The summary plus, per gold group, riko's proposals with what each matched, and the
        gold points riko missed with the proposals that cited their turns."""
        records: dict[str, Any] = {}
        for group, systems in self.scores.items():
            sc = systems["riko"]
            by_turn: dict[tuple[str, str], list[str]] = defaultdict(list)
            for p in sc.proposal_rows:
                for t in p["turns"]:
                    by_turn[(p["conversation"], t)].append(p["text"])
            gold_turn: dict[tuple[str, str], list[str]] = defaultdict(list)
            for g in sc.gold_rows:
                for t in g["turns"]:
                    gold_turn[(g["conversation"], t)].append(g["text"])
            proposals = [{**p, "gold": sorted({x for t in p["turns"] for x in gold_turn[(p["conversation"], t)]})}
                         for p in sc.proposal_rows]
            misses = [{**g, "proposals": sorted({x for t in g["turns"] for x in by_turn[(g["conversation"], t)]})}
                      for g in sc.gold_rows if g["counted"] and not g["recalled"]]
            records[group] = {"proposals": proposals, "misses": misses}
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps({**self.to_dict(), "records": records}, ensure_ascii=False, indent=1),
                          encoding="utf-8")
        return target

    def write_reference(self, directory: str | os.PathLike[str]) -> Path:
        """A folder the reference scorer reads: ``memories.jsonl`` (the gold; an event's turns
        become one id per session and speaker), ``sessions/`` linking the scored conversations,
        and one proposals JSONL per system (``{conversation, dialogIds, text}``)."""
        out = Path(directory)
        (out / "sessions").mkdir(parents=True, exist_ok=True)
        for conv in self.setup["conversation_names"]:
            link = out / "sessions" / conv
            if not link.exists():
                link.symlink_to((Path(self.setup["root"]) / "sessions" / conv).resolve(), target_is_directory=True)
        with (out / "memories.jsonl").open("w", encoding="utf-8") as f:
            for g in self.gold:
                ids = sorted({self._gold_id(g.conversation, t) for t in g.turns})
                if not ids and self.kind == "events":
                    ids = [f"{g.ref}|no-turns"]
                role = g.role if self.kind == "memories" else "User"
                for dialog in ids[:1]:
                    f.write(json.dumps({"conversation": g.conversation, "dialogId": dialog, "type": g.type,
                                        "content": g.text, "role": role}, ensure_ascii=False) + "\n")
        for system, props in self.proposals.items():
            with (out / f"{system}.jsonl").open("w", encoding="utf-8") as f:
                for p in props:
                    ids = sorted({self._gold_id(p.conversation, t) for t in p.turns})
                    f.write(json.dumps({"conversation": p.conversation, "dialogIds": ids, "text": p.text},
                                       ensure_ascii=False) + "\n")
        return out

    def _gold_id(self, conversation: str, dialog: str) -> str:
        return self.regroup.get(conversation, {}).get(dialog, dialog)

    def text(self, *, types: bool = True) -> str:
        """The printable tables: per gold group every system's figures (then per gold type), and
        the structure figures of riko's Wiki."""
        s = self.setup
        lines = [f"{self.dataset}: {s['conversations']} conversations, {s['sessions']} sessions, {s['turns']} turns; "
                 f"gold {self.kind}; Dream {s['provider']} {s['dream_seconds']:.1f} s "
                 f"({s['sessions_per_second']:.0f} sessions/s), whole run {s['seconds']:.1f} s"]
        head = ["group", "system", "gold", "recall", "precision", "F1", "per 100 turns", "median words"]
        for group, systems in self.scores.items():
            rows = [head]
            for system, sc in systems.items():
                rows.append([group, system, str(sc.gold), f"{sc.recall:.3f}", f"{sc.precision:.3f}", f"{sc.f1:.3f}",
                             f"{sc.per_100_turns:.1f}", f"{sc.median_words:g}"])
                if types:
                    for kind, f in sc.by_type().items():
                        rows.append(["", f"  {kind or '-'}", str(f["gold"]), f"{f['fact_recall']:.3f}",
                                     f"{f['precision']:.3f}", f"{f['f1']:.3f}", "", f"{f['median_words']:g}"])
            lines += ["", _render(rows)]
        st = self.structure
        blocks = ", ".join(f"{k} {v}" for k, v in st["resident_block_chars"].items()) or "none"
        lines += ["", f"riko Wiki: {st['fact_proposals']} fact proposals; near-duplicate share "
                      f"{st['near_duplicate_share']:.3f} ({st['near_duplicate_pairs']} pairs, {st['duplicates_by']}); "
                      f"with >= 1 link {st['linked_share']:.3f}; linked to an entity page {st['entity_linked_share']:.3f}; "
                      f"entity pages {st['entity_pages']}",
                  f"graph: {st['graph_nodes']} nodes, {st['graph_edges']} edges, isolated share {st['isolated_share']:.3f}; "
                  f"Resident fill mean {st['resident_fill_mean']:.3f} (max {st['resident_fill_max']:.3f}), "
                  f"{st['resident_entries']} entries; block chars: {blocks}"]
        return "\n".join(lines)


def _render(rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
                     for r in rows)


# -- the run ----------------------------------------------------------------------------------------
def run_dream_quality(
    directory: str | os.PathLike[str],
    *,
    provider: str | None = "heuristic",
    url: str | None = None,
    model: str | None = None,
    credential_ref: str | None = None,
    conversations: Iterable[str] | None = None,
    max_conversations: int | None = None,
    e5: bool = False,
    embedding: Any = None,
    vector_cache: str | os.PathLike[str] | None = None,
    work_dir: str | os.PathLike[str] | None = None,
    config: Mapping[str, Any] | None = None,
    progress: bool | None = None,
) -> DreamQualityReport:
    """Dream every chosen conversation of a dataset folder and score it and the baselines.

    ``provider`` (and ``url`` / ``model`` / ``credential_ref``) go to ``mem.dream``; ``config``
    adds settings to every scope. With ``e5`` (or an ``embedding`` provider object) near-duplicates
    are judged by embeddings instead of content words. Progress goes to stderr on a terminal.
    """
    data = load_dataset(directory, conversations=conversations, max_conversations=max_conversations)
    if not data.conversations:
        raise ConfigError("conversations", "no conversation chosen")
    kind, gold = gold_points(data)
    cjk = kind == "evidence" and any(_CJK.search(g.text) for g in gold)
    names = {c: frozenset().union(*(speaker_names(t.speaker) for t in conv.turns()))
             for c, conv in data.conversations.items()}
    turns = sum(len(c.turns()) for c in data.conversations.values())
    dream: dict[str, Any] = {"provider": provider}
    dream.update({k: v for k, v in (("url", url), ("model", model), ("credential_ref", credential_ref)) if v})
    settings = {"embedding_provider": "off", **(config or {})}
    show = sys.stderr.isatty() if progress is None else progress
    started = time.perf_counter()
    dreamed: list[_Dreamed] = []
    from tqdm import tqdm

    with tempfile.TemporaryDirectory(prefix="riko-dream-eval-") as tmp:
        base = Path(work_dir) if work_dir is not None else Path(tmp)
        bar = tqdm(total=len(data.conversations), desc=f"dream {data.name}", unit="conversation", disable=not show,
                   leave=False)
        try:
            for number, conv in enumerate(data.conversations.values(), start=1):
                dreamed.append(_dream_conversation(conv, number, base, dream, settings))
                bar.update(1)
        finally:
            bar.close()
    riko_props = [p for d in dreamed for p in d.proposals]
    all_turns = [(c, t.dialog_id, t.speaker, t.text) for c, conv in data.conversations.items() for t in conv.turns()]
    systems = {"riko": riko_props, "first-person": baseline_first_person(all_turns, cjk=cjk),
               "whole-turns": baseline_whole_turns(all_turns)}
    scores = {group: {name: score(props, by_conv, names, turns, cjk=cjk) for name, props in systems.items()}
              for group, by_conv in _groups(kind, gold).items()}
    vectors = None
    if e5 or embedding is not None:
        vectors = _vectors(riko_props, embedding, vector_cache)
    duplicates = near_duplicates(riko_props, names, cjk=cjk, vectors=vectors)
    structure = _structure(riko_props, dreamed, duplicates)
    structure["duplicates_by"] = "embeddings" if vectors is not None else "content words"
    dream_seconds = sum(d.dream_seconds for d in dreamed)
    sessions = sum(d.sessions for d in dreamed)
    setup = {"dataset": data.name, "root": str(data.root), "gold": kind, "cjk_bigrams": cjk,
             "conversations": len(data.conversations), "conversation_names": list(data.conversations),
             "sessions": sessions, "turns": turns, "provider": provider or "configured",
             "dream_seconds": round(dream_seconds, 3), "sessions_per_second": sessions / max(dream_seconds, 1e-9),
             "seconds": round(time.perf_counter() - started, 3)}
    regroup: dict[str, dict[str, str]] = {}
    if kind == "events":  # the reference scorer knows turn ids only: one id per session and speaker
        for c, conv in data.conversations.items():
            regroup[c] = {t.dialog_id: f"{t.session}|{t.speaker}" for t in conv.turns()}
    return DreamQualityReport(data.name, kind, setup, scores, structure, systems, gold, regroup)


def _vectors(proposals: Sequence[Cited], embedding: Any, cache: str | os.PathLike[str] | None) -> dict[int, Any]:
    import numpy as np


    model = CachedProvider(embedding if embedding is not None else E5Provider(),
                           cache if cache is not None else default_cache_dir())
    if not proposals:
        return {}
    matrix = np.asarray(model.embed_passages([p.text for p in proposals]), dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit = matrix / np.where(norms == 0, 1, norms)
    return dict(enumerate(unit))
