"""The offline, deterministic Dream provider.

It reads only what the user said, finds first-person statements with the cues in
:mod:`riko.dream.cues`, and answers in the same FILE protocol a language model would, so the
same strict parser sees its output. Every page it proposes quotes the user: the description
is the user's own sentence and the title is the clause that carried the cue, hedges and all.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from .cues import (
    CUES,
    Cue,
    has_hedge,
    has_secret,
    is_hypothetical,
    is_question,
    is_reported,
    is_sensitive,
    split_clauses,
    split_sentences,
)
from .atoms import Fact
from .derive import KIND_CATEGORIES, KIND_PAGE_TYPES, Derived
from .prompt import build_extraction_prompt, build_reflection_prompt, prompt_key
from .protocol import FOLDER_TYPES, MAX_BODY_CHARS, MAX_DESCRIPTION_CHARS, normalize_text
from .reflection import ReflectionRequest
from .selection import choose, scored_facts
from .transcript import Transcript

__all__ = ["HeuristicProvider", "Finding", "find_statements", "render_facts", "transcript_facts"]

_TYPE_FOLDERS = {page_type: folder for folder, page_type in FOLDER_TYPES.items()}
_MAX_TITLE = 100
_MAX_SENTENCE = 400
_TRAILING = re.compile(r"[\s.。!！?？;；,，:：~～…]+$")
_WORD_CHARS = re.compile(r"[\w\u4e00-\u9fff]")
_SLUG_UNSAFE = re.compile(r"[^\w]+")
_CJK = re.compile(r"[\u3400-\u9fff]")
_EN_WORD = re.compile(r"[a-z][a-z'\-]{2,}")
_STOPWORDS = frozenset(
    """the and but for with that this have has had was were are you your yours about just really very
    also still some any much more most not don't can't cannot its it's i'm i've i'll i'd they them their
    there then than what when where which who why how all our out get got been being from into onto
    would could should will shall may might maybe think like know okay yeah well today yesterday""".split()
)


@dataclass(frozen=True)
class Finding:
    """One user statement recognised by a cue."""

    cue: Cue
    seq: int
    sentence: str
    title: str
    hedged: bool
    sensitive: bool


def _trim(text: str, limit: int) -> str:
    """Cut at a word boundary when the text has spaces, else at the limit."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip()


def _clean(text: str) -> str:
    return " ".join(text.split())


def _title_for(sentence: str, lo: int, hi: int, hedge_outside: bool) -> str:
    """The clause holding the cue; the whole sentence when a hedge sits outside that clause."""
    clause = sentence[lo:hi]
    if hedge_outside and not has_hedge(clause):
        clause = sentence
    return _trim(_TRAILING.sub("", _clean(clause)), _MAX_TITLE)


def _matches(cue: Cue, folded: str) -> Iterator[int]:
    """Start offsets of every acceptable match of ``cue`` in the sentence."""
    if cue.requires is not None and not cue.requires.search(folded):
        return
    for pattern in cue.patterns:
        for m in pattern.finditer(folded):
            rest = folded[: m.start()] + folded[m.end() :]
            if cue.needs_object and len(_WORD_CHARS.findall(rest)) < 2:
                continue
            if cue.reject_object is not None and cue.reject_object.match(folded[m.end() :].lstrip()):
                continue
            if is_reported(folded[: m.start()]):
                continue
            yield m.start()


def find_statements(text: str, seq: int = 0) -> list[Finding]:
    """Cue-bearing statements in one user message, at most one per clause.

    Cues are tried in priority order (boundary, dislike, preference, identity, relationship,
    plan, emotion, episode); a clause already claimed by a stronger cue is not reused.
    Questions, hypotheticals and sentences that mention secrets yield nothing.
    """
    findings: list[Finding] = []
    for sentence in split_sentences(text):
        if len(sentence) > _MAX_SENTENCE or len(sentence) < 3:
            continue
        # Same length as ``sentence``, so match offsets index the original text.
        folded = sentence.replace("’", "'").replace("‘", "'")
        # reported speech anywhere ("my coworker claims I hate meetings") is someone else's claim
        if is_question(folded) or is_hypothetical(folded) or has_secret(folded) or is_reported(folded):
            continue
        clauses = split_clauses(sentence)
        claimed: dict[int, tuple[Cue, int]] = {}
        for cue in CUES:
            for start in _matches(cue, folded):
                index = next(i for i, (lo, hi) in enumerate(clauses) if lo <= start <= hi)
                claimed.setdefault(index, (cue, start))
        if not claimed:
            continue
        hedged = has_hedge(folded)
        sensitive = is_sensitive(folded)
        for index in sorted(claimed):
            cue, start = claimed[index]
            lo, hi = clauses[index]
            title = _title_for(sentence, lo, hi, hedged and len(claimed) == 1)
            findings.append(
                Finding(cue=cue, seq=seq, sentence=_clean(sentence), title=title, hedged=hedged, sensitive=sensitive)
            )
    return findings


