"""SessionScreen: one session's header, problems, phase timeline, rounds, map runs, documents.

The rounds table is the round-to-round history: the round's distinct findings (merged across
reviewers, as `ocr-tui findings` lists them) with their change against the round before (`+2`
new, `−3` resolved, `=` neither), the synthesis' blocker / should-fix / suggestion counts, the
verdict, and a bar of the reviewers' findings by severity, scaled to the largest round, with
its counts beside it. Above it, the blocker trend: `R1 3 blockers → R2 1 (2 resolved, 0 new)`;
below it, in the pane's border, the key to its markers (all of them: `fmt.MARKERS`, on `?`).
Keys: Enter opens the row under the cursor (a round, a map-run document or a session
document), Tab / Shift+Tab move between the tables, `c` opens the current round and `F` the
latest round's findings: both only where the session has a review round (a map session, or
another format's, has none: the keys are hidden, and pressed anyway say why).

Layout: the problems first, in plain words, above everything else. From WIDE_AT columns the
phases and documents are a column beside the rest, as wide as the phases need; below that, the
panes are stacked (rounds or details first, the phases after them) and the body scrolls.
Every time is `fmt.when`'s: local, the zone named, how long ago where there is room.
"""

from __future__ import annotations

from datetime import datetime

from rich.style import Style
from textual import events, on
from textual.app import ComposeResult
from textual.containers import ScrollableContainer, Vertical
from textual.content import Content
from textual.widgets import DataTable, Static

from ocr_tui.core.registry import is_host
from ocr_tui.core.source import DEFAULT_STALL_AFTER
from ocr_tui.core.textsafe import safe_line
from ocr_tui.core.view import SessionView
from ocr_tui.ui import router
from ocr_tui.ui.navigation import (
    DocumentTarget,
    Open,
    SessionTarget,
    round_target,
)
from ocr_tui.ui.screens.base.drilldown import DrilldownScreen
from ocr_tui.ui.screens.base.nothing_to_open import events_reason
from ocr_tui.ui.screens.base.resume_tick import ResumeTick
from ocr_tui.ui.screens.ocr.agents.pane import AgentsPane
from ocr_tui.ui.screens.session.actions import KEYS, SessionActions, no_round
from ocr_tui.ui.screens.session.cells import WIDE_AT, meta_content, wrap_phrases
from ocr_tui.ui.screens.session.documents_pane import DocumentsPane
from ocr_tui.ui.screens.session.marks import SessionMarks
from ocr_tui.ui.screens.session.problems_pane import ProblemsPane
from ocr_tui.ui.screens.session.rounds_pane import RoundsPane
from ocr_tui.ui.screens.session.runs_pane import RunsPane
from ocr_tui.ui.screens.session.severity_pane import SeverityPane
from ocr_tui.ui.screens.session.timeline_cells import left_limit, left_width
from ocr_tui.ui.screens.session.timeline_pane import TimelinePane
from ocr_tui.ui.style import removed_banner, theme_style
from ocr_tui.ui.widgets.breadcrumb import Breadcrumb
from ocr_tui.ui.widgets.drill_table import DrillTable, selected_key
from ocr_tui.ui.widgets.fit_table import FitTable
from ocr_tui.ui.widgets.format_panes import FormatPanes
from ocr_tui.ui.widgets.key_footer import KeyFooter
from ocr_tui.ui.widgets.notes_pane import NotesPane


