"""Every private name of Textual that ocr-tui relies on, in one place.

Textual offers no public way to do these few things (read and redraw the notifications a screen
shows, compute a screen's breakpoint classes, walk the bindings a key would reach, re-measure or
redraw a DataTable whose cells we planned ourselves, write to the terminal beside the driver).
The pinned Textual (`pyproject.toml`) has each name below; `tests/ui/test_textual_compat.py`
checks every one still exists with the shape used here, so an upgrade that moves one fails
there, by name, not in a screen. Code elsewhere calls these functions, never the names.

Private methods our subclasses override are listed in `OVERRIDDEN` for the same check:
`DataTable._update_dimensions` and `_update_column_widths` (tables that hold their widths),
`App._refresh_notifications` (the message line on small terminals).

One work-around for a leak of the pinned Textual is installed from here too (`apply_fixes`,
called once when `ocr_tui.ui.app` is imported): `StylesCache.get_inner_outer` is an
`lru_cache(1024)` on an instance method, so its key holds the `StylesCache`, and with it the
widget's last rendered lines: every widget ever drawn (a toast, its holder, a footer key, a
pane's part) stayed in memory until 1,024 newer ones pushed it out (beside the simulator at 20x,
most of the dashboard's growth: 316 StylesCache alive for ~30 widgets). Its value depends on
the two colours alone: cached by them here. `tests/ui/test_textual_fixes.py` fails when an
upgrade changes what it replaces.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from textual._segment_tools import line_crop
from textual._styles_cache import StylesCache
from textual.app import ScreenStackError
from textual.color import Color
from textual.css.query import NoMatches
from textual.drivers._writer_thread import WriterThread
from textual.style import Style
from textual.widgets._footer import FooterKey
from textual.widgets._toast import ToastHolder, ToastRack

if TYPE_CHECKING:
    from textual.app import App
    from textual.dom import DOMNode
    from textual.notifications import Notification, Notifications
    from textual.screen import Screen
    from textual.widgets import DataTable, Static

__all__ = [
    "OVERRIDDEN",
    "FooterKey",
    "ToastHolder",
    "ToastRack",
    "WriterThread",
    "breakpoint_classes",
    "apply_fixes",
    "check_action_state",
    "driver",
    "line_crop",
    "modal_binding_chain",
    "notifications",
    "parse_action",
    "refresh_notifications",
    "render_markup",
    "table_draws_anew",
    "table_forget_offsets",
    "table_measure_later",
    "table_redrawn_measured",
    "toast_id",
]

# (module, class, method): private methods a class of ours overrides
OVERRIDDEN = (
    ("textual.widgets", "DataTable", "_update_dimensions"),
    ("textual.widgets", "DataTable", "_update_column_widths"),
    ("textual.app", "App", "_refresh_notifications"),
)


# -- notifications ---------------------------------------------------------------------------


def notifications(app: App) -> Notifications:
    """The app's notifications (expired ones reaped as they are read)."""
    return app._notifications


def refresh_notifications(app: App) -> None:
    """Show the notifications as they are now (toasts, or our message line)."""
    app._refresh_notifications()


def toast_id(note: Notification) -> str:
    """The id of the ToastHolder that shows `note`."""
    return ToastRack._toast_id(note)


def retoast(app: App, old: Notification, new: Notification) -> bool:
    """Show `new` in the toast that shows `old` on screen, its time starting again: nothing
    mounted, nothing laid out unless its height changes (Textual mounts a toast anew, with its
    holder, for every notification). `new` takes `old`'s identity (the holder's id), so the
    caller puts `new` in the collection in `old`'s place. False, and nothing done, when `old`
    has no toast mounted (not shown yet, or shown in our message line) or another severity."""
    from textual.widgets._toast import Toast

    if new.severity != old.severity:
        return False
    try:
        holder = app.screen.get_child_by_type(ToastRack).get_child_by_id(toast_id(old))
        toast = holder.query_one(Toast)
    except (NoMatches, ScreenStackError):
        return False
    if not toast.is_mounted or toast._notification is not old:
        return False
    before = toast.render().get_height(toast.styles, toast.content_size.width or 1)
    new.identity = old.identity
    toast._notification = new
    toast._timeout = new.time_left
    for timer in list(toast._timers):  # (Toast sets one, to expire, when mounted)
        timer.stop()
    toast.set_timer(new.time_left, toast._expire)
    after = toast.render().get_height(toast.styles, toast.content_size.width or 1)
    toast.refresh(layout=after != before)
    return True


# -- screens and bindings --------------------------------------------------------------------


def breakpoint_classes(screen: Screen, dimension: int, breakpoints: list[tuple[int, str]]):
    """The classes `screen`'s breakpoints give at `dimension` cells."""
    return screen._get_breakpoint_classes(dimension, breakpoints)


def modal_binding_chain(screen: Screen) -> Iterable[tuple[DOMNode, Any]]:
    """(node, its bindings) from the focused widget up to the screen, as a key travels."""
    return screen._modal_binding_chain


def check_action_state(app: App, action: str, node: DOMNode) -> bool | None:
    """Whether `action` is enabled (True), dimmed (None) or hidden (False) at `node`."""
    return app._check_action_state(action, node)


def parse_action(app: App, action: str, node: DOMNode) -> tuple[DOMNode, str, tuple]:
    """(the node that runs it, the action's name, its parameters)."""
    return app._parse_action(action, node)


def driver(app: App) -> Any:
    """The app's driver (None when headless), to write an escape sequence beside it."""
    return app._driver


def render_markup(static: Static) -> bool:
    """Whether `static` renders its text as markup."""
    return static._render_markup


# -- DataTable: the tables that plan their own columns ---------------------------------------


def table_draws_anew(table: DataTable) -> None:
    """Nothing drawn before is reused: every cached row's key includes this count."""
    table._update_count += 1


def table_redrawn_measured(table: DataTable) -> None:
    """Forget every line drawn, measure the columns again now, and draw anew."""
    table._clear_caches()
    table._update_dimensions([])
    table._update_count += 1


def table_measure_later(table: DataTable) -> None:
    """Forget every line drawn and measure the columns again before the next draw."""
    table._require_update_dimensions = True
    table._clear_caches()
    table._update_count += 1


def table_forget_offsets(table: DataTable) -> None:
    """Forget the rows' offsets (a row's height changed)."""
    table._offset_cache.clear()


# -- the fix of a leak (see the module docstring) -----------------------------------------------


@lru_cache(1024)
def _inner_outer(base_background: Color, background: Color) -> tuple[Style, Style]:
    """What `StylesCache.get_inner_outer` returns, by its colours alone."""
    return (
        Style(background=base_background + background),
        Style(background=base_background),
    )


def _get_inner_outer(self: StylesCache, base_background: Color, background: Color):
    return _inner_outer(base_background, background)


def apply_fixes() -> None:
    """Install the fixes (once; again is harmless)."""
    StylesCache.get_inner_outer = _get_inner_outer  # type: ignore[method-assign]
