"""riko.config: defaults, every validation rule, load precedence, safe views and docs."""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from riko.config import (
    CONFIG_FILE,
    FIELDS,
    SEED_FIELDS,
    RikoConfig,
    camel_name,
    config_table_markdown,
    dream_wire_protocol,
    env_name,
    is_credential_ref_name,
    load_config,
    looks_like_secret,
    safe_view,
    validate_config,
)
from riko.errors import ConfigError, RikoError

DOCS = Path(__file__).resolve().parents[1] / "docs" / "configuration.md"

# The reference table's defaults, copied field by field (camelCase as the seed spells them).
SEED_DEFAULTS = {
    "ownerNamespace": "local",
    "apiPath": "/memory/v1",
    "apiToken": "",
    "apiTokens": {},
    "apiTokenProfile": "",
    "ownerAdminToken": "",
    "dreamApiUrl": "https://api.deepseek.com/api/v1/chat/completions",
    "dreamCredentialRef": "DSH_MEMORY_DREAM_API_KEY",
    "dreamModel": "deepseek-chat",
    "dreamMaxTokens": 1200,
    "dreamIntervalMs": 3600000,
    "debounceMs": 5000,
    "maxResidentChars": 12000,
    "maxSessionChars": 40000,
    "recallEnabled": False,
    "recallVectorEnabled": False,
    "recallRawEvidenceEnabled": True,
    "recallObservationEnabled": False,
    "recallGraphEnabled": False,
    "purgeEnabled": False,
    "recallMaxCandidates": 8,
    "recallMaxContextChars": 3000,
    "residentV2Enabled": True,
    "residentBlocksEnabled": True,
    "sensitiveResidentEnabled": False,
    "temporalEnabled": True,
    "evidenceClassificationEnabled": False,
    "unclassifiedEvidenceDisclosure": "never_explicit",
    "minObservationEvidence": 2,
    "observationActivationMinEvidence": 3,
    "observationActivationMinSessions": 2,
    "observationActivationMinConfidence": 0.8,
    "reflectionEnabled": False,
    "reflectionMaxObservations": 3,
    "temporalReconcileEnabled": False,
    "embeddingProvider": "off",
    "embeddingEndpoint": "",
    "embeddingCredentialRef": "DSH_MEMORY_EMBEDDING_API_KEY",
    "embeddingModel": "",
    "embeddingDimension": 256,
}

RIKO_DEFAULTS = {
    "dream_provider": "heuristic",
    "dream_workers": 4,
    "dream_timeout_ms": 120000,
    "candidate_auto_confirm": "user_grounded",
    "max_event_chars": 16000,
    "lexical_candidate_cap": 20,
    "dense_candidate_cap": 8,
    "rrf_k": 60,
    "reranker_endpoint": "",
    "reranker_timeout_ms": 5000,
    "embedding_timeout_ms": 10000,
    "lock_timeout_ms": 30000,
    "idle_release_ms": 500,
    "index_layer_enabled": True,
    "index_layer_max_chars": 1600,
    "index_layer_max_entries": 40,
    "index_layer_line_chars": 72,
    "index_layer_stale_days": 90,
}

SNAKE = {
    "ownerNamespace": "owner_namespace",
    "residentV2Enabled": "resident_v2_enabled",
    "observationActivationMinConfidence": "observation_activation_min_confidence",
    "apiTokens": "api_tokens",
}


def _rejects(changes: dict, field: str, message: str) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        RikoConfig(**changes)
    assert info.value.field == field
    assert message in str(info.value)
    assert str(info.value).startswith(field)
    return info.value


# --- defaults ------------------------------------------------------------------------


def test_seed_fields_all_present_with_seed_defaults() -> None:
    cfg = RikoConfig()
    assert len(SEED_FIELDS) == 40 and set(SEED_FIELDS) == set(SEED_DEFAULTS)
    for seed_name, expected in SEED_DEFAULTS.items():
        snake = SNAKE.get(seed_name) or "".join("_" + c.lower() if c.isupper() else c for c in seed_name)
        assert camel_name(snake) == seed_name
        actual = getattr(cfg, snake)
        if seed_name == "embeddingProvider":
            assert actual == "local"  # riko's deliberate default: the embedded e5 model
        else:
            assert actual == expected, seed_name
            assert type(actual) is type(expected) or isinstance(expected, dict)


