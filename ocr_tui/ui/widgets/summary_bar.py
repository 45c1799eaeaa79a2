"""The project's one-line review summary over the session list (issue 13, item 2; OCR's web
dashboard's stat cards): `4 sessions · 1 active · 3 reviews with a verdict · 2 unresolved
blockers` (`core.reviews.summary`), of the OCR sessions alone. Shown only while the project
holds OCR sessions; `OCR ·` leads it when the list shows other formats too. Unresolved
blockers, when there are any, are in the attention colour."""

from __future__ import annotations

from collections.abc import Iterable

from textual.content import Content
from textual.widgets import Static

from ocr_tui.core.reviews import summary
from ocr_tui.core.view import SessionView

ATTENTION = "bold $text-warning"
MUTED = "$text-muted"


def summary_content(views: Iterable[SessionView]) -> Content | None:
    """The line for these sessions (every format's), or None when none is OCR's."""
    views = list(views)
    ocr = [v for v in views if v.framework == "ocr"]
    if not ocr:
        return None
    s = summary(ocr)
    text = s.text()
    head, sep, blockers = text.rpartition(" · ")
    parts: list[str | tuple[str, str]] = []
    if len(ocr) < len(views):
        parts.append(("OCR · ", MUTED))
    parts += [head, (sep, MUTED), (blockers, ATTENTION if s.open_blockers else "")]
    content = Content.assemble(*parts)
    return content.highlight_regex(r" · ", style=MUTED)


class SummaryBar(Static):
    """`show(views)`: hidden when there is no OCR session."""

    DEFAULT_CSS = """
    SummaryBar {
        height: 1;
        padding: 0 1;
        background: $boost;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    _shown: Content | None = None
    _spans: tuple = ()  # Content's == compares the text alone: the styles count too

    def on_mount(self) -> None:
        if self._shown is None:
            self.display = False

    def show(self, views: Iterable[SessionView]) -> None:
        content = summary_content(views)
        self.display = content is not None
        if content is None:
            return
        spans = tuple(content.spans)
        if content != self._shown or spans != self._spans:
            self._shown, self._spans = content, spans
            self.update(content)

    @property
    def plain(self) -> str:
        return self._shown.plain if self._shown is not None and self.display else ""
