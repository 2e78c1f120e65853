"""Source of the example notebooks: each is a list of cells here, written out without outputs.

Keeping the cells in Python makes them reviewable as code; the ``.ipynb`` files are generated
and committed without outputs (``tests/test_notebooks.py`` executes them top to bottom).

    python notebooks/build_notebooks.py            # rewrite the .ipynb files
    python notebooks/build_notebooks.py --check    # exit 1 when a file differs from this source
"""

from __future__ import annotations

import sys
from pathlib import Path
from textwrap import dedent

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent

Cell = tuple[str, str, tuple[str, ...]]


def md(text: str) -> Cell:
    return ("markdown", dedent(text).strip(), ())


def code(text: str, *tags: str) -> Cell:
    """A code cell; ``tags`` name the cells whose outputs the notebook tests inspect."""
    return ("code", dedent(text).strip(), tags)


QUICKSTART: list[Cell] = [
    md("""
        # riko quickstart

        One memory scope through the whole pipeline on the bundled sample logs: session logs become
        L0 evidence, Dream proposes L1 candidates, review turns them into L2 Wiki pages, the Resident
        is compiled from those pages, and recall answers a user turn with a full trace. Everything
        runs offline and writes only into a temporary directory.
    """),
    code("""
        %matplotlib inline
        import shutil
        import tempfile
        import warnings
        from pathlib import Path

        import matplotlib.pyplot as plt
        import polars as pl

        import riko
        from riko.contracts import parse_ref
        from riko.evaluation.samples import generate_samples

        # progress bars stay off in this notebook, so tqdm's hint about ipywidgets is noise
        warnings.filterwarnings("ignore", message="IProgress not found")
        pl.Config.set_tbl_rows(20)
        pl.Config.set_fmt_str_lengths(60)

        root = Path(tempfile.mkdtemp(prefix="riko-quickstart-"))
        sample_paths = generate_samples(root / "samples")
        print(f"root: {root}")
        for path in sample_paths:
            print(" ", path.relative_to(root))
    """, "setup"),
    md("""
        ## 1. Open a scope and ingest session logs

        A memory belongs to one scope: an owner plus a stable agent preset. `ingest` reads the
        harness logs into L0 evidence; logs written under another preset (the two `work` sessions
        here) are refused instead of being mixed in.
    """),
    code("""
        mem = riko.open(root, preset="companion", config={"recall_enabled": True, "embedding_provider": "off"})
        report = mem.ingest(root / "samples", progress=False)
        report
    """, "ingest"),
    code("""
        for refused in report.refused:
            reason = refused["reason"].split("; ")[0].split(": ", 1)[-1]
            print(f"{Path(refused['path']).parent.name}: {reason}")
    """, "refused"),
    code("""
        mem.sessions().select("session_id", "format", "created_at", "event_count", "user_event_count")
    """),
    md("""
        Only what the user typed is user evidence. Assistant replies, tool results and
        plugin-injected recall blocks are stored too, but never count as the user's word.
    """),
    code("""
        mem.evidence(user_only=True).select("session_id", "seq", "source_kind", "text")
    """),
    md("""
        ## 2. Dream: propose candidates

        Dream reads the evidence past each session's cursor and proposes L1 candidates. The offline
        `heuristic` provider needs no model; under the default `user_grounded` policy a candidate
        that repeats the user's own words is confirmed at once, and the confirmation is audited.
    """),
    code("""
        dream = mem.dream(provider="heuristic", progress=False)
        dream
    """, "dream"),
    code("""
        mem.candidates(status=None).select("id", "status", "type", "title", "confidence")
    """),
    md("""
        ## 3. Review

        Whatever is still pending waits for a person. Confirming it writes a canonical page (a
        Markdown file under `mem.wiki_dir`) and the audit log records who decided.
    """),
    code("""
        pending = mem.candidates()
        pending.select("id", "type", "title", "evidence")
    """),
    code("""
        for candidate_id in pending["id"]:
            page = mem.confirm(candidate_id)
            print(f"confirmed {candidate_id} -> {page.id} ({page.type}: {page.title})")
        mem.pages().select("id", "type", "title", "version", "path")
    """, "review"),
    code("""
        mem.audits().group_by("kind", "authority").len().sort("kind", "authority")
    """),
    md("""
        Every page keeps its provenance: `sources` point at the evidence lines it was drawn from,
        so a memory can always be traced back to what the user actually said.
    """),
    code("""
        lena = mem.page(mem.pages().filter(pl.col("title").str.starts_with("My sister Lena"))["id"][0])
        print(f"{lena.id}: {lena.title}")
        for ref in lena.sources:
            session_id, seq = parse_ref(ref)
            line = mem.evidence(session_id).filter(pl.col("seq") == seq)
            print(f"  {ref} -> {line['text'][0]!r}")
    """, "provenance"),
    md("""
        ## 4. The Resident

        The Resident is the bounded, always-on block injected into every prompt. It is compiled
        from current canonical pages and versioned, so a prompt can always name the memory it saw.
    """),
    code("""
        snapshot = mem.resident()
        snapshot
    """, "resident"),
    md("""
        Each layer keeps less than the one below it: every stored line is evidence, the user's own
        lines are the only authority, Dream proposes a few candidates, review makes pages of them,
        and the bounded Resident carries the pages that fit.
    """),
    code("""
        layers = {
            "L0 lines": mem.evidence().height,
            "L0 user lines": mem.evidence(user_only=True).height,
            "L1 candidates": mem.candidates(status=None).height,
            "L2 pages": mem.pages().height,
            "L3 Resident pages": len(snapshot.source_page_ids),
        }
        fig, ax = plt.subplots(figsize=(8, 3.5))
        bars = ax.barh(list(layers), list(layers.values()), color="tab:blue")
        ax.bar_label(bars, padding=3)
        ax.invert_yaxis()
        ax.set_xlabel("count")
        ax.set_title("What each memory layer keeps of the sample sessions")
        fig.tight_layout()
        plt.show()
        print(", ".join(f"{name}={count}" for name, count in layers.items()))
    """, "layers-plot"),
    md("""
        ## 5. Recall with its trace

        Recall handles one user turn: a planner decides whether and where to search, channel results
        are fused, and a gate decides what may be injected. `context` is the block to inject and
        `trace` explains every decision without keeping the query text.
    """),
    code("""
        result = mem.recall("Where does my sister Lena live?")
        result
    """),
    code("""
        print(result.context)
    """, "recall-context"),
    code("""
        keys = ("queryClass", "temporalMode", "planChannels", "candidatesByChannel", "gateCounts",
                "injectedMemories", "contextChars", "degradedModes")
        {key: result.trace[key] for key in keys}
    """, "recall-trace"),
    md("""
        Recall is gated: a question that needs no personal memory injects nothing, and a question in
        Chinese reaches the page the user wrote in Chinese.
    """),
    code("""
        for query in ("What is 17 * 23?", "我喜欢喝什么茶？"):
            answer = mem.recall(query)
            print(f"{query} -> intent={answer.trace['queryClass']}, injected={answer.trace['injectedMemories']}")
            print(answer.context or "(nothing injected)")
    """, "recall-gate"),
    md("""
        ## Clean up

        Closing the memory releases the writer lock; the temporary root is then removed.
    """),
    code("""
        mem.close()
        shutil.rmtree(root)
    """, "cleanup"),
]


