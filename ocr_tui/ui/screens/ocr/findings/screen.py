"""FindingsScreen: one review round's findings across its reviewers.

The findings are read in a thread worker (`api.read_round`: the round's files, plus
the rows and triage of `ocr.db` when the project has one), never on the UI thread, and read
again whenever the app's `touched_signal` says the session's files changed.

Keys: `v` cycles a minimum severity (all → info → low → … → critical → all), `b` shows
blockers only, `t` cycles the triage states present (when ocr.db has triage), `/` searches
title, file and reviewers, `s` sorts by the next column and `S` reverses (a click on a header
sorts by it too), `e` opens the finding's file at its line in the editor, `y` copies
`file:line`, `[`/`]` step rounds keeping all of that, Enter opens
the finding's detail, Esc clears a search, then goes back.

The columns share the table's width (`findings_cells.plan`), laid out again whenever the
table's pane changes size: no text is cut while another column has room to spare.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.events import Resize
from textual.widgets import DataTable, Input, Static

from ocr_tui.core.textsafe import safe_line
from ocr_tui.core.view import SessionView
from ocr_tui.formats.ocr.api import Finding, Loaded, is_own, read_round
from ocr_tui.ui import router
from ocr_tui.ui.navigation import (
    FindingsTarget,
    FindingTarget,
    Open,
    adjacent_item,
)
from ocr_tui.ui.screens.base.drilldown import Crumb
from ocr_tui.ui.screens.ocr.editor_launch import open_in_editor
from ocr_tui.ui.screens.ocr.findings.cells import (
    COMPACT_LABELS,
    FULL_LABELS,
    LABELS,
    columns,
    finding_cells,
    plan,
    where,
)
from ocr_tui.ui.screens.ocr.findings.view import SORT_KEYS, FindingsQuery
from ocr_tui.ui.screens.ocr.round_reader import RoundReaderScreen
from ocr_tui.ui.style import removed_banner, theme_style
from ocr_tui.ui.widgets.breadcrumb import Breadcrumb
from ocr_tui.ui.widgets.drill_table import DrillTable, selected_key
from ocr_tui.ui.widgets.key_footer import KeyFooter
from ocr_tui.ui.widgets.table_search import SearchBox


class FindingsPane(Vertical):
    """The table's pane: when its size changes the columns are laid out again for it."""

    def on_resize(self, _event: Resize) -> None:
        screen = self.screen
        if isinstance(screen, FindingsScreen) and screen.findings is not None:
            screen.refresh_rows()


