"""The drill-down screens' shared base: breadcrumb, back/quit keys, live session updates.

Contract with the app (see `ocr_tui/ui/app.py`): `app.sessions` (id -> SessionView),
`app.now()`, `app.sessions_signal` (published on the UI thread with `(changed, removed)`) and,
optionally, `app.fixed_clock`.

Every screen below subscribes to `sessions_signal` and refreshes its widgets in place when its
session changes. A removed session keeps its last content on screen under a "this session was
removed" note; nothing is popped automatically.
"""

from __future__ import annotations

import re
from datetime import datetime

from rich.style import Style
from textual.binding import Binding
from textual.color import Color
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from ocr_tui.core.textsafe import safe_line
from ocr_tui.core.timeutil import parse_ts
from ocr_tui.core.view import Round, SessionView
from ocr_tui.ui.widgets.breadcrumb import Breadcrumb

# A crumb target: ("sessions",), ("session", id), ("round", id, n, path) or None (not
# clickable). A round's path (`rounds/round-01`) tells it from another directory numbered n.
Target = tuple | None

ROUND_DIR = re.compile(r"^rounds/round-([0-9]+)$")
ROUND_FILE = re.compile(r"^(rounds/round-([0-9]+))/(.+)$")
RUN_FILE = re.compile(r"^(map/runs/run-([0-9]+))/(.+)$")


def removed_banner(what: str = "its last known state") -> Static:
    """The note each drill-down screen shows once its session is gone from disk."""
    return Static(
        f"This session was removed from disk: what you see is {what}.",
        id="removed",
        classes="dd-removed",
    )


class DrilldownScreen(Screen):
    """Base for SessionScreen, RoundScreen and DocumentScreen."""

    CSS_PATH = "drilldown.tcss"
    AUTO_FOCUS = None
    BINDINGS = [
        Binding("escape", "back", "Back", id="drill.back"),
        Binding("q", "app.quit", "Quit", id="drill.quit"),
    ]

    def __init__(self, session_id: str) -> None:
        super().__init__()
        self.session_id = session_id
        self.removed = False
        self._crumb_targets: list[Target] = []

    # -- the session ------------------------------------------------------------------------

    @property
    def view(self) -> SessionView | None:
        sessions = getattr(self.app, "sessions", None) or {}
        return sessions.get(self.session_id)

    def now(self) -> datetime:
        return self.app.now()

    def on_mount(self) -> None:
        self.app.sessions_signal.subscribe(self, self._on_sessions)
        theme_signal = getattr(self.app, "theme_changed_signal", None)
        if theme_signal is not None:
            theme_signal.subscribe(self, self._on_theme)
        view = self.view
        self.removed = view is None
        self.render_view(view, first=True)
        self.set_removed(self.removed)
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

    def set_crumbs(self, parts: list[tuple[str, Target]]) -> None:
        self._crumb_targets = [target for _, target in parts]
        self.query_one(Breadcrumb).set_parts(
            [(label, target is not None) for label, target in parts]
        )

    def session_crumbs(self) -> list[tuple[str, Target]]:
        return [("Sessions", ("sessions",)), (self.session_id, ("session", self.session_id))]

    @property
    def nav_key(self) -> tuple:
        raise NotImplementedError

    def action_back(self) -> None:
        if len(self.app.screen_stack) > 1:
            self.app.pop_screen()

    def action_crumb(self, index: int) -> None:
        if 0 <= index < len(self._crumb_targets) and self._crumb_targets[index] is not None:
            self.go_to(self._crumb_targets[index])

    def go_to(self, target: tuple) -> None:
        """Go back to the screen for `target` if it is in the stack, else replace this
        screen by one for it (the stack never grows here)."""
        stack = self.app.screen_stack
        for depth, screen in enumerate(reversed(stack)):
            if screen is self:
                continue
            key = getattr(screen, "nav_key", None) if isinstance(screen, DrilldownScreen) else None
            if key == target or (target == ("sessions",) and key is None):
                for _ in range(depth):
                    self.app.pop_screen()
                return
        new = make_screen(target)
        if new is not None:
            self.app.switch_screen(new)


def make_screen(target: tuple) -> Screen | None:
    from ocr_tui.ui.screens.round import RoundScreen
    from ocr_tui.ui.screens.session import SessionScreen

    if target[0] == "session":
        return SessionScreen(target[1])
    if target[0] == "round":
        return RoundScreen(target[1], target[2], target[3] if len(target) > 3 else None)
    return None


# -- formatting helpers (shared by the screens) ------------------------------------------------

VERDICT_CLASSES = {
    "approve": ("APPROVE", "APPROVED", "LGTM"),
    "request": ("REQUEST CHANGES", "CHANGES REQUESTED", "BLOCK", "REJECT"),
    "discuss": ("NEEDS DISCUSSION", "NEEDS WORK"),
}


def verdict_kind(rnd: Round | None) -> str:
    """approve | request | discuss | progress (no final.md yet) | unknown."""
    if rnd is None:
        return "unknown"
    verdict = (rnd.verdict or "").upper()
    for kind, names in VERDICT_CLASSES.items():
        if any(verdict.startswith(name) for name in names):
            return kind
    return "unknown" if rnd.complete else "progress"


VERDICT_VAR = {"approve": "success", "request": "error", "discuss": "warning"}


def theme_style(screen: Screen, variable: str, **kw: bool) -> Style:
    """A rich Style in the current theme's colour `variable` (for DataTable cells, which
    need rich Text)."""
    variables = screen.app.theme_variables
    value = variables.get(variable)
    color = None
    if value:
        try:
            parsed = Color.parse(value)
            if parsed.a < 1:  # e.g. foreground-muted: blend it over the background
                parsed = Color.parse(variables.get("background", "black")) + parsed
            color = parsed.rich_color
        except Exception:  # pragma: no cover - a theme with an odd value: no colour
            color = None
    return Style(color=color, **kw)


def fmt_time(value: str | None, day_of: str | None = None) -> str:
    """`14:02:11Z`, or `11-21 14:02Z` when not on the same UTC day as `day_of`."""
    dt = parse_ts(value)
    if dt is None:
        return ""
    ref = parse_ts(day_of)
    if ref is None or ref.date() == dt.date():
        return dt.strftime("%H:%M:%SZ")
    return dt.strftime("%m-%d %H:%MZ")


def fmt_datetime(value: str | None) -> str:
    dt = parse_ts(value)
    return dt.strftime("%Y-%m-%d %H:%M:%SZ") if dt else "—"


def note(text: str, style: str = "") -> Content:
    return Content.styled(safe_line(text), style)
