"""riko serve's Dream scheduler: after the debounce once new evidence arrived, on the interval,
never two at once — so ``debounce_ms`` and ``dream_interval_ms`` are read, not just accepted."""

from __future__ import annotations

import time
import warnings

import riko
from riko.server import create_app
from riko.server.scheduler import DreamScheduler
from riko.server.scopes import Scopes
from riko.config import load_config
from conversation import say

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from starlette.testclient import TestClient

LOCAL = ("127.0.0.1", 50000)




class Clock:
    """A monotonic clock far from the machine's own, so a state that reads ``time.monotonic``
    instead of the injected clock is caught whatever the machine's uptime."""

    def __init__(self) -> None:
        self.t = 1e9

    def __call__(self) -> float:
        return self.t


def test_scheduler_runs_after_the_debounce_once_evidence_moved_and_on_the_interval(tmp_path) -> None:
    cfg = load_config(tmp_path, overrides={"embedding_provider": "off", "debounce_ms": 5000, "dream_interval_ms": 60_000})
    scopes = Scopes(tmp_path, cfg, None)
    clock = Clock()
    scheduler = DreamScheduler(scopes, cfg.debounce_ms, cfg.dream_interval_ms, clock=clock)
    try:
        mem = scopes.call("solo", lambda m: m)
        assert scheduler.tick("solo") is None  # nothing said yet
        say(mem, "s1", "I prefer green tea in the morning")
        assert scheduler.tick("solo") is None  # evidence moved: the debounce starts now
        clock.t += 4.9
        assert scheduler.tick("solo") is None
        clock.t += 0.2
        assert scheduler.tick("solo") == "debounce"
        assert scheduler.runs[-1] == ("solo", "debounce", ["s1"])
        assert mem.dream_status()["state"] == "idle"
        clock.t += 10
        assert scheduler.tick("solo") is None  # nothing new since the last Dream
        clock.t += 60
        assert scheduler.tick("solo") == "interval"
        # never two at once: a Dream already queued (POST /dream) makes the scheduler wait
        say(mem, "s1", "I also like oolong")
        clock.t += 6
        assert mem.queue_dream()
        assert scheduler.tick("solo") is None
    finally:
        scopes.close_all()


def test_serve_app_schedules_dream_from_its_settings(tmp_path) -> None:
    with riko.open(tmp_path, preset="solo", config={"embedding_provider": "off"}) as mem:
        say(mem, "s1", "I prefer green tea in the morning")
    app = create_app(tmp_path, {"embedding_provider": "off", "debounce_ms": 0}, schedule=True)
    with TestClient(app, client=LOCAL) as c:
        assert c.get("/memory/v1/config", headers={"x-dsh-memory-profile": "solo"}).status_code == 200
        scheduler = app.state.dream_scheduler
        assert scheduler.debounce_s == 0 and scheduler.interval_s == 3600
        deadline = time.monotonic() + 30
        while not scheduler.runs and time.monotonic() < deadline:
            time.sleep(0.05)
        assert scheduler.runs and scheduler.runs[0][:2] == ("solo", "debounce")
    assert create_app(tmp_path, {"embedding_provider": "off"}).state is not None  # no scheduler unless asked
