"""`Laid`: text laid out for the width the widget gets, the one widget that does so (the detail
pane's rounds and facts, the format panes' labelled rows). Its content is a function of the
width, re-built when the width changes.

Drawn on the line API, a line at a time: each line of the text is rendered once and kept while
the text has it, so a change draws only the lines that changed (a reviewer added to a round's
50: one line, not 50), and repaints only those; the screen is laid out again only when the
height changes (Textual's `Static.update` lays out and renders all its text every time).
"""

from __future__ import annotations

from collections.abc import Callable

from textual.content import Content
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.visual import Visual
from textual.widget import Widget


class DrawnLines:
    """The lines of a text drawn as `Static` draws them (wrapped at a width, styled by the
    widget), each drawn once and kept while the text has it: a line that is the same text
    with the same styles is the same strips (`changed_rows` compares by identity)."""

    def __init__(self) -> None:
        self._look: tuple | None = None  # the width and look the lines are drawn for
        self._lines: dict[tuple, list[Strip]] = {}  # by (text, *spans): Content's == is text

    def forget(self) -> None:
        """The look changed (styles, theme): every line is drawn again."""
        self._look, self._lines = None, {}

    def draw(self, widget: Widget, content: Content, width: int) -> list[Strip]:
        style = widget.visual_style
        look = (width, style, widget.app.theme)
        if look != self._look:
            self._look, self._lines = look, {}
        drawn, kept = self._lines, {}
        strips: list[Strip] = []
        for line in content.split("\n", allow_blank=True):  # (a last empty line is a line)
            key = (line.plain, *line.spans)
            lines = kept.get(key) or drawn.get(key)
            if lines is None:
                lines = Visual.to_strips(widget, line, width, None, style)
            kept[key] = lines
            strips.extend(lines)
        self._lines = kept  # only the text's lines are kept
        return strips


def changed_rows(before: list[Strip], after: list[Strip], rows: range) -> list[int]:
    """The rows of `rows` drawn otherwise in `after` than in `before`."""
    return [
        y
        for y in rows
        if (before[y] if y < len(before) else None) is not (after[y] if y < len(after) else None)
    ]


class LaidText:
    """A text laid out for a width, as `Laid` and `LaidPane` hold it: `build(width)` gives the
    content, kept for the last width asked, and its lines drawn (`DrawnLines`) for it."""

    def __init__(self) -> None:
        self._build: Callable[[int], Content] = lambda _width: Content("")
        self._laid: tuple[int, Content] | None = None
        self._drawn = DrawnLines()
        self.strips: tuple[int, list[Strip]] | None = None  # the text's, at a width

    def replace(self, build: Callable[[int], Content]) -> tuple[int, list[Strip]] | None:
        """A new text; the strips of the one it replaces (at their width), if drawn."""
        before = self.strips
        self._build, self._laid, self.strips = build, None, None
        return before

    def content_at(self, width: int) -> Content:
        width = max(1, width)
        if self._laid is None or self._laid[0] != width:
            self._laid = (width, self._build(width))
        return self._laid[1]

    def strips_at(self, widget: Widget, width: int) -> list[Strip]:
        """Every line of the text at `width`, drawn by `widget`, kept for that width."""
        if self.strips is None or self.strips[0] != width:
            self.strips = (width, self._drawn.draw(widget, self.content_at(width), width))
        return self.strips[1]

    def forget(self) -> None:
        """The look changed (styles, theme): drawn anew."""
        self._drawn.forget()
        self.strips = None


class Laid(Widget):
    """Text laid out for the width the widget gets (`update(build)`, `build(width)` gives the
    content), re-built when that width changes; height as the text needs."""

    DEFAULT_CSS = "Laid { width: 100%; height: auto; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._text = LaidText()

    def update(self, build: Callable[[int], Content]) -> None:
        """New content: the lines that changed are repainted; the screen is laid out again
        only when the height changes."""
        width, height = self.content_size
        drawn = self._text.replace(build)
        before = drawn[1] if drawn and drawn[0] == width else None
        if before is None or not width or not self.display or self.text_selection is not None:
            self.refresh(layout=True)
            return
        after = self._strips_at(width)
        if len(after) != len(before) or len(after) != height:
            self.refresh(layout=True)
            return
        changed = changed_rows(before, after, range(len(after)))
        if changed:
            self.refresh(*rows_regions(changed, width))

    def content_at(self, width: int) -> Content:
        return self._text.content_at(width)

    @property
    def plain(self) -> str:
        """The text as laid out at the widget's width (tests)."""
        return self.content_at(self.content_size.width).plain

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._text.forget()

    def _strips_at(self, width: int) -> list[Strip]:
        return self._text.strips_at(self, width)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        self._dirty_regions.clear()  # (Widget.render_line's: this draws from its own lines)
        if self.text_selection is not None:  # a selection spans lines: the text whole
            strips = Visual.to_strips(self, self.content_at(width), width, None, self.visual_style)
        else:
            strips = self._strips_at(width)
        if 0 <= y < len(strips):
            return strips[y]
        return Strip.blank(width, self.visual_style.rich_style)

    def render(self) -> Content:
        return self.content_at(self.content_size.width)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if width <= 0:  # a layout pass can give a pane no width: nothing to wrap
            return 0
        return len(self._strips_at(width))


def rows_regions(ys: list[int], width: int, top: int = 0) -> list[Region]:
    """The rows `ys` (ascending) as regions of consecutive rows, `top` the first shown."""
    regions: list[Region] = []
    start = prev = ys[0]
    for y in ys[1:]:
        if y != prev + 1:
            regions.append(Region(0, start - top, width, prev - start + 1))
            start = y
        prev = y
    regions.append(Region(0, start - top, width, prev - start + 1))
    return regions
