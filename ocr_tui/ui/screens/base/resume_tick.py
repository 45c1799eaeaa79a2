"""A screen whose times tick only while it is on top: hidden, it does no work; back on top, it
shows at once what time changed meanwhile."""

from __future__ import annotations


class ResumeTick:
    """A mixin of a screen with a `_tick` that returns while the screen is not current."""

    _was_hidden = False  # another screen was on top: what passed meanwhile is shown on return

    def on_screen_suspend(self) -> None:
        self._was_hidden = True

    def on_screen_resume(self) -> None:
        if self._was_hidden:
            self._was_hidden = False
            self._tick()

    def _tick(self) -> None:  # (the screen's)
        raise NotImplementedError
