"""Text that changes every second, repainted in place."""

from __future__ import annotations

from textual.content import Content
from textual.widget import Widget


class Clock(Widget):
    """Two lines that change every second: repainted in place, never re-laid out (a Static's
    update re-lays out the whole screen, which re-rendered the session list every second)."""

    DEFAULT_CSS = "Clock { height: 2; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._content = Content("")

    def update(self, content: Content) -> None:
        self._content = content
        self.refresh()

    def render(self) -> Content:
        return self._content
