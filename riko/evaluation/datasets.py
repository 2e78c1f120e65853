"""Public conversational-memory datasets in the shared layout, ranked by riko beside plain baselines.

A dataset folder holds ``queries.jsonl`` (one question a line, gold evidence as ``dialogId``\\s)
and ``sessions/<conversation>/<session>.jsonl`` (one turn a line, in order). Each conversation
is one memory: its turns are indexed as ``Speaker: text``, and a question is scored by where
its evidence turns land in each system's ranking. A question that names a ``query_session``
(RealMem) sees only the sessions before that one, so the reply that restates the memory is
never in the haystack. Questions without evidence (abstention) are counted, not ranked.

A turn whose speaker is ``Assistant`` is the assistant's: with ``roles="all"`` (the default)
riko stores it as an assistant message (recall evidence labelled ``[assistant]``, never the
user's words) and every system ranks it; with ``roles="user"`` only the other speakers' turns
are indexed anywhere. Every question is grouped by who holds its evidence (the speakers of
its evidence turns, and, where the folder holds ``memories.jsonl`` and
``queries_memory_used.jsonl``, the role of its gold memory points), and scored per group.

    >>> report = run_dataset("/tmp/ds/realtalk", systems=["riko", "bm25s"])   # doctest: +SKIP
    >>> print(report.text())                                                   # doctest: +SKIP
"""

from __future__ import annotations

import json
import math
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..clock import to_ms, utc
from ..errors import ConfigError, IngestError
from .retrieval import NDCG_CUTOFF, evidence_ranks, ndcg_gain, percentile

__all__ = [
    "BASELINES",
    "DENSE_SYSTEMS",
    "OPTIONAL_SYSTEMS",
    "DEPTH",
    "FRACS",
    "ROLES",
    "HITS",
    "SYSTEMS",
    "Conversation",
    "Dataset",
    "DatasetQuery",
    "DatasetReport",
    "Session",
    "Turn",
    "keep_roles",
    "load_dataset",
    "role_group",
    "run_dataset",
    "summarize",
]

HITS = (1, 5, 10)
FRACS = (5, 10, 25, 50)
DEPTH = 100  #: ranking depth retrieved per question; MRR is over this list
SYSTEMS = ("riko", "riko+e5", "bm25s", "e5", "rrf")
#: Run only when named: riko with the embedded ``local-fast`` model (USE) in place of e5.
OPTIONAL_SYSTEMS = ("riko+fast",)
DENSE_SYSTEMS = frozenset({"riko+e5", "e5", "rrf", "riko+fast"})
BASELINES = ("bm25s", "rrf")
ROLES = ("all", "user")
ASSISTANT_SPEAKER = "assistant"
METRICS = (*(f"hit@{k}" for k in HITS), *(f"frac@{k}" for k in FRACS), "mrr", f"ndcg@{NDCG_CUTOFF}")
_NATURAL = re.compile(r"(\d+)")
_STEP_MS = 1  # a turn without a time follows the one before it by this much


@dataclass(frozen=True)
class Turn:
    """One turn of a conversation: where it sits, who said it, and its label id."""

    session: str
    seq: int
    time_ms: int
    speaker: str
    text: str
    dialog_id: str

    @property
    def passage(self) -> str:
        """The indexed text: ``Speaker: text``."""
        return f"{self.speaker}: {self.text}"

    @property
    def role(self) -> str:
        """``assistant`` for the assistant's turns (speaker ``Assistant``), ``user`` for everyone else's."""
        return "assistant" if self.speaker.casefold() == ASSISTANT_SPEAKER else "user"


@dataclass(frozen=True)
class Session:
    name: str
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class Conversation:
    """One memory: its sessions in order."""

    name: str
    sessions: tuple[Session, ...]

    def turns(self, sessions: int | None = None) -> list[Turn]:
        """Every turn of the first ``sessions`` sessions (all when None), in order."""
        return [t for s in self.sessions[:sessions] for t in s.turns]


