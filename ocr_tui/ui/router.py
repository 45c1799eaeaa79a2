"""The router: which screen shows a navigation target, and how it is opened.

Screens post `Open(target)` (`ocr_tui.ui.navigation`); the app handles it with `@on(Open)` and
calls `navigate` here, which pushes the screen for the target, goes back to one already in the
stack, or lets the screen below show it in place (see `navigation.How`).

The table: each screen class declares the targets it shows with `@route(...)` and builds
itself from one (`for_target`):

    SessionTarget                  -> SessionScreen
    RoundTarget                    -> RoundScreen
    FindingsTarget                 -> FindingsScreen
    DocumentTarget, ReviewerTarget -> DocumentScreen
    MapRunTarget                   -> MapRunScreen
    ReviewsTarget                  -> ReviewsScreen
    EventsTarget                   -> EventsScreen
    SessionListTarget              -> the bottom of the stack (the session list)

No screen module is imported before it is needed: each registers itself with `route` when
it is imported, and `screen_for` imports the one that shows a kind of target (`SCREEN_MODULES`)
the first time such a target is opened, so start-up loads the session list alone (the document
viewer brings Markdown, the findings screens the findings model). A screen in the stack says
what it shows through its `target` property; one without (the list) stands for the session
list.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Protocol, TypeVar

from textual.app import App
from textual.screen import Screen

from ocr_tui.ui.navigation import (
    DiscourseTarget,
    DocumentTarget,
    EventsTarget,
    FindingsTarget,
    FindingTarget,
    How,
    MapRunTarget,
    ReviewerTarget,
    ReviewsTarget,
    RoundTarget,
    SessionListTarget,
    SessionTarget,
    Target,
)


class Routable(Protocol):
    @classmethod
    def for_target(cls, target: Target) -> Screen: ...


R = TypeVar("R", bound=type[Routable])

_SCREENS: dict[type[Target], type[Routable]] = {}

# The module of the screen that shows each kind of target, imported when one is first opened.
SCREEN_MODULES: dict[type[Target], str] = {
    SessionTarget: "ocr_tui.ui.screens.session.screen",
    RoundTarget: "ocr_tui.ui.screens.ocr.round.screen",
    FindingsTarget: "ocr_tui.ui.screens.ocr.findings.screen",
    FindingTarget: "ocr_tui.ui.screens.ocr.finding.screen",
    DiscourseTarget: "ocr_tui.ui.screens.ocr.discourse.screen",
    DocumentTarget: "ocr_tui.ui.screens.document.screen",
    ReviewerTarget: "ocr_tui.ui.screens.document.screen",
    MapRunTarget: "ocr_tui.ui.screens.ocr.map_run.screen",
    ReviewsTarget: "ocr_tui.ui.screens.ocr.reviews.screen",
    EventsTarget: "ocr_tui.ui.screens.events.screen",
}


def route(*kinds: type[Target]) -> Callable[[R], R]:
    """Class decorator: the screen shows targets of these types."""

    def register(cls: R) -> R:
        for kind in kinds:
            _SCREENS[kind] = cls
        return cls

    return register


def screen_class(kind: type[Target]) -> type[Routable] | None:
    """The screen class that shows targets of type `kind` (its module imported now if it was
    not yet), or None if no screen shows them."""
    cls = _SCREENS.get(kind)
    if cls is None and kind in SCREEN_MODULES:
        importlib.import_module(SCREEN_MODULES[kind])  # it registers itself with `route`
        cls = _SCREENS.get(kind)
    return cls


def screen_for(target: Target) -> Screen | None:
    """A new screen showing `target`, or None if no screen shows targets of its type."""
    cls = screen_class(type(target))
    return cls.for_target(target) if cls is not None else None


def navigate(app: App, target: Target, how: How = "push", via: tuple[Target, ...] = ()) -> bool:
    """Show `target` (see `navigation.How`). False if nothing could show it."""
    if how == "back" or isinstance(target, SessionListTarget):
        if _back_to(app, target) or _shown_below(app, target) or _back_via(app, target, via):
            return True
    elif how == "step":
        if _shown_below(app, target):
            return True
    screen = screen_for(target)
    if screen is None:
        return False
    if how == "push":
        app.push_screen(screen)
    else:
        app.switch_screen(screen)
    return True


def _shown_below(app: App, target: Target) -> bool:
    """The screen right below the current one shows `target` in place, if it can (a round
    screen shows another round of its session): the current screen is popped back to it."""
    below = app.screen_stack[-2] if len(app.screen_stack) > 1 else None
    show = getattr(below, "show_target", None)
    if show is not None and show(target):
        app.pop_screen()
        return True
    return False


def _back_via(app: App, target: Target, via: tuple[Target, ...]) -> bool:
    """Back to the nearest of the breadcrumb's places before `target` that the stack shows,
    then the places after it opened on it, `target` last: the stack then holds the breadcrumb,
    and Back keeps following it."""
    for i in range(len(via) - 1, -1, -1):
        screens = [screen_for(t) for t in (*via[i + 1 :], target)]
        if None in screens or not _back_to(app, via[i]):
            continue
        for screen in screens:
            app.push_screen(screen)
        return True
    return False


def _back_to(app: App, target: Target) -> bool:
    """Pop back to the nearest screen below the current one that shows `target`."""
    stack = app.screen_stack
    for depth, screen in enumerate(reversed(stack)):
        if depth == 0:
            continue  # the current screen
        shown = getattr(screen, "target", None)
        if shown == target or (isinstance(target, SessionListTarget) and shown is None):
            for _ in range(depth):
                app.pop_screen()
            return True
    return False
