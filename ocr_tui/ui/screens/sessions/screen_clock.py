"""The list screen's clock: one timer, set to the next instant a time it shows changes (a row's
elapsed or activity cell, a text of the detail pane: `core.ticks`), never more than a minute
ahead; none while another screen is on top, or with a fixed clock. A mixin of `MainScreen`
(`self` is the screen)."""

from __future__ import annotations

from datetime import datetime

from textual.timer import Timer

from ocr_tui.core.ticks import MAX_WAIT
from ocr_tui.ui.screens.sessions.detail_pane import DetailPane

TIMER_SLACK_S = 0.002  # a timer fires a little after its time, never before it
ARM_AFTER_S = 0.05  # after a change, when the next tick is worked out


class ScreenClock:
    """The times on the list screen, kept up with the clock."""

    _tick_timer: Timer | None = None
    _tick_due: datetime | None = None

    def _tick(self) -> None:
        """Time passed: the cells and the pane's texts due now. Nothing while another screen
        is on top (its resume looks at once)."""
        if self._tick_timer is not None:
            self._tick_timer.stop()  # (called by its timer, or sooner: by a resume)
        self._tick_timer = self._tick_due = None
        if not self.is_current:
            return
        now = self.app.now()
        self.table.tick(now)
        self._part(DetailPane).tick(now)
        self._arm_tick()

    def _arm_tick(self) -> None:
        """One timer, for the next instant a time on the screen changes (`core.ticks`): a
        second ahead while one shows seconds, else a minute's turn, never more than a minute.
        None with a fixed clock."""
        if self.app.fixed_clock or not self.is_current:
            return
        now = self.app.now()
        dues = (self.table.next_tick(), self._part(DetailPane).next_tick(now))
        due = min((d for d in dues if d is not None), default=now + MAX_WAIT)
        if self._tick_timer is not None:
            if self._tick_due is not None and self._tick_due <= due:
                return  # (what is due sooner still comes first)
            self._tick_timer.stop()
        self._tick_due = due
        wait = max(0.0, (due - now).total_seconds()) + TIMER_SLACK_S
        self._tick_timer = self.set_timer(wait, self._tick, name="tick")

    _arm_due = False

    def arm_tick_later(self) -> None:
        """The data or the highlight changed: the timer is set again a moment later, once the
        frame showing the change is written (what comes due is worked out off the change's
        way to the screen: right after the frame, it held up the thread that writes it)."""
        if not self._arm_due:
            self._arm_due = True
            self.set_timer(ARM_AFTER_S, self._arm_after_refresh)

    def _arm_after_refresh(self) -> None:
        self._arm_due = False
        self._arm_tick()

    def on_screen_resume(self) -> None:
        self._tick()
