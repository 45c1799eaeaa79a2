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

from collections.abc import Callable
from datetime import UTC, datetime

from rich.style import Style
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import ScrollableContainer, Vertical
from textual.content import Content
from textual.widgets import DataTable, Static

from ocr_tui.core.source import DEFAULT_STALL_AFTER
from ocr_tui.core.states import CURRENT
from ocr_tui.core.textsafe import safe_line
from ocr_tui.core.timeutil import human_duration
from ocr_tui.core.view import PhaseStep, Round, SessionView
from ocr_tui.ui import fmt, router
from ocr_tui.ui.drilldown import DrilldownScreen
from ocr_tui.ui.navigation import (
    RUN_FILE,
    DocumentTarget,
    FindingsTarget,
    MapRunTarget,
    Open,
    RoundTarget,
    SessionTarget,
    round_target,
)
from ocr_tui.ui.style import MARK_STYLE, VERDICT_VAR, removed_banner, theme_style
from ocr_tui.ui.widgets.breadcrumb import Breadcrumb
from ocr_tui.ui.widgets.drill_table import DrillTable, selected_key
from ocr_tui.ui.widgets.format_panes import FitTable, FormatPanes
from ocr_tui.ui.widgets.key_footer import KeyFooter

ROUND_COLUMNS = [
    ("round", "Round"),
    ("reviewers", "Revs"),
    ("findings", "Findings"),
    ("counts", "Blk/Fix/Sug"),
    ("verdict", "Verdict"),
    ("bar", "By severity"),
]
RUN_COLUMNS = [("run", "Run"), ("state", "State"), ("files", "Files"), ("doc", "Document")]
DOC_COLUMNS = [("name", "Document")]
BAR_WIDTH = 10
# Severity -> theme variable of its part of the bar (and of its count beside the bar).
BAR_PARTS = (("critical", "error"), ("high", "error"), ("medium", "warning"), ("low", "primary"))
ROUNDS_KEY = f"{CURRENT} current · +new −resolved =unchanged · ? all markers"
WIDE_AT = 120  # from this many columns the phases are a column of their own

# A theme colour as a rich Style (`style.theme_style` bound to the screen).
ThemeStyle = Callable[..., Style]


