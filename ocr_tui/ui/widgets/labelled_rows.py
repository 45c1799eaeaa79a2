"""`LabelledRows`: items laid out for the width the widget gets (a `Laid`): a `Line` after its
mark, wrapped under itself, and `Labelled` values that share one label column, wrapped at words,
never cut while there is room."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from textual.content import Content
from textual.geometry import Size

from ocr_tui.ui import fmt
from ocr_tui.ui.widgets.laid import Laid


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
