"""RoundMarks: a round's triage and notes from the keyboard, where rounds are listed (the
session screen's Rounds table, the Reviews view): the picker of the states OCR's store allows
a round (`user_round_progress`), a note on the round, `u` to undo. A mixin over `MarkWriter`;
the screen says which round is at the cursor (`round_at_cursor`)."""

from __future__ import annotations

import msgspec

from ocr_tui.core.textsafe import safe_line
from ocr_tui.formats.ocr import api
from ocr_tui.ui.screens.ocr.triage.note_editor import NoteEditor
from ocr_tui.ui.screens.ocr.triage.picker import CLEAR, ROUND_WORDS, StatePicker, choices
from ocr_tui.ui.screens.ocr.triage.writer import MarkWriter, read_only, store_id

ROUND_WRITES = ("mark_round", "note_round", "note_session", "undo_mark")


class RoundMarks(MarkWriter):
    def round_at_cursor(self) -> tuple[str, int, str | None] | None:
        """(session id, round number, its triage now) of the round at the cursor."""
        raise NotImplementedError

    def action_mark_round(self) -> None:
        at = self.round_at_cursor()
        if at is None:
            self.app.bell()
            return
        sid, number, current = at
        picker = StatePicker(
            f"Round {number} of {safe_line(store_id(self.app, sid))}",
            choices(api.ROUND_STATES, ROUND_WORDS),
            current,
        )
        self.app.push_screen(picker, lambda picked: self._mark_round(sid, number, current, picked))

    def _mark_round(self, sid: str, number: int, current: str | None, picked: str | None) -> None:
        if picked is None:
            return
        status = None if picked == CLEAR else picked
        at, own = api.now_sql(), store_id(self.app, sid)
        mark = api.RoundMark(session=own, round=number, status=status, at=at)
        undo = api.RoundMark(session=own, round=number, status=current, at=at)
        word = ROUND_WORDS.get(status or "", ("", status or ""))[1]
        said = f"Round {number} " + (f"marked {word}" if status else "unmarked")
        self.write_marks(sid, [mark], [undo], said)

    def action_note_round(self) -> None:
        at = self.round_at_cursor()
        if at is None:
            self.app.bell()
            return
        sid, number, _ = at
        editor = NoteEditor(f"Note on round {number}")
        self.app.push_screen(editor, lambda text: self._note(sid, text, number))

    def note_on_session(self, sid: str) -> None:
        editor = NoteEditor(f"Note on {safe_line(store_id(self.app, sid))}")
        self.app.push_screen(editor, lambda text: self._note(sid, text, None))

    def _note(self, sid: str, text: str | None, number: int | None) -> None:
        if text is None:
            return
        note = api.NoteAdd(session=store_id(self.app, sid),
                           target="round" if number is not None else "session",
                           text=text, at=api.now_sql(), round=number)  # fmt: skip
        self.write_marks(sid, [note], [msgspec.structs.replace(note, remove=True)], "Note added")

    def round_writes_disabled(self, action: str) -> str | None:
        if action in ROUND_WRITES and read_only(self.app):
            return "Writing is off (--read-only): marks and notes are not written."
        return None
