"""Faces (CLI, HTTP server, MCP server, evaluation) go through the door: ``riko.Memory``, or the
face-level helpers of ``riko.door``, never a stage or a store.

A face imports freely only the door (``riko``, ``riko.memory``, ``riko.door``), the other faces
and the floors below the stores (ground, language, contracts: ``riko.vocabulary``,
``riko.errors``, ``riko.scope`` …). An import of a module on the floors between (stores, rules,
evidence and pages, review, recall, Dream; ``riko.layers.FLOORS``) must be on one of the two
lists below with its reason, and no face reads a Memory's context, warehouse or private
attributes (``mem.context``, ``mem.warehouse``, ``mem._wh``) outside the allow-list.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from riko.layers import floor_of

from test_layers import PACKAGE, _import_sites, _module, _unit

FACES = ("riko.cli", "riko.server", "riko.mcp", "riko.evaluation")
DOOR = floor_of("riko")
STORES = floor_of("riko.stores")

#: modules below the door any face may read: values and pure rules, no store, no warehouse
MODELS = {
    "riko.wiki": "the page format: Page is the value Memory returns, render_page and FIELD_ORDER its file form",
    "riko.sensitivity.rules": "pure rule functions (levels, rank, the authority matrix): the server answers "
                              "a refused transition before asking Memory",
}

#: ``face module -> stage or store module`` -> why the face reaches past the door
ALLOWED = {
    "riko.mcp.server -> riko.tools": "the MCP face serves the six agent tools, which are built over an open "
                                     "Memory (ToolBox(mem, session))",
    "riko.cli.eval -> riko.dense.providers": "riko eval picks the embedding model a dataset run compares",
    "riko.evaluation.datasets_systems -> riko.dense.providers": "the embedding models the dataset systems compare",
    "riko.evaluation.datasets_systems -> riko.dense.text_cache": "the on-disk cache of those models' vectors",
    "riko.evaluation.datasets_systems -> riko.recall.engine": "scores recall's ranking alone (build_index, "
                                                              "retrieve), below Memory.recall's rendering",
    "riko.evaluation.dream_quality -> riko.dense.providers": "the embedding model that matches extracted facts",
    "riko.evaluation.dream_quality -> riko.dense.text_cache": "the on-disk cache of its vectors",
    "riko.evaluation.dream_quality -> riko.review.entities": "ENTITY_CATEGORY, to score entity pages apart",
    "riko.evaluation.harness -> riko.tools": "the companion harness drives the agent tools as an agent does",
    "riko.evaluation.labelled -> riko.recall.planner": "the labelled sets score one classifier at a time",
    "riko.evaluation.labelled -> riko.review.conflicts": "the labelled sets score one classifier at a time",
    "riko.evaluation.labelled -> riko.tools": "the labelled sets score the tools' cue detector alone",
    "riko.evaluation.qa -> riko.dream.http_providers": "the QA answerer checks its endpoint as Dream's does",
    "riko.evaluation.qa -> riko.dream.prompt": "the QA answer cache keys requests as Dream's cache does",
    "riko.evaluation.qa -> riko.dream.providers": "the QA answerer reuses Dream's chat providers",
    "riko.evaluation.stubs -> riko.dense.providers": "the deterministic embedding model of offline runs",
}

#: ``face module -> expression`` reading a Memory's insides -> why
ALLOWED_READS = {
    "riko.evaluation.datasets_systems -> self.mem.context": "recall's ranking alone takes the scope context",
    "riko.evaluation.dream_quality -> mem.context": "reads the extracted candidates below Memory.candidates",
    "riko.evaluation.probes -> mem.context": "the privacy probes search every table by name (ctx.stores.tables)",
}

_INSIDES = {"context", "warehouse"}
_MEMORY = re.compile(r"(^|\.)(mem|memory)$")


def _faces() -> list[Path]:
    return [p for p in sorted(PACKAGE.rglob("*.py")) if _unit(_module(p)) in FACES]


def _forbidden(target: str) -> bool:
    """A stage or store module: on the floors from the stores up to the door, and not a model."""
    return STORES <= floor_of(_unit(target)) < DOOR and target not in MODELS


def _reach_ins(path: Path) -> list[str]:
    """``face -> target`` for every import of a stage or store module the face makes."""
    face = _module(path)
    return [f"{face} -> {t}" for t in _import_sites(path) if _forbidden(t)]


def _reads(source: str, module: str) -> list[str]:
    """``face -> expression`` for every read of a Memory's context, warehouse or private attribute."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and (node.attr in _INSIDES or
                                                node.attr.startswith("_") and not node.attr.startswith("__")):
            if _MEMORY.search(ast.unparse(node.value)):
                found.append(f"{module} -> {ast.unparse(node)}")
    return found


def _all_reads() -> list[str]:
    return [hit for p in _faces() for hit in _reads(p.read_text(encoding="utf-8"), _module(p))]


def test_faces_reach_stages_and_stores_only_through_the_door() -> None:
    sites = sorted({s for p in _faces() for s in _reach_ins(p)})
    assert [s for s in sites if s not in ALLOWED] == [], "go through riko.Memory or riko.door"
    assert sorted(set(ALLOWED) - set(sites)) == [], "stale entries in ALLOWED"


def test_faces_do_not_read_a_memorys_insides() -> None:
    reads = sorted(set(_all_reads()))
    assert [r for r in reads if r not in ALLOWED_READS] == [], "call a Memory method instead"
    assert sorted(set(ALLOWED_READS) - set(reads)) == [], "stale entries in ALLOWED_READS"


def test_the_cli_and_the_servers_need_no_allowance_but_the_agent_tools() -> None:
    """The interactive faces go through the door alone; only evaluation scores stages one by one."""
    interactive = [k for k in (*ALLOWED, *ALLOWED_READS) if not k.startswith("riko.evaluation.")]
    assert interactive == ["riko.mcp.server -> riko.tools", "riko.cli.eval -> riko.dense.providers"]


def test_a_reach_in_is_caught() -> None:
    assert sorted(_reads("def f(mem):\n    return mem.context.stores, mem._wh, self.memory.warehouse, mem.scope\n",
                         "riko.cli.probe")) == ["riko.cli.probe -> mem._wh", "riko.cli.probe -> mem.context",
                                                "riko.cli.probe -> self.memory.warehouse"]
    caught = ["riko.stores.evidence", "riko.review.machine", "riko.dream.runner", "riko.wiki.check", "riko.graph",
              "riko.context", "riko.settings"]
    passed = ["riko.door", "riko.memory", "riko", "riko.vocabulary", "riko.errors", "riko.config", "riko.wiki",
              "riko.sensitivity.rules", "riko.cli.main"]
    assert [t for t in caught if not _forbidden(t)] == [] and [t for t in passed if _forbidden(t)] == []
