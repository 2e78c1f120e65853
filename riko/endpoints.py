"""The rules for where riko may send requests and how it names credentials.

One module for config validation, the HTTP clients (Dream, embeddings, reranker) and the
server: an endpoint is an absolute http(s) URL, HTTPS unless the host is loopback, with no
credential inside; a credential reference is an environment variable name, never a secret.
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import parse_qsl, urlsplit

__all__ = ["EndpointError", "check_endpoint", "is_loopback_host", "is_credential_ref_name", "looks_like_secret",
           "secret_key_name", "public_endpoint"]

_CREDENTIAL_REF = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,127}")
_SECRET_SHAPED = re.compile(r"(?:sk|pk|rk|token|bearer)-[A-Za-z0-9][A-Za-z0-9_-]*", re.IGNORECASE)
_CREDENTIAL_QUERY_KEYS = frozenset(
    {"key", "api_key", "apikey", "api-key", "token", "access_token", "secret", "password"}
)
_SECRET_KEY_WORDS = ("apikey", "secret", "password", "token", "bearer", "authorization", "privatekey", "accesskey")


class EndpointError(ValueError):
    """An endpoint URL breaks the rule; ``reason`` is a short phrase safe to show (no URL)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


def is_loopback_host(host: str | None) -> bool:
    """True for ``localhost`` (and ``*.localhost``), 127.0.0.0/8 and ``::1`` (brackets allowed).

    The one loopback rule: plain HTTP and token-less serving are allowed only to such hosts.
    """
    if not host:
        return False
    host = host.strip("[]").casefold().rstrip(".")
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def looks_like_secret(value: str) -> bool:
    """True for secret-shaped strings (``sk-``, ``pk-``, ``rk-``, ``token-``, ``bearer-`` + a tail)."""
    return bool(_SECRET_SHAPED.fullmatch(value.strip()))


def is_credential_ref_name(value: object) -> bool:
    """True when ``value`` can name an environment variable and does not look like a secret."""
    return isinstance(value, str) and bool(_CREDENTIAL_REF.fullmatch(value)) and not looks_like_secret(value)


def secret_key_name(key: str) -> bool:
    """True for a setting *name* that asks for a secret (``apiKey``, ``dream_api_key``, ``password``…)."""
    folded = str(key).lower().replace("_", "").replace("-", "")
    return any(word in folded for word in _SECRET_KEY_WORDS)


def check_endpoint(value: object) -> str:
    """The endpoint rule; returns the URL or raises :class:`EndpointError` saying what is wrong."""
    if not isinstance(value, str) or not value.strip() or any(ch.isspace() or ord(ch) < 32 for ch in value.strip()):
        raise EndpointError("must be a valid HTTPS URL")
    url = value.strip()
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError:
        raise EndpointError("must be a valid HTTPS URL") from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        raise EndpointError("must be a valid HTTPS URL")
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise EndpointError("must not contain an embedded credential; name the secret through its credential reference")
    for key, val in parse_qsl(parts.query, keep_blank_values=True):
        if key.lower() in _CREDENTIAL_QUERY_KEYS or looks_like_secret(val):
            raise EndpointError(f"must not contain an embedded credential (query parameter {key!r}); "
                                "name the secret through its credential reference")
    if scheme == "http" and not is_loopback_host(parts.hostname):
        raise EndpointError("must use HTTPS (plain http is allowed only for localhost, 127.0.0.0/8 and ::1)")
    return url


def public_endpoint(url: str) -> str:
    """The endpoint without query or fragment, safe to show in messages."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{parts.path}"
