"""Drill-down panes for formats without review rounds: what needs attention and the format's
facts (spec, agents, approvals, metrics...), and its steps (agent runs, checkpoints...) as a
table whose rows open their first document (`documents` maps row keys to them).

Two widgets the session and round screens share live here too: `LabelledRows` (labels as wide
as the longest, values wrapped at words under themselves, laid out for the width the widget
has) and `FitTable` (a DrillTable that is never wider than its pane: its flexible columns end
in `…` instead of a horizontal scrollbar, and take back their width when there is room; its
`wrap` columns wrap at words instead, their rows as tall as the text needs).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.geometry import Size
from textual.widgets.data_table import ColumnKey

from ocr_tui.core.view import SessionView
from ocr_tui.ui import fmt
from ocr_tui.ui import textual_compat as tc
from ocr_tui.ui.fmt import phrases
from ocr_tui.ui.fmt.phrases import Phrases
from ocr_tui.ui.style import theme_style
from ocr_tui.ui.widgets.drill_table import DrillTable
from ocr_tui.ui.widgets.laid import Laid

STATE_VAR = {"$text-success": "success", "$text-error": "error", "$text-warning": "warning"}


# -- labelled rows --------------------------------------------------------------------------


@dataclass(frozen=True)
class Line:
    """A line of text after a mark (`! `), wrapped under itself."""

    mark: str
    text: str
    style: str = ""


@dataclass(frozen=True)
class Labelled:
    """A label and its value; consecutive ones share one label column."""

    label: str
    value: str
    style: str = ""


Item = Line | Labelled


def item_lines(items: Sequence[Item], width: int) -> list[Content]:
    """`items` laid out in `width` cells (see `fmt.labelled_lines`): a run of labelled values
    shares one label column, as wide as its longest label."""
    out: list[Content] = []
    i = 0
    width = max(width, 1)
    while i < len(items):
        item = items[i]
        if isinstance(item, Line):
            pad = " " * cell_len(item.mark)
            for j, line in enumerate(fmt.wrap(item.text, width - len(pad))):
                out.append(Content.styled((item.mark if j == 0 else pad) + line, item.style))
            i += 1
            continue
        run: list[Labelled] = []
        while i < len(items) and isinstance(items[i], Labelled):
            run.append(items[i])  # type: ignore[arg-type]
            i += 1
        rows = [(r.label, r.value) for r in run]
        for k, label, value in fmt.labelled_lines(rows, width):
            out.append(Content.assemble((label, "$text-muted"), (value, run[k].style)))
    return out


class LabelledRows(Laid):
    """Items (`Line`, `Labelled`) laid out for the width the widget gets: labels sized to
    their content, values wrapped at words, never cut while there is room."""

    DEFAULT_CSS = """
    LabelledRows {
        height: auto;
    }
    """

    def __init__(self, empty: str = "", *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._items: tuple[Item, ...] = ()
        self._empty = empty
        self.update(self._content)

    @property
    def items(self) -> tuple[Item, ...]:
        return self._items

    def set_items(self, items: Sequence[Item]) -> None:
        items = tuple(items)
        if items != self._items:
            self._items = items
            self.update(self._content)

    def lines(self, width: int) -> list[Content]:
        if not self._items:
            return [Content.styled(self._empty, "$text-muted")] if self._empty else []
        return item_lines(self._items, width)

    def _content(self, width: int) -> Content:
        return Content("\n").join(self.lines(width))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return max(1, len(self.lines(width))) if width > 0 else 1


# -- a table as wide as its pane ---------------------------------------------------------------


class FitTable(DrillTable):
    """A DrillTable whose `flex` columns share what the other columns leave of the table's
    width: a flexible cell longer than its column ends in `…` (no horizontal scrollbar); with
    room, each is as wide as its widest cell; short of room, they share it fairly (each keeps
    `min_flex`). A flexible column in `wrap` wraps at words instead (a word longer than the
    column ends in `…`) and its rows are as tall as that needs: nothing is cut while the
    table has room below. Cells must be `Text` (as in every DrillTable).

    `hold`: a table that holds still while its rows change: a column never narrows
    back when its widest cell goes (its widths are the most seen), and `least` plans columns
    whose values come from a known set at the widest of them from the first row (a verdict
    column for `NEEDS DISCUSSION`), so a cell that arrives re-wraps nothing."""

    DEFAULT_CSS = """
    FitTable {
        overflow-x: hidden;
    }
    """

    def __init__(
        self,
        columns: Sequence[tuple[str, str]],
        *,
        flex: Sequence[str],
        wrap: Sequence[str] = (),
        min_flex: int = 6,
        id: str | None = None,
        classes: str | None = None,
        show_header: bool = True,
        hold: bool = False,
        least: Mapping[str, int] | None = None,
    ) -> None:
        super().__init__(columns, id=id, classes=classes, show_header=show_header)
        self._flex = tuple(flex)
        self._wrap = tuple(k for k in wrap if k in self._flex)
        self._min_flex = min_flex
        self._hold = hold
        self._least = dict(least or {})
        self._natural: dict[str, int] = {}
        self._longest_word: dict[str, int] = {}  # of each `wrap` column's cells

    def sync_rows(self, rows: Sequence[tuple[str, Sequence]]) -> None:
        index = {key: i for i, (key, _) in enumerate(self._column_spec)}
        flex = {index[k] for k in self._flex if k in index}
        wrap = {index[k] for k in self._wrap if k in index}
        shown = []
        for key, cells in rows:
            cells = list(cells)
            for i, cell in enumerate(cells):
                if isinstance(cell, Text) and (i in flex or fmt.KEEP_TOGETHER in cell.plain):
                    cell = Phrases.of(cell)  # a copy; its phrases wrap whole, drawn with spaces
                    if i in flex:
                        cell.no_wrap, cell.overflow = i not in wrap, "ellipsis"
                    cells[i] = cell
            shown.append((key, cells))
        show_header = self.show_header
        held = self._natural if self._hold else {}
        self._natural = {
            key: max(
                [cell_len(label) if show_header else 0, self._least.get(key, 0), held.get(key, 0)]
                + [_width(cells[i]) for _, cells in shown if i < len(cells)]
            )
            for i, (key, label) in enumerate(self._column_spec)
        }
        held = self._longest_word if self._hold else {}
        self._longest_word = {
            key: max(
                [held.get(key, 0)]
                + [len(word) for _, cells in shown if i < len(cells) for word in _plain(cells[i])]
            )
            for i, (key, _label) in enumerate(self._column_spec)
            if key in self._wrap
        }
        super().sync_rows(shown)
        if self._hold:
            self._fit_columns()
        self.fit()

    def _fit_columns(self, *, force: bool = False) -> None:
        """A table that holds still: each column as wide as the widest cell it has held."""
        if not self._hold:
            super()._fit_columns(force=force)
            return
        changed = False
        for key, _label in self._column_spec:
            column = self.columns.get(ColumnKey(key))
            want = self._natural.get(key, 0)
            if column is not None and column.content_width < want:
                column.content_width = want
                changed = True
        if changed or force:
            tc.table_redrawn_measured(self)
            self.refresh()

    def _update_column_widths(self, updated_cells: set) -> None:
        """DataTable re-measures a column from its cells when one gets shorter (`in progress`
        → `done`): a table that holds still keeps the widths it has held."""
        super()._update_column_widths(updated_cells)
        if self._hold:
            for key, _label in self._column_spec:
                column = self.columns.get(ColumnKey(key))
                if column is not None:
                    column.content_width = max(column.content_width, self._natural.get(key, 0))

    def set_labels(self, labels: dict[str, str]) -> None:
        """Header labels that change with the width or the data (`Blockers` → `Blk`), measured
        as shown (the columns are sized by `_column_spec`'s labels); unchanged labels are no
        work, so a screen may set them on every tick."""
        spec = tuple((key, labels.get(key, label)) for key, label in self._column_spec)
        if spec == self._column_spec:
            return
        self._column_spec = spec
        super().set_labels(labels)

    def on_resize(self) -> None:
        self.fit()

    def watch_show_vertical_scrollbar(self, _shown: bool) -> None:
        self.call_after_refresh(self.fit)

    def fit(self) -> None:
        """Give the flexible columns what the others leave (each at most its widest cell)."""
        width = self.scrollable_content_region.width
        if width <= 0 or not self.columns or not self._natural:
            return
        pad = 2 * self.cell_padding
        flex = [k for k in self._flex if ColumnKey(k) in self.columns]
        fixed = sum(n + pad for k, n in self._natural.items() if k not in flex)
        left = width - fixed - pad * len(flex)
        widths: dict[str, int] = {}
        # A column that wraps loses no text when narrow, one that is cut does: the cut ones
        # are served first, while each wrapping one keeps room for its longest word.
        cut = [k for k in flex if k not in self._wrap]
        wrapped = [k for k in flex if k in self._wrap]
        labels = dict(self._column_spec)  # a header does not wrap: it is kept whole too
        floor = {k: self._min_flex for k in cut} | {
            k: max(self._min_flex, self._longest_word.get(k, 0), cell_len(labels.get(k, "")))
            for k in wrapped
        }
        for group, room in ((cut, left - sum(floor[k] for k in wrapped)), (wrapped, None)):
            if room is None:
                room = left - sum(widths.values())
            # Fair shares: the narrowest first, each at most its widest cell; what one does
            # not need goes to the next.
            for n, key in enumerate(sorted(group, key=lambda k: self._natural.get(k, 0))):
                share = room // (len(group) - n)
                widths[key] = max(floor[key], min(self._natural.get(key, 0), share))
                room -= widths[key]
        changed = False
        for key, w in widths.items():
            column = self.columns[ColumnKey(key)]
            if column.auto_width or column.width != w:
                column.auto_width, column.width = False, w
                changed = True
        if self._fit_heights():
            changed = True
        if changed:
            tc.table_measure_later(self)
            self.refresh(layout=True)

    def _fit_heights(self) -> bool:
        """Each row as tall as its `wrap` cells need at their columns' widths; True when a
        row's height changed."""
        if not self._wrap:
            return False
        index = {key: i for i, (key, _) in enumerate(self._column_spec)}
        wrap = [(index[k], self.columns[ColumnKey(k)]) for k in self._wrap if k in index]
        console = self.app.console
        changed = False
        for row in self.ordered_rows:
            cells = self._cells.get(row.key.value or "", ())
            height = 1
            for i, column in wrap:
                cell = cells[i] if i < len(cells) else None
                if not isinstance(cell, Text) or not column.width:
                    continue
                if cell.cell_len > column.width or "\n" in cell.plain:
                    height = max(height, len(cell.wrap(console, column.width)))
            if row.height != height:
                row.height = height
                changed = True
        if changed:
            tc.table_forget_offsets(self)
        return changed

    def column_width(self, key: str) -> int:
        """The width a column is drawn at (tests)."""
        column = self.columns[ColumnKey(key)]
        return column.width if not column.auto_width else column.content_width


def _plain(cell: object) -> list[str]:
    return phrases.words(cell.plain if isinstance(cell, Text) else str(cell))


def _width(cell: object) -> int:
    if isinstance(cell, Text):
        return max((line.cell_len for line in cell.split("\n")), default=0)
    return cell_len(str(cell))


# -- the format panes ------------------------------------------------------------------------


def _said(text: str) -> set[str]:
    return set(re.findall(r"[\w.+-]+", text.lower()))


def unsaid_badges(view: SessionView) -> list[str]:
    """The badges that say something the screen does not say already: not the session's
    status or workflow (the line under the title says them: `active`, `interrupted`), not a
    word of a fact (`full`, `auto` beside `mode full (/code), auto`; iDumb's `compacted`
    beside its `compacted` fact). Each fact once."""
    said = _said(" ".join([view.status, view.workflow, "complete" if view.complete else ""]))
    for fact in view.facts:
        said |= _said(f"{fact.label} {fact.value}")
    for alert in view.alerts:
        said |= _said(alert)
    return [b for b in view.badges if not _said(b) <= said]


def fact_items(view: SessionView, now: datetime) -> list[Item]:
    """What needs the user first (an approval, the alerts), the badges not said elsewhere
    (`unsaid_badges`), then the facts (not one an alert already said); the times in them as
    `fmt.when` shows every time."""
    items: list[Item] = []
    if view.waiting:
        glyph = fmt.glyph("input")
        waiting = "waiting on you: an approval is needed"
        items.append(Line(f"{glyph} ", waiting, "bold $text-warning"))
    mark = f"{fmt.glyph('alert')} "
    items += [Line(mark, fmt.times_in(fmt.safe(a), now), "$text-warning") for a in view.alerts]
    badges = unsaid_badges(view)
    if badges:
        items.append(Line("", " · ".join(fmt.safe(b) for b in badges), "$text-muted"))
    alerts = [a.strip().lower() for a in view.alerts]
    for fact in view.facts:
        said = fact.value.strip().lower()
        if said and any(a.startswith(said) for a in alerts):
            continue  # said above, as an alert
        value = fmt.home_paths(fmt.times_in(fmt.safe(fact.value), now))
        items.append(Labelled(fmt.safe(fact.label), value, fmt.TONES.get(fact.tone, "")))
    return items


def step_columns(now: datetime) -> list[tuple[str, str]]:
    return [
        ("at", f"When ({fmt.zone_name(now)})"),
        ("step", "Step"),
        ("state", "State"),
        ("took", "Took"),
        ("detail", "Detail"),
    ]


class FormatPanes(Vertical):
    """`show(view, now)`; hidden for OCR sessions (rounds and map runs are shown instead)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.documents: dict[str, str] = {}  # step row key -> the document it opens

    def compose(self) -> ComposeResult:
        with Vertical(id="facts-pane", classes="dd-pane") as pane:
            pane.border_title = "Details"
            yield LabelledRows("Nothing recorded.", id="facts")
        with Vertical(id="steps-pane", classes="dd-pane") as pane:
            pane.border_title = "Steps"
            yield FitTable(
                step_columns(self.app.now()),
                flex=("step", "detail"),
                wrap=("step", "detail"),
                id="steps",
            )

    def show(self, view: SessionView, now: datetime) -> None:
        self.show_facts(view, now)
        rows = self._step_rows(view, now)
        self.query_one("#steps", FitTable).sync_rows(rows)
        self.query_one("#steps-pane").display = bool(rows)

    def show_facts(self, view: SessionView, now: datetime) -> None:
        """The facts alone (the 1 s tick: their relative times move)."""
        self.query_one("#facts", LabelledRows).set_items(fact_items(view, now))

    def _step_rows(self, view: SessionView, now: datetime) -> list[tuple[str, list[Text]]]:
        rows = []
        self.documents = {}
        for i, step in enumerate(view.steps):
            key = f"{i}:{step.key}"
            if step.documents:
                self.documents[key] = step.documents[0]
            var = STATE_VAR.get(fmt.state_tone_style(step.state), "foreground-muted")
            detail = fmt.times_in(fmt.safe(step.detail or ""), now)
            if step.documents:
                n = len(step.documents)
                docs = f"{n} document{'s' if n != 1 else ''}"
                detail = f"{detail} · {docs}" if detail else docs
            took = fmt.duration(step.seconds) if step.seconds is not None else "—"
            rows.append(
                (
                    key,
                    [
                        Text(fmt.when(step.at, now, "cell") or "—"),
                        Text(fmt.safe(step.label)),
                        Text(fmt.words(step.state), style=theme_style(self, var)),
                        Text(took),
                        Text(detail),
                    ],
                )
            )
        return rows
