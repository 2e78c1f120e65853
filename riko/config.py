"""riko's typed configuration: the seed's 39 live settings plus riko's own, validated at load.

Values come, lowest to highest precedence, from the defaults, ``<root>/riko.toml``, the
environment (``RIKO_<FIELD>``) and explicit overrides. Secrets are never stored here, only
the *names* of the environment variables that hold them (credential references).

    >>> cfg = load_config(overrides={"max_resident_chars": 4000}, environ={})
    >>> cfg.max_resident_chars
    4000
    >>> safe_view(cfg)["owner_admin_configured"]
    False
"""

from __future__ import annotations

import difflib
import json
import math
import os
import re
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields
from pathlib import Path
from types import MappingProxyType
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from .endpoints import EndpointError, check_endpoint, is_credential_ref_name, is_loopback_host, looks_like_secret
from .errors import ConfigError, ScopeError
from .scope import validate_profile_id

__all__ = [
    "RikoConfig",
    "FieldSpec",
    "FIELDS",
    "SEED_FIELDS",
    "CONFIG_FILE",
    "ENV_PREFIX",
    "load_config",
    "validate_config",
    "safe_view",
    "config_table_markdown",
    "camel_name",
    "env_name",
    "is_credential_ref_name",
    "looks_like_secret",
    "is_loopback_host",
    "dream_wire_protocol",
    "dream_chain",
    "ChainEntry",
    "infer_wire_protocol",
    "CHAIN_KEYS",
    "OWNER_ENV",
    "OwnerChoice",
    "resolve_owner",
]

CONFIG_FILE = "riko.toml"
ENV_PREFIX = "RIKO_"

DREAM_PROVIDERS = ("heuristic", "openai-compatible", "anthropic", "google", "auto")
#: Keys of one table entry of a ``dream_provider`` chain (camelCase spellings accepted too).
CHAIN_KEYS = ("provider", "url", "model", "credential_ref")
EMBEDDING_PROVIDERS = ("off", "deterministic", "local", "local-fast", "openai-compatible")
AUTO_CONFIRM_MODES = ("off", "user_grounded", "all")
DISCLOSURE_MODES = ("never_explicit", "user_explicit_only")

# Settings whose values are secrets or scope-private: never shown by safe_view() or repr().
_SECRET_FIELDS = frozenset({"api_token", "api_tokens", "owner_admin_token"})
_PRIVATE_FIELDS = _SECRET_FIELDS | {"owner_namespace"}



def _setting(default: Any, doc: str) -> Any:
    """A dataclass field carrying its user-facing documentation."""
    return field(default=default, metadata={"doc": doc})


