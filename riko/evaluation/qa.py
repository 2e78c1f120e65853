"""Answer-side evaluation: a model answers each question from the context riko builds, a judge scores it.

For every question of a dataset folder (see :mod:`riko.evaluation.qa_dataset`) the context is
built in several modes and handed to the same answer prompt:

- ``riko``: what riko injects before the model's turn (the Resident, then the recall block),
  after a Dream pass over the conversation (``dream``: heuristic by default; candidates that
  equal one user statement are confirmed, ``candidate_auto_confirm = "user_grounded"``);
- ``retrieve``: the top ``k`` evidence turns of ``mem.retrieve``, quoted as plain lines;
- ``none``: no memory at all (the floor);
- ``full``: the whole conversation, when it fits ``max_context_tokens`` (the ceiling).

A judge model labels each answer CORRECT or WRONG against the gold answer with a one-line
rationale (the LLM-as-judge protocol of LoCoMo-style sets). Both models are spoken to over
the Dream HTTP providers, so endpoint checks and credential references behave as in Dream:
the credential is read from the named environment variable at call time and never stored.
Answers and judgments are cached by request hash in a SQLite file, so a re-run is free and
gives the same numbers.

    >>> report = run_qa("/data/realtalk", answer_url="http://127.0.0.1:8080/v1",
    ...                 answer_model="m", credential_ref="ANSWER_KEY")      # doctest: +SKIP
    >>> report.summary_frame()                                             # doctest: +SKIP
"""

from __future__ import annotations

import json
import math
import os
import re
import statistics
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..dream.http_providers import is_credential_ref_name, validate_endpoint_url
from ..dream.prompt import prompt_key
from ..dream.providers import make_provider
from ..errors import ConfigError, ProviderError, RikoError
from .artifacts import write_atomic
from .qa_dataset import QADataset, QAQuestion, load_qa_dataset

if TYPE_CHECKING:
    import polars

__all__ = [
    "MODES",
    "ChatModel",
    "QAReport",
    "ReplyCache",
    "answer_prompt",
    "companion_answerer",
    "companion_prompt",
    "count_tokens",
    "default_cache_path",
    "judge_prompt",
    "parse_judgment",
    "run_qa",
]

MODES = ("riko", "retrieve", "none", "full")
_PRESET = "qa"
_TOKEN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]|\w+|[^\w\s]", re.UNICODE)
_LABEL = re.compile(r"\b(CORRECT|WRONG)\b", re.IGNORECASE)
# An answer call that fails this way fails every call: stop the run instead of scoring it.
_FATAL = frozenset({"credential-unconfigured", "http-401", "http-403", "http-404"})


def count_tokens(text: str) -> int:
    """Deterministic token estimate: words, punctuation marks and CJK characters count one each."""
    return len(_TOKEN.findall(text))


def default_cache_path() -> Path:
    """``$XDG_CACHE_HOME/riko/qa-replies/`` (``~/.cache`` when unset)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "riko" / "qa-replies"


def answer_prompt(question: str, context: str) -> str:
    """The one prompt every mode sends; only the memory between the tags differs."""
    memory = context.strip() or "(no memory)"
    return ("You are an assistant answering a question about your past conversations with the user.\n"
            "Use the memory below. Answer with a short phrase. If the memory does not hold the answer, "
            "say \"I don't know\".\n\n"
            f"<memory>\n{memory}\n</memory>\n\nQuestion: {question}\nAnswer:")


def companion_prompt(turn: str, injected: str) -> str:
    """A companion assistant's turn: what riko injected, then the user's message."""
    return ("You are the user's long-term companion assistant. Background memory riko provides for this turn "
            "is between the tags; use it only where it helps the user's request.\n\n"
            f"<memory>\n{injected.strip() or '(no memory)'}\n</memory>\n\nUser: {turn}\nAssistant:")


def judge_prompt(question: str, gold: str, answer: str) -> str:
    """The judge's prompt: label the generated answer CORRECT or WRONG against the gold answer."""
    return ("Your task is to label an answer to a question as CORRECT or WRONG.\n"
            "You get a question, a gold (ground-truth) answer and a generated answer. Be generous: the answer is "
            "CORRECT when it states the same fact as the gold answer, even in other words or a different date "
            "format; it is WRONG when it misses, contradicts or refuses the fact.\n\n"
            f"<question>\n{question}\n</question>\n<gold_answer>\n{gold}\n</gold_answer>\n"
            f"<generated_answer>\n{answer}\n</generated_answer>\n\n"
            'Reply with one JSON object: {"reasoning": "<one sentence>", "label": "CORRECT" or "WRONG"}')


