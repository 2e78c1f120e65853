"""A small generated retrieval dataset with known answers (harness logs plus a query file).

Every fact sentence carries slot values that appear nowhere else in the dataset, so the
gold evidence of each question is known by construction. Sessions mix the facts with
ordinary filler turns and assistant replies; English and Chinese facts share the sessions.
It exists to test the retrieval harness end to end, not to measure a retriever.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

from .corpus import LOG_FILLER
from .logs import write_harness_log
from ..errors import InvalidArgumentError

__all__ = ["generate_dataset"]

_ITEMS = (("teal", "lamp", "Brightwater"), ("crimson", "kettle", "Elmsford"), ("amber", "umbrella", "Quayside"),
          ("violet", "backpack", "Foxhollow"), ("ochre", "teapot", "Marlow"), ("silver", "bicycle", "Thornbury"))
_BOOKS = (("Ravi", "The Glass Orchard"), ("Leona", "Salt and Starlight"), ("Bruno", "The Quiet Cartographer"),
          ("Yusuf", "Paper Lanterns at Noon"))
_SKILLS = (("pottery", "April", "Ingrid"), ("fencing", "September", "Matthias"), ("calligraphy", "November", "Sora"))
_ZH_ITEMS = (("青铜", "花瓶", "南锣鼓巷"), ("翡翠", "手镯", "城隍庙"), ("紫砂", "茶壶", "宜兴古镇"))
_ZH_PEOPLE = (("周晓梅", "竹编灯笼"), ("欧阳峰", "木雕小鹿"))
_ASSISTANT = ("That sounds nice.", "Thanks for telling me.", "I see.", "Good to know.")


def generate_dataset(directory: str | os.PathLike[str], *, sessions: int = 4, filler: int = 8,
                     seed: int = 0) -> tuple[Path, Path, int]:
    """Write ``<dir>/sessions/`` (harness logs) and ``<dir>/queries.jsonl``; returns both paths
    and the number of queries. Facts are spread over ``sessions`` sessions between ``filler``
    ordinary turns each."""
    if sessions < 1 or filler < 0:
        raise InvalidArgumentError("sessions must be at least 1 and filler at least 0")
    rng = random.Random(seed)
    facts: list[tuple[str, str, str, str]] = []  # (key, text, question, category)
    for colour, item, place in _ITEMS:
        facts.append((f"item-{item}", f"I bought a {colour} {item} at the {place} market on Saturday.",
                      f"Where did I buy the {colour} {item}?", "single-hop"))
    for name, title in _BOOKS:
        facts.append((f"book-{name}", f"My friend {name} recommended a novel called {title}.",
                      f"Which novel did {name} recommend to me?", "single-hop"))
    for colour, item, place in _ZH_ITEMS:
        facts.append((f"zh-{item}", f"我在{place}买了一个{colour}{item}。", f"我在哪里买的{colour}{item}？", "single-hop-zh"))
    for name, gift in _ZH_PEOPLE:
        facts.append((f"zh-{name}", f"{name}送给我一个{gift}。", f"{name}送了我什么礼物？", "single-hop-zh"))
    pairs: list[tuple[str, str, str, str]] = []  # (key, first, second, question)
    for skill, month, teacher in _SKILLS:
        pairs.append((f"skill-{skill}", f"I started learning {skill} in {month}.",
                      f"My {skill} instructor is called {teacher}.",
                      f"Who teaches me {skill}, and when did I start learning it?"))
    session_ids = [f"gen-{i:02d}" for i in range(sessions)]
    placed: dict[str, list[tuple[str, str]]] = {sid: [] for sid in session_ids}
    for index, (key, text, _, _) in enumerate(facts):
        placed[session_ids[index % sessions]].append((key, text))
    for index, (key, first, second, _) in enumerate(pairs):
        placed[session_ids[index % sessions]].append((f"{key}#1", first))
        placed[session_ids[(index + 1) % sessions]].append((f"{key}#2", second))
    where: dict[str, tuple[str, int]] = {}
    root = Path(directory)
    logs = root / "sessions"
    for number, sid in enumerate(session_ids):
        turns: list[tuple[str, str]] = []
        lines = list(placed[sid])
        rng.shuffle(lines)
        ordinary = rng.sample(LOG_FILLER, k=min(filler, len(LOG_FILLER)))
        for position in range(max(len(lines), len(ordinary))):
            if position < len(ordinary):
                turns.append(("user", ordinary[position]))
                turns.append(("assistant", rng.choice(_ASSISTANT)))
            if position < len(lines):
                key, text = lines[position]
                where[key] = (sid, len(turns))
                turns.append(("user", text))
        write_harness_log(logs, sid, "retrieval", turns, start=f"2026-0{1 + number % 9}-03T10:00:00Z")
    queries = root / "queries.jsonl"
    with queries.open("w", encoding="utf-8") as out:
        count = 0
        for key, _, question, category in facts:
            sid, seq = where[key]
            out.write(json.dumps({"id": key, "question": question, "category": category,
                                  "evidence": [{"session_id": sid, "seq": seq}]}, ensure_ascii=False) + "\n")
            count += 1
        for key, _, _, question in pairs:
            refs = [where[f"{key}#1"], where[f"{key}#2"]]
            out.write(json.dumps({"id": key, "question": question, "category": "multi-evidence",
                                  "evidence": [{"session_id": s, "seq": q} for s, q in refs]},
                                 ensure_ascii=False) + "\n")
            count += 1
    return logs, queries, count
