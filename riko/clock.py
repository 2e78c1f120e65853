"""Injectable time: every rule that depends on "now" asks a clock, never the OS directly."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Callable, Protocol, runtime_checkable
from .errors import InvalidTypeError

__all__ = ["Clock", "SystemClock", "FixedClock", "as_clock", "utc", "to_ms", "from_ms", "iso"]


@runtime_checkable
class Clock(Protocol):
    """Anything with ``now() -> datetime`` (timezone-aware, UTC)."""

    def now(self) -> datetime: ...


class SystemClock:
    """The wall clock, in UTC."""

    def now(self) -> datetime:
        return datetime.now(timezone.utc)

    def __repr__(self) -> str:
        return "SystemClock()"


class FixedClock:
    """A clock that stays where it is put; ``advance`` moves it (for tests and replays)."""

    def __init__(self, start: datetime | str) -> None:
        self._now = utc(start)

    def now(self) -> datetime:
        return self._now

    def advance(self, **delta: float) -> datetime:
        self._now = self._now + timedelta(**delta)
        return self._now

    def set(self, when: datetime | str) -> None:
        self._now = utc(when)

    def __repr__(self) -> str:
        return f"FixedClock({self._now.isoformat()!r})"


class _CallableClock:
    def __init__(self, fn: Callable[[], datetime]) -> None:
        self._fn = fn

    def now(self) -> datetime:
        return utc(self._fn())


def as_clock(clock: Clock | Callable[[], datetime] | None) -> Clock:
    """Accept a Clock, a zero-argument callable returning a datetime, or None (system)."""
    if clock is None:
        return SystemClock()
    if isinstance(clock, Clock):
        return clock
    if callable(clock):
        return _CallableClock(clock)
    raise InvalidTypeError(f"clock must have a now() method or be callable, got {type(clock).__name__}")


def utc(value: datetime | str | int | float) -> datetime:
    """Normalise a datetime, ISO-8601 string or epoch milliseconds to an aware UTC datetime."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return from_ms(value)
    if isinstance(value, str):
        text = value.strip()
        if text.endswith("Z"):
            text = text[:-1] + "+00:00"
        value = datetime.fromisoformat(text)
    if not isinstance(value, datetime):
        raise InvalidTypeError(f"expected a datetime, ISO string or epoch ms, got {type(value).__name__}")
    if value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc)


def to_ms(value: datetime) -> int:
    return int(utc(value).timestamp() * 1000)


def from_ms(ms: int | float) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc)


def iso(value: datetime) -> str:
    """ISO-8601 with a ``Z`` suffix and millisecond precision, stable for hashing."""
    return utc(value).isoformat(timespec="milliseconds").replace("+00:00", "Z")
