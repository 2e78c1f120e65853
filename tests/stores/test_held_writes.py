"""Held writes of one table are flushed before a statement that names it; a bulk flush whose own
statement names another table with held writes (``pages.source_candidates`` names ``candidates``)
must still find its own rows."""

from __future__ import annotations

import json

import riko
from riko.stores.candidates import CandidateStore
from riko.stores.pages import PageStore


def test_a_bulk_page_update_naming_held_candidates_commits(tmp_path):
    with riko.open(tmp_path, preset="companion") as mem:
        pids = [mem.create_page(f"Topic {i}", f"Body {i}.").id for i in range(5)]
        cids = [mem.propose(f"Proposal {i}", f"Text {i}.") for i in range(5)]
        assert all(cids)
        wh = mem.context.wh
        pages, cands = PageStore(wh), CandidateStore(wh)
        olds = {pid: pages.row(pid) for pid in pids}
        with wh.transaction():
            for pid, cid in zip(pids, cids):
                old = olds[pid]
                assert old is not None
                pages.write(dict(old, source_candidates=json.dumps([cid]), version=old["version"] + 1), old)
                cands.accept(cid, pid, None)
        assert [json.loads(pages.row(pid)["source_candidates"]) for pid in pids] == [[cid] for cid in cids]
        assert {r["id"]: r["status"] for r in cands.records() if r["id"] in cids} == dict.fromkeys(cids, "accepted")
