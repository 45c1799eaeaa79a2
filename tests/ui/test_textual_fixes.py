"""The pinned Textual's leaks worked around (`ocr_tui.ui.textual_compat.apply_fixes`): a
widget gone leaves nothing of it in memory."""

from __future__ import annotations

import gc
import inspect
import weakref

import textual._styles_cache
from textual.app import App, ComposeResult
from textual.widgets import Static

from ocr_tui.ui import textual_compat

from .builders import wait_until


def test_what_is_replaced_is_still_the_leak() -> None:
    """An upgrade of Textual that changes `get_inner_outer` must look at this fix again."""
    source = inspect.getsource(textual._styles_cache)
    assert "@lru_cache(1024)\n    def get_inner_outer(\n        cls, base_background" in source


async def test_a_widget_removed_leaves_its_drawn_lines_nowhere() -> None:
    textual_compat.apply_fixes()

    class Churn(App[None]):
        def compose(self) -> ComposeResult:
            yield Static("kept", id="kept")

    app = Churn()
    gone: list[weakref.ref] = []
    async with app.run_test(size=(40, 12)) as pilot:
        for k in range(30):  # as toasts come and go
            w = Static(f"toast {k}")
            await app.mount(w)
            await wait_until(pilot, lambda w=w: w._styles_cache._cache, what=f"toast {k} drawn")
            gone.append(weakref.ref(w._styles_cache))
            await w.remove()
            del w
        await pilot.pause()
        gc.collect()
        alive = [r for r in gone if r() is not None]
        assert len(alive) <= 1, f"{len(alive)} removed widgets' drawn lines kept"
