"""Revocable alias edges and the Wiki link graph."""

from __future__ import annotations

import pytest

from riko.wiki.aliases import explicit_coreferences, invalidate_alias, rebuild_aliases, resolve_alias, upsert_alias
from riko.errors import NotFoundError
from riko.graph import broken_links, build_graph
from riko.wiki import Page


def alias_row(mem, alias_id: str) -> dict:
    return mem.aliases().filter(mem.aliases()["id"] == alias_id).row(0, named=True)


def store(mem):
    return mem.warehouse, mem.scope, mem.clock


# -- explicit coreference ---------------------------------------------------------------------------
ANNA = Page(id="anna", type="entity", title="Anna")
BOB = Page(id="bob", type="entity", title="Bob Stone")
TEA = Page(id="tea", type="concept", title="Tea")


@pytest.mark.parametrize("sentence, expected", [
    ("I had lunch with Anna (Annie) today", [("anna", "Annie")]),
    ("Annie (Anna) is my sister", [("anna", "Annie")]),
    ("my Auntie Anna called", [("anna", "Auntie")]),
    ("Auntie Anna called", []),                             # sentence-initial: every first word is capitalised
    ("Bob Stone（老石）来了", [("bob", "老石")]),
    ("Anna (Annie) and Bob Stone (Bobby) came", []),       # two entities: ambiguous
    ("Anna (Annie) or Anna (Nan)?", []),                    # two aliases: ambiguous
    ("I met anna yesterday", []),                           # no alias form
    ("Tea (Sencha) is nice", []),                           # not an entity
])
def test_explicit_coreference_forms(sentence, expected):
    assert explicit_coreferences(sentence, [ANNA, BOB, TEA]) == expected


def test_explicit_coreference_is_active_and_resolves(mem):
    anna = mem.create_page("Anna", type="entity", body="My sister")
    [(entity, alias)] = explicit_coreferences("Say hi to Anna (Annie)!", mem._canon.pages())
    ident = upsert_alias(*store(mem), entity, alias, resolution_kind="explicit_coreference", source_refs=("session:s1/event:0",))
    row = alias_row(mem, ident)
    assert (row["entity_id"], row["status"], row["resolution_kind"], row["confidence"]) == (anna.id, "active", "explicit_coreference", 1.0)
    assert mem.resolve_alias("ANNIE") == anna.id
    assert mem.resolve_alias("Ann") is None
    assert mem.audits("alias-upserted")["authority"].to_list() == ["deterministic_rule"]


def test_derived_inference_is_contested_and_never_resolves(mem):
    anna = mem.create_page("Anna", type="entity", body="My sister")
    ident = upsert_alias(*store(mem), anna.id, "Sis", resolution_kind="derived_inference", confidence=0.9)
    assert alias_row(mem, ident)["status"] == "contested"
    assert mem.resolve_alias("sis") is None
    with pytest.raises(ValueError):
        upsert_alias(*store(mem), anna.id, "x", resolution_kind="guess")
    with pytest.raises(ValueError):
        upsert_alias(*store(mem), anna.id, "  ", resolution_kind="management")


def test_same_alias_moves_to_the_latest_entity_but_inference_never_overrides(mem):
    anna = mem.create_page("Anna", type="entity", body="My sister")
    bea = mem.create_page("Bea", type="entity", body="My cousin")
    first = mem.add_alias(anna.id, "Sis")
    second = mem.add_alias(bea.id, "sis")                       # a newer decision replaces the older edge
    assert mem.aliases()["id"].to_list() == [second]
    assert mem.resolve_alias("Sis") == bea.id and first != second
    kept = upsert_alias(*store(mem), anna.id, "SIS", resolution_kind="derived_inference")
    assert kept == second and mem.resolve_alias("sis") == bea.id  # a rule never overrides a person


def test_invalidate_and_validity_window(mem):
    anna = mem.create_page("Anna", type="entity", body="My sister")
    ident = mem.add_alias(anna.id, "Annie")
    mem.invalidate_alias(ident, "wrong person")
    row = alias_row(mem, ident)
    assert (row["status"], row["reason"]) == ("invalidated", "wrong person")
    assert mem.resolve_alias("annie") is None
    assert mem.audits("alias-invalidated")["authority"].to_list() == ["management"]
    with pytest.raises(NotFoundError):
        mem.invalidate_alias("a-missing")

    later = mem.add_alias(anna.id, "Nan")
    assert mem.resolve_alias("nan") == anna.id
    con = mem.warehouse.con
    con.execute("UPDATE aliases SET valid_to = TIMESTAMP '2026-01-01 00:00:00' WHERE id = ?", [later])
    assert mem.resolve_alias("nan") is None                       # the window has closed
    con.execute("UPDATE aliases SET valid_to = NULL, valid_from = TIMESTAMP '2026-06-01 00:00:00' WHERE id = ?", [later])
    assert mem.resolve_alias("nan") is None                       # not valid yet
    mem.clock.set("2026-07-01T00:00:00Z")
    assert resolve_alias(*store(mem), "Nan") == anna.id


