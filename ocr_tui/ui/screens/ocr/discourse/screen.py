"""DiscourseScreen: how a round's reviewers answered each other.

`discourse.md`'s AGREE / CHALLENGE / CONNECT / SURFACE responses (`formats/ocr/discourse.py`),
grouped by the reviewer who wrote them, with counts per kind and the findings each names; the
response at the cursor in full below the table. When nothing in the file parses as a response,
the file is shown as markdown instead. Read in a thread worker, again whenever the session's
files change.

Keys: `c` cycles the kind shown (all → agree → challenge → connect → surface), Enter opens the
finding a response names, `o` opens discourse.md as written, Esc goes back.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import DataTable, Markdown, Static

from ocr_tui.core.cells import clip_end
from ocr_tui.core.reads import Reader
from ocr_tui.core.textsafe import safe_line
from ocr_tui.core.view import SessionView
from ocr_tui.formats.ocr.api import KINDS, DiscourseRead, Finding, Response
from ocr_tui.ui import router
from ocr_tui.ui.navigation import (
    DiscourseTarget,
    DocumentTarget,
    FindingTarget,
    Open,
)
from ocr_tui.ui.screens.base.drilldown import Crumb
from ocr_tui.ui.screens.ocr.findings.view import says
from ocr_tui.ui.screens.ocr.round_reader import RoundReaderScreen
from ocr_tui.ui.style import removed_banner, theme_style
from ocr_tui.ui.widgets.breadcrumb import Breadcrumb
from ocr_tui.ui.widgets.drill_table import DrillTable
from ocr_tui.ui.widgets.key_footer import KeyFooter

COLUMNS = [
    ("author", "Reviewer"),
    ("kind", "Response"),
    ("about", "To"),
    ("findings", "Finding"),
    ("says", "Says"),
]
KIND_VAR = {"agree": "success", "challenge": "warning", "connect": "accent", "surface": "secondary"}
FINDING_MIN = 20  # the Finding column is not squeezed below this (unless its titles are shorter)
SAYS_MIN, SAYS_SHARE = 24, 3  # Says keeps at least this, or a third of the room if more
CHROME = 2 + 2  # the pane's border and padding (and room for the table's scrollbar, below)
MAX_SHOWN = 16 * 1024  # characters of the response shown below the table


def finding_cell(r: Response, by_id: dict[str, Finding], width: int | None = None) -> str:
    """The titles of the findings it names (else the titles as written): the first, and
    `+N more`; with `width`, the title cut to fit."""
    named = [by_id[i].title for i in r.finding_ids if i in by_id]
    titles = named or r.titles
    if not titles:
        return ""
    more = f" +{len(titles) - 1} more" if len(titles) > 1 else ""  # `+2` alone: new findings
    title = safe_line(titles[0])
    return (title if width is None else clip_end(title, width - len(more))) + more


def text_widths(finding_need: int, says_need: int, room: int) -> tuple[int, int]:
    """(Finding, Says) widths in `room` cells for columns that need `finding_need` and
    `says_need`: both whole when they fit (Says gets what is left); else the finding titles
    whole if Says keeps SAYS_MIN (or a third of the room), the rest to Says (the response at
    the cursor is shown whole below the table)."""
    if finding_need + says_need <= room:
        return finding_need, room - finding_need
    says_min = min(says_need, max(SAYS_MIN, room // SAYS_SHARE))
    finding = max(min(finding_need, room - says_min), min(finding_need, FINDING_MIN))
    return finding, max(room - finding, 1)


@router.route(DiscourseTarget)
class DiscourseScreen(RoundReaderScreen):
    """`DiscourseScreen(session_id, number, path)`: round `number`'s discourse."""

    # fmt: off
    BINDINGS = [
        Binding(
            "c", "cycle_kind", "Kind", id="discourse.kind",
            tooltip="All → agree → challenge → connect → surface",
        ),
        Binding("o", "open_file", "discourse.md", id="discourse.file",
                tooltip="discourse.md as written"),
    ]
    # fmt: on

    READS = "discourse.md"

    def __init__(self, session_id: str, number: int, path: str) -> None:
        super().__init__(session_id, number, path)
        self.read: DiscourseRead | None = None
        self.kind: str | None = None  # a KINDS value, or None: every kind
        self._raw: str | None = None

    @classmethod
    def for_target(cls, target: DiscourseTarget) -> DiscourseScreen:
        return cls(target.session_id, target.number, target.path)

    @property
    def target(self) -> DiscourseTarget:
        return DiscourseTarget(self.session_id, self.round_number, self.round_path)

    def compose(self) -> ComposeResult:
        yield Breadcrumb(id="crumbs")
        yield removed_banner()
        yield Static(id="discourse-title", classes="dd-title")
        yield Static(id="discourse-count", classes="dd-meta")
        with Vertical(id="discourse-pane", classes="dd-pane") as pane:
            pane.border_title = "Responses"
            yield DrillTable(COLUMNS, id="responses")
            yield Static("Reading discourse.md…", id="discourse-empty", classes="dd-empty")
        yield Static(id="response", classes="dd-note")
        with VerticalScroll(id="discourse-raw"):
            yield Markdown(id="discourse-md", open_links=False)
        yield KeyFooter()

    def after_mount(self) -> None:
        self.query_one("#discourse-raw").display = False
        self.query_one("#responses", DrillTable).focus()
        super().after_mount()

    def read_blocking(self, reader: Reader, view: SessionView) -> DiscourseRead:
        return reader.read("discourse", view, round_path=self.round_path,
                           number=self.round_number)  # fmt: skip

    async def apply_read(self, read: DiscourseRead) -> None:
        self.read = read
        self.refresh_rows()
        await self._render_raw()

    def render_heading(self, view: SessionView | None) -> None:
        self.query_one("#discourse-title", Static).update(
            Content.assemble((f"Discourse of {safe_line(self.label(view))}", "bold"))
        )

    def show_problem(self, text: str) -> None:
        self._show_empty(text)

    # -- rendering --------------------------------------------------------------------------

    def crumbs(self, view: SessionView | None) -> list[Crumb]:
        return self.round_crumbs(view, ("Discourse", None))

    @property
    def responses(self) -> list[Response]:
        """The responses shown: every one of the kind chosen, grouped by reviewer."""
        d = self.read.discourse if self.read is not None else None
        if d is None:
            return []
        return [
            r
            for group in d.by_author().values()
            for r in group
            if self.kind is None or r.kind == self.kind
        ]

    def count_content(self) -> Content:
        """`9 responses from 3 reviewers · 5 agree · 2 challenge · …`."""
        d = self.read.discourse if self.read is not None else None
        if d is None or not d.parsed:
            return Content("")
        authors = {r.author for r in d.responses if r.author}
        n = len(d.responses)
        parts: list = [f"{n} response{'' if n == 1 else 's'}"]
        if authors:
            parts.append(f" from {len(authors)} reviewer{'' if len(authors) == 1 else 's'}")
        for kind, k in d.counts().items():
            if k:
                parts += [" · ", (f"{k} {kind}", f"${KIND_VAR[kind]}")]
        parts.append((f" · showing {self.kind or 'every kind'}", "$foreground-muted"))
        return Content.assemble(*parts)

    def refresh_rows(self) -> None:
        read = self.read
        self.query_one("#discourse-count", Static).update(self.count_content())
        by_id = {f.id: f for f in (read.findings if read else [])}
        shown = self.responses
        rows = []
        previous: str | None = "\0"
        for r in shown:
            author = "" if r.author == previous else safe_line(r.author or "—")
            previous = r.author
            var = KIND_VAR.get(r.kind, "foreground")
            cells = [
                Text(author, style="bold"),
                Text(r.kind.upper(), style=theme_style(self, var, bold=True)),
                Text(safe_line(r.about or "")),
            ]
            rows.append((str(r.line), cells, finding_cell(r, by_id), says(r)))
        # Reviewer, Response and To as wide as their cells; Finding and Says share the rest
        # (`text_widths`). Each column has 2 cells of padding.
        labels = [label for _, label in COLUMNS]
        fixed = sum(
            max([cell_len(labels[i]), *(c[i].cell_len for _, c, _, _ in rows)]) + 2
            for i in range(3)
        )
        finding_need = max([cell_len(labels[3]), *(cell_len(f) for _, _, f, _ in rows)])
        says_need = max([cell_len(labels[4]), *(cell_len(t) for _, _, _, t in rows)])
        table = self.query_one("#responses", DrillTable)
        # the scrollbar's room only when the rows overflow the table (its header aside)
        visible = table.size.height - 1 if table.size.height > 1 else self.size.height // 2
        scrollbar = table.styles.scrollbar_size_vertical if len(rows) > visible else 0
        room = self.size.width - fixed - 2 * 2 - CHROME - scrollbar
        fw, sw = text_widths(finding_need, says_need, room)
        rows = [
            (key, [*c, Text(finding_cell(r, by_id, fw)), Text(clip_end(t, sw), style="italic")])
            for (key, c, _, t), r in zip(rows, shown, strict=True)
        ]
        table.sync_rows(rows)
        table.display = bool(rows)
        if read is None:
            self._show_empty("Reading discourse.md…")
        elif read.discourse is None:
            self._show_empty("This round has no discourse.md (yet).")
        elif not read.discourse.parsed:
            self._show_empty("No AGREE / CHALLENGE / CONNECT / SURFACE responses: the file below.")
        else:
            self._show_empty(f"No {self.kind} responses (c: kind).")
        self._show_response()

    async def _render_raw(self) -> None:
        read = self.read
        raw = read.text if read is not None and read.discourse is not None else None
        show = raw is not None and not read.discourse.parsed
        self.query_one("#discourse-raw").display = show
        self.query_one("#discourse-pane").display = not show or bool(self.responses)
        if show and raw != self._raw:
            self._raw = raw
            await self.query_one("#discourse-md", Markdown).update(raw)

    def _show_empty(self, text: str) -> None:
        empty = self.query_one("#discourse-empty", Static)
        empty.update(Content(text))
        empty.display = not self.query_one("#responses", DrillTable).row_count

    def cursor_response(self) -> Response | None:
        table = self.query_one("#responses", DrillTable)
        key = table.key_of(table.cursor_key) if table.row_count else None
        return next((r for r in self.responses if str(r.line) == key), None)

    def _show_response(self) -> None:
        r = self.cursor_response()
        note = self.query_one("#response", Static)
        note.display = r is not None
        if r is not None:
            head = Content.assemble((f"Line {r.line}", "$foreground-muted"))
            body = "\n".join(safe_line(line) for line in r.text[:MAX_SHOWN].split("\n"))
            note.update(Content("\n").join([head, Content(body)]))

    def on_resize(self) -> None:
        if self.read is not None:
            self.refresh_rows()

    @on(DataTable.RowHighlighted, "#responses")
    def _highlighted(self, _event: DataTable.RowHighlighted) -> None:
        self._show_response()

    # -- actions ----------------------------------------------------------------------------

    def action_cycle_kind(self) -> None:
        kinds = [None, *KINDS]
        self.kind = kinds[(kinds.index(self.kind) + 1) % len(kinds)]
        self.refresh_rows()

    def action_open_file(self) -> None:
        if self.read is None or self.read.discourse is None:
            self.notify("This round has no discourse.md.", timeout=3, markup=False)
            return
        self.post_message(Open(DocumentTarget(self.session_id, f"{self.round_path}/discourse.md")))

    @on(DataTable.RowSelected, "#responses")
    def _open_finding(self, _event: DataTable.RowSelected) -> None:
        r = self.cursor_response()
        if r is None or not r.finding_ids:
            self.notify("This response names no finding of the round.", timeout=3, markup=False)
            return
        target = FindingTarget(
            self.session_id, self.round_number, self.round_path, r.finding_ids[0]
        )
        self.post_message(Open(target))
