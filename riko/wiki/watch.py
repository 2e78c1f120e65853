"""Hand edits seen live: a background watcher that syncs a page file soon after it changes.

A person editing a page in a text editor (or ``git checkout``) is a management action; the
watcher runs the same ``sync`` as ``riko wiki sync`` within a fraction of a second, so a running
server, MCP server or notebook serves the new body and Resident. A malformed edit comes back
in the report with file, line and field, and the previous version keeps serving: sync never
overwrites a page file it cannot read.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any, Callable

import watchfiles

from ..errors import RikoError

__all__ = ["WikiWatcher", "is_page_file", "log_report"]

log = logging.getLogger("riko.wiki.watch")
#: Quiet time after the last change before a sync runs: an editor's save (write, rename,
#: chmod) is one burst, and a checkout of many files one sync.
DEBOUNCE_MS = 150


def is_page_file(path: str | Path) -> bool:
    """Whether ``path`` is a page file (``*.md``), not a temporary file or the generated Resident."""
    p = Path(path)
    return p.suffix == ".md" and not p.name.startswith(".") and p.name != "RESIDENT.md"


def log_report(report: Any, already: frozenset[str] = frozenset()) -> frozenset[str]:
    """Log what a sync did when no one else shows it (``riko serve``, ``riko mcp``, a notebook):
    a refused file is a warning with its file, line and field, an applied change is info.

    A broken file is refused again by every sync until it is fixed: a refusal in ``already``
    (what the previous call returned) is not logged twice. Returns the refusals now standing.
    """
    if isinstance(report, RikoError):
        log.warning("riko: sync after a page-file change failed: %s", report)
        return already
    if isinstance(report, BaseException):
        return already  # logged with its traceback where it was raised
    for verb in ("added", "edited", "deleted"):
        for page_id in getattr(report, verb, ()):
            log.info("%s %s", verb, page_id)
    refused = frozenset(str(error) for error in getattr(report, "errors", ()))
    for message in sorted(refused - already):
        log.warning("riko: refused %s; the previous version keeps serving", message)
    return refused


class WikiWatcher:
    """Watch ``folder`` and call ``sync()`` after each burst of page-file changes.

    ``on_report(report)`` receives each sync's report (or the :class:`~riko.errors.RikoError`
    it raised, e.g. a lock wait past its bound); without one, each report is logged
    (:func:`log_report`) so a refused edit is never silent. The thread never dies of a failed sync.
    """

    def __init__(self, folder: str | Path, sync: Callable[[], Any], *,
                 on_report: Callable[[Any], None] | None = None, debounce_ms: int = DEBOUNCE_MS) -> None:
        self.folder = Path(folder)
        self.sync = sync
        self.on_report = on_report
        self.debounce_ms = debounce_ms
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None
        self._refused: frozenset[str] = frozenset()  # refusals already logged

    def start(self) -> "WikiWatcher":
        """Start watching in a daemon thread; returns once the watch is in place."""
        self.folder.mkdir(parents=True, exist_ok=True)
        self._thread = threading.Thread(target=self._run, name=f"riko-wiki-watch:{self.folder.name}", daemon=True)
        self._thread.start()
        self._ready.wait(5)
        # An edit made between the memory's own sync on open and the watch taking hold would
        # wait for the next change: one catch-up sync covers it (unchanged files cost a stat).
        self._stop.wait(0.1)
        self._report(self._sync_once())
        return self

    def stop(self) -> None:
        """Stop watching (idempotent); waits briefly for the thread."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(5)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _run(self) -> None:
        def pages_only(change: Any, path: str) -> bool:
            return is_page_file(path)

        self._ready.set()
        for _changes in watchfiles.watch(self.folder, watch_filter=pages_only, stop_event=self._stop,
                                         debounce=self.debounce_ms, step=20, rust_timeout=500,
                                         yield_on_timeout=False, raise_interrupt=False):
            if self._stop.is_set():
                break
            self._report(self._sync_once())

    def _sync_once(self) -> Any:
        try:
            return self.sync()
        except RikoError as exc:  # a lock wait past its bound, a closed memory: report and go on
            return exc
        except Exception as exc:  # never let the watcher die silently
            log.exception("sync after a page-file change failed")
            return exc

    def _report(self, report: Any) -> None:
        if self.on_report is None:
            self._refused = log_report(report, self._refused)
        else:
            try:
                self.on_report(report)
            except Exception:
                log.exception("wiki watch report callback failed")