@router.route(SessionTarget)
class SessionScreen(SessionMarks, ResumeTick, SessionActions, DrilldownScreen):
    """`SessionScreen(session_id)`."""

    BINDINGS = KEYS
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (WIDE_AT, "-wide")]
    # Below 32 lines the severity chart gives way (the Rounds table's By severity column
    # says the same): the map runs and the phases stay on the first screen.
    VERTICAL_BREAKPOINTS = [(0, "-short"), (32, "-tall")]

    def __init__(self, session_id: str) -> None:
        super().__init__(session_id)
        self._last_meta: Content | None = None
        self._left_width = 0  # what the phases and documents need, wide (see `left_width`)
        self._applied_left: int | str | None = None
        self._has_rounds: tuple[bool, bool] | None = None  # what `c` / `F` last saw
        self._has_events: bool | None = None  # what `l` was last checked against
        self._meta_width = 0  # the width the header lines were wrapped to

    @classmethod
    def for_target(cls, target: SessionTarget) -> SessionScreen:
        return cls(target.session_id)

    @property
    def target(self) -> SessionTarget:
        return SessionTarget(self.session_id)

    def _style(self, variable: str, **kw: bool) -> Style:
        return theme_style(self, variable, **kw)

    @property
    def stall_limit(self) -> float:
        """`--stall-after`, in seconds (the engine's, when the app has one)."""
        engine = getattr(self.app, "engine", None)
        return getattr(engine, "stall_after", None) or DEFAULT_STALL_AFTER

    def compose(self) -> ComposeResult:
        yield Breadcrumb(id="crumbs")
        yield removed_banner()
        yield Static(id="session-title", classes="dd-title")
        yield Static(id="session-meta", classes="dd-meta")
        yield ProblemsPane(id="problems-pane", classes="dd-pane")
        with ScrollableContainer(id="session-body", can_focus=False):
            with Vertical(id="session-left"):
                yield TimelinePane(id="timeline-pane", classes="dd-pane")
                yield DocumentsPane(id="docs-pane", classes="dd-pane")
            with Vertical(id="session-right"):
                yield FormatPanes(id="format-panes")
                yield AgentsPane(id="agents-pane", classes="dd-pane")
                yield RoundsPane(id="rounds-pane", classes="dd-pane")
                yield SeverityPane(id="severity-pane", classes="dd-pane")
                yield RunsPane(id="runs-pane", classes="dd-pane")
                yield NotesPane(id="notes-pane", classes="dd-pane")
        yield KeyFooter()  # the keys that fit; the rest are in `?` help and the palette

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if (marks := self.marks_check(action)) is not None:
            return marks
        if action == "current_round":
            view = self.view
            return view is not None and view.current is not None
        if action == "latest_findings":
            view = self.view
            return view is not None and bool(view.rounds)
        if action == "map_run":
            view = self.view
            return view is not None and bool(view.map_runs)
        if action == "event_log":
            view = self.view
            return view is not None and bool(view.events)
        return super().check_action(action, parameters)

    def explain_disabled(self, action: str, parameters: tuple[object, ...]) -> str | None:
        if why := self.marks_explain(action):
            return why
        if action in ("current_round", "latest_findings"):
            return no_round(self.view)
        if action == "map_run":
            return "This session has no map run."
        if action == "event_log":
            return events_reason(self.view)
        return super().explain_disabled(action, parameters)

    def after_mount(self) -> None:
        self._arrange()
        for table_id in ("#rounds", "#steps", "#documents", "#runs"):
            table = self.query_one(table_id, DrillTable)
            if table.display and table.row_count:
                table.focus(scroll_visible=False)  # the screen opens at its top
                break
        if not getattr(self.app, "fixed_clock", False):
            self.set_interval(1.0, self._tick)

    def on_resize(self, event: events.Resize) -> None:
        view = self.view
        if view is not None:  # what the timeline shows depends on the room it has
            self._left_width = left_width(view, self.now(), left_limit(event.size.width))
        self._arrange(event.size.width)
        if view is not None:
            self._render_timeline(view, self.now())
            self.call_after_refresh(self._rewrap_meta)

    def _rewrap_meta(self) -> None:
        view = self.view
        if view is not None:
            self._render_meta(view, self.now())

    @property
    def timeline_room(self) -> int | None:
        """The timeline's columns in the left column of a wide screen (None: stacked, the
        screen's width is room enough)."""
        width = self.size.width
        if width < WIDE_AT:
            return None
        return min(max(self._left_width, 24), left_limit(width)) - 4

    def _arrange(self, width: int | None = None) -> None:
        """Narrow: the rounds (or a format's details) above the phases, stacked, full width;
        wide: the phases and documents a column on the left, as wide as they need (at most
        `left_limit`). `-narrow` / `-wide` (HORIZONTAL_BREAKPOINTS) set the rest."""
        width = self.size.width if width is None else width
        if width <= 0:
            return
        body = self.query_one("#session-body")
        left, right = self.query_one("#session-left"), self.query_one("#session-right")
        first = body.children[0] if body.children else None
        wide = width >= WIDE_AT
        if not wide and first is left:
            body.move_child(right, before=left)
        elif wide and first is right:
            body.move_child(left, before=right)
        value: int | str = min(max(self._left_width, 24), left_limit(width)) if wide else "1fr"
        if value != self._applied_left:
            self._applied_left = value
            left.styles.width = value

    # -- rendering --------------------------------------------------------------------------

    def render_view(self, view: SessionView | None, *, first: bool) -> None:
        self.set_crumbs(self.session_crumbs())
        if view is None:
            if first:
                self.query_one("#session-title", Static).update(
                    Content.styled(safe_line(self.session_id), "bold")
                )
                for pane in ("#rounds-pane", "#runs-pane", "#problems-pane", "#timeline-pane"):
                    self.query_one(pane).display = False
            return
        title = [(safe_line(view.id), "bold")]
        if view.branch:
            title += [("  branch ", "$foreground-muted"), (safe_line(view.branch), "$text-accent")]
        self.query_one("#session-title", Static).update(Content.assemble(*title))
        now = self.now()
        self._render_meta(view, now)
        self._render_timeline(view, now)
        panes = self.query_one(FormatPanes)
        has_rounds = (view.current is not None, bool(view.rounds))
        if has_rounds != self._has_rounds:  # `c` and `F` follow the rounds there are
            self._has_rounds = has_rounds
            self.refresh_bindings()
        panes.display = not is_host(view.framework)
        if panes.display:
            panes.show(view, now)
        self._render_rounds(view)
        self.query_one(RunsPane).show(view, self._style)
        has_docs = self.query_one(DocumentsPane).show(view)
        # A format that has neither phases nor documents (iDumb) shows no empty column.
        self.query_one("#session-left").display = has_docs or bool(view.timeline)
        self.query_one(AgentsPane).show(view, now)
        self.query_one(NotesPane).show(view.notes, now)
        has_events = bool(view.events)
        if has_events != self._has_events:  # `l` follows the events there are
            self._has_events = has_events
            self.refresh_bindings()
        # The left column widens when it must (a document with a longer name), never narrows
        # back until a resize: the rounds beside it do not re-wrap as the run goes on.
        left = left_width(view, now, left_limit(self.size.width))
        if left > self._left_width:
            self._left_width = left
            self._arrange()
        self.query_one(ProblemsPane).show(view, now)

    def _tick(self) -> None:
        """Every second: the elapsed time, the current phase's, and the relative times (not
        while another screen is on top: its resume looks at once)."""
        view = self.view
        if view is None or self.removed or not self.is_current:
            return
        now = self.now()
        self._render_meta(view, now)
        self._render_timeline(view, now)
        panes = self.query_one(FormatPanes)
        if panes.display:
            panes.show_facts(view, now)
        self.query_one(AgentsPane).show(view, now)  # the heartbeat ages
        if view.notes:
            self.query_one(NotesPane).show(view.notes, now)  # "(5m ago)" moves on

    def _render_meta(self, view: SessionView, now: datetime) -> None:
        meta = meta_content(view, now, self.stall_limit)
        widget = self.query_one("#session-meta", Static)
        width = widget.content_region.width or self.size.width - 2  # its padding
        if meta != self._last_meta or width != self._meta_width:
            self._last_meta, self._meta_width = meta, width
            widget.update(wrap_phrases(meta, width))

    def _render_timeline(self, view: SessionView, now: datetime) -> None:
        room = self.timeline_room
        # the legend that fits the pane (wide: the left column; stacked: the body's width, a
        # column of it for the scrollbar)
        width = room + 4 if room is not None else self.size.width - 1
        self.query_one(TimelinePane).show(view, now, room, width)

    def _render_rounds(self, view: SessionView) -> None:
        self.query_one(RoundsPane).show(view, self._style)
        self._render_severity(view)

    def _render_severity(self, view: SessionView) -> None:
        """The chart of the round under the Rounds table's cursor (else the latest)."""
        self.query_one(SeverityPane).show(view, self.query_one("#rounds", FitTable).cursor_key)

    @on(DataTable.RowHighlighted, "#rounds")
    def _round_highlighted(self, event: DataTable.RowHighlighted) -> None:
        view = self.view
        if view is not None:
            self._render_severity(view)

    # -- actions ----------------------------------------------------------------------------

    @on(DataTable.RowSelected, "#rounds")
    def _open_round(self, event: DataTable.RowSelected) -> None:
        target = round_target(self.session_id, selected_key(event) or "")
        if target is not None:
            self.post_message(Open(target))

    @on(DataTable.RowSelected, "#documents, #runs, #steps")
    def _open_document(self, event: DataTable.RowSelected) -> None:
        rel = selected_key(event)
        if event.data_table.id == "steps":
            rel = self.query_one(FormatPanes).documents.get(rel or "")
            if rel is None:
                self.notify("This step has no document.", severity="information", markup=False)
                return
        if event.data_table.id == "runs" and rel and not rel.endswith(".md"):
            self._open_run(rel)  # a run's own row (it has no document): its map
            return
        if rel and (rel.endswith(".md") or event.data_table.id != "runs"):
            self.post_message(Open(DocumentTarget(self.session_id, rel)))
