"""The remote projects' connections, one line each over the list, while one is not up
(`ocr-tui HOST:PATH`, issue 29): `✗ devbox:api: connection lost 12s ago, reconnecting in 4s ·
why`, `… devbox:api: connecting`, `devbox:api: no session store at PATH yet`. Hidden while every
connection is up. The times move on by themselves (a one-second timer, only while a line has
one; none with a fixed clock)."""

from __future__ import annotations

from collections.abc import Mapping

from textual.content import Content
from textual.widget import Widget

from ocr_tui.core.remote_feed import LinkState
from ocr_tui.ui import fmt


def link_line(link: LinkState, now: float, width: int) -> Content:
    """One connection's line, cut to `width`."""
    name = fmt.safe(link.name, 40)
    if link.state == "lost":
        ago = fmt.ticking_duration(max(0, int(now - link.since)))
        parts: list[tuple[str, str]] = [
            (f"✗ {name}: connection lost {ago} ago", "bold $text-error"),
        ]
        if link.retry_at is not None and link.retry_at > now:
            left = fmt.ticking_duration(max(1, int(link.retry_at - now + 0.999)))
            parts.append((f", reconnecting in {left}", "$text-warning"))
        else:
            parts.append((", reconnecting", "$text-warning"))
        if link.message:
            parts.append((f" · {fmt.safe(link.message, 300)}", "$text-muted"))
    elif link.state == "waiting":
        parts = [(f"{name}: ", "bold"), (fmt.safe(link.message, 300), "$text-muted")]
    else:
        parts = [(f"… {name}: connecting", "$text-muted")]
    return Content.assemble(*parts).truncate(width, ellipsis=True)


class LinksBar(Widget):
    """`show(links)`: a line per connection not up; hidden when there is none."""

    DEFAULT_CLASSES = "links-bar"

    def on_mount(self) -> None:
        self._links: tuple[LinkState, ...] = ()
        self._timer = None
        signal = getattr(self.app, "links_signal", None)
        if signal is not None:  # (an app with remote projects: each change of a connection)
            signal.subscribe(self, self.show)
            self.show(self.app.links)

    def show(self, links: Mapping[str, LinkState]) -> None:
        down = tuple(v for _, v in sorted(links.items()) if v.state != "up")
        self.display = bool(down)
        if down != self._links:
            self._links = down
            self.styles.height = len(down) or 1
            self.refresh()
        ticking = any(v.state == "lost" for v in down) and not getattr(
            self.app, "fixed_clock", False
        )
        if ticking and self._timer is None:
            self._timer = self.set_interval(1.0, self.refresh, name="links-clock")
        elif not ticking and self._timer is not None:
            self._timer.stop()
            self._timer = None

    @property
    def lines(self) -> list[Content]:
        width = self.content_region.width or 80
        now = self.app.now().timestamp()
        return [link_line(v, now, width) for v in self._links]

    def render(self) -> Content:
        return Content("\n").join(self.lines)
