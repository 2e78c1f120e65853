"""The README's first command: the whole pipeline on the embedded offline defaults."""

import json
import subprocess
import sys

import riko


def test_demo_runs_every_stage_end_to_end(tmp_path):
    out = subprocess.run([sys.executable, "-m", "riko", "demo", "--root", str(tmp_path), "--json"],
                         capture_output=True, text=True, timeout=600, check=True)
    summary = json.loads(out.stdout)
    assert summary["ingest"]["sessions"] == 3 and summary["ingest"]["events"] > 0
    assert summary["dream"]["succeeded"] == 3 and summary["dream"]["failed"] == 0
    assert summary["dream"]["candidates_created"] > 0 and summary["dream"]["auto_confirmed"]
    assert summary["resident"]["pages"] > 0 and 0 < summary["resident"]["chars"] <= 12000
    by_query = {r["query"]: r for r in summary["recall"]}
    assert "Berlin" in by_query["Where does my sister Lena live?"]["context"]
    assert "乌龙茶" in by_query["我喜欢喝什么茶？"]["context"]
    assert by_query["What is 17 * 23?"]["context"] == ""  # a utility question opens no memory
    assert by_query["What is 17 * 23?"]["trace"]["planChannels"] == []
    resident = (tmp_path / "wiki" / "local" / "companion" / "RESIDENT.md").read_text()
    assert "<persistent-memory>" in resident
    # the Resident by kind: the plan, the relationship and the boundary each in its own block
    headings = [line.split(" (")[0] for line in resident.splitlines() if line.startswith("## ")]
    assert {"## identity", "## relationships", "## preferences", "## plans", "## boundaries"} <= set(headings)
    plans = resident.split("## plans")[1].split("\n\n")[0]
    assert "Kyoto" in plans and "bring up my ex" in resident.split("## boundaries")[1].split("\n\n")[0]
    assert "Lena lives in Berlin" in resident.split("## relationships")[1].split("\n\n")[0]
    pages = list((tmp_path / "wiki" / "local" / "companion").rglob("*.md"))
    assert len(pages) > 2


def test_public_names():
    assert set(riko.__all__) == {"Memory", "open", "MemoryScope", "RikoError", "FixedClock", "SystemClock", "__version__"}
    assert riko.Memory.__module__ == "riko.memory"


def test_demo_text_reads_as_a_story(tmp_path):
    from riko.cli.demo import RULE_WIDTH
    from riko.rows import display_width

    out = subprocess.run([sys.executable, "-m", "riko", "demo", "--root", str(tmp_path)],
                         capture_output=True, text=True, timeout=600, check=True).stdout
    headers = [line for line in out.splitlines() if line.startswith("== ")]
    assert len(headers) >= 8 and all(display_width(h) == RULE_WIDTH and h.endswith("===") for h in headers), headers
    assert "2 log(s) belong to other presets (work) and were left for them" in out
    assert "refused" not in out.split("== 2.")[0]  # it says what happened instead
    kyoto = out.split("5. recall: Do you remember my ticket number")[1].split("\n== ")[0]
    assert "[silent_use]" in kyoto and "text is withheld" in kyoto
    assert f"sample logs under {tmp_path / 'samples'}" in out
