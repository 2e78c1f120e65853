"""Dream providers that call a language model over HTTP.

Two wire shapes are spoken: OpenAI-compatible chat completions and Anthropic messages.
The credential is read from the environment variable named by ``credential_ref`` on every
call and lives only for that call: it is never stored on the provider, never put in a URL,
a log line or an error. Every failure is a :class:`~riko.errors.ProviderError` with a short
reason code (``timeout``, ``http-429`` ...) and a sanitized message.
"""

from __future__ import annotations

import math
import os
import re
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from ..config import infer_wire_protocol
from ..endpoints import EndpointError, check_endpoint, is_credential_ref_name
from ..endpoints import is_loopback_host as _is_loopback
from ..errors import ConfigError, ProviderError
from .prompt import DEFAULT_MAX_PAGES, KnownPage, build_extraction_prompt, build_reflection_prompt, prompt_key
from .reflection import ReflectionRequest
from .sanitize import sanitize_error
from .transcript import Transcript

__all__ = [
    "OpenAICompatibleProvider",
    "AnthropicProvider",
    "GoogleProvider",
    "resolve_endpoint",
    "endpoint_for",
    "validate_endpoint_url",
    "is_credential_ref_name",
    "ANTHROPIC_VERSION",
    "MAX_TIMEOUT_MS",
]

ANTHROPIC_VERSION = "2023-06-01"
MAX_TIMEOUT_MS = 120_000
REFLECTION_TIMEOUT_MS = 60_000
_ANTHROPIC_PATH = re.compile(r"(?:^|/)anthropic(?:/|$)", re.IGNORECASE)
_MAX_RETRY_WAIT_S = 5.0
_BODY_SNIPPET = 200


def validate_endpoint_url(url: str, field: str = "dream_api_url") -> None:
    """The endpoint rule of :mod:`riko.endpoints` as a config error on ``field``."""
    try:
        check_endpoint(url)
    except EndpointError as exc:
        raise ConfigError(field, exc.reason) from None


def _infer_protocol(url: str) -> str:
    return infer_wire_protocol(url)


def endpoint_for(protocol: str, url: str, model: str = "") -> str:
    """The full request URL for ``protocol`` from a configured base or endpoint URL.

    Anthropic: append ``/v1/messages`` unless the path ends with it; a path ending in ``/v1``
    gets ``/messages``. OpenAI-compatible: append ``/v1/chat/completions`` unless the path ends
    with ``/chat/completions``; a path ending in ``/v1`` gets ``/chat/completions`` (so a
    ``https://host/api/v1`` base does not become ``/api/v1/v1/...``). Google: a path with
    ``:generateContent`` is the endpoint (``{model}`` in it is filled in), a path ending in
    ``/models/<m>`` gets ``:generateContent``, any other base gets ``/models/<model>:generateContent``.
    """
    parts = urlsplit(url)
    path = parts.path.rstrip("/")
    if protocol == "google":
        path = path.replace("{model}", model).replace("%7Bmodel%7D", model)
        if ":generateContent" not in path:
            path += ":generateContent" if re.search(r"/models/[^/]+$", path) else f"/models/{model}:generateContent"
    elif protocol == "anthropic":
        if not path.endswith("/v1/messages"):
            path += "/messages" if path.endswith("/v1") else "/v1/messages"
    elif protocol == "openai-compatible":
        if not path.endswith("/chat/completions"):
            path += "/chat/completions" if path.endswith("/v1") else "/v1/chat/completions"
    elif protocol != "google":
        raise ConfigError("dream_provider", f"unknown wire protocol {protocol!r}")
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def resolve_endpoint(url: str) -> tuple[str, str]:
    """``(protocol, endpoint)`` inferred from the URL: ``/anthropic`` as a path segment means
    ``"anthropic"`` (Messages), a ``models/...:generateContent`` path or Google's host
    ``"google"``, anything else ``"openai-compatible"`` (Chat Completions).

    >>> resolve_endpoint("https://api.example.com/anthropic")
    ('anthropic', 'https://api.example.com/anthropic/v1/messages')
    >>> resolve_endpoint("https://api.example.com")
    ('openai-compatible', 'https://api.example.com/v1/chat/completions')
    """
    validate_endpoint_url(url)
    protocol = _infer_protocol(url)
    return protocol, endpoint_for(protocol, url)


