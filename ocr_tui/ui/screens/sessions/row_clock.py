"""The session list's clock: the elapsed and last-activity cells refreshed as time passes. A
row whose texts can change within the minute (running, or active in the last hour) is looked
at when its texts change next (`core.ticks.next_change`: a second while one shows seconds, a
minute while they count minutes), the others once a minute (theirs change by the hour). A
mixin of `SessionRows` (`self` is the table)."""

from __future__ import annotations

from datetime import datetime

from ocr_tui.core.ticks import MAX_WAIT, next_change, view_origins
from ocr_tui.core.view import SessionView
from ocr_tui.ui import fmt
from ocr_tui.ui.screens.sessions.cells import clock_cells


class RowClock:
    """The rows' clock cells, kept up with time."""

    def tick(self, now: datetime) -> None:
        """Time passed: refresh the clock cells that changed. Those of the rows due by now;
        once a minute, every row's."""
        full = self._last_full_tick is None or now - self._last_full_tick >= MAX_WAIT
        if full:
            self._last_full_tick = now
            self._due = {}
            for view in self._views.values():
                self._tick_with(view, now)
        due = list(self._views) if full else [s for s, at in self._due.items() if at <= now]
        for sid in due:
            view = self._views.get(sid)
            if view is not None:
                self._put(sid, clock_cells(view, now))
                if not full and sid in self._due:
                    self._due[sid] = _next(view, now)

    def next_tick(self) -> datetime | None:
        """When a clock cell may change next: a row's due time, or the minute's look at every
        row (None: neither is known yet; the screen looks within a minute)."""
        dues = list(self._due.values())
        if self._last_full_tick is not None:
            dues.append(self._last_full_tick + MAX_WAIT)
        return min(dues, default=None)

    def _tick_with(self, view: SessionView, now: datetime) -> None:
        """Keep `_due` (when the rows whose texts change within the minute change next) up to
        date as the row's view changes."""
        if _ticks(view, now):
            self._due[view.id] = _next(view, now)
        else:
            self._due.pop(view.id, None)


def _ticks(view: SessionView, now: datetime) -> bool:
    """Whether a row's clock cells can change within the minute: running, or active in
    the last hour."""
    if view.elapsed.running:
        return True
    at = fmt.ts(view.last_activity)
    return at is not None and (now - at).total_seconds() < 3600


def _next(view: SessionView, now: datetime) -> datetime:
    """When the row's clock cells change next (at most a minute ahead)."""
    return next_change(lambda t: clock_cells(view, t), view_origins(view), now)
