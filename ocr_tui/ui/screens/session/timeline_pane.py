"""TimelinePane: the session's phases, one line each (`timeline_cells`): its mark, number,
label, when it was entered and how long it took, with a bar against the longest phase where
there is room. The title says the day and zone; the bottom border the key to the marks that
fit. Hidden for a session without phases (iDumb's free-text phase)."""

from __future__ import annotations

from datetime import datetime

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from ocr_tui.core.view import SessionView
from ocr_tui.ui.screens.session.timeline_cells import timeline_content, timeline_key, timeline_title


class TimelinePane(Vertical):
    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.border_title = "Phases"
        self._last: Content | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="timeline")

    def show(self, view: SessionView, now: datetime, room: int | None, width: int) -> None:
        """`room`: the timeline's columns (None: stacked, the screen's width); `width`: the
        pane's, for the key in its border."""
        self.display = bool(view.timeline)
        timeline = timeline_content(view, now, room)
        if timeline != self._last:
            self._last = timeline
            self.query_one("#timeline", Static).update(timeline)
            self.border_title = timeline_title(view, now, room)
        self.border_subtitle = timeline_key(view, now, room, width)
