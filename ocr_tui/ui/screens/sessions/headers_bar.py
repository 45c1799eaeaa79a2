"""The project-level state of some formats (iDumb's brain), one line each, over the list: shown
only while sessions of that format are in the list, each line cut to the width (facts and
alerts that do not fit are left out, never wrapped onto a second line)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from textual.content import Content
from textual.widget import Widget

from ocr_tui.core.view import Header
from ocr_tui.ui import fmt

SEP = (" · ", "$text-muted")
FACTS, ALERTS = 4, 2  # at most, of a header's


class HeadersBar(Widget):
    """`show(headers)`: hidden when there are none."""

    DEFAULT_CLASSES = "headers-bar"

    def on_mount(self) -> None:
        self._headers: tuple[Header, ...] = ()

    def show(self, headers: Sequence[Header]) -> None:
        headers = tuple(headers)
        self.display = bool(headers)
        if headers != self._headers:
            self._headers = headers
            self.styles.height = len(headers) or 1
            self.refresh()

    @property
    def lines(self) -> list[Content]:
        width = self.content_region.width or 80
        now = getattr(self.app, "now", lambda: datetime.now(UTC))()
        return [header_line(h, width, now) for h in self._headers]

    def render(self) -> Content:
        return Content("\n").join(self.lines)


def header_parts(h: Header, now: datetime) -> list[Content]:
    """The title, then the first facts not already said (a fact's continuation lines, its
    label indented, are the detail's), then the alerts; each whole. Fact values as every
    screen shows them: timestamps `fmt.when`'s clock time (the bar is not ticked), home `~`."""
    label = fmt.framework_label(h.framework)
    title = fmt.safe(h.title)
    head = title if title.lower().startswith(label.lower()) else f"{label} · {title}"
    if h.project:  # one of several projects': whose
        head = f"{fmt.safe(h.project, 30)} · {head}"
    parts = [Content.styled(head, "bold")]
    said = h.title.lower()
    facts = [f for f in h.facts if f.value.lower() not in said and not f.label[:1].isspace()]
    for fact in facts[:FACTS]:
        parts.append(
            Content.assemble(
                (f"{fmt.safe(fact.label).strip()} ", "$text-muted"),
                (
                    fmt.home_paths(fmt.times_in(fmt.safe(fact.value), now, "clock")),
                    fmt.TONES.get(fact.tone, ""),
                ),
            )
        )
    for alert in h.alerts[:ALERTS]:
        parts.append(Content.styled(f"! {fmt.safe(alert)}", "$text-warning"))
    return parts


def header_line(h: Header, width: int, now: datetime) -> Content:
    """One line of at most `width` cells: the parts that fit whole (the title cut if it
    alone is wider), `…` when some were left out."""
    parts = header_parts(h, now)
    line = parts[0].truncate(width, ellipsis=True)
    more = " · …"
    for i, part in enumerate(parts[1:], start=1):
        room = width - line.cell_length - (len(more) if i < len(parts) - 1 else 0)
        if 3 + part.cell_length > room:
            if line.cell_length + len(more) <= width:
                line = Content.assemble(line, SEP, ("…", "$text-muted"))
            break
        line = Content.assemble(line, SEP, part)
    return line
