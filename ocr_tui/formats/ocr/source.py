"""Open Code Review as a Source: `.ocr/sessions/*/` directories, with workflow position from
`.ocr/data/ocr.db` (OCR >= 1.5) or each session's `state.json` (older OCR), else from files."""

from __future__ import annotations

import os
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from ocr_tui.core.project import Project, session_dirs
from ocr_tui.core.source import Source, Touch, is_temp_name
from ocr_tui.core.textdecode import short
from ocr_tui.core.textsafe import name_key
from ocr_tui.core.view import SessionView
from ocr_tui.formats.ocr import fs as ocr_fs
from ocr_tui.formats.ocr import parse_cache
from ocr_tui.formats.ocr.db import ABSENT, DbSnapshot, load_db
from ocr_tui.formats.ocr.db_findings import read_all_findings
from ocr_tui.formats.ocr.derive import derive_session, heartbeat_due
from ocr_tui.formats.ocr.fs import read_session
from ocr_tui.formats.ocr.model import state_from_json
from ocr_tui.formats.ocr.tally import tally_rounds


def pid_alive(pid: int) -> bool:
    """Whether process `pid` exists on this machine (signal 0: nothing is sent). A process of
    another user exists too (EPERM)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError, OverflowError):
        return True
    return True


class OcrSource(Source):
    framework = "ocr"
    label = "Open Code Review"
    markers = (".ocr",)

    def __init__(self, root: Path, **kwargs) -> None:
        super().__init__(root, **kwargs)
        self.project = Project(root)
        self.db: DbSnapshot = ABSENT
        self._cache_file = parse_cache.cache_file(root)
        self._cache_loaded = False
        p = self.project
        self._exact = {str(p.ocr_dir), str(p.sessions_dir), str(p.data_dir), str(p.db_path)}
        self._sessions_prefix = str(p.sessions_dir) + os.sep

    # -- where ------------------------------------------------------------------------------

    def watch_dirs(self) -> list[Path]:
        return [self.project.ocr_dir]

    def homes(self) -> list[Path]:
        return [self.project.sessions_dir]

    def accept(self, path: str) -> bool:
        """Only what can change a session: anything under sessions/ but temp files, ocr.db."""
        if path in self._exact:
            return True
        if path.startswith(self._sessions_prefix):
            return not is_temp_name(os.path.basename(path))
        return False

    def list_sessions(self) -> dict[str, Path]:
        return {name_key(p.name): p for p in session_dirs(self.project)}

    def touched(self, paths: Iterable[Path]) -> Touch:
        """A change to ocr.db re-derives the sessions whose rows or findings rows changed
        (every session when its readability changed); a change to the sessions directory
        itself re-lists it."""
        t = Touch()
        p = self.project
        sessions_dir = p.sessions_dir
        db_touched = False
        for path in paths:
            if path == sessions_dir or (sessions_dir.is_relative_to(path) and path != sessions_dir):
                t.relist = True
                continue
            if path.parent == p.data_dir or path == p.data_dir:
                db_touched = True
                continue
            try:
                rel = path.relative_to(sessions_dir)
            except ValueError:
                continue
            if not rel.parts or rel.parts[0].startswith("."):
                continue
            t.keys.add(name_key(rel.parts[0]))
            if path.parent == sessions_dir:
                t.relist = True
        if db_touched:
            old = self.db
            if self._refresh_db():
                new = self.db
                for sid in set(old.rows) | set(new.rows):
                    if old.rows.get(sid) != new.rows.get(sid):
                        t.keys.add(sid)
                for sid in set(old.findings) | set(new.findings):
                    if old.findings.get(sid) != new.findings.get(sid):
                        t.keys.add(sid)
                if old.error != new.error or old.findings_error != new.findings_error:
                    t.everything = True
        return t

    # -- what -------------------------------------------------------------------------------

    def _refresh_db(self) -> bool:
        """Re-read ocr.db if it changed; True when its content may differ."""
        new = load_db(self.project.db_path, self.db, findings=read_all_findings)
        changed = new is not self.db
        self.db = new
        return changed

    def derive(self, key: str, path: Path, now: datetime) -> SessionView:
        problems: list[str] = []
        row = self.db.rows.get(path.name) if self.db.present else None
        if self.db.error:
            problems.append(self.db.error)
        if self.db.findings_error:
            problems.append(self.db.findings_error)
        with ocr_fs.keep_texts():  # what read_session reads, the findings model reads too
            files = read_session(path, read_state_json=row is None)
            try:  # the rows `ocr-tui findings` reads for this session (by its id, as it asks)
                tally_rounds(files, self.db.findings.get(key))
            except Exception as exc:  # a bug in the findings model: not the session's view
                problems.append(f"its findings could not be counted: {short(exc)}")
        state = row
        if state is None and files.state is not None:
            state = state_from_json(files.state)
        view = derive_session(
            files, state, now=now, stall_after=self.stall_after, problems=problems,
            pid_alive=pid_alive,
        )  # fmt: skip
        view.id = key
        return view

    def expires(self, view: SessionView) -> datetime | None:
        """The stall threshold, or sooner, when a running agent's heartbeat turns stale."""
        due = [t for t in (super().expires(view), heartbeat_due(view)) if t is not None]
        return min(due, default=None)

    # -- caches -----------------------------------------------------------------------------

    def begin_scan(self) -> None:
        if not self._cache_loaded:  # serve parse results from the persistent cache (once)
            self._cache_loaded = True
            ocr_fs.use_persisted(parse_cache.load(self._cache_file))
        self._refresh_db()

    def end_scan(self) -> None:
        """Write the persistent cache if anything new was parsed."""
        entries, dirty = ocr_fs.cache_entries()
        if dirty and self._cache_file is not None and parse_cache.save(self._cache_file, entries):
            ocr_fs.mark_saved()
