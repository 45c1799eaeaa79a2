"""`LaidPane`: a bordered pane of text laid out for its width, scrolling on its own, whose height
the layout fixes (the detail pane's rounds). Drawn on the line API: a change that adds a line
sets the pane's virtual size and repaints the lines that changed; it never lays the screen out
(only a scrollbar shown or hidden does: the text then gets another width).

It looks and scrolls as a `VerticalScroll` holding a `Laid` does: the text wrapped at the width
left of the padding and, while the text is taller than the pane, of the scrollbar.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.content import Content
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

from ocr_tui.ui.widgets.laid import LaidText, changed_rows, rows_regions


class LaidPane(ScrollView, can_focus=True):
    """Text laid out for the pane's width (`update(build)`, `build(width)` gives the
    content); the pane's height is the layout's, the text scrolls inside it."""

    DEFAULT_CSS = "LaidPane { overflow-x: hidden; overflow-y: auto; }"
    ALLOW_MAXIMIZE = False  # (as the VerticalScroll it replaced: ScrollView's is True)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._text = LaidText()

    def update(self, build: Callable[[int], Content]) -> None:
        """New content: its lines that changed and are in view are repainted."""
        before = self._text.replace(build)
        if not self.is_mounted or not self.size:
            return  # (the first layout sets the virtual size)
        drawn_at = self._text_width()
        after = self._lay()
        width = self._text_width()  # (a scrollbar came or went: another width, drawn whole)
        if before is None or before[0] != width or drawn_at != width:
            self.refresh()
            return
        top, height = round(self.scroll_y), self.scrollable_content_region.height
        changed = changed_rows(before[1], after, range(top, top + height))
        if changed:
            self.refresh(*rows_regions(changed, width, top))

    def content_at(self, width: int) -> Content:
        return self._text.content_at(width)

    @property
    def plain(self) -> str:
        """The text as laid out at the pane's width (tests)."""
        return self.content_at(self._text_width()).plain

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._text.forget()

    # -- layout: the virtual size, set without a layout pass -----------------------------

    def _text_width(self, outer: Size | None = None) -> int:
        """The cells the text gets: the pane's (outer size `outer`, by default its own) less
        border, padding and (while shown) the vertical scrollbar."""
        outer = self.outer_size if outer is None else outer
        return max(1, outer.width - self.gutter.width)

    def _lines_at(self, width: int) -> list[Strip]:
        return self._text.strips_at(self, width)

    def _lay(self, size: Size | None = None) -> list[Strip]:
        """The text at the width it gets; its size is the pane's virtual size (set without
        a layout pass; a scrollbar shown or hidden by it lays out, which comes back here)."""
        width = self._text_width(size)
        strips = self._lines_at(width)
        virtual = Size(width, len(strips))
        if virtual != self.virtual_size:
            self.set_reactive(Widget.virtual_size, virtual)
            if self.container_size:
                self._scroll_update(virtual)
        return strips

    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        if size:
            drawn = self._text.strips[0] if self._text.strips else None
            self._lay(size)
            if drawn is not None and self._text_width(size) != drawn:
                self.refresh()  # the text is wrapped anew
        return super()._size_updated(size, virtual_size, container_size, layout)

    # -- drawing ---------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        width = self._text_width()
        strips = self._lines_at(width)
        row = y + round(self.scroll_y)
        if 0 <= row < len(strips):
            return strips[row]
        return _NO_TEXT  # (the pane's background, as a container draws it)


_NO_TEXT = Strip([], 0)
