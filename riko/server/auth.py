"""Who is calling and for which scope: the seed's four authentication modes.

=====================  ==========================================================================
owner admin token      bearer = ``owner_admin_token`` and a profile header: owner admin of that scope
token map              bearer = one ``api_tokens`` value; the profile header must be its key
single token           bearer = ``api_token``; the profile header must be ``api_token_profile``
loopback header-only   no token configured, loopback host and client: the profile header alone
=====================  ==========================================================================

Tokens are compared in constant time and never appear in a response or an error message.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Mapping

from ..config import is_loopback_host
from ..config import RikoConfig
from ..errors import ConfigError, ScopeError
from ..scope import validate_profile_id
from .wire import ApiError

__all__ = [
    "PROFILE_HEADERS",
    "Principal",
    "AuthPolicy",
    "is_loopback_host",
    "scope_binding",
    "check_startable",
]

#: The seed's profile header first; riko's own spelling is accepted too.
PROFILE_HEADERS = ("x-dsh-memory-profile", "x-riko-profile")


@dataclass(frozen=True)
class Principal:
    """An authenticated caller: the scope's profile, and whether it holds owner admin."""

    profile: str
    owner_admin: bool
    mode: str  # owner-admin | token-map | single-token | loopback-header




def _any_token(cfg: RikoConfig) -> bool:
    return bool(cfg.api_token or cfg.api_tokens or cfg.owner_admin_token)


def scope_binding(cfg: RikoConfig) -> str:
    """``profile+owner-admin``, ``profile`` or ``owner-admin``, from the configured credentials."""
    profile_bound = bool(cfg.api_token or cfg.api_tokens)
    if profile_bound and cfg.owner_admin_token:
        return "profile+owner-admin"
    if cfg.owner_admin_token:
        return "owner-admin"
    return "profile"


def check_startable(cfg: RikoConfig, host: str) -> None:
    """Refuse to serve a non-loopback host when no token of any kind is configured."""
    if not is_loopback_host(host) and not _any_token(cfg):
        raise ConfigError(
            "api_token",
            f"api_token: refusing to serve on non-loopback host {host!r} without a token; set api_token "
            "(with api_token_profile), api_tokens or owner_admin_token, or bind to 127.0.0.1",
        )


def _same(given: str, expected: str) -> bool:
    return bool(expected) and hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))


class AuthPolicy:
    """Resolves request headers to a :class:`Principal` or refuses with 400, 401 or 403."""

    def __init__(self, cfg: RikoConfig, host: str = "127.0.0.1") -> None:
        check_startable(cfg, host)
        self.cfg = cfg
        self.host = host
        self.loopback_only = not _any_token(cfg)

    @property
    def scope_binding(self) -> str:
        return scope_binding(self.cfg)

    @property
    def mode(self) -> str:
        if self.loopback_only:
            return "loopback-header"
        modes = []
        if self.cfg.owner_admin_token:
            modes.append("owner-admin")
        if self.cfg.api_tokens:
            modes.append("token-map")
        elif self.cfg.api_token:
            modes.append("single-token")
        return "+".join(modes)

    @staticmethod
    def profile_header(headers: Mapping[str, str]) -> str | None:
        """The requested profile, validated; two different spellings at once are refused."""
        given = {headers[name] for name in PROFILE_HEADERS if headers.get(name) is not None}
        if not given:
            return None
        if len(given) > 1:
            raise ApiError(400, "invalid-profile", "x-dsh-memory-profile and x-riko-profile disagree")
        value = given.pop()
        try:
            return validate_profile_id(value, "profile header")
        except ScopeError:
            raise ApiError(
                400, "invalid-profile",
                "profile header must match [A-Za-z0-9._-]{1,64}",
            ) from None

    @staticmethod
    def bearer(headers: Mapping[str, str]) -> str | None:
        raw = headers.get("authorization")
        if raw is None:
            return None
        scheme, _, token = raw.strip().partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise ApiError(401, "bad-token", "authorization must be 'Bearer <token>'")
        return token.strip()

    def authenticate(self, headers: Mapping[str, str], client_host: str | None) -> Principal:
        profile = self.profile_header(headers)
        token = self.bearer(headers)
        cfg = self.cfg
        if token is None:
            if not self.loopback_only:
                raise ApiError(401, "auth-required", "a bearer token is required")
            if profile is None:
                raise ApiError(401, "auth-required", "send the x-dsh-memory-profile header")
            if client_host is not None and not is_loopback_host(client_host):
                raise ApiError(403, "loopback-only", "header-only access is accepted from loopback clients only")
            return Principal(profile, False, "loopback-header")
        if _same(token, cfg.owner_admin_token):
            return Principal(self._required(profile), True, "owner-admin")
        bound: str | None = None
        mode = ""
        for key, value in cfg.api_tokens.items():
            if _same(token, value):
                bound, mode = key, "token-map"
        if bound is None and _same(token, cfg.api_token):
            bound, mode = cfg.api_token_profile, "single-token"
        if bound is None:
            raise ApiError(401, "bad-token", "the bearer token is not valid")
        if self._required(profile) != bound:
            raise ApiError(403, "profile-mismatch", "this token is bound to another profile")
        return Principal(bound, False, mode)

    @staticmethod
    def _required(profile: str | None) -> str:
        if profile is None:
            raise ApiError(400, "profile-required", "send the x-dsh-memory-profile header with the token")
        return profile