@dataclass(frozen=True)
class DatasetQuery:
    """One question; ``visible`` is how many of its conversation's sessions it may see."""

    id: str
    conversation: str
    question: str
    category: str
    evidence: tuple[str, ...]
    visible: int
    line: int
    #: Roles of the question's gold memory points (``user`` / ``assistant``), when the folder says.
    memory_roles: tuple[str, ...] = ()


@dataclass
class Dataset:
    name: str
    root: Path
    conversations: dict[str, Conversation]
    queries: list[DatasetQuery]


def _natural_key(name: str) -> list[Any]:
    return [int(part) if part.isdigit() else part for part in _NATURAL.split(name)]


def _json_lines(path: Path) -> Iterable[tuple[int, dict[str, Any]]]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise IngestError("missing dataset file", path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise IngestError(f"unreadable dataset file ({exc})", path) from None
    for number, raw in enumerate(text.split("\n"), start=1):  # JSON text may hold U+2028 and friends
        if not raw.strip():
            continue
        try:
            data = json.loads(raw)
        except ValueError as exc:
            raise IngestError(f"not JSON ({exc})", path, number) from None
        if not isinstance(data, dict):
            raise IngestError(f"a line must be a JSON object, got {type(data).__name__}", path, number)
        yield number, data


def _label(value: Any) -> str | None:
    """A dialogId as the string both sides compare by (integers and strings alike)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, str)) and str(value).strip():
        return str(value)
    return None


def _load_session(path: Path, conversation: str, last_ms: int, seen: set[str]) -> tuple[Session, int]:
    turns: list[Turn] = []
    name = path.name.removesuffix(".jsonl")
    for number, data in _json_lines(path):
        message = (data.get("data") or {}).get("message") if isinstance(data.get("data"), dict) else None
        if not isinstance(message, dict) or not isinstance(message.get("text"), str):
            raise IngestError("a turn needs data.message.text (a string)", path, number)
        seq = data.get("seq")
        if isinstance(seq, bool) or not isinstance(seq, int) or seq < 0:
            raise IngestError(f"a turn needs a non-negative integer seq, got {seq!r}", path, number)
        if turns and seq <= turns[-1].seq:
            raise IngestError(f"seq {seq} does not follow {turns[-1].seq}", path, number)
        dialog = _label(message.get("dialogId"))
        if dialog is None:
            raise IngestError(f"a turn needs a dialogId (string or integer), got {message.get('dialogId')!r}",
                              path, number)
        if dialog in seen:
            raise IngestError(f"dialogId {dialog!r} repeats within conversation {conversation!r}", path, number)
        seen.add(dialog)
        when = data.get("time")
        if when is None:
            last_ms += _STEP_MS  # no time: keep the order of the file
        else:
            try:
                last_ms = to_ms(utc(when))
            except (TypeError, ValueError):
                raise IngestError(f"time must be an ISO time or null, got {when!r}", path, number) from None
        speaker = message.get("speaker")
        speaker = speaker.strip() if isinstance(speaker, str) and speaker.strip() else "user"
        turns.append(Turn(name, seq, last_ms, speaker, message["text"], dialog))
    return Session(name, tuple(turns)), last_ms


def load_dataset(directory: str | os.PathLike[str], *, conversations: Iterable[str] | None = None,
                 max_conversations: int | None = None) -> Dataset:
    """Read one extracted dataset folder; ``conversations`` / ``max_conversations`` keep a subset
    (by name, or the first N in natural order). Any defect is an IngestError naming file and line."""
    root = Path(directory).expanduser()
    sessions_dir, queries_path = root / "sessions", root / "queries.jsonl"
    if not root.is_dir():
        raise IngestError("no such dataset folder", root)
    if not sessions_dir.is_dir():
        raise IngestError("missing the sessions/ folder of the dataset", sessions_dir)
    names = sorted((p.name for p in sessions_dir.iterdir() if p.is_dir() and not p.name.startswith(".")),
                   key=_natural_key)
    if conversations is not None:
        wanted = list(dict.fromkeys(conversations))
        unknown = [c for c in wanted if c not in names]
        if unknown:
            raise ConfigError("conversations", f"not in {sessions_dir}: {', '.join(unknown)}")
        names = [n for n in names if n in set(wanted)]
    if max_conversations is not None:
        names = names[:max(0, max_conversations)]
    convs: dict[str, Conversation] = {}
    for name in names:
        files = sorted((p for p in (sessions_dir / name).glob("*.jsonl") if not p.name.startswith(".")),
                       key=lambda p: _natural_key(p.name))
        seen: set[str] = set()
        last_ms = to_ms(utc("2000-01-01T00:00:00"))
        loaded = []
        for path in files:
            session, last_ms = _load_session(path, name, last_ms, seen)
            loaded.append(session)
        convs[name] = Conversation(name, tuple(loaded))
    queries = _load_queries(queries_path, convs, all_names=set(names) if conversations is None and
                            max_conversations is None else None)
    roles = _memory_roles(root)
    if roles:
        queries = [replace(q, memory_roles=roles.get(q.id, ())) for q in queries]
    return Dataset(root.name, root, convs, queries)


def _memory_roles(root: Path) -> dict[str, tuple[str, ...]]:
    """Question id -> the roles of its gold memory points, from ``memories.jsonl`` (each point's
    ``content`` and ``role``) and ``queries_memory_used.jsonl`` (each question's points); empty
    when the folder has neither."""
    memories, used = root / "memories.jsonl", root / "queries_memory_used.jsonl"
    if not (memories.is_file() and used.is_file()):
        return {}
    role_of: dict[tuple[str, str], set[str]] = {}
    for _, data in _json_lines(memories):
        content, role = data.get("content"), data.get("role")
        if not isinstance(role, str) or content is None:
            continue
        key = content if isinstance(content, str) else json.dumps(content)
        role_of.setdefault((str(data.get("conversation")), key), set()).add(role.casefold())
    out: dict[str, tuple[str, ...]] = {}
    for _, data in _json_lines(used):
        qid, points = data.get("id"), data.get("memory_used")
        if not isinstance(qid, str) or not isinstance(points, list):
            continue
        conversation = qid.partition(":")[0]
        found: set[str] = set()
        for point in points:
            key = point if isinstance(point, str) else json.dumps(point)
            found |= role_of.get((conversation, key), set())
        out[qid] = tuple(sorted(r for r in found if r in ("user", "assistant")))
    return out


def role_group(roles: Iterable[str]) -> str:
    """``user``, ``assistant`` or ``mixed`` for a set of roles (``none`` when empty)."""
    found = set(roles)
    if not found:
        return "none"
    return found.pop() if len(found) == 1 else "mixed"


def keep_roles(data: Dataset, roles: str) -> Dataset:
    """``data`` with only the turns ``roles`` indexes (``all``: every turn; ``user``: no assistant turn)."""
    if roles not in ROLES:
        raise ConfigError("roles", f"must be one of {', '.join(ROLES)}, got {roles!r}")
    if roles == "all":
        return data
    convs = {name: Conversation(name, tuple(Session(s.name, tuple(t for t in s.turns if t.role == "user"))
                                            for s in conv.sessions))
             for name, conv in data.conversations.items()}
    return Dataset(data.name, data.root, convs, data.queries)


def _load_queries(path: Path, convs: Mapping[str, Conversation], all_names: set[str] | None) -> list[DatasetQuery]:
    out: list[DatasetQuery] = []
    ids: set[str] = set()
    for number, data in _json_lines(path):
        for key in ("id", "conversation", "question"):
            if not isinstance(data.get(key), str) or not data[key].strip():
                raise IngestError(f"a question needs a non-empty string {key!r}", path, number)
        conv = convs.get(data["conversation"])
        if conv is None:
            if all_names is not None:
                raise IngestError(f"conversation {data['conversation']!r} has no folder under sessions/", path, number)
            continue  # outside the chosen subset
        if data["id"] in ids:
            raise IngestError(f"duplicate question id {data['id']!r}", path, number)
        ids.add(data["id"])
        evidence = data.get("evidence")
        if not isinstance(evidence, list):
            raise IngestError("'evidence' must be a list of dialogIds (empty for abstention)", path, number)
        labels = [_label(e) for e in evidence]
        if None in labels:
            raise IngestError(f"evidence items must be dialogIds (string or integer), got {evidence!r}", path, number)
        visible = len(conv.sessions)
        cutoff = data.get("query_session")
        if cutoff is not None:
            names = [s.name for s in conv.sessions]
            if cutoff not in names:
                raise IngestError(f"query_session {cutoff!r} is not a session of {conv.name!r}", path, number)
            visible = names.index(cutoff)
            stated = data.get("query_session_index")
            if stated is not None and stated != visible:
                raise IngestError(f"query_session_index {stated!r} disagrees with {cutoff!r}, session "
                                  f"{visible} of {conv.name!r} in order", path, number)
        category = data.get("category")
        out.append(DatasetQuery(data["id"], conv.name, data["question"], "" if category is None else str(category),
                                tuple(dict.fromkeys(labels)), visible, number))  # type: ignore[arg-type]
    return out


# -- metrics ----------------------------------------------------------------------------------------
def summarize(records: Sequence[Mapping[str, Any]], system: str) -> dict[str, float]:
    """Means of every metric for ``system`` over ``records`` (each with ``evidence`` and
    ``ranks[system]``), computed exactly in rationals (nDCG with math.fsum), plus latency p50/p95."""
    rows = [r for r in records if system in r["ranks"]]
    if not rows:
        return {}
    n = len(rows)
    hit = {k: Fraction(0) for k in HITS}
    frac = {k: Fraction(0) for k in FRACS}
    rr = Fraction(0)
    for r in rows:
        ranks = [x for x in r["ranks"][system] if x is not None]
        total = len(r["ranks"][system])
        best = min(ranks, default=None)
        for k in HITS:
            hit[k] += best is not None and best <= k
        for k in FRACS:
            frac[k] += Fraction(sum(x <= k for x in ranks), total)
        if best is not None:
            rr += Fraction(1, best)
    latency = [r["latency_ms"][system] for r in rows]
    out: dict[str, float] = {"queries": float(n)}
    out.update({f"hit@{k}": float(hit[k] / n) for k in HITS})
    out.update({f"frac@{k}": float(frac[k] / n) for k in FRACS})
    out["mrr"] = float(rr / n)
    out[f"ndcg@{NDCG_CUTOFF}"] = math.fsum(ndcg_gain(r["ranks"][system]) for r in rows) / n
    out["latency_p50_ms"] = statistics.median(latency)
    out["latency_p95_ms"] = percentile(latency, 0.95)
    return out


@dataclass
class DatasetReport:
    """Per-question records (ranks of each evidence turn per system) and their summaries."""

    dataset: str
    systems: tuple[str, ...]
    records: list[dict[str, Any]]
    abstentions: list[str] = field(default_factory=list)
    setup: dict[str, Any] = field(default_factory=dict)

    def summary(self) -> dict[str, dict[str, float]]:
        """Per system: every metric's mean over the ranked questions, and latency p50/p95 (ms)."""
        return {s: summarize(self.records, s) for s in self.systems if any(s in r["ranks"] for r in self.records)}

    def by_category(self) -> dict[str, dict[str, dict[str, float]]]:
        """The same summary per question category."""
        out = {}
        for cat in sorted({r["category"] for r in self.records}, key=_natural_key):
            rows = [r for r in self.records if r["category"] == cat]
            out[cat] = {s: summarize(rows, s) for s in self.systems if any(s in r["ranks"] for r in rows)}
        return out

    def by_role(self) -> dict[str, dict[str, dict[str, dict[str, float]]]]:
        """The same summary per evidence group: ``evidence`` (speakers of the evidence turns) and,
        where the dataset says, ``memory`` (roles of the gold memory points); each maps
        ``user`` / ``assistant`` / ``mixed`` to the per-system summary."""
        out: dict[str, dict[str, dict[str, dict[str, float]]]] = {}
        for grouping in ("evidence", "memory"):
            groups = sorted({r["roles"][grouping] for r in self.records if r.get("roles", {}).get(grouping) not in
                             (None, "none")})
            if not groups:
                continue
            out[grouping] = {}
            for group in groups:
                rows = [r for r in self.records if r.get("roles", {}).get(grouping) == group]
                out[grouping][group] = {s: summarize(rows, s) for s in self.systems if any(s in r["ranks"] for r in rows)}
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"dataset": self.dataset, "systems": list(self.systems), "setup": self.setup,
                "summary": self.summary(), "by_category": self.by_category(), "by_role": self.by_role(),
                "abstentions": {"count": len(self.abstentions), "ids": self.abstentions}}

    def write_json(self, path: str | os.PathLike[str]) -> Path:
        """Write the summary plus one record per question (id, category, evidence, ranks, latency)."""
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps({**self.to_dict(), "records": self.records}, ensure_ascii=False, indent=1),
                          encoding="utf-8")
        return target

    def text(self, *, categories: bool = True) -> str:
        """The printable table: each system's figures and their differences to bm25s and rrf."""
        from .datasets_table import report_text

        return report_text(self, categories=categories)


