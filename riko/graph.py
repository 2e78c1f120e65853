"""The Wiki link graph as a networkx DiGraph."""

from __future__ import annotations

from typing import Iterable

import networkx as nx

from .wiki import Page, normalize_title

__all__ = ["build_graph", "broken_links"]


def build_graph(pages: Iterable[Page]) -> nx.DiGraph:
    """Nodes are page ids (with title, type, status); edges carry ``rel`` (None for a plain link).

    A link whose target matches no page title is kept as an edge to a node ``missing:<title>``
    with ``broken=True``, so broken links are visible rather than dropped.
    """
    pages = list(pages)
    graph = nx.DiGraph()
    by_title: dict[str, str] = {}
    for page in pages:
        graph.add_node(page.id, title=page.title, type=page.type, status=page.status, broken=False)
        by_title.setdefault(normalize_title(page.title), page.id)
    for page in pages:
        for link in page.links():
            target = by_title.get(normalize_title(link.target))
            if target is None:
                target = f"missing:{link.target}"
                graph.add_node(target, title=link.target, type=None, status="missing", broken=True)
            graph.add_edge(page.id, target, rel=link.rel, line=link.line, broken=target.startswith("missing:"))
    return graph


def broken_links(graph: nx.DiGraph) -> list[tuple[str, str]]:
    """(source page id, missing title) for every link that resolves to no page."""
    return [(u, graph.nodes[v]["title"]) for u, v, d in graph.edges(data=True) if d.get("broken")]
