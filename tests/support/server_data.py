"""A populated data root for the server tests: two profiles, sessions, pages, candidates, a conflict."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import uvicorn

import riko
from riko.evaluation.samples import generate_samples

TOKENS = {"companion": "tok-companion-7f3a9c2e", "work": "tok-work-51be02d4"}
ADMIN = "adm-owner-c41d77e2b9"
#: The value of the Dream credential reference's variable: it must never appear in a response.
DREAM_KEY = "sk-live-dream-key-0042"
SECRETS = (*TOKENS.values(), ADMIN, DREAM_KEY)

TOKEN_CONFIG = {"api_tokens": TOKENS, "owner_admin_token": ADMIN, "evidence_classification_enabled": True}


@dataclass
class Data:
    root: Path
    pages: dict[str, str] = field(default_factory=dict)
    candidates: dict[str, str] = field(default_factory=dict)
    conflict: str = ""
    sessions: list[str] = field(default_factory=list)
    work_sessions: list[str] = field(default_factory=list)
    work_page: str = ""


def populate(root: Path) -> Data:
    """Ingest the sample logs into ``companion`` and ``work`` and add reviewable records."""
    logs = root / "logs"
    generate_samples(logs)
    data = Data(root)
    cfg = {"evidence_classification_enabled": True}
    with riko.open(root, preset="companion", config=cfg) as mem:
        mem.ingest([logs], progress=False)
        data.sessions = mem.sessions()["session_id"].to_list()
        p = data.pages
        p["mira"] = mem.create_page("Mira", "Mira is the user; she lives in Lisbon and builds [[Atlas]].", type="entity").id
        p["atlas"] = mem.create_page("Atlas", "Atlas is Mira's map renderer. [[supports::Mira]]", type="concept").id
        p["health"] = mem.create_page("Health note", "Diagnosed with anxiety in 2024.", type="concept",
                                      sensitivity="sensitive").id
        for name in ("edit", "temporal", "supersede", "suppress", "restore", "forget", "memory"):
            p[name] = mem.create_page(f"Page to {name}", f"This page exists to test {name}.", type="concept").id
        mem.suppress(p["restore"])
        coffee = mem.create_page("Coffee", "Mira drinks two coffees a day.", type="concept")
        p["coffee"] = coffee.id
        c = data.candidates
        for name in ("confirm", "reject", "wiki-confirm", "wiki-reject", "browser"):
            c[name] = mem.propose(f"Candidate {name}", body=f"Mira mentioned {name} once.", type="episode")
        c["sensitive"] = mem.propose("Therapy", body="Mira sees a therapist for depression.", type="episode")
        c["conflict"] = mem.propose("Coffee", body="Mira quit coffee in March.", type="concept")
        data.conflict = mem.conflicts("contested")["id"].to_list()[0]
    with riko.open(root, preset="work", config=cfg) as mem:
        mem.ingest([logs], progress=False)
        data.work_sessions = mem.sessions()["session_id"].to_list()
        data.work_page = mem.create_page("Atlas roadmap", "Ship tiles v2.", type="concept").id
    return data


class LiveServer:
    """uvicorn serving ``app`` on 127.0.0.1 with a free port, in a background thread."""

    def __init__(self, app: Any) -> None:
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> str:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)
