"""The project's one-line review summary over the session list (OCR's web
dashboard's stat cards): `4 sessions · 1 active · 3 reviews with a verdict · 2 unresolved
blockers` (`core.reviews.summary`), of the OCR sessions alone. Shown only while the project
holds OCR sessions; `OCR ·` leads it when the list shows other formats too. Unresolved
blockers, when there are any, are in the attention colour."""

from __future__ import annotations

from collections.abc import Iterable

from textual.content import Content
from textual.widgets import Static

from ocr_tui.core.registry import is_host
from ocr_tui.core.reviews import Summary, summary
from ocr_tui.core.view import SessionView
from ocr_tui.ui.widgets.static_update import update_static

ATTENTION = "bold $text-warning"
MUTED = "$text-muted"


# Dropped first when the line is short of room (whole, never cut mid-word): the least telling.
GIVE_WAY = (2, 1)  # the reviews with a verdict, then the active count


def summary_content(views: Iterable[SessionView], width: int | None = None) -> Content | None:
    """The line for these sessions (every format's), or None when none is OCR's; in `width`
    cells (None: any), parts given up whole (GIVE_WAY) rather than cut."""
    views = list(views)
    ocr = [v for v in views if is_host(v.framework)]
    return summary_line(summary(ocr), len(ocr) < len(views), width)


def summary_line(s: Summary, others: bool, width: int | None = None) -> Content | None:
    """The line for OCR's sessions summed in `s` (`others`: other formats' beside them), or
    None when there is none (`summary_content`)."""
    if not s.sessions:
        return None
    parts = s.parts()  # sessions, active, reviews with a verdict, blockers
    lead = "OCR · " if others else ""
    kept = list(range(len(parts)))
    for drop in GIVE_WAY:
        if width is None or len(lead) + len(" · ".join(parts[i] for i in kept)) <= width:
            break
        kept.remove(drop)
    pieces: list[str | tuple[str, str]] = [(lead, MUTED)] if lead else []
    for n, i in enumerate(kept):
        if n:
            pieces.append((" · ", MUTED))
        last = i == len(parts) - 1
        pieces.append((parts[i], ATTENTION if last and s.open_blockers else ""))
    return Content.assemble(*pieces)


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
    _summed: tuple[Summary, bool] | None = None
    _spans: tuple = ()  # Content's == compares the text alone: the styles count too

    def on_mount(self) -> None:
        if self._shown is None:
            self.display = False

    def show(self, views: Iterable[SessionView]) -> None:
        views = list(views)
        ocr = [v for v in views if is_host(v.framework)]
        self.show_summary(summary(ocr), len(ocr) < len(views))

    def show_summary(self, s: Summary, others: bool) -> None:
        """OCR's sessions summed in `s`; `others`: the list shows other formats' too."""
        self._summed = (s, others)
        width = self.size.width - 2 if self.size.width > 2 else None  # its padding
        content = summary_line(s, others, width)
        self.display = content is not None
        if content is None:
            return
        spans = tuple(content.spans)
        if content != self._shown or spans != self._spans:
            self._shown, self._spans = content, spans
            update_static(self, content)

    def on_resize(self) -> None:
        if self._summed is not None:
            self.show_summary(*self._summed)

    @property
    def plain(self) -> str:
        return self._shown.plain if self._shown is not None and self.display else ""
