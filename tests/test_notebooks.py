"""The example notebooks run top to bottom on a kernel of this interpreter, so they never rot."""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
import os
import re
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import nbformat
import pytest
from ipykernel.kernelspec import write_kernel_spec
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

from riko.evaluation.samples import SAMPLE_FACTS_BY_PRESET

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
KERNEL = "riko-notebook-tests"


def _builder() -> ModuleType:
    spec = importlib.util.spec_from_file_location("build_notebooks", NOTEBOOKS / "build_notebooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def kernel_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A kernel spec that launches ipykernel on ``sys.executable`` (no user-wide install needed)."""
    base = tmp_path_factory.mktemp("kernels")
    write_kernel_spec(base / KERNEL)
    return base


def _execute(name: str, kernel_dir: Path, tmp_path: Path) -> nbformat.NotebookNode:
    """Run one committed notebook (a failing cell raises) with its working directory and
    TMPDIR inside ``tmp_path``; plots render through Agg, headless."""
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    (tmp_path / "work").mkdir()
    (tmp_path / "tmp").mkdir()
    km = KernelManager(kernel_name=KERNEL, kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernel_dir)]))
    assert km.kernel_spec.argv[0] == sys.executable
    client = NotebookClient(nb, km=km, timeout=600, resources={"metadata": {"path": str(tmp_path / "work")}})
    client.execute(env={**os.environ, "TMPDIR": str(tmp_path / "tmp"), "MPLBACKEND": "Agg"})
    return nb


def _outputs(nb: nbformat.NotebookNode, tag: str) -> list[dict]:
    cells = [cell for cell in nb.cells if tag in cell.metadata.get("tags", [])]
    assert len(cells) == 1, f"expected one cell tagged {tag!r}"
    return cells[0].outputs


def _text(nb: nbformat.NotebookNode, tag: str) -> str:
    """Everything a tagged cell printed or displayed as text."""
    parts = []
    for out in _outputs(nb, tag):
        if out.output_type == "stream":
            parts.append(out.text)
        elif "data" in out:
            parts.extend(str(out.data.get(kind, "")) for kind in ("text/plain", "text/markdown"))
    return "".join(parts)


def _images(nb: nbformat.NotebookNode, tag: str) -> int:
    return sum("image/png" in out.get("data", {}) for out in _outputs(nb, tag))


def _assert_ran_clean(nb: nbformat.NotebookNode, tmp_path: Path) -> None:
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert code and all(cell.execution_count for cell in code), "every code cell executes"
    errors = [out for cell in code for out in cell.outputs if out.output_type == "error"]
    assert errors == []
    images = [out for cell in code for out in cell.outputs if "image/png" in out.get("data", {})]
    assert images, "every notebook draws at least one plot"
    # the notebook kept its root under the temporary directory, removed it at the end, and
    # wrote nothing where it was started (the repository, when run by hand)
    assert list((tmp_path / "tmp").iterdir()) == []
    assert list((tmp_path / "work").iterdir()) == []


def test_committed_notebooks_match_their_source_and_carry_no_outputs() -> None:
    builder = _builder()
    assert sorted(p.name for p in NOTEBOOKS.glob("*.ipynb")) == sorted(builder.NOTEBOOKS)
    for name in builder.NOTEBOOKS:
        text = (NOTEBOOKS / name).read_text(encoding="utf-8")
        assert text == builder.render(name), f"{name} is stale: run python notebooks/build_notebooks.py"
        nb = nbformat.reads(text, as_version=4)
        nbformat.validate(nb)
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None
        assert nb.cells[0].cell_type == "markdown" and nb.cells[0].source.startswith("# ")


def _distribution(requirement: str) -> str:
    name = re.match(r"[A-Za-z0-9._-]+", requirement)
    assert name, requirement
    return re.sub(r"[-_.]+", "-", name[0]).lower()