def test_riko_field_defaults() -> None:
    cfg = RikoConfig()
    assert {name: getattr(cfg, name) for name in RIKO_DEFAULTS} == RIKO_DEFAULTS
    assert cfg.recall_vector_enabled is False


def test_fields_table_mirrors_the_dataclass() -> None:
    names = [f.name for f in dataclasses.fields(RikoConfig)]
    assert [spec.name for spec in FIELDS] == names
    assert len(FIELDS) == 40 + len(RIKO_DEFAULTS)
    cfg = RikoConfig()
    for spec in FIELDS:
        assert spec.doc.strip()
        assert spec.default == getattr(cfg, spec.name)
        assert spec.type in (str, int, bool, float, dict, list)  # list: dream_provider may be a chain
        assert len(spec) == 4  # (name, type, default, doc)


def test_config_error_is_a_value_error_with_field() -> None:
    err = _rejects({"debounce_ms": -1}, "debounce_ms", "debounce_ms must be an integer of at least 0")
    assert isinstance(err, ValueError) and isinstance(err, RikoError)


# --- the seed's validation table -------------------------------------------------------

SEED_RULES = [
    ({"owner_namespace": ""}, "owner_namespace", "owner_namespace must not be empty"),
    ({"owner_namespace": "   "}, "owner_namespace", "owner_namespace must not be empty"),
    ({"api_path": "memory/v1"}, "api_path", "api_path must be absolute without trailing slash or query"),
    ({"api_path": "/memory/v1/"}, "api_path", "api_path must be absolute without trailing slash or query"),
    ({"api_path": "/memory?x=1"}, "api_path", "api_path must be absolute without trailing slash or query"),
    ({"api_path": ""}, "api_path", "api_path must be absolute without trailing slash or query"),
    (
        {"api_token": "t1", "api_token_profile": "work", "api_tokens": {"home": "t2"}},
        "api_token",
        "api_token and api_tokens are mutually exclusive",
    ),
    ({"api_token": "t1"}, "api_token_profile", "api_token_profile is required when api_token is set"),
    ({"api_token_profile": "work"}, "api_token_profile", "api_token_profile requires api_token"),
    ({"owner_admin_token": "  \t"}, "owner_admin_token", "owner_admin_token must not be whitespace"),
    (
        {"api_token": "same", "api_token_profile": "work", "owner_admin_token": "same"},
        "owner_admin_token",
        "owner_admin_token must be distinct",
    ),
    (
        {"api_tokens": {"work": "a", "home": "same"}, "owner_admin_token": "same"},
        "owner_admin_token",
        "owner_admin_token must be distinct",
    ),
    ({"dream_credential_ref": "not a name"}, "dream_credential_ref", "must be a credential reference"),
    ({"dream_credential_ref": ""}, "dream_credential_ref", "must be a credential reference"),
    ({"dream_credential_ref": "9STARTS_WITH_DIGIT"}, "dream_credential_ref", "must be a credential reference"),
    ({"embedding_credential_ref": "A" * 129}, "embedding_credential_ref", "must be a credential reference"),
    ({"min_observation_evidence": 0}, "min_observation_evidence", "must be an integer of at least 1"),
    (
        {"observation_activation_min_evidence": 0},
        "observation_activation_min_evidence",
        "must be an integer of at least 1",
    ),
    (
        {"observation_activation_min_sessions": 2.5},
        "observation_activation_min_sessions",
        "must be an integer of at least 1",
    ),
    ({"reflection_max_observations": True}, "reflection_max_observations", "must be an integer of at least 1"),
    (
        {"observation_activation_min_confidence": 1.01},
        "observation_activation_min_confidence",
        "must be between 0 and 1",
    ),
    (
        {"observation_activation_min_confidence": -0.1},
        "observation_activation_min_confidence",
        "must be between 0 and 1",
    ),
    (
        {"observation_activation_min_confidence": math.nan},
        "observation_activation_min_confidence",
        "must be between 0 and 1",
    ),
    (
        {"observation_activation_min_confidence": "0.8"},
        "observation_activation_min_confidence",
        "must be between 0 and 1",
    ),
    ({"embedding_dimension": 7}, "embedding_dimension", "must be an integer from 8 through 4096"),
    ({"embedding_dimension": 4097}, "embedding_dimension", "must be an integer from 8 through 4096"),
    ({"embedding_dimension": "256"}, "embedding_dimension", "must be an integer from 8 through 4096"),
    ({"embedding_provider": "fancy"}, "embedding_provider", "embedding_provider is invalid"),
    ({"dream_api_url": "not a url"}, "dream_api_url", "dream_api_url must be a valid HTTPS URL"),
    ({"dream_api_url": "ftp://api.example.com/x"}, "dream_api_url", "dream_api_url must be a valid HTTPS URL"),
    ({"dream_api_url": "https://"}, "dream_api_url", "dream_api_url must be a valid HTTPS URL"),
    ({"dream_api_url": "https://host:99999/v1"}, "dream_api_url", "dream_api_url must be a valid HTTPS URL"),
    ({"dream_api_url": "http://api.example.com/v1"}, "dream_api_url", "dream_api_url must use HTTPS"),
    (
        {"dream_api_url": "https://user:pw@api.example.com/v1"},
        "dream_api_url",
        "dream_api_url must not contain an embedded credential",
    ),
    (
        {"dream_api_url": "https://api.example.com/v1?api_key=abc"},
        "dream_api_url",
        "dream_api_url must not contain an embedded credential",
    ),
    (
        {"embedding_provider": "openai-compatible", "embedding_model": "m"},
        "embedding_endpoint",
        "embedding_endpoint is required when embedding_provider is openai-compatible",
    ),
    (
        {"embedding_provider": "openai-compatible", "embedding_endpoint": "https://e.example.com/v1/embeddings"},
        "embedding_model",
        "embedding_model is required when embedding_provider is openai-compatible",
    ),
    (
        {
            "embedding_provider": "openai-compatible",
            "embedding_endpoint": "http://e.example.com/v1/embeddings",
            "embedding_model": "m",
        },
        "embedding_endpoint",
        "embedding_endpoint must use HTTPS",
    ),
    (
        {"embedding_endpoint": "https://k:s@e.example.com/v1/embeddings"},
        "embedding_endpoint",
        "embedding_endpoint must not contain an embedded credential",
    ),
    (
        {"owner_namespace": "has space"},
        "owner_namespace",
        "profile id must contain only letters, numbers, dot, underscore and dash",
    ),
    (
        {"api_token": "t", "api_token_profile": "bad/profile"},
        "api_token_profile",
        "profile id must contain only letters, numbers, dot, underscore and dash",
    ),
    (
        {"api_tokens": {"": "t"}},
        "api_tokens",
        "profile id must contain only letters, numbers, dot, underscore and dash",
    ),
    (
        {"api_tokens": {"x" * 65: "t"}},
        "api_tokens",
        "profile id must contain only letters, numbers, dot, underscore and dash",
    ),
    ({"api_tokens": {"work": ""}}, "api_tokens", "api_tokens.work must not be empty"),
    ({"api_tokens": {"work": "  "}}, "api_tokens", "api_tokens.work must not be empty"),
]


