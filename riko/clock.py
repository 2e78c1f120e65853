"""Injectable time: every rule that depends on "now" asks a clock, never the OS directly."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone
from typing import Callable, Protocol, runtime_checkable

from .errors import InvalidDateError, InvalidTypeError

__all__ = ["Clock", "SystemClock", "FixedClock", "as_clock", "utc", "to_ms", "from_ms", "iso",
           "EARLIEST", "LATEST", "MIN_MS", "MAX_MS"]


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


#: The instants riko can hold: the whole proleptic Gregorian calendar of years 1-9999, in UTC.
EARLIEST = datetime.min.replace(tzinfo=timezone.utc)
LATEST = datetime.max.replace(tzinfo=timezone.utc)
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
MIN_MS = (EARLIEST - _EPOCH) // timedelta(milliseconds=1)
MAX_MS = (LATEST - _EPOCH) // timedelta(milliseconds=1)
_EXAMPLE = "such as 2026-01-15T09:00:00Z"
_RANGE = "0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z once in UTC"

# RFC 3339 / ISO 8601 and YAML's timestamp forms: "T", "t" or spaces between date and time, a
# decimal comma, a zone written "Z", "+05", "+0530", "+05:30" or YAML's " -5", second 60 (a leap
# second). Anything else falls through to datetime.fromisoformat (week dates, compact forms).
_STAMP = re.compile(
    r"(?P<y>\d{4})-(?P<mo>\d\d?)-(?P<d>\d\d?)"
    r"(?:(?:[Tt]|[ \t]+)(?P<h>\d\d?):(?P<mi>\d\d)(?::(?P<s>\d\d)(?:[.,](?P<f>\d+))?)?"
    r"(?:[ \t]*(?P<tz>[Zz]|[-+]\d\d?(?::?\d\d)?))?)?"
)


def _bad(value: object, reason: str, where: str | None) -> InvalidDateError:
    shown = repr(value) if not isinstance(value, str) or len(value) <= 60 else repr(value[:57] + "...")
    return InvalidDateError(f"{shown} {reason}", where)


def _zone(text: str) -> timezone:
    if text in ("Z", "z"):
        return timezone.utc
    sign = -1 if text[0] == "-" else 1
    digits = text[1:].replace(":", "")
    hours, minutes = (int(digits), 0) if len(digits) <= 2 else (int(digits[:-2]), int(digits[-2:]))
    if hours > 23 or minutes > 59:
        raise ValueError(f"zone offset {text} is not between -23:59 and +23:59")
    return timezone(sign * timedelta(hours=hours, minutes=minutes))


def _from_text(text: str) -> datetime:
    """A datetime (aware or naive, not yet in UTC) from ISO-8601 / RFC 3339 / YAML text."""
    match = _STAMP.fullmatch(text)
    if match is None:
        return datetime.fromisoformat(text[:-1] + "+00:00" if text[-1:] in "Zz" else text)
    g = match.groupdict()
    second = int(g["s"] or 0)
    leap = second == 60  # a leap second is the instant after :59, as POSIX time counts it
    micro = int((g["f"] or "0")[:6].ljust(6, "0"))
    zone = _zone(g["tz"]) if g["tz"] else None
    moment = datetime(int(g["y"]), int(g["mo"]), int(g["d"]), int(g["h"] or 0), int(g["mi"] or 0),
                      59 if leap else second, 0 if leap else micro, tzinfo=zone)
    return moment + timedelta(seconds=1) if leap else moment


def utc(value: datetime | date | str | int | float, where: str | None = None) -> datetime:
    """The one date parser: a datetime, date, ISO-8601 text or epoch milliseconds as aware UTC.

    Every date riko reads (page fields, flags, request bodies, log lines, config) comes through
    here, so anything unreadable or outside the calendar is an :class:`InvalidDateError` naming
    ``where`` (a field, flag or JSON path) before it reaches arithmetic. A naive value is UTC.

    >>> utc("2026-01-15T09:00:00+05:30").isoformat()
    '2026-01-15T03:30:00+00:00'
    >>> utc("9999-12-31T23:59:59-05:00", where="--at")
    Traceback (most recent call last):
    ...
    riko.errors.InvalidDateError: --at: '9999-12-31T23:59:59-05:00' is outside 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z once in UTC
    """
    if isinstance(value, datetime):
        if value.tzinfo is None:
            return value.replace(tzinfo=timezone.utc)
        try:
            return value.astimezone(timezone.utc)
        except OverflowError:
            raise _bad(value.isoformat(), f"is outside {_RANGE}", where) from None
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=timezone.utc)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return from_ms(value, where)
    if not isinstance(value, str):
        raise InvalidTypeError(f"{where + ': ' if where else ''}expected a date-time (datetime, ISO text or epoch "
                               f"milliseconds), got {type(value).__name__}")
    text = value.strip()
    if not text:
        raise InvalidDateError(f"a date-time {_EXAMPLE} is required, got an empty text", where)
    try:
        moment = _from_text(text)
    except OverflowError:
        raise _bad(value, f"is outside {_RANGE}", where) from None
    except ValueError as exc:
        raise _bad(value, f"is not a date-time {_EXAMPLE} ({exc})", where) from None
    return utc(moment, where)


def to_ms(value: datetime | date | str | int | float, where: str | None = None) -> int:
    """Epoch milliseconds of any value :func:`utc` reads (exact integer arithmetic, no float)."""
    return (utc(value, where) - _EPOCH) // timedelta(milliseconds=1)


def from_ms(ms: int | float, where: str | None = None) -> datetime:
    """The UTC instant ``ms`` epoch milliseconds name; outside years 1-9999 is an InvalidDateError."""
    if isinstance(ms, bool) or not isinstance(ms, (int, float)):
        raise InvalidTypeError(f"{where + ': ' if where else ''}epoch milliseconds must be a number, "
                               f"got {type(ms).__name__}")
    if ms != ms or not MIN_MS <= ms <= MAX_MS:
        raise _bad(ms, f"epoch milliseconds are outside {_RANGE}", where)
    return _EPOCH + timedelta(milliseconds=ms)


def iso(value: datetime) -> str:
    """ISO-8601 with a ``Z`` suffix and millisecond precision, stable for hashing."""
    return utc(value).isoformat(timespec="milliseconds").replace("+00:00", "Z")
