"""Scientific Analysis Architect sessions as a Source (seed 003).

Where: `<root>/.scientific-analysis-session/` (the live session), `<root>/.scientific-analysis-
session.archive/` (an old session the skill renamed; a second rename lands inside it), and the
skill's fallback `<tmp>/scientific-analysis-architect-session-{date}-{time}-{pid}[.archive]/`
directories whose `config.output_directory` (or `session_directory`) is inside the project root.
The temp directory is not watched recursively: `poll` scans it (cheap, cached by mtime) and the
sessions found there are offered to the watcher by `extra_watch_dirs`.

Finding the sessions and keying them by their `session_id` is `listing.py`'s (its docstring
says how keys stay stable); resolving the documents a state names is `documents.py`'s. This
module reads one session and hands it to `derive.py`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from ocr_tui.core.safe_read import read_tail
from ocr_tui.core.source import Source, Touch
from ocr_tui.core.textdecode import decode_text
from ocr_tui.core.view import SessionView
from ocr_tui.formats.analysis import model as A
from ocr_tui.formats.analysis.listing import MAX_ID, PRIMARY, STATE, Listing, read_state, usable_id

ERRORS_LOG = ("logs", "errors.log")
LOG_TAIL = 64 * 1024  # bytes read from the end of logs/errors.log
LOG_LINES = 50  # errors.log entries kept


class AnalysisSource(Source):
    framework = "analysis"
    label = "Scientific analysis"
    default_workflow = "analysis"
    phase_labels = (*(label for _, label in A.PHASES), "Complete")
    markers = (PRIMARY,)

    def __init__(self, root: Path, *, tmp_dir: Path | str | None = None, **kwargs) -> None:
        super().__init__(root, **kwargs)
        tmp = Path(tmp_dir or os.environ.get("OCR_TUI_ANALYSIS_TMP") or "/tmp")
        self.listing = Listing(root, tmp)
        self.primary, self.archive, self.tmp_dir = self.listing.primary, self.listing.archive, tmp
        self._expiry: dict[str, datetime] = {}

    # -- where ------------------------------------------------------------------------------

    def watch_dirs(self) -> list[Path]:
        return [self.primary, self.archive]

    def extra_watch_dirs(self) -> list[Path]:
        return self.listing.temp_dirs()  # the engine keeps the existing ones

    def list_sessions(self) -> dict[str, Path]:
        return self.listing.list_sessions()

    def poll(self) -> bool:
        return self.listing.refresh_tmp()

    def touched(self, paths: Iterable[Path]) -> Touch:
        return self.listing.touched(paths)

    # -- what -------------------------------------------------------------------------------

    def expires(self, view: SessionView) -> datetime | None:
        return self._expiry.get(view.path)  # by path: the engine may rename a clashing id

    def forget(self, key: str, path: Path) -> None:
        self._expiry.pop(str(path), None)

    def derive(self, key: str, path: Path, now: datetime) -> SessionView:
        from ocr_tui.formats.analysis import derive as D
        from ocr_tui.formats.analysis.documents import Documents

        # A reader's bug is caught by the engine (the session stays listed with the error).
        problems: list[str] = []
        if path in self.listing.notes:  # another session has its session_id
            problems.append(self.listing.notes[path])
        data, st = read_state(path / STATE, problems)
        state = A.decode_state(data, problems) if data is not None else None
        sid = state.session_id if state is not None else None
        if sid is not None and sid.strip() and usable_id(sid) is None:
            problems.append(
                f"session_id {_quote(sid)} is not usable as an id (one printable word of at "
                f"most {MAX_ID} characters): listed as {key}"
            )
        if data is None and not problems:
            problems.append(f"{STATE} is missing")
        log = _tail_errors(path.joinpath(*ERRORS_LOG), problems)
        output_dir = state.config.output_directory if state is not None else None
        mtime = st.st_mtime if st is not None else None
        docs = Documents(self.listing, path, output_dir)
        read = D.Read(state, log, mtime, docs, *self.listing.kind(path))
        view, expiry = D.build(key, path, now, read, problems, self.stall_after)
        if expiry is not None:
            self._expiry[str(path)] = expiry
        else:
            self._expiry.pop(str(path), None)
        return view


def _quote(text: str, limit: int = 40) -> str:
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


def _tail_errors(path: Path, problems: list[str]) -> list[A.ErrorEntry]:
    """The last entries of `logs/errors.log` (JSON lines); unreadable lines are counted."""
    got = read_tail(path, LOG_TAIL)
    if got is None:
        return []
    data, cut = got
    # JSON lines end at LF only (a JSON string may hold U+2028); an encoding's BOM is dropped.
    lines = decode_text(data, "logs/errors.log", []).split("\n")
    if cut and lines:
        lines = lines[1:]  # the first line is cut
    out: list[A.ErrorEntry] = []
    bad = 0
    for line in lines:
        if not line.strip():
            continue
        entry = A.decode_error_line(line)
        if entry is None:
            bad += 1
        else:
            out.append(entry)
    if bad:
        problems.append(f"logs/errors.log: {bad} line(s) are not JSON objects")
    return out[-LOG_LINES:]
