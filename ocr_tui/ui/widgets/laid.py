"""`Laid`: text laid out for the width the widget gets, the one widget that does so (the detail
pane's rounds and facts, the format panes' labelled rows). Its content is a function of the
width, re-built when the width changes; a new content lays the screen out again only when its
height changes (Textual's `Static.update` lays out every time)."""

from __future__ import annotations

from collections.abc import Callable

from textual.content import Content
from textual.geometry import Size
from textual.widget import Widget


class Laid(Widget):
    """Text laid out for the width the widget gets (`update(build)`, `build(width)` gives the
    content), re-built when that width changes; height as the text needs."""

    DEFAULT_CSS = "Laid { width: 100%; height: auto; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._build: Callable[[int], Content] = lambda _width: Content("")
        self._laid: tuple[int, Content] | None = None

    def update(self, build: Callable[[int], Content]) -> None:
        """New content; the screen is laid out again only when its height changes."""
        width, height = self.content_size
        before = self._laid[1].get_height(self.styles, width) if self._laid and width else None
        self._build, self._laid = build, None
        if before is None or not self.display:
            self.refresh(layout=True)
        else:
            after = self.content_at(width).get_height(self.styles, width)
            self.refresh(layout=after != before or after != height)

    def content_at(self, width: int) -> Content:
        width = max(1, width)
        if self._laid is None or self._laid[0] != width:
            self._laid = (width, self._build(width))
        return self._laid[1]

    @property
    def plain(self) -> str:
        """The text as laid out at the widget's width (tests)."""
        return self.content_at(self.content_size.width).plain

    def render(self) -> Content:
        return self.content_at(self.content_size.width)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if width <= 0:  # a layout pass can give a pane no width: nothing to wrap
            return 0
        return self.content_at(width).get_height(self.styles, width)
