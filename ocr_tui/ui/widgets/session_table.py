"""The session list: a DataTable keyed by session id, updated in place.

Rows are diffed by key (`add_row` / `update_cell` / `remove_row`, never `clear()`), only the
cells whose text changed are touched, and the cursor stays on the same session when rows are
re-ordered, so nothing jumps while the data moves underneath it.
"""

from __future__ import annotations

from datetime import datetime

from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.widgets import DataTable
from textual.widgets.data_table import CellDoesNotExist, ColumnKey

from ocr_tui.core.view import SessionView
from ocr_tui.ui import fmt

# (key, header). The order is the on-screen order.
COLUMNS: tuple[tuple[str, str], ...] = (
    ("state", ""),
    ("id", "Session"),
    ("format", "Fmt"),
    ("workflow", "Flow"),
    ("phase", "Phase"),
    ("round", "Rnd"),
    ("reviewers", "Rev"),
    ("findings", "Find"),
    ("verdict", "Verdict"),
    ("elapsed", "Elapsed"),
    ("activity", "Activity"),
)
TICKING = ("elapsed", "activity")  # the only columns time alone changes
ID_WIDTH = {False: 24, True: 20}  # the full id is in the detail pane
# The phase label gives way to the format column when a project holds several formats, so the
# list fits 120 columns either way.
LABEL_WIDTH = {False: 19, True: 14}
FLOW_WIDTH = 8
VERDICT_WIDTH = 12
BAR_WIDTH = 8  # cells of the phase bar (the longest workflow has 8 phases)

# A cell as data: segments of (text, component class or ""); compared to skip no-op updates.
Cell = tuple[tuple[str, str], ...]


class _IdText(Text):
    """The id cell; carries its session id so `DataTable.sort` can order rows by key."""

    session_id: str


