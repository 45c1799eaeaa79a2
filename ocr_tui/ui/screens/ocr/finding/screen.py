"""FindingScreen: one finding of a round, in full (the detail).

Shows the finding's severity, blocker, evolution and triage, its location in the user's code,
the reviewers who raised it, where it was read, the discourse responses that name it, and its
own markdown section rendered. The round is read in a thread worker (`findings_view`), and
read again whenever `touched_signal` says the session's files changed; a finding that leaves
the round keeps its last text under a note.

Keys: `e` opens the finding's file at its line in the editor, `y` copies `file:line`, `o`
opens the file it was read from (the reviewer's own file for a finding of round-meta.json),
`[`/`]` step to the previous/next finding of the round, j/k scroll, Esc goes back.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Markdown, Static

from ocr_tui.core.cells import clip_end
from ocr_tui.core.reads import Reader
from ocr_tui.core.textsafe import safe_block, safe_line
from ocr_tui.core.view import SessionView
from ocr_tui.formats.ocr.api import (
    DiscourseRead,
    Finding,
    Response,
    differing_ratings,
    responses_about,
    sort_key,
)
from ocr_tui.ui import router
from ocr_tui.ui.navigation import (
    DiscourseTarget,
    DocumentTarget,
    FindingsTarget,
    FindingTarget,
    Open,
    Target,
)
from ocr_tui.ui.screens.base.drilldown import Crumb
from ocr_tui.ui.screens.ocr.editor_launch import open_in_editor
from ocr_tui.ui.screens.ocr.findings.view import display_markdown, says
from ocr_tui.ui.screens.ocr.round_reader import RoundReaderScreen, way_in
from ocr_tui.ui.screens.ocr.triage.finding_marks import FindingMarks
from ocr_tui.ui.style import removed_banner
from ocr_tui.ui.widgets.breadcrumb import Breadcrumb
from ocr_tui.ui.widgets.key_footer import KeyFooter

MAX_TEXT = 64 * 1024  # characters of a finding's own section rendered
SEVERITY_VAR = {
    "critical": "$text-error",
    "high": "$text-error",
    "medium": "$text-warning",
    "low": "$text-primary",
}


@dataclass(frozen=True)
class Detail:
    """One read of the round: the finding (None: not in the round now) and its neighbours."""

    finding: Finding | None
    order: list[str]  # the round's finding ids, in the findings screen's default order
    responses: list[Response]  # discourse.md's responses that name it
    problems: list[str]
    markdown: str = ""  # the finding's own section as rendered (`finding_markdown`)


def finding_markdown(f: Finding) -> str:
    """The detail's markdown of `f`: escape-safe, capped, its field lines kept apart."""
    text = display_markdown(safe_block(f.text[:MAX_TEXT]))
    return text or "*No text was given for this finding.*"


def read_detail(read: DiscourseRead, finding_id: str) -> Detail:
    """The finding `finding_id` of a round's read (its discourse and findings), and what
    discourse says of it (in the worker: its markdown is rendered here)."""
    findings = sorted(read.findings, key=sort_key)
    finding = next((f for f in findings if f.id == finding_id), None)
    about = responses_about(read.discourse, finding_id) if read.discourse is not None else []
    markdown = finding_markdown(finding) if finding is not None else ""  # in the worker
    return Detail(finding, [f.id for f in findings], about, read.problems, markdown)


def source_file(view: SessionView | None, round_path: str, f: Finding) -> str | None:
    """The file `o` opens, relative to the session: where the finding was read, except that a
    finding of round-meta.json opens its first reviewer's own file when the round has one."""
    if f.source == "round-meta.json" and view is not None:
        rnd = next((r for r in view.rounds if r.path == round_path), None)
        for name in f.reviewers:
            rev = next((r for r in (rnd.reviewers if rnd else []) if r.name == name), None)
            if rev is not None:
                return rev.path
    path = f.path
    if not path or path.startswith("/") or ".." in path.split("/"):
        return None
    return path


