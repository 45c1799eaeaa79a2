"""MapRunScreen: one map run's review sections and their files (OCR's web
dashboard's map run page).

"X / Y files reviewed" overall; the sections (title, file count, a reviewed/total bar); the
highlighted section's files (reviewed ✓, path, role, +/− lines); the dependencies between
sections (from → to, relationship) when the map names any. The map is read in a thread worker
(`api.read_run`: the run's map-meta.json or map.md, and ocr.db's sections and the
user's reviewed marks), never on the UI thread, and read again whenever the app's
`touched_signal` says the session's files or its ocr.db rows changed.

Keys: Enter on a section moves to its files, Enter (or `e`) on a file opens it in the editor
(as the findings screen's `e` does), Tab moves between the tables, `[`/`]` show the run before
or after in place, Esc goes back.
"""

from __future__ import annotations

from functools import partial

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import DataTable, Static

from ocr_tui.core.reads import Reader
from ocr_tui.core.textsafe import safe_line
from ocr_tui.core.view import MapRun, SessionView
from ocr_tui.formats.ocr.api import MapFile, MapSection
from ocr_tui.ui import fmt, router
from ocr_tui.ui.navigation import MapRunTarget, Target, adjacent_item
from ocr_tui.ui.screens.base.drilldown import Crumb
from ocr_tui.ui.screens.ocr.editor_launch import open_in_editor
from ocr_tui.ui.screens.ocr.map_run.view import (
    FILE_COLUMNS,
    SECTION_COLUMNS,
    RunRead,
    dependency_lines,
    file_at,
    file_rows,
    overall_text,
    section_at,
    section_heading,
    section_rows,
)
from ocr_tui.ui.screens.ocr.round_reader import RoundReaderScreen
from ocr_tui.ui.screens.ocr.triage.file_marks import FileMarks
from ocr_tui.ui.style import removed_banner, theme_style
from ocr_tui.ui.widgets.breadcrumb import Breadcrumb
from ocr_tui.ui.widgets.fit_table import FitTable
from ocr_tui.ui.widgets.key_footer import KeyFooter

RECORDS_CSS = RoundReaderScreen.CSS_PATH.with_name("records.tcss")