@pytest.mark.parametrize(("changes", "field", "message"), SEED_RULES)
def test_seed_validation_rule(changes: dict, field: str, message: str) -> None:
    _rejects(changes, field, message)


# --- riko's own range, type and enum checks ---------------------------------------------

RANGE_RULES = [
    ("dream_max_tokens", 127, "of at least 128"),
    ("dream_interval_ms", 59_999, "of at least 60000"),
    ("debounce_ms", -1, "of at least 0"),
    ("max_resident_chars", 255, "of at least 256"),
    ("max_session_chars", 999, "of at least 1000"),
    ("max_event_chars", 255, "of at least 256"),
    ("recall_max_candidates", 0, "from 1 through 32"),
    ("recall_max_candidates", 33, "from 1 through 32"),
    ("recall_max_context_chars", 255, "from 256 through 16000"),
    ("recall_max_context_chars", 16_001, "from 256 through 16000"),
    ("dream_workers", 0, "from 1 through 64"),
    ("dream_workers", 65, "from 1 through 64"),
    ("dream_timeout_ms", 0, "of at least 1"),
    ("lexical_candidate_cap", 0, "from 1 through 1000"),
    ("dense_candidate_cap", 1001, "from 1 through 1000"),
    ("rrf_k", 0, "of at least 1"),
    ("reranker_timeout_ms", 0, "of at least 1"),
    ("embedding_timeout_ms", 0, "from 1 through 120000"),
    ("embedding_timeout_ms", 120_001, "from 1 through 120000"),
    ("max_resident_chars", "4000", "of at least 256"),
    ("dream_max_tokens", 1200.0, "of at least 128"),
]