def parse_judgment(text: str) -> tuple[str, str]:
    """``(label, rationale)``: label is ``correct``, ``wrong`` or ``unparsed`` (scored as wrong)."""
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        try:
            data = json.loads(text[start:end + 1])
        except ValueError:
            data = None
        if isinstance(data, dict) and str(data.get("label", "")).upper() in ("CORRECT", "WRONG"):
            return str(data["label"]).lower(), str(data.get("reasoning") or data.get("reason") or "")[:500]
    found = _LABEL.findall(text)
    if found:
        return found[-1].lower(), text.strip()[:500]
    return "unparsed", text.strip()[:500]


class ReplyCache:
    """Model replies by request hash, one JSON file each under a folder (``<hash[:2]>/<hash>.json``).

    A reply is written to a temporary file and renamed into place, so a run killed mid-write
    leaves the cache whole and parallel workers never see half a reply."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        if self.path.exists() and not self.path.is_dir():
            raise RikoError(f"reply cache {self.path} is a file; the cache is a folder of replies "
                            "(pass a folder, or remove the file)")
        self.path.mkdir(parents=True, exist_ok=True)

    def _file(self, key: str) -> Path:
        if not key or not all(c in "0123456789abcdef" for c in key):
            raise RikoError(f"reply cache key must be a lowercase hex digest, got {key!r}")
        return self.path / key[:2] / f"{key}.json"

    def get(self, key: str) -> tuple[str, float] | None:
        path = self._file(key)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return str(data["text"]), float(data["latency_ms"])
        except (OSError, ValueError, KeyError, TypeError):
            return None  # an unreadable or partial entry is a miss: the reply is asked again and rewritten

    def put(self, key: str, model: str, text: str, latency_ms: float) -> None:
        target = self._file(key)
        target.parent.mkdir(exist_ok=True)
        write_atomic(target, json.dumps({"model": model, "text": text, "latency_ms": latency_ms,
                                         "created_at": time.time()}))

    def count(self) -> int:
        return sum(1 for _ in self.path.glob("??/*.json"))

    def close(self) -> None:
        """Nothing to release (each reply is its own file); kept so a cache can be used like a handle."""


@dataclass
class Reply:
    """One model reply: its text (or the failure), how long the call took, and whether it was replayed."""

    text: str | None
    latency_ms: float
    cached: bool
    error: ProviderError | None = None


class ChatModel:
    """A chat model behind an OpenAI-compatible (or Anthropic) endpoint, with the reply cache in front."""

    def __init__(self, url: str, model: str, credential_ref: str, *, role: str = "answer", max_tokens: int = 256,
                 timeout_ms: int = 60_000, environ: Mapping[str, str] | None = None) -> None:
        validate_endpoint_url(url, f"{role}_endpoint")
        if not isinstance(model, str) or not model.strip():
            raise ConfigError(f"{role}_model", "must be a non-empty model name")
        if not isinstance(credential_ref, str) or not is_credential_ref_name(credential_ref):
            raise ConfigError(f"{role}_credential_ref",
                              "must name an environment variable (letters, digits, underscore), not hold a secret")
        provider: Any = make_provider("auto", url=url, model=model, credential_ref=credential_ref,
                                      max_tokens=max_tokens, timeout_ms=timeout_ms, environ=environ)
        self.provider = provider
        self.model = str(provider.model)
        self.endpoint = str(provider.endpoint)

    def key(self, prompt: str) -> str:
        return prompt_key(self.provider.name, self.model, prompt)

    def ask_many(self, prompts: Sequence[str], cache: ReplyCache, workers: int) -> list[Reply]:
        """Replies to ``prompts`` in order: cached ones replayed, the rest asked ``workers`` at a time."""
        keys = [self.key(p) for p in prompts]
        replies: list[Reply | None] = []
        for key in keys:
            hit = cache.get(key)
            replies.append(Reply(hit[0], hit[1], True) if hit else None)
        todo = [i for i, r in enumerate(replies) if r is None]
        if todo:
            with ThreadPoolExecutor(max_workers=max(1, min(workers, len(todo))),
                                    thread_name_prefix="riko-qa") as pool:
                for i, reply in zip(todo, pool.map(lambda j: self._ask(prompts[j]), todo)):
                    if reply.error is not None and reply.error.reason in _FATAL:
                        raise reply.error
                    if reply.text is not None:
                        cache.put(keys[i], self.model, reply.text, reply.latency_ms)
                    replies[i] = reply
        return [r for r in replies if r is not None]

    def _ask(self, prompt: str) -> Reply:
        started = time.perf_counter()
        try:
            text = self.provider.complete(prompt)
            return Reply(text, round((time.perf_counter() - started) * 1000, 3), False)
        except ProviderError as exc:
            return Reply(None, round((time.perf_counter() - started) * 1000, 3), False, exc)

    def close(self) -> None:
        self.provider.close()


def companion_answerer(model: ChatModel, cache: ReplyCache) -> Callable[[Any], str | None]:
    """For ``run_companion(answer=...)``: the model's reply to a scenario's turn after riko's injection."""
    def answer(outcome: Any) -> str | None:
        turn = str((outcome.artifacts.get("turn") or {}).get("text") or "")
        reply = model.ask_many([companion_prompt(turn, outcome.injected)], cache, 1)[0]
        if reply.error is not None:
            outcome.artifacts["answer_error"] = f"{reply.error.reason}: {reply.error}"
        return reply.text

    return answer