@router.route(FindingsTarget)
class FindingsScreen(RoundReaderScreen):
    """`FindingsScreen(session_id, number, path)`: the findings of one round."""

    # fmt: off
    BINDINGS = [
        Binding(
            "v", "cycle_severity", "Severity ≥", id="findings.severity",
            tooltip="All → info → low → medium → high → critical (a minimum; levels that show "
            "the same rows are skipped)",
        ),
        Binding(
            "b", "toggle_blockers", "Blockers", id="findings.blockers",
            tooltip="Blockers only, or every finding",
        ),
        Binding(
            "t", "cycle_triage", "Triage", id="findings.triage",
            tooltip="Any → each triage state in this round (from ocr.db)",
        ),
        # priority: the box has focus before the next key is dispatched (`/retry⏎` typed fast)
        Binding(
            "slash", "search", "Search", id="findings.search", priority=True,
            tooltip="Title, file, reviewers; Enter keeps it, Esc clears it",
        ),
        Binding(
            "s", "cycle_sort", "Sort", id="findings.sort",
            tooltip="Next column: severity → blocker → evolution → title → file → reviewers "
            "(→ triage); the round before's resolved and pending findings stay last (unless"
            " sorted by evolution)",
        ),
        Binding("S", "reverse_sort", "Reverse sort", id="findings.reverse", show=False),
        Binding("e", "edit", "Editor", id="findings.edit"),
        Binding("y", "copy_location", "Copy file:line", id="findings.copy", show=False),
        Binding("[", "step(-1)", "Prev round", id="findings.prev", show=False),
        Binding("]", "step(1)", "Next round", id="findings.next", show=False),
        Binding(
            "escape", "escape", "Back", id="findings.back",
            tooltip="Clear the search if there is one, else back",
        ),
    ]
    # fmt: on

    READS = "the findings"

    def __init__(self, session_id: str, number: int, path: str) -> None:
        super().__init__(session_id, number, path)
        self.findings: list[Finding] | None = None  # None: not read yet
        self.source: str | None = None
        self.problems: list[str] = []
        self.query_state = FindingsQuery()
        self._keys = self._column_keys(evolution=number > 1, triage=False)  # the table's
        self._compact = False  # whether the short columns use their short words

    @staticmethod
    def _column_keys(evolution: bool, triage: bool) -> tuple[str, ...]:
        return tuple(key for key, _ in columns(evolution, triage))

    @property
    def _triage(self) -> bool:
        """Whether the table has the triage column (ocr.db has triage for this round)."""
        return "triage" in self._keys

    @classmethod
    def for_target(cls, target: FindingsTarget) -> FindingsScreen:
        return cls(target.session_id, target.number, target.path)

    @property
    def target(self) -> FindingsTarget:
        return FindingsTarget(self.session_id, self.round_number, self.round_path)

    # The filters, as before the query object (tests and the palette read them).
    @property
    def min_severity(self) -> str | None:
        return self.query_state.min_severity

    @property
    def blockers_only(self) -> bool:
        return self.query_state.blockers_only

    def compose(self) -> ComposeResult:
        yield Breadcrumb(id="crumbs")
        yield removed_banner()
        yield Static(id="findings-title", classes="dd-title")
        yield Static(id="findings-count", classes="dd-meta")
        search = SearchBox(
            select_on_focus=False,
            placeholder="Search title, file, reviewer · Enter keeps it · Esc clears",
            id="findings-search",
        )
        search.display = False  # hidden from the start: the screen's first focus is the table's
        yield search
        with FindingsPane(id="findings-pane", classes="dd-pane") as pane:
            pane.border_title = "Findings"
            yield DrillTable([(k, LABELS[k]) for k in self._keys], id="findings")
            yield Static("Reading the findings…", id="findings-empty", classes="dd-empty")
        yield KeyFooter()

    def after_mount(self) -> None:
        self.query_one("#findings-search", SearchBox).display = False
        self.query_one("#findings", DrillTable).focus()
        super().after_mount()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cycle_triage" and not self._triage:
            return False  # no triage in this round: nothing to filter
        if action == "search" and isinstance(self.focused, Input):
            return False  # a `/` typed into the search box is text
        return super().check_action(action, parameters)

    def explain_disabled(self, action: str, parameters: tuple[object, ...]) -> str | None:
        if action == "cycle_triage":
            return "No triage in this round: OCR's web dashboard records it in ocr.db."
        return super().explain_disabled(action, parameters)

    # -- loading ----------------------------------------------------------------------------

    def read_blocking(
        self, session_dir: str, round_path: str, number: int, db_path: Path | None, sid: str
    ) -> Loaded:
        return read_round(session_dir, number, db_path, sid)

    async def apply_read(self, loaded: Loaded) -> None:
        self.findings, self.source, self.problems = loaded.findings, loaded.source, loaded.problems
        found = self.findings or []
        keys = self._column_keys(
            evolution=any(f.evolution for f in found),  # round 1: nothing to evolve from
            triage=any(f.triage for f in found),
        )
        if keys != self._keys:
            await self._replace_table(keys)
            q = self.query_state
            if not self._triage and q.triage is not None:
                q = replace(q, triage=None)
            if q.sort in ("triage", "evolution") and q.sort not in keys:
                q = replace(q, sort="severity", reverse=False)
            self.query_state = q
            self.refresh_bindings()
        self.refresh_rows()

    async def _replace_table(self, keys: tuple[str, ...]) -> None:
        """A table with these columns (with or without evolution, triage): DrillTable's
        columns are fixed."""
        old = self.query_one("#findings", DrillTable)
        # The table had focus, or was about to (`after_mount` focuses it a turn later; a fast
        # read can come first): the new one takes it, so Enter and j/k work from the start.
        focused = self.focused
        had_focus = focused is None or focused is old or not focused.display
        await old.remove()
        table = DrillTable([(k, LABELS[k]) for k in keys], id="findings")
        await self.query_one("#findings-pane").mount(table, before="#findings-empty")
        self._keys = keys
        self._compact = False  # the new table has the full labels
        if had_focus:
            table.focus()

    def show_problem(self, text: str) -> None:
        self._show_empty(text)

    def crumbs(self, view: SessionView | None) -> list[Crumb]:
        return self.round_crumbs(view, ("Findings", None))

    def render_heading(self, view: SessionView | None) -> None:
        self.query_one("#findings-title", Static).update(
            Content.assemble((f"Findings of {safe_line(self.label(view))}", "bold"))
        )

    @property
    def shown(self) -> list[Finding]:
        """The findings the filters and the search let through, in the table's order."""
        return self.query_state.apply(self.findings or [])

    def count_text(self) -> str:
        """`3 of 5 findings · severity ≥ high · by file` (+ the round before's resolved or
        pending ones, said as such)."""
        findings = self.findings or []
        shown = self.shown
        current = [f for f in findings if is_own(f)]
        n = sum(1 for f in shown if is_own(f))
        text = f"{n} of {len(current)} finding{'' if len(current) == 1 else 's'}"
        for word, said in (("resolved", "resolved"), ("pending", "pending")):
            carried = sum(1 for f in findings if f.evolution == word)
            if carried:
                kept = sum(1 for f in shown if f.evolution == word)
                text += f" (+{kept} of {carried} {said})"
        text += f" · {self.query_state.label()} · {self.query_state.sort_label()}"
        if self.source:
            text += f" · from {self.source}"
        return text

    def refresh_rows(self) -> None:
        count = self.query_one("#findings-count", Static)
        if self.findings is None:
            count.update("")
            self._fill([])
            self._show_empty(
                "This round has no findings on disk." if self.has_read else "Reading the findings…"
            )
            return
        count.update(Content.assemble((self.count_text(), "")))
        shown = self.shown
        layout = plan(shown, self._room(len(shown)), self._keys)
        if layout.compact != self._compact:
            self._compact = layout.compact
            labels = COMPACT_LABELS if layout.compact else FULL_LABELS
            self.query_one("#findings", DrillTable).set_labels(labels)
        style = partial(theme_style, self)
        keys = self._keys
        self._fill([(f.id, finding_cells(f, layout, style, keys)) for f in shown])
        self._show_empty("No findings in this round." if not self.findings else self._no_match())

    def _room(self, rows: int) -> int:
        """The cells the table's columns can take: the pane's width, less the table's
        scrollbar when its `rows` (and header) are more than the pane is high."""
        pane = self.query_one("#findings-pane")
        table = self.query_one("#findings", DrillTable)
        width = pane.size.width or max(self.size.width - pane.styles.gutter.width, 0)
        height = pane.size.height or self.size.height
        if rows + 1 > height:
            width -= table.styles.scrollbar_size_vertical
        return width

    def _no_match(self) -> str:
        """Every active filter, with the key that changes it."""
        q = self.query_state
        active = [("v", f"severity ≥ {q.min_severity}")] if q.min_severity else []
        active += [("b", "blockers only")] if q.blockers_only else []
        active += [("t", f"triage {q.label_triage()}")] if q.triage else []
        active += [("/", "search, Esc clears it")] if q.search.strip() else []
        if not active:  # (with no filter every finding shows) the keys that filter
            active = [("v", "severity"), ("b", "blockers")]
            active += [("t", "triage")] if self._triage else []
            active += [("/", "search")]
        keys = ", ".join(f"{key}: {what}" for key, what in active)
        return f"No findings match ({keys})."

    def _fill(self, rows: list) -> None:
        table = self.query_one("#findings", DrillTable)
        table.sync_rows(rows)
        table.display = bool(rows)
        if rows and self.focused is None:  # emptied by a filter, it lost the focus: back
            table.focus()

    def _show_empty(self, text: str) -> None:
        empty = self.query_one("#findings-empty", Static)
        empty.update(Content(text))
        empty.display = not self.query_one("#findings", DrillTable).row_count

    def _set_query(self, query: FindingsQuery) -> None:
        self.query_state = query
        self.refresh_rows()

    # -- actions ----------------------------------------------------------------------------

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

    @on(DataTable.HeaderSelected, "#findings")
    def _sort_by_header(self, event: DataTable.HeaderSelected) -> None:
        self._set_query(self.query_state.sorted_by(str(event.column_key.value)))

    def action_search(self) -> None:
        box = self.query_one("#findings-search", SearchBox)
        box.display = True
        self.set_focus(box)  # at once (focus() waits a turn): the next key goes in the box

    @on(Input.Changed, "#findings-search")
    def _search_changed(self, event: Input.Changed) -> None:
        self._set_query(replace(self.query_state, search=event.value))

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

    @on(DataTable.RowSelected, "#findings")
    def _open_finding(self, event: DataTable.RowSelected) -> None:
        key = selected_key(event)
        if key is None:
            return
        order = tuple(f.id for f in self.shown)  # `[` / `]` in the detail follow the table
        target = FindingTarget(self.session_id, self.round_number, self.round_path, key, order)
        self.post_message(Open(target))

    def move_to_finding(self, finding_id: str) -> None:
        """Put the cursor on `finding_id` (the detail stepped to it before coming back)."""
        table = self.query_one("#findings", DrillTable)
        keys = [table.key_of(k) for k in table.row_keys]
        if finding_id in keys:
            table.move_cursor(row=keys.index(finding_id), animate=False)