@pytest.mark.parametrize(("name", "value", "bound"), RANGE_RULES)
def test_integer_range_rule(name: str, value: object, bound: str) -> None:
    _rejects({name: value}, name, f"{name} must be an integer {bound}")


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("dream_max_tokens", 128),
        ("dream_interval_ms", 60_000),
        ("debounce_ms", 0),
        ("max_resident_chars", 256),
        ("max_session_chars", 1000),
        ("recall_max_candidates", 32),
        ("recall_max_context_chars", 16_000),
        ("embedding_dimension", 8),
        ("embedding_dimension", 4096),
        ("dream_workers", 64),
        ("embedding_timeout_ms", 120_000),
        ("observation_activation_min_confidence", 0),
        ("observation_activation_min_confidence", 1),
    ],
)
def test_range_boundaries_are_accepted(name: str, value: object) -> None:
    assert getattr(RikoConfig(**{name: value}), name) == value


@pytest.mark.parametrize("name", [spec.name for spec in FIELDS if spec.type is bool])
def test_flags_must_be_booleans(name: str) -> None:
    _rejects({name: "yes"}, name, f"{name} must be a boolean")


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("dream_provider", "gpt"),
        ("candidate_auto_confirm", "sometimes"),
        ("unclassified_evidence_disclosure", "always"),
        ("embedding_provider", "OFF"),
    ],
)
def test_enum_values_are_checked(name: str, value: str) -> None:
    err = _rejects({name: value}, name, f"{name} is invalid: expected one of")
    assert value not in str(err).split("expected one of")[1].split(", ")


@pytest.mark.parametrize("provider", ["off", "deterministic", "local", "local-fast"])
def test_every_embedding_provider_value_is_accepted(provider: str) -> None:
    assert RikoConfig(embedding_provider=provider).embedding_provider == provider


@pytest.mark.parametrize("mode", ["off", "user_grounded", "all"])
def test_every_auto_confirm_mode_is_accepted(mode: str) -> None:
    assert RikoConfig(candidate_auto_confirm=mode).candidate_auto_confirm == mode


def test_string_fields_must_be_strings() -> None:
    _rejects({"dream_model": 5}, "dream_model", "dream_model must be a string")
    _rejects({"api_tokens": "work=a"}, "api_tokens", "api_tokens must be a table of profile id to token")


def test_http_dream_provider_needs_a_model() -> None:
    _rejects(
        {"dream_provider": "anthropic", "dream_model": " "},
        "dream_model",
        "dream_model is required when dream_provider is anthropic",
    )
    assert RikoConfig(dream_provider="heuristic", dream_model="").dream_model == ""


def test_api_tokens_must_bind_distinct_tokens() -> None:
    _rejects({"api_tokens": {"work": "t", "home": "t"}}, "api_tokens", "api_tokens values must be distinct")


def test_reranker_endpoint_follows_the_url_rule() -> None:
    _rejects({"reranker_endpoint": "http://10.0.0.1/v1/rerank"}, "reranker_endpoint", "must use HTTPS")
    assert RikoConfig(reranker_endpoint="").reranker_endpoint == ""


