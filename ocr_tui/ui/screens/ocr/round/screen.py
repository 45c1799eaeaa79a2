"""RoundScreen: one review round's verdict banner, reviewers and round documents.

Keys: Enter opens the reviewer file or document under the cursor (discourse.md as the
reviewers' responses: the discourse screen); `F` the round's findings, `D` its discourse; `[` /
`]` show the previous / next existing round in place (the screen stack does not grow); Tab
moves between the two tables.

A round is one directory: `rounds/round-01` beside `rounds/round-1` are both round 1, and the
screen shows the one it was opened on (`path`; with a number alone, the first, `round-1`).

Words and marks are the session screen's: a round is `done`, `in progress` or `stopped`
(`fmt.ROUND_STATES`); the verdict banner says its verdict in words, with no glyph of its own
(each glyph has one meaning: `✗` is a problem, `…` a session not read yet). The tables are as
wide as the screen (`FitTable`: long names end in `…`, no horizontal scrollbar), and the
severity colours stay on the cursor row.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import DataTable, Static

from ocr_tui.core.textsafe import safe_line
from ocr_tui.core.view import Round, SessionView
from ocr_tui.ui import router
from ocr_tui.ui.fmt import round_label, round_state, verdict_kind
from ocr_tui.ui.navigation import (
    DiscourseTarget,
    DocumentTarget,
    FindingsTarget,
    Open,
    ReviewerTarget,
    RoundTarget,
    Target,
    adjacent_item,
)
from ocr_tui.ui.screens.base.drilldown import Crumb, DrilldownScreen
from ocr_tui.ui.screens.ocr.reviews.cells import triage_text
from ocr_tui.ui.screens.ocr.round.title import round_title
from ocr_tui.ui.screens.ocr.triage.rounds import RoundMarks
from ocr_tui.ui.style import removed_banner, theme_style
from ocr_tui.ui.widgets.breadcrumb import Breadcrumb
from ocr_tui.ui.widgets.drill_table import DrillTable, selected_key
from ocr_tui.ui.widgets.fit_table import FitTable
from ocr_tui.ui.widgets.key_footer import KeyFooter
from ocr_tui.ui.widgets.notes_pane import NotesPane
from ocr_tui.ui.widgets.severity_chart import (
    CHART_KEY,
    SeverityChart,
    chart_title,
    round_severity,
    session_most,
)

SEVERITIES = ("critical", "high", "medium", "low", "info")
SEVERITY_VAR = {"critical": "error", "high": "error", "medium": "warning", "low": "primary"}
REVIEWER_COLUMNS = [
    ("reviewer", "Reviewer"),
    ("findings", "Findings"),
    *((s, s.capitalize()) for s in SEVERITIES),
    ("file", "File"),
]
DOC_COLUMNS = [("name", "Document"), ("about", "")]
VERDICT_KINDS = ("approve", "request", "discuss", "progress", "unknown")


@router.route(RoundTarget)
class RoundScreen(RoundMarks, DrilldownScreen):
    """`RoundScreen(session_id, round_number, path=None)`; `path` (`rounds/round-01`) picks
    one of two directories with that number."""

    BINDINGS = [
        # In the order a narrow Footer keeps them (KeyFooter gives up the last first).
        Binding("F", "findings", "Findings", id="round.findings"),
        Binding("D", "discourse", "Discourse", id="round.discourse"),
        Binding("[", "step(-1)", "Prev round", id="round.prev"),
        Binding("]", "step(1)", "Next round", id="round.next"),
        Binding("f", "open('final.md')", "Open final.md", id="round.final", show=False),
        Binding("t", "mark_round", "Triage", id="round.triage", tooltip="The round's triage"),
        Binding("n", "note_round", "Note", id="round.note", tooltip="A note on the round"),
        Binding("u", "undo_mark", "Undo mark", id="round.undo", show=False),
    ]

    def __init__(self, session_id: str, round_number: int, path: str | None = None) -> None:
        super().__init__(session_id)
        self.round_number = round_number
        self.round_path = path  # set to the round's directory once it is found

    @classmethod
    def for_target(cls, target: RoundTarget) -> RoundScreen:
        return cls(target.session_id, target.number, target.path)

    @property
    def target(self) -> RoundTarget:
        return RoundTarget(self.session_id, self.round_number, self._path())

    def show_target(self, target: Target) -> bool:
        """Another round of this session is shown in place."""
        if not isinstance(target, RoundTarget) or target.session_id != self.session_id:
            return False
        self.show_round(target.number, target.path)
        return True

    def _path(self) -> str:
        if self.round_path is not None:
            return self.round_path
        rnd = self.round
        return rnd.path if rnd is not None else f"rounds/round-{self.round_number}"

    @property
    def round(self) -> Round | None:
        view = self.view
        if view is None:
            return None
        return view.round(self.round_number, self.round_path)

    def compose(self) -> ComposeResult:
        yield Breadcrumb(id="crumbs")
        yield removed_banner()
        yield Static(id="round-title", classes="dd-title")
        with Horizontal(id="round-head"):  # the banner, and beside it the chart
            yield Static(id="verdict", classes="dd-verdict")
            with Vertical(id="round-severity-pane", classes="dd-pane") as pane:
                pane.border_title = "By severity"
                pane.border_subtitle = CHART_KEY
                yield SeverityChart(id="round-severity")
        with Vertical(id="reviewers-pane", classes="dd-pane") as pane:
            pane.border_title = "Reviewers"
            reviewers = FitTable(
                REVIEWER_COLUMNS, flex=("reviewer", "file"), id="reviewers", hold=True
            )
            reviewers.cursor_foreground_priority = "renderable"  # severity colours stay
            yield reviewers
            yield Static("No reviewer files yet.", id="reviewers-empty", classes="dd-empty")
        with Vertical(id="round-docs-pane", classes="dd-pane") as pane:
            pane.border_title = "Round documents"
            yield FitTable(DOC_COLUMNS, flex=("about",), id="round-docs", show_header=False)
            yield Static("No discourse.md or final.md yet.", id="docs-empty", classes="dd-empty")
        yield NotesPane(id="round-notes", classes="dd-pane")
        yield KeyFooter()

    def after_mount(self) -> None:
        self._focus_first()

    def _focus_first(self) -> None:
        for table_id in ("#reviewers", "#round-docs"):
            table = self.query_one(table_id, DrillTable)
            if table.display and table.row_count:
                table.focus()
                return

    # -- rendering --------------------------------------------------------------------------

    def render_view(self, view: SessionView | None, *, first: bool) -> None:
        rnd = view.round(self.round_number, self.round_path) if view is not None else None
        if rnd is not None and self.round_path is None:
            self.round_path = rnd.path  # the screen stays on this directory
        crumbs: list[Crumb] = self.session_crumbs()
        label = round_label(view, rnd) if rnd is not None else f"Round {self.round_number}"
        crumbs.append((label, None))
        self.set_crumbs(crumbs)
        self.refresh_bindings()  # `[` / `]` follow the rounds there are
        if view is None:
            if first:
                self.query_one("#round-title", Static).update(
                    Content.styled(f"Round {self.round_number}", "bold")
                )
                self.query_one("#verdict").display = False
                self.query_one("#round-severity-pane").display = False
            return
        self.query_one("#round-title", Static).update(round_title(view, rnd, self.round_number))
        banner = self.query_one("#verdict", Static)
        banner.display = rnd is not None
        kind = verdict_kind(rnd)
        for k in VERDICT_KINDS:
            banner.set_class(k == kind, f"-{k}")
        stopped = rnd is not None and round_state(rnd.complete, view) == "stopped"
        banner.update(verdict_content(rnd, kind, stopped=stopped))
        pane = self.query_one("#round-severity-pane")
        pane.display = rnd is not None
        if rnd is not None:  # scaled to the session's rounds: `[` / `]` compare them
            pane.border_title = chart_title(round_label(view, rnd))
            self.query_one(SeverityChart).show(round_severity(rnd), session_most(view.rounds))
        self._render_reviewers(rnd)
        self._render_docs(rnd)
        notes = [n for n in view.notes if n.target in ("round", "finding")]
        self.query_one(NotesPane).show(
            [n for n in notes if n.round == self.round_number], self.now()
        )

    def _render_reviewers(self, rnd: Round | None) -> None:
        muted = theme_style(self, "foreground-muted")
        rows = []
        for rev in rnd.reviewers if rnd else []:
            cells: list = [Text(safe_line(rev.label), style="bold"), Text(str(rev.findings))]
            for sev in SEVERITIES:
                n = getattr(rev.severity, sev)
                var = SEVERITY_VAR.get(sev)
                style = theme_style(self, var) if n and var else (muted if not n else "")
                cells.append(Text(str(n), style=style))  # a zero is 0 (`·` is "to come")
            cells.append(Text(safe_line(rev.path.rsplit("/", 1)[-1]), style=muted))
            # The path, not the name: `p\xff-1.md` and `p\xfe-1.md` are both named `p\ufffd-1`.
            rows.append((rev.path, cells))
        table = self.query_one("#reviewers", DrillTable)
        table.sync_rows(rows)
        table.display = bool(rows)
        self.query_one("#reviewers-empty").display = not rows

    def _render_docs(self, rnd: Round | None) -> None:
        muted = theme_style(self, "foreground-muted")
        rows = []
        if rnd is not None and rnd.discourse:
            about = "reviewer discourse: their responses to each other (D)"
            rows.append(("discourse.md", [Text("discourse.md"), Text(about, muted)]))
        if rnd is not None and rnd.complete:
            about = "final synthesis" + (f" · {safe_line(rnd.verdict)}" if rnd.verdict else "")
            rows.append(("final.md", [Text("final.md"), Text(about, muted)]))
        table = self.query_one("#round-docs", DrillTable)
        table.sync_rows(rows)
        table.display = bool(rows)
        self.query_one("#docs-empty").display = not rows

    # -- actions ----------------------------------------------------------------------------

    def show_round(self, number: int, path: str | None = None) -> None:
        """Show another round of the same session in place (`path`: which of two
        directories with that number)."""
        if number == self.round_number and (path is None or path == self.round_path):
            return
        self.round_number, self.round_path = number, path
        self.render_view(self.view, first=False)
        if not (self.focused and self.focused.display):
            self._focus_first()

    def _adjacent(self, delta: int):
        view = self.view
        return adjacent_item(view.rounds if view else [], self._path(), self.round_number, delta)

    def round_at_cursor(self) -> tuple[str, int, str | None] | None:
        view = self.view
        rnd = view.round(self.round_number, self.round_path) if view is not None else None
        return (self.session_id, self.round_number, rnd.triage if rnd else None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`[` / `]` only where there is a round before / after (the Footer shows no key that
        does nothing)."""
        if self.round_writes_disabled(action):
            return False
        if action == "step" and parameters and isinstance(parameters[0], int):
            return self._adjacent(parameters[0]) is not None
        return super().check_action(action, parameters)

    def explain_disabled(self, action: str, parameters: tuple[object, ...]) -> str | None:
        if why := self.round_writes_disabled(action):
            return why
        if action == "step" and parameters and isinstance(parameters[0], int):
            return f"No {'earlier' if parameters[0] < 0 else 'later'} round."
        return super().explain_disabled(action, parameters)

    def action_step(self, delta: int) -> None:
        view = self.view
        rounds = view.rounds if view else []
        target = adjacent_item(rounds, self._path(), self.round_number, delta)
        if target is None:
            self.app.bell()
            self.notify(f"No {'earlier' if delta < 0 else 'later'} round.", timeout=2, markup=False)
            return
        self.show_round(target.number, target.path)

    def action_open(self, name: str) -> None:
        rnd = self.round
        exists = rnd is not None and (rnd.complete if name == "final.md" else rnd.discourse)
        if not exists:
            self.notify(f"This round has no {name} yet.", timeout=2, markup=False)
            return
        self._open_document(f"{rnd.path}/{name}")

    def action_findings(self) -> None:
        self.post_message(Open(FindingsTarget(self.session_id, self.round_number, self._path())))

    def action_discourse(self) -> None:
        """The round's discourse as the reviewers' responses to each other."""
        rnd = self.round
        if rnd is None or not rnd.discourse:
            self.notify("This round has no discourse.md yet.", timeout=2, markup=False)
            return
        self.post_message(Open(DiscourseTarget(self.session_id, rnd.number, rnd.path)))

    @on(DataTable.RowSelected, "#reviewers")
    def _open_reviewer(self, event: DataTable.RowSelected) -> None:
        rnd = self.round
        path = selected_key(event)
        for rev in rnd.reviewers if rnd else []:
            if rev.path == path:
                self.post_message(Open(ReviewerTarget(self.session_id, rev.path)))
                return

    @on(DataTable.RowSelected, "#round-docs")
    def _open_doc(self, event: DataTable.RowSelected) -> None:
        rnd = self.round
        name = selected_key(event)
        if rnd is not None and name == "discourse.md":
            self.action_discourse()  # its responses; `o` there opens the file as written
        elif rnd is not None and name:
            self._open_document(f"{rnd.path}/{name}")

    def _open_document(self, rel: str) -> None:
        self.post_message(Open(DocumentTarget(self.session_id, rel)))