def _text_parts(value: Any) -> str:
    """Concatenated text of a string or of a list of ``{"type": "text", "text": ...}`` parts."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(
            part["text"]
            for part in value
            if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)
        )
    return ""


_CLIENT_GUARD = threading.Lock()
# In a worker process (riko.executor) every task unpickles its own provider: they share one
# pooled client per host instead of paying for a new one per task.
_PROCESS_CLIENTS: dict[tuple[str, bool], httpx.Client] = {}


class _HTTPProvider(ABC):
    """Shared request loop: credential lookup, one retry on 429, failure classification."""

    name = ""
    empty_answer_ok = False

    def __init__(
        self,
        url: str,
        model: str,
        credential_ref: str,
        max_tokens: int = 1200,
        timeout_ms: int = MAX_TIMEOUT_MS,
        environ: Mapping[str, str] | None = None,
        *,
        max_pages: int = DEFAULT_MAX_PAGES,
        max_transcript_chars: int = 40_000,
        reflection_timeout_ms: int = REFLECTION_TIMEOUT_MS,
        retry_delay_ms: int = 1_000,
    ) -> None:
        validate_endpoint_url(url)
        if not isinstance(model, str) or not model.strip():
            raise ConfigError("dream_model", "must be a non-empty model name")
        if not isinstance(credential_ref, str) or not is_credential_ref_name(credential_ref):
            # The rejected value is not echoed: it may be a pasted secret.
            raise ConfigError(
                "dream_credential_ref",
                "must name an environment variable (letters, digits, underscore), not hold a secret",
            )
        if max_tokens < 1:
            raise ConfigError("dream_max_tokens", "must be a positive integer")
        if not 0 < timeout_ms <= MAX_TIMEOUT_MS or not 0 < reflection_timeout_ms <= MAX_TIMEOUT_MS:
            raise ConfigError("dream_timeout_ms", f"must be between 1 and {MAX_TIMEOUT_MS} ms")
        self.url = url
        self.model = model.strip()
        self.endpoint = endpoint_for(self.name, url, self.model)
        self.credential_ref = credential_ref
        self.max_tokens = int(max_tokens)
        self.timeout_ms = int(timeout_ms)
        self.reflection_timeout_ms = int(reflection_timeout_ms)
        self.max_pages = max_pages
        self.max_transcript_chars = max_transcript_chars
        self.retry_delay_ms = retry_delay_ms
        self._environ = environ
        self._host = urlsplit(url).hostname or ""

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(endpoint={self.endpoint!r}, model={self.model!r}, "
            f"credential_ref={self.credential_ref!r})"
        )

    @abstractmethod
    def _headers(self, credential: str) -> dict[str, str]:
        """Request headers of this wire shape, carrying ``credential``."""

    @abstractmethod
    def _body(self, prompt: str) -> dict[str, Any]:
        """JSON request body of this wire shape."""

    @abstractmethod
    def _assistant_text(self, data: dict[str, Any]) -> str:
        """The assistant text of a decoded answer, or "" when there is none."""

    # public surface
    #: The runner passes the existing pages about the conversation's people and things.
    reads_existing_pages = True

    def prompt_for(self, transcript: Transcript, existing_titles: Sequence[str] = (),
                   existing_pages: Sequence[KnownPage] = ()) -> str:
        """The exact extraction prompt this provider would send for ``transcript`` (its lines
        numbered, so the model can cite the turns a fact comes from)."""
        text = transcript.render(self.max_transcript_chars, numbered=True)
        return build_extraction_prompt(text, existing_titles, max_pages=self.max_pages, existing_pages=existing_pages)

    def request_key(self, transcript: Transcript, existing_titles: Sequence[str] = (),
                    existing_pages: Sequence[KnownPage] = ()) -> str:
        """Answer-cache key: SHA-256 of provider name, model and prompt."""
        return prompt_key(self.name, self.model, self.prompt_for(transcript, existing_titles, existing_pages))

    def reflection_key(self, request: ReflectionRequest) -> str:
        """Answer-cache key of a reflection request."""
        return prompt_key(self.name, self.model, build_reflection_prompt(request))

    def extract(self, transcript: Transcript, *, existing_titles: Sequence[str] = (),
                existing_pages: Sequence[KnownPage] = ()) -> str:
        """Ask the model for FILE blocks about ``transcript``; returns its text unparsed."""
        return self._complete(self.prompt_for(transcript, existing_titles, existing_pages), self.timeout_ms)

    def complete(self, prompt: str) -> str:
        """The assistant text for one user message ``prompt`` (used by answer-side evaluation)."""
        return self._complete(prompt, self.timeout_ms)

    def reflect(self, request: ReflectionRequest) -> str:
        """Ask the model for one JSON object of observations; failures are ``reflection-*``."""
        try:
            return self._complete(build_reflection_prompt(request), self.reflection_timeout_ms)
        except ProviderError as exc:
            failure = exc
        raise ProviderError(f"reflection-{failure.reason}", str(failure).split(": ", 1)[-1])

    # transport
    def _credential(self) -> str:
        environ = os.environ if self._environ is None else self._environ
        value = environ.get(self.credential_ref, "")
        if not value or not value.strip():
            raise ProviderError(
                "credential-unconfigured",
                f"environment variable {self.credential_ref} is not set; export it before running Dream",
            )
        return value.strip()

    def _complete(self, prompt: str, timeout_ms: int) -> str:
        credential = self._credential()
        reason, message = self._exchange(prompt, timeout_ms, credential)
        if reason:
            # Raised outside any except block: no httpx exception (whose request carries the
            # credential header) is chained onto the error.
            raise ProviderError(reason, sanitize_error(message, [credential]))
        return message

    def _exchange(self, prompt: str, timeout_ms: int, credential: str) -> tuple[str, str]:
        """``("", text)`` on success, ``(reason, message)`` on failure."""
        headers = self._headers(credential)
        body = self._body(prompt)
        timeout = httpx.Timeout(timeout_ms / 1000)
        for attempt in (1, 2):
            outcome = self._post(headers, body, timeout, timeout_ms)
            if isinstance(outcome, tuple):
                return outcome
            response = outcome
            if response.status_code == 429 and attempt == 1:
                time.sleep(self._retry_wait(response))
                continue
            if not 200 <= response.status_code < 300:
                snippet = " ".join(response.text[:_BODY_SNIPPET].split())
                return f"http-{response.status_code}", f"{self._host} answered HTTP {response.status_code}: {snippet}"
            return self._read(response)
        return "http-429", f"{self._host} answered HTTP 429"

    def _post(
        self, headers: dict[str, str], body: dict[str, Any], timeout: httpx.Timeout, timeout_ms: int
    ) -> httpx.Response | tuple[str, str]:
        failure: tuple[str, str] | None = None
        try:
            response = self._client().post(self.endpoint, headers=headers, json=body, timeout=timeout)
        except httpx.TimeoutException:
            failure = ("timeout", f"no answer from {self._host} within {timeout_ms} ms")
        except httpx.HTTPError as exc:
            failure = ("network-error", f"could not reach {self._host} ({type(exc).__name__})")
        return failure if failure is not None else response

    def _client(self) -> httpx.Client:
        """One pooled client per provider (thread-safe); building one per call costs ~40 ms of CPU."""
        client = self.__dict__.get("_http_client")
        if client is None:
            with _CLIENT_GUARD:
                client = self.__dict__.get("_http_client")
                if client is None:
                    shared = self.__dict__.get("_process_client", False)
                    key = (self._host, not _is_loopback(self._host))
                    client = _PROCESS_CLIENTS.get(key) if shared else None
                    if client is None:
                        client = httpx.Client(trust_env=key[1], follow_redirects=False,
                                              limits=httpx.Limits(max_connections=64, max_keepalive_connections=16))
                        if shared:
                            _PROCESS_CLIENTS[key] = client
                    self.__dict__["_http_client"] = client
        return client

    def __getstate__(self) -> dict[str, Any]:
        """Picklable for a worker process (riko.executor): the pooled client stays behind, and so does
        an explicit ``environ`` mapping, so no credential value travels; the worker reads its own."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("_http_client", "_process_client")}
        state["_environ"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state, _process_client=True)

    def close(self) -> None:
        """Release pooled connections (also done when the provider is garbage-collected)."""
        client = self.__dict__.pop("_http_client", None)
        if client is not None and not self.__dict__.get("_process_client"):
            client.close()

    def _retry_wait(self, response: httpx.Response) -> float:
        wait = self.retry_delay_ms / 1000
        header = response.headers.get("retry-after", "")
        try:
            asked = float(header)
        except ValueError:
            return wait
        return min(max(asked, 0.0), _MAX_RETRY_WAIT_S) if math.isfinite(asked) else wait

    def _read(self, response: httpx.Response) -> tuple[str, str]:
        try:
            data = response.json()
        except ValueError:
            return "invalid-json", f"{self._host} answered with a body that is not JSON"
        if not isinstance(data, dict):
            return "invalid-json", f"{self._host} answered with JSON that is not an object"
        text = self._assistant_text(data)
        if not text.strip():
            return "empty-content", f"{self._host} answered without assistant text"
        return "", text