@pytest.mark.parametrize(
    "url",
    [
        "http://localhost:11434/v1/chat/completions",
        "http://127.0.0.1:8080/v1",
        "http://127.3.4.5/v1",
        "http://[::1]:9000/v1/rerank",
        "https://api.example.com/anthropic",
    ],
)
def test_loopback_http_and_https_endpoints_are_accepted(url: str) -> None:
    cfg = RikoConfig(
        dream_api_url=url,
        reranker_endpoint=url,
        embedding_provider="openai-compatible",
        embedding_endpoint=url,
        embedding_model="text-embedding-3-small",
    )
    assert cfg.dream_api_url == cfg.embedding_endpoint == cfg.reranker_endpoint == url


@pytest.mark.parametrize("host", ["localhost.evil.example", "128.0.0.1", "[::2]", "0.0.0.0"])
def test_http_to_a_non_loopback_host_is_rejected(host: str) -> None:
    _rejects({"dream_api_url": f"http://{host}/v1"}, "dream_api_url", "dream_api_url must use HTTPS")


@pytest.mark.parametrize(
    "secret", ["sk-abc123", "sk-proj-AbC9xYz", "pk-live42", "rk-0", "token-ABCdef", "Bearer-xyz9"]
)
def test_secret_shaped_credential_refs_are_rejected_without_echo(secret: str) -> None:
    err = _rejects({"dream_credential_ref": secret}, "dream_credential_ref", "looks like a secret")
    assert secret not in str(err)
    assert looks_like_secret(secret) and not is_credential_ref_name(secret)


@given(
    st.sampled_from(["sk", "pk", "rk", "token", "bearer", "SK", "Token"]),
    st.from_regex(r"[A-Za-z0-9]{1,40}", fullmatch=True),
)
@settings(max_examples=60, deadline=None)
def test_any_secret_shaped_value_is_rejected(prefix: str, tail: str) -> None:
    value = f"{prefix}-{tail}"
    with pytest.raises(ConfigError) as info:
        RikoConfig(embedding_credential_ref=value)
    assert info.value.field == "embedding_credential_ref" and value not in str(info.value)


@given(st.from_regex(r"[A-Z_][A-Z0-9_]{0,60}", fullmatch=True))
@settings(max_examples=60, deadline=None)
def test_environment_variable_names_are_valid_credential_refs(name: str) -> None:
    assert RikoConfig(dream_credential_ref=name).dream_credential_ref == name


def test_valid_token_modes() -> None:
    single = RikoConfig(api_token="t-1", api_token_profile="work", owner_admin_token="admin")
    multi = RikoConfig(api_tokens={"work": "a", "home.v2": "b"}, owner_admin_token="admin")
    assert single.api_token_profile == "work" and dict(multi.api_tokens) == {"work": "a", "home.v2": "b"}


def test_module_examples_run() -> None:
    import doctest

    import riko.config

    assert doctest.testmod(riko.config).failed == 0


def test_validate_config_accepts_a_valid_config() -> None:
    assert validate_config(RikoConfig()) is None


# --- immutability, replace, serialisation ------------------------------------------------


def test_config_is_frozen_including_the_token_map() -> None:
    tokens = {"work": "a"}
    cfg = RikoConfig(api_tokens=tokens)
    tokens["home"] = "b"  # the caller's dict is copied
    assert dict(cfg.api_tokens) == {"work": "a"}
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.recall_enabled = True  # type: ignore[misc]
    with pytest.raises(TypeError):
        cfg.api_tokens["home"] = "b"  # type: ignore[index]


def test_replace_returns_a_validated_copy() -> None:
    base = RikoConfig()
    changed = base.replace(recall_enabled=True, maxResidentChars=4000)
    assert changed.recall_enabled and changed.max_resident_chars == 4000
    assert base.recall_enabled is False and base.max_resident_chars == 12000
    with pytest.raises(ConfigError) as info:
        base.replace(max_resident_chars=10)
    assert info.value.field == "max_resident_chars"


def test_replace_unknown_field_suggests_a_name() -> None:
    with pytest.raises(ConfigError) as info:
        RikoConfig().replace(recall_enabeld=True)
    assert info.value.field == "recall_enabeld"
    assert "did you mean 'recall_enabled'?" in str(info.value)