WIKI_CURATION: list[Cell] = [
    md("""
        # Curating the Wiki

        Canonical memory is a folder of Markdown pages that people can read and edit. This notebook
        edits a page file by hand, syncs it back, diffs two versions, draws the link graph, and
        plots a validity timeline built from temporal replacements.
    """),
    code("""
        %matplotlib inline
        import difflib
        import shutil
        import tempfile
        from datetime import timedelta
        from pathlib import Path

        import matplotlib.dates as mdates
        import matplotlib.pyplot as plt
        import networkx as nx
        import polars as pl

        import riko
        from riko import FixedClock
        from riko.graph import broken_links

        pl.Config.set_fmt_str_lengths(60)

        root = Path(tempfile.mkdtemp(prefix="riko-wiki-"))
        clock = FixedClock("2026-03-20T09:00:00Z")
        mem = riko.open(root, preset="companion", clock=clock,
                        config={"recall_enabled": True, "embedding_provider": "off"})
        mem
    """, "setup"),
    md("""
        ## 1. Write a few pages

        Management pages are written straight into canon. A body links to another page by title
        with `[[Title]]`; a typed link such as `[[evidenced_by::Title]]` also names the relation.
    """),
    code("""
        mem.create_page("Mira", "The user. Her sister is [[Lena]]; she drinks [[Oolong tea]] most mornings.",
                        type="entity")
        mem.create_page("Lena", "Mira's younger sister; lives in [[Berlin]].", type="entity")
        mem.create_page("Berlin", "Capital of Germany.", type="entity")
        mem.create_page("Cherry blossom forecast", "Full bloom in Kyoto expected around April 3-8, 2026.",
                        type="source")
        mem.create_page("Kyoto trip",
                        "[[Mira]] travels to Kyoto in early April 2026 for the cherry blossoms.\\n"
                        "Timing: [[evidenced_by::Cherry blossom forecast]].",
                        type="episode")
        for path in sorted(mem.wiki_dir.rglob("*.md")):
            print(path.relative_to(mem.wiki_dir))
    """, "pages"),
    md("""
        ## 2. Edit a page file and sync

        A page file is YAML front matter plus a Markdown body. Edit it with any editor; `sync` (also
        run on every open) validates the file, bumps the version and keeps the previous text.
    """),
    code("""
        lena_row = mem.pages().filter(pl.col("title") == "Lena").row(0, named=True)
        lena_id = lena_row["id"]
        lena_file = mem.wiki_dir / lena_row["path"]
        print(lena_file.read_text())
    """),
    code("""
        clock.advance(days=1)
        edited = lena_file.read_text().replace(
            "lives in [[Berlin]].",
            "lives in [[Berlin]] and joins the [[Kyoto trip]] for its first week.\\nShe works as an architect.",
        )
        lena_file.write_text(edited)
        sync = mem.sync()
        print(sync)
        print(f"Lena is now version {mem.page(lena_id).version}")
    """, "sync"),
    md("""
        ## 3. Version diff

        `page_versions` keeps the full file text of every earlier version, so any two versions can be
        compared line by line.
    """),
    code("""
        versions = mem.page_versions(lena_id)
        before = versions.filter(pl.col("version") == 1)["text"][0]
        after = lena_file.read_text()
        diff = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                    "version 1", f"version {mem.page(lena_id).version}")
        print("".join(diff))
    """, "diff"),
    md("""
        ## 4. The link graph

        `graph()` returns a networkx DiGraph of pages and links. A link to a title that has no page
        stays in the graph as a broken `missing:` node rather than disappearing.
    """),
    code("""
        graph = mem.graph()
        print(f"{graph.number_of_nodes()} nodes, {graph.number_of_edges()} links")
        print("broken links:", broken_links(graph))
    """, "graph"),
    code("""
        type_colors = {"entity": "#4c72b0", "episode": "#55a868", "concept": "#8172b2", "source": "#ccb974"}
        node_colors = ["#c44e52" if data["broken"] else type_colors.get(data["type"], "#999999")
                       for _, data in graph.nodes(data=True)]
        labels = {node: data["title"] for node, data in graph.nodes(data=True)}
        edge_labels = {(u, v): data["rel"] for u, v, data in graph.edges(data=True) if data["rel"]}
        pos = nx.spring_layout(graph, seed=7)

        fig, ax = plt.subplots(figsize=(9, 5.5))
        nx.draw_networkx(graph, pos, ax=ax, labels=labels, node_color=node_colors, node_size=1800,
                         font_size=8, arrowsize=16, edge_color="#666666")
        nx.draw_networkx_edge_labels(graph, pos, edge_labels=edge_labels, ax=ax, font_size=7)
        ax.set_title("Wiki link graph (red: a link to a missing page)")
        ax.margins(0.15)
        ax.axis("off")
        plt.show()
    """, "graph-plot"),
    md("""
        ## 5. A validity timeline

        A temporal replacement closes the old page's interval at `valid_from` and publishes a new page
        that supersedes it; nothing is overwritten. The fixed clock makes the history reproducible.
    """),
    code("""
        home = mem.create_page("Home city", "I live in Oslo.", type="concept", valid_from="2023-09-01T00:00:00Z")
        clock.advance(days=1)
        taipei = mem.replace(home.id, "I live in Taipei.", valid_from="2025-06-01T00:00:00Z")
        clock.advance(days=1)
        mem.replace(taipei.id, "I live in Lisbon.", valid_from="2026-02-01T00:00:00Z")

        job = mem.create_page("Job", "I work as a UX designer at Studio North.", type="concept",
                              valid_from="2022-03-01T00:00:00Z")
        clock.advance(days=1)
        mem.replace(job.id, "I lead product design at Fjord Labs.", valid_from="2025-09-15T00:00:00Z")

        mem.create_page("Sabbatical", "I am on a three-month sabbatical.", type="concept",
                        valid_from="2026-07-01T00:00:00Z", valid_to="2026-10-01T00:00:00Z")

        timeline = (
            mem.pages()
            .filter(pl.col("valid_from").is_not_null())
            .select("id", "title", "valid_from", "valid_to", "supersedes", "superseded_by")
            .sort("title", "valid_from")
        )
        timeline = timeline.with_columns(claim=pl.Series([mem.page(pid).summary() for pid in timeline["id"]]))
        timeline.select("title", "claim", "valid_from", "valid_to")
    """, "timeline"),
    code("""
        now = clock.now().replace(tzinfo=None)
        horizon = now + timedelta(days=365)
        titles = list(dict.fromkeys(timeline["title"]))
        palette = plt.get_cmap("tab10")

        fig, ax = plt.subplots(figsize=(10, 4))
        for i, row in enumerate(timeline.iter_rows(named=True)):
            start = mdates.date2num(row["valid_from"])
            end = mdates.date2num(row["valid_to"] or horizon)
            is_open = row["valid_to"] is None
            ax.barh(i, end - start, left=start, height=0.6, color=palette(titles.index(row["title"])),
                    alpha=0.45 if is_open else 0.85, hatch="//" if is_open else None, edgecolor="black")
            ax.text(start + 10, i, row["claim"], va="center", fontsize=8)
        ax.axvline(mdates.date2num(now), color="#c44e52", linestyle="--", label="now (fixed clock)")
        ax.set_yticks(range(timeline.height), timeline["title"].to_list())
        ax.invert_yaxis()
        ax.xaxis_date()
        ax.set_title("Validity intervals (hatched: still open)")
        ax.legend(loc="upper left")
        plt.show()
    """, "timeline-plot"),
    md("""
        The intervals decide what the agent sees: the Resident and current recall use the interval
        that holds now, while a question about the past, or `history=True`, reaches closed ones.
    """),
    code("""
        print(mem.resident().text)
    """, "resident"),
    code("""
        for query, options in (("Where do I live now?", {}), ("Where did I live in 2024?", {}),
                               ("Where did I live before?", {"history": True})):
            answer = mem.recall(query, **options)
            shown = ", ".join(f"{key}={value}" for key, value in options.items())
            print(f"{query}{f' ({shown})' if shown else ''} -> mode={answer.trace['temporalMode']}")
            print(answer.context or "(nothing injected)")
    """, "recall-temporal"),
    md("""
        ## Clean up

        Closing the memory releases the writer lock; the temporary root is then removed.
    """),
    code("""
        mem.close()
        shutil.rmtree(root)
    """, "cleanup"),
]