def _slug(title: str) -> str:
    slug = _SLUG_UNSAFE.sub("-", normalize_text(title)).strip("-_")[:60].strip("-_")
    return slug or hashlib.sha256(title.encode("utf-8")).hexdigest()[:12]


def _yaml_str(text: str) -> str:
    # A JSON string is a valid YAML double-quoted scalar.
    return json.dumps(text, ensure_ascii=False)


def _entities_yaml(derived: Derived) -> str:
    return json.dumps([{"name": e.name, "kind": e.kind, "aliases": list(e.aliases)} for e in derived.entities],
                      ensure_ascii=False)


_EMOTION = next(c for c in CUES if c.kind == "emotion")


def _is_emotion(text: str) -> bool:
    folded = text.replace("’", "'")
    return any(p.search(folded) for p in _EMOTION.patterns)


def transcript_facts(transcript: Transcript) -> list[tuple[int, Fact]]:
    """``(seq, fact)`` for every atomic fact of the transcript's user lines that Dream proposes,
    in order: those :func:`riko.dream.selection.choose` keeps.

    In a multi-party log (most user lines start ``Name: ``) each fact is its speaker's, and a
    speaker's earlier lines are the context their pronouns resolve against.
    """
    return [(s.seq, s.fact) for s in choose(scored_facts(transcript))]


def render_facts(facts: Sequence[tuple[int, Fact]], existing_titles: Sequence[str] = (), max_pages: int = 48) -> str:
    """FILE-protocol text for atomic facts: one page each, typed by riko's derivation.

    Title, description and body hold the fact (a multi-party fact names its speaker); ``quote``
    holds the speaker's own words, which locate the evidence line.
    """
    known = {normalize_text(t): t for t in existing_titles}
    seen: set[tuple[str, str]] = set()
    paths: set[str] = set()
    blocks: list[str] = []
    for _, fact in facts:
        if len(blocks) >= max_pages:
            break
        derived = fact.derived
        emotion = derived.kind == "fact" and _is_emotion(fact.text)
        page_type = "emotion" if emotion else KIND_PAGE_TYPES[derived.kind]
        folder = _TYPE_FOLDERS[page_type]
        category = "current_state" if emotion else KIND_CATEGORIES[derived.kind]
        said = f"{fact.speaker}: {fact.text}" if fact.speaker else fact.text
        title = known.get(normalize_text(_trim(said, _MAX_TITLE)), _trim(said, _MAX_TITLE))
        key = (page_type, normalize_text(title))
        if key in seen:
            continue
        seen.add(key)
        base = _slug(title)
        path, n = f"wiki/{folder}/{base}.md", 2
        while path in paths:
            path, n = f"wiki/{folder}/{base}-{n}.md", n + 1
        paths.add(path)
        tags = [derived.kind] + (["hedged"] if fact.hedged else [])
        blocks.append(
            f'<<<FILE path="{path}">>>\n---\n'
            f"type: {page_type}\n"
            f"title: {_yaml_str(title)}\n"
            f"description: {_yaml_str(_trim(said, MAX_DESCRIPTION_CHARS))}\n"
            f"tags: {json.dumps(tags)}\n"
            f"confidence: {0.35 if fact.hedged else 0.6}\n"
            f"kind: {derived.kind}\n"
            f"category: {category}\n"
            f"slot: {_yaml_str(derived.slot)}\n"
            f"entities: {_entities_yaml(derived)}\n"
            f"quote: {_yaml_str(fact.quote)}\n"
            f"sensitivity: {'sensitive' if fact.sensitive else 'normal'}\n"
            f"---\n{said[:MAX_BODY_CHARS]}\n<<<END>>>"
        )
    return "\n\n".join(blocks)


def _tokens(text: str) -> frozenset[str]:
    """Content words (English) and character bigrams (CJK) used to spot repeated statements."""
    folded = normalize_text(text)
    words = {w for w in _EN_WORD.findall(folded) if w not in _STOPWORDS}
    cjk = "".join(ch if _CJK.match(ch) else " " for ch in folded).split()
    for run in cjk:
        words.update(run[i : i + 2] for i in range(len(run) - 1))
    words.discard("我们")
    return frozenset(words)


