"""Executes corpus steps against one temporary root through riko's real seams.

One :class:`Harness` owns a scenario's root, its clock and its open handles. A scope has one
writer, so the harness holds either the scope's :class:`riko.Memory` objects or the
in-process HTTP app, never both: asking for one closes the other, the way a host hands the
store from the notebook to the server. ``process`` steps run nested steps in a separate
Python process (:func:`child_main`), which is how the corpus restarts and crashes for real.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..clock import FixedClock, iso
from .corpus import STUB_CREDENTIAL_REF, Step
from .stubs import LoopbackStub
from ..errors import InvalidArgumentError

__all__ = ["Harness", "StepFailure", "FaultyGraph", "TurnRecord", "child_main", "stub_environment",
           "API_PREFIX", "CLIENT_ADDRESS"]

API_PREFIX = "/memory/v1"
#: The in-process client's address: a loopback peer, as the header-only auth mode requires.
CLIENT_ADDRESS = ("127.0.0.1", 50000)
_STEP_MINUTES = 1
_REF = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_CHILD_TIMEOUT_S = 300


class StepFailure(Exception):
    """A step raised where its expectation did not allow it; carries the step for the error row."""

    def __init__(self, index: str, step: Step, cause: BaseException) -> None:
        super().__init__(f"step {index} ({step.op}) raised {type(cause).__name__}: {cause}")
        self.index = index
        self.step = step


class FaultyGraph:
    """A link graph whose neighbour lookups fail: the graph channel's fault injection."""

    def _fail(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("injected graph fault: the link graph is unreadable")

    successors = predecessors = neighbors = _fail

    @property
    def nodes(self) -> Any:
        self._fail()


@dataclass
class TurnRecord:
    """What the agent host saw for the user turn: Resident, recall context, rows and trace."""

    resident: str
    resident_version: str
    resident_snapshot: dict[str, Any]
    context: str
    results: list[dict[str, Any]]
    trace: dict[str, Any]
    via: str
    #: The index layer rendered beside the Resident for this turn (``ResidentIndex.to_dict``).
    index: dict[str, Any] = field(default_factory=dict)

    @property
    def injected(self) -> str:
        """The whole model input the turn adds: Resident, then the recall block."""
        return "\n\n".join(part for part in (self.resident, self.context) if part)


@contextmanager
def stub_environment(value: str = "eval-stub-key") -> Iterator[None]:
    """Set the stub credential variable for the duration (the providers read it per call)."""
    previous = os.environ.get(STUB_CREDENTIAL_REF)
    os.environ[STUB_CREDENTIAL_REF] = value
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(STUB_CREDENTIAL_REF, None)
        else:
            os.environ[STUB_CREDENTIAL_REF] = previous


def _returned_id(payload: Any) -> str | None:
    """The id an API answer names: its own ``id`` or that of the one record it wraps."""
    if not isinstance(payload, dict):
        return None
    if isinstance(payload.get("id"), str):
        return payload["id"]
    inner = [v for v in payload.values() if isinstance(v, dict) and isinstance(v.get("id"), str)]
    return inner[0]["id"] if len(inner) == 1 else None


def step_to_json(step: Step) -> dict[str, Any]:
    """A JSON-ready step (nested ``steps`` included) for a child process or an artifact."""
    args = dict(step.args)
    if "steps" in args:
        args["steps"] = [step_to_json(s) for s in args["steps"]]
    return {"op": step.op, "args": _plain(args), "expect": step.expect, "save": step.save}


def step_from_json(data: Mapping[str, Any]) -> Step:
    args = dict(data.get("args") or {})
    if "steps" in args:
        args["steps"] = tuple(step_from_json(s) for s in args["steps"])
    return Step(data["op"], args, data.get("expect", "ok"), data.get("save"))


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


@dataclass
class Harness:
    """One scenario's root, configuration, clock, stub and open handles."""

    root: Path
    preset: str
    config: dict[str, Any]
    clock: FixedClock
    stub: LoopbackStub | None = None
    owner: str = "local"
    refs: dict[str, str] = field(default_factory=dict)
    marks: dict[str, str] = field(default_factory=dict)
    checks: dict[str, bool] = field(default_factory=dict)
    steps: list[dict[str, Any]] = field(default_factory=list)
    http_log: list[dict[str, Any]] = field(default_factory=list)
    tool_log: list[dict[str, Any]] = field(default_factory=list)
    dream_reports: list[dict[str, Any]] = field(default_factory=list)
    _memories: dict[str, Any] = field(default_factory=dict)
    _client: Any = None

    # -- handles --------------------------------------------------------------------------------
    def memory(self, preset: str | None = None) -> Any:
        """The open Memory of ``preset`` (the scenario's own by default); closes the HTTP app first."""
        import riko

        self._close_client()
        name = preset or self.preset
        mem = self._memories.get(name)
        if mem is None:
            mem = riko.open(self.root, owner=self.owner, preset=name, config=self.config, clock=self.clock)
            self._memories[name] = mem
        return mem

    def client(self) -> Any:
        """An in-process client of the control API (``create_app``); closes every Memory first."""
        self._close_memories()
        if self._client is None:
            from ..server import create_app

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                from starlette.testclient import TestClient
            client = TestClient(create_app(self.root, self.config, self.clock), client=CLIENT_ADDRESS)
            client.__enter__()
            self._client = client
        return self._client

    def request(self, method: str, path: str, body: Any = None, preset: str | None = None) -> tuple[int, Any]:
        """One request under the API prefix as ``preset``; the exchange is logged."""
        headers = {"x-dsh-memory-profile": preset or self.preset}
        response = self.client().request(method, API_PREFIX + path, json=body, headers=headers)
        try:
            payload = response.json()
        except ValueError:
            payload = response.text
        self.http_log.append({"method": method, "path": path, "request": body, "status": response.status_code,
                              "response": payload})
        return response.status_code, payload

    def _close_client(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            client.__exit__(None, None, None)

    def _close_memories(self) -> None:
        for name in list(self._memories):
            self._memories.pop(name).close()

    def close(self) -> None:
        self._close_client()
        self._close_memories()

    # -- steps ----------------------------------------------------------------------------------
    def resolve(self, value: Any) -> Any:
        """Replace ``{name}`` references (saved ids, ``stub``) inside strings, lists and mappings."""
        if isinstance(value, str):
            known = {**self.refs, **({"stub": self.stub.host} if self.stub else {})}
            return _REF.sub(lambda m: known.get(m.group(1), m.group(0)), value)
        if isinstance(value, Mapping):
            return {k: self.resolve(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.resolve(v) for v in value]
        return value

    def run_steps(self, steps: Sequence[Step], prefix: str = "") -> None:
        for position, step in enumerate(steps, start=1):
            self.run_step(step, f"{prefix}{position}")

    def run_step(self, step: Step, index: str) -> None:
        """Run one step and record whether its expectation held; an unexpected raise is an error."""
        self.clock.advance(minutes=_STEP_MINUTES)
        handler = getattr(self, f"_op_{step.op}", None)
        if handler is None:
            raise InvalidArgumentError(f"step {index}: unknown operation {step.op!r}")
        args = self.resolve(dict(step.args)) if step.op != "process" else dict(step.args)
        record: dict[str, Any] = {"index": index, "op": step.op, "expect": step.expect}
        try:
            observed, saved, detail = handler(args)
        except Exception as exc:
            observed, saved, detail = f"error:{type(exc).__name__}", None, {"error": str(exc)}
            if step.expect != observed:
                record.update(observed=observed, **detail)
                self.steps.append(record)
                raise StepFailure(index, step, exc) from exc
        if step.save and saved is not None:
            self.refs[step.save] = saved
            if step.op == "mark":
                self.marks[step.save] = saved
        record.update(observed=observed, saved=saved, **(detail or {}))
        self.steps.append(record)
        self.checks[f"step {index} {step.op}: {step.expect}"] = observed == step.expect

    # Each _op_ returns (observed outcome, id to save, detail for the record).
    def _op_user(self, a: dict[str, Any]) -> tuple[str, Any, dict]:
        ref = self.memory(a.get("preset")).capture({
            "session_id": a["session"], "type": "user/message",
            "data": {"role": "user", "source": {"kind": "user"}, "content": [{"type": "text", "text": a["text"]}]},
        })
        return "ok", str(ref), {}

    def _op_assistant(self, a: dict[str, Any]) -> tuple[str, Any, dict]:
        ref = self.memory(a.get("preset")).capture({
            "session_id": a["session"], "type": "assistant/message",
            "data": {"message": {"role": "assistant", "content": [{"type": "text", "text": a["text"]}],
                                 "source": {"kind": "model", "provider": "eval", "model": "eval"}}},
        })
        return "ok", str(ref), {}

    def _op_log(self, a: dict[str, Any]) -> tuple[str, Any, dict]:
        from .logs import write_harness_log

        path = write_harness_log(self.root / "logs", a["session"], self.preset,
                                 [tuple(t) for t in a["turns"]], start=a["start"])
        report = self.memory().ingest([path], progress=False)
        return ("ok" if report.events and not report.issue_rows else "failed"), a["session"], {
            "events": report.events}

    def _op_tool(self, a: dict[str, Any]) -> tuple[str, Any, dict]:
        from ..tools import ToolBox

        result = ToolBox(self.memory(a.get("preset")), a["session"]).call(a["name"], a.get("arguments") or {})
        data = result.to_dict()
        self.tool_log.append({"session": a["session"], "name": a["name"], "arguments": a.get("arguments"),
                              "result": data})
        return ("ok" if result.ok else "refused"), result.id, {}

    def _op_page(self, a: dict[str, Any]) -> tuple[str, Any, dict]:
        page = self.memory(a.get("preset")).create_page(a["title"], a["body"], type=a.get("type", "concept"),
                                                        **(a.get("fields") or {}))
        return "ok", page.id, {}

    def _op_replace(self, a: dict[str, Any]) -> tuple[str, Any, dict]:
        page = self.memory().replace(a["page"], a["content"], a["valid_from"])
        return "ok", page.id, {}

    def _op_http(self, a: dict[str, Any]) -> tuple[str, Any, dict]:
        status, payload = self.request(a["method"], a["path"], a.get("body"), a.get("preset"))
        return f"status:{status}", _returned_id(payload), {}

    def _op_dream(self, a: dict[str, Any]) -> tuple[str, Any, dict]:
        report = self.memory().dream(progress=False)
        data = report.to_dict() if hasattr(report, "to_dict") else {"repr": repr(report)}
        self.dream_reports.append(data)
        return ("failed" if report.failed else "ok"), None, {}

    def _op_index(self, a: dict[str, Any]) -> tuple[str, Any, dict]:
        self.memory().index(progress=False)
        return "ok", None, {}

    def _op_stub(self, a: dict[str, Any]) -> tuple[str, Any, dict]:
        if self.stub is None:
            raise InvalidArgumentError("a stub step needs the scenario to declare its stubs")
        self.stub.set_mode(a["route"], a["mode"])
        return "ok", None, {}

    def _op_observe(self, a: dict[str, Any]) -> tuple[str, Any, dict]:
        outcome = self.memory().add_observation(a["text"], a["anchors"], float(a["confidence"]))
        return "ok", outcome["id"], {"status": outcome["status"]}

    def _op_contradict(self, a: dict[str, Any]) -> tuple[str, Any, dict]:
        row = self.memory().contradict_observation(a["observation"], a["anchors"])
        return "ok", a["observation"], {"status": row["status"]}

    def _op_mark(self, a: dict[str, Any]) -> tuple[str, Any, dict]:
        version = self.memory().resident().version
        return "ok", version, {}

    def _op_probe(self, a: dict[str, Any]) -> tuple[str, Any, dict]:
        result = self.memory().recall(a["query"], record_activation=False)  # a probe inspects
        found = a["contains"] in result.context
        self.checks[f"probe {a['query']!r} contains {a['contains']!r}"] = found
        return "ok", None, {"context": result.context, "trace": result.trace}

    def _op_purge(self, a: dict[str, Any]) -> tuple[str, Any, dict]:
        session = a["session"]
        if a.get("via") == "http":
            status, plan = self.request("POST", "/purge", {"sessionId": session, "dryRun": True})
            if status != 200:
                return f"status:{status}", None, {}
            status, done = self.request("POST", "/purge", {"sessionId": session,
                                                           "confirmation": plan["confirmation"]})
            if status != 200:
                return f"status:{status}", None, {}
        else:
            mem = self.memory()
            plan = mem.purge(session)
            done = mem.purge(session, dry_run=False, confirmation=plan["confirmation"])
        return ("ok" if done.get("verified") else "failed"), done.get("operationId"), {}

    def _op_restart(self, a: dict[str, Any]) -> tuple[str, Any, dict]:
        self.close()
        self.memory()
        return "ok", None, {}

    def _op_process(self, a: dict[str, Any]) -> tuple[str, Any, dict]:
        self.close()
        request = {"root": str(self.root), "preset": self.preset, "owner": self.owner, "config": self.config,
                   "clock": iso(self.clock.now()), "refs": self.refs,
                   "steps": [step_to_json(s) for s in a["steps"]]}
        env = {**os.environ, **{str(k): str(v) for k, v in (a.get("env") or {}).items()}}
        done = subprocess.run(
            [sys.executable, "-c", "from riko.evaluation.harness import child_main; child_main()"],
            input=json.dumps(request), capture_output=True, text=True, env=env, timeout=_CHILD_TIMEOUT_S,
        )
        detail: dict[str, Any] = {"returncode": done.returncode, "stderr": done.stderr[-2000:]}
        lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
        if lines:
            child = json.loads(lines[-1])
            self.refs.update(child["refs"])
            self.marks.update(child["marks"])
            self.checks.update({f"process {k}": v for k, v in child["checks"].items()})
            self.steps.extend({**s, "process": True} for s in child["steps"])
            self.tool_log.extend(child["tool_log"])
            self.clock.set(child["clock"])
        return f"exit:{done.returncode}", None, detail

    # -- the user turn ----------------------------------------------------------------------------
    def turn(self, text: str, *, at_time: str | None = None, history: bool = False, via: str = "memory",
             fault: str | None = None) -> TurnRecord:
        """Resident plus recall for one user turn, through the facade or the HTTP routes."""
        self.clock.advance(minutes=_STEP_MINUTES)
        if via == "http":
            if fault is not None:
                raise InvalidArgumentError("fault injection runs through the facade; use via='memory'")
            _, snap = self.request("GET", "/resident")
            body: dict[str, Any] = {"query": text, "history": history}
            if at_time is not None:
                body["atTime"] = at_time
            status, answer = self.request("POST", "/recall", body)
            if status != 200:
                raise RuntimeError(f"POST /recall answered {status}: {answer}")
            return TurnRecord(snap.get("text", ""), snap.get("version", ""), snap, answer["context"],
                              list(answer["results"]), answer["trace"], via, dict(snap.get("index") or {}))
        mem = self.memory()
        snapshot = mem.resident()
        index = snapshot.index.to_dict()  # rendered with the Resident, before this turn's recall
        options: dict[str, Any] = {}
        if fault == "graph":
            options["graph"] = FaultyGraph()
        elif fault is not None:
            raise InvalidArgumentError(f"unknown fault {fault!r}; the corpus injects 'graph'")
        result = mem.recall(text, at_time=at_time, history=history, **options)
        return TurnRecord(snapshot.text, snapshot.version, snapshot.to_dict(), result.context,
                          result.results.to_dicts(), result.trace, via, index)



def child_main() -> None:
    """Entry of a ``process`` step: run the steps from stdin, print one JSON line, exit."""
    request = json.loads(sys.stdin.read())
    clock = FixedClock(request["clock"])
    h = Harness(Path(request["root"]), request["preset"], request["config"], clock, owner=request["owner"])
    h.refs.update(request["refs"])
    steps = [step_from_json(s) for s in request["steps"]]
    try:
        for position, step in enumerate(steps, start=1):
            h.run_step(step, str(position))
    finally:
        h.close()
    print(json.dumps({"refs": h.refs, "marks": h.marks, "checks": h.checks, "steps": _plain(h.steps),
                      "tool_log": _plain(h.tool_log), "clock": iso(clock.now())}, default=str))