def test_to_dict_pickle_copy_and_hash() -> None:
    cfg = RikoConfig(api_tokens={"work": "a"}, recall_enabled=True)
    data = cfg.to_dict()
    assert type(data["api_tokens"]) is dict and data["recall_enabled"] is True
    assert RikoConfig(**data) == cfg
    assert pickle.loads(pickle.dumps(cfg)) == cfg
    assert copy.deepcopy(cfg) == cfg
    assert hash(cfg) == hash(RikoConfig(api_tokens={"work": "a"}, recall_enabled=True))
    assert json.loads(json.dumps(data)) == data


def test_repr_shows_changes_and_masks_tokens() -> None:
    cfg = RikoConfig(api_token="s3cr3t-value", api_token_profile="work", recall_enabled=True)
    text = repr(cfg)
    assert "s3cr3t-value" not in text
    assert "api_token=<set>" in text and "recall_enabled=True" in text
    assert repr(RikoConfig()) == "RikoConfig()"


# --- loading: riko.toml, environment, overrides ----------------------------------------


def _write(root: Path, text: str) -> Path:
    path = root / CONFIG_FILE
    path.write_text(text, encoding="utf-8")
    return path


def test_load_without_file_gives_defaults(tmp_path: Path) -> None:
    assert load_config(tmp_path, environ={}) == RikoConfig()
    assert load_config(None, environ={}) == RikoConfig()


def test_toml_values_and_token_table(tmp_path: Path) -> None:
    _write(
        tmp_path,
        'recall_enabled = true\nmax_resident_chars = 4000\nembedding_provider = "deterministic"\n'
        "observation_activation_min_confidence = 1\n[api_tokens]\nwork = \"a\"\nhome = \"b\"\n",
    )
    cfg = load_config(tmp_path, environ={})
    assert cfg.recall_enabled and cfg.max_resident_chars == 4000
    assert cfg.embedding_provider == "deterministic"
    assert dict(cfg.api_tokens) == {"work": "a", "home": "b"}


def test_root_may_name_the_toml_file(tmp_path: Path) -> None:
    path = tmp_path / "other.toml"
    path.write_text("rrf_k = 10\n", encoding="utf-8")
    assert load_config(path, environ={}).rrf_k == 10


def test_camel_case_keys_are_accepted(tmp_path: Path) -> None:
    _write(
        tmp_path,
        'maxResidentChars = 5000\nresidentV2Enabled = false\ndreamModel = "m"\ncandidateAutoConfirm = "off"\n',
    )
    cfg = load_config(tmp_path, environ={})
    assert (cfg.max_resident_chars, cfg.resident_v2_enabled, cfg.dream_model) == (5000, False, "m")
    assert cfg.candidate_auto_confirm == "off"


def test_both_spellings_of_one_key_are_rejected(tmp_path: Path) -> None:
    _write(tmp_path, "maxResidentChars = 5000\nmax_resident_chars = 6000\n")
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, environ={})
    assert info.value.field == "max_resident_chars" and "given twice" in str(info.value)


def test_unknown_key_names_key_file_and_hint(tmp_path: Path) -> None:
    path = _write(tmp_path, "max_resident_char = 5000\n")
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, environ={})
    assert info.value.field == "max_resident_char"
    assert str(path) in str(info.value)
    assert "did you mean 'max_resident_chars'?" in str(info.value)


def test_unknown_camel_key_hint_uses_snake_name(tmp_path: Path) -> None:
    _write(tmp_path, "recallEnabld = true\n")
    with pytest.raises(ConfigError, match="did you mean 'recall_enabled'"):
        load_config(tmp_path, environ={})


def test_unknown_key_without_close_match_has_no_hint(tmp_path: Path) -> None:
    _write(tmp_path, "demoEnabled = true\n")
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, environ={})
    assert info.value.field == "demoEnabled" and "did you mean" not in str(info.value)


def test_malformed_toml_is_reported_with_its_path(tmp_path: Path) -> None:
    path = _write(tmp_path, "recall_enabled = = true\n")
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, environ={})
    assert info.value.field == CONFIG_FILE and str(path) in str(info.value)


def test_invalid_toml_value_names_the_file(tmp_path: Path) -> None:
    path = _write(tmp_path, "max_resident_chars = 12\n")
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, environ={})
    assert info.value.field == "max_resident_chars"
    assert str(info.value).startswith("max_resident_chars must be an integer of at least 256")
    assert f"set in {path}" in str(info.value)


