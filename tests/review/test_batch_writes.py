"""A Dream batch's shortcuts give what the one-at-a-time paths give: the user-line snapshot, bulk
alias edges, audits held back to the commit, page files staged to the commit."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from riko.wiki.aliases import upsert_alias, upsert_aliases
from riko.review.authority import UserLines, user_grounded_match
from riko.stores.audits import audits_frame


def say(mem, session: str, text: str) -> str:
    return str(mem.capture({"session_id": session, "type": "user/message",
                            "data": {"role": "user", "source": {"kind": "user"},
                                     "content": [{"type": "text", "text": text}]}}))


def test_the_user_line_snapshot_answers_as_the_queries_do(mem):
    say(mem, "s-b", "I prefer green tea.")
    say(mem, "s-a", "I prefer  green tea")   # the same claim, normalized; an earlier session
    say(mem, "s-c", "My sister Lena lives in Berlin.")
    say(mem, "s-c", "I prefer green tea!")
    ctx = mem.context
    lines = UserLines(ctx.wh)
    for description in ("I prefer green tea", "my sister lena lives in berlin.", "Nobody said this", "", "   "):
        for sessions in ([], ["s-c"], ["s-b", "s-c"], ["s-x"]):
            expected = user_grounded_match(ctx.wh, ctx.scope, description, sessions)
            assert lines.match(description, sessions) == expected, (description, sessions)
    assert lines.match("I prefer green tea", ["s-c"]).ref.startswith("session:s-c/")
    assert lines.match("I prefer green tea", []).session_id == "s-a"  # session order, as the query reads


def _alias_rows(mem) -> list[tuple]:
    return sorted((r["entity_id"], r["alias"], r["resolution_kind"], r["status"], r["confidence"])
                  for r in mem.aliases().to_dicts())


def _alias_audits(mem) -> list[tuple]:
    return [(r["kind"], r["target"], r["detail"]) for r in audits_frame(mem.context.wh, "alias-upserted").to_dicts()]


EDGES = [
    ("p-lena", "Lena", "explicit_coreference", 1.0, ("session:s/event:1",)),
    ("p-berlin", "Berlin", "derived_inference", 0.5, ()),
    ("p-other", "lena", "derived_inference", 0.5, ()),      # decided earlier in the same batch: kept
    ("c-1", "柏林", "derived_inference", 0.8, ()),
    ("c-2", "柏林", "derived_inference", 0.8, ()),           # the later edge of an alias replaces the earlier
    ("p-berlin", "Berlin", "management", 1.0, ()),           # a decision replaces the derived edge
]


def test_bulk_alias_edges_leave_what_edges_one_by_one_leave(open_mem, tmp_path: Path):
    one = open_mem(tmp_path / "one")
    bulk = open_mem(tmp_path / "bulk")
    for mem in (one, bulk):  # an edge a person decided before the batch
        ctx = mem.context
        upsert_alias(ctx.wh, ctx.scope, ctx.clock, "p-kyoto", "京都", resolution_kind="management")
    ctx = one.context
    ids = [upsert_alias(ctx.wh, ctx.scope, ctx.clock, e, a, resolution_kind=k, confidence=c, source_refs=r)
           for e, a, k, c, r in [*EDGES, ("c-3", "京都", "derived_inference", 0.8, ())]]
    ctx = bulk.context
    assert upsert_aliases(ctx.wh, ctx.scope, ctx.clock, [*EDGES, ("c-3", "京都", "derived_inference", 0.8, ())]) == ids
    assert _alias_rows(bulk) == _alias_rows(one)
    assert _alias_audits(bulk) == _alias_audits(one)


def test_audits_held_back_in_a_transaction_are_read_in_it_and_dropped_with_it(mem):
    wh = mem.context.wh
    before = len(audits_frame(wh))
    with wh.transaction():
        first = wh.audit("probe", "management", "t-1", {"n": 1})
        wh.audit_many([("probe", "management", "t-2", '{"n":2}'), ("probe", "management", "t-3", None)])
        seen = audits_frame(wh, "probe").to_dicts()  # a read inside the transaction sees them
    assert [r["target"] for r in seen] == ["t-1", "t-2", "t-3"]
    assert [r["id"] for r in seen] == [first, first + 1, first + 2]
    with pytest.raises(RuntimeError):
        with wh.transaction():
            wh.audit("probe", "management", "t-4")
            raise RuntimeError("rolled back")
    rows = audits_frame(wh, "probe").to_dicts()
    assert [r["target"] for r in rows] == ["t-1", "t-2", "t-3"] and len(audits_frame(wh)) == before + 3
    assert wh.audit("probe", "management", "t-5") == first + 3  # the rolled-back id is given again


def test_page_files_are_written_at_the_commit_and_never_on_a_rollback(mem):
    page = mem.create_page("Green tea", "I drink it every morning.")
    canon = mem.context.canon
    path = mem.wiki_dir / canon.row(page.id)["path"]
    written = path.read_bytes()
    with canon.transaction():
        canon.save(page.replace(body="I drink it at noon.", version=2), authority="management",
                   audit_kind="page-corrected", previous=page)
        assert path.read_bytes() == written  # staged: the file changes with the commit
        canon.save(page.replace(body="I drink it at night.", version=3), authority="management",
                   audit_kind="page-corrected", previous=page.replace(body="I drink it at noon.", version=2))
    after = path.read_bytes()
    assert b"at night" in after
    assert hashlib.sha256(after).hexdigest() == canon.row(page.id)["file_hash"]
    with pytest.raises(RuntimeError):
        with canon.transaction():
            canon.save(canon.get(page.id).replace(body="Never stored.", version=4), authority="management",
                       audit_kind="page-corrected", previous=canon.get(page.id))
            raise RuntimeError("rolled back")
    assert path.read_bytes() == after and canon.get(page.id).version == 3
    assert not (mem.warehouse_dir / "canon-journal.json").exists()
    assert mem.wiki_check() == []
