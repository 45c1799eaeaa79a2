"""The detail pane under the session list: the highlighted session's phase timeline, rounds
(or another format's details) and facts, three boxes side by side (their text:
`ocr_tui.ui.screens.sessions.detail_cells`). Each part is re-rendered only when its content
changed; the screen looks at them again when one of their texts changes (`next_tick`).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from textual.app import ComposeResult
from textual.containers import ScrollableContainer, VerticalScroll
from textual.content import Content
from textual.widgets import Static

from ocr_tui.core.registry import is_host
from ocr_tui.core.source import DEFAULT_STALL_AFTER
from ocr_tui.core.ticks import next_change, view_origins
from ocr_tui.core.view import SessionView
from ocr_tui.ui import fmt
from ocr_tui.ui.screens.sessions.clock import Clock
from ocr_tui.ui.screens.sessions.detail_cells import (
    clock_content,
    details_content,
    info_content,
    phase_times,
    rounds_content,
    timeline_content,
    zone_title,
)
from ocr_tui.ui.widgets.laid import Laid
from ocr_tui.ui.widgets.laid_pane import LaidPane
from ocr_tui.ui.widgets.static_update import LazyStatic, set_border_title, update_static


class DetailPane(ScrollableContainer, can_focus=False):
    """Shows one session; `show(None)` hides nothing itself (the screen decides). Its three
    panes side by side, each a fixed width or its share, scrolling on its own (Tab reaches
    it); app.tcss hides the phases when the screen is not wide (the list shows the phase)."""

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="dp-phases") as col:
            col.border_title = "Phases"
            yield LazyStatic(id="dp-timeline")
        rounds = LaidPane(id="dp-rounds")
        rounds.border_title = "Rounds"
        yield rounds
        with VerticalScroll(id="dp-session") as col:
            col.border_title = "Session"
            yield Laid(id="dp-info")
            yield Clock(id="dp-clock")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._view: SessionView | None = None
        self._shown: dict[str, tuple] = {}
        self._rounds_of: SessionView | None = None  # the view the rounds text is of
        self._same = False  # the view shown is the same session's as before
        self._due: tuple[tuple, datetime] | None = None  # (`next_tick`: for what times)

    @property
    def session_id(self) -> str | None:
        return self._view.id if self._view else None

    @property
    def stall_limit(self) -> float:
        """`--stall-after`, in seconds (the engine's, when the app has one), as the session
        screen measures a stall against."""
        engine = getattr(self.app, "engine", None)
        return getattr(engine, "stall_after", None) or DEFAULT_STALL_AFTER

    def show(self, view: SessionView | None, now: datetime) -> None:
        if view is self._view:
            return
        # The same session changed: its text keeps its height when a line goes (it would
        # come back with the next change and lay the screen out twice); another session
        # gets the height it needs.
        self._same = view is not None and self._view is not None and view.id == self._view.id
        self._view = view
        if view is None:
            for part in ("dp-timeline", "dp-clock"):
                self._set(part, Content(""))
            for part in ("dp-rounds", "dp-info"):
                self._set_laid(part, lambda _width: Content(""), ("",))
            self._rounds_of = None
            return
        timed = bool(phase_times(view, now))
        unit = fmt.timeline_unit(view)  # whose phases: `R2` after a first round
        head = f"Phases of {unit}" if unit else "Phases"
        phases = zone_title(head, now) if timed else head
        set_border_title(self.query_one("#dp-phases"), phases)
        rounds = is_host(view.framework)
        set_border_title(self.query_one("#dp-rounds"), "Rounds" if rounds else "Details")
        self._refresh_parts(view, now)

    def tick(self, now: datetime) -> None:
        """Time passed: each part whose text changed is repainted (`next_tick` says when)."""
        if self._view is not None:
            self._refresh_parts(self._view, now)

    def next_tick(self, now: datetime) -> datetime | None:
        """When a text of the pane changes next (None: no session shown)."""
        view = self._view
        if view is None:
            return None
        clocked = _clocked(view)  # what the pane's times depend on
        if self._due is not None and self._due[0] == clocked and self._due[1] > now:
            return self._due[1]  # (the view changed, not its times)
        stall, width = self.stall_limit, self._clock_width()
        host = is_host(view.framework)

        def texts(t: datetime) -> tuple[str, ...]:
            return (
                timeline_content(view, t).plain,
                "" if host else details_content(view, t).plain,
                info_content(view, t, stall).plain,
                clock_content(view, t, width).plain,
            )

        due = next_change(texts, view_origins(view), now)
        self._due = (clocked, due)
        return due

    def _clock_width(self) -> int:
        return self.query_one("#dp-clock").content_size.width or 36

    def _refresh_parts(self, view: SessionView, now: datetime) -> None:
        self._set("dp-timeline", timeline_content(view, now))
        if is_host(view.framework):
            if self._rounds_of is not view:  # rounds do not change with time: once a view
                self._rounds_of = view
                content = rounds_content(view)
                key = ("rounds", content.plain, *content.spans)
                self._set_laid("dp-rounds", lambda _width: content, key)
        else:
            self._rounds_of = None
            probe = details_content(view, now)  # what the text is, at any width
            key = ("details", probe.plain, *probe.spans)
            self._set_laid("dp-rounds", lambda width: details_content(view, now, width), key)
        stall = self.stall_limit
        probe = info_content(view, now, stall)
        key = ("info", probe.plain, *probe.spans)
        self._set_laid("dp-info", lambda width: info_content(view, now, stall, width), key)
        self._set("dp-clock", clock_content(view, now, self._clock_width()))

    def _set_laid(self, part: str, build: Callable[[int], Content], key: tuple) -> None:
        if self._shown.get(part) != key:
            self._shown[part] = key
            self.query_one(f"#{part}", Laid | LaidPane).update(build)

    def _set(self, part: str, content: Content) -> None:
        key = (content.plain, tuple(content.spans))  # Content's == compares text only
        if self._shown.get(part) != key:
            self._shown[part] = key
            widget = self.query_one(f"#{part}", Static | Clock)
            if isinstance(widget, Static):  # no layout pass while its height stays
                update_static(widget, content, keep_height=self._same)
            else:
                widget.update(content)


def _clocked(view: SessionView) -> tuple:
    """What the times the pane shows are a function of (with the clock): the session's
    instants and whether it runs, stalls, waits; its phases' and agents' states."""
    return (
        view.id,
        tuple(view_origins(view)),
        view.elapsed,
        view.running,
        view.stalled,
        view.waiting,
        view.status,
        tuple(step.state for step in view.timeline),
        tuple(agent.stale for agent in view.agents),
    )