def test_precedence_defaults_toml_env_overrides(tmp_path: Path) -> None:
    _write(tmp_path, "max_resident_chars = 5000\nmax_session_chars = 50000\nrrf_k = 10\n")
    env = {"RIKO_MAX_SESSION_CHARS": "60000", "RIKO_RRF_K": "20"}
    cfg = load_config(tmp_path, overrides={"rrf_k": 30}, environ=env)
    assert cfg.max_resident_chars == 5000  # toml over default
    assert cfg.max_session_chars == 60000  # env over toml
    assert cfg.rrf_k == 30  # overrides over env
    assert cfg.dream_workers == 4  # default untouched


def test_config_override_contributes_only_changed_fields(tmp_path: Path) -> None:
    _write(tmp_path, "max_resident_chars = 5000\n")
    cfg = load_config(tmp_path, overrides=RikoConfig(recall_enabled=True), environ={})
    assert cfg.recall_enabled and cfg.max_resident_chars == 5000


def test_mapping_overrides_accept_camel_case_and_reject_unknown(tmp_path: Path) -> None:
    assert load_config(tmp_path, overrides={"recallEnabled": True}, environ={}).recall_enabled
    with pytest.raises(ConfigError, match="in overrides"):
        load_config(tmp_path, overrides={"recal": True}, environ={})


def test_environment_defaults_to_os_environ(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RIKO_MAX_RESIDENT_CHARS", "4000")
    assert load_config(tmp_path).max_resident_chars == 4000


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("true", True), ("TRUE", True), ("1", True), ("yes", True), ("false", False), ("0", False), ("No", False)],
)
def test_env_booleans(raw: str, expected: bool) -> None:
    assert load_config(environ={"RIKO_RECALL_ENABLED": raw}).recall_enabled is expected


def test_env_strings_floats_and_token_json() -> None:
    env = {
        "RIKO_DREAM_MODEL": "mimo-v2.5",
        "RIKO_OBSERVATION_ACTIVATION_MIN_CONFIDENCE": "0.5",
        "RIKO_API_TOKENS": json.dumps({"work": "a", "home": "b"}),
    }
    cfg = load_config(environ=env)
    assert cfg.dream_model == "mimo-v2.5" and cfg.observation_activation_min_confidence == 0.5
    assert dict(cfg.api_tokens) == {"work": "a", "home": "b"}
    assert env_name("api_tokens") == "RIKO_API_TOKENS"


