"""MarkWriter: how a screen writes the user's marks and notes into `ocr.db` (`api.write_mark`,
in a thread worker, never on the UI thread), says what happened in one toast, keeps what
undoes it for `u`, and reads its data again. A mixin of the screens with triage keys.

Nothing is written with `--read-only` (or `read_only = true`): the keys say so instead.
"""

from __future__ import annotations

from pathlib import Path

import msgspec
from textual import work

from ocr_tui.core.textsafe import safe_line
from ocr_tui.formats.ocr import api


def read_only(app) -> bool:
    return bool(getattr(getattr(app, "prefs", None), "read_only", False))


def writes_off(app, session_id: str | None) -> str | None:
    """Why marks and notes are not written for this session (None: they are): `--read-only`,
    or a remote project's session (written on local projects only)."""
    if read_only(app):
        return "Writing is off (--read-only): marks and notes are not written."
    view = (getattr(app, "sessions", None) or {}).get(session_id) if session_id else None
    if view is not None and view.host:
        return (f"{safe_line(str(view.project))} is on {safe_line(view.host)}: marks and notes"
                " are written on local projects only.")  # fmt: skip
    return None


def store_id(app, session_id: str) -> str:
    """The session's id in its project's ocr.db (with several projects the app's ids start
    with the project's name)."""
    from ocr_tui.core.view import own_id

    view = (getattr(app, "sessions", None) or {}).get(session_id)
    return own_id(session_id, getattr(view, "project", None)) if view is not None else session_id


def db_of(app, session_id: str) -> Path | None:
    """The `ocr.db` of the session's project (it may not exist: the write says so)."""
    project_of = getattr(app, "project_of", None)
    project = project_of(session_id) if project_of else getattr(app, "project", None)
    return getattr(project, "db_path", None)


class MarkWriter:
    """`write_marks(session_id, marks, undo, said)`; `action_undo_mark` writes `undo`."""

    undo_marks: tuple[str, list] | None = None  # (session, the marks that undo the last)

    def write_marks(self, session_id: str, marks: list, undo: list, said: str) -> None:
        off = writes_off(self.app, session_id)
        if off is not None:
            self.app.bell()
            self.notify(off, severity="warning", timeout=4, markup=False)
            return
        db = db_of(self.app, session_id)
        if db is None:
            self.notify("No project: nothing to mark.", severity="warning", markup=False)
            return
        self.undo_marks = None  # `u` before this write reports back must not undo the one before
        self._write_marks(session_id, db, marks, undo, said)

    @work(thread=True, group="marks", exit_on_error=False)
    def _write_marks(self, session_id: str, db: Path, marks: list, undo: list, said: str) -> None:
        done, problem, pending = 0, None, False
        for m in marks:
            try:
                api.write_mark(db, m)
                done += 1
            except api.Pending as exc:
                done, pending, problem = done + 1, True, str(exc)
            except api.Refused as exc:
                problem = str(exc)
                break
        self.app.call_from_thread(
            self._marks_written, session_id, done, len(marks), problem, pending, undo[:done], said
        )

    def _marks_written(
        self, session_id: str, done: int, asked: int, problem: str | None, pending: bool,
        undo: list, said: str,
    ) -> None:  # fmt: skip
        if done:
            self.undo_marks = (session_id, undo) if undo else None
            tail = " · u undoes" if undo else ""
            part = f" ({done} of {asked})" if done < asked else ""
            self.notify(f"{said}{part}{tail}", timeout=3, markup=False)
        if problem:
            self.notify(safe_line(problem), severity="warning" if pending else "error",
                        timeout=8, markup=False)  # fmt: skip
        if done:
            from ocr_tui.ui.screens.ocr.triage.keeper import keep

            self.marks_changed()
            keep(self.app, db_of(self.app, session_id))  # until each mark is known safe

    def marks_changed(self) -> None:
        """Read the screen's data again (the watcher also sees the file change)."""
        load = getattr(self, "load", None)
        if load is not None:
            load()

    def action_undo_mark(self) -> None:
        """`u`: put back what the last mark on this screen changed."""
        if self.undo_marks is None:
            self.app.bell()
            self.notify("Nothing to undo.", timeout=2, markup=False)
            return
        session_id, undo = self.undo_marks
        self.undo_marks = None
        at = api.now_sql()
        marks = [m if getattr(m, "remove", False) else msgspec.structs.replace(m, at=at)
                 for m in undo]  # fmt: skip
        self.write_marks(session_id, marks, [], f"Undone: {len(marks)} mark(s) put back")