def test_rebuild_from_titles_tags_and_links(mem):
    anna = mem.create_page("Anna", type="entity", body="My sister", tags=["Annie", "family"])
    mem.create_page("Trip", type="episode", body="Went hiking with [[Anna|Sis]] and [[Tea|cuppa]].")
    mem.create_page("Tea", body="I like tea")
    manual = mem.add_alias(anna.id, "family")
    assert mem.rebuild_aliases() == 2            # Annie (tag) and Sis (link); "family" is a person's edge
    rows = {r["alias"]: r for r in mem.aliases().to_dicts()}
    assert set(rows) == {"Annie", "Sis", "family"}
    assert {rows["Annie"]["status"], rows["Sis"]["status"]} == {"contested"}
    assert rows["Sis"]["entity_id"] == rows["Annie"]["entity_id"] == anna.id
    assert rows["family"]["id"] == manual and rows["family"]["status"] == "active"
    mem.invalidate_alias(rows["Sis"]["id"], "not an alias")
    assert mem.rebuild_aliases() == 1            # the invalidated edge stays invalidated
    assert alias_row(mem, rows["Sis"]["id"])["status"] == "invalidated"
    assert mem.rebuild_aliases() == 1 and mem.aliases().height == 3  # idempotent


def test_forget_invalidates_the_entity_aliases(mem):
    anna = mem.create_page("Anna", type="entity", body="My sister", tags=["Annie"])
    explicit = mem.add_alias(anna.id, "Nan")
    mem.rebuild_aliases()
    assert mem.forget(anna.id)["aliases_invalidated"] == 2
    rows = mem.aliases().to_dicts()
    assert {r["status"] for r in rows} == {"invalidated"}
    assert {r["reason"] for r in rows} == {"canonical entity forgotten"}
    assert mem.resolve_alias("nan") is None and alias_row(mem, explicit)["entity_id"] == anna.id
    assert rebuild_aliases(*store(mem), mem._canon.pages()) == 0


def test_invalidate_alias_store_function(mem):
    anna = mem.create_page("Anna", type="entity", body="My sister")
    ident = upsert_alias(*store(mem), anna.id, "Annie", resolution_kind="management")
    invalidate_alias(*store(mem), ident, "typo")
    assert alias_row(mem, ident)["reason"] == "typo"


# -- graph --------------------------------------------------------------------------------------------
def test_typed_links_become_edges_and_broken_links_are_flagged():
    pages = [
        Page(id="trip", type="episode", title="Kyoto trip",
             body="[[supports::Tea]] then [[Anna|my sister]].\n\n[[contradicts::Nowhere]] and [[nowhere]]"),
        Page(id="tea", type="concept", title="Tea", body="see [[refines::kyoto TRIP]] and `[[Not a link]]`"),
        Page(id="anna", type="entity", title="Anna", body="[[tea]] [[supports::Tea]]"),
    ]
    graph = build_graph(pages)
    assert graph.edges["trip", "tea"]["rel"] == "supports"
    assert graph.edges["trip", "anna"]["rel"] is None
    assert graph.edges["tea", "trip"]["rel"] == "refines"
    assert graph.edges["anna", "tea"]["rels"] == [None, "supports"] and graph.edges["anna", "tea"]["rel"] == "supports"
    assert graph.nodes["missing:nowhere"] == {"title": "Nowhere", "type": None, "status": "missing", "broken": True}
    edge = graph.edges["trip", "missing:nowhere"]
    assert edge["broken"] is True and edge["line"] == 3 and edge["rels"] == ["contradicts", None]
    assert broken_links(graph) == [("trip", "Nowhere")]
    assert not graph.nodes["tea"]["broken"] and graph.number_of_nodes() == 4


def test_links_resolve_to_the_current_page_and_by_id():
    old = Page(id="home-1", type="entity", title="Home", valid_to="2026-01-01T00:00:00Z", superseded_by="home-2")
    new = Page(id="home-2", type="entity", title="Home", supersedes="home-1")
    note = Page(id="note", type="concept", title="Note", body="[[Home]] and [[home-1]]")
    graph = build_graph([old, new, note])
    assert graph.has_edge("note", "home-2") and graph.has_edge("note", "home-1")
    assert broken_links(graph) == []


def test_memory_graph_reflects_the_wiki(mem):
    mem.create_page("Anna", type="entity", body="Sister; likes [[supports::Tea]] and [[Jazz]]")
    tea = mem.create_page("Tea", body="I like tea")
    graph = mem.graph()
    anna = next(n for n, d in graph.nodes(data=True) if d["title"] == "Anna")
    assert graph.edges[anna, tea.id]["rel"] == "supports"
    assert broken_links(graph) == [(anna, "Jazz")]
    mem.forget(tea.id)
    assert broken_links(mem.graph()) == [(anna, "Jazz"), (anna, "Tea")]


@pytest.mark.parametrize("sentence,expected", [
    ("Yesterday Joe went to the market", []),
    ("Today Joe called me", []),
    ("And Joe said hi", []),
    ("Monday Joe starts", []),
    ("we visited Uncle Joe last week", [("JOE", "Uncle")]),
    ("Joe(Jojo) came over", [("JOE", "Jojo")]),
    ("then Yesterday Joe left", []),
])
def test_explicit_coreference_takes_only_the_explicit_forms(sentence, expected):
    joe = Page(id="JOE", type="entity", title="Joe", status="confirmed", consent=True, version=1)
    assert explicit_coreferences(sentence, [joe]) == expected
