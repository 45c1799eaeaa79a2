"""The session list's rows as data: each session's view and cells (`list_cells.Cell`), the
rows' order (a list, or a `RowOrder` while the list is steady), kept up to date by `sync`
(the whole list) or `sync_changes` (what changed alone), and by `tick` as time passes.
`SessionTable` draws them.

Rows are diffed by key, a row whose cells changed is drawn again alone, and the cursor stays
on the same session when rows are re-ordered, so nothing jumps while the data moves
underneath it.
"""

from __future__ import annotations

import time
from datetime import datetime

from ocr_tui.core import columns
from ocr_tui.core.view import SessionView
from ocr_tui.ui.screens.sessions.cells import (
    Cell,
    IdFit,
    phase_label_width,
    row_cells,
    text_width,
)
from ocr_tui.ui.screens.sessions.planned_table import PlannedTable
from ocr_tui.ui.screens.sessions.row_clock import RowClock
from ocr_tui.ui.screens.sessions.row_order import RowOrder


class SessionRows(RowClock, PlannedTable):
    """The rows of `SessionTable` (see the module's docstring)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, zebra_stripes=True)
        self._views: dict[str, SessionView] = {}
        self._order: list[str] = []
        self._now: datetime | None = None  # of the last sync
        self._wanted: list[SessionView] = []  # what the last sync was asked to show
        self._wanted_rows: RowOrder | None = None  # (and its `rows`)
        self._backlog_due = False
        self._last_full_tick: datetime | None = None
        self._due: dict[str, datetime] = {}  # when the rows ticking within the minute change next
        self._resort = True
        self._follow = False  # a sync the user asked for is under way (`sync`'s `follow`)
        self._ids = IdFit()  # shared by the id cells: every row shortened alike
        # The rows as a `RowOrder` while the list is steady (sorted, every row added): a
        # change then re-places the rows it touches alone (`sync_changes`); None: a list.
        self._rows: RowOrder | None = None

    # -- reading ------------------------------------------------------------------------

    @property
    def highlighted_id(self) -> str | None:
        if not self.row_count:
            return None
        return self.row_keys[min(self.cursor_row, self.row_count - 1)]

    @property
    def session_ids(self) -> list[str]:
        """Row keys in display order (rows still waiting to be added are not included)."""
        return list(self._order)

    # -- writing ------------------------------------------------------------------------

    # Rows added or re-done per call: for about this long (a row's cells are built and their
    # widths counted, ~75 µs; nothing is drawn but the rows on screen); the rest follow on
    # the next frames, so keys are answered in between.
    SLICE_S = 0.02

    def sync(
        self,
        views: list[SessionView],
        now: datetime,
        *,
        resort: bool = True,
        follow: bool = False,
        rows: RowOrder | None = None,
    ) -> None:
        """Show exactly `views`, in this order. Unchanged sessions are not touched. Many new
        rows (a start-up with 10,000 sessions) are added a slice at a time, top first, so
        the first screenful shows at once and keys are answered in between.

        The cursor stays on its session. The view holds still as the data moves (at the top,
        the newest rows show; scrolled, the rows in view stay: `rows_changed`) unless
        `follow`: the user asked for another list (filter, sort, search), which scrolls to
        the cursor's session. `rows`: `views`' ids as a `RowOrder` (the list sorted by its
        key), which the table keeps for `sync_changes` once every row is in."""
        self._now = now
        self._wanted, self._wanted_rows = views, rows
        if self._rows is not None:  # a list again, until every row is in
            self._rows, self._order = None, list(self._rows)
            self.row_keys = list(self._order)
            self._row_index = {key: i for i, key in enumerate(self.row_keys)}
        self._follow = follow or self._follow
        keep = self.highlighted_id
        if keep is not None and self._views[keep].source == "loading":
            keep = None  # start-up: a stand-in row is not a choice; stay at the same place
        if resort and not self._resort and self.cursor_row == 0:
            keep = None  # start-up over: the first sort keeps an untouched cursor at the top
        self._resort = resort
        had_rows = bool(self.row_count)
        wanted = {v.id: v for v in views}
        removed = [s for s in self._views if s not in wanted]
        for sid in removed:
            del self._views[sid], self._cells[sid]
            self._due.pop(sid, None)
            self._painter.forget(sid)
        # (a row that goes takes no room back: the columns hold still until a resize)
        wider = False
        deadline = time.perf_counter() + self.SLICE_S
        backlog = False
        added: list[str] = []
        moved: list[str] = []  # rows whose data changed: they may move in the order
        for view in views:
            if view.id in self._views and self._views[view.id] is view:
                continue
            if time.perf_counter() > deadline:
                backlog = True
                break
            if view.id not in self._views:
                added.append(view.id)
                cells = row_cells(view, now)
                self._views[view.id] = view
                self._tick_with(view, now)
                self._cells[view.id] = cells
                wider = self._measure(cells) or wider
            elif self._views[view.id] is not view:
                moved.append(view.id)
                self._views[view.id] = view
                self._tick_with(view, now)
                cells = row_cells(view, now)
                wider = self._measure(cells) or wider
                self._put(view.id, cells)
        if removed or added:
            wider = self._fit_ids() or wider
        if wider:
            self._relayout()
        if not resort:  # start-up: rows keep their places
            order = [sid for sid in self._order if sid in self._views] + added
        else:
            order = [v.id for v in views if v.id in self._views]
        if order != self._order:
            self._order = order
            self.rows_changed(order, moved=[*added, *moved])
        if keep is not None and keep in wanted:
            self.select(keep, scroll=self._follow)
        if not backlog:
            self._follow = False
            if resort and rows is not None and len(rows) == len(self._order):
                self._rows = self._order = self.row_keys = rows
                self._row_index = {}  # (`index_of`: the order's, by bisection)
        if had_rows != bool(self.row_count):
            self.refresh_bindings()
        if backlog and not self._backlog_due:
            self._backlog_due = True
            self.set_timer(0.01, self._add_backlog)

    def sync_changes(self, shown: list[SessionView], hidden: list[str], now: datetime) -> bool:
        """What changed since the last sync, alone: `shown`, sessions the list shows that are
        new or changed; `hidden`, those it no longer shows. Only their rows are built and
        re-placed (`RowOrder`: O(log n) each), whatever the number of rows; the view holds
        still as in `sync`. False (nothing done): the table is not steady (start-up, rows
        still being added); `sync` then."""
        rows = self._rows
        if rows is None or self._backlog_due or not self._resort:
            return False
        self._now = now
        page = self.page_keys()
        keep = self.highlighted_id
        had_rows = bool(self.row_count)
        moved: list[str] = []  # rows added or changed (they may move)
        placed = wider = False
        gone = [sid for sid in hidden if sid in self._views]
        for sid in gone:
            del self._views[sid], self._cells[sid]
            self._due.pop(sid, None)
            self._painter.forget(sid)
            placed = rows.discard(sid) or placed
        added = False
        for view in shown:
            old = self._views.get(view.id)
            if old is view:
                continue
            cells = row_cells(view, now)
            wider = self._measure(cells) or wider
            self._views[view.id] = view
            self._tick_with(view, now)
            if old is None:
                added = True
                self._cells[view.id] = cells
            else:
                self._put(view.id, cells)
            moved.append(view.id)
            placed = rows.put(view) or placed
        if gone or added:
            wider = self._fit_ids() or wider
        if wider:
            self._relayout()
        if placed:
            self.rows_placed(page, moved)
        if keep is not None and keep in rows:
            self.select(keep, scroll=False)
        if had_rows != bool(self.row_count):
            self.refresh_bindings()
        return True

    def index_of(self, row_key: str) -> int | None:
        rows = self._rows
        return super().index_of(row_key) if rows is None else rows.position(row_key)

    def _fit_ids(self) -> bool:
        """The rows changed: the ids' widths and those that keep their prefix (whether that
        changed: the columns are planned again, the id cells drawn again)."""
        ids = [cells["id"][0][0] for cells in self._cells.values()]
        groups = [cells["project"][0][0] for cells in self._cells.values()]
        if not self._ids.update(ids, groups):
            return False
        self.clear_drawn()
        if self._ids.core <= self._natural.get("id_core", 0):
            return False  # the ids are drawn anew; their column keeps its room
        self._natural["id_core"] = self._ids.core
        return True

    def _remeasure(self) -> bool:
        changed = super()._remeasure()
        self._natural["id_core"] = self._ids.core
        return changed

    def cell_room(self, key: str, cell: Cell) -> int:
        """A phase cell wants its label's room: its bar is planned apart (`columns.plan`); a
        known verdict its short form's (`REQUEST CHANGES` reads `CHANGES` in a column planned
        short: its full form is planned, never grown for)."""
        if key == "phase":
            return phase_label_width(cell)
        if key == "verdict":
            return text_width(columns.short_verdict(cell[0][0]))
        return super().cell_room(key, cell)

    def _add_backlog(self) -> None:
        self._backlog_due = False
        if self._now is not None:
            self.sync(self._wanted, self._now, resort=self._resort, rows=self._wanted_rows)

    def select(self, session_id: str, *, scroll: bool = True) -> bool:
        """Move the cursor to a session's row (scrolling no more than needed to show it; with
        `scroll=False`, not at all: the row moved with the data, `keep_cursor_on`)."""
        index = self.index_of(session_id)
        if index is None:
            return False
        if index != self.cursor_row:
            if scroll:
                self.move_cursor(row=index)
            else:
                self.keep_cursor_on(index)
        return True

    def _put(self, sid: str, cells: dict[str, Cell]) -> None:
        old = self._cells[sid]
        changed = {key: cell for key, cell in cells.items() if old.get(key) != cell}
        if changed:
            self.update_row_cells(sid, changed)

    def update_row_cells(self, sid: str, cells: dict[str, Cell]) -> None:
        """Some cells of a row anew: only that row is drawn again (widths are planned,
        never measured)."""
        self._cells[sid].update(cells)
        self.refresh_row_key(sid)
