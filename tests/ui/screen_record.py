"""What a terminal would show: every update the app writes to it, applied in turn to a grid of
cells (`Terminal`), so a test reads the screen as the user sees it, not what a widget would
draw if asked now. A line the app never repainted keeps what it showed before, as on a real
terminal; `run_test` is headless (it writes nothing), so the updates are caught where the
app hands them to the driver (`App._display`)."""

from __future__ import annotations

from rich.cells import cell_len
from rich.segment import Segment
from textual._compositor import ChopsUpdate, LayoutUpdate
from textual.app import App
from textual.geometry import Region


class Terminal:
    """A grid of characters that the app's updates are written to (text only)."""

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.cells = [[" "] * width for _ in range(height)]
        self.updates = 0  # how many updates the app wrote (frames)

    def _put(self, x: int, y: int, segments: list[Segment]) -> None:
        if not 0 <= y < self.height:
            return
        row = self.cells[y]
        for segment in segments:
            if segment.control:
                continue
            for char in segment.text:
                if 0 <= x < self.width:
                    row[x] = char
                x += cell_len(char)

    def apply(self, update: object) -> None:
        """Write one update, as `render_segments` would to a terminal."""
        if isinstance(update, LayoutUpdate):
            self.updates += 1
            for y, line in enumerate(update.strips, update.region.y):
                x = update.region.x
                for strip in line:
                    self._put(x, y, list(strip))
                    x += strip.cell_length
        elif isinstance(update, ChopsUpdate):
            self.updates += 1
            for y, x1, x2 in update.spans:
                chops = zip(update.chop_ends[y], update.chops[y].items(), strict=True)
                for end, (x, strip) in chops:
                    if strip is None or x > x2 or end <= x1:
                        continue
                    if not (x2 > x >= x1 and end <= x2):
                        strip = strip.crop(0, min(end, x2) - x)
                    self._put(x, y, list(strip))

    def text(self, region: Region) -> list[str]:
        """The lines of `region`, as shown."""
        return [
            "".join(self.cells[y][region.x : region.right])
            for y in range(region.y, min(region.bottom, self.height))
        ]


def record(app: App, size: tuple[int, int]) -> Terminal:
    """Catch what `app` writes to its terminal from now on (call it before `run_test`, with
    the size given there)."""
    terminal = Terminal(*size)
    display = app._display

    def caught(screen, renderable) -> None:
        if renderable is not None and not app._batch_count:  # (what reaches a terminal)
            terminal.apply(renderable)
        display(screen, renderable)

    app._display = caught  # type: ignore[method-assign]
    return terminal
