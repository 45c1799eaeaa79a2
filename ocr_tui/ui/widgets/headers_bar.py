"""The project-level state of some formats (iDumb's brain), one line each, over the list."""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content
from textual.widgets import Static

from ocr_tui.core.view import Header
from ocr_tui.ui import fmt


class HeadersBar(Static):
    """`show(headers)`: hidden when there are none."""

    def show(self, headers: Sequence[Header]) -> None:
        self.display = bool(headers)
        self.update(Content("\n").join(header_line(h) for h in headers))


def header_line(h: Header) -> Content:
    """One line per format header: `iDumb · phase … · 12 validations · ! brain stale 52 h`."""
    parts: list[str | tuple[str, str]] = [
        (fmt.framework_label(h.framework), "bold"),
        (" · ", "$text-muted"),
        fmt.safe(h.title, 50),
    ]
    title = h.title.lower()
    for fact in [f for f in h.facts if f.value.lower() not in title][:4]:
        parts += [(" · ", "$text-muted"), (f"{fmt.safe(fact.label, 14)} ", "$text-muted")]
        parts.append((fmt.safe(fact.value, 24), fmt.TONES.get(fact.tone, "")))
    for alert in h.alerts[:2]:
        parts += [(" · ", "$text-muted"), (f"! {fmt.safe(alert, 40)}", "$text-warning")]
    return Content.assemble(*parts)
