"""A layout pass can give a detail-pane text no width at all (seen at 80×24 with a line more
above the list): it is then no lines high, never a crash in the text wrapper."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.content import Content
from textual.geometry import Size

from ocr_tui.ui.screens.sessions.detail_pane import Laid


class LaidApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Laid(id="laid")


async def test_no_width_is_no_height() -> None:
    app = LaidApp()
    async with app.run_test(size=(40, 10)):
        laid = app.query_one(Laid)
        laid.update(lambda width: Content("a phase that wraps " * 3))
        assert laid.get_content_height(Size(0, 10), Size(40, 10), 0) == 0
        assert laid.get_content_height(Size(10, 10), Size(40, 10), 10) > 1
