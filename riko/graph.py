"""The Wiki link graph as a networkx DiGraph."""

from __future__ import annotations

from typing import Iterable

import networkx as nx

from .wiki import Page, normalize_title

__all__ = ["build_graph", "broken_links", "neighbourhood", "linked"]


def _preference(page: Page) -> tuple[int, str]:
    """Which page a title resolves to when several share it: the current one first."""
    current = page.status == "confirmed" and page.superseded_by is None and page.valid_to is None
    return (0 if current else 1, page.id)


def build_graph(pages: Iterable[Page]) -> nx.DiGraph:
    """Nodes are page ids (with title, type, status); edges carry ``rel`` (None for a plain link).

    A link resolves by title (the current page wins when several share it), else by page id.
    A link that resolves to nothing is kept as an edge to a node ``missing:<title>`` with
    ``broken=True``, so broken links are visible rather than dropped. Repeated links between
    the same two pages are one edge whose ``rels`` lists every relation written.

    >>> g = build_graph([Page(id="a", type="concept", title="A", body="[[supports::B]] [[C]]"),
    ...                  Page(id="b", type="concept", title="B")])
    >>> g.edges["a", "b"]["rel"], g.nodes["missing:c"]["broken"]
    ('supports', True)
    """
    pages = sorted(pages, key=_preference)
    graph = nx.DiGraph()
    by_title: dict[str, str] = {}
    ids = {page.id for page in pages}
    for page in pages:
        graph.add_node(page.id, title=page.title, type=page.type, status=page.status, broken=False,
                       hub=page.type == "entity" and page.category == "entity" and page.kind != "self",
                       user=page.type == "entity" and page.category == "entity" and page.kind == "self")
        by_title.setdefault(normalize_title(page.title), page.id)
    for page in sorted(pages, key=lambda p: p.id):
        for link in page.links():
            target = by_title.get(normalize_title(link.target)) or (link.target if link.target in ids else None)
            broken = target is None
            if target is None:
                target = f"missing:{normalize_title(link.target)}"
                if target not in graph:
                    graph.add_node(target, title=link.target, type=None, status="missing", broken=True)
            if graph.has_edge(page.id, target):
                graph.edges[page.id, target]["rels"].append(link.rel)
                if graph.edges[page.id, target]["rel"] is None:
                    graph.edges[page.id, target]["rel"] = link.rel
                continue
            graph.add_edge(page.id, target, rel=link.rel, rels=[link.rel], line=link.line, broken=broken)
    return graph


def broken_links(graph: nx.DiGraph) -> list[tuple[str, str]]:
    """(source page id, missing title) for every link that resolves to no page."""
    return sorted((u, graph.nodes[v]["title"]) for u, v, d in graph.edges(data=True) if d.get("broken"))


def neighbourhood(graph: nx.DiGraph, roots: Iterable[str], hop: int) -> set[str]:
    """The nodes within ``hop`` links (either direction) of any root present in ``graph``."""
    undirected = graph.to_undirected(as_view=True)
    keep: set[str] = set()
    for root in roots:
        if root in graph:
            keep |= set(nx.ego_graph(undirected, root, radius=hop))
    return keep


def linked(graph: nx.DiGraph, page_ids: list[str], hop: int) -> list[str]:
    """Nodes within ``hop`` links of each of ``page_ids`` in turn, each once, the ids excluded."""
    seen, out = set(page_ids), []
    for pid in page_ids:
        for near in sorted(neighbourhood(graph, [pid], hop)):
            if near not in seen:
                seen.add(near)
                out.append(near)
    return out
