"""Work-arounds for the pinned Textual's own leaks (Textual is pinned exactly: each fix here is
checked against its code by tests/ui/test_textual_fixes.py, which fails when an upgrade
changes what it replaces). Applied once, when `ocr_tui.ui.app` is imported.

- `StylesCache.get_inner_outer` is an `lru_cache(1024)` on an instance method, so its key holds
  the `StylesCache`, and with it the widget's last rendered lines (its strips and theirs): every
  widget ever drawn (a toast, its holder, a footer key, a pane's part) stayed in memory until
  1,024 newer ones pushed it out. Beside the simulator at 20x (a change toast a second or
  more) that was most of the dashboard's growth: 316 StylesCache alive for ~30 widgets. Its value
  depends on the two colours alone: cached by them here.
"""

from __future__ import annotations

from functools import lru_cache

from textual._styles_cache import StylesCache
from textual.color import Color
from textual.style import Style


@lru_cache(1024)
def _inner_outer(base_background: Color, background: Color) -> tuple[Style, Style]:
    """What `StylesCache.get_inner_outer` returns, by its colours alone."""
    return (
        Style(background=base_background + background),
        Style(background=base_background),
    )


def _get_inner_outer(self: StylesCache, base_background: Color, background: Color):
    return _inner_outer(base_background, background)


def apply() -> None:
    """Install the fixes (once; again is harmless)."""
    StylesCache.get_inner_outer = _get_inner_outer  # type: ignore[method-assign]
