"""The Dream settings saved for one scope: which names may be set, and their ``settings`` row.

``Memory.dream_settings()`` / ``set_dream_settings()`` and ``GET/POST /config`` all go through
here, so a model set in a notebook is the one the server shows and the next Dream uses.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .config import camel_name
from .endpoints import looks_like_secret, secret_key_name
from .errors import ConfigError
from .stores.settings import SettingsStore
from .stores.warehouse import naive_utc

__all__ = ["DREAM_SETTINGS", "dream_changes", "saved_dream_settings", "save_dream_settings"]

#: The settings a scope may save: endpoint, model, limits and the credential *reference*.
DREAM_SETTINGS = ("dream_provider", "dream_api_url", "dream_model", "dream_max_tokens",
                  "dream_timeout_ms", "dream_credential_ref")
_BY_NAME = {**{name: name for name in DREAM_SETTINGS}, **{camel_name(name): name for name in DREAM_SETTINGS}}


def dream_changes(values: Mapping[str, Any]) -> dict[str, Any]:
    """Settings by their snake_case names from snake or camelCase keys; a secret-shaped key or
    value, an unknown name, or a name given twice is a :class:`ConfigError` that never echoes
    the value."""
    changes: dict[str, Any] = {}
    for key, value in values.items():
        name = _BY_NAME.get(key)
        if name is None and secret_key_name(key):
            raise ConfigError(str(key), f"{key} looks like a secret: riko never stores keys; put the key in an "
                              "environment variable and send dream_credential_ref with that variable's name")
        if name is None:
            raise ConfigError(str(key), f"{key} is not a Dream setting; use one of {', '.join(DREAM_SETTINGS)}")
        if isinstance(value, str) and looks_like_secret(value):
            raise ConfigError(name, f"{name} holds a secret-shaped value; send the name of the environment "
                              "variable instead")
        if name in changes:
            raise ConfigError(name, f"{name} is given twice")
        changes[name] = value
    if not changes:
        raise ConfigError("dream settings", f"send at least one of {', '.join(DREAM_SETTINGS)}")
    return changes


def saved_dream_settings(store: SettingsStore) -> dict[str, Any]:
    """The settings saved for the scope (only the names that were set); ``store`` is ``ctx.stores.settings``."""
    saved = store.dream()
    return {k: v for k, v in saved.items() if k in DREAM_SETTINGS}


def save_dream_settings(store: SettingsStore, settings: Mapping[str, Any], changed: list[str]) -> None:
    """Write the saved settings and audit which names changed (one transaction)."""
    wh = store.wh
    with wh.transaction():
        store.save_dream(dict(settings), naive_utc(wh.clock.now()))
        wh.audit("dream-settings-changed", "management", None, {"fields": sorted(changed)})