@dataclass(frozen=True, repr=False)
class RikoConfig:
    """Every riko setting with its default; an instance is always valid (checked on creation).

    Build one with :func:`load_config` to honour ``riko.toml`` and the environment, or
    directly (``RikoConfig(recall_enabled=True)``); derive variants with :meth:`replace`.
    """

    # --- Identity and the control API -------------------------------------------------
    owner_namespace: str = _setting(
        "local", "Owner namespace used to derive the isolated scope. Must be a non-empty profile id."
    )
    api_path: str = _setting(
        "/memory/v1",
        "HTTP prefix for the control API and UI. Must start with /, and must not end with / or contain ?.",
    )
    api_token: str = _setting("", "Single bearer token used with api_token_profile.")
    api_tokens: Mapping[str, str] = field(
        default_factory=dict,
        metadata={
            "doc": "Bearer-token map binding profiles to separate scopes. Mutually exclusive with api_token."
        },
    )
    api_token_profile: str = _setting(
        "", "Profile selected by single-token mode. Required when api_token is set, and forbidden otherwise."
    )
    owner_admin_token: str = _setting(
        "", "Bearer token that grants owner-admin capability. Must be distinct from every other token."
    )

    # --- Dream: provider, schedule and admission ----------------------------------------
    dream_provider: str | list[Any] = _setting(
        "heuristic",
        "Dream provider: heuristic (offline, deterministic), openai-compatible, anthropic, google (Google's "
        "models/{model}:generateContent) or auto (the protocol from the URL's shape: /anthropic at a path "
        "boundary, a models/...:generateContent path). A chain tries each in order on network errors, "
        "timeouts, 429/5xx or invalid output: \"openai-compatible,heuristic\", or a list of names and tables "
        "{provider, url, model, credential_ref} for per-entry endpoints.",
    )
    dream_api_url: str = _setting(
        "https://api.deepseek.com/api/v1/chat/completions",
        "Dream provider endpoint. Must be HTTPS (plain http only for loopback hosts) "
        "and must not embed credentials.",
    )
    dream_credential_ref: str = _setting(
        "DSH_MEMORY_DREAM_API_KEY",
        "Name of the environment variable holding the Dream API key; the value is never stored or returned.",
    )
    dream_model: str = _setting("deepseek-chat", "Model name sent to the Dream provider.")
    dream_max_tokens: int = _setting(1200, "Maximum Dream completion tokens (at least 128).")
    dream_interval_ms: int = _setting(
        3_600_000, "Interval of the Dream sweep riko serve runs over each open profile (at least 60000)."
    )
    debounce_ms: int = _setting(
        5000, "Delay after a profile's evidence last moved before riko serve runs its Dream (at least 0)."
    )
    dream_workers: int = _setting(4, "Sessions dreamed in parallel (1 to 64).")
    dream_timeout_ms: int = _setting(120_000, "Timeout of one Dream provider call (at least 1).")
    candidate_auto_confirm: str = _setting(
        "user_grounded",
        "Candidate admission without manual review: off, user_grounded (description equals the full "
        "text of one user-authored L0 line, and those words carry content) or all (skips grounding; "
        "controlled dogfooding only).",
    )

    # --- Bounds on stored and injected text ---------------------------------------------
    max_resident_chars: int = _setting(12_000, "Maximum serialized Resident prompt length (at least 256).")
    max_session_chars: int = _setting(
        40_000,
        "Maximum transcript length a Dream model reads per session (at least 1000); "
        "the offline heuristic reads every line.",
    )
    max_event_chars: int = _setting(16_000, "Maximum length of one stored L0 event text (at least 256).")

    # --- Sharing a scope between processes ----------------------------------------------
    lock_timeout_ms: int = _setting(
        30_000, "How long a read or write waits for another process to let go of the scope's file (at least 0)."
    )
    idle_release_ms: int = _setting(
        500, "How long an idle process keeps the scope's file open before letting go (at least 0).",
    )

    # --- Recall ------------------------------------------------------------------------
    recall_enabled: bool = _setting(False, "Enables query-time recall.")
    recall_vector_enabled: bool = _setting(False, "Enables planner-gated dense recall.")
    recall_raw_evidence_enabled: bool = _setting(True, "Allows bounded raw L0 evidence as a recall channel.")
    recall_observation_enabled: bool = _setting(False, "Allows active observations as a recall channel.")
    recall_graph_enabled: bool = _setting(False, "Enables bounded Wiki graph expansion during recall.")
    recall_max_candidates: int = _setting(8, "Maximum recall results before rendering (1 to 32).")
    recall_max_context_chars: int = _setting(3000, "Maximum rendered recall context length (256 to 16000).")
    lexical_candidate_cap: int = _setting(
        20, "Candidates taken from the lexical channel before fusion (1 to 1000)."
    )
    dense_candidate_cap: int = _setting(8, "Candidates taken from the dense channel before fusion (1 to 1000).")
    rrf_k: int = _setting(60, "Reciprocal-rank-fusion constant k (at least 1).")
    reranker_endpoint: str = _setting(
        "", "Optional /v1/rerank-shaped endpoint; empty means none. HTTPS, or http on a loopback host."
    )
    reranker_timeout_ms: int = _setting(
        5000, "Timeout of one reranker call; on failure RRF order stands (at least 1)."
    )

    # --- Raw-session purge -------------------------------------------------------------
    purge_enabled: bool = _setting(False, "Enables authenticated raw-session purge transactions.")

    # --- Resident, temporal semantics and sensitivity ------------------------------------
    resident_v2_enabled: bool = _setting(True, "Enables the structured Resident projection path.")
    resident_blocks_enabled: bool = _setting(True, "Enables bounded structured Resident blocks.")
    sensitive_resident_enabled: bool = _setting(False, "Allows eligible sensitive pages in Resident output.")
    index_layer_enabled: bool = _setting(
        True, "Renders the index layer beside the Resident: a bounded one-line map of current pages."
    )
    index_layer_max_chars: int = _setting(1600, "Whole-block budget of the index layer (200 to 16000).")
    index_layer_max_entries: int = _setting(40, "Most entries the index layer shows (1 to 500).")
    index_layer_line_chars: int = _setting(72, "Characters of a title one index entry shows (16 to 400).")
    index_layer_stale_days: int = _setting(
        90, "Never-injected pages unwritten for this many days leave the index layer (still recallable); 0 disables."
    )
    temporal_enabled: bool = _setting(True, "Enables temporal validity and historical recall semantics.")
    evidence_classification_enabled: bool = _setting(
        False,
        "Classifies user-origin L0 evidence at capture; off leaves every unmarked event fail-closed sensitive.",
    )
    unclassified_evidence_disclosure: str = _setting(
        "never_explicit",
        "never_explicit or user_explicit_only for unclassified fail-closed evidence; the lower "
        "setting applies only to explicit, user-initiated, topic-matched requests.",
    )

    # --- Observations and reflection ----------------------------------------------------
    min_observation_evidence: int = _setting(
        2, "Minimum distinct valid anchors for an observation candidate (at least 1)."
    )
    observation_activation_min_evidence: int = _setting(
        3, "Minimum distinct evidence anchors for automatic observation activation (at least 1)."
    )
    observation_activation_min_sessions: int = _setting(
        2, "Minimum distinct sessions for automatic observation activation (at least 1)."
    )
    observation_activation_min_confidence: float = _setting(
        0.8, "Minimum confidence for automatic observation activation (0 to 1)."
    )
    reflection_enabled: bool = _setting(False, "Enables Dream reflection that proposes anchored observations.")
    reflection_max_observations: int = _setting(
        3, "Maximum observation proposals accepted from one reflection (at least 1)."
    )
    temporal_reconcile_enabled: bool = _setting(False, "Enables temporal reconciliation in the remember tool.")

    # --- Embeddings ------------------------------------------------------------------
    embedding_provider: str = _setting(
        "local",
        "Embedding provider: off, deterministic (hash, seed-exact), local (embedded multilingual "
        "e5), local-fast (Universal Sentence Encoder) or openai-compatible.",
    )
    embedding_endpoint: str = _setting(
        "", "Endpoint of the openai-compatible provider; required and validated when it is selected."
    )
    embedding_credential_ref: str = _setting(
        "DSH_MEMORY_EMBEDDING_API_KEY",
        "Name of the environment variable holding the embedding API key; the value is never returned.",
    )
    embedding_model: str = _setting(
        "", "Model sent to the openai-compatible provider; required when it is selected."
    )
    embedding_dimension: int = _setting(
        256, "Vector dimension of the deterministic and openai-compatible providers (8 to 4096)."
    )
    embedding_timeout_ms: int = _setting(10_000, "Timeout of one embedding call (1 to 120000).")

    def __post_init__(self) -> None:
        # A frozen config must not be mutable through its token map.
        if isinstance(self.api_tokens, Mapping):
            object.__setattr__(self, "api_tokens", MappingProxyType(dict(self.api_tokens)))
        validate_config(self)

    def replace(self, **changes: Any) -> RikoConfig:
        """A validated copy with ``changes`` applied (snake_case or the seed's camelCase names)."""
        merged = self.to_dict()
        merged.update(_canonical_keys(changes, "replace()"))
        return RikoConfig(**merged)

    def to_dict(self) -> dict[str, Any]:
        """Every field as plain Python values, secrets included; use :func:`safe_view` to display."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["api_tokens"] = dict(self.api_tokens)
        return out

    def __hash__(self) -> int:
        items = self.to_dict()
        items["api_tokens"] = tuple(sorted(items["api_tokens"].items()))
        return hash(tuple(items.values()))

    def __reduce__(self) -> tuple[Any, tuple[dict[str, Any]]]:
        return (_from_dict, (self.to_dict(),))

    def __repr__(self) -> str:
        # Only what differs from the defaults, with token values masked.
        shown = []
        for f in fields(self):
            value = getattr(self, f.name)
            if value == _default_of(f.name):
                continue
            shown.append(f"{f.name}=<set>" if f.name in _SECRET_FIELDS else f"{f.name}={value!r}")
        return f"RikoConfig({', '.join(shown)})"


def _from_dict(values: dict[str, Any]) -> RikoConfig:
    return RikoConfig(**values)


class FieldSpec(NamedTuple):
    """One documented setting: its name, Python type, default and meaning."""

    name: str
    type: type
    default: Any
    doc: str


_PY_TYPES: dict[str, type] = {"str": str, "int": int, "bool": bool, "float": float, "Mapping[str, str]": dict,
                              "str | list[Any]": list}


def _build_fields() -> tuple[FieldSpec, ...]:
    specs = []
    for f in fields(RikoConfig):
        default = f.default_factory() if f.default is MISSING else f.default  # type: ignore[misc,operator]
        specs.append(FieldSpec(f.name, _PY_TYPES[str(f.type)], default, f.metadata["doc"]))
    return tuple(specs)


FIELDS: tuple[FieldSpec, ...] = _build_fields()
_SPEC = {spec.name: spec for spec in FIELDS}

# The seed's live settings, by their original camelCase names (riko.toml accepts both spellings).
SEED_FIELDS: tuple[str, ...] = (
    "ownerNamespace", "apiPath", "apiToken", "apiTokens", "apiTokenProfile", "ownerAdminToken",
    "dreamApiUrl", "dreamCredentialRef", "dreamModel", "dreamMaxTokens", "dreamIntervalMs",
    "debounceMs", "maxResidentChars", "maxSessionChars", "recallEnabled", "recallVectorEnabled",
    "recallRawEvidenceEnabled", "recallObservationEnabled", "recallGraphEnabled", "purgeEnabled",
    "recallMaxCandidates", "recallMaxContextChars", "residentV2Enabled", "residentBlocksEnabled",
    "sensitiveResidentEnabled", "temporalEnabled", "evidenceClassificationEnabled",
    "unclassifiedEvidenceDisclosure", "minObservationEvidence", "observationActivationMinEvidence",
    "observationActivationMinSessions", "observationActivationMinConfidence", "reflectionEnabled",
    "reflectionMaxObservations", "temporalReconcileEnabled", "embeddingProvider",
    "embeddingEndpoint", "embeddingCredentialRef", "embeddingModel", "embeddingDimension",
)  # fmt: skip


def _default_of(name: str) -> Any:
    return _SPEC[name].default


def camel_name(name: str) -> str:
    """The seed's spelling of a snake_case field: ``max_resident_chars`` -> ``maxResidentChars``."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def env_name(name: str) -> str:
    """The environment variable that sets a field: ``max_resident_chars`` -> ``RIKO_MAX_RESIDENT_CHARS``."""
    return ENV_PREFIX + name.upper()


