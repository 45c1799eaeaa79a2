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
from ocr_tui.ui.screens.ocr.triage.writer import MarkWriter, store_id, writes_off

ROUND_WRITES = ("mark_round", "note_round", "note_session", "edit_notes", "undo_mark")


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
        if action in ROUND_WRITES:
            return writes_off(self.app, getattr(self, "session_id", None))
        return None


class NotesEditing(MarkWriter):
    """`N`: the session's notes, to change (Enter) or delete (`d`) one; `u` undoes."""

    def action_edit_notes(self) -> None:
        from ocr_tui.ui.screens.ocr.triage.notes_list import NotesList

        view = self.view
        notes = [n for n in (view.notes if view else []) if n.id is not None]
        if not notes:
            self.app.bell()
            self.notify("This session has no note in ocr.db yet (n writes one).", timeout=3,
                        markup=False)  # fmt: skip
            return
        listing = NotesList(f"Notes of {safe_line(store_id(self.app, self.session_id))}",
                            notes, self.app.now())  # fmt: skip
        self.app.push_screen(listing, self._note_picked)

    def _note_picked(self, picked) -> None:
        if picked is None:
            return
        how, note = picked
        if how == "delete":
            gone = api.NoteEdit(note=note.id, text=None, at=api.now_sql())
            undo = self._re_add(note)
            self.write_marks(self.session_id, [gone], [undo] if undo else [], "Note deleted")
            return
        editor = NoteEditor("Change the note", note.text)
        self.app.push_screen(editor, lambda text: self._note_changed(note, text))

    def _note_changed(self, note, text: str | None) -> None:
        if text is None or text == note.text:
            return
        at = api.now_sql()
        change = api.NoteEdit(note=note.id, text=text, at=at)
        undo = api.NoteEdit(note=note.id, text=note.text, at=at)
        self.write_marks(self.session_id, [change], [undo], "Note changed")

    def _re_add(self, note):
        """What undoes a deletion: the note written again (a section's cannot be: none)."""
        if note.target not in api.NOTE_TARGETS:
            return None
        finding = note.key if note.target == "finding" else None
        path = note.key if note.target == "file" else None
        return api.NoteAdd(session=store_id(self.app, self.session_id), target=note.target,
                           text=note.text, at=api.now_sql(), round=note.round,
                           finding=finding, run=note.run, path=path)  # fmt: skip