# -- the run ----------------------------------------------------------------------------------------
def _choose_systems(systems: Iterable[str] | None, dense: bool) -> tuple[str, ...]:
    chosen = tuple(dict.fromkeys(systems)) if systems is not None else SYSTEMS
    known = SYSTEMS + OPTIONAL_SYSTEMS
    unknown = [s for s in chosen if s not in known]
    if unknown:
        raise ConfigError("systems", f"unknown system(s) {', '.join(unknown)}; expected {', '.join(known)}")
    if not dense:
        chosen = tuple(s for s in chosen if s not in DENSE_SYSTEMS)
    if not chosen:
        raise ConfigError("systems", "no system left to run (every chosen one needs the dense model)")
    return chosen


def run_dataset(
    directory: str | os.PathLike[str],
    *,
    systems: Iterable[str] | None = None,
    dense: bool = True,
    limit: int | None = None,
    conversations: Iterable[str] | None = None,
    max_conversations: int | None = None,
    vector_cache: str | os.PathLike[str] | None = None,
    work_dir: str | os.PathLike[str] | None = None,
    depth: int = DEPTH,
    provider: Any = None,
    progress: bool | None = None,
    roles: str = "all",
) -> DatasetReport:
    """Rank every question of one dataset folder with each system; see the module docstring.

    ``limit`` keeps the first N ranked questions (in file order); ``provider`` replaces e5 as the
    embedding model of the dense systems (tests use the deterministic one); ``work_dir`` keeps
    the scopes instead of a temporary folder; ``roles`` says which turns are indexed (``all``,
    or ``user``: no assistant turn). Progress goes to stderr when it is a terminal.
    """
    from .datasets_systems import make_systems

    if depth < max(*HITS, *FRACS):
        raise ConfigError("depth", f"must be at least {max(*HITS, *FRACS)}, got {depth}")
    chosen = _choose_systems(systems, dense)
    full = load_dataset(directory, conversations=conversations, max_conversations=max_conversations)
    data = keep_roles(full, roles)
    speaker_role = {(name, t.dialog_id): t.role for name, conv in full.conversations.items() for t in conv.turns()}
    ranked = [q for q in data.queries if q.evidence]
    abstentions = [q.id for q in data.queries if not q.evidence]
    if limit is not None:
        ranked = ranked[:max(0, limit)]
    show = sys.stderr.isatty() if progress is None else progress
    setup: dict[str, Any] = {"dataset": data.name, "conversations": len(data.conversations),
                             "sessions": sum(len(c.sessions) for c in data.conversations.values()),
                             "turns": sum(len(c.turns()) for c in data.conversations.values()),
                             "questions": len(data.queries), "ranked": len(ranked), "abstentions": len(abstentions),
                             "depth": depth, "roles": roles, "unreachable_evidence": 0, "index_seconds": {}}
    records: list[dict[str, Any]] = []
    started_all = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="riko-dataset-") as tmp:
        base = Path(work_dir) if work_dir is not None else Path(tmp)
        bench = make_systems(chosen, base, vector_cache=vector_cache, provider=provider)
        try:
            by_conv: dict[str, list[DatasetQuery]] = {}
            for q in ranked:
                by_conv.setdefault(q.conversation, []).append(q)
            for number, (name, questions) in enumerate(by_conv.items(), start=1):
                conv = data.conversations[name]
                if show:
                    print(f"\r{data.name}: conversation {number}/{len(by_conv)} ({len(questions)} questions)",
                          end="", file=sys.stderr, flush=True)
                records.extend(_run_conversation(conv, number, questions, bench, depth, setup, speaker_role))
        finally:
            for system in bench.values():
                system.close()
        if show:
            print(file=sys.stderr)
    order = {q.id: i for i, q in enumerate(ranked)}
    records.sort(key=lambda r: order[r["id"]])
    setup["seconds"] = round(time.perf_counter() - started_all, 3)
    providers = {id(s.provider): s.provider for s in bench.values() if s.provider is not None}
    setup["embedded_passages"] = sum(getattr(p, "embedded", 0) for p in providers.values())
    return DatasetReport(data.name, chosen, records, abstentions, setup)