# -- contexts -------------------------------------------------------------------------------------
@dataclass
class _Item:
    question: QAQuestion
    mode: str
    context: str | None          # None: the mode does not apply (does not fit the model context)
    reason: str | None = None
    record: dict[str, Any] = field(default_factory=dict)


def _contexts(dataset: QADataset, modes: Sequence[str], k: int, max_tokens: int, dream: str | None,
              config: Mapping[str, Any] | None, progress: Callable[[str], None] | None) -> list[_Item]:
    """Every (question, mode) with its context; one memory per conversation (and query-session cutoff)."""
    import riko

    groups: dict[tuple[str, str | None], list[QAQuestion]] = {}
    for q in dataset.questions:
        groups.setdefault((q.conversation, q.before_session), []).append(q)
    items: list[_Item] = []
    settings = {"recall_enabled": True, "embedding_provider": "off", "candidate_auto_confirm": "user_grounded",
                **(config or {})}
    for (conversation, before), questions in groups.items():
        if progress is not None:
            progress(f"{conversation}: {len(questions)} questions")
        full = "\n".join(str(line["data"]["message"]["content"])  # type: ignore[index]
                         for _, line in dataset.turns(conversation, before))
        memory_modes = [m for m in modes if m in ("riko", "retrieve")]
        built: dict[str, dict[str, str]] = {m: {} for m in memory_modes}
        if memory_modes:
            with tempfile.TemporaryDirectory(prefix="riko-qa-") as tmp:
                logs = dataset.write_logs(conversation, Path(tmp) / "logs", before)
                with riko.open(Path(tmp) / "root", preset=_PRESET, config=settings) as mem:
                    mem.ingest([logs], preset=_PRESET, progress=False)
                    if dream and "riko" in memory_modes:
                        mem.dream(provider=dream, progress=False)
                    texts = {(sid, int(seq)): text or "" for sid, seq, text in
                             mem.evidence().select("session_id", "seq", "text").rows()}
                    resident = mem.resident().text if "riko" in memory_modes else ""
                    for q in questions:
                        if "riko" in built:
                            context = mem.recall(q.question, record_activation=False).context
                            built["riko"][q.id] = "\n\n".join(p for p in (resident, context) if p)
                        if "retrieve" in built:
                            ranked = mem.retrieve(q.question, k=k)
                            lines = [texts.get((sid, int(seq)), "") for sid, seq in
                                     ranked.select("session_id", "seq").rows() if sid is not None and seq is not None]
                            built["retrieve"][q.id] = "\n".join(f"- {line}" for line in lines if line)
        for q in questions:
            for mode in modes:
                if mode in built:
                    items.append(_Item(q, mode, built[mode][q.id]))
                elif mode == "none":
                    items.append(_Item(q, mode, ""))
                elif count_tokens(answer_prompt(q.question, full)) <= max_tokens:
                    items.append(_Item(q, mode, full))
                else:
                    items.append(_Item(q, mode, None, f"the conversation does not fit {max_tokens} tokens"))
    return items