_ALIASES = {camel_name(spec.name): spec.name for spec in FIELDS if camel_name(spec.name) != spec.name}


# --- validation ---------------------------------------------------------------------


def _check_url(name: str, value: object) -> None:
    """The endpoint rule (:func:`riko.endpoints.check_endpoint`) as a config error on ``name``."""
    try:
        check_endpoint(value)
    except EndpointError as exc:
        raise ConfigError(name, f"{name} {exc.reason}") from None


def _check_str(cfg: RikoConfig, name: str) -> str:
    value = getattr(cfg, name)
    if not isinstance(value, str):
        raise ConfigError(name, f"{name} must be a string, not {type(value).__name__}")
    return value


def _check_bool(cfg: RikoConfig, name: str) -> None:
    if not isinstance(getattr(cfg, name), bool):
        raise ConfigError(name, f"{name} must be a boolean (true or false)")


def _check_int(cfg: RikoConfig, name: str, low: int, high: int | None = None) -> None:
    value = getattr(cfg, name)
    ok = isinstance(value, int) and not isinstance(value, bool)
    if ok and value >= low and (high is None or value <= high):
        return
    if high is None:
        raise ConfigError(name, f"{name} must be an integer of at least {low}")
    raise ConfigError(name, f"{name} must be an integer from {low} through {high}")