class OpenAICompatibleProvider(_HTTPProvider):
    """Chat Completions: ``Authorization: Bearer``, one user message, temperature 0.1.

    >>> p = OpenAICompatibleProvider("https://api.example.com/v1", "m", "DREAM_KEY")
    >>> p.endpoint
    'https://api.example.com/v1/chat/completions'
    """

    name = "openai-compatible"

    def _headers(self, credential: str) -> dict[str, str]:
        return {
            "Authorization": f"Bearer {credential}",
            "Content-Type": "application/json",
            "Accept": "application/json",
        }

    def _body(self, prompt: str) -> dict[str, Any]:
        return {
            "model": self.model,
            "messages": [{"role": "user", "content": prompt}],
            "temperature": 0.1,
            "max_tokens": self.max_tokens,
        }

    def _assistant_text(self, data: dict[str, Any]) -> str:
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            return ""
        message = choices[0].get("message")
        return _text_parts(message.get("content")) if isinstance(message, dict) else ""


class AnthropicProvider(_HTTPProvider):
    """Messages API: ``x-api-key`` and ``anthropic-version: 2023-06-01``; thinking disabled.

    The seed names the key header ``api-key``; Anthropic-compatible servers read
    ``x-api-key``, so that is what is sent. Only ``text`` content blocks are read; thinking
    and tool-use blocks are ignored.
    """

    name = "anthropic"

    def _headers(self, credential: str) -> dict[str, str]:
        return {
            "x-api-key": credential,
            "anthropic-version": ANTHROPIC_VERSION,
            "Content-Type": "application/json",
            "Accept": "application/json",
        }

    def _body(self, prompt: str) -> dict[str, Any]:
        return {
            "model": self.model,
            "messages": [{"role": "user", "content": prompt}],
            "temperature": 0.1,
            "max_tokens": self.max_tokens,
            "stream": False,
            "thinking": {"type": "disabled"},
        }

    def _assistant_text(self, data: dict[str, Any]) -> str:
        return _text_parts(data.get("content"))


