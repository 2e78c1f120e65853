"""Identity statements are fact pages outside the entity folder, and the name a user gives
becomes an alias of their own page, never a stranger's entity page.

The sessions are generated: a name statement (in several wordings, English and Chinese) said
as a whole line (admitted from the user's words) or inside a longer message (confirmed by a
person), between ordinary first-person lines.
"""

from __future__ import annotations

import random

import pytest

import riko
from dream_stub import user_event
from riko.review.entities import USER_TITLE

NAMES = ("Mira", "Jonas", "Aiko", "Tomás")
WORDINGS = ("My name is {n}.", "I'm called {n}.", "my name is {n}")
ZH = (("我叫小明。", "小明"), ("我的名字是王芳", "王芳"))
FILLER = ("I love green tea with honey.", "I went running by the river this morning.", "How are you?")


def session(seed: int, statement: str) -> list[str]:
    rng = random.Random(seed)
    lines = [rng.choice(FILLER) for _ in range(3)]
    lines.insert(rng.randrange(len(lines) + 1), statement)
    return lines


def cases() -> list[tuple[str, str, bool]]:
    """(statement, the name it gives, whether it is a whole line of its own)."""
    rng = random.Random(11)
    out = []
    for name in NAMES:
        wording = rng.choice(WORDINGS).format(n=name)
        out.append((wording, name, True))
        out.append((f"Hi there! {wording.rstrip('.')}, by the way.", name, False))
    out.extend((text, name, True) for text, name in ZH)
    return out


@pytest.mark.parametrize("statement, name, whole", cases())
def test_the_name_a_user_gives_is_an_alias_of_their_own_page(tmp_path, statement, name, whole):
    with riko.open(tmp_path, preset="companion") as mem:
        for line in session(len(statement), statement):
            mem.capture(user_event("s1", line))
        mem.dream(progress=False)
        cands = mem.context.review.cands.records()
        # no person entity for the user themself
        assert not [c for c in cands if c["category"] == "entity" and c["title"] == name]
        identity = [c for c in cands if c["category"] == "identity"]
        assert identity and all(c["type"] == "synthesis" for c in identity)
        if not whole:  # split out of a longer message: a person confirms it
            for c in identity:
                if c["status"] == "pending":
                    mem.confirm(c["id"])
        pages = [p for p in mem.context.canon.pages() if p.status == "confirmed"]
        [page] = [p for p in pages if p.category == "identity"]
        assert page.type == "synthesis"
        [path] = mem.pages().filter(mem.pages()["id"] == page.id)["path"].to_list()
        assert path.startswith("synthesis/")
        assert name not in {p.title for p in pages if p.category == "entity"}
        [user] = [p for p in pages if p.category == "entity" and p.title == USER_TITLE]
        assert name in user.tags and f"also called {name}" in user.description
        assert f"[[{USER_TITLE}|{name}]]" in page.body
        assert "entities" not in page.extra or name not in page.extra["entities"]
        edges = {r["alias"]: r for r in mem.aliases().to_dicts() if r["entity_id"] == user.id}
        assert edges[name]["status"] == "active"  # the user's own words tie the name to them
        files = [str(p.relative_to(mem.wiki_dir)) for p in mem.wiki_dir.rglob("*.md") if p.name != "RESIDENT.md"]
        assert any(f.startswith("synthesis/") for f in files) and not any(
            f.startswith("entities/") and name.casefold() in f for f in files)
        # the Resident still shows it as who the user is
        resident = mem.resident()
        assert any(b.kind == "identity" for b in resident.blocks)


def test_a_speaker_who_gives_a_name_gets_it_as_an_alias(tmp_path):
    with riko.open(tmp_path, preset="companion") as mem:
        for line in ("Paola: Hello! My name is Vanessa", "Kevin: Nice to meet you", "Paola: My name is Vanessa",
                     "Kevin: I love green tea with honey", "Paola: I went running this morning"):
            mem.capture(user_event("mp", line))
        mem.dream(progress=False)
        pages = [p for p in mem.context.canon.pages() if p.status == "confirmed"]
        entities = {p.title: p for p in pages if p.category == "entity"}
        assert "Vanessa" not in entities and USER_TITLE not in entities
        assert "Vanessa" in entities["Paola"].tags
        [page] = [p for p in pages if p.category == "identity"]
        assert "[[Paola|Vanessa]]" in page.body or "[[Paola]]" in page.body


