"""``riko eval companion | cases | retrieval | qa | dream``: the evaluation suites from the command line."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .main import command, emit
from ..errors import UsageError

__all__ = ["register", "cmd_eval"]


def register(sub: Any) -> None:
    """Add the ``eval`` command and its three suites to the ``riko`` subparsers."""
    p = sub.add_parser("eval", help="run an evaluation suite: companion corpus, labelled cases, retrieval, answers, memory quality",
                       description="Evaluation suites. Each runs in temporary roots and never touches your data.")
    suites = p.add_subparsers(dest="suite", metavar="SUITE", required=True)

    c = suites.add_parser("companion", help="the thirty Appendix F scenarios and the Appendix G metrics")
    c.add_argument("--out", default=None, metavar="DIR",
                   help="artifacts directory (run folders companion-*; the newest --keep are kept)")
    c.add_argument("--keep", type=int, default=3, help="run folders to keep under --out (default 3)")
    c.add_argument("--k", type=int, default=8, help="ranking cutoff for recall@k and nDCG (default 8)")
    c.add_argument("--only", default=None, metavar="IDS", help="comma-separated scenario ids, e.g. F.01,F.16")
    c.add_argument("--answer-endpoint", default=None, metavar="URL",
                   help="answer model endpoint: measure the answer-side metrics from its replies")
    c.add_argument("--answer-model", default=None, metavar="M", help="answer model name (with --answer-endpoint)")
    c.add_argument("--credential-ref", default="RIKO_ANSWER_API_KEY", metavar="ENV_VAR",
                   help="environment variable holding the answer model's key (default RIKO_ANSWER_API_KEY)")
    c.add_argument("--cache", default=None, metavar="FILE", help="reply cache (default as for eval qa)")
    c.add_argument("--json", action="store_true", help="print machine-readable JSON")

    k = suites.add_parser("cases", help="a labelled case file: calibration (the gate), challenge, sensitivity, "
                                        "conflicts, derivation, or a path")
    k.add_argument("file", help="calibration, challenge, or a path to a cases JSONL file; sensitivity and "
                                "conflicts score the classifier sets (precision and recall per class); "
                                "derivation scores Dream's statement derivation (precision and recall per field)")
    k.add_argument("--vector", default=None, metavar="PROVIDER",
                   help="also search the dense channel with this embedding provider (e.g. local, deterministic)")
    k.add_argument("--gate", action="store_true", help="exit 1 unless every case passes")
    k.add_argument("--json", action="store_true", help="print machine-readable JSON")

    r = suites.add_parser(
        "retrieval", help="score mem.retrieve on a dataset folder or on session logs, beside plain baselines",
        description="Either --dataset DIR (the shared layout: sessions/<conversation>/<session>.jsonl and "
                    "queries.jsonl; riko, riko+e5, bm25s, e5 and rrf in one run) or --sessions DIR --queries FILE "
                    "(session logs and (session_id, seq) evidence; riko beside unstemmed BM25).")
    r.add_argument("--dataset", default=None, metavar="DIR", help="one extracted dataset folder (shared layout)")
    r.add_argument("--sessions", default=None, metavar="DIR", help="session logs to ingest (files or directory)")
    r.add_argument("--queries", default=None, metavar="FILE",
                   help='JSONL: {"id", "question", "evidence": [{"session_id", "seq"}], "category"?}')
    r.add_argument("--systems", default=None, metavar="LIST",
                   help="--dataset: comma-separated systems (default riko,riko+e5,bm25s,e5,rrf)")
    r.add_argument("--no-dense", action="store_true", help="--dataset: skip every system that needs the e5 model")
    r.add_argument("--limit", type=int, default=None, metavar="N", help="--dataset: only the first N ranked questions")
    r.add_argument("--conversations", default=None, metavar="LIST",
                   help="--dataset: only these conversations (comma-separated names)")
    r.add_argument("--max-conversations", type=int, default=None, metavar="N",
                   help="--dataset: only the first N conversations (natural order)")
    r.add_argument("--vector-cache", default=None, metavar="DIR",
                   help="--dataset: passage-vector cache (default $RIKO_VECTOR_CACHE or ~/.cache/riko/vectors)")
    r.add_argument("--work-dir", default=None, metavar="DIR", help="--dataset: keep the scopes here (default: a temp dir)")
    r.add_argument("--depth", type=int, default=None, metavar="N", help="--dataset: ranking depth (default 100)")
    r.add_argument("--no-categories", action="store_true", help="--dataset: print the overall table only")
    r.add_argument("--roles", choices=("all", "user"), default="all",
                   help="--dataset: index every turn, assistant turns as the assistant's messages (all, default), "
                        "or the non-assistant turns only (user)")
    r.add_argument("--k", default="1,5,10", metavar="LIST", help="--sessions: cutoffs (default 1,5,10)")
    r.add_argument("--channels", default=None, metavar="LIST",
                   help="--sessions: restrict mem.retrieve to these channels "
                        "(lexical,exact,rawEvidence,observation,graph,dense)")
    r.add_argument("--embedding", default=None, metavar="PROVIDER",
                   help="--sessions: build a dense generation with this provider first (adds the dense channel); "
                        "--dataset: the embedding model of the dense systems instead of e5 (e.g. deterministic)")
    r.add_argument("--out", default=None, metavar="FILE", help="--sessions: also write the full report as JSON")
    r.add_argument("--json", nargs="?", const=True, default=False, metavar="FILE",
                   help="with FILE: write the per-question records there as JSON; alone: print JSON")

    _register_qa(suites)
    _register_dream(suites)


def _register_dream(suites: Any) -> None:
    d = suites.add_parser(
        "dream", help="memory quality: what Dream extracts from a dataset, scored against its gold memories",
        description="Ingest every conversation of a dataset folder (the shared layout) into a fresh scope, run "
                    "Dream, map each proposal to the turns it cites and score fact recall and precision against the "
                    "set's gold (memories.jsonl, session_events.jsonl, or the questions' evidence turns), beside "
                    "two trivial baselines: every first-person sentence and every whole non-assistant turn.")
    d.add_argument("--dataset", required=True, metavar="DIR", help="one extracted dataset folder (shared layout)")
    d.add_argument("--provider", default="heuristic", metavar="NAME",
                   help="Dream provider (default heuristic; openai-compatible, anthropic, auto)")
    d.add_argument("--url", default=None, metavar="URL", help="the provider's endpoint (model providers)")
    d.add_argument("--model", default=None, metavar="M", help="the provider's model name")
    d.add_argument("--credential-ref", default=None, metavar="ENV_VAR",
                   help="environment variable holding the provider's key")
    d.add_argument("--conversations", default=None, metavar="LIST", help="only these conversations (comma-separated)")
    d.add_argument("--max-conversations", type=int, default=None, metavar="N",
                   help="only the first N conversations (natural order)")
    d.add_argument("--e5", action="store_true", help="judge near-duplicates by e5 embeddings instead of content words")
    d.add_argument("--embedding", default=None, metavar="PROVIDER",
                   help="the embedding model for --e5 instead of e5 (e.g. deterministic)")
    d.add_argument("--vector-cache", default=None, metavar="DIR",
                   help="passage-vector cache for --e5 (default $RIKO_VECTOR_CACHE or ~/.cache/riko/vectors)")
    d.add_argument("--work-dir", default=None, metavar="DIR", help="keep the scopes here (default: a temp dir)")
    d.add_argument("--reference", default=None, metavar="DIR",
                   help="write a folder the reference scorer reads: memories.jsonl, sessions/ and one "
                        "{conversation, dialogIds, text} JSONL per system")
    d.add_argument("--no-types", action="store_true", help="print the overall rows only, not one per gold type")
    d.add_argument("--json", nargs="?", const=True, default=False, metavar="FILE",
                   help="with FILE: write the summary and every proposal with what it matched (and every miss) "
                        "there; alone: print the summary as JSON")


def _register_qa(suites: Any) -> None:
    from ..evaluation.qa import MODES

    q = suites.add_parser("qa", help="answer accuracy: a model answers from riko's context, a judge scores it",
                          description="Answer-side evaluation on a dataset folder (queries.jsonl + sessions/). "
                                      "Replies are cached by request hash, so a re-run is free.")
    q.add_argument("--dataset", required=True, metavar="DIR", help="dataset folder: queries.jsonl and sessions/")
    q.add_argument("--answer-endpoint", required=True, metavar="URL",
                   help="OpenAI-compatible chat-completions base URL (https, or http on loopback)")
    q.add_argument("--answer-model", required=True, metavar="M", help="answer model name")
    q.add_argument("--judge-model", default=None, metavar="M", help="judge model (default: the answer model)")
    q.add_argument("--judge-endpoint", default=None, metavar="URL", help="judge base URL (default: the answer one)")
    q.add_argument("--credential-ref", default="RIKO_ANSWER_API_KEY", metavar="ENV_VAR",
                   help="environment variable holding the API key, read at call time (default RIKO_ANSWER_API_KEY)")
    q.add_argument("--judge-credential-ref", default=None, metavar="ENV_VAR",
                   help="environment variable of the judge's key (default: --credential-ref)")
    q.add_argument("--k", type=int, default=10, help="evidence turns quoted in the retrieve mode (default 10)")
    q.add_argument("--dream", default="heuristic", metavar="PROVIDER",
                   help="Dream provider run on each memory before the riko mode (default heuristic; off: none)")
    q.add_argument("--modes", default=",".join(MODES), metavar="LIST",
                   help=f"context modes to run (default {','.join(MODES)})")
    q.add_argument("--max-context-tokens", type=int, default=32_000, metavar="N",
                   help="the answer model's context: the full-conversation baseline runs only where it fits")
    q.add_argument("--limit", type=int, default=None, metavar="N", help="only the first N questions")
    q.add_argument("--conversation", action="append", metavar="ID", help="only this conversation (repeatable)")
    q.add_argument("--workers", type=int, default=4, metavar="N", help="concurrent model calls (default 4)")
    q.add_argument("--cache", default=None, metavar="FILE",
                   help="reply cache folder (one JSON file per reply; default $XDG_CACHE_HOME/riko/qa-replies/)")
    q.add_argument("--out", default=None, metavar="FILE", help="also write summary and per-question records as JSON")
    q.add_argument("--json", action="store_true", help="print summary and per-question records as JSON")


@command("eval")
def cmd_eval(args: argparse.Namespace) -> int:
    return {"companion": _companion, "cases": _cases, "retrieval": _retrieval, "qa": _qa,
            "dream": _dream}[args.suite](args)


def _companion(args: argparse.Namespace) -> int:
    from ..evaluation.corpus import SCENARIOS
    from ..evaluation.runner import run_companion

    chosen = list(SCENARIOS)
    if args.only:
        wanted = [s.strip() for s in args.only.split(",") if s.strip()]
        unknown = sorted(set(wanted) - {s.id for s in SCENARIOS})
        if unknown:
            raise UsageError(f"unknown scenario id(s): {', '.join(unknown)}; the ids are {SCENARIOS[0].id} to {SCENARIOS[-1].id}")
        chosen = [s for s in SCENARIOS if s.id in wanted]

    def progress(outcome: Any) -> None:
        if not args.json:
            print(f"{outcome.id} {outcome.status:<7} {outcome.category}", file=sys.stderr, flush=True)

    if args.answer_endpoint and not args.answer_model:
        raise SystemExit("riko: error: --answer-endpoint needs --answer-model")
    model = cache = None
    if args.answer_endpoint:
        from ..evaluation.qa import ChatModel, ReplyCache, companion_answerer, default_cache_path

        model = ChatModel(args.answer_endpoint, args.answer_model, args.credential_ref)
        cache = ReplyCache(args.cache or default_cache_path())
    try:
        run = run_companion(chosen, out=args.out, keep=args.keep, k=args.k, on_outcome=progress,
                            answer=companion_answerer(model, cache) if model and cache else None)
    finally:
        if model is not None and cache is not None:
            model.close()
            cache.close()
    emit(args, run.to_dict(), text=_companion_text(run))
    ok = all(o.status == "passed" for o in run.outcomes) and not run.gate_failures()
    return 0 if ok else 1


def _companion_text(run: Any) -> str:
    import polars as pl

    lines = []
    with pl.Config(tbl_rows=100, tbl_cols=12, fmt_str_lengths=60, tbl_width_chars=200, tbl_hide_dataframe_shape=True):
        if run.metrics is not None:
            lines.append(str(run.metrics_frame().select("name", "side", "status", "value", "numerator",
                                                         "denominator", "ideal", "at_ideal")))
        else:
            lines.append(f"metrics not computed: {run.metrics_error}")
        lines.append(str(run.outcomes_frame().select("id", "category", "label", "status", "checks_passed", "checks")))
    for outcome in run.outcomes:
        failed = [name for name, ok in outcome.checks.items() if not ok]
        if failed:
            lines.append(f"{outcome.id} failed checks: " + "; ".join(failed))
        if outcome.error:
            lines.append(f"{outcome.id} error: {outcome.error.splitlines()[-1]}")
    layer = run.index_layer()
    if layer["scenarios"]:
        told = (f"; told a relevant memory exists in {layer['told_by_index']}/{layer['targeted']} targeted scenarios "
                f"by the index layer, {layer['told_by_injection']}/{layer['targeted']} by Resident + recall, "
                f"{layer['told_by_either']}/{layer['targeted']} by either") if layer["targeted"] else ""
        lines.append(f"index layer: {layer['chars_mean']} chars per prompt (median {layer['chars_median']}, max "
                     f"{layer['chars_max']}, {layer['entries_mean']} entries){told}")
    counts = ", ".join(f"{n} {s}" for s, n in sorted(run.counts().items()))
    gate = run.gate_failures()
    lines.append(f"{counts}; gate {'green' if not gate else 'red: ' + ', '.join(gate)}; {run.seconds:.1f} s")
    if run.artifacts:
        lines.append(f"artifacts: {run.artifacts}")
    return "\n".join(lines)


def _cases(args: argparse.Namespace) -> int:
    from ..evaluation.cases import run_cases
    from ..evaluation.labelled import LABELLED_SETS, run_labelled

    if args.file == "derivation":
        from ..evaluation.derivation import score_derivation

        derived = score_derivation()
        emit(args, derived.to_dict(), text=derived.text())
        return 1 if args.gate and derived.shortfalls() else 0
    if args.file in LABELLED_SETS:
        labelled = run_labelled(args.file)
        emit(args, labelled.to_dict(), text=labelled.text())
        return 1 if args.gate and labelled.shortfalls() else 0

    config = {"recall_vector_enabled": True, "embedding_provider": args.vector} if args.vector else None
    report = run_cases(args.file, config=config)
    lines = [f"{report.name}: {report.passed}/{report.total} passed ({report.score:.0%})",
             "by dimension: " + ", ".join(f"{k} {v}" for k, v in report.breakdown("dimension").items()),
             "by language: " + ", ".join(f"{k} {v}" for k, v in report.breakdown("lang").items())]
    for r in report.failures():
        why = r.error or "; ".join(filter(None, [f"missing {r.missing}" if r.missing else "",
                                                 f"leaked {r.leaked}" if r.leaked else "",
                                                 "expected silence" if not r.silent and not r.missing
                                                 and not r.leaked else ""]))
        lines.append(f"  FAIL {r.id} ({r.dimension}): {why}")
    emit(args, report.to_dict(), text="\n".join(lines))
    return 1 if args.gate and report.failures() else 0


def _retrieval(args: argparse.Namespace) -> int:
    if args.dataset is not None:
        if args.sessions or args.queries:
            raise UsageError("--dataset replaces --sessions/--queries; give one or the other")
        return _retrieval_dataset(args)
    if not args.sessions or not args.queries:
        raise UsageError("eval retrieval needs --dataset DIR, or --sessions DIR with --queries FILE")
    from ..evaluation.retrieval import run_retrieval

    try:
        ks = [int(k) for k in args.k.split(",") if k.strip()]
    except ValueError:
        raise UsageError(f"--k must be comma-separated integers, got {args.k!r}") from None
    channels = _names(args.channels)
    report = run_retrieval(args.sessions, args.queries, ks=ks, channels=channels, embedding=args.embedding)
    data = report.to_dict()
    for target in (args.out, args.json if isinstance(args.json, str) else None):
        if target:
            Path(target).write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    summary = {k: v for k, v in data.items() if k != "rows"}
    if isinstance(args.json, str):
        args.json = False
    emit(args, summary, text=_retrieval_text(report))
    return 0


def _names(value: str | None) -> list[str] | None:
    return [v.strip() for v in value.split(",") if v.strip()] if value else None


def _retrieval_dataset(args: argparse.Namespace) -> int:
    from ..dense.providers import make_embedding_provider
    from ..evaluation.datasets import DEPTH, run_dataset

    provider = make_embedding_provider(args.embedding) if args.embedding else None
    report = run_dataset(args.dataset, systems=_names(args.systems), dense=not args.no_dense, limit=args.limit,
                         conversations=_names(args.conversations), max_conversations=args.max_conversations,
                         vector_cache=args.vector_cache, work_dir=args.work_dir,
                         depth=args.depth or DEPTH, provider=provider, roles=args.roles)
    if isinstance(args.json, str):
        path = report.write_json(args.json)
        print(report.text(categories=not args.no_categories))
        print(f"per-question records: {path}")
    elif args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False, indent=2, default=str))
    else:
        print(report.text(categories=not args.no_categories))
    return 0


def _retrieval_text(report: Any) -> str:
    import polars as pl

    setup = report.setup
    head = (f"{setup['queries']} queries over {setup['turns']} user turns in {setup['sessions']} sessions "
            f"(ingest {setup['ingest_seconds']} s, unreachable evidence {setup['unreachable_evidence']})")
    with pl.Config(tbl_cols=30, tbl_width_chars=250, float_precision=3, tbl_hide_dataframe_shape=True):
        return head + "\n" + str(report.summary_frame())


def _qa(args: argparse.Namespace) -> int:
    from ..evaluation.qa import run_qa

    def progress(line: str) -> None:
        if not args.json:
            print(line, file=sys.stderr, flush=True)

    report = run_qa(args.dataset, answer_url=args.answer_endpoint, answer_model=args.answer_model,
                    credential_ref=args.credential_ref, judge_model=args.judge_model, judge_url=args.judge_endpoint,
                    judge_credential_ref=args.judge_credential_ref, k=args.k,
                    dream=None if args.dream == "off" else args.dream,
                    modes=[m.strip() for m in args.modes.split(",") if m.strip()],
                    max_context_tokens=args.max_context_tokens, cache=args.cache, workers=args.workers,
                    conversations=args.conversation, limit=args.limit, progress=progress)
    data = report.to_dict()
    if args.out:
        Path(args.out).write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    emit(args, data, text=_qa_text(report))
    return 0


def _qa_text(report: Any) -> str:
    import polars as pl

    setup = report.setup
    head = (f"{setup['questions']} questions of {setup['dataset']}; answer {setup['answer_model']}, "
            f"judge {setup['judge_model']}; {setup['seconds']} s")
    with pl.Config(tbl_cols=30, tbl_rows=200, tbl_width_chars=250, float_precision=3, tbl_hide_dataframe_shape=True):
        return "\n".join([head, str(report.summary_frame()), str(report.category_frame())])


def _dream(args: argparse.Namespace) -> int:
    from ..evaluation.dream_quality import run_dream_quality

    embedding = None
    if args.embedding:
        from ..dense.providers import make_embedding_provider

        embedding = make_embedding_provider(args.embedding)
    if args.max_conversations is not None and args.max_conversations < 1:
        raise UsageError(f"--max-conversations must be at least 1, got {args.max_conversations}")
    report = run_dream_quality(args.dataset, provider=args.provider, url=args.url, model=args.model,
                               credential_ref=args.credential_ref, conversations=_names(args.conversations),
                               max_conversations=args.max_conversations, e5=args.e5, embedding=embedding,
                               vector_cache=args.vector_cache, work_dir=args.work_dir)
    text = report.text(types=not args.no_types)
    if args.reference:
        folder = report.write_reference(args.reference)
        text += f"\nreference-scorer folder: {folder} (memories.jsonl, sessions/, {', '.join(report.proposals)} .jsonl)"
    if isinstance(args.json, str):
        path = report.write_json(args.json)
        print(text)
        print(f"per-proposal records: {path}")
    elif args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False, indent=2, default=str))
    else:
        print(text)
    return 0
