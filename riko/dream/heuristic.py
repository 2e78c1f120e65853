"""The offline, deterministic Dream provider.

It reads only what the user said, cuts it into atomic facts (:mod:`riko.language.atoms`), keeps
those :mod:`riko.dream.selection` chooses, and answers in the same FILE protocol a language
model would, so the same strict parser sees its output. Every page quotes the user (``quote``,
the speaker's own words, locates the evidence); its title and body state the fact so that it
reads alone (:func:`riko.language.atoms.statement_of`), and its description is the user's exact
line when the fact is the whole line (what ``user_grounded`` admits), else the statement.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from collections.abc import Sequence

from ..language.cues import has_secret, is_emotion, is_hypothetical, is_question, is_sensitive
from ..language.lexicon import CJK_RANGE
from ..language.statement import clip, resolve_dates
from ..review.authority import normalize_claim
from ..language.atoms import Fact, answer_fact, last_question, multi_party, split_speaker, statement_of
from ..language.derive import KIND_CATEGORIES, KIND_PAGE_TYPES
from .prompt import build_extraction_prompt, build_reflection_prompt, prompt_key
from .protocol import (FOLDER_TYPES, MAX_BODY_CHARS, MAX_DESCRIPTION_CHARS, MAX_TITLE_CHARS, Draft, ParseResult,
                       accept_drafts, normalize_text)
from .reflection import ReflectionRequest
from .selection import Scored, choose, features, probability, scored_facts
from .transcript import Transcript

__all__ = ["HeuristicProvider", "render_facts", "transcript_facts"]

_TYPE_FOLDERS = {page_type: folder for folder, page_type in FOLDER_TYPES.items()}
_SLUG_UNSAFE = re.compile(r"[^\w]+")
_CJK = re.compile(f"[{CJK_RANGE}]")
_EN_WORD = re.compile(r"[a-z][a-z'\-]{2,}")
_STOPWORDS = frozenset(
    """the and but for with that this have has had was were are you your yours about just really very
    also still some any much more most not don't can't cannot its it's i'm i've i'll i'd they them their
    there then than what when where which who why how all our out get got been being from into onto
    would could should will shall may might maybe think like know okay yeah well today yesterday""".split()
)


def _clip(text: str, speaker: str | None, limit: int) -> str:
    """``text`` cut to ``limit`` (:func:`riko.language.statement.clip`); a speaker's ``Name: `` stays
    whole before the cut words."""
    prefix = f"{speaker}: " if speaker and text.startswith(f"{speaker}: ") else ""
    return prefix + clip(text[len(prefix):], max(20, limit - len(prefix)))


def _clean(text: str) -> str:
    return " ".join(text.split())


def _slug(title: str) -> str:
    slug = _SLUG_UNSAFE.sub("-", normalize_text(title)).strip("-_")[:60].strip("-_")
    return slug or hashlib.sha256(title.encode("utf-8")).hexdigest()[:12]


def _answers(transcript: Transcript) -> list[Scored]:
    """Facts that only a question makes: a user line that states nothing alone, right after the
    other side's question, joined to it (:func:`riko.language.atoms.answer_fact`), scored as
    :func:`~riko.dream.selection.scored_facts` scores a fact answering a question."""
    users = [line for line in transcript.lines if line.role == "user"]
    split = [split_speaker(line.text) for line in users]
    multi = multi_party(line.text for line in users)
    speakers = {line.seq: who for line, (who, _) in zip(users, split)} if multi else {}
    texts = {line.seq: (rest if multi and who else line.text) for line, (who, rest) in zip(users, split)}
    said: dict[str | None, list[str]] = {}
    out: list[Scored] = []
    previous = None
    for line in transcript.lines:
        speaker = speakers.get(line.seq) if line.role == "user" else "\0assistant"
        if line.role == "user":
            earlier = said.setdefault(speaker, [])
            if previous is not None and previous[1] != speaker and last_question(previous[0]) is not None:
                question = split_speaker(previous[0])[1] if previous[1] != "\0assistant" else previous[0]
                fact = answer_fact(question, texts[line.seq], speaker=speaker, context=tuple(earlier[-3:]))
                if fact is not None:
                    values = features(fact, position=0, facts=1, asked=True, message=texts[line.seq],
                                      message_asks=False, session_asks=0.0)
                    out.append(Scored(line.seq, fact, values, probability(values)))
            earlier.append(texts[line.seq])
        previous = (line.text.rstrip(), speaker)
    return out


def transcript_facts(transcript: Transcript) -> list[tuple[int, Fact]]:
    """``(seq, fact)`` for every atomic fact of the transcript's user lines that Dream proposes,
    in order: those :func:`riko.dream.selection.choose` keeps, each with its statement (the fact
    as it reads alone, dates said against the line's time) and whether it is its whole line.

    In a multi-party log (most user lines start ``Name: ``) each fact is its speaker's, a
    speaker's earlier lines are the context their pronouns resolve against, and a short answer
    to another speaker's question is joined to the question.
    """
    scored = scored_facts(transcript)
    answers = _answers(transcript)
    if answers:
        # an answer joined to its question replaces what the bare answer gave ("Luna and Oliver")
        answered = {s.seq for s in answers}
        scored = sorted([*(s for s in scored if s.seq not in answered), *answers], key=lambda s: s.seq)
    lines = {line.seq: line for line in transcript.lines}
    out = []
    for s in choose(scored):
        line = lines[s.seq]
        whole = normalize_claim(s.fact.said()) == normalize_claim(line.text)
        fact = s.fact
        dated = resolve_dates(fact.said(), line.time)
        out.append((s.seq, dataclasses.replace(fact, statement=statement_of(fact, line.time), whole_line=whole,
                                               dated=dated)))
    return out


def fact_drafts(facts: Sequence[tuple[int, Fact]], existing_titles: Sequence[str] = (),
                max_pages: int = 48) -> list[Draft]:
    """One page draft per atomic fact, typed by riko's derivation (derived once, here).

    Title, description and body hold the fact (a multi-party fact names its speaker); ``quote``
    holds the speaker's own words, which locate the evidence line.
    """
    known = {normalize_text(t): t for t in existing_titles}
    seen: set[tuple[str, str]] = set()
    paths: set[str] = set()
    drafts: list[Draft] = []
    for _, fact in facts:
        if len(drafts) >= max_pages:
            break
        derived = fact.derived
        emotion = derived.kind == "fact" and is_emotion(fact.text)
        page_type = "emotion" if emotion else KIND_PAGE_TYPES[derived.kind]
        folder = _TYPE_FOLDERS[page_type]
        category = "current_state" if emotion else KIND_CATEGORIES[derived.kind]
        said = fact.said()
        # what a reader sees is the statement; a whole line keeps the user's exact words as its
        # description, which is what ``user_grounded`` admits (the authority rule)
        statement = fact.statement or said
        # the description is the speaker's words: exactly the line when the fact is the whole line,
        # else the fact as said with its dates made absolute (riko derives slots and names from it)
        described = said if fact.whole_line else (fact.dated or said)
        title = _clip(statement, fact.speaker, MAX_TITLE_CHARS)
        # a confirmed page's title is reused exactly: riko's wording, or the user's words it holds
        title = known.get(normalize_text(title)) or known.get(normalize_text(said)) or title
        key = (page_type, normalize_text(title))
        if key in seen:
            continue
        seen.add(key)
        base = _slug(title)
        path, n = f"wiki/{folder}/{base}.md", 2
        while path in paths:
            path, n = f"wiki/{folder}/{base}-{n}.md", n + 1
        paths.add(path)
        meta: dict[str, object] = {
            "type": page_type,
            "title": title,
            "description": _clip(described, fact.speaker, MAX_DESCRIPTION_CHARS),
            "tags": [derived.kind] + (["hedged"] if fact.hedged else []),
            "confidence": 0.35 if fact.hedged else 0.6,
            "kind": derived.kind,
            "category": category,
            "slot": derived.slot,
            "entities": [{"name": e.name, "kind": e.kind, "aliases": list(e.aliases)} for e in derived.entities],
            "quote": fact.quote,
            "sensitivity": "sensitive" if fact.sensitive else "normal",
        }
        drafts.append(Draft(path, meta, clip(statement, MAX_BODY_CHARS)))
    return drafts


def render_drafts(drafts: Sequence[Draft]) -> str:
    """The FILE-protocol text of ``drafts`` (what a model would answer; parsed back, it gives
    the pages :func:`riko.dream.protocol.accept_drafts` gives for the drafts themselves)."""
    blocks = []
    for draft in drafts:
        head = "".join(f"{name}: {_yaml_value(name, value)}\n" for name, value in draft.meta.items())
        blocks.append(f'<<<FILE path="{draft.path}">>>\n---\n{head}---\n{draft.body}\n<<<END>>>')
    return "\n\n".join(blocks)


def render_facts(facts: Sequence[tuple[int, Fact]], existing_titles: Sequence[str] = (), max_pages: int = 48) -> str:
    """FILE-protocol text for atomic facts: one page each (:func:`fact_drafts`, rendered)."""
    return render_drafts(fact_drafts(facts, existing_titles, max_pages))


#: Frontmatter fields written bare: riko's own words (a page type, a kind, a category, a level).
_BARE_FIELDS = frozenset({"type", "kind", "category", "sensitivity"})


def _yaml_value(name: str, value: object) -> str:
    """A frontmatter value as one line: JSON is valid YAML flow (strings double-quoted)."""
    if name in _BARE_FIELDS or isinstance(value, float):
        return str(value)
    return json.dumps(value, ensure_ascii=False)


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
    #: Reads every line of a session, in windows of ``max_transcript_chars`` (``max_pages`` each),
    #: so a long session leaves no evidence unread: it has no context to overflow.
    reads_whole_sessions = True

    def __init__(self, *, max_pages: int = 48, max_transcript_chars: int = 40_000, similarity: float = 0.5) -> None:
        self.max_pages = max_pages
        self.max_transcript_chars = max_transcript_chars
        self.similarity = similarity

    def __repr__(self) -> str:
        return f"HeuristicProvider(model={self.model!r}, max_pages={self.max_pages})"

    def request_key(self, transcript: Transcript, existing_titles: Sequence[str] = ()) -> str:
        """Cache key of an extraction: hash of name, model and the prompt the input would make."""
        windows = transcript.windows(self.max_transcript_chars)
        prompt = "\n".join(build_extraction_prompt(window.render(self.max_transcript_chars), existing_titles,
                                                    max_pages=self.max_pages) for window in windows)
        return prompt_key(self.name, self.model, prompt)

    def page_limit(self, transcript: Transcript) -> int:
        """How many pages the answer for ``transcript`` may hold: ``max_pages`` per window."""
        return self.max_pages * len(transcript.windows(self.max_transcript_chars))

    def reflection_key(self, request: ReflectionRequest) -> str:
        """Cache key of a reflection request."""
        return prompt_key(self.name, self.model, build_reflection_prompt(request))

    def extract(self, transcript: Transcript, *, existing_titles: Sequence[str] = ()) -> str:
        """FILE blocks, one per atomic fact of the user's lines (assistant lines are never read),
        every window of the session in turn."""
        return render_drafts(self.drafts(transcript, existing_titles=existing_titles))

    def drafts(self, transcript: Transcript, *, existing_titles: Sequence[str] = ()) -> list[Draft]:
        """The page drafts :meth:`extract` renders, every window of the session in turn."""
        windows = transcript.windows(self.max_transcript_chars)
        facts = [fact for window in windows for fact in transcript_facts(window)]
        return fact_drafts(facts, existing_titles, self.max_pages * len(windows))

    def propose(self, transcript: Transcript, *, existing_titles: Sequence[str] = ()) -> ParseResult:
        """The proposals of ``transcript`` handed over as fields, not text: what parsing
        :meth:`extract`'s answer gives, without writing and re-reading it (Dream's path)."""
        return accept_drafts(self.drafts(transcript, existing_titles=existing_titles),
                             max_pages=self.page_limit(transcript), allow_empty=True)

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
            quote = clip(anchors[first][1], 160)
            spread = f" across {n_sessions} sessions" if n_sessions > 1 else ""
            observations.append(
                {
                    "text": f"The user has said this {len(members)} times{spread}: \u201c{quote}\u201d",
                    "anchors": [anchors[i][0].ref for i in members],
                    "confidence": round(min(0.9, 0.4 + 0.1 * len(members) + 0.1 * max(n_sessions - 1, 0)), 2),
                }
            )
        return json.dumps({"observations": observations}, ensure_ascii=False)