def test_the_notebooks_extra_holds_what_the_notebooks_import() -> None:
    """``pip install 'riko[notebooks]'`` is enough to run them: every module a notebook imports
    is the standard library, riko, a core dependency or in the ``notebooks`` extra."""
    project = tomllib.loads((NOTEBOOKS.parent / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extra = {_distribution(r) for r in project["optional-dependencies"]["notebooks"]}
    provided = {_distribution(r) for r in project["dependencies"]} | extra
    assert {"matplotlib", "ipykernel"} <= extra  # the plots, and a kernel of this interpreter to run them
    builder = _builder()
    owners = importlib.metadata.packages_distributions()
    imported: set[str] = set()
    for name in builder.NOTEBOOKS:
        for cell in nbformat.reads(builder.render(name), as_version=4).cells:
            if cell.cell_type != "code":
                continue
            source = "\n".join(line for line in cell.source.splitlines() if not line.startswith("%"))
            for node in ast.walk(ast.parse(source)):
                if isinstance(node, ast.Import):
                    imported |= {alias.name.split(".")[0] for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    imported.add(node.module.split(".")[0])
    third_party = sorted(m for m in imported if m not in sys.stdlib_module_names and m != "riko")
    assert "matplotlib" in third_party
    missing = {m: owners.get(m) for m in third_party
               if not {_distribution(d) for d in owners.get(m, [])} & provided}
    assert not missing, f"imported by a notebook but in neither the dependencies nor the notebooks extra: {missing}"


def test_quickstart_runs_ingest_dream_review_resident_recall(kernel_dir: Path, tmp_path: Path) -> None:
    nb = _execute("01-quickstart.ipynb", kernel_dir, tmp_path)
    _assert_ran_clean(nb, tmp_path)
    assert "riko-quickstart-" in _text(nb, "setup")
    assert "| sessions | 3 |" in _text(nb, "ingest")
    refused = _text(nb, "refused").splitlines()
    assert len(refused) == 2 and all("log belongs to preset 'work'" in line for line in refused)
    assert "heuristic" in _text(nb, "dream")
    assert "confirmed c-" in _text(nb, "review")
    assert "My sister Lena lives in Berlin." in _text(nb, "provenance")
    resident = _text(nb, "resident")
    assert "<persistent-memory>" in resident and "I prefer dark mode in every app I use." in resident
    assert _images(nb, "layers-plot") == 1
    printed = "".join(out.text for out in _outputs(nb, "layers-plot") if out.output_type == "stream")
    layers = dict(part.split("=") for part in printed.strip().split(", "))
    assert list(layers) == ["L0 lines", "L0 user lines", "L1 candidates", "L2 pages", "L3 Resident pages"]
    counts = [int(v) for v in layers.values()]
    assert counts[0] > counts[1] > 0 and counts[2] > 0 and counts[3] >= counts[4] > 0, layers
    context = _text(nb, "recall-context")
    assert "<MEMORY_DATA>" in context
    assert "My sister Lena lives in Berlin." in SAMPLE_FACTS_BY_PRESET["companion"]
    assert "My sister Lena lives in Berlin." in context
    trace = _text(nb, "recall-trace")
    assert "'queryClass'" in trace and "'injectedMemories'" in trace
    gate = _text(nb, "recall-gate")
    assert "What is 17 * 23? -> intent=" in gate and "(nothing injected)" in gate
    assert "我喜欢喝乌龙茶" in gate


def test_wiki_curation_edits_syncs_diffs_and_plots(kernel_dir: Path, tmp_path: Path) -> None:
    nb = _execute("02-wiki-curation.ipynb", kernel_dir, tmp_path)
    _assert_ran_clean(nb, tmp_path)
    assert "entities/lena.md" in _text(nb, "pages")
    sync = _text(nb, "sync")
    assert "edited=1" in sync and "Lena is now version 2" in sync
    diff = _text(nb, "diff")
    assert "-Mira's younger sister; lives in [[Berlin]]." in diff
    assert "+She works as an architect." in diff  # the hand edit is kept as typed: riko counts the version itself
    assert "Oolong tea" in _text(nb, "graph")
    assert _images(nb, "graph-plot") == 1
    timeline = _text(nb, "timeline")
    assert "I live in Oslo." in timeline and "I live in Lisbon." in timeline
    assert _images(nb, "timeline-plot") == 1
    resident = _text(nb, "resident")
    assert "I live in Lisbon." in resident and "I live in Oslo." not in resident
    recall = _text(nb, "recall-temporal").split("Where did I live in 2024?")
    assert "I live in Lisbon." in recall[0] and "I live in Oslo." not in recall[0]
    assert "I live in Oslo." in recall[1].split("Where did I live before?")[0]


def test_evaluation_runs_the_corpus_and_plots_metrics(kernel_dir: Path, tmp_path: Path) -> None:
    nb = _execute("03-evaluation.ipynb", kernel_dir, tmp_path)
    _assert_ran_clean(nb, tmp_path)
    from riko.evaluation import METRIC_FIELDS, SCENARIOS

    run = _text(nb, "run")
    assert all(f"{s.id} " in run for s in SCENARIOS)
    assert "'error'" not in run
    metrics = _text(nb, "metrics")
    assert f"shape: ({len(METRIC_FIELDS)}, 8)" in metrics
    assert "recallAtK" in metrics
    assert "recallAtK = " in _text(nb, "trace")
    assert "measured metrics away from their ideal: [" in _text(nb, "gate")
    assert _images(nb, "metrics-plot") == 1
    assert "metrics.json" in _text(nb, "artifacts")
