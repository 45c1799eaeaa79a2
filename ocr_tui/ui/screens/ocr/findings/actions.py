"""The findings screen's actions (`keys.BINDINGS`): the filters, the sort, the search box,
the round before or after, the editor and the clipboard on the finding at the cursor. A mixin
of `FindingsScreen` (`self` is the screen); its message handlers stay on the screen."""

from __future__ import annotations

from dataclasses import replace

from ocr_tui.core.textsafe import safe_line
from ocr_tui.formats.ocr.api import Finding
from ocr_tui.ui.navigation import adjacent_item
from ocr_tui.ui.screens.ocr.editor_launch import open_in_editor
from ocr_tui.ui.screens.ocr.findings.cells import where
from ocr_tui.ui.screens.ocr.findings.view import SORT_KEYS
from ocr_tui.ui.widgets.drill_table import DrillTable
from ocr_tui.ui.widgets.table_search import SearchBox


class FindingsActions:
    """`action_*` of the findings screen's keys, and the finding at the cursor."""

    def action_cycle_severity(self) -> None:
        self._set_query(self.query_state.next_severity(self.findings or []))

    def action_toggle_blockers(self) -> None:
        q = self.query_state
        self._set_query(replace(q, blockers_only=not q.blockers_only))

    def action_cycle_triage(self) -> None:
        self._set_query(self.query_state.next_triage(self.findings or []))

    def action_cycle_sort(self) -> None:
        # Every column's order, and the blockers first (`blocker` is said in the severity cell)
        cycle = tuple(k for k in SORT_KEYS if k in self._keys or k == "blocker")
        self._set_query(self.query_state.next_sort(cycle))

    def action_reverse_sort(self) -> None:
        self._set_query(self.query_state.sorted_by(self.query_state.sort))

    def action_search(self) -> None:
        box = self.query_one("#findings-search", SearchBox)
        box.display = True
        self.set_focus(box)  # at once (focus() waits a turn): the next key goes in the box

    def action_keep_search(self) -> None:
        """Enter (or ↓) in the search box: keep the search, back to the table."""
        box = self.query_one("#findings-search", SearchBox)
        box.display = bool(box.value.strip())
        self.query_one("#findings", DrillTable).focus()

    def action_escape(self) -> None:
        """Esc: clear the search if there is one (or the box is open), else go back."""
        box = self.query_one("#findings-search", SearchBox)
        if box.display or box.value:
            box.value = ""
            box.display = False
            self._set_query(replace(self.query_state, search=""))
            self.query_one("#findings", DrillTable).focus()
            return
        self.action_back()

    def action_step(self, delta: int) -> None:
        """The findings of the round before or after, with the same filters."""
        view = self.view
        target = adjacent_item(
            view.rounds if view else [], self.round_path, self.round_number, delta
        )
        if target is None:
            self.app.bell()
            self.notify(f"No {'earlier' if delta < 0 else 'later'} round.", timeout=2, markup=False)
            return
        self.round_number, self.round_path = target.number, target.path
        self.findings = None
        self.has_read = False
        self.render_view(view, first=False)

    def cursor_finding(self) -> Finding | None:
        table = self.query_one("#findings", DrillTable)
        key = table.key_of(table.cursor_key) if table.row_count else None
        return next((f for f in self.shown if f.id == key), None)

    def action_edit(self) -> None:
        """The finding at the cursor, at its line, in the user's editor."""
        finding = self.cursor_finding()
        if finding is None:
            self.app.bell()
            return
        open_in_editor(self, finding.location.file, finding.location.line_start, self.session_id)

    def action_copy_location(self) -> None:
        """`file:line` of the finding at the cursor to the clipboard (OSC 52 in a terminal)."""
        finding = self.cursor_finding()
        if finding is None or not finding.location.file:
            self.notify("No file to copy for this finding.", timeout=3, markup=False)
            return
        text = where(finding)
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied {safe_line(text)}", timeout=2, markup=False)

    def move_to_finding(self, finding_id: str) -> None:
        """Put the cursor on `finding_id` (the detail stepped to it before coming back)."""
        table = self.query_one("#findings", DrillTable)
        keys = [table.key_of(k) for k in table.row_keys]
        if finding_id in keys:
            table.move_cursor(row=keys.index(finding_id), animate=False)