def _run_conversation(conv: Conversation, number: int, questions: Sequence[DatasetQuery], bench: Mapping[str, Any],
                      depth: int, setup: dict[str, Any],
                      speaker_role: Mapping[tuple[str, str], str]) -> list[dict[str, Any]]:
    """Open every system on ``conv``, then grow its sessions stage by stage: each question is
    answered once exactly the sessions before its own are in."""
    for system in bench.values():
        system.open(conv, number)
    done = 0
    out = []
    for visible in sorted({q.visible for q in questions}):
        new = conv.sessions[done:visible]
        for name, system in bench.items():
            started = time.perf_counter()
            system.extend(new)
            system.warm()
            seconds = setup["index_seconds"].get(name, 0.0) + time.perf_counter() - started
            setup["index_seconds"][name] = round(seconds, 3)
        done = visible
        present = {t.dialog_id for t in conv.turns(visible)}
        for q in (q for q in questions if q.visible == visible):
            setup["unreachable_evidence"] += sum(e not in present for e in q.evidence)
            roles = {"evidence": role_group(speaker_role[(conv.name, e)] for e in q.evidence
                                            if (conv.name, e) in speaker_role)}
            if q.memory_roles:
                roles["memory"] = role_group(q.memory_roles)
            record: dict[str, Any] = {"id": q.id, "conversation": conv.name, "category": q.category,
                                      "evidence": list(q.evidence), "visible_sessions": visible, "roles": roles,
                                      "ranks": {}, "latency_ms": {}}
            for name, system in bench.items():
                started = time.perf_counter()
                ranking = system.search(q.question, depth)
                record["latency_ms"][name] = round((time.perf_counter() - started) * 1000 + system.extra_ms, 3)
                record["ranks"][name] = evidence_ranks(ranking, q.evidence)
            out.append(record)
    return out

