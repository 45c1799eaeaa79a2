"""FileMarks: a map run's files marked reviewed from the keyboard (`user_file_progress`, as
OCR's dashboard's checkbox writes it): `m` turns the mark of the file at the cursor on or
off, `n` writes a note on the file, `u` undoes. A mixin of the map run screen over
`MarkWriter`; the screen gives the file at the cursor (`cursor_file`), the run's number
(`round_number`) and whether ocr.db has the run's marks (`_marks_known`)."""

from __future__ import annotations

import msgspec

from ocr_tui.core.textsafe import safe_line
from ocr_tui.formats.ocr import api
from ocr_tui.ui.screens.ocr.triage.note_editor import NoteEditor
from ocr_tui.ui.screens.ocr.triage.writer import MarkWriter, store_id, writes_off

FILE_WRITES = ("mark_file", "note_file", "undo_mark")


class FileMarks(MarkWriter):
    def action_mark_file(self) -> None:
        file = self.cursor_file()
        if file is None:
            self.app.bell()
            return
        at, sid = api.now_sql(), store_id(self.app, self.session_id)
        known = self._marks_known
        mark = api.FileMark(session=sid, run=self.round_number, path=file.path,
                            reviewed=not file.reviewed, at=at)  # fmt: skip
        before = file.reviewed if known else None
        undo = msgspec.structs.replace(mark, reviewed=before)
        said = f"{safe_line(file.path)}: " + ("reviewed" if mark.reviewed else "not reviewed")
        self.write_marks(self.session_id, [mark], [undo], said)

    def action_note_file(self) -> None:
        file = self.cursor_file()
        if file is None:
            self.app.bell()
            return
        editor = NoteEditor(f"Note on {safe_line(file.path)}")
        self.app.push_screen(editor, lambda text: self._file_note(file.path, text))

    def _file_note(self, path: str, text: str | None) -> None:
        if text is None:
            return
        sid = store_id(self.app, self.session_id)
        note = api.NoteAdd(
            session=sid, target="file", text=text, at=api.now_sql(), run=self.round_number,
            path=path,
        )  # fmt: skip
        undo = msgspec.structs.replace(note, remove=True)
        self.write_marks(self.session_id, [note], [undo], "Note added")

    def file_writes_disabled(self, action: str) -> str | None:
        if action in FILE_WRITES:
            return writes_off(self.app, getattr(self, "session_id", None))
        return None
