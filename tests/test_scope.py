import pytest

from riko.errors import ScopeError
from riko.scope import MemoryScope, scope_hash, storage_key, validate_profile_id


def test_key_and_storage_key():
    s = MemoryScope("local", "companion")
    assert s.key == "local:companion"
    assert s.storage_key == "local--companion"
    assert s.hash == scope_hash("local:companion") and len(s.hash) == 16


@pytest.mark.parametrize("preset", [None, "", "   "])
def test_missing_preset_fails_closed(preset):
    with pytest.raises(ScopeError, match="stable agent preset"):
        MemoryScope("local", preset)


@pytest.mark.parametrize("bad", ["a b", "x/y", "../up", "é", "a" * 65, "with:colon"])
def test_profile_alphabet(bad):
    with pytest.raises(ScopeError, match="letters, numbers, dot, underscore and dash"):
        validate_profile_id(bad)
    with pytest.raises(ScopeError):
        MemoryScope(bad, "companion")


def test_storage_key_replaces_unsafe_characters():
    assert storage_key("a.b:c/d") == "a--b--c--d"
    assert storage_key("ok_-1") == "ok_-1"
