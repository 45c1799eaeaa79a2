"""The session list: a line table keyed by session id, updated in place.

It keeps each session's cells as data (`list_cells.Cell`) and its rows as an order of ids
(`SessionRows`); a row becomes rich `Text` only when it is drawn (`LineTable`: the rows on
screen). Rows are diffed by key, a row whose cells changed is drawn again alone, and the
cursor stays on the same session when rows are re-ordered, so nothing jumps while the data
moves underneath it.

Its columns are `PlannedTable`'s (which are shown, how wide). Cells are styled in the
foreground only: the row (cursor, stripes) owns the background.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.binding import Binding

from ocr_tui.ui.screens.sessions.cells import BAR_PARTS, Cell, IdText, PhaseText, VerdictText
from ocr_tui.ui.screens.sessions.session_rows import SessionRows


class SessionTable(SessionRows, inherit_bindings=True):
    """The session list (see the module's docstring): `SessionRows`' rows, drawn."""

    COMPONENT_CLASSES = {
        "session-table--input",
        "session-table--alert",
        "session-table--running",
        "session-table--waiting",
        "session-table--stalled",
        "session-table--closed",
        "session-table--loading",
        "session-table--offline",
        "session-table--problem",
        "session-table--bar-done",
        "session-table--bar-todo",
        "session-table--muted",
        "session-table--good",
        "session-table--bad",
    }
    BINDINGS = [
        Binding("enter", "select_cursor", "Open", tooltip="Open the highlighted session"),
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("g", "scroll_top", "First session", show=False),
        Binding("G", "scroll_bottom", "Last session", show=False),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._styles: dict[str, Style] = {}

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._restyle)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "select_cursor" and not self.row_count:
            return False  # no "Open" in the footer when there is nothing to open
        return True

    def _restyle(self, _theme: object = None) -> None:
        """The theme changed: styles are baked into cells, so re-render them."""
        self._styles.clear()
        self.clear_drawn()

    # -- cells --------------------------------------------------------------------------

    def render_row_cell(self, row_key: str, column_key: str) -> Text:
        return self._cell_text(row_key, column_key, self._cells[row_key][column_key])

    def row_cell_data(self, row_key: str, column_key: str) -> Cell:
        # What else a cell's look depends on (the ids' fit, the bars, the theme) clears
        # the drawn rows when it changes.
        return self._cells[row_key][column_key]

    def get_cell(self, row_key: str, column_key: str) -> Text:
        """The cell as the row draws it (rich Text)."""
        return self.render_row_cell(row_key, column_key)

    def _style(self, name: str) -> Style:
        style = self._styles.get(name)
        if style is None:  # looked up once per theme: 10,000 rows hold 150,000 cells
            style = Style()
            if name:
                full = self.get_component_rich_style(f"session-table--{name}")
                # The foreground only: a cell painting its background would hole the
                # cursor row and the stripes.
                style = Style(color=full.color, bold=full.bold, italic=full.italic)
            self._styles[name] = style
        return style

    def _cell_text(self, sid: str, key: str, cell: Cell) -> Text:
        text = {"id": IdText, "phase": PhaseText, "verdict": VerdictText}.get(key, Text)()
        for part, style in cell:
            text.append(part, self._style(style))
        text.no_wrap = True
        text.overflow = "ellipsis"
        if isinstance(text, IdText):
            text.fit = self._ids
        elif isinstance(text, PhaseText):
            text.bar, text.bars = sum(len(part) for part, _ in cell[:BAR_PARTS]), self._bars
        return text