def verdict_content(rnd: Round | None, kind: str, *, stopped: bool = False) -> Content:
    """The banner: the verdict in words (`stopped`: a round without final.md in a closed
    session) and the synthesis' counts."""
    if rnd is None:
        return Content("")
    if kind == "progress" and stopped:
        head = [(" STOPPED ", "bold"), ("  the session closed before final.md was written", "")]
    elif kind == "progress":
        head = [(" IN PROGRESS ", "bold"), ("  no final.md yet", "")]
    elif kind == "unknown":
        verdict = safe_line(rnd.verdict) if rnd.verdict else "no verdict found in final.md"
        head = [(f" {verdict} ", "bold")]
    else:
        head = [(f" {safe_line(rnd.verdict or '')} ", "bold")]
    parts: list = list(head)
    if rnd.counts is not None:
        c = rnd.counts
        blockers = rnd.blockers or 0  # never fewer than the synthesis names
        parts += [
            "   ",
            (str(blockers), "bold"),
            " blocker" + ("" if blockers == 1 else "s") + " · ",
            (str(c.should_fix), "bold"),
            " should fix · ",
            (str(c.suggestions), "bold"),
            " suggestion" + ("" if c.suggestions == 1 else "s"),
        ]
    if rnd.triage:  # the user's triage of the round (OCR's dashboard)
        parts += ["   triage: ", (triage_text(rnd.triage), "bold")]
    return Content.assemble(*parts)
