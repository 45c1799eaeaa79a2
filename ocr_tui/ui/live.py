"""The live data behind the dashboard: the watcher, the messages it posts applied to the
app's state, the change toasts. `OcrTuiApp` (`ocr_tui.ui.app`) builds on it with its
screens, keys, navigation and the demo.

What the screens read (`ocr_tui.ui.contract`):
- `app.sessions: dict[str, SessionView]`: the current views, by id;
- `app.project: Project | None` (with several projects, `app.scope`: where they all are);
- `app.project_of(session_id) -> Project | None`: the session's own project;
- `app.now() -> datetime`: "now", from the fixed clock when one was given;
- `app.sessions_signal`: published on the UI thread after every update with
  `(changed: list[SessionView], removed: list[str])`;
- `app.touched_signal`: ids of sessions whose files changed, even when their views did not.

Changes raise toasts (`ocr_tui.ui.toasts`) and, with `notify="bell"` or `"desktop"`, the bell
or a desktop notification (`ocr_tui.ui.notify`), by the same rules: nothing for the session on
screen. Both on the UI thread, where the watcher's messages are applied.

Threading: the watcher is one async worker over `ocr_tui.core.watch.watch_project` (which does
its file IO in threads); it only posts messages (`ocr_tui.ui.messages`), and the `@on` handlers
here mutate state.

Without a project, a slow poll (`look_for_project`: `find_project` in a thread, every
PROJECT_POLL_S) waits for one to appear where it was looked for, and switches to it.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ScreenStackError
from textual.reactive import var
from textual.signal import Signal
from textual.worker import Worker, WorkerState

from ocr_tui.core.early_read import Early
from ocr_tui.core.project import Project
from ocr_tui.core.registry import source_classes
from ocr_tui.core.scope import Scope
from ocr_tui.core.view import Header, SessionView
from ocr_tui.ui import notify as notifier
from ocr_tui.ui.contract import ShowsSession
from ocr_tui.ui.fmt import display_path
from ocr_tui.ui.live_changes import LiveChanges, reading
from ocr_tui.ui.live_projects import EarlyStart, ProjectFound, ProjectSwitch, kept
from ocr_tui.ui.live_remote import RemoteProjects
from ocr_tui.ui.message_board import MessageBoard
from ocr_tui.ui.messages import (
    HeadersChanged,
    ProjectMissing,
    SessionsChanged,
    SessionsScanned,
    WatchPolling,
)
from ocr_tui.ui.notify import MODES
from ocr_tui.ui.toasts import ChangeToasts

if TYPE_CHECKING:  # (the engine is imported when the watcher starts: after the first frame)
    from ocr_tui.core.engine import Engine
    from ocr_tui.core.workspace import Workspace


class LiveApp(EarlyStart, ProjectSwitch, RemoteProjects, LiveChanges, MessageBoard):
    """The sessions of one project (or of the demo), kept current by a watcher worker."""

    PROJECT_POLL_S = 1.0  # without a project: how often to look for one

    # "no-project" | "loading" | "ready" | "sessions-deleted" | "project-missing"
    status: var[str] = var("loading")
    polling: var[bool] = var(False)
    headers: var[tuple[Header, ...]] = var(())  # project-level state of some formats

    def __init__(
        self,
        project: Project | None,
        *,
        start_path: Path | None = None,
        poll: bool = False,
        bell: bool = False,
        notify: str = "off",
        stall_after: float = 1800,
        clock: Callable[[], datetime] | None = None,
        scope: Scope | None = None,
        early: Early | None = None,
    ) -> None:
        """Nothing is watched until `start_watching`. `start_path`: where the project was
        looked for; `poll`: poll instead of native file watching; `notify`: on changes,
        "off", "bell" (the terminal's bell) or "desktop" (a desktop notification through the
        terminal, `ocr_tui.ui.notify`); `bell`: the same as `notify="bell"`;
        `stall_after`: seconds without activity after which a running session is stalled;
        `clock`: a fixed clock (tests, screenshots); `scope`: several projects (`ocr-tui PATH
        PATH…`, `--scan DIR`), `project` then being where they all are; `early`: the
        project's sessions as read while the app was imported (`core.early_read`), shown
        by the first frame, until the watcher's own read replaces them."""
        if notify not in MODES:
            raise ValueError(f"notify must be one of {', '.join(MODES)}, not {notify!r}")
        super().__init__()
        # Several projects: what to watch (one: None, and `project` is it).
        self.scope = scope if scope is not None and scope.several else None
        if self.scope is not None:
            project = Project(self.scope.root)
        self.project = project
        self.start_path = Path(start_path) if start_path is not None else Path.cwd()
        self.clock = clock
        self.sessions: dict[str, SessionView] = {}
        # several projects: those whose sessions were shown (a project found later is one
        # notice, not a new session each: `_projects_found`)
        self._projects_seen: set[str] = set()
        self.sessions_signal: Signal[tuple[list[SessionView], list[str]]] = Signal(self, "sessions")
        # ids of sessions whose files changed (even when their views did not): open documents
        self.touched_signal: Signal[frozenset[str]] = Signal(self, "touched")
        self.engine: Engine | Workspace | None = None
        self.init_remotes()
        self._poll = poll
        self._stall_after = stall_after
        self._stop: asyncio.Event | None = None
        self._seen_sessions_dir = False
        self._toasts = ChangeToasts(self, in_view=self.viewed_session)
        # Not `self.notify`: that is Textual's toast call.
        self.notify_mode = "bell" if bell and notify == "off" else notify
        # "desktop": the escape this terminal understands ("bell" when it is not known, or
        # when tmux would drop it)
        self._notify_protocol = "bell"
        if notify == "desktop":
            self._notify_protocol = notifier.desktop_protocol(os.environ)
        self._notify_tmux = notifier.in_tmux(os.environ)
        self.unread = 0  # start-up: sessions still shown by a stand-in (not read yet)
        self.set_reactive(LiveApp.status, "no-project" if project is None else "loading")
        if early is not None and project is not None and early.project_root == project.root:
            self.take_early(early)
        if project is None:
            # The formats and their markers, for the "no project" state: loaded once (and
            # cached) here, before the app runs, not on the UI thread. The CLI's
            # `find_project` has usually loaded them already.
            source_classes()

    def now(self) -> datetime:
        return self.clock() if self.clock is not None else datetime.now(UTC)

    def viewed_session(self) -> str | None:
        """The session the screen on top shows as it changes (`ShowsSession`), if any."""
        try:
            screen = self.screen
        except ScreenStackError:
            return None
        return screen.viewed_session_id if isinstance(screen, ShowsSession) else None

    @property
    def fixed_clock(self) -> bool:
        """True when a fixed clock was given: screens then start no ticking timers."""
        return self.clock is not None

    # -- lifecycle ----------------------------------------------------------------------

    def on_unmount(self) -> None:
        if self._stop is not None:
            self._stop.set()
        self.stop_remotes()  # no ssh process is left behind
        self.workers.cancel_group(self, "project-lookup")

    def start_watching(self) -> None:
        """Watch `project` (a new watcher replaces the one running, if any)."""
        assert self.project is not None
        if self._stop is not None:
            self._stop.set()
        self._stop = asyncio.Event()
        if self.engine is not None:
            self.engine.close()  # its first scan's worker processes, if any
            self.engine = None
        scope = self.scope or Scope((self.project,))
        self.start_remotes()
        if not scope.local:  # remote projects only: nothing to watch here
            self.status = "ready"
            return
        from ocr_tui.core.workspace import make_engine

        self.engine = make_engine(scope, stall_after=self._stall_after, clock=self.now)
        self._watch(self.engine, self._stop)

    @work(exclusive=True, group="watcher", exit_on_error=False, description="watch the sessions")
    async def _watch(self, engine: Engine | Workspace, stop: asyncio.Event) -> None:
        from ocr_tui.core.watch import Changed, PollingFallback, Scanned, watch_project
        from ocr_tui.core.watch import ProjectMissing as Missing
        from ocr_tui.core.workspace import Workspace

        project = engine.project
        headers: tuple[Header, ...] = ()
        async for event in watch_project(engine, stop=stop, poll=self._poll, progressive=True):
            now = engine.headers  # (a workspace builds it anew each time: once)
            now_headers = tuple(now[k] for k in sorted(now))
            if now_headers != headers:
                headers = now_headers
                self.post_message(HeadersChanged(project, headers))
            if isinstance(event, Scanned):
                self.post_message(SessionsScanned(project, event.sessions, event.sessions_dir))
                cut = engine.truncation() if isinstance(engine, Workspace) else None
                if cut:
                    self.notice(cut, title="Projects", severity="warning")
            elif isinstance(event, Changed):
                self.post_message(
                    SessionsChanged(
                        project, event.sessions, event.removed, event.sessions_dir, event.touched
                    )
                )
            elif isinstance(event, Missing):
                self.post_message(ProjectMissing(project))
            elif isinstance(event, PollingFallback):
                self.post_message(WatchPolling(project, event.reason))

    @on(Worker.StateChanged)
    def _watcher_failed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.group == "watcher":
            self.notice(
                f"Watching stopped: {event.worker.error}. The list is no longer updated; "
                "restart ocr-tui.",
                title="File watching failed",
                severity="error",
                timeout=30,
            )

    # -- applying watcher messages ------------------------------------------------------

    def _current(self, project: Project) -> bool:
        return project == self.project

    @on(SessionsScanned)
    def _scanned(self, message: SessionsScanned) -> None:
        if not self._current(message.project):
            return
        remote = self.remote_views()  # (the remote projects' are their feeds')
        removed = sorted(set(self.sessions) - {v.id for v in message.sessions} - set(remote))
        views = list(message.sessions)
        if self._early:  # a stand-in does not replace a session read early (it is read again)
            self._early, early = False, self.sessions
            views = [kept(early.get(v.id), v) for v in views]
        self.sessions = {**{v.id: v for v in views}, **remote}
        self._projects_seen = {v.project for v in message.sessions if v.project} | {
            v.project for v in remote.values() if v.project
        }
        # (the remote projects' stand-ins kept too: a far side's read of each takes one off)
        self.unread = sum(1 for v in self.sessions.values() if reading(v))
        self._set_dir_status(message.sessions_dir)
        self.sessions_signal.publish((views, removed))

    @on(SessionsChanged)
    def _changed(self, message: SessionsChanged) -> None:
        if not self._current(message.project):
            return
        self.apply_changes(list(message.changed), list(message.removed), message.touched,
                           sessions_dir=message.sessions_dir)  # fmt: skip

    @on(HeadersChanged)
    def _headers_changed(self, message: HeadersChanged) -> None:
        if self._current(message.project):
            self.headers = message.headers

    @on(ProjectMissing)
    def _project_missing(self, message: ProjectMissing) -> None:
        if not self._current(message.project):
            return
        remote = self.remote_views()  # (a remote project is not this one)
        removed = sorted(set(self.sessions) - set(remote))
        self.sessions = remote
        self.status = "project-missing"
        self.sessions_signal.publish(([], removed))

    @on(WatchPolling)
    def _polling(self, message: WatchPolling) -> None:
        if not self._current(message.project):
            return
        self.polling = True
        self.notice(message.reason, title="Polling for changes", severity="warning")

    # -- no project: wait for one -------------------------------------------------------

    @on(ProjectFound)
    def _project_found(self, message: ProjectFound) -> None:
        if self.project is not None or not self.accepts_found_project():
            return
        self.switch_project(message.project)
        self.notice(f"Found a project in {display_path(message.project.root)}", title="Watching")

    def _set_dir_status(self, sessions_dir: bool) -> None:
        if sessions_dir:
            self._seen_sessions_dir = True
            self.status = "ready"
        else:
            self.status = "sessions-deleted" if self._seen_sessions_dir else "ready"
