"""The six agent memory tools: JSON schemas plus a dispatcher bound to one scope and one session.

The scope and the session are fixed when the :class:`ToolBox` is made; no tool has a field
that could name another scope, profile or session, so a model cannot address another memory.
Every write is authorised by the latest raw user message of the bound session as read from
L0 evidence — never by model text, a plugin injection or another session.

    >>> box = ToolBox(mem, session_id="s1")                              # doctest: +SKIP
    >>> tools = box.schemas("openai")                    # pass to the model  # doctest: +SKIP
    >>> box.call("memory_remember", '{"content": "I prefer green tea"}').text()   # doctest: +SKIP
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Mapping, Protocol

from .wiki.aliases import explicit_coreferences, invalidate_entity_aliases, resolve_alias, upsert_alias
from .review.authority import UserEvent, claim_in_latest, latest_user_message, normalize_claim
from .clock import utc
from .errors import AuthorityError, InvalidArgumentError, NotFoundError, ScopeError, StateError, WikiFormatError
from .recall.lexical import BM25Index
from .language.text import tokenize
from .review.governance import overlap_score, overlaps, parse_expires, resolve_page, retire_superseded
from .request_cues import ACTIONS, has_request, strip_request
from .sensitivity.rules import classify_text, protected_title
from .wiki import Page, make_page_id

if TYPE_CHECKING:
    from .clock import Clock
    from .config import RikoConfig
    from .context import ScopeContext
    from .scope import MemoryScope
    from .stores.warehouse import Warehouse

__all__ = [
    "TOOL_NAMES",
    "MISSING_SESSION",
    "REMEMBER_REFUSAL",
    "CORRECT_REFUSAL",
    "TARGET_REFUSAL",
    "ToolBox",
    "ToolResult",
    "tool_schemas",
    "has_cue",
    "looks_temporal",
]

TOOL_NAMES = (
    "memory_get_resident",
    "memory_remember",
    "memory_correct",
    "memory_forget",
    "memory_suppress",
    "memory_restore",
)
MISSING_SESSION = "memory tool requires an agent session"
REMEMBER_REFUSAL = "memory_remember requires an exact claim from the latest raw user message"
CORRECT_REFUSAL = "memory_correct requires the replacement text in the latest raw user message"
# forget / suppress / restore: the target must be named by the latest raw user message itself.
TARGET_REFUSAL = "{tool} requires a target named in the latest raw user message"
PROTECTED_LABEL = "protected memory; content withheld"

# Lexical targets whose score is within this fraction of the best one are equally plausible.
AMBIGUITY_MARGIN = 0.8
MAX_CANDIDATES = 5
_TITLE_CHARS = 80
# A temporal transition must share at least this share of content tokens with the old page.
_TRANSITION_OVERLAP = 1 / 3


# ---------------------------------------------------------------------------- schemas


@dataclass(frozen=True)
class _Param:
    name: str
    description: str
    required: bool = False
    enum: tuple[str, ...] | None = None


@dataclass(frozen=True)
class _Spec:
    name: str
    description: str
    params: tuple[_Param, ...] = ()
    writes: bool = True

    def parameters(self) -> dict[str, Any]:
        """The JSON Schema of the arguments: an object that admits no other property."""
        props: dict[str, Any] = {}
        for p in self.params:
            props[p.name] = {"type": "string", "description": p.description}
            if p.enum:
                props[p.name]["enum"] = list(p.enum)
        schema: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": False}
        required = [p.name for p in self.params if p.required]
        if required:
            schema["required"] = required
        return schema


_TARGET = (
    _Param("id", "Canonical page or memory id, when the latest user message names it."),
    _Param("target", "Natural-language target copied verbatim from the latest user message."),
)
_SPECS: dict[str, _Spec] = {s.name: s for s in (
    _Spec("memory_get_resident",
          "Read the current Resident memory block and its version. Read-only; takes no arguments.",
          writes=False),
    _Spec("memory_remember",
          "Remember a preference, boundary, goal, fact or event the user just stated. Only for an "
          "exact claim copied from the user's latest message; never for an inference.",
          (_Param("content", "The exact claim, copied from the user's latest message.", required=True),
           _Param("sensitivity", "Mark a private claim sensitive.", enum=("normal", "sensitive")),
           _Param("supersedes", "The memory this claim replaces: its id, an id prefix or a distinctive "
                                "fragment of its text. Give it when the result reported overlaps and the "
                                "user's claim corrects one of them."),
           _Param("expires", "The last day the claim is true, YYYY-MM-DD, when the user says it ends."))),
    _Spec("memory_correct",
          "Correct an existing memory (same identity, new version) with replacement text the user "
          "just typed. A change over time is remembered as a new claim, not a correction.",
          (_Param("id", "Canonical page or memory id to correct.", required=True),
           _Param("content", "Replacement text, copied from the user's latest message.", required=True))),
    _Spec("memory_forget",
          "Forget a memory when the user explicitly asks to forget or delete it. Raw session "
          "evidence is retained. Give the id, or a target copied from the user's message.", _TARGET),
    _Spec("memory_suppress",
          "Stop mentioning a memory when the user explicitly asks (reversible with memory_restore). "
          "Give the id, or a target copied from the user's message.", _TARGET),
    _Spec("memory_restore",
          "Allow a suppressed memory to be mentioned again when the user explicitly asks. "
          "Give the id, or a target copied from the user's message.", _TARGET),
)}


def tool_schemas(shape: str = "openai") -> list[dict[str, Any]]:
    """The six tool definitions in the OpenAI (``tools=[...]``) or Anthropic shape."""
    specs = [_SPECS[name] for name in TOOL_NAMES]
    if shape == "openai":
        return [{"type": "function", "function": {"name": s.name, "description": s.description,
                                                  "parameters": s.parameters()}} for s in specs]
    if shape == "anthropic":
        return [{"name": s.name, "description": s.description, "input_schema": s.parameters()} for s in specs]
    raise InvalidArgumentError(f"schema shape must be 'openai' or 'anthropic', got {shape!r}")


class _Refused(Exception):
    """A call the tool declines: bad arguments or missing user authority (audited for writes)."""


def _arguments(spec: _Spec, arguments: Mapping[str, object] | str | None) -> dict[str, str]:
    """Check ``arguments`` against the tool's schema; absent, null and blank values are omitted."""
    if arguments is None or (isinstance(arguments, str) and not arguments.strip()):
        arguments = {}
    if isinstance(arguments, (str, bytes)):
        try:
            arguments = json.loads(arguments)
        except ValueError as exc:
            raise _Refused(f"{spec.name} arguments are not valid JSON ({getattr(exc, 'msg', exc)})") from None
    if not isinstance(arguments, Mapping):
        raise _Refused(f"{spec.name} arguments must be a JSON object, got {type(arguments).__name__}")
    known = {p.name: p for p in spec.params}
    unknown = sorted(str(k) for k in arguments if k not in known)
    if unknown:
        accepted = ", ".join(known) if known else "no arguments"
        raise _Refused(f"{spec.name} does not accept argument(s) {', '.join(map(repr, unknown))}; "
                       f"it accepts {accepted}")
    out: dict[str, str] = {}
    for name, param in known.items():
        value = arguments.get(name)
        if value is not None and not isinstance(value, str):
            raise _Refused(f"argument {name!r} of {spec.name} must be a string, got {type(value).__name__}")
        if value is None and param.required:
            raise _Refused(f"{spec.name} requires the argument {name!r}")
        if value is None or not (value.strip() or param.required):
            continue  # a blank required value reaches the tool, which refuses it in its own words
        if param.enum and value not in param.enum:
            raise _Refused(f"argument {name!r} of {spec.name} must be one of {', '.join(param.enum)}; got {value!r}")
        out[name] = value
    return out


