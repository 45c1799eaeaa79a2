"""The session screen's triage keys (`t` the round under the Rounds cursor, else the latest;
`n` a note on the session; `N` its notes to change or delete; `u` undo), over the shared
`RoundMarks` and `NotesEditing`; and when they apply (an OCR session; one with rounds)."""

from __future__ import annotations

from ocr_tui.core.registry import is_host
from ocr_tui.ui.screens.ocr.triage.rounds import NotesEditing, RoundMarks
from ocr_tui.ui.widgets.fit_table import FitTable


class SessionMarks(NotesEditing, RoundMarks):
    def round_at_cursor(self) -> tuple[str, int, str | None] | None:
        view = self.view
        if view is None or not view.rounds:
            return None
        key = self.query_one("#rounds", FitTable).cursor_key
        rnd = next((r for r in view.rounds if r.path == key), view.rounds[-1])
        return (self.session_id, rnd.number, rnd.triage)

    def action_note_session(self) -> None:
        self.note_on_session(self.session_id)

    def marks_check(self, action: str) -> bool | None:
        """False where a triage key does nothing here; None: not one of them."""
        if self.round_writes_disabled(action):
            return False
        view = self.view
        if action == "mark_round":
            return view is not None and bool(view.rounds)
        if action in ("note_session", "edit_notes"):
            return view is not None and is_host(view.framework)
        return None

    def marks_explain(self, action: str) -> str | None:
        if why := self.round_writes_disabled(action):
            return why
        if action == "mark_round":
            return "This session has no review round to triage."
        if action in ("note_session", "edit_notes"):
            return "Notes are OCR's (ocr.db): this session is another tool's."
        return None
