"""The canonical Wiki's page files: format, wikilinks, paths and atomic writes.

The file format is specified in ``docs/wiki-format.md``.
"""

from __future__ import annotations

from .files import (
    RESIDENT_FILE,
    page_path,
    read_page_file,
    scan_pages,
    unique_page_path,
    write_atomic,
)
from .links import LINK_TYPES, WikiLink, normalize_title, parse_links, wikilink_plugin
from .page import (
    FIELD_ORDER,
    PAGE_TYPES,
    SENSITIVITIES,
    STATUSES,
    TYPE_FOLDERS,
    USAGE_POLICIES,
    Page,
    make_page_id,
    parse_page,
    render_page,
    slugify,
    validate_page,
)

__all__ = [
    "PAGE_TYPES",
    "TYPE_FOLDERS",
    "STATUSES",
    "SENSITIVITIES",
    "USAGE_POLICIES",
    "LINK_TYPES",
    "FIELD_ORDER",
    "RESIDENT_FILE",
    "Page",
    "WikiLink",
    "make_page_id",
    "slugify",
    "parse_page",
    "render_page",
    "validate_page",
    "parse_links",
    "wikilink_plugin",
    "normalize_title",
    "page_path",
    "unique_page_path",
    "write_atomic",
    "scan_pages",
    "read_page_file",
]