# ---------------------------------------------------------------------------- cues


def _fold(text: str) -> str:
    """NFKC, casefold, straight apostrophes and single spaces, so cue patterns stay simple."""
    text = unicodedata.normalize("NFKC", text).replace("\u2019", "'").replace("\u2018", "'")
    return " ".join(text.casefold().split())


#: The request families :func:`has_cue` recognises (token patterns in :mod:`riko.request_cues`).
CUE_ACTIONS = ACTIONS
# Words around a cue that name no memory ("ok forget it, never mind", "那条记忆").
_FILLER = frozenset(tokenize(
    "ok okay never mind please thing things stuff one memory memories note notes again anymore any more "
    "just actually really right now then also whatever 那个 这个 那条 这条 一下 记忆 东西 事情"))
_ACTION_OF = {"memory_forget": "forget", "memory_suppress": "suppress", "memory_restore": "restore"}
_CUE_NAME = {"forget": "deletion", "suppress": "suppression", "restore": "restore"}

_TRANSITION = re.compile(
    r"\b(?:now|nowadays|these days|no longer|not anymore|any ?more|moved to|switched to|changed to|"
    r"quit|stopped|started|gave up|took up)\b"
    r"|现在|如今|目前|不再|已经不|搬到|搬去|改成|换成|改喝|改用|改吃|戒了|戒掉|开始"
)


