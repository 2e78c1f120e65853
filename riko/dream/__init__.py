"""Dream: the background pass that proposes candidate pages from session evidence.

This package holds the parts that need no database: the bounded transcript, the FILE
protocol parser, the prompts, the providers (offline heuristic and HTTP models), error
sanitising and reflection parsing.

    >>> from riko.dream import HeuristicProvider, Transcript, TranscriptLine, parse_file_blocks
    >>> t = Transcript("s1", (TranscriptLine(1, "user", "I prefer green tea."),))
    >>> parse_file_blocks(HeuristicProvider().extract(t)).pages[0].title
    'I prefer green tea'
"""

from __future__ import annotations

from .heuristic import HeuristicProvider
from .http_providers import AnthropicProvider, GoogleProvider, OpenAICompatibleProvider
from .prompt import build_extraction_prompt, build_reflection_prompt, prompt_key
from .protocol import (
    FOLDER_TYPES,
    SENSITIVITY_LEVELS,
    ParseResult,
    ProposedPage,
    extract_wikilinks,
    normalize_text,
    parse_file_blocks,
)
from .providers import (
    DreamProvider,
    ProviderChain,
    endpoint_for,
    is_credential_ref_name,
    make_provider,
    resolve_endpoint,
    validate_endpoint_url,
)
from .reflection import Anchor, ProposedObservation, ReflectionRequest, parse_reflection
from .sanitize import sanitize_error
from .transcript import Transcript, TranscriptLine

__all__ = [
    "Transcript",
    "TranscriptLine",
    "ProposedPage",
    "ParseResult",
    "FOLDER_TYPES",
    "SENSITIVITY_LEVELS",
    "parse_file_blocks",
    "normalize_text",
    "extract_wikilinks",
    "build_extraction_prompt",
    "build_reflection_prompt",
    "prompt_key",
    "DreamProvider",
    "HeuristicProvider",
    "OpenAICompatibleProvider",
    "AnthropicProvider",
    "GoogleProvider",
    "ProviderChain",
    "make_provider",
    "resolve_endpoint",
    "endpoint_for",
    "validate_endpoint_url",
    "is_credential_ref_name",
    "sanitize_error",
    "Anchor",
    "ReflectionRequest",
    "ProposedObservation",
    "parse_reflection",
]