@router.route(SessionTarget)
class SessionScreen(DrilldownScreen):
    """`SessionScreen(session_id)`."""

    BINDINGS = [
        Binding("c", "current_round", "Current round", id="session.current_round"),
        Binding("F", "latest_findings", "Findings", id="session.findings", show=False),
        Binding(
            "m",
            "map_run",
            "Map run",
            id="session.map_run",
            tooltip="The map run under the cursor (else the latest): its sections, files and "
            "what is reviewed",
        ),  # fmt: skip
    ]
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (WIDE_AT, "-wide")]

    def __init__(self, session_id: str) -> None:
        super().__init__(session_id)
        self._last_meta: Content | None = None
        self._last_timeline: Content | None = None
        self._left_width = 0  # what the phases and documents need, wide (see `left_width`)
        self._applied_left: int | str | None = None
        self._has_rounds: bool | None = None  # what `c` / `F` were last checked against

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
        with Vertical(id="problems-pane", classes="dd-pane") as pane:
            pane.border_title = "Problems"
            yield Static(id="problems")
        with ScrollableContainer(id="session-body", can_focus=False):
            with Vertical(id="session-left"):
                with Vertical(id="timeline-pane", classes="dd-pane") as pane:
                    pane.border_title = "Phases"
                    yield Static(id="timeline")
                with Vertical(id="docs-pane", classes="dd-pane") as pane:
                    pane.border_title = "Documents"
                    yield FitTable(DOC_COLUMNS, flex=("name",), id="documents", show_header=False)
                    yield Static("No documents yet.", id="docs-empty", classes="dd-empty")
            with Vertical(id="session-right"):
                yield FormatPanes(id="format-panes")
                with Vertical(id="rounds-pane", classes="dd-pane") as pane:
                    pane.border_title = "Rounds"
                    pane.border_subtitle = ROUNDS_KEY
                    trend = Static(id="rounds-trend")
                    trend.styles.padding = (0, 1)  # in line with the table's first column
                    yield trend
                    rounds = FitTable(
                        ROUND_COLUMNS, flex=("verdict", "bar"), wrap=("bar",), id="rounds"
                    )
                    # The cells' colours (the severity bar, the verdict) stay on the cursor
                    # row: the cursor gives the row its background only.
                    rounds.cursor_foreground_priority = "renderable"
                    yield rounds
                    yield Static("No review rounds yet.", id="rounds-empty", classes="dd-empty")
                with Vertical(id="runs-pane", classes="dd-pane") as pane:
                    pane.border_title = "Map runs"
                    yield FitTable(RUN_COLUMNS, flex=("doc",), id="runs")
        yield KeyFooter()  # the keys that fit; the rest are in `?` help and the palette

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "current_round":
            view = self.view
            return view is not None and view.current is not None
        if action == "latest_findings":
            view = self.view
            return view is not None and bool(view.rounds)
        if action == "map_run":
            view = self.view
            return view is not None and bool(view.map_runs)
        return super().check_action(action, parameters)

    def explain_disabled(self, action: str, parameters: tuple[object, ...]) -> str | None:
        if action in ("current_round", "latest_findings"):
            return no_round_reason(self.view)
        if action == "map_run":
            return "This session has no map run."
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
        self._arrange(event.size.width)

    def _arrange(self, width: int | None = None) -> None:
        """Narrow: the rounds (or a format's details) above the phases, stacked, full width;
        wide: the phases and documents a column on the left, as wide as they need (at most
        40 % of the screen). `-narrow` / `-wide` (HORIZONTAL_BREAKPOINTS) set the rest."""
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
        value: int | str = min(max(self._left_width, 24), width * 2 // 5) if wide else "1fr"
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
            title += [("  branch ", "$foreground-muted"), (safe_line(view.branch), "$accent")]
        self.query_one("#session-title", Static).update(Content.assemble(*title))
        now = self.now()
        self._render_meta(view, now)
        self._render_timeline(view, now)
        panes = self.query_one(FormatPanes)
        has_rounds = (view.current is not None, bool(view.rounds))
        if has_rounds != self._has_rounds:  # `c` and `F` follow the rounds there are
            self._has_rounds = has_rounds
            self.refresh_bindings()
        panes.display = view.framework != "ocr"
        if panes.display:
            panes.show(view, now)
        self._render_rounds(view)
        self._render_runs(view)
        self._render_docs(view)
        left = left_width(view, now)
        if left != self._left_width:
            self._left_width = left
            self._arrange()
        problems = self.query_one("#problems-pane")
        problems.display = bool(view.problems)
        self.query_one("#problems", Static).update(problems_content(view, now))

    def _tick(self) -> None:
        """Every second: the elapsed time, the current phase's, and the relative times."""
        view = self.view
        if view is None or self.removed:
            return
        now = self.now()
        self._render_meta(view, now)
        self._render_timeline(view, now)
        panes = self.query_one(FormatPanes)
        if panes.display:
            panes.show_facts(view, now)

    def _render_meta(self, view: SessionView, now: datetime) -> None:
        meta = meta_content(view, now, self.stall_limit)
        if meta != self._last_meta:
            self._last_meta = meta
            self.query_one("#session-meta", Static).update(meta)

    def _render_timeline(self, view: SessionView, now: datetime) -> None:
        pane = self.query_one("#timeline-pane")
        pane.display = bool(view.timeline)  # iDumb's free-text phase has no timeline
        timeline = timeline_content(view, now)
        if timeline != self._last_timeline:
            self._last_timeline = timeline
            self.query_one("#timeline", Static).update(timeline)

    def _render_rounds(self, view: SessionView) -> None:
        table = self.query_one("#rounds", FitTable)
        rows = round_rows(view, self._style)
        table.sync_rows(rows)
        table.display = bool(rows)
        trend = trend_content(view)
        self.query_one("#rounds-trend", Static).update(trend or "")
        self.query_one("#rounds-trend").display = trend is not None
        review = view.workflow == "review" and view.framework == "ocr"
        self.query_one("#rounds-empty").display = not rows and review
        self.query_one("#rounds-pane").display = bool(rows) or review

    def _render_runs(self, view: SessionView) -> None:
        rows = run_rows(view, self._style)
        self.query_one("#runs", FitTable).sync_rows(rows)
        self.query_one("#runs-pane").display = bool(rows)

    def _render_docs(self, view: SessionView) -> None:
        rows = [(name, [Text(safe_line(name))]) for name in view.documents]
        self.query_one("#documents", FitTable).sync_rows(rows)
        self.query_one("#documents").display = bool(rows)
        self.query_one("#docs-empty").display = not rows
        # A format that has neither phases nor documents (iDumb) shows no empty column.
        self.query_one("#session-left").display = bool(rows) or bool(view.timeline)

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

    def _open_run(self, rel: str | None) -> None:
        """The map run screen of the run `rel` names (its directory or one of its files),
        else of the latest run."""
        runs = self.view.map_runs if self.view else []
        if not runs:
            self.notify("This session has no map run.", severity="warning", markup=False)
            return
        m = RUN_FILE.match(rel or "")
        path = m.group(1) if m else rel
        run = next((r for r in runs if r.path == path), runs[-1])
        self.post_message(Open(MapRunTarget(self.session_id, run.number, run.path)))

    def action_map_run(self) -> None:
        table = self.query_one("#runs", FitTable)
        key = None
        if table.row_count and table.display:
            try:
                key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
            except Exception:  # no row under the cursor
                key = None
        self._open_run(key)

    def action_current_round(self) -> None:
        view = self.view
        if view is None or view.current is None:
            self.notify(no_round_reason(view), severity="warning", markup=False)
            return
        current = view.current
        self.post_message(Open(RoundTarget(self.session_id, current.number, current.path)))

    def action_latest_findings(self) -> None:
        view = self.view
        if view is None or not view.rounds:
            self.notify(no_round_reason(view), severity="warning", markup=False)
            return
        latest = view.rounds[-1]
        self.post_message(Open(FindingsTarget(self.session_id, latest.number, latest.path)))


def no_round_reason(view: SessionView | None) -> str:
    """Why `c` (current round) and `F` (findings) do nothing on this session."""
    if view is None:
        return "This session is not read yet: it has no review round to open."
    if view.framework != "ocr":
        label = fmt.framework_label(view.framework)
        return f"{label} sessions have no review rounds: c and F have nothing to open."
    if view.workflow == "map":
        return "This map session has no review round: c and F have nothing to open."
    return "This session has no review round yet: c and F have nothing to open."


SEP = (" · ", "$foreground-muted")


def meta_content(view: SessionView, now: datetime, stall_limit: float | None = None) -> Content:
    """Two lines: `review · active · phase 4/8 Parallel Reviews · elapsed 12m 03s` (with
    `stalled: no activity for 36m (limit 30m)` when it is) and `started 14:02 UTC (12m ago) ·
    last activity 14:13 UTC (just now) · read from state.json`."""
    status_style = "$success" if view.running else "$foreground-muted"
    status = "complete" if view.complete else fmt.words(view.status)
    parts: list = [(fmt.words(view.workflow), "bold"), SEP, (status, status_style)]
    if view.stalled and view.status != "closed":
        parts += [SEP, (f"stalled: {fmt.stall_text(view, now, stall_limit)}", "$text-warning")]
    parts += [SEP, *phase_progress(view)]
    seconds = fmt.elapsed_seconds(view, now)
    shown = fmt.ticking_duration(seconds) if view.elapsed.running else human_duration(seconds)
    parts += [SEP, "elapsed ", (shown, "bold")]
    second: list = [("started ", "$foreground-muted"), fmt.when(fmt.started_at(view), now) or "—"]
    if view.last_activity:
        second += [SEP, ("last activity ", "$foreground-muted"), fmt.when(view.last_activity, now)]
    second += [SEP, ("read from ", "$foreground-muted"), safe_line(view.source)]
    return Content("\n").join([Content.assemble(*parts), Content.assemble(*second)])


def phase_progress(view: SessionView) -> list:
    """`phase ▰▰▰▱▱▱▱▱ 3/8 Subsection Planning`: the place among the phases as the list shows
    it, the same for every format (the bar only where the number of phases is known)."""
    fraction, label = fmt.phase_parts(view)  # `4/8`; none when the total is not known
    parts: list = ["phase "]
    if fraction:
        done, todo = fmt.phase_bar(fmt.phase_position(view), view.phase_total)
        parts += [(done, "$text-accent"), (todo, "$text-muted"), f" {fraction} "]
    return [*parts, (safe_line(label), "$accent")]


TICKING_ROOM = 7  # a running phase's duration as it grows: `59m 59s`


def duration_room(view: SessionView, now: datetime | None = None) -> int:
    """The timeline's duration column: its longest duration (`skipped` for a skipped phase),
    room for `59m 59s` beside a phase that runs (only its duration depends on `now`)."""
    now = now or datetime.now(UTC)
    room = 0
    for i, step in enumerate(view.timeline):
        seconds = step_seconds(view.timeline, i, now, view.running)
        if step.state == "skipped":
            took = "skipped"
        else:
            took = human_duration(seconds) if seconds is not None else ""
        if step.state == "current" and view.running:
            room = max(room, TICKING_ROOM)
        room = max(room, len(took))
    return room


def left_width(view: SessionView, now: datetime | None = None) -> int:
    """What the left column needs: the timeline (mark, the longest label, the longest
    duration: `duration_room`) and the longest document name, with the panes' borders and
    padding."""
    label = max((len(safe_line(f"{s.number} {s.label}")) for s in view.timeline), default=0)
    room = duration_room(view, now)
    timeline = 2 + label + (2 + room if room else 0) if view.timeline else 0
    docs = max((len(safe_line(d)) for d in view.documents), default=0) + 2
    return max(timeline, docs) + 4


def problems_content(view: SessionView, now: datetime) -> Content:
    """One line per problem, its times as every time is shown."""
    mark = f"{fmt.glyph('problem')} "
    return Content("\n").join(
        Content.assemble((mark, "$text-error"), fmt.times_in(safe_line(p), now))
        for p in view.problems
    )


def step_marks(view: SessionView) -> list[str]:
    """Each phase's `fmt.PHASE_MARKS` key: a session closed early shows the phase it stopped in
    as `stopped` and those it never reached as `unreached`."""
    closed_early = view.status == "closed" and not view.complete
    out = []
    for step in view.timeline:
        state = step.state if step.state in fmt.PHASE_MARKS else "pending"
        if closed_early and state == "current":
            state = "stopped"
        elif closed_early and state == "pending":
            state = "unreached"
        out.append(state)
    return out


def step_seconds(steps: list[PhaseStep], i: int, now: datetime, running: bool) -> int | None:
    """How long phase `i` took (or, current in a running session, has taken so far): its own
    duration, else from its start to the next phase's start; None when not known."""
    step = steps[i]
    if step.state == "current":
        at = fmt.ts(step.at)
        if running and at is not None:
            return max(0, int((now - at).total_seconds()))
        return None if step.seconds is None else int(step.seconds)
    if step.seconds is not None:
        return int(step.seconds)
    if step.state == "done" and i + 1 < len(steps):
        start, end = fmt.ts(step.at), fmt.ts(steps[i + 1].at)
        if start is not None and end is not None and end >= start:
            return int((end - start).total_seconds())
    return None


def timeline_content(view: SessionView, now: datetime) -> Content:
    """`✓ 2 Change Context  3m 10s` per phase: its mark, number and label (the labels one
    column, as wide as the longest), and how long it took; the current phase how long it has
    run, ticking; a skipped one says so."""
    steps = view.timeline
    labels = [safe_line(f"{step.number} {step.label}") for step in steps]
    width = max((len(x) for x in labels), default=0)
    lines = []
    for i, state in enumerate(step_marks(view)):
        style = MARK_STYLE.get(state, "")
        seconds = step_seconds(steps, i, now, view.running)
        took = human_duration(seconds) if seconds is not None else ""
        if state == "skipped":
            took = "skipped"
        lines.append(
            Content.assemble(
                (f"{fmt.PHASE_MARKS[state]} ", style),
                (labels[i].ljust(width), "" if state == "done" else style),
                (f"  {took}" if took else "", "$foreground-muted"),
            )
        )
    return Content("\n").join(lines)


TONE_VAR = {"bad": "$text-error", "good": "$text-success", "warn": "$text-warning"}


def trend_content(view: SessionView) -> Content | None:
    """The blocker trend above the rounds table (`fmt.blocker_trend`); None without rounds."""
    parts = fmt.blocker_trend(view.rounds)
    if parts is None:
        return None
    styles = TONE_VAR | {"muted": "$foreground-muted", "": ""}
    return Content.assemble(*((text, styles[tone]) for text, tone in parts))


# -- table rows (DataTable cells are rich Text, styled with the theme's colours) ---------------


def round_rows(view: SessionView, style: ThemeStyle) -> list[tuple[str, list[Text]]]:
    """One row per round, keyed by directory: `rounds/round-01` and `rounds/round-1` are both
    round 1."""
    most = max((r.reviewer_findings for r in view.rounds), default=0)
    return [(rnd.path, round_cells(view, rnd, most, style)) for rnd in view.rounds]


def round_cells(view: SessionView, rnd: Round, most: int, style: ThemeStyle) -> list[Text]:
    """Round, reviewers, findings (with their change against the round before), counts,
    verdict (a round without one: `in progress`, or `stopped` in a closed session), bar (with
    its counts)."""
    muted = style("foreground-muted")
    tone = {"warn": style("warning"), "good": style("success"), "muted": muted}
    current = view.current is not None and rnd.path == view.current.path
    twin = fmt.twin_name(view.rounds, rnd)
    label = Text(
        f"{rnd.number}{f' ({twin})' if twin else ''}{f' {CURRENT}' if current else ''}",
        style="bold" if current else "",
    )
    findings = Text(str(rnd.findings))
    for text, kind in fmt.findings_change(rnd):
        findings.append(" " + text, style=tone[kind])
    if rnd.counts is not None:
        c = rnd.counts
        counts = Text(f"{c.blockers} / {c.should_fix} / {c.suggestions}")
        if c.blockers:
            counts.stylize(style("error", bold=True), 0, len(str(c.blockers)))
    else:
        counts = Text("—", style=muted)
    var = VERDICT_VAR.get(fmt.verdict_kind(rnd))
    if rnd.verdict:
        verdict_style = style(var, bold=True) if var else style("foreground")
        verdict = Text(safe_line(rnd.verdict), style=verdict_style)
    elif rnd.complete:
        verdict = Text("no verdict", style=muted)
    else:  # no synthesis yet: the round's state says more than "—"
        verdict = _state_cell(rnd.complete, view, style)
    reviewers = Text(str(len(rnd.reviewers)))
    return [label, reviewers, findings, counts, verdict, severity_bar(rnd, most, style)]


STATE_VAR = {"done": "success", "stopped": "foreground-muted", "open": "accent"}


def _state_cell(complete: bool, view: SessionView, style: ThemeStyle) -> Text:
    state = fmt.round_state(complete, view)
    return Text(fmt.ROUND_STATES[state], style=style(STATE_VAR[state]))


def severity_counts(rnd: Round) -> dict[str, int]:
    """The reviewers' findings by the bar's severities (info counts as low)."""
    return {
        "critical": sum(r.severity.critical for r in rnd.reviewers),
        "high": sum(r.severity.high for r in rnd.reviewers),
        "medium": sum(r.severity.medium for r in rnd.reviewers),
        "low": sum(r.severity.low + r.severity.info for r in rnd.reviewers),
    }


def severity_bar(rnd: Round, most: int, style: ThemeStyle) -> Text:
    """BAR_WIDTH cells scaled to the round whose reviewers reported the most findings (each
    reviewer's count: a finding three reviewers raised is three), coloured by severity, then
    the counts in words (`2 high 3 medium`): the colours alone are no key. Foreground colours
    only: the row (the cursor) owns the background."""
    bar = Text()
    if most <= 0:
        return Text("·" * BAR_WIDTH, style=style("foreground-muted"))
    reported = rnd.reviewer_findings
    total_cells = max(1, round(reported / most * BAR_WIDTH)) if reported else 0
    sev = severity_counts(rnd)
    used = 0
    for i, (name, var) in enumerate(BAR_PARTS):
        if i == len(BAR_PARTS) - 1:
            cells = total_cells - used
        else:
            cells = round(sev[name] / reported * total_cells) if reported else 0
            cells = min(cells, total_cells - used)
        if cells > 0:
            bar.append("█" * cells, style=style(var))
            used += cells
    bar.append("·" * (BAR_WIDTH - used), style=style("foreground-muted"))
    for name, var in BAR_PARTS:
        if sev[name]:
            bar.append(f" {sev[name]} ", style=style(var, bold=True))
            bar.append(name, style=style(var))
    return bar


def run_rows(view: SessionView, style: ThemeStyle) -> list[tuple[str, list[Text]]]:
    """One row per document of each map run (a run without documents: one row, keyed by the
    run's directory)."""
    rows = []
    for run in view.map_runs:
        state = _state_cell(run.complete, view, style)
        files = Text("—" if run.files is None else str(run.files))
        twin = fmt.twin_name(view.map_runs, run)
        number = f"{run.number} ({twin})" if twin else str(run.number)
        docs = run.documents or [None]
        for i, rel in enumerate(docs):
            first = i == 0
            cells = [
                Text(number if first else ""),
                state if first else Text(""),
                files if first else Text(""),
                Text(safe_line(rel.rsplit("/", 1)[-1]) if rel else "—"),
            ]
            rows.append((rel or run.path, cells))
    return rows
