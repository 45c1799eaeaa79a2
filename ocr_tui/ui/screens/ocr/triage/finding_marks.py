"""FindingMarks: a finding's triage and notes from the keyboard, wherever findings are shown
(the findings table, one finding's screen): `m` opens the picker of the states OCR's store
allows (`user_finding_progress`), `M` clears, `n` writes a note on the finding, `u` undoes.
A mixin over `MarkWriter`; the screen says which findings the keys act on (`mark_targets`)
and has `session_id`, `round_number`.

Only a round's own findings are marked: the round before's (resolved, pending) have their
rows in that round.
"""

from __future__ import annotations

import msgspec

from ocr_tui.core.textsafe import safe_line
from ocr_tui.formats.ocr import api
from ocr_tui.formats.ocr.api import Finding, is_own
from ocr_tui.ui.screens.ocr.triage.note_editor import NoteEditor
from ocr_tui.ui.screens.ocr.triage.picker import CLEAR, FINDING_WORDS, StatePicker, choices
from ocr_tui.ui.screens.ocr.triage.writer import MarkWriter, store_id, writes_off

WRITES = ("mark", "clear_mark", "select", "note", "undo_mark")


class FindingMarks(MarkWriter):
    finding_states: tuple[str, ...] = api.FINDING_STATES  # the store's, once read

    def chosen_findings(self) -> list[Finding]:
        """The findings the keys act on (for the screen to say)."""
        raise NotImplementedError

    def marked(self) -> None:
        """After a mark was asked for (the findings table forgets its selection)."""

    def mark_targets(self) -> list[Finding] | None:
        """The chosen findings of this round's own; None (after saying why) when none."""
        chosen = self.chosen_findings()
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
        self.write_marks(self.session_id, marks, undo, said)
        self.marked()

    def _finding_mark(self, f: Finding, status: str | None, at: str) -> api.FindingMark:
        sid = store_id(self.app, self.session_id)
        return api.FindingMark(
            session=sid, round=self.round_number, finding=f.id, status=status, at=at
        )

    def action_note(self) -> None:
        targets = self.mark_targets()
        if targets is None:
            return
        f = targets[0]
        editor = NoteEditor(f"Note on {safe_line(f.title)}")
        self.app.push_screen(editor, lambda text: self._note(f, text))

    def _note(self, f: Finding, text: str | None) -> None:
        if text is None:
            return
        sid = store_id(self.app, self.session_id)
        note = api.NoteAdd(session=sid, target="finding", text=text, at=api.now_sql(),
                           round=self.round_number, finding=f.id)  # fmt: skip
        undo = msgspec.structs.replace(note, remove=True)
        self.write_marks(self.session_id, [note], [undo], "Note added")

    def writes_disabled(self, action: str) -> str | None:
        if action in WRITES:
            return writes_off(self.app, getattr(self, "session_id", None))
        return None