#: Finish reasons of a Google candidate that mean the answer was withheld, not completed.
_GOOGLE_BLOCKED = frozenset({"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "LANGUAGE"})


class GoogleProvider(_HTTPProvider):
    """Google's native ``models/{model}:generateContent``: the key in ``x-goog-api-key`` (never in
    the URL), one user turn, temperature 0.1; a safety block is ``safety-blocked``.

    >>> GoogleProvider("https://generativelanguage.googleapis.com/v1beta", "gemini-2.0-flash", "KEY").endpoint
    'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:generateContent'
    """

    name = "google"

    def _headers(self, credential: str) -> dict[str, str]:
        return {"x-goog-api-key": credential, "Content-Type": "application/json", "Accept": "application/json"}

    def _body(self, prompt: str) -> dict[str, Any]:
        return {
            "contents": [{"role": "user", "parts": [{"text": prompt}]}],
            "generationConfig": {"temperature": 0.1, "maxOutputTokens": self.max_tokens},
        }

    def _assistant_text(self, data: dict[str, Any]) -> str:
        candidates = data.get("candidates")
        if not isinstance(candidates, list) or not candidates or not isinstance(candidates[0], dict):
            return ""
        content = candidates[0].get("content")
        parts = content.get("parts") if isinstance(content, dict) else None
        if not isinstance(parts, list):
            return ""
        # "thought" parts are the model's reasoning, not its answer
        return "".join(p["text"] for p in parts
                       if isinstance(p, dict) and isinstance(p.get("text"), str) and not p.get("thought"))

    def _read(self, response: httpx.Response) -> tuple[str, str]:
        try:
            data = response.json()
        except ValueError:
            data = None
        if isinstance(data, dict):
            feedback = data.get("promptFeedback")
            blocked = feedback.get("blockReason") if isinstance(feedback, dict) else None
            if blocked:
                return "safety-blocked", f"{self._host} blocked the prompt ({_short(blocked)})"
            candidates = data.get("candidates")
            first = candidates[0] if isinstance(candidates, list) and candidates else None
            finish = first.get("finishReason") if isinstance(first, dict) else None
            if finish in _GOOGLE_BLOCKED and not self._assistant_text(data).strip():
                return "safety-blocked", f"{self._host} withheld the answer (finishReason {finish})"
        return super()._read(response)


def _short(value: Any) -> str:
    return str(value)[:40]
