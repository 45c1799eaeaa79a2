"""A one-line breadcrumb: `Sessions › 2026-11-22-feat-auth › Round 2 › principal-1.md`.

Every part is shown through `safe_line` (parts are often names from disk). A part with a
target is clickable: the click runs `screen.crumb(i)`, which the drill-down screens implement
(`DrilldownScreen.action_crumb`) to go back to that level.

It is one line, never wrapped (a second line would be hidden: an id cut mid-word). Too long
for its width, the longest part before the last is shortened in its middle
(`2026-11-19-fea…-webhooks`), then the next; the place shown (the last part) goes last.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from textual.content import Content
from textual.widgets import Static

from ocr_tui.core.textsafe import safe_line

SEPARATOR = " › "
MIN_PART = 9  # a part is never shortened below this many cells


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

    def render(self) -> Content:
        width = self.content_size.width
        return self.build(self._parts, width if width > 0 else None)

    @staticmethod
    def build(parts: Sequence[tuple[str, bool]], width: int | None = None) -> Content:
        """The crumbs as one line; with `width`, shortened to fit it (see the module)."""
        texts = [safe_line(label) for label, _ in parts]
        if width is not None:
            texts = fit_parts(texts, width)
        pieces: list[str | tuple[str, str]] = []
        last = len(parts) - 1
        for i, (_label, clickable) in enumerate(parts):
            if i:
                pieces.append((SEPARATOR, "$foreground-muted"))
            text = texts[i]
            if i == last:
                pieces.append((text, "bold"))
            elif clickable:
                pieces.append((text, f"underline @click=screen.crumb({i})"))
            else:
                pieces.append((text, "$foreground-muted"))
        return Content.assemble(*pieces)


def middle(text: str, width: int) -> str:
    """`text` in `width` cells, its middle replaced by `…` (both ends of an id say most)."""
    if cell_len(text) <= width:
        return text
    keep = max(width - 1, 0)
    head = text[: (keep + 1) // 2]
    tail = text[len(text) - keep // 2 :] if keep // 2 else ""
    return head + "…" + tail


def fit_parts(texts: list[str], width: int) -> list[str]:
    """`texts` shortened until they fit `width` with their separators: the longest part
    before the last first (down to MIN_PART), then the last part (its end)."""
    texts = list(texts)
    room = width - cell_len(SEPARATOR) * max(len(texts) - 1, 0)
    while sum(cell_len(t) for t in texts) > room:
        over = sum(cell_len(t) for t in texts) - room
        candidates = [i for i in range(len(texts) - 1) if cell_len(texts[i]) > MIN_PART]
        if not candidates:
            last = texts[-1]
            texts[-1] = last[: max(cell_len(last) - over - 1, 0)] + "…" if last else last
            break
        i = max(candidates, key=lambda k: cell_len(texts[k]))
        texts[i] = middle(texts[i], max(MIN_PART, cell_len(texts[i]) - over))
    return texts