def has_cue(action: str, text: str) -> bool:
    """True when ``text`` holds an explicit ``forget`` / ``suppress`` / ``restore`` request (EN or ZH).

    >>> has_cue("forget", "Please forget my old address"), has_cue("forget", "Don't forget my birthday")
    (True, False)
    """
    return has_request(action, text)


def looks_temporal(claim: str) -> bool:
    """True when a claim reads as a change over time ("now", "no longer", "moved to", 现在, 不再 …)."""
    return _TRANSITION.search(_fold(claim)) is not None


_SENTENCES = re.compile(r"(?<=[.!?;])\s+|[。！？；\n]+")


def _title(claim: str) -> str:
    """A one-line title from the user's own words, cut at a word boundary when long."""
    line = " ".join(claim.split())
    if len(line) <= _TITLE_CHARS:
        return line
    cut = line[:_TITLE_CHARS]
    space = cut.rfind(" ")
    if space > _TITLE_CHARS // 2:
        cut = cut[:space]
    return cut.rstrip(" ,.;:，。；：") + "…"


# ---------------------------------------------------------------------------- results


@dataclass
class ToolResult:
    """The one output object every tool returns (``to_dict`` uses the seed's camelCase keys)."""

    ok: bool
    scope_key: str
    id: str | None
    resident: str
    version: str
    confirmation_required: bool = False
    candidates: list[dict[str, Any]] = field(default_factory=list)
    message: str = ""
    raw_session_retained: bool | None = None
    error: str | None = None
    tool: str = ""
    #: Current memories the new one closely resembles (id, title, score): a replacement offered,
    #: never applied (memory_remember with ``supersedes`` applies it).
    overlaps: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        out: dict[str, Any] = {
            "ok": self.ok, "tool": self.tool, "scopeKey": self.scope_key, "id": self.id,
            "resident": self.resident, "version": self.version,
            "confirmationRequired": self.confirmation_required,
            "candidates": [dict(c) for c in self.candidates], "message": self.message,
        }
        if self.raw_session_retained is not None:
            out["rawSessionRetained"] = self.raw_session_retained
        if self.error is not None:
            out["error"] = self.error
        if self.overlaps:
            out["overlaps"] = [dict(o) for o in self.overlaps]
        return out

    def text(self) -> str:
        """What the model reads: a confirmation request naming the candidates, or what changed."""
        if self.confirmation_required:
            named = "; ".join(f"{c['id']} ({c['title']})" for c in self.candidates)
            return (f"Confirmation required: {self.message} Candidates: {named}. Ask the user which one "
                    f"they mean, then call {self.tool or 'the tool'} again with its id. Nothing was changed.")
        if not self.ok:
            return f"Not done: {self.error}"
        if self.tool == "memory_get_resident":
            return f"{self.message}\n\n{self.resident}" if self.resident else f"{self.message} The Resident is empty."
        tail = " Raw session evidence is retained." if self.raw_session_retained else ""
        return f"{self.message}{tail} Resident version {self.version or '-'}."

    def __repr__(self) -> str:
        state = "confirm" if self.confirmation_required else ("ok" if self.ok else "refused")
        return f"ToolResult({self.tool or '?'}: {state}, id={self.id!r}, version={self.version!r})"


# ---------------------------------------------------------------------------- the toolbox