EVALUATION: list[Cell] = [
    md("""
        # Evaluation: the companion corpus

        The companion corpus holds thirty scripted scenarios (Appendix F). Each runs through riko's
        real seams in its own temporary root, with a fixed clock and loopback stubs for remote
        providers. The outcomes are scored into nineteen aggregate metrics (Appendix G), and every
        number can be traced to the scenarios it was computed from.
    """),
    code("""
        %matplotlib inline
        import shutil
        import tempfile
        import warnings
        from pathlib import Path

        import matplotlib.pyplot as plt
        import polars as pl
        from matplotlib.lines import Line2D

        from riko.evaluation import RANKING_SCENARIOS, SCENARIOS, run_companion

        # progress bars stay off in this notebook, so tqdm's hint about ipywidgets is noise
        warnings.filterwarnings("ignore", message="IProgress not found")
        pl.Config.set_tbl_rows(40)
        pl.Config.set_fmt_str_lengths(60)

        root = Path(tempfile.mkdtemp(prefix="riko-eval-"))
        print(f"root: {root}")
    """, "setup"),
    md("""
        ## 1. The scenarios

        Each scenario names a behaviour category, its language, what the setup drives (sessions,
        Dream, HTTP routes, management pages) and the judgment it is scored on.
    """),
    code("""
        pl.DataFrame([{"id": s.id, "category": s.category, "language": s.language, "label": s.label,
                       "setup": s.setup_kind, "ranking": s.id in RANKING_SCENARIOS} for s in SCENARIOS])
    """, "scenarios"),
    md("""
        ## 2. Run the corpus

        `run_companion` runs every scenario and writes the raw results and metrics under the given
        folder. A scenario that raises is recorded as an error row rather than silently dropped. The
        Dream job failures logged along the way belong to F.19, which drives Dream against a provider
        that answers with a broken file block on purpose.
    """),
    code("""
        run = run_companion(out=root / "artifacts",
                            on_outcome=lambda o: print(f"{o.id} {o.status:<7} {o.category}"))
        print(run.counts(), f"in {run.seconds:.1f} s")
    """, "run"),
    code("""
        run.outcomes_frame()
    """),
    md("""
        A failed scenario lists the exact checks that did not hold, so a regression points straight at
        the behaviour that moved.
    """),
    code("""
        run.outcomes_frame().filter(pl.col("status") != "passed").select("id", "category", "failed").explode("failed")
    """, "failed"),
    md("""
        ## 3. The metrics table

        One row per metric: its value, numerator and denominator, its ideal, and whether it reached
        it. A metric the fixture cannot measure is reported `unsupported` with a reason, never as zero.
    """),
    code("""
        metrics = run.metrics_frame()
        metrics.select("name", "side", "status", "value", "numerator", "denominator", "ideal", "at_ideal")
    """, "metrics"),
    code("""
        print("measured metrics away from their ideal:", run.gate_failures())
        for row in metrics.filter(pl.col("status") != "measured").iter_rows(named=True):
            print(f"{row['name']} is {row['status']}: {row['reason']}")
    """, "gate"),
    md("""
        Every value keeps the scenarios it was computed from; here is where recall@k comes from.
    """),
    code("""
        record = run.metrics["recallAtK"]
        print(f"{record.name} = {record.value} ({record.numerator}/{record.denominator}) over {', '.join(record.scenarios)}")
    """, "trace"),
    md("""
        ## 4. Values against their ideals

        Each measured metric is a dot (green at its ideal, red away from it) beside a black tick at
        its ideal value; unmeasured metrics are marked as such.
    """),
    code("""
        fig, ax = plt.subplots(figsize=(10, 7))
        for i, row in enumerate(metrics.iter_rows(named=True)):
            ax.scatter(row["ideal"], i, marker="|", s=160, color="black", zorder=2)
            if row["status"] != "measured":
                ax.text(0.5, i, "not measured", ha="center", va="center", fontsize=8, color="#888888")
                continue
            color = "#55a868" if row["at_ideal"] else "#c44e52"
            ax.plot([row["value"], row["ideal"]], [i, i], color=color, alpha=0.4, zorder=1)
            ax.scatter(row["value"], i, s=70, color=color, zorder=3)
        sides = metrics["side"].to_list()
        for side in dict.fromkeys(sides):
            first, last = sides.index(side), len(sides) - 1 - sides[::-1].index(side)
            if first:
                ax.axhline(first - 0.5, color="#cccccc", linewidth=1)
            ax.text(1.02, (first + last) / 2, side, rotation=90, va="center", ha="left",
                    transform=ax.get_yaxis_transform())
        ax.set_yticks(range(metrics.height), metrics["name"].to_list())
        ax.invert_yaxis()
        ax.set_xlim(-0.05, 1.05)
        ax.set_xlabel("value")
        ax.set_title("Companion corpus metrics against their ideal values")
        ax.legend(handles=[
            Line2D([], [], marker="|", linestyle="", color="black", markersize=12, label="ideal"),
            Line2D([], [], marker="o", linestyle="", color="#55a868", label="at ideal"),
            Line2D([], [], marker="o", linestyle="", color="#c44e52", label="away from ideal"),
        ], loc="upper center", bbox_to_anchor=(0.5, -0.08), ncol=3, frameon=False)
        plt.show()
    """, "metrics-plot"),
    md("""
        ## 5. Artifacts

        The run folder keeps the raw per-scenario results and the metrics as JSON, for diffing one run
        against the next.
    """),
    code("""
        for path in sorted(run.artifacts.rglob("*")):
            print(path.relative_to(run.artifacts), f"{path.stat().st_size} bytes")
    """, "artifacts"),
    md("""
        ## Clean up
    """),
    code("""
        shutil.rmtree(root)
    """, "cleanup"),
]

NOTEBOOKS: dict[str, list[Cell]] = {
    "01-quickstart.ipynb": QUICKSTART,
    "02-wiki-curation.ipynb": WIKI_CURATION,
    "03-evaluation.ipynb": EVALUATION,
}


def build(cells: list[Cell], stem: str) -> nbformat.NotebookNode:
    """One notebook without outputs; cell ids are derived from the position so rebuilds are stable."""
    nb = new_notebook(metadata={
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    })
    for index, (kind, source, tags) in enumerate(cells):
        cell = new_markdown_cell(source) if kind == "markdown" else new_code_cell(source)
        cell.id = f"{stem}-{index:02d}"
        if tags:
            cell.metadata["tags"] = list(tags)
        nb.cells.append(cell)
    nbformat.validate(nb)
    return nb


def render(name: str) -> str:
    """The file text of notebook ``name`` as it should be committed."""
    text = nbformat.writes(build(NOTEBOOKS[name], name.split("-")[0]))
    return text if text.endswith("\n") else text + "\n"


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for name in NOTEBOOKS:
        path = HERE / name
        text = render(name)
        if check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
    if stale:
        print(f"out of date (run python notebooks/build_notebooks.py): {', '.join(stale)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
