"""SessionScreen: one session's header, phase timeline, rounds, map runs, documents, problems.

The rounds table is the round-to-round history: the round's distinct findings (merged across
reviewers, as `ocr-tui findings` lists them) with their change against the round before (`+2`
new, `−3` resolved, `=` neither), the synthesis' blocker / should-fix / suggestion counts, the
verdict, and a bar of the reviewers' findings by severity, scaled to the largest round. Above
it, the blocker trend: `R1 3 blockers → R2 1 (2 resolved, 0 new)`. Keys: Enter opens the row
under the cursor (a round, a map-run document or a session document), Tab / Shift+Tab move
between the tables, `c` opens the current round.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from rich.style import Style
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import DataTable, Footer, Static

from ocr_tui.core.textsafe import safe_line
from ocr_tui.core.timeutil import human_duration
from ocr_tui.core.view import Round, SessionView
from ocr_tui.ui import fmt, router
from ocr_tui.ui.drilldown import DrilldownScreen
from ocr_tui.ui.navigation import (
    DocumentTarget,
    FindingsTarget,
    Open,
    RoundTarget,
    SessionTarget,
    round_target,
)
from ocr_tui.ui.style import VERDICT_VAR, removed_banner, theme_style
from ocr_tui.ui.widgets.breadcrumb import Breadcrumb
from ocr_tui.ui.widgets.drill_table import DrillTable, selected_key
from ocr_tui.ui.widgets.format_panes import FormatPanes

ROUND_COLUMNS = [
    ("round", "Round"),
    ("state", "State"),
    ("reviewers", "Revs"),
    ("findings", "Findings"),
    ("counts", "Blk/Fix/Sug"),
    ("verdict", "Verdict"),
    ("bar", "By severity"),
]
RUN_COLUMNS = [("run", "Run"), ("state", "State"), ("files", "Files"), ("doc", "Document")]
DOC_COLUMNS = [("name", "Document")]
BAR_WIDTH = 10
# Severity -> theme variable of its part of the bar.
BAR_PARTS = (("critical", "error"), ("high", "error"), ("medium", "warning"), ("low", "primary"))

# A theme colour as a rich Style (`style.theme_style` bound to the screen).
ThemeStyle = Callable[..., Style]


@router.route(SessionTarget)
class SessionScreen(DrilldownScreen):
    """`SessionScreen(session_id)`."""

    BINDINGS = [
        Binding("c", "current_round", "Current round", id="session.current_round"),
        Binding("F", "latest_findings", "Findings", id="session.findings", show=False),
    ]

    def __init__(self, session_id: str) -> None:
        super().__init__(session_id)
        self._last_meta: Content | None = None

    @classmethod
    def for_target(cls, target: SessionTarget) -> SessionScreen:
        return cls(target.session_id)

    @property
    def target(self) -> SessionTarget:
        return SessionTarget(self.session_id)

    def _style(self, variable: str, **kw: bool) -> Style:
        return theme_style(self, variable, **kw)

    def compose(self) -> ComposeResult:
        yield Breadcrumb(id="crumbs")
        yield removed_banner()
        yield Static(id="session-title", classes="dd-title")
        yield Static(id="session-meta", classes="dd-meta")
        with Horizontal(id="session-body"):
            with Vertical(id="session-left"):
                with Vertical(id="timeline-pane", classes="dd-pane") as pane:
                    pane.border_title = "Phases"
                    yield Static(id="timeline")
                with Vertical(id="docs-pane", classes="dd-pane") as pane:
                    pane.border_title = "Documents"
                    yield DrillTable(DOC_COLUMNS, id="documents", show_header=False)
                    yield Static("No documents yet.", id="docs-empty", classes="dd-empty")
            with Vertical(id="session-right"):
                yield FormatPanes(id="format-panes")
                with Vertical(id="rounds-pane", classes="dd-pane") as pane:
                    pane.border_title = "Rounds"
                    trend = Static(id="rounds-trend")
                    trend.styles.padding = (0, 1)  # in line with the table's first column
                    yield trend
                    yield DrillTable(ROUND_COLUMNS, id="rounds")
                    yield Static("No review rounds yet.", id="rounds-empty", classes="dd-empty")
                with Vertical(id="runs-pane", classes="dd-pane") as pane:
                    pane.border_title = "Map runs"
                    yield DrillTable(RUN_COLUMNS, id="runs")
                with Vertical(id="problems-pane", classes="dd-pane") as pane:
                    pane.border_title = "Problems"
                    yield Static(id="problems")
        yield Footer()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("current_round", "latest_findings"):
            view = self.view
            return view is None or view.framework == "ocr"  # only OCR has rounds
        return True

    def after_mount(self) -> None:
        for table_id in ("#rounds", "#steps", "#documents", "#runs"):
            table = self.query_one(table_id, DrillTable)
            if table.display and table.row_count:
                table.focus()
                break
        if not getattr(self.app, "fixed_clock", False):
            self.set_interval(1.0, self._tick)

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
        self.query_one("#timeline-pane").display = True
        title = [(safe_line(view.id), "bold")]
        if view.branch:
            title += [("  branch ", "$foreground-muted"), (safe_line(view.branch), "$accent")]
        self.query_one("#session-title", Static).update(Content.assemble(*title))
        self._render_meta(view)
        self.query_one("#timeline", Static).update(timeline_content(view))
        panes = self.query_one(FormatPanes)
        if panes.display != (view.framework != "ocr"):
            self.refresh_bindings()
        panes.display = view.framework != "ocr"
        if panes.display:
            panes.show(view, self.now())
        self._render_rounds(view)
        self._render_runs(view)
        self._render_docs(view)
        problems = self.query_one("#problems-pane")
        problems.display = bool(view.problems)
        self.query_one("#problems", Static).update(
            Content("\n").join(
                Content.assemble((f"{fmt.glyph('problem')} ", "$error"), safe_line(p))
                for p in view.problems
            )
        )

    def _tick(self) -> None:
        view = self.view
        if view is not None and not self.removed and view.elapsed.running:
            self._render_meta(view)

    def _render_meta(self, view: SessionView) -> None:
        meta = meta_content(view, self.now())
        if meta != self._last_meta:
            self._last_meta = meta
            self.query_one("#session-meta", Static).update(meta)

    def _render_rounds(self, view: SessionView) -> None:
        table = self.query_one("#rounds", DrillTable)
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
        self.query_one("#runs", DrillTable).sync_rows(rows)
        self.query_one("#runs-pane").display = bool(rows)

    def _render_docs(self, view: SessionView) -> None:
        rows = [(name, [Text(safe_line(name))]) for name in view.documents]
        self.query_one("#documents", DrillTable).sync_rows(rows)
        self.query_one("#documents").display = bool(rows)
        self.query_one("#docs-empty").display = not rows

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
        if rel and (rel.endswith(".md") or event.data_table.id != "runs"):
            self.post_message(Open(DocumentTarget(self.session_id, rel)))

    def action_current_round(self) -> None:
        view = self.view
        if view is None or view.current is None:
            self.notify("This session has no review round yet.", severity="warning", markup=False)
            return
        current = view.current
        self.post_message(Open(RoundTarget(self.session_id, current.number, current.path)))

    def action_latest_findings(self) -> None:
        view = self.view
        if view is None or not view.rounds:
            self.notify("This session has no review round yet.", severity="warning", markup=False)
            return
        latest = view.rounds[-1]
        self.post_message(Open(FindingsTarget(self.session_id, latest.number, latest.path)))


def meta_content(view: SessionView, now: datetime) -> Content:
    """Two lines: `review · active · phase 4/8 Parallel Reviews · elapsed 12m 03s` and
    `started … · last activity … · from state.json`."""
    sep = (" · ", "$foreground-muted")
    status_style = "$success" if view.running else "$foreground-muted"
    status = "complete" if view.complete else view.status
    parts: list = [(safe_line(view.workflow), "bold"), sep, (safe_line(status), status_style)]
    if view.stalled:
        parts += [" ", ("(stalled)", "$warning")]
    fraction, label = fmt.phase_parts(view)  # `4/8`; none when the total is not known
    parts += [sep, f"phase {fraction} " if fraction else "phase ", (safe_line(label), "$accent")]
    seconds = fmt.elapsed_seconds(view, now)
    shown = fmt.ticking_duration(seconds) if view.elapsed.running else human_duration(seconds)
    parts += [sep, "elapsed ", (shown, "bold")]
    second: list = [
        ("started ", "$foreground-muted"),
        fmt.fmt_datetime(view.started_at or view.elapsed.since),
    ]
    if view.last_activity:
        second += [
            sep,
            ("last activity ", "$foreground-muted"),
            fmt.fmt_datetime(view.last_activity),
        ]
    second += [sep, ("from ", "$foreground-muted"), safe_line(view.source)]
    return Content("\n").join([Content.assemble(*parts), Content.assemble(*second)])


def timeline_content(view: SessionView) -> Content:
    closed_early = view.status == "closed" and not view.complete
    lines = []
    for step in view.timeline:
        if step.state == "done":
            mark, style = "✓", "$success"
        elif step.state == "skipped":
            mark, style = "⤼", "$foreground-muted"
        elif step.state == "current":
            mark, style = ("■", "$foreground-muted") if closed_early else ("▶", "bold $accent")
        else:
            mark, style = ("–", "$foreground-muted") if closed_early else ("·", "$foreground-muted")
        label = safe_line(f"{step.number} {step.label}")[:22].ljust(22)
        when = fmt.fmt_time(step.at, view.started_at) if step.at else ""
        if step.seconds is not None and step.state != "current":
            when = human_duration(step.seconds)  # how long it took says more than when
        if step.state == "skipped":
            when = "skipped"
        lines.append(
            Content.assemble(
                (f"{mark} ", style),
                (label, style if step.state != "done" else ""),
                (f" {when}", "$foreground-muted"),
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
    """Round, state, reviewers, findings (with their change against the round before),
    counts, verdict, bar."""
    muted = style("foreground-muted")
    tone = {"warn": style("warning"), "good": style("success"), "muted": muted}
    current = view.current is not None and rnd.path == view.current.path
    twin = fmt.twin_name(view.rounds, rnd)
    label = Text(
        f"{rnd.number}{f' ({twin})' if twin else ''}{' •' if current else ''}",
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
    state = _state_cell(rnd.complete, view, style)
    var = VERDICT_VAR.get(fmt.verdict_kind(rnd))
    if rnd.verdict:
        verdict_style = style(var, bold=True) if var else style("foreground")
        text = safe_line(rnd.verdict)
        verdict = Text(text if len(text) <= 18 else text[:17] + "…", style=verdict_style)
    else:
        verdict = Text("no verdict" if rnd.complete else "—", style=muted)
    reviewers = Text(str(len(rnd.reviewers)))
    return [label, state, reviewers, findings, counts, verdict, severity_bar(rnd, most, style)]


def _state_cell(complete: bool, view: SessionView, style: ThemeStyle) -> Text:
    if complete:
        return Text("done", style=style("success"))
    if view.status == "closed":
        return Text("stopped", style=style("foreground-muted"))
    return Text("open", style=style("accent"))


def severity_bar(rnd: Round, most: int, style: ThemeStyle) -> Text:
    """BAR_WIDTH cells scaled to the round whose reviewers reported the most findings (each
    reviewer's count: a finding three reviewers raised is three), coloured by severity."""
    bar = Text()
    if most <= 0:
        return Text("·" * BAR_WIDTH, style=style("foreground-muted"))
    reported = rnd.reviewer_findings
    total_cells = max(1, round(reported / most * BAR_WIDTH)) if reported else 0
    sev = {
        "critical": sum(r.severity.critical for r in rnd.reviewers),
        "high": sum(r.severity.high for r in rnd.reviewers),
        "medium": sum(r.severity.medium for r in rnd.reviewers),
        "low": sum(r.severity.low + r.severity.info for r in rnd.reviewers),
    }
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
