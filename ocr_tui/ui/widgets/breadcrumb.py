"""A one-line breadcrumb: `Sessions › 2026-11-22-feat-auth › Round 2 › principal-1.md`.

Every part is shown through `safe_line` (parts are often names from disk). A part with a
target is clickable: the click runs `screen.crumb(i)`, which the drill-down screens implement
(`DrilldownScreen.action_crumb`) to go back to that level.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content
from textual.widgets import Static

from ocr_tui.core.textsafe import safe_line

SEPARATOR = " › "


class Breadcrumb(Static):
    """Parts are `(label, clickable)` pairs; the last part is the current place."""

    def __init__(
        self,
        parts: Sequence[tuple[str, bool]] = (),
        *,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(self.build(parts), id=id, classes=classes, markup=False)
        self._parts: tuple[tuple[str, bool], ...] = tuple(parts)

    @property
    def parts(self) -> tuple[tuple[str, bool], ...]:
        return self._parts

    @property
    def plain(self) -> str:
        return SEPARATOR.join(safe_line(label) for label, _ in self._parts)

    def set_parts(self, parts: Sequence[tuple[str, bool]]) -> None:
        parts = tuple(parts)
        if parts != self._parts:
            self._parts = parts
            self.update(self.build(parts))

    @staticmethod
    def build(parts: Sequence[tuple[str, bool]]) -> Content:
        pieces: list[str | tuple[str, str]] = []
        last = len(parts) - 1
        for i, (label, clickable) in enumerate(parts):
            if i:
                pieces.append((SEPARATOR, "$foreground-muted"))
            text = safe_line(label)
            if i == last:
                pieces.append((text, "bold"))
            elif clickable:
                pieces.append((text, f"underline @click=screen.crumb({i})"))
            else:
                pieces.append((text, "$foreground-muted"))
        return Content.assemble(*pieces)
