"""One settings path: the notebook's ``mem.set_dream_settings`` and the server's ``/config`` are
the same persisted, audited Dream settings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from starlette.testclient import TestClient

import riko
from riko.errors import ConfigError
from riko.server import create_app

API = "/memory/v1"
PROFILE = {"x-dsh-memory-profile": "companion"}


def test_notebook_and_server_read_and_write_the_same_dream_settings(tmp_path: Path) -> None:
    with riko.open(tmp_path, preset="companion") as mem:
        mem.set_dream_settings(dream_model="notebook-model")
    with TestClient(create_app(tmp_path), client=("127.0.0.1", 50000)) as client:
        assert client.get(API + "/config", headers=PROFILE).json()["dream_model"] == "notebook-model"
        r = client.post(API + "/config", headers=PROFILE, json={"dreamMaxTokens": 2048})
        assert r.status_code == 200 and r.json()["dream_model"] == "notebook-model"
        with riko.open(tmp_path, preset="companion") as mem:  # beside the running server
            assert mem.dream_settings()["dream_max_tokens"] == 2048
            mem.set_dream_settings(dreamModel="second-model")
        assert client.get(API + "/config", headers=PROFILE).json()["dream_model"] == "second-model"
        bad = client.post(API + "/config", headers=PROFILE, json={"dream_api_key": "abc123"})
        assert bad.status_code == 400 and "abc123" not in bad.text
    with TestClient(create_app(tmp_path), client=("127.0.0.1", 50000)) as client:  # a restarted server keeps them
        view = client.get(API + "/config", headers=PROFILE).json()
        assert (view["dream_model"], view["dream_max_tokens"]) == ("second-model", 2048)
    with riko.open(tmp_path, preset="companion", read_only=True) as mem:
        changed = [json.loads(d)["fields"] for d in mem.audits("dream-settings-changed")["detail"].to_list()]
        assert changed == [["dream_model"], ["dream_max_tokens"], ["dream_model"]]
        assert mem.dream_config().dream_model == "second-model"


@pytest.mark.parametrize("settings", [{"apiKey": "x"}, {"dream_model": "sk-abcdef123456"},
                                      {"dream_api_url": "http://llm.example.test/v1"}, {"max_resident_chars": 300}])
def test_refused_settings_say_which_field_and_save_nothing(tmp_path: Path, settings: dict) -> None:
    with riko.open(tmp_path, preset="companion") as mem:
        with pytest.raises(ConfigError) as info:
            mem.set_dream_settings(**settings)
        assert next(iter(settings)) in str(info.value) or "dream_api_url" in str(info.value)
        assert "sk-abcdef123456" not in str(info.value)
        assert mem.audits("dream-settings-changed").height == 0