def _check_enum(cfg: RikoConfig, name: str, allowed: tuple[str, ...]) -> str:
    value = getattr(cfg, name)
    if value not in allowed:
        raise ConfigError(name, f"{name} is invalid: expected one of {', '.join(allowed)}")
    return value


def _check_credential_ref(cfg: RikoConfig, name: str) -> None:
    value = getattr(cfg, name)
    if isinstance(value, str) and looks_like_secret(value):
        # Never echo the value: it is probably the secret itself.
        raise ConfigError(
            name,
            f"{name} must be a credential reference, and this value looks like a secret; "
            "keep the secret in an environment variable and put that variable's name here",
        )
    if not is_credential_ref_name(value):
        raise ConfigError(
            name,
            f"{name} must be a credential reference: an environment variable name such as "
            f"{_default_of(name)} (letters, digits, _ . -; up to 128 characters)",
        )


def _check_profile_id(name: str, value: object, label: str) -> None:
    try:
        validate_profile_id(value, label)
    except ScopeError:
        raise ConfigError(
            name, f"{label}: profile id must contain only letters, numbers, dot, underscore and dash"
        ) from None


def _check_tokens(cfg: RikoConfig) -> None:
    """The seed's authentication rules: one token mode, valid profiles, a distinct admin token."""
    api_token = _check_str(cfg, "api_token")
    profile = _check_str(cfg, "api_token_profile")
    admin = _check_str(cfg, "owner_admin_token")
    tokens = cfg.api_tokens
    if not isinstance(tokens, Mapping):
        raise ConfigError("api_tokens", "api_tokens must be a table of profile id to token")
    for key, token in tokens.items():
        _check_profile_id("api_tokens", key, f"api_tokens key {key!r}")
        if not isinstance(token, str) or not token.strip():
            raise ConfigError("api_tokens", f"api_tokens.{key} must not be empty")
    if len(set(tokens.values())) != len(tokens):
        raise ConfigError("api_tokens", "api_tokens values must be distinct: a token binds exactly one profile")
    if api_token and not api_token.strip():
        raise ConfigError("api_token", "api_token must not be whitespace")
    if api_token and tokens:
        raise ConfigError("api_token", "api_token and api_tokens are mutually exclusive")
    if api_token and not profile:
        raise ConfigError("api_token_profile", "api_token_profile is required when api_token is set")
    if profile and not api_token:
        raise ConfigError("api_token_profile", "api_token_profile requires api_token")
    if profile:
        _check_profile_id("api_token_profile", profile, "api_token_profile")
    if admin and not admin.strip():
        raise ConfigError("owner_admin_token", "owner_admin_token must not be whitespace")
    if admin and (admin == api_token or admin in tokens.values()):
        raise ConfigError("owner_admin_token", "owner_admin_token must be distinct from api_token and api_tokens")


