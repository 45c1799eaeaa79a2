"""The session list's clock: the elapsed and last-activity cells refreshed as time passes, every
second for the rows whose texts can change within the minute, once a minute for the others. A
mixin of `SessionRows` (`self` is the table)."""

from __future__ import annotations

from datetime import datetime

from ocr_tui.core.view import SessionView
from ocr_tui.ui import fmt
from ocr_tui.ui.screens.sessions.cells import clock_cells


class RowClock:
    """The rows' clock cells, kept up with time."""

    def tick(self, now: datetime) -> None:
        """Time passed: refresh the elapsed and last-activity cells (only those that changed).
        Every second for running sessions and those active in the last hour (their texts can
        change by the minute); the others once a minute (theirs change by the hour)."""
        full = self._last_full_tick is None or (now - self._last_full_tick).total_seconds() >= 60
        if full:
            self._last_full_tick = now
            self._ticking = {sid for sid, view in self._views.items() if _ticks(view, now)}
        for sid in list(self._views) if full else list(self._ticking):
            view = self._views.get(sid)
            if view is not None:
                self._put(sid, clock_cells(view, now))

    def _tick_with(self, view: SessionView, now: datetime) -> None:
        """Keep `_ticking` (the rows `tick` updates every second) up to date."""
        if _ticks(view, now):
            self._ticking.add(view.id)
        else:
            self._ticking.discard(view.id)


def _ticks(view: SessionView, now: datetime) -> bool:
    """Whether a row's clock cells can change within the minute: running, or active in
    the last hour."""
    if view.elapsed.running:
        return True
    at = fmt.ts(view.last_activity)
    return at is not None and (now - at).total_seconds() < 3600