@pytest.mark.parametrize("dreams", [1, 2])
def test_a_name_said_after_another_persons_prefix_is_not_the_users_alias(tmp_path, dreams):
    """A single user's session (most lines are not ``Name: text``) that quotes someone else
    ("Kevin: My name is Robert"): the name is Kevin's words about Kevin, never the user's alias,
    whether the quoted lines come in the same Dream or in a later one."""
    own = ("I love green tea with honey.", "How are you?", "I went running by the river this morning.",
           "I adopted a grey kitten last week.", "I started learning the saxophone.")
    quoted = ("Kevin: I love jazz", "Kevin: My name is Robert")
    with riko.open(tmp_path, preset="companion") as mem:
        for line in own:
            mem.capture(user_event("s1", line))
        if dreams == 2:
            mem.dream(progress=False)
        for line in quoted:
            mem.capture(user_event("s1", line))
        mem.dream(progress=False)
        for c in mem.context.review.cands.records():
            if c["status"] == "pending" and c["category"] != "entity":
                mem.confirm(c["id"])
        pages = [p for p in mem.context.canon.pages() if p.status == "confirmed"]
        users = [p for p in pages if p.category == "entity" and p.title == USER_TITLE]
        assert all("Robert" not in p.tags for p in users)
        assert not [r for r in mem.aliases().to_dicts() if r["alias"] == "Robert" and r["entity_id"] in
                    {p.id for p in users}]
        assert not [p for p in pages if f"[[{USER_TITLE}|Robert]]" in p.body]


def _named_user(tmp_path, lines):
    mem = riko.open(tmp_path, preset="companion")
    for line in lines:
        mem.capture(user_event("s1", line))
    mem.dream(progress=False)
    pages = [p for p in mem.context.canon.pages() if p.status == "confirmed"]
    [identity] = [p for p in pages if p.category == "identity"]
    [user] = [p for p in pages if p.category == "entity" and p.title == USER_TITLE]
    assert "Mira" in user.tags
    return mem, identity, user


def _user_names(mem):
    [user] = [p for p in mem.context.canon.pages() if p.category == "entity" and p.title == USER_TITLE]
    edges = {r["alias"] for r in mem.aliases().to_dicts() if r["entity_id"] == user.id and r["status"] != "invalidated"}
    return user, edges


def test_forgetting_the_name_statement_takes_the_name_off_the_users_page(tmp_path):
    mem, identity, _ = _named_user(tmp_path, ("I love green tea with honey.", "My name is Mira.", "How are you?"))
    with mem:
        mem.forget(identity.id)
        user, edges = _user_names(mem)
        assert "Mira" not in user.tags and "Mira" not in user.description and "Mira" not in user.body
        assert "Mira" not in edges and mem.resolve_alias("Mira") is None
        assert "Mira" not in (mem.wiki_dir / mem.pages().filter(mem.pages()["id"] == user.id)["path"][0]).read_text()


def test_correcting_the_name_statement_takes_the_old_name_off_the_users_page(tmp_path):
    mem, identity, _ = _named_user(tmp_path, ("I love green tea with honey.", "My name is Mira.", "How are you?"))
    with mem:
        mem.correct(identity.id, "My name is Sara.")
        user, edges = _user_names(mem)
        assert "Mira" not in user.tags and "Mira" not in edges and mem.resolve_alias("Mira") is None


def test_forgetting_another_fact_keeps_the_name(tmp_path):
    mem, identity, _ = _named_user(tmp_path, ("I love green tea with honey.", "My name is Mira.", "How are you?"))
    with mem:
        [tea] = [p for p in mem.context.canon.pages() if p.status == "confirmed" and "tea" in p.title]
        mem.forget(tea.id)
        user, edges = _user_names(mem)
        assert "Mira" in user.tags and "Mira" in edges
