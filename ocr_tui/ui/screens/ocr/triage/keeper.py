"""The dashboard's side of the marks' journal (`core.journal`): while the journal of a
project's `ocr.db` holds marks not yet known to be safe, a thread checks it every
KEEP_EVERY_S and writes again each mark a concurrent OCR write dropped
(`api.settle_marks`). Started at start-up for the project shown (marks an earlier ocr-tui
left) and after each mark written here; it ends when the journal is empty, so a dashboard
with nothing pending wakes for nothing. Never with `--read-only`."""

from __future__ import annotations

import threading
import time
from pathlib import Path

KEEP_EVERY_S = 1.0
KEEP_FOR_S = 600.0  # a journal that never empties (a store that keeps refusing): stop looking

_running: set[str] = set()
_lock = threading.Lock()


def keep(app, db: Path | None) -> None:
    """Look after the marks of `db` in a thread worker of `app` (one per store)."""
    if db is None or getattr(getattr(app, "prefs", None), "read_only", False):
        return
    key = str(db)
    with _lock:
        if key in _running:
            return
        _running.add(key)
    app.run_worker(lambda: _keep(app, db, key), thread=True, group="marks-keeper",
                   exit_on_error=False)  # fmt: skip


def _keep(app, db: Path, key: str) -> None:
    from ocr_tui.core.journal import Journal

    journal = Journal(db)
    if not journal.pending():  # the usual case: nothing pending, nothing more imported
        with _lock:
            _running.discard(key)
        return
    from ocr_tui.formats.ocr import api

    until = time.monotonic() + KEEP_FOR_S
    try:
        while time.monotonic() < until and journal.pending():
            api.settle_marks(db)
            if getattr(app, "_exit", False) or not getattr(app, "is_running", True):
                return
            time.sleep(KEEP_EVERY_S)
    finally:
        with _lock:
            _running.discard(key)
