"""Dream providers: the protocol every provider meets, the factory, and the fallback chain.

A provider turns a transcript into FILE-protocol text (``extract``) and a reflection request
into one JSON object (``reflect``). It never parses or stores anything itself, so the same
strict parser judges an offline heuristic and a remote model alike.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from ..config import dream_chain
from ..errors import ConfigError, ProviderError
from .heuristic import HeuristicProvider
from .http_providers import (
    AnthropicProvider,
    GoogleProvider,
    OpenAICompatibleProvider,
    endpoint_for,
    is_credential_ref_name,
    resolve_endpoint,
    validate_endpoint_url,
)
from .prompt import KnownPage
from .protocol import parse_file_blocks
from .reflection import ReflectionRequest
from .transcript import Transcript

__all__ = [
    "DreamProvider",
    "HeuristicProvider",
    "OpenAICompatibleProvider",
    "AnthropicProvider",
    "ProviderChain",
    "make_provider",
    "resolve_endpoint",
    "endpoint_for",
    "validate_endpoint_url",
    "is_credential_ref_name",
    "PROVIDER_NAMES",
    "SWITCHING_REASONS",
    "provider_from_chain",
]

PROVIDER_NAMES = ("heuristic", "openai-compatible", "anthropic", "google", "auto")
_ALIASES = {"openai-chat-completions": "openai-compatible", "openai": "openai-compatible",
            "anthropic-messages": "anthropic", "gemini": "google", "google-generate-content": "google"}
# Failures after which a chain moves on to its next provider; anything else (400/401/403,
# a missing credential, unexpected JSON) stops the chain, because the next attempt would
# fail the same way or hide a configuration error.
SWITCHING_REASONS = frozenset({"network-error", "timeout", "http-429", "invalid-file-protocol", "empty-content",
                               "safety-blocked"})


@runtime_checkable
class DreamProvider(Protocol):
    """What the Dream runner needs from a provider."""

    name: str
    model: str

    def extract(self, transcript: Transcript, *, existing_titles: Sequence[str] = ()) -> str:
        """FILE-protocol text proposing pages about ``transcript``."""
        ...

    def reflect(self, request: ReflectionRequest) -> str:
        """Text of one JSON object ``{"observations": [...]}``."""
        ...

    def request_key(self, transcript: Transcript, existing_titles: Sequence[str] = ()) -> str:
        """SHA-256 of (provider name, model, prompt): the key of the answer cache."""
        ...


def reads_existing_pages(provider: Any) -> bool:
    """Whether ``provider`` takes ``existing_pages`` (a provider without it still meets the protocol)."""
    return bool(getattr(provider, "reads_existing_pages", False))


def extract(provider: Any, transcript: Transcript, titles: Sequence[str] = (),
            pages: Sequence[KnownPage] = ()) -> str:
    """``provider.extract``, with the existing pages when it reads them."""
    if pages and reads_existing_pages(provider):
        return str(provider.extract(transcript, existing_titles=titles, existing_pages=pages))
    return str(provider.extract(transcript, existing_titles=titles))


def request_key(provider: Any, transcript: Transcript, titles: Sequence[str] = (),
                pages: Sequence[KnownPage] = ()) -> str:
    """``provider.request_key``, with the existing pages when it reads them."""
    if pages and reads_existing_pages(provider):
        return str(provider.request_key(transcript, titles, pages))
    return str(provider.request_key(transcript, titles))


def _switches(reason: str) -> bool:
    reason = reason.removeprefix("reflection-")
    return reason in SWITCHING_REASONS or (reason.startswith("http-5") and len(reason) == 8)


class ProviderChain:
    """Try providers in order; move on after a network error, timeout, 429/5xx or invalid FILE answer.

    An extraction answer is checked with the strict parser before it is accepted, so a model
    that answers with prose hands over to the next provider. The error of the last provider
    tried is raised when none succeeds.
    """

    def __init__(self, providers: Sequence[DreamProvider], *, max_pages: int = 12) -> None:
        if not providers:
            raise ConfigError("dream_provider", "a provider chain needs at least one provider")
        self.providers = tuple(providers)
        self.max_pages = max_pages
        self.name = "chain:" + ",".join(p.name for p in self.providers)
        self.model = ",".join(p.model for p in self.providers)
        # A blank answer only ever comes back from a provider that allows one.
        self.empty_answer_ok = any(getattr(p, "empty_answer_ok", False) for p in self.providers)
        # Every switch to the next provider, per session, until the runner takes it for the job.
        self._fallbacks: dict[str, list[dict[str, str]]] = {}
        self._fallback_lock = threading.Lock()

    def _fell_back(self, session_id: str, provider: Any, reason: str, index: int) -> None:
        after = self.providers[index + 1].name if index + 1 < len(self.providers) else None
        with self._fallback_lock:
            self._fallbacks.setdefault(session_id, []).append(
                {"from": provider.name, "reason": reason, "to": after or "none"})

    def take_fallbacks(self, session_id: str) -> list[dict[str, str]]:
        """The switches made for ``session_id`` since the last call (``from``, ``reason``, ``to``)."""
        with self._fallback_lock:
            return self._fallbacks.pop(session_id, [])

    def __repr__(self) -> str:
        return f"ProviderChain({list(self.providers)!r})"

    @property
    def reads_existing_pages(self) -> bool:
        return any(reads_existing_pages(p) for p in self.providers)

    def request_key(self, transcript: Transcript, existing_titles: Sequence[str] = (),
                    existing_pages: Sequence[KnownPage] = ()) -> str:
        keys = ",".join(request_key(p, transcript, existing_titles, existing_pages) for p in self.providers)
        return hashlib.sha256(f"{self.name}|{keys}".encode()).hexdigest()

    def extract(self, transcript: Transcript, *, existing_titles: Sequence[str] = (),
                existing_pages: Sequence[KnownPage] = ()) -> str:
        last: ProviderError | None = None
        for index, provider in enumerate(self.providers):
            try:
                text = extract(provider, transcript, existing_titles, existing_pages)
                allow_empty = bool(getattr(provider, "empty_answer_ok", False))
                parse_file_blocks(text, max_pages=self.max_pages, allow_empty=allow_empty)
            except ProviderError as exc:
                last = exc
                if not _switches(exc.reason):
                    break
                self._fell_back(transcript.session_id, provider, exc.reason, index)
                continue
            return text
        assert last is not None
        raise last

    def reflect(self, request: ReflectionRequest) -> str:
        last: ProviderError | None = None
        for index, provider in enumerate(self.providers):
            try:
                return provider.reflect(request)
            except ProviderError as exc:
                last = exc
                if not _switches(exc.reason):
                    break
                self._fell_back(getattr(request, "session_id", ""), provider, f"reflection-{exc.reason}", index)
        assert last is not None
        raise last


def make_provider(
    name: str,
    *,
    url: str = "",
    model: str = "",
    credential_ref: str = "",
    max_tokens: int = 1200,
    timeout_ms: int = 120_000,
    environ: Mapping[str, str] | None = None,
) -> DreamProvider:
    """Build the provider called ``name``.

    ``"heuristic"`` needs nothing else; ``"openai-compatible"`` and ``"anthropic"`` need the
    URL, model and credential reference; ``"auto"`` picks between those two from the URL
    (``/anthropic`` as a path segment means Anthropic Messages).

    >>> make_provider("auto", url="https://api.example.com/anthropic", model="m",
    ...               credential_ref="DREAM_KEY").name
    'anthropic'
    """
    key = _ALIASES.get(name, name)
    if key == "heuristic":
        return HeuristicProvider()
    if key == "auto":
        validate_endpoint_url(url)
        key = resolve_endpoint(url)[0]
    classes: dict[str, type[OpenAICompatibleProvider | AnthropicProvider | GoogleProvider]] = {
        "openai-compatible": OpenAICompatibleProvider, "anthropic": AnthropicProvider, "google": GoogleProvider}
    if key not in classes:
        raise ConfigError("dream_provider", f"unknown provider {name!r}; choose one of {', '.join(PROVIDER_NAMES)}")
    return classes[key](url, model, credential_ref, max_tokens=max_tokens, timeout_ms=timeout_ms, environ=environ)


def provider_from_chain(
    value: Any,
    *,
    url: str = "",
    model: str = "",
    credential_ref: str = "",
    max_tokens: int = 1200,
    timeout_ms: int = 120_000,
    environ: Mapping[str, str] | None = None,
) -> DreamProvider:
    """The provider (or :class:`ProviderChain`) a ``dream_provider`` value names: one name, a
    comma-separated chain, or a list of names and ``{provider, url, model, credential_ref}``
    tables (see :func:`riko.config.dream_chain`); unset entry fields take the given defaults."""
    entries = dream_chain(value)
    providers = [make_provider(e.provider, url=e.url or url, model=e.model or model,
                               credential_ref=e.credential_ref or credential_ref, max_tokens=max_tokens,
                               timeout_ms=timeout_ms, environ=environ) for e in entries]
    return providers[0] if len(providers) == 1 else ProviderChain(providers)
