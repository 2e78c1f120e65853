"""Answer-side evaluation against a deterministic loopback model: contexts, judgments, arithmetic, cache."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from dream_stub import CREDENTIAL_REF, SECRET, Reply, StubServer

from riko.errors import ConfigError, IngestError, ProviderError
from riko.evaluation.qa import count_tokens, parse_judgment, run_qa
from riko.evaluation.qa_dataset import load_qa_dataset

_MEMORY = re.compile(r"<memory>\n(.*)\n</memory>", re.DOTALL)
_TAG = r"<{0}>\n(.*?)\n</{0}>"


def qa_model(prompt: str) -> Reply:
    """Answers by quoting its whole memory; judges CORRECT exactly when the gold text is in the answer."""
    if "<gold_answer>" in prompt:
        gold = re.search(_TAG.format("gold_answer"), prompt, re.DOTALL).group(1)
        answer = re.search(_TAG.format("generated_answer"), prompt, re.DOTALL).group(1)
        label = "CORRECT" if gold.lower() in answer.lower() else "WRONG"
        return Reply(text=json.dumps({"reasoning": f"gold {gold!r} {'found' if label == 'CORRECT' else 'absent'}",
                                      "label": label}))
    memory = _MEMORY.search(prompt).group(1)
    return Reply(text="I don't know" if memory == "(no memory)" else memory)


def _turn(session: str, seq: int, speaker: str, text: str) -> str:
    return json.dumps({"sessionId": session, "seq": seq, "time": "2024-05-01T10:00:00", "type": "user/message",
                       "data": {"message": {"role": "user", "speaker": speaker, "text": text,
                                            "dialogId": f"{session}:{seq}"}}})


def make_dataset(root: Path) -> Path:
    c1 = root / "sessions" / "c1"
    c2 = root / "sessions" / "c2"
    c1.mkdir(parents=True)
    c2.mkdir(parents=True)
    (c1 / "session_1.jsonl").write_text(_turn("session_1", 0, "Ana", "My cat is called Miso.") + "\n"
                                        + _turn("session_1", 1, "Ben", "Nice! I moved to Lisbon in May.") + "\n")
    (c1 / "session_2.jsonl").write_text(_turn("session_2", 0, "Ana", "The weather was grey all week.") + "\n")
    filler = [_turn("session_1", i, "Dan", f"Filler remark number {i} about the garden and the weather.")
              for i in range(40)]
    (c2 / "session_1.jsonl").write_text("\n".join(filler + [_turn("session_1", 40, "Cleo", "I love playing the cello.")])
                                        + "\n")
    questions = [
        {"id": "q1", "conversation": "c1", "question": "What is Ana's cat called?", "answer": "Miso",
         "category": "single"},
        {"id": "q2", "conversation": "c1", "question": "Where did Ben move to?", "answer": "Lisbon",
         "category": "single"},
        {"id": "q3", "conversation": "c1", "question": "What is Ana's favourite colour?", "answer": "teal",
         "category": "absent"},
        {"id": "q4", "conversation": "c2", "question": "Which instrument does Cleo play?", "answer": "cello",
         "category": "single"},
    ]
    (root / "queries.jsonl").write_text("\n".join(json.dumps(q) for q in questions) + "\n")
    return root


@pytest.fixture(scope="module")
def stub():
    server = StubServer(responder=qa_model)
    yield server
    server.close()


@pytest.fixture
def env():
    return {CREDENTIAL_REF: SECRET}


def _run(stub: StubServer, dataset: Path, cache: Path, env: dict[str, str], **extra):
    return run_qa(dataset, answer_url=stub.url("openai"), answer_model="stub-answer", judge_model="stub-judge",
                  credential_ref=CREDENTIAL_REF, k=10, max_context_tokens=200, cache=cache, environ=env, **extra)


def test_accuracy_per_mode_and_category_is_exact(tmp_path, stub, env):
    dataset = make_dataset(tmp_path / "ds")
    report = _run(stub, dataset, tmp_path / "cache", env)
    summary = report.summary()
    assert list(summary) == ["riko", "retrieve", "none", "full"]
    # no memory: the model says it does not know, every answer is wrong
    assert (summary["none"]["questions"], summary["none"]["correct"]) == (4, 0)
    assert summary["none"]["context_tokens_mean"] == 0
    # whole conversation: c1 fits in 200 tokens (q1, q2 right, q3 has no answer); c2's 41 turns do not
    assert (summary["full"]["questions"], summary["full"]["correct"], summary["full"]["skipped"]) == (3, 2, 1)
    assert summary["full"]["by_category"] == {"absent": {"questions": 1, "correct": 0, "accuracy": 0.0},
                                              "single": {"questions": 2, "correct": 2, "accuracy": 1.0}}
    skipped = [r for r in report.records if r["status"] == "skipped"]
    assert [(r["id"], r["mode"]) for r in skipped] == [("q4", "full")]
    assert "does not fit 200 tokens" in skipped[0]["reason"]
    # top-10 retrieved turns hold Miso, Lisbon and the cello
    retrieve = {r["id"]: r for r in report.records if r["mode"] == "retrieve"}
    assert "Cleo: I love playing the cello." in retrieve["q4"]["context"]
    assert (summary["retrieve"]["correct"], summary["retrieve"]["accuracy"]) == (3, 0.75)
    assert summary["retrieve"]["by_category"]["single"] == {"questions": 3, "correct": 3, "accuracy": 1.0}
    # riko mode: scored on exactly what recall injects, the judge's arithmetic follows the context
    riko_rows = {r["id"]: r for r in report.records if r["mode"] == "riko"}
    expected = sum(r["gold"].lower() in r["context"].lower() for r in riko_rows.values())
    assert summary["riko"]["correct"] == expected and summary["riko"]["questions"] == 4
    # the heuristic Dream confirmed Cleo's statement, so the Resident carries it into every c2 question
    assert "I love playing the cello" in riko_rows["q4"]["context"] and riko_rows["q4"]["label"] == "correct"
    for r in report.records:
        if r["status"] == "scored":
            assert r["context_tokens"] == count_tokens(r["context"])
            assert r["label"] in ("correct", "wrong") and r["rationale"].startswith("gold ")
            assert r["answer_cached"] is False and r["answer_latency_ms"] > 0
    assert report.setup["answer_model"] == "stub-answer" and report.setup["judge_model"] == "stub-judge"


def test_without_dream_riko_mode_sees_only_raw_evidence_recall(tmp_path, stub, env):
    dataset = make_dataset(tmp_path / "ds")
    report = _run(stub, dataset, tmp_path / "cache", env, modes=["riko"], dream=None)
    rows = {r["id"]: r for r in report.records}
    assert "I love playing the cello" not in rows["q4"]["context"]
    assert report.setup["dream"] is None


def test_rerun_replays_from_cache_without_calls(tmp_path, stub, env):
    dataset = make_dataset(tmp_path / "ds")
    cache = tmp_path / "cache"
    first = _run(stub, dataset, cache, env, modes=["retrieve", "none"])
    calls = len(stub.requests)
    second = _run(stub, dataset, cache, env, modes=["retrieve", "none"])
    assert len(stub.requests) == calls
    assert second.summary()["retrieve"]["answers_replayed"] == 4
    strip = ("answer_cached", "judge_cached")
    assert [{k: v for k, v in r.items() if k not in strip} for r in first.records] == \
        [{k: v for k, v in r.items() if k not in strip} for r in second.records]
    assert all(SECRET.encode() not in f.read_bytes() for f in cache.rglob("*.json"))  # the credential never lands in a reply
    sent = stub.requests[-1]
    assert sent["headers"]["Authorization"] == f"Bearer {SECRET}" and sent["body"]["model"] == "stub-judge"


def test_missing_credential_stops_the_run(tmp_path, stub):
    dataset = make_dataset(tmp_path / "ds")
    with pytest.raises(ProviderError, match=f"{CREDENTIAL_REF} is not set"):
        _run(stub, dataset, tmp_path / "c", {}, modes=["none"])


def test_bad_settings_and_dataset_lines_are_named(tmp_path, stub, env):
    dataset = make_dataset(tmp_path / "ds")
    with pytest.raises(ConfigError, match="answer_endpoint: must use HTTPS"):
        run_qa(dataset, answer_url="http://example.com/v1", answer_model="m", credential_ref=CREDENTIAL_REF,
               cache=tmp_path / "c")
    with pytest.raises(ConfigError, match="answer_credential_ref"):
        run_qa(dataset, answer_url=stub.url("openai"), answer_model="m", credential_ref=SECRET,
               cache=tmp_path / "c")
    with pytest.raises(ConfigError, match="modes"):
        _run(stub, dataset, tmp_path / "c", env, modes=["oracle"])
    with (dataset / "queries.jsonl").open("a") as f:
        f.write('{"id": "q9", "conversation": "c1", "question": "?"}\n')
    with pytest.raises(IngestError, match=r"field 'answer' must be a non-empty string") as info:
        load_qa_dataset(dataset)
    assert info.value.line == 5


def test_query_session_limits_memory_to_earlier_sessions(tmp_path):
    dataset = make_dataset(tmp_path / "ds")
    data = load_qa_dataset(dataset)
    assert [p.name for p in data.session_files("c1")] == ["session_1.jsonl", "session_2.jsonl"]
    assert [p.name for p in data.session_files("c1", before="session_2")] == ["session_1.jsonl"]
    turns = data.turns("c1", before="session_2")
    assert [line["data"]["message"]["content"] for _, line in turns] == \
        ["Ana: My cat is called Miso.", "Ben: Nice! I moved to Lisbon in May."]


def test_judgment_parsing():
    assert parse_judgment('{"reasoning": "same city", "label": "CORRECT"}') == ("correct", "same city")
    assert parse_judgment("The answer is WRONG because it names Porto.")[0] == "wrong"
    assert parse_judgment("no idea")[0] == "unparsed"
    assert count_tokens("Ana's cat 叫 Miso.") == 7


def test_cli_writes_per_question_records(tmp_path, stub):
    dataset = make_dataset(tmp_path / "ds")
    out = tmp_path / "records.json"
    repo = Path(__file__).resolve().parents[2]
    proc = subprocess.run(
        [sys.executable, "-m", "riko", "eval", "qa", "--dataset", str(dataset), "--answer-endpoint",
         stub.url("openai"), "--answer-model", "stub-answer", "--credential-ref", CREDENTIAL_REF, "--k", "10",
         "--modes", "none,full", "--max-context-tokens", "200", "--cache", str(tmp_path / "c"),
         "--out", str(out), "--json"],
        check=False, capture_output=True, text=True, env={**os.environ, CREDENTIAL_REF: SECRET, "PYTHONPATH": str(repo)},
        timeout=120)
    assert proc.returncode == 0, proc.stderr
    printed = json.loads(proc.stdout)
    assert printed["summary"]["full"]["correct"] == 2 and printed["summary"]["none"]["correct"] == 0
    assert {(r["id"], r["mode"]) for r in printed["records"]} == {(q, m) for q in ("q1", "q2", "q3", "q4")
                                                                   for m in ("none", "full")}
    assert json.loads(out.read_text())["summary"] == printed["summary"]
    assert SECRET not in proc.stdout + proc.stderr
    bad = subprocess.run([sys.executable, "-m", "riko", "eval", "qa", "--dataset", str(tmp_path / "nope"),
                          "--answer-endpoint", stub.url("openai"), "--answer-model", "m",
                          "--cache", str(tmp_path / "c")],
                         check=False, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(repo)},
                         timeout=60)
    assert bad.returncode == 2 and "queries.jsonl" in bad.stderr and "Traceback" not in bad.stderr


def test_companion_measures_answer_side_metrics_from_replies(tmp_path, env):
    from riko.evaluation.corpus import SCENARIOS
    from riko.evaluation.qa import ChatModel, ReplyCache, companion_answerer
    from riko.evaluation.runner import run_companion

    chosen = [s for s in SCENARIOS if s.id in ("F.03", "F.09", "F.10", "F.11", "F.12", "F.27")]
    leak = next(s for s in chosen if s.id == "F.11")

    def companion(prompt: str) -> Reply:
        # repeats its memory, except on F.11's turn, where it brings up the excluded health detail
        if leak.turn.text in prompt:
            return Reply(text=f"Given your {leak.excludes[0]}, go gently.")
        return Reply(text=_MEMORY.search(prompt).group(1))

    server = StubServer(responder=companion)
    cache = ReplyCache(tmp_path / "c")
    model = ChatModel(server.url("openai"), "stub-companion", CREDENTIAL_REF, environ=env)
    try:
        run = run_companion(chosen, k=8, answer=companion_answerer(model, cache))
    finally:
        model.close()
        cache.close()
        server.close()
    assert run.metrics_error is None
    m = run.metrics
    assert (m["unwantedMentionRate"].status, m["unwantedMentionRate"].numerator,
            m["unwantedMentionRate"].denominator) == ("measured", 1.0, 2)
    assert (m["falsePersonalizationRate"].value, m["falsePersonalizationRate"].denominator) == (0.0, 3)
    # F.27's Resident holds the learner page; a reply that repeats it on a Python question overuses memory
    assert (m["memoryOveruseRate"].value, m["memoryOveruseRate"].denominator) == (1.0, 1)
    assert m["memoryOveruseInjectionRate"].value == 0.0
    assert m["semanticDriftRate"].status == "unsupported"
    assert all("answer" in o.artifacts for o in run.outcomes)
    assert len(server.requests) == len(chosen)


def test_cli_companion_with_an_answer_model(tmp_path, stub):
    repo = Path(__file__).resolve().parents[2]
    proc = subprocess.run(
        [sys.executable, "-m", "riko", "eval", "companion", "--only", "F.11,F.12", "--answer-endpoint",
         stub.url("openai"), "--answer-model", "stub-answer", "--credential-ref", CREDENTIAL_REF,
         "--cache", str(tmp_path / "c"), "--json"],
        check=False, capture_output=True, text=True, env={**os.environ, CREDENTIAL_REF: SECRET,
                                                          "PYTHONPATH": str(repo)}, timeout=180)
    metrics = json.loads(proc.stdout)["metrics"]
    # the stub repeats riko's injection, which withholds the sensitive texts: nothing unwanted is said
    assert (metrics["unwantedMentionRate"]["status"], metrics["unwantedMentionRate"]["value"],
            metrics["unwantedMentionRate"]["denominator"]) == ("measured", 0.0, 2)
    assert metrics["falsePersonalizationRate"]["status"] == "unsupported"  # F.03/F.09/F.10 not run


def test_the_reply_cache_is_a_folder_of_whole_replies(tmp_path: Path) -> None:
    from riko.errors import RikoError
    from riko.evaluation.qa import ReplyCache

    cache = ReplyCache(tmp_path / "replies")
    key = "ab" + "0" * 62
    assert cache.get(key) is None and cache.count() == 0
    cache.put(key, "m", "Paris.", 12.5)
    assert cache.get(key) == ("Paris.", 12.5) and cache.count() == 1
    assert ReplyCache(tmp_path / "replies").get(key) == ("Paris.", 12.5)  # survives a new handle
    assert [p.name for p in (tmp_path / "replies" / "ab").iterdir()] == [f"{key}.json"]  # no temp file left
    (tmp_path / "replies" / "ab" / f"{key}.json").write_text("{half a rep", encoding="utf-8")
    assert cache.get(key) is None  # a damaged entry is a miss, asked again
    cache.put(key, "m", "Paris!", 3.0)
    assert cache.get(key) == ("Paris!", 3.0)
    with pytest.raises(RikoError, match="hex digest"):
        cache.get("../escape")
    (tmp_path / "flat").write_text("x", encoding="utf-8")
    with pytest.raises(RikoError, match="is a file"):
        ReplyCache(tmp_path / "flat")
