"""The newest audit id is the scope's revision (caches compare it): another thread must never
read an id of a transaction that is still open, which may roll back and give the id to a
different change."""

from __future__ import annotations

import threading

import riko
from riko.stores.audits import last_audit_id


class _Undo(Exception):
    pass


def test_another_thread_does_not_read_the_audit_ids_of_an_open_transaction(tmp_path):
    with riko.open(tmp_path, preset="companion") as mem:
        wh = mem.context.wh
        wh.audit("before", "management", "x")
        committed = last_audit_id(wh)
        inside, release = threading.Event(), threading.Event()
        seen: list[int] = []

        def writer() -> None:
            try:
                with wh.transaction():
                    wh.audit("rolled-back", "management", "y")
                    wh.audit("rolled-back", "management", "z")
                    inside.set()
                    release.wait(5)
                    raise _Undo()
            except _Undo:
                pass

        def reader() -> None:
            seen.append(last_audit_id(wh))

        t = threading.Thread(target=writer)
        t.start()
        assert inside.wait(5)
        r = threading.Thread(target=reader)
        r.start()
        r.join(0.3)  # it may wait for the writer's unit of work, or answer from committed data
        release.set()
        t.join(5)
        r.join(5)
        assert seen == [committed]
        # the ids the rolled-back transaction took are handed out again, to another change
        wh.audit("after", "management", "w")
        assert last_audit_id(wh) == committed + 1
