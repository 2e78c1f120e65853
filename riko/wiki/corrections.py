"""What a correction leaves behind: a title that no longer restates the old value, and whether
an edit changed the claim at all (a typo fix keeps the page's evidence)."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from difflib import SequenceMatcher
from typing import Any

from ..contracts import parse_ref
from ..language.text import tokenize
from ..sensitivity.rules import protected_title

__all__ = ["claim_changed", "corrected_title", "retire_evidence", "stale_title_tokens"]

_TITLE_CHARS = 120


def stale_title_tokens(title: str, old_claim: str, new_claim: str) -> set[str]:
    """Title tokens that came from the old claim and are gone from the new one: the old value."""
    old, new = set(tokenize(old_claim)), set(tokenize(new_claim))
    return {t for t in tokenize(title) if t in old and t not in new}


def corrected_title(title: str, old_claim: str, new_claim: str, sensitivity: str, source: str) -> str:
    """The title a corrected or replaced page carries.

    A title naming a subject ("Home city") is kept. A title that restates the old claim, wholly
    or in part ("Lives in Lisbon"), is derived again from the new claim, so the replaced value
    appears nowhere in what is injected; a protected claim gets a title that does not restate it.
    """
    if not stale_title_tokens(title, old_claim, new_claim):
        return title
    if sensitivity != "normal":
        return protected_title(new_claim, source)
    first = " ".join(new_claim.strip().splitlines()[0].split()) if new_claim.strip() else ""
    return first[:_TITLE_CHARS].rstrip(" .。") or title


def _fold(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def claim_changed(old: str, new: str) -> bool:
    """False for an edit that keeps the claim: spacing, case, punctuation or a one-letter typo
    in a long word. A changed digit, or any other word, is a new claim."""
    a, b = tokenize(old), tokenize(new)
    if a == b:
        return False
    if len(a) != len(b):
        return True
    for x, y in zip(a, b):
        if x == y:
            continue
        if any(ch.isdigit() for ch in x + y) or min(len(x), len(y)) < 5:
            return True
        if SequenceMatcher(None, x, y).ratio() < 0.8:
            return True
    return _fold(old) != _fold(new) and SequenceMatcher(None, _fold(old), _fold(new)).ratio() < 0.9


def retire_evidence(evidence: Any, refs: Iterable[str]) -> list[str]:
    """Mark the L0 lines behind a replaced claim as invalidated in ``evidence`` (the scope's
    :class:`~riko.stores.evidence.EvidenceStore`), so raw recall stops offering them as current;
    the lines themselves are kept. Returns the references marked."""
    marked = []
    for ref in refs:
        parsed = parse_ref(ref)
        if parsed:
            evidence.invalidate(parsed[0], parsed[1])
            marked.append(ref)
    return marked
