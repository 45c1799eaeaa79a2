"""FindingsScreen: one review round's findings across its reviewers (issue 12, part 3).

The findings are read in a thread worker (`round_findings.read_findings`, plus the triage of
`ocr.db` when the project has one), never on the UI thread, and read again whenever the app's
`touched_signal` (or `sessions_signal`) says the session's files changed.

Keys: `v` cycles a minimum severity (all → info → low → medium → high → critical → all), `b`
shows blockers only, Enter opens the file a finding was read from (a reviewer file, final.md,
round-meta.json) in the document screen, Esc goes back.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import DataTable, Footer, Static
from textual.worker import Worker, WorkerState, get_current_worker

from ocr_tui.core.textsafe import safe_line
from ocr_tui.core.view import SessionView
from ocr_tui.formats.ocr.finding import SEVERITIES, Finding
from ocr_tui.formats.ocr.findings import shown as passes_filters
from ocr_tui.ui import router
from ocr_tui.ui.drilldown import Crumb, DrilldownScreen
from ocr_tui.ui.fmt import round_label
from ocr_tui.ui.navigation import (
    DocumentTarget,
    FindingsTarget,
    Open,
    RoundTarget,
    adjacent_item,
)
from ocr_tui.ui.style import removed_banner, theme_style
from ocr_tui.ui.widgets.breadcrumb import Breadcrumb
from ocr_tui.ui.widgets.drill_table import DrillTable, selected_key

# Short columns first, so severity, blocker and evolution stay in view beside long paths.
COLUMNS = [
    ("severity", "Severity"),
    ("blocker", "Blocker"),
    ("evolution", "Evolution"),
    ("title", "Title"),
    ("where", "File:line"),
    ("reviewers", "Reviewers"),
]
TRIAGE_COLUMN = ("triage", "Triage")
SEVERITY_VAR = {"critical": "error", "high": "error", "medium": "warning", "low": "primary"}
# `v`: all, then each minimum severity from the lowest up, then all again.
MIN_SEVERITIES: tuple[str | None, ...] = (None, *reversed(SEVERITIES))
TITLE_WIDTH = 48


@dataclass(frozen=True)
class Loaded:
    """One read of the session's findings: this round's (None: the round has none on disk)."""

    findings: list[Finding] | None
    source: str | None
    problems: list[str]


def read_round(session_dir: str, number: int, db_path: Path | None, session_id: str) -> Loaded:
    """Blocking IO: the findings of round `number` (with ocr.db's rows and triage, if any)."""
    from ocr_tui.formats.ocr.round_findings import read_with_store

    rounds, store_problem = read_with_store(Path(session_dir), db_path, session_id)
    rf = next((r for r in rounds if r.number == number), None)
    problems = ([store_problem] if store_problem else []) + (rf.problems if rf else [])
    if rf is None:
        return Loaded(None, None, problems)
    return Loaded(list(rf.findings), rf.source, problems)


def filter_label(min_severity: str | None, blockers: bool) -> str:
    parts = [f"severity ≥ {min_severity}"] if min_severity else []
    parts += ["blockers only"] if blockers else []
    return " · ".join(parts) or "no filter"


def where(f: Finding) -> str:
    return safe_line(f.location.text())


@router.route(FindingsTarget)
class FindingsScreen(DrilldownScreen):
    """`FindingsScreen(session_id, number, path)`: the findings of one round."""

    BINDINGS = [
        Binding("v", "cycle_severity", "Min severity", id="findings.severity"),
        Binding("b", "toggle_blockers", "Blockers only", id="findings.blockers"),
        Binding("y", "copy_location", "Copy file:line", id="findings.copy"),
        Binding("[", "step(-1)", "Prev round", id="findings.prev", show=False),
        Binding("]", "step(1)", "Next round", id="findings.next", show=False),
    ]

    class Read(Message):
        def __init__(self, loaded: Loaded) -> None:
            super().__init__()
            self.loaded = loaded

    def __init__(self, session_id: str, number: int, path: str) -> None:
        super().__init__(session_id)
        self.round_number = number
        self.round_path = path
        self.session_dir: str | None = None
        self.findings: list[Finding] | None = None  # None: not read yet
        self.source: str | None = None
        self.problems: list[str] = []
        self.min_severity: str | None = None
        self.blockers_only = False
        self.loads = 0  # reads applied
        self._triage = False  # whether the table has the triage column

    @classmethod
    def for_target(cls, target: FindingsTarget) -> FindingsScreen:
        return cls(target.session_id, target.number, target.path)

    @property
    def target(self) -> FindingsTarget:
        return FindingsTarget(self.session_id, self.round_number, self.round_path)

    def compose(self) -> ComposeResult:
        yield Breadcrumb(id="crumbs")
        yield removed_banner()
        yield Static(id="findings-title", classes="dd-title")
        yield Static(id="findings-count", classes="dd-meta")
        with Vertical(id="findings-pane", classes="dd-pane") as pane:
            pane.border_title = "Findings"
            yield DrillTable(COLUMNS, id="findings")
            yield Static("Reading the findings…", id="findings-empty", classes="dd-empty")
        yield Footer()

    def after_mount(self) -> None:
        self.query_one("#findings", DrillTable).focus()
        touched = getattr(self.app, "touched_signal", None)
        if touched is not None:
            touched.subscribe(self, self._on_touched)

    def _on_touched(self, ids: frozenset[str]) -> None:
        if self.session_id in ids and not self.removed:
            self.load()

    # -- loading ----------------------------------------------------------------------------

    def render_view(self, view: SessionView | None, *, first: bool) -> None:
        self.set_crumbs(self.crumbs(view))
        self._render_title(view)
        if view is None:
            if first:
                self._show_empty("This session is not known.")
            return
        self.session_dir = view.path
        # A file change re-reads through `touched_signal` (every batch that touched the
        # session); a view change alone needs no second read. Without the signal (an app that
        # has none), every re-render reads.
        if first or self.findings is None or getattr(self.app, "touched_signal", None) is None:
            self.load()

    def load(self) -> None:
        if self.session_dir is None:
            return
        project = getattr(self.app, "project", None)
        db_path = getattr(project, "db_path", None)
        self._read(self.session_dir, self.round_number, db_path, self.session_id)

    @work(thread=True, exclusive=True, exit_on_error=False, group="findings")
    def _read(self, session_dir: str, number: int, db_path: Path | None, sid: str) -> None:
        loaded = read_round(session_dir, number, db_path, sid)
        if not get_current_worker().is_cancelled:
            self.post_message(self.Read(loaded))

    @on(Read)
    async def _apply(self, message: Read) -> None:
        if not self.query("#findings"):
            return  # the screen is being dismissed
        loaded = message.loaded
        self.findings, self.source, self.problems = loaded.findings, loaded.source, loaded.problems
        triage = any(f.triage for f in self.findings or [])
        if triage != self._triage:
            await self._replace_table(triage)
        self.loads += 1
        self.refresh_rows()

    async def _replace_table(self, triage: bool) -> None:
        """A table with (or without) the triage column: DrillTable's columns are fixed."""
        old = self.query_one("#findings", DrillTable)
        had_focus = old.has_focus
        await old.remove()
        table = DrillTable([*COLUMNS, TRIAGE_COLUMN] if triage else COLUMNS, id="findings")
        await self.query_one("#findings-pane").mount(table, before="#findings-empty")
        self._triage = triage
        if had_focus:
            table.focus()

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.group == "findings":
            self._show_empty(f"Could not read the findings: {event.worker.error}")

    # -- rendering --------------------------------------------------------------------------

    def crumbs(self, view: SessionView | None) -> list[Crumb]:
        rnd = view.round(self.round_number, self.round_path) if view is not None else None
        label = round_label(view, rnd) if rnd is not None else f"Round {self.round_number}"
        back = RoundTarget(self.session_id, self.round_number, self.round_path)
        return [*self.session_crumbs(), (label, back), ("Findings", None)]

    def _render_title(self, view: SessionView | None) -> None:
        rnd = view.round(self.round_number, self.round_path) if view is not None else None
        label = round_label(view, rnd) if rnd is not None else f"Round {self.round_number}"
        self.query_one("#findings-title", Static).update(
            Content.assemble((f"Findings of {safe_line(label)}", "bold"))
        )

    @property
    def shown(self) -> list[Finding]:
        """The findings the filters let through, in the table's order."""
        keep = (self.min_severity, self.blockers_only)
        return [f for f in self.findings or [] if passes_filters(f, *keep)]

    def count_text(self) -> str:
        """`3 of 5 findings · severity ≥ high` (+ the previous round's resolved ones)."""
        findings = self.findings or []
        shown = self.shown
        current = [f for f in findings if f.evolution != "resolved"]
        n = sum(1 for f in shown if f.evolution != "resolved")
        text = f"{n} of {len(current)} finding{'' if len(current) == 1 else 's'}"
        resolved = len(findings) - len(current)
        if resolved:
            text += f" (+{len(shown) - n} of {resolved} resolved)"
        text += f" · {filter_label(self.min_severity, self.blockers_only)}"
        if self.source:
            text += f" · from {self.source}"
        return text

    def refresh_rows(self) -> None:
        count = self.query_one("#findings-count", Static)
        if self.findings is None:
            count.update("")
            self._fill([])
            self._show_empty(
                "This round has no findings on disk." if self.loads else "Reading the findings…"
            )
            return
        muted = theme_style(self, "foreground-muted")
        count.update(Content.assemble((self.count_text(), "")))
        rows = []
        for f in self.shown:
            rows.append((f.id, self._cells(f, muted)))
        self._fill(rows)
        self._show_empty(
            "No findings in this round."
            if not self.findings
            else "No findings match the filter (v: severity, b: blockers)."
        )

    def _cells(self, f: Finding, muted) -> list[Text]:
        resolved = f.evolution == "resolved"
        sev = f.severity or "—"
        var = SEVERITY_VAR.get(f.severity or "")
        sev_style = muted if resolved or var is None else theme_style(self, var, bold=True)
        title = safe_line(f.title)
        if len(title) > TITLE_WIDTH:
            title = title[: TITLE_WIDTH - 1] + "…"
        cells = [
            Text(sev, style=sev_style),
            Text("blocker" if f.blocker else "·", style="" if f.blocker else muted),
            Text(f.evolution or "·", style=muted if f.evolution in (None, "resolved") else ""),
            Text(title, style=muted if resolved else ""),
            Text(where(f), style=muted),
            Text(safe_line(", ".join(f.reviewers))),
        ]
        if self._triage:
            cells.append(Text(safe_line(f.triage or "·"), style="" if f.triage else muted))
        return cells

    def _fill(self, rows: list) -> None:
        table = self.query_one("#findings", DrillTable)
        table.sync_rows(rows)
        table.display = bool(rows)

    def _show_empty(self, text: str) -> None:
        empty = self.query_one("#findings-empty", Static)
        empty.update(Content(text))
        empty.display = not self.query_one("#findings", DrillTable).row_count

    # -- actions ----------------------------------------------------------------------------

    def action_cycle_severity(self) -> None:
        i = MIN_SEVERITIES.index(self.min_severity)
        self.min_severity = MIN_SEVERITIES[(i + 1) % len(MIN_SEVERITIES)]
        self.refresh_rows()

    def action_toggle_blockers(self) -> None:
        self.blockers_only = not self.blockers_only
        self.refresh_rows()

    def action_step(self, delta: int) -> None:
        """The findings of the round before or after, with the same filters."""
        view = self.view
        target = adjacent_item(
            view.rounds if view else [], self.round_path, self.round_number, delta
        )
        if target is None:
            self.app.bell()
            self.notify(f"No {'earlier' if delta < 0 else 'later'} round.", timeout=2, markup=False)
            return
        self.round_number, self.round_path = target.number, target.path
        self.findings = None
        self.render_view(view, first=False)

    def action_copy_location(self) -> None:
        """`file:line` of the finding at the cursor to the clipboard (OSC 52 in a terminal)."""
        table = self.query_one("#findings", DrillTable)
        key = table.key_of(table.cursor_key) if table.row_count else None
        finding = next((f for f in self.shown if f.id == key), None)
        if finding is None or not finding.location.file:
            self.notify("No file to copy for this finding.", timeout=3, markup=False)
            return
        text = where(finding)
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied {safe_line(text)}", timeout=2, markup=False)

    @on(DataTable.RowSelected, "#findings")
    def _open_finding(self, event: DataTable.RowSelected) -> None:
        key = selected_key(event)
        finding = next((f for f in self.shown if f.id == key), None)
        if finding is None:
            return
        path = finding.path
        if not path or path.startswith("/") or ".." in path.split("/"):
            what = "from ocr.db" if finding.source == "ocr.db" else "without a file"
            self.notify(f"This finding was read {what}.", timeout=3, markup=False)
            return
        self.post_message(Open(DocumentTarget(self.session_id, path)))