@router.route(MapRunTarget)
class MapRunScreen(FileMarks, RoundReaderScreen):
    """`MapRunScreen(session_id, number, path)`: map run `number` in directory `path`
    (`map/runs/run-1`)."""

    CSS_PATH = [RoundReaderScreen.CSS_PATH, RECORDS_CSS]
    HELP_TITLE = "Map run"
    READS = "the map run"

    # fmt: off
    BINDINGS = [
        Binding("e", "edit", "Editor", id="map.edit", tooltip="The file at the cursor"),
        Binding(
            "m", "mark_file", "Reviewed", id="map.mark",
            tooltip="Mark the file at the cursor reviewed, or not (ocr.db, as OCR's dashboard)",
        ),
        Binding("n", "note_file", "Note", id="map.note", tooltip="A note on the file"),
        Binding("u", "undo_mark", "Undo mark", id="map.undo", show=False),
        Binding(
            "[", "step(-1)", "Prev run", id="map.prev", show=False,
            tooltip="The map run before, in place",
        ),
        Binding(
            "]", "step(1)", "Next run", id="map.next", show=False,
            tooltip="The map run after, in place",
        ),
    ]
    # fmt: on

    def __init__(self, session_id: str, number: int, path: str) -> None:
        super().__init__(session_id, number, path)
        self.read: RunRead | None = None  # None: not read yet
        self.section_key: str | None = None  # the highlighted section's row

    @classmethod
    def for_target(cls, target: MapRunTarget) -> MapRunScreen:
        return cls(target.session_id, target.number, target.path)

    @property
    def target(self) -> MapRunTarget:
        return MapRunTarget(self.session_id, self.round_number, self.round_path)

    def show_target(self, target: Target) -> bool:
        """Another run of this session is shown in place."""
        if not isinstance(target, MapRunTarget) or target.session_id != self.session_id:
            return False
        self._show_run(target.number, target.path)
        return True

    def compose(self) -> ComposeResult:
        yield Breadcrumb(id="crumbs")
        yield removed_banner()
        yield Static(id="map-title", classes="dd-title")
        yield Static("Reading the map…", id="map-count", classes="dd-meta")
        with VerticalScroll(id="map-body"):
            with Vertical(id="map-sections-pane", classes="dd-pane") as pane:
                pane.border_title = "Sections"
                yield FitTable(SECTION_COLUMNS, flex=("title",), id="map-sections", hold=True)
                yield Static("", id="map-sections-empty", classes="dd-empty")
            with Vertical(id="map-files-pane", classes="dd-pane") as pane:
                pane.border_title = "Files"
                yield Static(id="map-section-about")
                yield FitTable(FILE_COLUMNS, flex=("path", "role"), id="map-files", hold=True)
                yield Static("No files in this section.", id="map-files-empty", classes="dd-empty")
            with Vertical(id="map-deps-pane", classes="dd-pane") as pane:
                pane.border_title = "Dependencies"
                yield Static(id="map-dependencies")
        yield KeyFooter()

    def after_mount(self) -> None:
        super().after_mount()
        self.query_one("#map-sections", FitTable).focus()
        self._show_map()

    # -- the run ----------------------------------------------------------------------------

    def run(self, view: SessionView | None) -> MapRun | None:
        if view is None:
            return None
        runs = view.map_runs
        return next((r for r in runs if r.path == self.round_path), None) or next(
            (r for r in runs if r.number == self.round_number), None
        )

    def label(self, view: SessionView | None) -> str:
        """`Map run 1`, with its directory when two have one number."""
        run = self.run(view)
        twin = fmt.twin_name(view.map_runs, run) if view is not None and run else None
        return f"Map run {self.round_number}" + (f" ({twin})" if twin else "")

    def crumbs(self, view: SessionView | None) -> list[Crumb]:
        return [*self.session_crumbs(), (self.label(view), None)]

    def render_heading(self, view: SessionView | None) -> None:
        run = self.run(view)
        parts: list[str | tuple[str, str]] = [(safe_line(self.label(view)), "bold")]
        if run is not None:
            state = fmt.ROUND_STATES[fmt.round_state(run.complete, view)]
            parts += [(" · ", "$text-muted"), (state, "$text-muted")]
        self.query_one("#map-title", Static).update(Content.assemble(*parts))

    # -- reading ----------------------------------------------------------------------------

    def read_blocking(self, reader: Reader, view: SessionView) -> RunRead:
        return reader.read("run", view, run_path=self.round_path, number=self.round_number)

    async def apply_read(self, result: RunRead) -> None:
        self.read = result
        self._show_map()

    def show_problem(self, text: str) -> None:
        self.query_one("#map-count", Static).update(Content.styled(text, "$text-error"))

    # -- drawing ----------------------------------------------------------------------------

    def _style(self, variable: str, **kw: bool):
        return theme_style(self, variable, **kw)

    @property
    def section(self) -> MapSection | None:
        return section_at(self.read.map if self.read else None, self.section_key)

    @property
    def _marks_known(self) -> bool:
        """ocr.db has this run's reviewed marks (else they are not known, not none)."""
        return self.read is not None and self.read.db_has_run

    def _show_map(self) -> None:
        read = self.read
        if read is None:  # not read yet (or reading another run): nothing of an old one
            self.query_one("#map-sections", FitTable).sync_rows([])
            for pane in ("#map-sections-pane", "#map-files-pane", "#map-deps-pane"):
                self.query_one(pane).display = False
            return
        self.query_one("#map-sections-pane").display = True
        m = read.map
        count = overall_text(read)
        if read.problems:
            count += f" · {safe_line(read.problems[0])}"
        self.query_one("#map-count", Static).update(Content(count))
        style = partial(theme_style, self)
        rows = section_rows(m, style, self._marks_known)
        sections = self.query_one("#map-sections", FitTable)
        sections.sync_rows(rows)
        sections.display = bool(rows)
        empty = self.query_one("#map-sections-empty", Static)
        empty.display = not rows
        if not rows:
            where = "this run's directory" if read.files_found else "disk or in ocr.db"
            empty.update(
                Content(
                    f"No review sections on {where} yet: OCR writes them with map.md "
                    "(map-meta.json) when the run completes."
                )
            )
        self.section_key = sections.cursor_key if rows else None
        self._show_files()
        deps = dependency_lines(m.dependencies if m else (), m.sections if m else (), style)
        self.query_one("#map-deps-pane").display = bool(deps)
        self.query_one("#map-dependencies", Static).update(Text("\n").join(deps))

    def _show_files(self) -> None:
        section = self.section
        pane = self.query_one("#map-files-pane")
        pane.display = section is not None
        if section is None:
            return
        # Content, not str: a str border title is parsed as markup, and this text is from disk.
        pane.border_title = Content(fmt.clip_cells(section_heading(section), 70))
        done = section.reviewed if self._marks_known else "—"
        pane.border_subtitle = Content(f"{done}/{len(section.files)} reviewed")
        about = self.query_one("#map-section-about", Static)
        about.display = bool(section.description)
        about.update(Content(safe_line(section.description or "")))
        rows = file_rows(section, partial(theme_style, self), self._marks_known)
        files = self.query_one("#map-files", FitTable)
        files.sync_rows(rows)
        files.display = bool(rows)
        self.query_one("#map-files-empty").display = not rows

    @on(DataTable.RowHighlighted, "#map-sections")
    def _section_highlighted(self, event: DataTable.RowHighlighted) -> None:
        key = event.row_key.value
        if key != self.section_key:
            self.section_key = key
            self._show_files()

    @on(DataTable.RowSelected, "#map-sections")
    def _section_selected(self, _event: DataTable.RowSelected) -> None:
        files = self.query_one("#map-files", FitTable)
        if files.display and files.row_count:
            files.focus()

    @on(DataTable.RowSelected, "#map-files")
    def _file_selected(self, _event: DataTable.RowSelected) -> None:
        self.action_edit()

    # -- actions ----------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.file_writes_disabled(action):
            return False
        return super().check_action(action, parameters)

    def explain_disabled(self, action: str, parameters: tuple[object, ...]) -> str | None:
        return self.file_writes_disabled(action) or super().explain_disabled(action, parameters)

    def cursor_file(self) -> MapFile | None:
        files = self.query_one("#map-files", FitTable)
        if not files.display or not files.row_count:
            return None
        return file_at(self.section, files.key_of(files.cursor_key))

    def action_edit(self) -> None:
        """The file at the cursor of the files table, in the user's editor."""
        file = self.cursor_file()
        if file is None:
            self.app.bell()
            self.notify("No file to open: this section lists none.", timeout=3, markup=False)
            return
        open_in_editor(self, file.path, None, self.session_id)

    def action_step(self, delta: int) -> None:
        """The run before or after, in place."""
        view = self.view
        runs = view.map_runs if view else []
        target = adjacent_item(runs, self.round_path, self.round_number, delta)
        if target is None:
            self.app.bell()
            self.notify(f"No {'earlier' if delta < 0 else 'later'} map run.", timeout=2)
            return
        self._show_run(target.number, target.path)

    def _show_run(self, number: int, path: str) -> None:
        self.round_number, self.round_path = number, path
        self.read, self.section_key, self.has_read = None, None, False
        self.query_one("#map-count", Static).update(Content("Reading the map…"))
        self._show_map()
        self.render_view(self.view, first=False)
