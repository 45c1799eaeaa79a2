"""The findings screen's triage keys: `m` marks the finding at the cursor (or the selected
ones) with a state OCR's store allows, `M` clears their marks, space selects, `n` writes a
note on the finding, `u` undoes the last mark. Written through `MarkWriter` (a thread
worker, one toast, then the round read again). A mixin of `FindingsScreen`.

Only a round's own findings are marked here: the round before's (resolved, pending) have
their rows in that round (`[` goes there).
"""

from __future__ import annotations

import msgspec

from ocr_tui.core.textsafe import safe_line
from ocr_tui.formats.ocr import api
from ocr_tui.formats.ocr.api import Finding, is_own
from ocr_tui.ui.screens.ocr.triage.note_editor import NoteEditor
from ocr_tui.ui.screens.ocr.triage.picker import CLEAR, FINDING_WORDS, StatePicker, choices
from ocr_tui.ui.screens.ocr.triage.writer import MarkWriter, read_only, store_id

WRITES = ("mark", "clear_mark", "select", "note", "undo_mark")


class FindingsMarks(MarkWriter):
    selected: frozenset[str] = frozenset()
    finding_states: tuple[str, ...] = api.FINDING_STATES  # the store's, once read

    def mark_targets(self) -> list[Finding] | None:
        """The selected findings shown, else the one at the cursor; None (after saying why)
        when there is nothing this round can mark."""
        chosen = [f for f in self.shown if f.id in self.selected] or [
            f for f in [self.cursor_finding()] if f is not None
        ]
        if not chosen:
            self.app.bell()
            return None
        own = [f for f in chosen if is_own(f)]
        if not own:
            self.notify(
                f"This finding is round {self.round_number - 1}'s: mark it there ([).",
                severity="warning", timeout=4, markup=False,
            )  # fmt: skip
            return None
        return own

    def action_mark(self) -> None:
        targets = self.mark_targets()
        if targets is None:
            return
        current = targets[0].triage if len({f.triage for f in targets}) == 1 else None
        what = f"{len(targets)} findings" if len(targets) > 1 else safe_line(targets[0].title)
        picker = StatePicker(f"Mark {what}", choices(self.finding_states, FINDING_WORDS), current)
        self.app.push_screen(picker, lambda picked: self._mark(targets, picked))

    def action_clear_mark(self) -> None:
        targets = self.mark_targets()
        if targets is not None:
            self._mark(targets, CLEAR)

    def _mark(self, targets: list[Finding], picked: str | None) -> None:
        if picked is None:
            return
        status = None if picked == CLEAR else picked
        at = api.now_sql()
        marks = [self._finding_mark(f, status, at) for f in targets]
        undo = [self._finding_mark(f, f.triage, at) for f in targets]
        word = FINDING_WORDS.get(status or "", ("", status or ""))[1]
        n = len(targets)
        said = (f"{n} findings" if n > 1 else "Finding") + (
            f" marked {word}" if status else " unmarked"
        )
        self.selected = frozenset()
        self.write_marks(self.session_id, marks, undo, said)
        self.refresh_rows()

    def _finding_mark(self, f: Finding, status: str | None, at: str) -> api.FindingMark:
        sid = store_id(self.app, self.session_id)
        return api.FindingMark(
            session=sid, round=self.round_number, finding=f.id, status=status, at=at
        )

    def action_select(self) -> None:
        """Space: select the finding at the cursor (or take it out), and move down."""
        f = self.cursor_finding()
        if f is None:
            self.app.bell()
            return
        self.selected = self.selected ^ {f.id}
        self.refresh_rows()
        self.query_one("#findings").action_cursor_down()

    def action_note(self) -> None:
        f = self.cursor_finding()
        if f is None or not is_own(f):
            self.app.bell()
            return
        editor = NoteEditor(f"Note on {safe_line(f.title)}")
        self.app.push_screen(editor, lambda text: self._note(f, text))

    def _note(self, f: Finding, text: str | None) -> None:
        if text is None:
            return
        note = api.NoteAdd(session=store_id(self.app, self.session_id), target="finding", text=text,
                           at=api.now_sql(), round=self.round_number, finding=f.id)  # fmt: skip
        undo = msgspec.structs.replace(note, remove=True)
        self.write_marks(self.session_id, [note], [undo], "Note added")

    def writes_disabled(self, action: str) -> str | None:
        if action in WRITES and read_only(self.app):
            return "Writing is off (--read-only): marks and notes are not written."
        return None
