"""EventsScreen: a session's event log (`l` on the session screen): what
OCR recorded as the session ran (`orchestration_events`: created, phases entered, rounds
started and completed with their counts, map runs, closed, synced), newest first, in words
(`ui.event_cells`), with when each happened. Live: a new event appears at the top as OCR
writes it. Keys: the table's (↑/↓, PgUp/PgDn, g/G), Enter opens the round (or map run) the
event is about, Esc goes back to the session.
"""

from __future__ import annotations

from functools import partial

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import DataTable, Static

from ocr_tui.core.view import LogEvent, SessionView
from ocr_tui.ui import router
from ocr_tui.ui.navigation import EventsTarget, MapRunTarget, Open, RoundTarget, Target
from ocr_tui.ui.screens.base.drilldown import Crumb, DrilldownScreen
from ocr_tui.ui.screens.base.resume_tick import ResumeTick
from ocr_tui.ui.screens.events.cells import COLUMNS, FLEX, event_rows, labels
from ocr_tui.ui.style import removed_banner, theme_style
from ocr_tui.ui.widgets.breadcrumb import Breadcrumb
from ocr_tui.ui.widgets.drill_table import selected_key
from ocr_tui.ui.widgets.fit_table import FitTable
from ocr_tui.ui.widgets.key_footer import KeyFooter

RECORDS_CSS = DrilldownScreen.CSS_PATH.with_name("records.tcss")
KEPT = 200  # what the view keeps (`SessionView.events`)


def count_text(view: SessionView | None) -> str:
    if view is None:
        return ""
    n = len(view.events)
    if not n:
        return ""
    kept = f" (the last {KEPT})" if n >= KEPT else ""
    return f"{n} event{'s' if n != 1 else ''}{kept}, newest first, as OCR recorded them"


def empty_text(view: SessionView | None) -> str:
    if view is None:
        return "This session is not read yet."
    if view.source != "ocr.db":
        return (
            f"No event log: this session is read from {view.source}, and only OCR's "
            "database (ocr.db, OCR 1.5 and later) records events."
        )
    return "OCR has recorded no event for this session yet."


@router.route(EventsTarget)
class EventsScreen(ResumeTick, DrilldownScreen):
    """`EventsScreen(session_id)`."""

    CSS_PATH = [DrilldownScreen.CSS_PATH, RECORDS_CSS]
    HELP_TITLE = "Event log"

    @classmethod
    def for_target(cls, target: EventsTarget) -> EventsScreen:
        return cls(target.session_id)

    @property
    def target(self) -> EventsTarget:
        return EventsTarget(self.session_id)

    def session_crumbs(self) -> list[Crumb]:
        return [*super().session_crumbs(), ("Events", None)]

    def compose(self) -> ComposeResult:
        yield Breadcrumb(id="crumbs")
        yield removed_banner()
        yield Static(Content.styled("Event log", "bold"), classes="dd-title")
        yield Static(id="events-count", classes="dd-meta")
        with Vertical(id="events-pane", classes="dd-pane") as pane:
            pane.border_title = "Events"
            yield FitTable(COLUMNS, flex=FLEX, wrap=("details",), id="events", hold=True)
            yield Static(id="events-empty", classes="dd-empty")
        yield KeyFooter()

    def after_mount(self) -> None:
        self.query_one("#events", FitTable).focus()
        if not getattr(self.app, "fixed_clock", False):
            self.set_interval(30.0, self._tick)  # the times: today's clock becomes a date

    def _tick(self) -> None:
        if not self.removed and self.is_current:  # (hidden: its resume renders it)
            self.render_view(self.view, first=False)

    def render_view(self, view: SessionView | None, *, first: bool) -> None:
        self.set_crumbs(self.session_crumbs())
        now = self.now()
        events = view.events if view is not None else []
        table = self.query_one("#events", FitTable)
        table.set_labels(labels(events, now))
        steps = view.timeline if view is not None else []
        table.sync_rows(event_rows(events, steps, now, partial(theme_style, self)))
        table.display = bool(events)
        self.query_one("#events-count", Static).update(count_text(view))
        empty = self.query_one("#events-empty", Static)
        empty.display = not events
        empty.update(empty_text(view))

    @on(DataTable.RowSelected, "#events")
    def _open_event(self, event: DataTable.RowSelected) -> None:
        view, key = self.view, selected_key(event)
        if view is None or key is None or not key.isdigit() or int(key) >= len(view.events):
            return
        target = event_target(view, view.events[int(key)])
        if target is None:
            self.notify("This event is about no round or map run.", markup=False)
        else:
            self.post_message(Open(target))


def event_target(view: SessionView, event: LogEvent) -> Target | None:
    """The round an event is about (its `round`), or the map run of `map_completed` (whose
    `round` is the run's number); None when it names none the session has."""
    if event.round is None:
        return None
    if event.type == "map_completed":
        run = next((r for r in view.map_runs if r.number == event.round), None)
        return MapRunTarget(view.id, run.number, run.path) if run else None
    rnd = next((r for r in view.rounds if r.number == event.round), None)
    return RoundTarget(view.id, rnd.number, rnd.path) if rnd else None
