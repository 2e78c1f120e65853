"""A purged session takes back the name it gave the user: "My name is Mira" said only in the
purged session leaves the ``User`` page (kept for the facts of other sessions) without it."""

from __future__ import annotations

import riko
from dream_stub import user_event
from riko.review.entities import USER_TITLE


def test_purging_the_session_that_gave_the_users_name_takes_the_name_off_the_user_page(tmp_path):
    with riko.open(tmp_path, preset="companion", config={"purge_enabled": True}) as mem:
        mem.capture(user_event("s0", "I love green tea with honey."))
        mem.dream(progress=False)
        for line in ("My name is Mira.", "How are you?"):
            mem.capture(user_event("s1", line))
        mem.dream(progress=False)
        [user] = [p for p in mem.context.canon.pages() if p.title == USER_TITLE]
        assert "Mira" in user.tags
        report = mem.purge("s1", dry_run=True)
        assert mem.purge("s1", dry_run=False, confirmation=report["confirmation"])["verified"]
        [user] = [p for p in mem.context.canon.pages() if p.title == USER_TITLE]
        assert user.status == "confirmed"  # the tea fact of s0 still links it
        assert "Mira" not in user.tags and "Mira" not in user.description and "Mira" not in user.body
        assert mem.resolve_alias("Mira") is None
        assert not [a for a in mem.aliases().to_dicts() if a["alias"] == "Mira"]
        files = [p for p in mem.wiki_dir.rglob("*.md") if "Mira" in p.read_text()]
        assert not files
