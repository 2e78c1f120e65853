"""Where page files live and how they are read and written.

Layout: ``<wiki_root>/<owner>/<preset>/<folder>/<slug>.md``. Writes are atomic (a temp file in
the same directory, fsync, ``os.replace``), so a reader or a crash never sees half a page.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path
from typing import Iterator

from .. import faults
from ..errors import ScopeError, StorageError, WikiFormatError
from ..private_files import private_dir
from ..scope import validate_profile_id
from .page import TYPE_FOLDERS, Page, parse_page, slugify

__all__ = [
    "RESIDENT_FILE",
    "page_path",
    "unique_page_path",
    "write_atomic",
    "fsync_dir",
    "scan_pages",
    "page_files",
    "stray_page_files",
    "read_bytes",
    "read_page_file",
]

RESIDENT_FILE = "RESIDENT.md"  # generated beside the pages; never a page itself
_DEFAULT_MODE = 0o600  # page files hold the user's words: the owner's alone
_READ_CHUNK = 1 << 16


def _scope_dir(wiki_root: Path, owner: str, preset: str) -> Path:
    for what, value in (("owner", owner), ("preset", preset)):
        validate_profile_id(value, what)
        if set(value) == {"."}:
            raise ScopeError(f"{what} {value!r} is not a usable directory name")
    return Path(wiki_root) / owner / preset


def _folder(page: Page) -> str:
    try:
        return TYPE_FOLDERS[page.type]
    except KeyError:
        raise WikiFormatError(
            f"unknown page type {page.type!r}; expected one of {', '.join(TYPE_FOLDERS)}",
            field="type",
        ) from None


def page_path(wiki_root: Path, owner: str, preset: str, page: Page) -> Path:
    """The natural file of ``page``: ``<wiki_root>/<owner>/<preset>/<folder>/<slug>.md``.

    >>> page = Page(id="p-1", type="entity", title="Mika")
    >>> page_path(Path("wiki"), "local", "companion", page).as_posix()
    'wiki/local/companion/entities/mika.md'
    """
    return _scope_dir(wiki_root, owner, preset) / _folder(page) / f"{slugify(page.title)}.md"


def unique_page_path(
    wiki_root: Path, owner: str, preset: str, page: Page, taken: set[Path]
) -> Path:
    """:func:`page_path`, or ``<slug>-2.md``, ``<slug>-3.md`` ... when the path is in ``taken``.

    ``taken`` holds the paths of *other* pages; leave out the file ``page`` already has, so a
    page keeps its path across rewrites.
    """
    base = page_path(wiki_root, owner, preset, page)
    candidate, n = base, 1
    while candidate in taken:
        n += 1
        candidate = base.with_name(f"{base.stem}-{n}{base.suffix}")
    return candidate


def write_atomic(path: Path, text: str, *, sync_dir: bool = True) -> None:
    """Replace ``path`` with ``text`` (UTF-8, ``\\n`` kept as is) all at once, or not at all.

    Parent directories are created. An existing file keeps its permission bits; on any failure
    it is left untouched and the temporary file is removed. ``sync_dir=False`` leaves making the
    rename durable to the caller (:func:`fsync_dir`, once for many files of one folder).
    """
    path = Path(path)
    kind = faults.file_kind(path) if faults.ARMED else ""
    try:
        private_dir(path.parent)
        try:
            mode = stat.S_IMODE(path.stat().st_mode)
        except FileNotFoundError:
            mode = _DEFAULT_MODE
        # the writer's pid in the name lets a later open tell a dead process's leftover from a live one
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise StorageError.from_os(exc, path) from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            if faults.ARMED:
                faults.hit(f"{kind}.write")
            handle.write(text)
            handle.flush()
            if faults.ARMED:
                faults.hit(f"{kind}.fsync")
            os.fsync(handle.fileno())
        os.chmod(tmp_name, mode)
        if faults.ARMED:
            faults.hit(f"{kind}.rename")
        os.replace(tmp_name, path)
    except BaseException as exc:
        Path(tmp_name).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise StorageError.from_os(exc, path) from exc
        raise
    if sync_dir:
        fsync_dir(path.parent)


def fsync_dir(directory: Path) -> None:
    """Make the rename itself durable where the platform allows opening a directory."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some filesystems refuse fsync on a directory; the rename is still atomic
    finally:
        os.close(fd)


def _collect(directory: str, prefix: str, out: list[tuple[str, str]]) -> None:
    """Depth-first over ``directory`` with each level sorted by name: the sorted order of paths."""
    try:
        with os.scandir(directory) as found:
            entries = sorted(found, key=lambda entry: entry.name)
    except PermissionError:
        return
    for entry in entries:
        name = entry.name
        if name.startswith("."):
            continue
        if entry.is_dir() and not entry.is_symlink():
            _collect(entry.path, f"{prefix}{name}/", out)
        elif name.endswith(".md") and name != RESIDENT_FILE and entry.is_file():
            out.append((prefix + name, entry.path))


def page_files(scope_dir: Path) -> list[tuple[str, str]]:
    """``(relative POSIX path, full path)`` of every page file of a scope, sorted like paths.

    The files :func:`scan_pages` reads, listed without reading them: ``*.md`` under the seven
    type folders; dotfiles, dot-directories, ``RESIDENT.md`` and linked directories skipped.
    """
    root = str(Path(scope_dir))
    out: list[tuple[str, str]] = []
    for folder in sorted(set(TYPE_FOLDERS.values())):
        top = os.path.join(root, folder)
        if os.path.isdir(top):
            _collect(top, f"{folder}/", out)
    return out


def stray_page_files(scope_dir: Path) -> list[tuple[str, str]]:
    """``(relative POSIX path, full path)`` of every ``*.md`` in a scope's folder that is *not*
    under one of the seven type folders (a page file moved out of them), sorted like paths;
    dotfiles, dot-directories, ``RESIDENT.md`` and linked directories skipped. Not read as pages."""
    root = str(Path(scope_dir))
    out: list[tuple[str, str]] = []
    try:
        with os.scandir(root) as found:
            entries = sorted(found, key=lambda entry: entry.name)
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return out
    folders = set(TYPE_FOLDERS.values())
    for entry in entries:
        name = entry.name
        if name.startswith(".") or name in folders:
            continue
        if entry.is_dir() and not entry.is_symlink():
            _collect(entry.path, f"{name}/", out)
        elif name.endswith(".md") and name != RESIDENT_FILE and entry.is_file():
            out.append((name, entry.path))
    return out


def read_bytes(path: str) -> bytes:
    """A file's bytes through plain system calls, cheaper than a buffered file object when a
    sync reads thousands of small page files."""
    fd = os.open(path, os.O_RDONLY)
    try:
        chunks = []
        while chunk := os.read(fd, _READ_CHUNK):
            chunks.append(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks)


def scan_pages(scope_dir: Path) -> Iterator[tuple[Path, str]]:
    """Every ``*.md`` under the scope's seven type folders, sorted, with its text.

    Dotfiles, dot-directories and ``RESIDENT.md`` are skipped. A file that is not valid UTF-8 is
    still yielded (undecodable bytes kept as surrogate escapes) so that :func:`parse_page`
    reports it with its line instead of the scan stopping.
    """
    for _, path in page_files(scope_dir):
        yield Path(path), read_bytes(path).decode("utf-8", errors="surrogateescape")


def read_page_file(path: Path) -> Page:
    """Parse the page file at ``path``; a file that is not UTF-8 raises :class:`WikiFormatError`."""
    path = Path(path)
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise WikiFormatError("file is not valid UTF-8; save it as UTF-8", path, line) from None
    return parse_page(text, path)
