"""The ``Family and pets:`` line of an owner page is derived from the live statement pages that
tie a relative or pet to the owner: a forgotten, corrected-away or purged statement takes its
link (and its line's evidence) off the owner page, and the other links stay."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import riko
from dream_stub import user_event
from riko.review.entities import KIN_LABEL, USER_TITLE
from riko.purge.needles import Needles
from riko.purge.verify import verify_files, verify_tables

#: (a pet statement, the pet, a sister statement, the sister, a filler line) per language
CASES = {
    "en": ("My cat Luna sleeps all day.", "Luna", "My sister Lena lives in Berlin.", "Lena",
           "I love green tea with honey."),
    "zh": ("我的猫叫年糕。", "年糕", "我妹妹小雨住在北京。", "小雨", "我喜欢喝绿茶。"),
}
#: a later session's relative, so an earlier version of the owner page holds the sister's link
LATER = {"en": ("My brother Tom plays chess.", "Tom"), "zh": ("我的狗叫豆豆。", "豆豆")}


def kin_links(body: str) -> list[tuple[str, str]]:
    """The ``(relation, title)`` links of a body's ``Family and pets:`` line."""
    line = next((line for line in body.splitlines() if line.startswith(KIN_LABEL)), "")
    return re.findall(r"(?:: | · )(.+?) \[\[(.+?)\]\]", line)


def _open(root: Path) -> riko.Memory:
    return riko.open(root, preset="companion", config={"purge_enabled": True})


def _remember(mem: riko.Memory, lang: str) -> None:
    """s0: a filler line and the pet; s1: the sister and small talk."""
    pet, _, sister, _, filler = CASES[lang]
    for line in (filler, pet):
        mem.capture(user_event("s0", line))
    mem.dream(progress=False)
    for line in (sister, "How are you?"):
        mem.capture(user_event("s1", line))
    mem.dream(progress=False)


def _user(mem: riko.Memory) -> riko.Page:
    [user] = [p for p in mem.context.canon.pages() if p.title == USER_TITLE]
    return user


def _statement(mem: riko.Memory, words: str) -> str:
    [page] = [p for p in mem.context.canon.pages() if p.type != "entity" and p.description == words]
    return page.id


def _user_row(mem: riko.Memory, page_id: str) -> str:
    """Every column of the page's row in the ``pages`` table, as one text."""
    row = mem.pages().filter(mem.pages()["id"] == page_id).to_dicts()[0]
    return " ".join(str(v) for v in row.values())


def _user_file(mem: riko.Memory, page_id: str) -> Path:
    [path] = mem.pages().filter(mem.pages()["id"] == page_id)["path"].to_list()
    return mem.wiki_dir / path


@pytest.mark.parametrize("lang", sorted(CASES))
def test_forgetting_the_sister_statement_takes_her_link_and_line_off_the_user_page(tmp_path: Path, lang: str) -> None:
    _, pet_name, sister, name, _ = CASES[lang]
    with _open(tmp_path) as mem:
        _remember(mem, lang)
        user = _user(mem)
        assert [t for _, t in kin_links(user.body)] == [pet_name, name]
        assert "session:s1/event:0" in user.sources
        mem.forget(_statement(mem, sister))
        user = _user(mem)
        assert [t for _, t in kin_links(user.body)] == [pet_name]  # the cat of s0 still stands
        assert "session:s1/event:0" not in user.sources
        text = _user_file(mem, user.id).read_text()
        assert f"[[{name}]]" not in text and "session:s1/event:0" not in text and f"[[{pet_name}]]" in text
        row = _user_row(mem, user.id)
        assert f"[[{name}]]" not in row and "session:s1/event:0" not in row
    with _open(tmp_path) as mem:  # forgotten stays forgotten: a later Dream does not bring it back
        mem.dream(progress=False)
        assert [t for _, t in kin_links(_user(mem).body)] == [pet_name]


@pytest.mark.parametrize("lang", sorted(CASES))
def test_correcting_the_cat_away_takes_its_link_off_the_user_page(tmp_path: Path, lang: str) -> None:
    pet, pet_name, _, name, filler = CASES[lang]
    with _open(tmp_path) as mem:
        _remember(mem, lang)
        mem.correct(_statement(mem, pet), filler)
        user = _user(mem)
        assert [t for _, t in kin_links(user.body)] == [name]
        assert f"[[{pet_name}]]" not in _user_file(mem, user.id).read_text()
        assert f"[[{pet_name}]]" not in _user_row(mem, user.id)


@pytest.mark.parametrize("lang", sorted(CASES))
def test_purging_the_session_leaves_no_trace_of_the_sister_link(tmp_path: Path, lang: str) -> None:
    _, pet_name, _, name, _ = CASES[lang]
    with _open(tmp_path) as mem:
        _remember(mem, lang)
        mem.capture(user_event("s2", LATER[lang][0]))
        mem.dream(progress=False)
        user = _user(mem)
        assert [t for _, t in kin_links(user.body)] == [pet_name, name, LATER[lang][1]]
        before = user.version
        report = mem.purge("s1", dry_run=True)
        assert mem.purge("s1", dry_run=False, confirmation=report["confirmation"])["verified"]
        user = _user(mem)
        assert user.status == "confirmed" and [t for _, t in kin_links(user.body)] == [pet_name, LATER[lang][1]]
        data = _user_file(mem, user.id).read_bytes()
        assert name.encode() not in data and b"s1/" not in data and f"[[{pet_name}]]".encode() in data
        row = _user_row(mem, user.id)
        assert name not in row and "s1/" not in row
        later = mem.page_versions(user.id).filter(mem.page_versions(user.id)["version"] >= before)
        assert not [t for t in later["text"].to_list() if name in t or "s1/" in t]
        assert not [t for t in mem.page_versions(user.id)["text"].to_list() if f"[[{name}]]" in t]
        assert not [p for p in mem.wiki_dir.rglob("*.md") if name in p.read_text()]
    with _open(tmp_path) as mem:
        needles = Needles("s1")
        assert verify_tables(mem.context, needles) == [] and verify_files(mem.context, needles) == []