class HeuristicProvider:
    """Offline Dream provider: deterministic cue rules over the user's own lines.

    ``extract`` returns an empty string when the user said nothing it recognises; pass
    ``allow_empty=provider.empty_answer_ok`` to :func:`~riko.dream.protocol.parse_file_blocks`.

    >>> from riko.dream.transcript import TranscriptLine
    >>> t = Transcript("s1", (TranscriptLine(1, "user", "I love hiking in the Alps."),))
    >>> 'title: "I love hiking in the Alps"' in HeuristicProvider().extract(t)
    True
    """

    name = "heuristic"
    model = "heuristic-v1"
    empty_answer_ok = True

    def __init__(self, *, max_pages: int = 48, max_transcript_chars: int = 40_000, similarity: float = 0.5) -> None:
        self.max_pages = max_pages
        self.max_transcript_chars = max_transcript_chars
        self.similarity = similarity

    def __repr__(self) -> str:
        return f"HeuristicProvider(model={self.model!r}, max_pages={self.max_pages})"

    def request_key(self, transcript: Transcript, existing_titles: Sequence[str] = ()) -> str:
        """Cache key of an extraction: hash of name, model and the prompt the input would make."""
        prompt = build_extraction_prompt(
            transcript.render(self.max_transcript_chars), existing_titles, max_pages=self.max_pages
        )
        return prompt_key(self.name, self.model, prompt)

    def reflection_key(self, request: ReflectionRequest) -> str:
        """Cache key of a reflection request."""
        return prompt_key(self.name, self.model, build_reflection_prompt(request))

    def extract(self, transcript: Transcript, *, existing_titles: Sequence[str] = ()) -> str:
        """FILE blocks, one per atomic fact of the user's lines (assistant lines are never read)."""
        return render_facts(transcript_facts(transcript.tail(self.max_transcript_chars)), existing_titles,
                            self.max_pages)

    def reflect(self, request: ReflectionRequest) -> str:
        """One JSON object of observations: statements the user repeated across anchors.

        Anchors whose texts share at least ``similarity`` of their content words (Jaccard)
        are grouped; a group with ``min_evidence`` distinct anchors becomes an observation that
        quotes the user's earliest wording. Sensitive, question and hypothetical texts are skipped.
        """
        anchors = []
        seen_refs: set[str] = set()
        for anchor in request.anchors:
            text = _clean(anchor.text)
            if anchor.ref in seen_refs or not text or is_sensitive(text) or has_secret(text):
                continue
            if is_question(text) or is_hypothetical(text):
                continue
            tokens = _tokens(text)
            if tokens:
                seen_refs.add(anchor.ref)
                anchors.append((anchor, text, tokens))

        parent = list(range(len(anchors)))

        def root(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        by_token: dict[str, list[int]] = {}
        for i, (_, _, tokens) in enumerate(anchors):
            candidates: set[int] = set()
            for tok in tokens:
                candidates.update(by_token.setdefault(tok, []))
                by_token[tok].append(i)
            for j in candidates:
                other = anchors[j][2]
                if len(tokens & other) / len(tokens | other) >= self.similarity:
                    parent[root(i)] = root(j)

        groups: dict[int, list[int]] = {}
        for i in range(len(anchors)):
            groups.setdefault(root(i), []).append(i)
        ranked = []
        for members in groups.values():
            if len(members) < request.min_evidence:
                continue
            sessions = {anchors[i][0].session_id for i in members if anchors[i][0].session_id}
            ranked.append((-len(members), -len(sessions), min(members), members, len(sessions)))
        ranked.sort(key=lambda r: r[:3])

        observations = []
        for _, _, first, members, n_sessions in ranked[: max(request.max_observations, 0)]:
            quote = _trim(anchors[first][1], 160)
            spread = f" across {n_sessions} sessions" if n_sessions > 1 else ""
            observations.append(
                {
                    "text": f"The user has said this {len(members)} times{spread}: \u201c{quote}\u201d",
                    "anchors": [anchors[i][0].ref for i in members],
                    "confidence": round(min(0.9, 0.4 + 0.1 * len(members) + 0.1 * max(n_sessions - 1, 0)), 2),
                }
            )
        return json.dumps({"observations": observations}, ensure_ascii=False)
