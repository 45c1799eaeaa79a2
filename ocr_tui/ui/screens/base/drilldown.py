"""The drill-down screens' shared base: breadcrumb, back/quit keys, live session updates.

Contract with the app (`ocr_tui.ui.contract.SessionsHost`): `app.sessions` (id ->
SessionView), `app.now()`, `app.sessions_signal` (published on the UI thread with
`(changed, removed)`) and, optionally, `app.fixed_clock`, `app.touched_signal`.

Every screen below subscribes to `sessions_signal` and refreshes its widgets in place when its
session changes. A removed session keeps its last content on screen under a "this session was
removed" note; nothing is popped automatically.

Navigation: a screen says which place it shows (`target`) and posts `Open(target)` to go to
another; it never imports another screen. The app routes `Open`; in an app that does not (any
App with the contract above can host these screens), the screen hands it to the router itself.

Back (Esc) returns to the screen below, where the user came from. Once `[`/`]` moved this
screen sideways (round 1's principal-1.md became round 2's), the screen below is no longer its
parent: Back then follows the breadcrumb, to the last crumb before this place that has one.

Keys that do not apply are hidden (`check_action` returns False) and, pressed anyway, say why
(`explain_disabled`, asked by the app): `[`/`]` on a document of no round or map run.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from textual import on
from textual.binding import Binding
from textual.screen import Screen

from ocr_tui.core.view import SessionView
from ocr_tui.ui import router
from ocr_tui.ui.latest import subscribe_latest
from ocr_tui.ui.navigation import (
    DocumentTarget,
    Navigator,
    Open,
    ReviewsTarget,
    SessionListTarget,
    SessionTarget,
    Target,
    steps_between_rounds,
)
from ocr_tui.ui.widgets.breadcrumb import Breadcrumb

# A crumb: its label, and the place it goes back to (None: not clickable).
Crumb = tuple[str, Target | None]


class DrilldownScreen(Screen):
    """Base for SessionScreen, RoundScreen and DocumentScreen."""

    CSS_PATH = Path(__file__).with_name("drilldown.tcss")
    AUTO_FOCUS = None
    BINDINGS = [
        Binding(
            "escape",
            "back",
            "Back",
            id="drill.back",
            tooltip="Back where you came from; after [ or ], up the breadcrumb",
        ),
        Binding("q", "app.quit", "Quit", id="drill.quit"),
    ]

    def __init__(self, session_id: str) -> None:
        super().__init__()
        self.session_id = session_id
        self.removed = False
        self._crumb_targets: list[Target | None] = []
        self._opened_on: Target | None = None  # the place shown when the screen opened

    # -- the session ------------------------------------------------------------------------

    @property
    def viewed_session_id(self) -> str:
        """This screen shows its session's changes: they raise no toast (`ShowsSession`)."""
        return self.session_id

    @property
    def view(self) -> SessionView | None:
        sessions = getattr(self.app, "sessions", None) or {}
        return sessions.get(self.session_id)

    def now(self) -> datetime:
        return self.app.now()

    def on_mount(self) -> None:
        subscribe_latest(self.app.sessions_signal, self, self._on_sessions)  # (merged)
        theme_signal = getattr(self.app, "theme_changed_signal", None)
        if theme_signal is not None:
            theme_signal.subscribe(self, self._on_theme)
        view = self.view
        self.removed = view is None
        self.render_view(view, first=True)
        self.set_removed(self.removed)
        self._opened_on = self.target
        self.after_mount()

    def after_mount(self) -> None:
        """Called at the end of on_mount (subclasses: focus, timers)."""

    def _on_sessions(self, payload: tuple[list[SessionView], list[str]]) -> None:
        changed, removed = payload
        if self.session_id in removed:
            self.removed = True
            self.set_removed(True)
            return
        for view in changed:
            if view.id == self.session_id:
                was_removed, self.removed = self.removed, False
                self.render_view(view, first=False)
                if was_removed:
                    self.set_removed(False)
                return

    def _on_theme(self, _theme: object) -> None:
        view = self.view
        if view is not None:
            self.render_view(view, first=False)

    def render_view(self, view: SessionView | None, *, first: bool) -> None:
        """Show `view` (None: the session is not known). Subclasses implement."""
        raise NotImplementedError

    def set_removed(self, removed: bool) -> None:
        """Show or hide the removed note (`#removed` in the subclass' compose)."""
        self.set_class(removed, "-removed")
        for note in self.query("#removed"):
            note.display = removed

    # -- navigation -------------------------------------------------------------------------

    @property
    def target(self) -> Target:
        """The place this screen shows (the router finds it in the stack by this)."""
        raise NotImplementedError

    def show_target(self, target: Target) -> bool:
        """Show `target` in place, if this screen can (see `navigation.How`, "step")."""
        return False

    def set_crumbs(self, parts: list[Crumb]) -> None:
        self._crumb_targets = [target for _, target in parts]
        self.query_one(Breadcrumb).set_parts(
            [(label, target is not None) for label, target in parts]
        )

    def session_crumbs(self) -> list[Crumb]:
        return [
            ("Sessions", SessionListTarget()),
            (self.session_id, SessionTarget(self.session_id)),
        ]

    def parent_target(self) -> Target | None:
        """The breadcrumb's parent: the last crumb before this place that leads somewhere."""
        return next((t for t in reversed(self._crumb_targets[:-1]) if t is not None), None)

    @property
    def moved(self) -> bool:
        """Did this screen move sideways (`[`/`]`) since it opened?"""
        return self._opened_on is not None and self.target != self._opened_on

    def action_back(self) -> None:
        parent = self.parent_target() if self.moved else None
        if parent is not None:
            index = self._crumb_targets.index(parent)
            self.post_message(Open(parent, how="back", via=self._crumbs_before(index)))
        elif len(self.app.screen_stack) > 1:
            self.app.pop_screen()

    # -- keys that do not apply -------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "step":
            return self.steps()
        if action == "reviews":  # a session with review rounds: the Reviews view lists them
            view = self.view
            return view is not None and bool(view.rounds)
        return True

    def action_reviews(self) -> None:
        """`r`: the Reviews view, its cursor on this session's latest round."""
        self.post_message(Open(ReviewsTarget(session_id=self.session_id)))

    def steps(self) -> bool:
        """Do `[`/`]` lead anywhere from this place? Not from a document that belongs to no
        round or map run (a session's own file, another format's)."""
        target = self.target
        return not isinstance(target, DocumentTarget) or steps_between_rounds(target.path)

    def explain_disabled(self, action: str, parameters: tuple[object, ...]) -> str | None:
        """Why a key hidden by `check_action` does nothing (the app shows it when pressed)."""
        if action == "step" and not self.steps():
            return "This document belongs to no round or map run: [ and ] have nowhere to go."
        if action == "reviews":
            return "This session has no review round: r opens the Reviews view at its latest."
        return None

    def action_crumb(self, index: int) -> None:
        if 0 <= index < len(self._crumb_targets):
            target = self._crumb_targets[index]
            if target is not None:
                self.post_message(Open(target, how="back", via=self._crumbs_before(index)))

    def _crumbs_before(self, index: int) -> tuple[Target, ...]:
        return tuple(t for t in self._crumb_targets[:index] if t is not None)

    @on(Open)
    def _open_without_an_app_router(self, message: Open) -> None:
        if not isinstance(self.app, Navigator):  # the app would route it: let it bubble there
            message.stop()
            router.navigate(self.app, message.target, message.how, message.via)
