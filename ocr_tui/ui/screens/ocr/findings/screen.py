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

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.events import Resize
from textual.widgets import DataTable, Input, Static

from ocr_tui.core import rounds
from ocr_tui.core.reads import Reader
from ocr_tui.core.textsafe import safe_line
from ocr_tui.core.view import SessionView
from ocr_tui.formats.ocr.api import Finding, Loaded, allowed_states
from ocr_tui.ui import router
from ocr_tui.ui.navigation import (
    FindingsTarget,
    FindingTarget,
    Open,
)
from ocr_tui.ui.screens.base.drilldown import Crumb
from ocr_tui.ui.screens.ocr.findings import keys as findings_keys
from ocr_tui.ui.screens.ocr.findings.actions import FindingsActions
from ocr_tui.ui.screens.ocr.findings.cells import (
    COMPACT_LABELS,
    FULL_LABELS,
    LABELS,
    columns,
    finding_cells,
    plan,
)
from ocr_tui.ui.screens.ocr.findings.marks import FindingsMarks
from ocr_tui.ui.screens.ocr.findings.view import FindingsQuery, count_text, no_match
from ocr_tui.ui.screens.ocr.round_reader import RoundReaderScreen
from ocr_tui.ui.screens.ocr.triage.writer import db_of
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
class FindingsScreen(FindingsMarks, FindingsActions, RoundReaderScreen):
    """`FindingsScreen(session_id, number, path)`: the findings of one round."""

    BINDINGS = findings_keys.BINDINGS

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
        if self.writes_disabled(action):
            return False
        if action == "cycle_triage" and not self._triage:
            return False  # no triage in this round: nothing to filter
        if action == "search" and isinstance(self.focused, Input):
            return False  # a `/` typed into the search box is text
        return super().check_action(action, parameters)

    def explain_disabled(self, action: str, parameters: tuple[object, ...]) -> str | None:
        if why := self.writes_disabled(action):
            return why
        if action == "cycle_triage":
            return "No triage in this round: OCR's web dashboard records it in ocr.db."
        return super().explain_disabled(action, parameters)

    # -- loading ----------------------------------------------------------------------------

    def read_blocking(
        self, reader: Reader, view: SessionView
    ) -> tuple[Loaded, tuple[str, ...] | None]:
        # the states the store's schema allows: read with the first read only (another whole
        # load of ocr.db on every change would be for a schema that does not change)
        db = None if view.host else db_of(self.app, self.session_id)  # (none written remotely)
        states = None if self.has_read else allowed_states(db, "finding")
        return reader.read("round", view, number=self.round_number), states

    async def apply_read(self, read: tuple[Loaded, tuple[str, ...] | None]) -> None:
        loaded, states = read
        if states is not None:
            self.finding_states = states
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
        view = self.view
        rnd = view.round(self.round_number, self.round_path) if view is not None else None
        so_far = (
            rnd is not None
            and not rnd.complete
            and rounds.still_coming(view, self.round_number, self.round_path)
        )
        return count_text(self.findings or [], self.shown, self.query_state, self.source, so_far)

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
        keys, picked = self._keys, self.selected
        self._fill([(f.id, finding_cells(f, layout, style, keys, f.id in picked)) for f in shown])
        self._show_empty(
            "No findings in this round."
            if not self.findings
            else no_match(self.query_state, self._triage)
        )

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

    # -- the messages (the actions: `FindingsActions`) ---------------------------------------

    @on(DataTable.HeaderSelected, "#findings")
    def _sort_by_header(self, event: DataTable.HeaderSelected) -> None:
        self._set_query(self.query_state.sorted_by(str(event.column_key.value)))

    @on(Input.Changed, "#findings-search")
    def _search_changed(self, event: Input.Changed) -> None:
        self._set_query(replace(self.query_state, search=event.value))

    @on(DataTable.RowSelected, "#findings")
    def _open_finding(self, event: DataTable.RowSelected) -> None:
        key = selected_key(event)
        if key is None:
            return
        order = tuple(f.id for f in self.shown)  # `[` / `]` in the detail follow the table
        target = FindingTarget(self.session_id, self.round_number, self.round_path, key, order)
        self.post_message(Open(target))
