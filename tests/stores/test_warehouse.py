import subprocess
import sys
import textwrap

import pytest

import riko
from riko.errors import ReadOnlyError, RikoError, RikoLockedError, ScopeError
from riko.stores.migrations import MIGRATIONS, RECORD_KINDS, SCOPED_TABLES


def test_open_creates_all_record_tables(tmp_path, clock):
    with riko.open(tmp_path, preset="companion", clock=clock) as mem:
        tables = {r[0] for r in mem.warehouse.fetchall("SELECT table_name FROM information_schema.tables")}
        assert set(RECORD_KINDS) <= tables
        assert len(RECORD_KINDS) == 16
        applied = mem.warehouse.fetchall("SELECT version, name FROM schema_migrations ORDER BY version")
        assert [v for v, _ in applied] == [v for v, _, _ in MIGRATIONS]
        for table in SCOPED_TABLES:
            cols = {r[0] for r in mem.warehouse.fetchall(
                "SELECT column_name FROM information_schema.columns WHERE table_name = ?", [table])}
            assert {"scope_key", "schema_version"} <= cols, table
    assert (tmp_path / "warehouse" / "local--companion" / "riko.duckdb").exists()


def test_reopen_does_not_rerun_migrations(tmp_path, clock):
    riko.open(tmp_path, preset="p1", clock=clock).close()
    with riko.open(tmp_path, preset="p1", clock=clock) as mem:
        assert mem.warehouse.fetchone("SELECT count(*) FROM schema_migrations")[0] == len(MIGRATIONS)


def test_missing_preset_raises(tmp_path):
    with pytest.raises(ScopeError, match="preset"):
        riko.open(tmp_path)
    with pytest.raises(ScopeError):
        riko.open(tmp_path, preset="")


def test_audit_rows_are_scoped_and_ordered(tmp_path, clock):
    with riko.open(tmp_path, preset="a", clock=clock) as a:
        a.warehouse.audit("test-kind", "management", "t1", {"x": 1})
        a.warehouse.audit("test-kind", "management", "t2", None)
        df = a.audits()
        assert df["target"].to_list() == ["t1", "t2"]
        assert df["id"].to_list() == sorted(df["id"].to_list())
        assert df["authority"].to_list() == ["management", "management"]


def test_read_only_refuses_writes(tmp_path, clock):
    riko.open(tmp_path, preset="a", clock=clock).close()
    with riko.open(tmp_path, preset="a", clock=clock, read_only=True) as mem:
        assert mem.sessions().height == 0
        with pytest.raises(ReadOnlyError):
            mem.warehouse.audit("x", "management")


def test_read_only_of_missing_scope_is_clear(tmp_path):
    with pytest.raises(RikoError, match="open it once without read_only"):
        riko.open(tmp_path, preset="never", read_only=True)


def test_read_only_beside_writer_in_same_process(tmp_path, clock):
    with riko.open(tmp_path, preset="a", clock=clock) as w:
        w.warehouse.audit("k", "management", "t")
        with riko.open(tmp_path, preset="a", clock=clock, read_only=True) as r:
            assert r.audits()["target"].to_list() == ["t"]


def test_a_second_writer_waits_its_turn_and_a_held_scope_names_its_holder(tmp_path):
    code = textwrap.dedent(f"""
        import sys, riko
        mem = riko.open({str(tmp_path)!r}, preset="a")
        print("open", flush=True)
        sys.stdin.readline()
        with mem.hold("bulk-import"):
            print("held", flush=True)
            sys.stdin.readline()
        mem.close()
    """)
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "open"
        # an open but idle writer lets go: this process writes beside it
        with riko.open(tmp_path, preset="a") as mem:
            mem.audit("beside", "management")
        proc.stdin.write("\n")
        proc.stdin.flush()
        assert proc.stdout.readline().strip() == "held"
        with pytest.raises(RikoLockedError) as info:
            riko.open(tmp_path, preset="a", config={"lock_timeout_ms": 300})
        assert info.value.pid == proc.pid
        assert info.value.activity == "bulk-import"
        assert str(info.value.lock_path).endswith("writer.lock")
        assert str(proc.pid) in str(info.value) and "bulk-import" in str(info.value)
        # another scope is not affected
        riko.open(tmp_path, preset="b").close()
    finally:
        proc.stdin.write("\n")
        proc.stdin.flush()
        proc.wait(timeout=30)
    with riko.open(tmp_path, preset="a") as mem:
        assert mem.audits("beside").height == 1


def test_failed_transaction_rolls_back(tmp_path, clock):
    with riko.open(tmp_path, preset="a", clock=clock) as mem:
        wh = mem.warehouse
        with pytest.raises(RuntimeError):
            with wh.transaction():
                wh.audit("inside", "management")
                raise RuntimeError("boom")
        assert mem.audits().height == 0
        wh.audit("after", "management")
        assert mem.audits()["kind"].to_list() == ["after"]