# -- the report -----------------------------------------------------------------------------------
def _share(correct: int, total: int) -> float | None:
    return correct / total if total else None


def _quantile(values: Sequence[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


@dataclass
class QAReport:
    """Per-question records of one run and their summary per mode."""

    records: list[dict[str, Any]]
    setup: dict[str, Any]

    def summary(self) -> dict[str, dict[str, Any]]:
        """Per mode: accuracy overall and per category, context tokens, answer latency, counts."""
        out: dict[str, dict[str, Any]] = {}
        for mode in dict.fromkeys(r["mode"] for r in self.records):
            rows = [r for r in self.records if r["mode"] == mode]
            scored = [r for r in rows if r["status"] == "scored"]
            correct = sum(r["label"] == "correct" for r in scored)
            categories: dict[str, dict[str, Any]] = {}
            for r in scored:
                cell = categories.setdefault(r["category"], {"questions": 0, "correct": 0})
                cell["questions"] += 1
                cell["correct"] += r["label"] == "correct"
            for cell in categories.values():
                cell["accuracy"] = _share(cell["correct"], cell["questions"])
            tokens = [r["context_tokens"] for r in scored]
            latency = [r["answer_latency_ms"] for r in scored]
            out[mode] = {
                "questions": len(scored), "correct": correct, "accuracy": _share(correct, len(scored)),
                "skipped": sum(r["status"] == "skipped" for r in rows),
                "errors": sum(r["status"] == "error" for r in rows),
                "judge_unparsed": sum(r["label"] == "unparsed" for r in scored),
                "by_category": dict(sorted(categories.items())),
                "context_tokens_mean": statistics.fmean(tokens) if tokens else None,
                "context_tokens_median": statistics.median(tokens) if tokens else None,
                "answer_latency_ms_median": statistics.median(latency) if latency else None,
                "answer_latency_ms_p95": _quantile(latency, 0.95),
                "answers_replayed": sum(bool(r["answer_cached"]) for r in scored),
            }
        return out

    def summary_frame(self) -> polars.DataFrame:
        """One row per mode: questions, accuracy, skipped/errors, tokens and latency."""
        import polars as pl

        rows = [{"mode": mode, **{k: v for k, v in cell.items() if k != "by_category"}}
                for mode, cell in self.summary().items()]
        return pl.DataFrame(rows)

    def category_frame(self) -> polars.DataFrame:
        """One row per (mode, category) with its accuracy."""
        import polars as pl

        rows = [{"mode": mode, "category": cat, **cell} for mode, summary in self.summary().items()
                for cat, cell in summary["by_category"].items()]
        return pl.DataFrame(rows, schema={"mode": pl.Utf8, "category": pl.Utf8, "questions": pl.Int64,
                                          "correct": pl.Int64, "accuracy": pl.Float64})

    def to_dict(self, *, records: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {"setup": self.setup, "summary": self.summary()}
        if records:
            data["records"] = self.records
        return data


def run_qa(
    dataset: str | os.PathLike[str] | QADataset,
    *,
    answer_url: str,
    answer_model: str,
    credential_ref: str,
    judge_model: str | None = None,
    judge_url: str | None = None,
    judge_credential_ref: str | None = None,
    k: int = 10,
    modes: Iterable[str] = MODES,
    dream: str | None = "heuristic",
    max_context_tokens: int = 32_000,
    cache: str | os.PathLike[str] | None = None,
    workers: int = 4,
    conversations: Iterable[str] | None = None,
    limit: int | None = None,
    config: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
    progress: Callable[[str], None] | None = None,
) -> QAReport:
    """Answer every question of ``dataset`` in each of ``modes`` and judge the answers.

    The judge defaults to the answer endpoint, model and credential. ``dream`` names the Dream
    provider run on each memory before the ``riko`` mode's questions (None: no Dream, so only
    raw-evidence recall). ``cache`` is the SQLite
    reply cache (default :func:`default_cache_path`). ``limit``/``conversations`` choose a subset.
    """
    chosen = list(dict.fromkeys(modes))
    unknown = [m for m in chosen if m not in MODES]
    if not chosen or unknown:
        raise ConfigError("modes", f"choose from {', '.join(MODES)}; got {', '.join(unknown) or 'none'}")
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ConfigError("k", f"must be a positive integer, got {k!r}")
    if not 1 <= workers <= 64:
        raise ConfigError("workers", f"must be an integer from 1 to 64, got {workers!r}")
    data = dataset if isinstance(dataset, QADataset) else load_qa_dataset(dataset, conversations=conversations,
                                                                           limit=limit)
    answerer = ChatModel(answer_url, answer_model, credential_ref, environ=environ)
    judge = ChatModel(judge_url or answer_url, judge_model or answer_model, judge_credential_ref or credential_ref,
                      role="judge", environ=environ)
    replies = ReplyCache(cache if cache is not None else default_cache_path())
    started = time.perf_counter()
    try:
        items = _contexts(data, chosen, k, max_context_tokens, dream, config, progress)
        built = time.perf_counter() - started
        live = [it for it in items if it.context is not None]
        answers = answerer.ask_many([answer_prompt(it.question.question, it.context or "") for it in live],
                                    replies, workers)
        judged = [(it, a) for it, a in zip(live, answers) if a.text is not None]
        verdicts = judge.ask_many([judge_prompt(it.question.question, it.question.answer, a.text or "")
                                   for it, a in judged], replies, workers)
        verdict_of = {id(it): v for (it, _), v in zip(judged, verdicts)}
        answer_of = {id(it): a for it, a in zip(live, answers)}
        records = [_record(it, answer_of.get(id(it)), verdict_of.get(id(it))) for it in items]
        setup = {"dataset": data.name, "questions": len(data.questions), "modes": chosen, "k": k, "dream": dream,
                 "max_context_tokens": max_context_tokens, "answer_endpoint": answerer.endpoint,
                 "answer_model": answerer.model, "judge_endpoint": judge.endpoint, "judge_model": judge.model,
                 "cache": str(replies.path), "context_seconds": round(built, 3),
                 "seconds": round(time.perf_counter() - started, 3)}
        return QAReport(records, setup)
    finally:
        replies.close()
        answerer.close()
        judge.close()


def _record(it: _Item, answer: Reply | None, verdict: Reply | None) -> dict[str, Any]:
    q = it.question
    row: dict[str, Any] = {
        "id": q.id, "conversation": q.conversation, "category": q.category, "mode": it.mode,
        "question": q.question, "gold": q.answer, "context": it.context,
        "context_tokens": count_tokens(it.context) if it.context is not None else None,
        "answer": None, "answer_latency_ms": None, "answer_cached": None, "label": None, "rationale": None,
        "judge_cached": None, "status": "skipped", "reason": it.reason,
    }
    if answer is None:
        return row
    row.update(answer=answer.text, answer_latency_ms=answer.latency_ms, answer_cached=answer.cached)
    failure = answer.error or (verdict.error if verdict is not None else None)
    if failure is not None or verdict is None or verdict.text is None:
        row.update(status="error", reason=f"{failure.reason}: {failure}" if failure else "no judgment")
        return row
    label, rationale = parse_judgment(verdict.text)
    row.update(status="scored", reason=None, label=label, rationale=rationale, judge_cached=verdict.cached)
    return row