class SessionTable(DataTable, inherit_bindings=True):
    COMPONENT_CLASSES = {
        "session-table--input",
        "session-table--alert",
        "session-table--running",
        "session-table--waiting",
        "session-table--stalled",
        "session-table--closed",
        "session-table--loading",
        "session-table--problem",
        "session-table--bar-done",
        "session-table--bar-todo",
        "session-table--muted",
        "session-table--good",
        "session-table--bad",
    }
    BINDINGS = [
        Binding("enter", "select_cursor", "Open", tooltip="Open the highlighted session"),
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("g", "scroll_top", "First session", show=False),
        Binding("G", "scroll_bottom", "Last session", show=False),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self._views: dict[str, SessionView] = {}
        self._cells: dict[str, dict[str, Cell]] = {}
        self._order: list[str] = []
        self.multi = False  # several formats: the format column is shown
        self._now: datetime | None = None  # of the last sync
        self._styles: dict[str, Style] = {}
        self._wanted: list[SessionView] = []  # what the last sync was asked to show
        self._backlog_due = False
        self._last_full_tick: datetime | None = None
        self._resort = True

    @property
    def columns_shown(self) -> tuple[tuple[str, str], ...]:
        return COLUMNS if self.multi else tuple(c for c in COLUMNS if c[0] != "format")

    def on_mount(self) -> None:
        for key, label in self.columns_shown:
            self.add_column(label, key=key)
        self.app.theme_changed_signal.subscribe(self, self._restyle)

    def set_multi(self, multi: bool) -> None:
        """Show or hide the format column (rebuilds the table; happens once per change)."""
        if multi == self.multi:
            return
        self.multi = multi
        keep = self.highlighted_id
        DataTable.clear(self, columns=True)
        for key, label in self.columns_shown:
            self.add_column(label, key=key)
        views = [self._views[sid] for sid in self._order if sid in self._views]
        self._views, self._cells, self._order = {}, {}, []
        if views:
            self.sync(views, self._now)
        if keep is not None:
            self.select(keep)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "select_cursor" and not self.row_count:
            return False  # no "Open" in the footer when there is nothing to open
        return True

    # -- reading ------------------------------------------------------------------------

    @property
    def highlighted_id(self) -> str | None:
        if not self.row_count:
            return None
        try:
            return self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value
        except CellDoesNotExist:
            return None

    @property
    def session_ids(self) -> list[str]:
        """Row keys in display order (rows still waiting to be added are not included)."""
        return list(self._order)

    # -- writing ------------------------------------------------------------------------

    # New rows added per call; the rest follow on the next frames. Textual measures each new
    # cell through Rich (~45 µs): 100 rows is ~50 ms of a frame.
    ROWS_PER_SLICE = 100

    def sync(self, views: list[SessionView], now: datetime, *, resort: bool = True) -> None:
        """Show exactly `views`, in this order. Unchanged sessions are not touched. Many new
        rows (a start-up with 10,000 sessions) are added a slice at a time, top first, so
        the first screenful shows at once and keys are answered in between."""
        self._now = now
        self._wanted = views
        keep = self.highlighted_id
        if keep is not None and self._views[keep].source == "loading":
            keep = None  # start-up: a stand-in row is not a choice; stay at the same place
        if resort and not self._resort and self.cursor_row == 0:
            keep = None  # start-up over: the first sort keeps an untouched cursor at the top
        self._resort = resort
        had_rows = bool(self.row_count)
        wanted = {v.id: v for v in views}
        for sid in [s for s in self._views if s not in wanted]:
            self.remove_row(sid)
            del self._views[sid], self._cells[sid]
        budget = self.ROWS_PER_SLICE
        backlog = False
        added: list[str] = []
        for view in views:
            if view.id not in self._views:
                if budget <= 0:
                    backlog = True
                    continue
                budget -= 1
                added.append(view.id)
                cells = row_cells(view, now, self.multi)
                self._views[view.id] = view
                self._cells[view.id] = cells
                self.add_row(
                    *(self._cell_text(view.id, k, cells[k]) for k, _ in self.columns_shown),
                    key=view.id,
                )
            elif self._views[view.id] is not view:
                self._views[view.id] = view
                self._put(view.id, row_cells(view, now, self.multi))
        order = [v.id for v in views if v.id in self._views]
        if not resort:  # start-up: rows keep their places (re-sorting 10,000 rows starves keys)
            self._order = [sid for sid in self._order if sid in self._views] + added
        elif order != self._order:
            self._order = order
            if len(order) > 1:
                position = {sid: i for i, sid in enumerate(order)}
                self.sort("id", key=lambda cell: position[cell.session_id])
        if keep is not None and keep in wanted:
            self.select(keep)
        if had_rows != bool(self.row_count):
            self.refresh_bindings()
        if backlog and not self._backlog_due:
            self._backlog_due = True
            self.set_timer(0.01, self._add_backlog)

    def _add_backlog(self) -> None:
        self._backlog_due = False
        if self._now is not None:
            self.sync(self._wanted, self._now, resort=self._resort)

    def tick(self, now: datetime) -> None:
        """Time passed: refresh the elapsed and last-activity cells (only those that changed).
        Every second for running sessions and those active in the last hour (their texts can
        change by the minute); the others once a minute (theirs change by the hour)."""
        full = self._last_full_tick is None or (now - self._last_full_tick).total_seconds() >= 60
        if full:
            self._last_full_tick = now
        for sid, view in self._views.items():
            if full or view.elapsed.running or _recent(view, now):
                self._put(sid, clock_cells(view, now))

    def select(self, session_id: str) -> bool:
        """Move the cursor to a session's row (without scrolling more than needed)."""
        try:
            index = self.get_row_index(session_id)
        except Exception:
            return False
        if index != self.cursor_row:
            self.move_cursor(row=index)
        return True

    def _put(self, sid: str, cells: dict[str, Cell]) -> None:
        old = self._cells[sid]
        for key, cell in cells.items():
            if old.get(key) != cell:
                old[key] = cell
                text = self._cell_text(sid, key, cell)
                # Only a wider cell re-measures: Textual re-measures the whole column when a
                # cell shrinks (every row, then a layout), which at 10,000 rows and a 1 s tick
                # cost more than everything else. Columns never narrow; cells are clipped.
                column = self.columns.get(ColumnKey(key))
                grow = column is None or text.cell_len > column.content_width
                self.update_cell(sid, key, text, update_width=grow)

    def _restyle(self, _theme: object = None) -> None:
        """The theme changed: styles are baked into cells, so re-render them."""
        self._styles.clear()
        for sid, cells in self._cells.items():
            for key, cell in cells.items():
                self.update_cell(sid, key, self._cell_text(sid, key, cell))

    # -- cells --------------------------------------------------------------------------

    def _style(self, name: str) -> Style:
        style = self._styles.get(name)
        if style is None:  # looked up once per theme: 10,000 rows hold 100,000 cells
            style = self.get_component_rich_style(f"session-table--{name}") if name else Style()
            self._styles[name] = style
        return style

    def _cell_text(self, sid: str, key: str, cell: Cell) -> Text:
        text = _IdText() if key == "id" else Text()
        for part, style in cell:
            text.append(part, self._style(style))
        text.no_wrap = True
        text.overflow = "ellipsis"
        if key == "id":
            text.session_id = sid
        return text


def row_cells(view: SessionView, now: datetime, multi: bool) -> dict[str, Cell]:
    """Every cell of a session's row (`multi`: several formats, the format column shown)."""
    state = fmt.session_state(view)
    # The bar and the fraction give the place among the phases (the same in every format);
    # the label the phase's name, without a place it starts with (iDumb's free text).
    fraction, label = fmt.phase_parts(view)
    done, todo = fmt.phase_bar(fmt.phase_position(view), view.phase_total)
    pad = " " * max(0, BAR_WIDTH - view.phase_total)
    fraction = f"{fraction:>3}"
    current = view.current
    dash = (("—", "muted"),)
    cells: dict[str, Cell] = {
        "state": ((fmt.glyph(state), state),),
        "id": ((fmt.safe(view.id, ID_WIDTH[multi]), ""),),
        "workflow": ((fmt.safe(view.workflow, FLOW_WIDTH), ""),),
        "phase": (
            (done, "bar-done"),
            (todo, "bar-todo"),
            (f"{pad} {fraction} ", "muted"),
            (fmt.safe(label, LABEL_WIDTH[multi]), ""),
        ),
        "round": ((f"R{view.current_round}", ""),) if view.current_round else dash,
        "reviewers": ((str(len(current.reviewers)), ""),) if current else dash,
        "findings": ((str(current.reviewer_findings), ""),) if current else dash,
        "verdict": _verdict(current.verdict if current else None),
    }
    if multi:
        cells["format"] = ((fmt.framework_short(view.framework), "muted"),)
    if view.framework != "ocr":  # no rounds: its agents, then what needs attention
        cells["reviewers"] = dash
        cells["verdict"] = _note(view)
    cells.update(clock_cells(view, now))
    return cells


def clock_cells(view: SessionView, now: datetime) -> dict[str, Cell]:
    """The cells time alone changes (TICKING)."""
    return {
        "elapsed": (
            (fmt.elapsed_text(view, now, coarse=True), "" if view.elapsed.running else "muted"),
        ),
        "activity": ((fmt.ago_text(view.last_activity, now, coarse=True), ""),),
    }


def _recent(view: SessionView, now: datetime) -> bool:
    at = fmt.ts(view.last_activity)
    return at is not None and (now - at).total_seconds() < 3600


def _note(view: SessionView) -> Cell:
    """The verdict column for formats without verdicts: a gate, an alert, or the agents."""
    if view.waiting:
        return (("needs you", "bad"),)
    if view.alerts:
        return ((fmt.safe(view.alerts[0], VERDICT_WIDTH), "bad"),)
    if view.summary:
        return ((fmt.safe(view.summary, VERDICT_WIDTH), "muted"),)
    return (("—", "muted"),)


def _verdict(verdict: str | None) -> Cell:
    if not verdict:
        return (("—", "muted"),)
    tone = fmt.verdict_tone(verdict)
    return ((fmt.safe(verdict, VERDICT_WIDTH), {"good": "good", "bad": "bad"}.get(tone, "")),)
