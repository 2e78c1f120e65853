"""The Resident over real Dream runs: a section per speaker in a multi-party scope, the unused
budget shared out (never to small talk), and the cap never exceeded.

The logs are generated: two speakers (or one user) say single-fact lines in English or Chinese,
with small talk between them; Dream admits them by the `user_grounded` rule.
"""

from __future__ import annotations

import random
from datetime import datetime, timezone

import pytest

import riko
from dream_stub import user_event
from riko.resident.compile import PREFIX, SUFFIX, compile_resident

OVERHEAD = len(PREFIX) + len(SUFFIX)
SMALL_TALK = ("Haha nice", "Good morning!", "I fully agree.", "哈哈", "早上好")

PEOPLE_EN = {
    "Akib": ("I work as a nurse at the city hospital.", "I love green tea with honey.",
             "I plan to visit Kyoto next spring.", "My sister Lena lives in Berlin."),
    "Fahim Khan": ("I play the clarinet in a community band.", "I hate waking up early on Sundays.",
                   "I adopted a grey kitten called Pistachio last week.", "I grew up in Dhaka."),
}
PEOPLE_ZH = {
    "Lena": ("我在杭州的一家银行工作。", "我喜欢喝绿茶。", "我打算明年去京都旅行。"),
    "Wang Wei": ("我每天早上都去公园跑步。", "我讨厌下雨天。", "我养了一只猫叫咪咪。"),
}


def _multi_party(people: dict[str, tuple[str, ...]], seed: int) -> list[str]:
    rng = random.Random(seed)
    lines = []
    for turn in range(max(len(facts) for facts in people.values())):
        for name, facts in people.items():
            if turn < len(facts):
                lines.append(f"{name}: {facts[turn]}")
            lines.append(f"{name}: {rng.choice(SMALL_TALK)}")
    return lines


def _dream(path, lines: list[str], **config):
    mem = riko.open(path, preset="pair", config=config)
    for line in lines:
        mem.capture(user_event("s-1", line))
    mem.dream(progress=False)
    return mem


@pytest.mark.parametrize("people", [PEOPLE_EN, PEOPLE_ZH], ids=["en", "zh"])
def test_each_speaker_has_a_section_of_their_own_facts(tmp_path, people):
    with _dream(tmp_path, _multi_party(people, 3)) as mem:
        snap = mem.resident()
    sections = {b.subject: b for b in snap.blocks if b.kind == "person"}
    assert set(sections) == set(people), snap.text
    for name, facts in people.items():
        block = sections[name]
        assert block.heading == f"## {name}"
        said = [entry[2:] for _, entry in block.entries]
        for fact in facts:  # each fact in its speaker's section, the prefix dropped (the heading names them)
            assert any(fact.rstrip("。.") in s for s in said), (fact, said)
        other = next(n for n in people if n != name)
        assert not any(f.rstrip("。.") in s for f in people[other] for s in said)
    assert not any(f"{name}: " in snap.text for name in people)
    # the speakers' own pages are their headings, not entries of a block
    assert not any(entry.startswith(f"- {name} (person)") for b in snap.blocks for _, entry in b.entries
                   for name in people)
    assert len(snap.text) <= snap.max_chars


def _preferences(zh: bool) -> list[str]:
    things = ["green tea", "jazz records", "mountain biking", "sourdough bread", "rainy afternoons", "board games",
              "old maps", "spicy ramen", "sea kayaking", "vinyl players", "street photography", "fresh figs",
              "night trains", "wool socks", "chess puzzles", "loose leaf oolong", "salsa dancing", "glass marbles",
              "sailing boats", "clay pottery", "garden roses", "crime novels", "hot springs", "paper lanterns"]
    zh_things = ["绿茶", "爵士乐", "山地自行车", "酸面包", "下雨的下午", "桌游", "老地图", "辣拉面", "海上皮划艇",
                 "黑胶唱片", "街头摄影", "新鲜无花果", "夜间火车", "羊毛袜", "国际象棋", "乌龙茶", "萨尔萨舞",
                 "玻璃弹珠", "帆船", "陶艺", "玫瑰花", "推理小说", "温泉", "纸灯笼"]
    lines = [f"我很喜欢{t}。" for t in zh_things] if zh else [f"I really love {t}." for t in things]
    out = []
    for n, line in enumerate(lines):
        out.append(line)
        if n % 3 == 0:
            out.append(SMALL_TALK[n % len(SMALL_TALK)])
    return out


@pytest.mark.parametrize("zh", [False, True], ids=["en", "zh"])
def test_what_the_blocks_leave_unused_is_shared_out(tmp_path, zh):
    cap = 300
    with _dream(tmp_path, _preferences(zh), max_resident_chars=cap) as mem:
        snap = mem.resident()
    prefs = next(b for b in snap.blocks if b.kind == "preferences")
    # one kind of memory only: the block grows past its seventh into the space no other block uses
    assert len(prefs.text) > snap.diagnostics["blockBudget"]
    assert len(snap.text) <= cap
    assert len(prefs.entries) >= 3 and snap.omitted_page_ids  # whole entries, until no further one fits


@pytest.mark.parametrize("zh", [False, True], ids=["en", "zh"])
def test_the_cap_is_filled_but_never_exceeded(tmp_path, zh):
    lines = _preferences(zh) + [line for line in _multi_party(PEOPLE_ZH if zh else PEOPLE_EN, 5)
                                if "Haha" not in line]
    with _dream(tmp_path, lines) as mem:
        pages = list(mem.context.canon.pages())
    now = datetime.now(timezone.utc)
    for cap in (OVERHEAD, OVERHEAD + 40, 256, 400, 650, 1000, 1600, 12000):
        snap = compile_resident(pages, max_chars=cap, now=now)
        assert len(snap.text) <= cap
        assert snap.diagnostics["actualChars"] == len(snap.text)
        assert set(snap.source_page_ids).isdisjoint(snap.omitted_page_ids)
        if snap.text:
            # whole items only, and no omitted memory that says something would still have fitted
            entries = {pid: entry for b in snap.blocks for pid, entry in b.entries}
            assert all(entry in snap.text for entry in entries.values())
            full = compile_resident(pages, max_chars=12000, now=now)
            lines_of = {pid: entry for b in full.blocks for pid, entry in b.entries}
            left = [lines_of[pid] for pid in snap.omitted_page_ids if pid in lines_of
                    and len(lines_of[pid].split()) >= 4]
            assert all(len(snap.text) + 1 + len(entry) > cap for entry in left), (cap, len(snap.text))