@router.route(FindingTarget)
class FindingScreen(FindingMarks, RoundReaderScreen):
    """`FindingScreen(session_id, number, path, finding_id)`."""

    BINDINGS = [
        Binding("e", "edit", "Editor", id="finding.edit"),
        Binding("y", "copy_location", "Copy file:line", id="finding.copy", show=False),
        Binding("o", "open_source", "Source file", id="finding.source"),
        Binding("m", "mark", "Mark", id="finding.mark", tooltip="Its triage in ocr.db"),
        Binding("M", "clear_mark", "Clear mark", id="finding.clear_mark", show=False),
        Binding("n", "note", "Note", id="finding.note", tooltip="A note on the finding"),
        Binding("u", "undo_mark", "Undo mark", id="finding.undo", show=False),
        Binding("[", "step(-1)", "Prev finding", id="finding.prev"),
        Binding("]", "step(1)", "Next finding", id="finding.next"),
        Binding("j", "scroll(1)", "Down", id="finding.down", show=False),
        Binding("k", "scroll(-1)", "Up", id="finding.up", show=False),
    ]

    READS = "the finding"

    def __init__(self, session_id: str, number: int, path: str, finding_id: str) -> None:
        super().__init__(session_id, number, path)
        self.finding_id = finding_id
        self.finding: Finding | None = None  # the last read (kept when it leaves the round)
        self.gone = False
        self.order: list[str] = []
        self.responses: list[Response] = []
        self.table_order: list[str] = []  # the findings table's order it was opened from
        self._text: str | None = None  # the markdown shown
        self._markdown = ""  # the last read's (made in the worker)
        self._way_in: list[Crumb] | None | bool = False  # False: not looked at yet

    @classmethod
    def for_target(cls, target: FindingTarget) -> FindingScreen:
        screen = cls(target.session_id, target.number, target.path, target.finding_id)
        screen.table_order = list(target.order)
        return screen

    @property
    def target(self) -> FindingTarget:
        return FindingTarget(self.session_id, self.round_number, self.round_path, self.finding_id)

    def compose(self) -> ComposeResult:
        yield Breadcrumb(id="crumbs")
        yield removed_banner()
        yield Static("Reading the finding…", id="finding-title", classes="dd-title")
        yield Static(id="finding-meta", classes="dd-meta")
        yield Static(id="finding-note", classes="dd-note")
        yield Static(id="finding-discourse")
        with VerticalScroll(id="finding-scroll"):
            yield Markdown(id="finding-text", open_links=False)
        yield KeyFooter()

    def after_mount(self) -> None:
        self.query_one("#finding-scroll").focus()
        self.query_one("#finding-note").display = False
        super().after_mount()

    def read_blocking(self, reader: Reader, view: SessionView) -> Detail:
        read = reader.read("discourse", view, round_path=self.round_path,
                           number=self.round_number)  # fmt: skip
        return read_detail(read, self.finding_id)

    async def apply_read(self, detail: Detail) -> None:
        if detail.order:
            self.order = detail.order
        self.gone = detail.finding is None
        if detail.finding is not None:
            self.finding = detail.finding
            self.responses = detail.responses
            self._markdown = detail.markdown
        self.set_crumbs(self.crumbs(self.view))
        self.refresh_bindings()  # `[` / `]` follow the findings there are
        self._render_finding()
        if self.gone:
            what = "its last known text" if self.finding else "nothing to show"
            self._note(f"This finding is not in round {self.round_number} now: {what}.")
        else:
            self.query_one("#finding-note").display = False
        await self._render_text()

    def show_problem(self, text: str) -> None:
        self._note(text)

    # -- rendering --------------------------------------------------------------------------

    def crumbs(self, view: SessionView | None) -> list[Crumb]:
        """`… › Round 2 › Findings › title`, or `… › Round 2 › Discourse › title` when it was
        opened from the round's discourse: the way the user came (Back goes there)."""
        # the whole title: the breadcrumb cuts it to its width (`fit_parts`), the other parts first
        title = safe_line(self.finding.title) if self.finding else self.finding_id
        if self._way_in is False:
            self._way_in = way_in(self, self._from_discourse)
        if self._way_in:
            return [*self._way_in, (title, None)]
        findings = FindingsTarget(self.session_id, self.round_number, self.round_path)
        return self.round_crumbs(view, ("Findings", findings), (title, None))

    def _from_discourse(self, target: Target) -> bool:
        return isinstance(target, DiscourseTarget) and target.path == self.round_path

    def _render_finding(self) -> None:
        f = self.finding
        if f is None:
            self.query_one("#finding-title", Static).update(Content("Finding not found"))
            self.query_one("#finding-meta", Static).update("")
            return
        self.query_one("#finding-title", Static).update(
            Content.assemble((safe_line(f.title), "bold"))
        )
        self.query_one("#finding-meta", Static).update(meta_content(f))
        discourse = self.query_one("#finding-discourse", Static)
        discourse.display = bool(self.responses)
        discourse.update(responses_content(self.responses))

    async def _render_text(self) -> None:
        text = self._markdown if self.finding is not None else ""
        if text != self._text:
            self._text = text
            await self.query_one("#finding-text", Markdown).update(text)

    def _note(self, text: str) -> None:
        note = self.query_one("#finding-note", Static)
        note.update(Content(text))
        note.display = True

    # -- actions ----------------------------------------------------------------------------

    def action_scroll(self, lines: int) -> None:
        self.query_one("#finding-scroll", VerticalScroll).scroll_relative(y=lines, animate=False)

    def action_edit(self) -> None:
        f = self.finding
        if f is None:
            self.app.bell()
            return
        open_in_editor(self, f.location.file, f.location.line_start, self.session_id)

    def action_copy_location(self) -> None:
        f = self.finding
        if f is None or not f.location.file:
            self.notify("No file to copy for this finding.", timeout=3, markup=False)
            return
        text = safe_line(f.location.text())
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied {text}", timeout=2, markup=False)

    def action_open_source(self) -> None:
        f = self.finding
        rel = source_file(self.view, self.round_path, f) if f is not None else None
        if rel is None:
            what = "from ocr.db" if f is not None and f.source == "ocr.db" else "without a file"
            self.notify(f"This finding was read {what}.", timeout=3, markup=False)
            return
        self.post_message(Open(DocumentTarget(self.session_id, rel)))

    def _step_order(self) -> list[str]:
        """The findings `[`/`]` step through: the findings table's order (its sort and filter)
        when opened from it, else the round's default order."""
        order = [i for i in self.table_order if i in self.order] or self.order
        return order if self.finding_id in order else self.order

    def chosen_findings(self) -> list[Finding]:
        return [self.finding] if self.finding is not None and not self.gone else []

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`[` / `]` only where there is a finding before / after (not known yet: shown)."""
        if self.writes_disabled(action):
            return False
        if action == "step" and parameters and isinstance(parameters[0], int):
            order = self._step_order()
            if self.finding_id in order:
                return 0 <= order.index(self.finding_id) + parameters[0] < len(order)
        return super().check_action(action, parameters)

    def explain_disabled(self, action: str, parameters: tuple[object, ...]) -> str | None:
        if why := self.writes_disabled(action):
            return why
        if action == "step" and parameters and isinstance(parameters[0], int):
            return f"No {'earlier' if parameters[0] < 0 else 'later'} finding."
        return super().explain_disabled(action, parameters)

    def action_step(self, delta: int) -> None:
        """The finding before or after this one (`_step_order`)."""
        order = self._step_order()
        if self.finding_id not in order:
            self.app.bell()
            return
        i = order.index(self.finding_id) + delta
        if not 0 <= i < len(order):
            self.app.bell()
            self.notify(f"No {'earlier' if delta < 0 else 'later'} finding.", timeout=2)
            return
        self.finding_id = order[i]
        self.finding = None
        self._text = None
        self.load()

    def action_back(self) -> None:
        """Back, with the findings table's cursor on the finding shown last."""
        stack = self.app.screen_stack
        below = stack[-2] if len(stack) > 1 else None
        move = getattr(below, "move_to_finding", None)
        if callable(move):
            move(self.finding_id)
        super().action_back()