@pytest.mark.parametrize(
    ("var", "raw", "field", "what"),
    [
        ("RIKO_MAX_RESIDENT_CHARS", "lots", "max_resident_chars", "is not an integer"),
        ("RIKO_RECALL_ENABLED", "maybe", "recall_enabled", "is not a boolean"),
        (
            "RIKO_OBSERVATION_ACTIVATION_MIN_CONFIDENCE",
            "high",
            "observation_activation_min_confidence",
            "is not a number",
        ),
        ("RIKO_API_TOKENS", "[1, 2]", "api_tokens", "must hold a JSON object"),
    ],
)
def test_bad_env_value_names_the_variable(var: str, raw: str, field: str, what: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(environ={var: raw})
    assert info.value.field == field
    assert var in str(info.value) and what in str(info.value)


def test_bad_secret_env_value_is_not_echoed() -> None:
    raw = '{"work": "super-secret-token"'  # truncated JSON
    with pytest.raises(ConfigError) as info:
        load_config(environ={"RIKO_API_TOKENS": raw})
    assert "super-secret-token" not in str(info.value)


def test_invalid_env_value_reports_its_origin() -> None:
    with pytest.raises(ConfigError) as info:
        load_config(environ={"RIKO_RECALL_MAX_CANDIDATES": "64"})
    assert info.value.field == "recall_max_candidates"
    assert "from 1 through 32" in str(info.value)
    assert "environment variable RIKO_RECALL_MAX_CANDIDATES" in str(info.value)


def test_unrelated_riko_variables_are_ignored() -> None:
    assert load_config(environ={"RIKO_ROOT": "/somewhere"}) == RikoConfig()


@given(st.integers(min_value=256, max_value=10**9))
@settings(max_examples=40, deadline=None)
def test_env_integer_round_trip(value: int) -> None:
    assert load_config(environ={"RIKO_MAX_RESIDENT_CHARS": str(value)}).max_resident_chars == value


# --- safe view ---------------------------------------------------------------------


def test_safe_view_mirrors_config_response() -> None:
    cfg = RikoConfig(
        owner_namespace="alice", api_token="tok-A1", api_token_profile="work", owner_admin_token="Adm1nT0k"
    )
    view = safe_view(cfg)
    for hidden in ("owner_namespace", "api_token", "api_tokens", "owner_admin_token"):
        assert hidden not in view
    assert view["api_token_profile"] == "work"
    assert view["owner_admin_configured"] is True
    assert view["dream_credential_ref"] == "DSH_MEMORY_DREAM_API_KEY"
    assert view["max_session_chars"] == 40000
    assert "tok-A1" not in json.dumps(view) and "Adm1nT0k" not in json.dumps(view)
    plain = safe_view(RikoConfig())
    assert "api_token_profile" not in plain and plain["owner_admin_configured"] is False


@given(
    st.dictionaries(
        st.from_regex(r"[a-z]{1,8}", fullmatch=True),
        st.from_regex(r"[A-Za-z0-9]{10,20}", fullmatch=True).map(lambda s: f"Tq{s}Zx"),
        min_size=1,
        max_size=4,
    ),
    st.from_regex(r"[A-Za-z0-9]{10,20}", fullmatch=True).map(lambda s: f"Ad{s}Mn"),
)
@settings(max_examples=50, deadline=None)
def test_safe_view_never_contains_token_values(tokens: dict[str, str], admin: str) -> None:
    assume(len(set(tokens.values())) == len(tokens) and admin not in tokens.values())
    text = json.dumps(safe_view(RikoConfig(api_tokens=tokens, owner_admin_token=admin)))
    for secret in [*tokens.values(), admin]:
        assert secret not in text


# --- wire protocol -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("provider", "url", "expected"),
    [
        ("heuristic", "https://api.deepseek.com/api/v1/chat/completions", None),
        ("openai-compatible", "https://api.deepseek.com/api/v1/chat/completions", "openai-chat-completions"),
        ("openai-compatible", "https://api.xiaomimimo.com/anthropic", "anthropic-messages"),
        ("openai-compatible", "https://api.example.com/anthropic/v1", "anthropic-messages"),
        ("openai-compatible", "https://api.example.com/anthropics/v1", "openai-chat-completions"),
        ("anthropic", "https://api.anthropic.com/v1/messages", "anthropic-messages"),
    ],
)
def test_dream_wire_protocol(provider: str, url: str, expected: str | None) -> None:
    assert dream_wire_protocol(RikoConfig(dream_provider=provider, dream_api_url=url)) == expected


# --- docs kept in step ---------------------------------------------------------------


def test_table_has_one_row_per_field_and_escapes_pipes() -> None:
    rows = config_table_markdown().splitlines()[2:]
    assert len(rows) == len(FIELDS)
    for row, spec in zip(rows, FIELDS):
        assert row.startswith(f"| `{spec.name}` |")
        assert row.replace("\\|", "").count("|") == 6


def test_committed_docs_match_the_generated_table() -> None:
    text = DOCS.read_text(encoding="utf-8")
    start, end = "<!-- riko-config-fields:start -->\n", "<!-- riko-config-fields:end -->"
    head, _, rest = text.partition(start)
    table, _, tail = rest.partition(end)
    assert head and tail, "docs/configuration.md lost its generated-table markers"
    assert table == config_table_markdown(), "regenerate: python -m riko.config docs/configuration.md"


def test_docs_regeneration_is_idempotent(tmp_path: Path) -> None:
    copy_path = tmp_path / "configuration.md"
    copy_path.write_text(DOCS.read_text(encoding="utf-8"), encoding="utf-8")
    subprocess.run([sys.executable, "-m", "riko.config", str(copy_path)], check=True)
    assert copy_path.read_text(encoding="utf-8") == DOCS.read_text(encoding="utf-8")
