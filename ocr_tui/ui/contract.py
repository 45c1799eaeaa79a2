"""What the screens, widgets and the command palette ask of the app, as Protocols. They type
`self.app` against these and never import the app module (which imports them).

`OcrTuiApp` provides all of it. Any App that provides `SessionsHost` can host the drill-down
screens (the drill-down tests use a small stub).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from pathlib import Path
from typing import Protocol, runtime_checkable

from textual.signal import Signal

from ocr_tui.core.project import Project
from ocr_tui.core.reads import LocalReader, Reader
from ocr_tui.core.view import Header, SessionView
from ocr_tui.ui.navigation import Target


class SessionsHost(Protocol):
    """The current sessions and "now": what the drill-down screens read."""

    sessions: dict[str, SessionView]  # by id
    # published on the UI thread after every update with `(changed, removed ids)`
    sessions_signal: Signal[tuple[list[SessionView], list[str]]]

    def now(self) -> datetime: ...

    # optional: `reader_of(session_id) -> Reader` (the read seam; `reader_of` below)


def reader_of(app: object, session_id: str) -> Reader:
    """Where session `session_id`'s reads run (`core.reads`): the app's `reader_of` (a remote
    project's far side, or here); an app without one reads here, in the session's project."""
    get = getattr(app, "reader_of", None)
    if get is not None:
        return get(session_id)
    project_of = getattr(app, "project_of", None)
    return LocalReader(project_of(session_id) if project_of else getattr(app, "project", None))


class Dashboard(SessionsHost, Protocol):
    """The whole app, as the session list and the command palette see it."""

    project: Project | None
    start_path: Path
    clock: Callable[[], datetime] | None  # a fixed clock (tests, screenshots), or None
    status: str  # "no-project" | "loading" | "ready" | "sessions-deleted" | "project-missing"
    headers: tuple[Header, ...]  # project-level state of some formats
    unread: int  # start-up: sessions still shown by a stand-in
    touched_signal: Signal[frozenset[str]]  # ids of sessions whose files changed

    def run_action(self, action: str, default_namespace: object = None) -> Awaitable[bool]: ...

    def run_main_action(self, action: str) -> None: ...

    def jump_to_session(self, session_id: str) -> None: ...

    def open_target(self, target: Target, how: str = "push") -> bool: ...


@runtime_checkable
class ShowsSession(Protocol):
    """A screen that shows one session's changes as they happen (the list: its highlighted
    row's, in the detail pane): the change toasts leave that session out."""

    @property
    def viewed_session_id(self) -> str | None: ...