class ToolMemory(Protocol):
    """What the tools use of an open :class:`riko.Memory` (the facade satisfies it)."""

    @property
    def clock(self) -> "Clock": ...
    @property
    def config(self) -> "RikoConfig": ...
    @property
    def context(self) -> "ScopeContext": ...
    @property
    def scope(self) -> "MemoryScope": ...
    @property
    def warehouse(self) -> "Warehouse": ...


class ToolBox:
    """The six memory tools of one memory scope, bound to one agent session.

    ``mem`` is an open :class:`riko.Memory`; ``session_id`` is the calling session, whose latest
    raw user message in L0 authorises every write. Without a session every call raises
    :class:`~riko.errors.ScopeError` (``memory tool requires an agent session``).
    """

    def __init__(self, mem: ToolMemory, session_id: str) -> None:
        self.mem = mem
        self.session_id = session_id.strip() if isinstance(session_id, str) else ""

    def __repr__(self) -> str:
        return f"<riko.ToolBox scope={self.scope_key!r} session={self.session_id!r}>"

    @property
    def scope_key(self) -> str:
        return self.mem.scope.key

    def schemas(self, shape: str = "openai") -> list[dict[str, object]]:
        """Tool definitions for a model request: ``"openai"`` or ``"anthropic"`` shape."""
        return tool_schemas(shape)

    def call(self, name: str, arguments: Mapping[str, object] | str | None = None) -> ToolResult:
        """Run one tool call; ``arguments`` may be a mapping or the JSON string a model sent.

        Refusals and layer errors come back as ``ok=False`` results; only a missing session
        (:class:`ScopeError`) and a write on a read-only memory (``ReadOnlyError``) raise.
        """
        if not self.session_id:
            raise ScopeError(MISSING_SESSION)
        spec = _SPECS.get(name)
        if spec is None:
            return self._result(str(name), ok=False, error=f"unknown tool {name!r}; expected one of {', '.join(TOOL_NAMES)}")
        if spec.writes:
            self.mem.warehouse.require_writable()
        try:
            args = _arguments(spec, arguments)
            handler = getattr(self, "_" + spec.name.removeprefix("memory_"))
            return handler(**args)
        except _Refused as exc:
            if spec.writes:
                self._audit_refusal(spec.name, str(exc))
            return self._result(spec.name, ok=False, error=str(exc))
        except (AuthorityError, StateError, NotFoundError, WikiFormatError) as exc:
            return self._result(spec.name, ok=False, error=str(exc))

    # -- shared ---------------------------------------------------------------------------------
    def _snapshot(self) -> tuple[str, str]:
        """The current Resident text and version, read without writing anything."""
        store = self.mem.context.resident
        try:
            compiled = store.compile()
        except Exception:  # a failing compile leaves the last valid Resident readable
            stored = store.stored()
            return (stored.text, stored.version) if stored is not None else ("", "")
        return compiled.text, compiled.version

    def _result(self, tool: str, *, ok: bool = True, id: str | None = None, message: str = "",
                error: str | None = None, **extra: Any) -> ToolResult:
        text, version = self._snapshot()
        return ToolResult(ok=ok, scope_key=self.scope_key, id=id, resident=text, version=version,
                          message=message or (error or ""), error=error, tool=tool, **extra)

    def _audit_refusal(self, tool: str, reason: str) -> None:
        wh = self.mem.warehouse
        with wh.transaction():
            wh.audit("memory-tool-refused", "refused", tool, {"session_id": self.session_id, "reason": reason})

    def _latest(self) -> UserEvent | None:
        return latest_user_message(self.mem.warehouse, self.mem.scope, self.session_id)

    def _event_time(self, event: UserEvent) -> datetime:
        when = self.mem.context.stores.evidence.line_time(event.session_id, event.seq)
        return utc(when) if when is not None else self.mem.clock.now()

    def _live_pages(self) -> list[Page]:
        return [p for p in self.mem.context.canon.pages() if p.status == "confirmed"]

    # -- memory_get_resident --------------------------------------------------------------------
    def _get_resident(self) -> ToolResult:
        text, version = self._snapshot()
        return ToolResult(ok=True, scope_key=self.scope_key, id=None, resident=text, version=version,
                          message=f"Resident of scope {self.scope_key} (version {version or '-'}).",
                          tool="memory_get_resident")

    # -- memory_remember ------------------------------------------------------------------------
    def _remember(self, content: str, sensitivity: str | None = None, supersedes: str | None = None,
                  expires: str | None = None) -> ToolResult:
        claim = content.strip()
        latest = self._latest()
        if latest is None or not claim_in_latest(claim, latest):
            raise _Refused(REMEMBER_REFUSAL)
        old = self._superseded(claim, supersedes, latest) if supersedes is not None else None
        try:
            valid_to = parse_expires(expires, self.mem.clock.now()) if expires is not None else None
        except InvalidArgumentError as exc:
            raise _Refused(str(exc)) from None
        baseline = "sensitive" if sensitivity == "sensitive" else "normal"
        level = classify_text(claim, baseline)
        review = self.mem.context.review
        same = next((p for p in self._current_pages() if normalize_claim(p.description) == normalize_claim(claim)), None)
        if same is not None:
            if baseline == "sensitive" and same.sensitivity != "sensitive":
                review.set_sensitivity(same.id, "sensitive", authority="user")
            retired = ""
            if old is not None and old.id != same.id:
                retire_superseded(self.mem.context, old, same.id, authority="user")
                retired = f"; it now supersedes {old.id}"
            aliases = self._apply_coreference(latest)
            return self._result("memory_remember", id=same.id,
                                message=f"Already remembered as {same.id}; nothing new was written{retired}{aliases}.")
        when = self._event_time(latest)
        transition = self._transition_target(claim, when) if (
            old is None and valid_to is None and self.mem.config.temporal_reconcile_enabled and looks_temporal(claim)) else None
        if transition is not None:
            page = review.replace(transition.id, claim, when, authority="user", evidence=latest.ref)
            if baseline == "sensitive" and page.sensitivity != "sensitive":
                page = review.set_sensitivity(page.id, "sensitive", authority="user")
            aliases = self._apply_coreference(latest)
            return self._result("memory_remember", id=page.id,
                                message=f"Memory updated over time: {page.id} replaces {transition.id} from "
                                        f"{when.isoformat()}{aliases}.")
        extra: dict[str, Any] = {}
        if old is not None:
            extra["supersedes"] = old.id
        if valid_to is not None:
            extra["valid_to"] = valid_to
        page = review.create_page(
            protected_title(claim, latest.ref) if level != "normal" else _title(claim), "", type="concept", authority="user", audit_kind="memory-remembered",
            id=make_page_id(f"{self.scope_key}:remember:{latest.ref}:{normalize_claim(claim)}"),
            description=claim, sources=[latest.ref], sensitivity=level, observed_at=when, **extra)
        if level != baseline:
            wh = self.mem.warehouse
            with wh.transaction():
                wh.audit("memory-sensitivity-classified", "deterministic_rule", page.id, {"from": baseline, "to": level})
        aliases = self._apply_coreference(latest)
        message = f"Memory remembered as {page.id} ({page.sensitivity})"
        if valid_to is not None:
            message += f", true through {expires}"
        if old is not None:
            retire_superseded(self.mem.context, old, page.id, authority="user")
            return self._result("memory_remember", id=page.id, message=f"{message}; it supersedes {old.id}{aliases}.")
        near = overlaps(self.mem.context.canon.pages(), claim, exclude=[page.id])
        if near:
            named = "; ".join(f"{o['id']} ({o['title']})" for o in near)
            message += (f"{aliases}. It closely resembles {named}. If the user's claim replaces one of them, call "
                        f"memory_remember again with supersedes set to its id; nothing was superseded")
            return self._result("memory_remember", id=page.id, message=message + ".", overlaps=near)
        return self._result("memory_remember", id=page.id, message=f"{message}{aliases}.")

    def _superseded(self, claim: str, ref: str, latest: UserEvent) -> Page:
        """The current page ``supersedes`` names, when the claim is about the same thing."""
        try:
            old = resolve_page(self._live_pages(), ref)
        except (InvalidArgumentError, NotFoundError) as exc:
            raise _Refused(f"supersedes: {exc}") from None
        material = "\n".join(filter(None, (old.title, old.description, old.body)))
        related = overlap_score(claim, material) >= _TRANSITION_OVERLAP or normalize_claim(ref) in normalize_claim(latest.text)
        if not related:
            raise _Refused(f"supersedes names {old.id} ({old.title}), which the claim is not about; a memory may "
                           "only replace one it corrects (or one the user's message names)")
        return old

    def _current_pages(self) -> list[Page]:
        return [p for p in self._live_pages() if p.valid_to is None and p.superseded_by is None]

    def _transition_target(self, claim: str, when: datetime) -> Page | None:
        """The one current page this claim changes over time, or None when none or several fit."""
        query = _TRANSITION.sub(" ", _fold(claim))
        wanted = set(tokenize(query))
        pool = [p for p in self._current_pages() if p.valid_from is None or p.valid_from < when]
        if not wanted or not pool:
            return None
        by_id = {p.id: p for p in pool}
        hits = []
        for pid, score in BM25Index([(p.id, f"{p.title}\n{p.description}") for p in pool]).search(query, k=MAX_CANDIDATES):
            have = set(tokenize(f"{by_id[pid].title}\n{by_id[pid].description}"))
            shared = len(wanted & have)
            if have and max(shared / len(wanted), shared / len(have)) >= _TRANSITION_OVERLAP:
                hits.append((pid, score))
        if not hits:
            return None
        close = [pid for pid, score in hits if score >= hits[0][1] * AMBIGUITY_MARGIN]
        return by_id[close[0]] if len(close) == 1 else None

    def _apply_coreference(self, latest: UserEvent) -> str:
        """Record ``Title(Alias)`` / ``Alias Title`` forms the user typed as explicit alias edges."""
        wh, scope, clock = self.mem.warehouse, self.mem.scope, self.mem.clock
        pages = self._live_pages()
        added = []
        for sentence in _SENTENCES.split(latest.text):
            for entity_id, alias in explicit_coreferences(sentence, pages):
                if resolve_alias(wh, scope, clock, alias) == entity_id:
                    continue
                upsert_alias(wh, scope, clock, entity_id, alias, resolution_kind="explicit_coreference",
                             confidence=1.0, source_refs=(latest.ref,))
                added.append(f"{alias!r} → {entity_id}")
        return f"; alias {', '.join(added)}" if added else ""

    # -- memory_correct -------------------------------------------------------------------------
    def _correct(self, id: str, content: str) -> ToolResult:
        replacement = content.strip()
        latest = self._latest()
        if latest is None or not claim_in_latest(replacement, latest):
            raise _Refused(CORRECT_REFUSAL)
        page = self.mem.context.review.correct(id.strip(), replacement, authority="user", evidence=latest.ref,
                                               request=latest.ref)
        return self._result("memory_correct", id=page.id,
                            message=f"Memory {page.id} corrected (version {page.version}, {page.sensitivity}).")

    # -- memory_forget / memory_suppress / memory_restore ---------------------------------------
    def _authorised_target(self, tool: str, id: str | None, target: str | None) -> Page | ToolResult:
        """Check the cue and the target against the latest user message, then resolve one page.

        The page must be one the latest raw user message names: its id written there, a target
        text copied from there, or (for an id the model chose after a confirmation request) a
        page sharing content words with what the user wrote beside the cue.
        """
        action = _ACTION_OF[tool]
        latest = self._latest()
        if latest is None or not has_cue(action, latest.text):
            raise _Refused(f"{tool} requires an explicit {_CUE_NAME[action]} cue in the latest raw user message")
        if target is not None and not claim_in_latest(target, latest):
            raise _Refused(TARGET_REFUSAL.format(tool=tool))
        if id is not None:
            page = self.mem.context.canon.get(id.strip())
            if not self._named_by(page, action, latest, target):
                raise _Refused(TARGET_REFUSAL.format(tool=tool))
            return page
        if target is None:
            raise _Refused(f"{tool} needs an id or a target copied from the latest user message")
        return self._resolve(tool, target)

    def _named_by(self, page: Page, action: str, latest: UserEvent, target: str | None) -> bool:
        """True when the latest user message names ``page``: by id, by an active alias, or by its words."""
        folded = _fold(latest.text)
        if page.id.casefold() in folded:
            return True
        aliases = [(a,) for a in self.mem.context.stores.aliases.active_aliases_of(page.id)]
        if any(_fold(a) and _fold(a) in folded and resolve_alias(self.mem.warehouse, self.mem.scope, self.mem.clock, a) == page.id
               for (a,) in aliases):
            return True
        said = strip_request(action, target if target is not None else folded)
        wanted = set(tokenize(said)) - _FILLER
        return bool(wanted & set(tokenize(f"{page.title}\n{page.description}\n{page.body}")))

    def _resolve(self, tool: str, target: str) -> Page | ToolResult:
        """One page for ``target``: an active alias, else an exact title, else a clear lexical winner."""
        canon = self.mem.context.canon
        entity = resolve_alias(self.mem.warehouse, self.mem.scope, self.mem.clock, target)
        if entity is not None and canon.exists(entity) and canon.get(entity).status == "confirmed":
            return canon.get(entity)
        live = self._live_pages()
        # Prefer pages the action can apply to, so "bring back tea" looks among suppressed pages.
        fits = {"memory_suppress": lambda p: p.usage_policy != "suppressed",
                "memory_restore": lambda p: p.usage_policy == "suppressed"}.get(tool, lambda p: True)
        for pool in ([p for p in live if fits(p)], live):
            wanted = normalize_claim(target)
            exact = [p for p in pool if wanted in (normalize_claim(p.title), normalize_claim(p.description))]
            if len(exact) == 1:
                return exact[0]
            hits = BM25Index([(p.id, f"{p.title}\n{p.description}") for p in pool]).search(target, k=MAX_CANDIDATES)
            if hits:
                close = [pid for pid, score in hits if score >= hits[0][1] * AMBIGUITY_MARGIN]
                if len(close) == 1:
                    return canon.get(close[0])
                by_id = {p.id: p for p in pool}
                return self._result(
                    tool, ok=False, confirmation_required=True,
                    candidates=[_candidate(by_id[pid]) for pid in close],
                    message=f"{len(close)} memories match {target!r}.",
                    error=f"{tool} target {target!r} is ambiguous; confirm one id")
        return self._result(tool, ok=False,
                            error=f"no memory in scope {self.scope_key} matches {target!r}; "
                                  "ask the user which memory they mean, or pass its id")

    def _forget(self, id: str | None = None, target: str | None = None) -> ToolResult:
        page = self._authorised_target("memory_forget", id, target)
        if isinstance(page, ToolResult):
            return page
        wh, scope, clock = self.mem.warehouse, self.mem.scope, self.mem.clock
        latest = self._latest()
        out = self.mem.context.review.forget(page.id, authority="user", request=latest.ref if latest else None,
                                      invalidate_aliases=lambda pid: invalidate_entity_aliases(wh, scope, clock, pid))
        return self._result("memory_forget", id=page.id, raw_session_retained=bool(out.get("raw_session_retained", True)),
                            message=f"Memory {page.id} forgotten; it leaves future Residents and recall.")

    def _suppress(self, id: str | None = None, target: str | None = None) -> ToolResult:
        page = self._authorised_target("memory_suppress", id, target)
        if isinstance(page, ToolResult):
            return page
        latest = self._latest()
        self.mem.context.review.suppress(page.id, reason="user-requested-suppression", authority="user",
                                         request=latest.ref if latest else None)
        return self._result("memory_suppress", id=page.id,
                            message=f"Memory {page.id} suppressed with its evidence; memory_restore undoes it.")

    def _restore(self, id: str | None = None, target: str | None = None) -> ToolResult:
        page = self._authorised_target("memory_restore", id, target)
        if isinstance(page, ToolResult):
            return page
        latest = self._latest()
        self.mem.context.review.restore(page.id, reason="user-requested-restore", authority="user",
                                        request=latest.ref if latest else None)
        return self._result("memory_restore", id=page.id,
                            message=f"Memory {page.id} ({_label(page)}) restored; it may be mentioned again.")


def _label(page: Page) -> str:
    """How a page is named to the model: its title, or a fixed label when it is protected."""
    return page.title if page.sensitivity == "normal" else PROTECTED_LABEL


def _candidate(page: Page) -> dict[str, str]:
    """A candidate target as shown to the model; protected content is not repeated, title included."""
    summary = page.summary() if page.sensitivity == "normal" else f"({PROTECTED_LABEL})"
    return {"id": page.id, "title": _label(page), "summary": summary}