def validate_config(cfg: RikoConfig) -> None:
    """Raise :class:`~riko.errors.ConfigError` naming the first field that breaks a rule."""
    owner = _check_str(cfg, "owner_namespace")
    if not owner.strip():
        raise ConfigError("owner_namespace", "owner_namespace must not be empty")
    _check_profile_id("owner_namespace", owner, "owner_namespace")

    api_path = _check_str(cfg, "api_path")
    if not api_path.startswith("/") or api_path.endswith("/") or "?" in api_path:
        raise ConfigError("api_path", "api_path must be absolute without trailing slash or query")
    _check_tokens(cfg)

    for spec in FIELDS:
        if spec.type is bool:
            _check_bool(cfg, spec.name)
        elif spec.type is str:
            _check_str(cfg, spec.name)

    for name, low, high in _INT_RANGES:
        _check_int(cfg, name, low, high)
    confidence = cfg.observation_activation_min_confidence
    if (
        not isinstance(confidence, (int, float))
        or isinstance(confidence, bool)
        or not math.isfinite(confidence)
        or not 0 <= confidence <= 1
    ):
        raise ConfigError(
            "observation_activation_min_confidence",
            "observation_activation_min_confidence must be between 0 and 1",
        )

    _check_enum(cfg, "candidate_auto_confirm", AUTO_CONFIRM_MODES)
    _check_enum(cfg, "unclassified_evidence_disclosure", DISCLOSURE_MODES)

    chain = dream_chain(cfg.dream_provider)
    _check_url("dream_api_url", cfg.dream_api_url)
    _check_credential_ref(cfg, "dream_credential_ref")
    for n, entry in enumerate(chain):
        where = f"dream_provider[{n}]" if len(chain) > 1 else "dream_provider"
        if entry.url is not None:
            _check_url(f"{where}.url", entry.url)
        if entry.credential_ref is not None and (looks_like_secret(entry.credential_ref)
                                                 or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", entry.credential_ref)):
            raise ConfigError(f"{where}.credential_ref", f"{where}.credential_ref must name an environment variable "
                              "(letters, digits, underscore), not hold a secret")
        if entry.provider != "heuristic" and not (entry.model if entry.model is not None else cfg.dream_model).strip():
            raise ConfigError("dream_model", f"dream_model is required when dream_provider is {entry.provider}")

    embedding_provider = _check_enum(cfg, "embedding_provider", EMBEDDING_PROVIDERS)
    _check_credential_ref(cfg, "embedding_credential_ref")
    if embedding_provider == "openai-compatible":
        if not cfg.embedding_endpoint:
            raise ConfigError(
                "embedding_endpoint", "embedding_endpoint is required when embedding_provider is openai-compatible"
            )
        if not cfg.embedding_model.strip():
            raise ConfigError(
                "embedding_model", "embedding_model is required when embedding_provider is openai-compatible"
            )
    if cfg.embedding_endpoint:
        _check_url("embedding_endpoint", cfg.embedding_endpoint)
    if cfg.reranker_endpoint:
        _check_url("reranker_endpoint", cfg.reranker_endpoint)


# (field, minimum, maximum or None)
_INT_RANGES: tuple[tuple[str, int, int | None], ...] = (
    ("dream_max_tokens", 128, None),
    ("dream_interval_ms", 60_000, None),
    ("debounce_ms", 0, None),
    ("dream_workers", 1, 64),
    ("dream_timeout_ms", 1, None),
    ("max_resident_chars", 256, None),
    ("index_layer_max_chars", 200, 16_000),
    ("index_layer_max_entries", 1, 500),
    ("index_layer_line_chars", 16, 400),
    ("index_layer_stale_days", 0, None),
    ("max_session_chars", 1000, None),
    ("max_event_chars", 256, None),
    ("lock_timeout_ms", 0, None),
    ("idle_release_ms", 0, None),
    ("recall_max_candidates", 1, 32),
    ("recall_max_context_chars", 256, 16_000),
    ("lexical_candidate_cap", 1, 1000),
    ("dense_candidate_cap", 1, 1000),
    ("rrf_k", 1, None),
    ("reranker_timeout_ms", 1, None),
    ("min_observation_evidence", 1, None),
    ("observation_activation_min_evidence", 1, None),
    ("observation_activation_min_sessions", 1, None),
    ("reflection_max_observations", 1, None),
    ("embedding_dimension", 8, 4096),
    ("embedding_timeout_ms", 1, 120_000),
)


@dataclass(frozen=True)
class ChainEntry:
    """One provider of a ``dream_provider`` chain; unset fields fall back to ``dream_api_url``,
    ``dream_model`` and ``dream_credential_ref``."""

    provider: str
    url: str | None = None
    model: str | None = None
    credential_ref: str | None = None


def dream_chain(value: object) -> tuple[ChainEntry, ...]:
    """The providers ``dream_provider`` names, in order: one name, a comma-separated chain
    (``"openai-compatible,heuristic"``), or a list of names and tables
    (``[{provider = "anthropic", url = "…", model = "…", credential_ref = "…"}, "heuristic"]``).
    A bad entry is a :class:`ConfigError` naming its place (``dream_provider[1].model``)."""
    if isinstance(value, str):
        items: list[object] = [part.strip() for part in value.split(",")]
    elif isinstance(value, (list, tuple)):
        items = list(value)
    else:
        raise ConfigError("dream_provider", f"dream_provider must be a provider name, a comma-separated chain or a "
                          f"list, not {type(value).__name__}")
    if not items or items == [""]:
        raise ConfigError("dream_provider", "dream_provider names no provider")
    entries: list[ChainEntry] = []
    for n, item in enumerate(items):
        where = f"dream_provider[{n}]" if len(items) > 1 else "dream_provider"
        if isinstance(item, str):
            fields: dict[str, object] = {"provider": item}
        elif isinstance(item, Mapping):
            fields = {}
            for key, field_value in item.items():
                name = {camel_name(k): k for k in CHAIN_KEYS}.get(str(key), str(key))
                if name not in CHAIN_KEYS:
                    raise ConfigError(f"{where}.{key}", f"{where}.{key} is not a chain field; use "
                                      f"{', '.join(CHAIN_KEYS)}")
                if not isinstance(field_value, str):
                    raise ConfigError(f"{where}.{name}", f"{where}.{name} must be a string, not "
                                      f"{type(field_value).__name__}")
                fields[name] = field_value
        else:
            raise ConfigError(where, f"{where} must be a provider name or a table, not {type(item).__name__}")
        provider = str(fields.get("provider", "")).strip()
        if provider not in DREAM_PROVIDERS:
            raise ConfigError(where if isinstance(item, str) else f"{where}.provider",
                              f"{where} is invalid: expected one of {', '.join(DREAM_PROVIDERS)}")
        entries.append(ChainEntry(provider, *(fields.get(k) for k in CHAIN_KEYS[1:])))  # type: ignore[arg-type]
    return tuple(entries)


def dream_wire_protocol(cfg: RikoConfig) -> str | None:
    """``anthropic-messages``, ``openai-chat-completions``, ``google-generate-content``, or None
    for the heuristic provider: what the first provider of the chain speaks.

    The seed infers the protocol from the URL: ``/anthropic`` at a path boundary means
    Anthropic Messages, a ``models/{model}:generateContent`` path (or Google's host) means
    Google's contract; an explicit provider name always decides.
    """
    first = dream_chain(cfg.dream_provider)[0]
    if first.provider == "heuristic":
        return None
    url = first.url or cfg.dream_api_url
    if first.provider == "anthropic" or re.search(r"/anthropic(?:/|$)", urlsplit(url).path):
        return "anthropic-messages"
    if first.provider == "google" or (first.provider == "auto" and infer_wire_protocol(url) == "google"):
        return "google-generate-content"
    return "openai-chat-completions"


def infer_wire_protocol(url: str) -> str:
    """``anthropic``, ``google`` or ``openai-compatible`` from an endpoint URL's shape."""
    parts = urlsplit(url)
    if re.search(r"(?:^|/)anthropic(?:/|$)", parts.path, re.IGNORECASE):
        return "anthropic"
    if (":generateContent" in parts.path or re.search(r"/models/[^/]+$", parts.path)
            or (parts.hostname or "").endswith("generativelanguage.googleapis.com")):
        return "google"
    return "openai-compatible"


# --- loading ------------------------------------------------------------------------


def _unknown_key(key: object, where: str) -> ConfigError:
    names = [spec.name for spec in FIELDS] + list(_ALIASES)
    close = difflib.get_close_matches(str(key), names, n=1, cutoff=0.8)
    hint = f"; did you mean {_ALIASES.get(close[0], close[0])!r}?" if close else ""
    return ConfigError(str(key), f"{key} is not a riko setting (in {where}){hint}")


def _canonical_keys(values: Mapping[Any, Any], where: str) -> dict[str, Any]:
    """Map snake_case or camelCase keys to field names; reject unknown and doubled keys."""
    out: dict[str, Any] = {}
    for key, value in values.items():
        name = _ALIASES.get(key, key)
        if name not in _SPEC:
            raise _unknown_key(key, where)
        if name in out:
            raise ConfigError(name, f"{name} is given twice in {where} (as {name} and {camel_name(name)})")
        out[name] = value
    return out


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(CONFIG_FILE, f"{CONFIG_FILE}: cannot parse {path}: {exc}") from None
    data.pop("preset", None)  # the root's default preset (riko.root_preset), not a setting
    return _canonical_keys(data, str(path))


_TRUE = {"true", "1", "yes"}
_FALSE = {"false", "0", "no"}


def _parse_env(name: str, var: str, raw: str) -> Any:
    """Turn one environment string into the field's type, or explain which variable is wrong."""
    kind = _SPEC[name].type
    shown = "<hidden>" if name in _SECRET_FIELDS else repr(raw)
    if kind is str:
        return raw
    if kind is list:  # a provider chain: a name, "a,b", or a JSON list of names and tables
        stripped = raw.strip()
        if stripped.startswith("["):
            try:
                return json.loads(stripped)
            except ValueError:
                raise ConfigError(name, f"{name}: environment variable {var} is not a valid JSON list") from None
        return raw
    if kind is bool:
        text = raw.strip().lower()
        if text in _TRUE or text in _FALSE:
            return text in _TRUE
        raise ConfigError(
            name, f"{name}: environment variable {var}={shown} is not a boolean (true/false/1/0/yes/no)"
        )
    if kind is int:
        try:
            return int(raw.strip())
        except ValueError:
            raise ConfigError(name, f"{name}: environment variable {var}={shown} is not an integer") from None
    if kind is float:
        try:
            return float(raw.strip())
        except ValueError:
            raise ConfigError(name, f"{name}: environment variable {var}={shown} is not a number") from None
    try:
        value = json.loads(raw)
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise ConfigError(
            name, f"{name}: environment variable {var} must hold a JSON object of profile id to token"
        )
    return value


#: The command line's short spelling of ``RIKO_OWNER_NAMESPACE``; both name the same setting.
OWNER_ENV = "RIKO_OWNER"


def _read_env(environ: Mapping[str, str]) -> dict[str, tuple[Any, str]]:
    found: dict[str, tuple[Any, str]] = {}
    for spec in FIELDS:
        var = env_name(spec.name)
        if var in environ:
            found[spec.name] = (_parse_env(spec.name, var, environ[var]), var)
    if OWNER_ENV in environ:
        long = found.get("owner_namespace")
        if long is not None and long[0] != environ[OWNER_ENV]:
            raise ScopeError(
                f"environment variables {OWNER_ENV}={environ[OWNER_ENV]!r} and {long[1]}={long[0]!r} name "
                f"different owners; set one of them")
        found["owner_namespace"] = (environ[OWNER_ENV], OWNER_ENV)
    return found


def load_config(
    root: Path | str | None = None,
    overrides: RikoConfig | Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> RikoConfig:
    """Defaults, then ``<root>/riko.toml``, then ``RIKO_<FIELD>`` variables, then ``overrides``.

    ``root`` may also name a TOML file directly; a missing file is simply skipped. A
    :class:`RikoConfig` override contributes the fields it sets away from their defaults, so
    ``load_config(root, RikoConfig(recall_enabled=True))`` keeps the rest of ``riko.toml``.
    ``environ`` defaults to ``os.environ``. Any invalid value raises :class:`ConfigError`
    naming the field and where it came from.
    """
    return _load(root, overrides, environ)[0]


def _load(
    root: Path | str | None,
    overrides: RikoConfig | Mapping[str, Any] | None,
    environ: Mapping[str, str] | None,
) -> tuple[RikoConfig, dict[str, str]]:
    """:func:`load_config`, with where each field that is not a default came from."""
    values: dict[str, Any] = {}
    origin: dict[str, str] = {}
    if root is not None:
        path = Path(root)
        if path.is_dir():
            path = path / CONFIG_FILE
        if path.is_file():
            for name, value in _read_toml(path).items():
                values[name], origin[name] = value, str(path)
    for name, (value, var) in _read_env(os.environ if environ is None else environ).items():
        values[name], origin[name] = value, f"environment variable {var}"
    if isinstance(overrides, RikoConfig):
        explicit = {k: v for k, v in overrides.to_dict().items() if v != _default_of(k)}
    else:
        explicit = _canonical_keys(overrides or {}, "overrides")
    for name, value in explicit.items():
        values[name], origin[name] = value, "overrides"
    try:
        return RikoConfig(**values), origin
    except ConfigError as exc:
        where = origin.get(exc.field)
        if where is None:
            raise
        raise ConfigError(exc.field, f"{exc} (set in {where})") from None


@dataclass(frozen=True)
class OwnerChoice:
    """The owner a scope opens with, where it came from, and what the configuration alone says.

    ``configured`` is ``owner_namespace`` as ``riko serve`` on the same root resolves it; when
    an explicit owner differs from a configured (not default) one, :attr:`conflict` says so.
    """

    owner: str
    source: str
    configured: str
    configured_source: str

    @property
    def conflict(self) -> str | None:
        """A one-line explanation when the explicit owner leaves the configured scope, else None."""
        if self.source != "argument" or self.configured_source == "default" or self.configured == self.owner:
            return None
        return (f"owner {self.owner!r} given explicitly differs from owner_namespace {self.configured!r} set in "
                f"{self.configured_source}: this opens the {self.owner}:<preset> scope, while `riko serve` and "
                f"commands without --owner on this root use {self.configured}:<preset>")


def resolve_owner(
    root: Path | str | None,
    owner: str | None = None,
    *,
    overrides: RikoConfig | Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> OwnerChoice:
    """The one rule for a scope's owner: the explicit ``owner`` argument (``riko.open(owner=)``,
    ``--owner``), else ``owner_namespace`` from ``overrides``, the environment (``RIKO_OWNER`` or
    ``RIKO_OWNER_NAMESPACE``) or ``<root>/riko.toml``, else ``"local"``.

    Used by :func:`riko.open`, every command and ``riko serve``, so one configuration is one scope.
    """
    cfg, origin = _load(root, overrides, environ)
    configured, configured_source = cfg.owner_namespace, origin.get("owner_namespace", "default")
    if owner is None:
        return OwnerChoice(configured, configured_source, configured, configured_source)
    validate_profile_id(owner, "owner")
    return OwnerChoice(owner, "argument", configured, configured_source)


def safe_view(cfg: RikoConfig) -> dict[str, Any]:
    """The settings that may be shown to a client, like the seed's ``configResponse()``.

    Owner namespace and every token are left out; ``owner_admin_configured`` reports whether
    an admin token exists; credential references appear as names only.
    """
    view: dict[str, Any] = {}
    for spec in FIELDS:
        if spec.name in _PRIVATE_FIELDS:
            continue
        if spec.name == "api_token_profile" and not cfg.api_token_profile:
            continue
        view[spec.name] = getattr(cfg, spec.name)
    view["owner_admin_configured"] = bool(cfg.owner_admin_token)
    return view


# --- documentation ------------------------------------------------------------------

_TYPE_LABELS = {str: "string", int: "integer", bool: "boolean", float: "number", dict: "table",
                list: "string or list"}


def _toml_literal(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, Mapping):
        return "{}" if not value else json.dumps(dict(value))
    return json.dumps(value)


def config_table_markdown() -> str:
    """Every setting as a Markdown table: field, type, default (TOML syntax), variable, meaning."""
    lines = [
        "| Field | Type | Default | Environment | Meaning |",
        "| --- | --- | --- | --- | --- |",
    ]
    for spec in FIELDS:
        doc = spec.doc.replace("|", "\\|")
        lines.append(
            f"| `{spec.name}` | {_TYPE_LABELS[spec.type]} | `{_toml_literal(spec.default)}` "
            f"| `{env_name(spec.name)}` | {doc} |"
        )
    return "\n".join(lines) + "\n"


DOCS_START = "<!-- riko-config-fields:start -->"
DOCS_END = "<!-- riko-config-fields:end -->"


def _update_docs(path: Path) -> None:
    """Rewrite the generated field table between the markers of a docs page."""
    text = path.read_text(encoding="utf-8")
    head, _, rest = text.partition(DOCS_START + "\n")
    _, _, tail = rest.partition(DOCS_END)
    path.write_text(head + DOCS_START + "\n" + config_table_markdown() + DOCS_END + tail, encoding="utf-8")


if __name__ == "__main__":  # python -m riko.config docs/configuration.md
    if len(sys.argv) > 1:
        _update_docs(Path(sys.argv[1]))
    else:
        sys.stdout.write(config_table_markdown())