def meta_content(f: Finding) -> Content:
    """The detail's facts, one per line: what, where, who, from where."""
    muted = "$foreground-muted"
    sev = f.severity or "no severity"
    facts: list[tuple[str, str] | str] = [(sev, f"bold {SEVERITY_VAR.get(f.severity or '', '')}")]
    if rated := differing_ratings(f):  # merged: the reviewers' own words may say another
        said = ", ".join(f"{what} by {safe_line(who)}" for who, what in rated.items())
        facts += [(f" (rated {said})", muted)]
    if f.blocker:
        facts += [" · ", ("blocker", "bold $error")]
    if f.category and f.category != "blocker":
        facts += [" · ", f.category.replace("_", " ")]
    if f.evolution == "pending":  # of the round before; this round has no synthesis yet
        facts += [" · ", ("pending: not re-reviewed yet", muted)]
    elif f.evolution:
        facts += [" · ", (f.evolution, "bold" if f.evolution == "new" else "")]
    if f.triage:
        facts += [" · ", ("triage: ", muted), safe_line(f.triage)]
    lines = [Content.assemble(*facts)]
    where = safe_line(f.location.text()) or "no file given"
    lines.append(Content.assemble(("Where      ", muted), where))
    who = safe_line(", ".join(f.reviewers)) or "no reviewer named"
    lines.append(Content.assemble(("Raised by  ", muted), who))
    read = f.source if f.path is None else f"{safe_line(f.path)}{f':{f.line}' if f.line else ''}"
    # the source's kind beside the path, unless the path says it (`…/round-meta.json`)
    said = f.path is None or safe_line(f.path).rsplit("/", 1)[-1] == f.source
    kind = "" if said else f"  ({f.source})"
    lines.append(Content.assemble(("Read from  ", muted), read, (kind, muted)))
    return Content("\n").join(lines)


KIND_STYLE = {
    "agree": "bold $success",
    "challenge": "bold $warning",
    "connect": "bold $accent",
    "surface": "bold $secondary",
}


def responses_content(responses: list[Response]) -> Content:
    """`Discourse`, then one line a response: `AGREE  quality-1 → principal-1  text…`."""
    lines = [Content.assemble(("Discourse", "bold"), (f"  {len(responses)} about it", "dim"))]
    for r in responses:
        who = safe_line(r.author or "—") + (f" → {safe_line(r.about)}" if r.about else "")
        lines.append(
            Content.assemble(
                (f"{r.kind.upper():<9} ", KIND_STYLE.get(r.kind, "bold")),
                (who, "$foreground-muted"),
                "  ",
                clip_end(says(r), 200),
            )
        )
    return Content("\n").join(lines)
