"""The dashboard app: owns the watcher, the current session views and the toasts.

Contract the screens rely on:
- `app.sessions: dict[str, SessionView]`: the current views, by id;
- `app.project: Project | None`;
- `app.now() -> datetime`: "now", from the fixed clock when one was given;
- `app.sessions_signal`: published on the UI thread after every update with
  `(changed: list[SessionView], removed: list[str])`;
- `app.open_session(id)` / `app.open_document(id, rel_path)`: push the drill-down screens.

Threading: the watcher is one async worker over `ocr_tui.core.watch.watch_project` (which does its
file IO in threads); it only posts messages, and the `@on` handlers here mutate state.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from textual import on, work
from textual.app import App
from textual.binding import Binding
from textual.reactive import var
from textual.signal import Signal
from textual.worker import Worker, WorkerState

from ocr_tui.core.engine import Engine, utcnow
from ocr_tui.core.project import Project
from ocr_tui.core.view import Header, SessionView
from ocr_tui.ui import fmt
from ocr_tui.ui.commands import SessionCommands
from ocr_tui.ui.messages import (
    DemoRun,
    DemoStarted,
    HeadersChanged,
    ProjectMissing,
    SessionsChanged,
    SessionsScanned,
    WatchPolling,
)
from ocr_tui.ui.screens.main import MainScreen

MAX_NEW_SESSION_TOASTS = 3
MAX_TOASTS = 4  # change toasts on screen at once
TOAST_SECONDS = 5.0


class OcrTuiApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "ocr-tui"
    COMMANDS = App.COMMANDS | {SessionCommands}
    BINDINGS = [
        Binding("q", "quit", "Quit", tooltip="Quit ocr-tui"),
        Binding("question_mark", "help", "Help", tooltip="Keys and legend"),
        Binding("d", "demo", "Demo", tooltip="Start a live demo in a temporary project"),
    ]

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
        stall_after: float = 1800,
        clock: Callable[[], datetime] | None = None,
        demo: bool = False,
        demo_factory: Callable[[], DemoRun] | None = None,
    ) -> None:
        """`demo_factory` starts a live demo project (blocking: it runs in a thread); the
        app is built with one by `ocr_tui.cli.make_app`. Without it, `d` says so."""
        super().__init__()
        self.project = project
        self.start_path = Path(start_path) if start_path is not None else Path.cwd()
        self.clock = clock
        self.sessions: dict[str, SessionView] = {}
        self.sessions_signal: Signal[tuple[list[SessionView], list[str]]] = Signal(self, "sessions")
        # ids of sessions whose files changed (even when their views did not): open documents
        self.touched_signal: Signal[frozenset[str]] = Signal(self, "touched")
        self.engine: Engine | None = None
        self.demo: DemoRun | None = None  # while the demo plays
        self._demo_factory = demo_factory
        self._poll = poll
        self._bell = bell
        self._stall_after = stall_after
        self._start_demo_on_mount = demo
        self._stop: asyncio.Event | None = None
        self._seen_sessions_dir = False
        self._shutting_down = threading.Event()  # set on unmount
        self._demo_starting = False
        self._toasts: list[float] = []  # when the change toasts on screen were shown
        self.unread = 0  # start-up: sessions still shown by a stand-in (not read yet)
        self.set_reactive(OcrTuiApp.status, "no-project" if project is None else "loading")

    def get_default_screen(self) -> MainScreen:
        self.main_screen = MainScreen()
        return self.main_screen

    def now(self) -> datetime:
        return self.clock() if self.clock is not None else utcnow()

    @property
    def fixed_clock(self) -> bool:
        """True when a fixed clock was given: screens then start no ticking timers."""
        return self.clock is not None

    # -- lifecycle ----------------------------------------------------------------------

    def on_mount(self) -> None:
        self._update_sub_title()
        if self._start_demo_on_mount:
            self.action_demo()
        elif self.project is not None:
            self._start_watching()

    def on_unmount(self) -> None:
        self._shutting_down.set()
        if self._stop is not None:
            self._stop.set()
        if self.demo is not None:
            # Joining the player and removing its directory is IO: not on the UI thread. A
            # non-daemon thread still finishes before the process exits.
            threading.Thread(target=self.demo.stop, name="ocr-tui-demo-stop").start()
            self.demo = None

    def _start_watching(self) -> None:
        assert self.project is not None
        if self._stop is not None:
            self._stop.set()
        self._stop = asyncio.Event()
        self.engine = Engine(self.project, stall_after=self._stall_after, clock=self.now)
        self._watch(self.engine, self._stop)

    @work(exclusive=True, group="watcher", exit_on_error=False, description="watch the sessions")
    async def _watch(self, engine: Engine, stop: asyncio.Event) -> None:
        from ocr_tui.core.watch import Changed, PollingFallback, Scanned, watch_project
        from ocr_tui.core.watch import ProjectMissing as Missing

        project = engine.project
        headers: tuple[Header, ...] = ()
        async for event in watch_project(engine, stop=stop, poll=self._poll, progressive=True):
            now_headers = tuple(engine.headers[k] for k in sorted(engine.headers))
            if now_headers != headers:
                headers = now_headers
                self.post_message(HeadersChanged(project, headers))
            if isinstance(event, Scanned):
                self.post_message(SessionsScanned(project, event.sessions, event.sessions_dir))
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

    @work(exclusive=True, group="demo", exit_on_error=False, description="start the demo")
    async def _start_demo(self) -> None:
        start_demo = self._demo_factory
        if start_demo is None:
            self._demo_starting = False
            self.notify("No demo in this build of the app", severity="warning")
            return

        def start():  # in a thread: it writes the demo's history to disk
            demo = start_demo()
            if self._shutting_down.is_set():  # the app quit meanwhile: clean up at once
                demo.stop()
                return None
            return demo

        demo = await asyncio.to_thread(start)
        if demo is not None:
            self.post_message(DemoStarted(demo))

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        if event.state != WorkerState.ERROR:
            return
        error = event.worker.error
        if event.worker.group == "demo":
            self._demo_starting = False
            self.notify(f"Could not start the demo: {error}", severity="error", markup=False)
        elif event.worker.group == "watcher":
            self.notify(
                f"Watching stopped: {error}. The list is no longer updated; restart ocr-tui.",
                title="File watching failed",
                severity="error",
                timeout=30,
                markup=False,
            )

    # -- applying watcher messages ------------------------------------------------------

    def _current(self, project: Project) -> bool:
        return project == self.project

    @on(SessionsScanned)
    def _scanned(self, message: SessionsScanned) -> None:
        if not self._current(message.project):
            return
        removed = sorted(set(self.sessions) - {v.id for v in message.sessions})
        self.sessions = {v.id: v for v in message.sessions}
        self.unread = sum(1 for v in message.sessions if v.source == "loading")
        self._set_dir_status(message.sessions_dir)
        self.sessions_signal.publish((list(message.sessions), removed))

    @on(SessionsChanged)
    def _changed(self, message: SessionsChanged) -> None:
        if not self._current(message.project):
            return
        events = [e for v in message.changed for e in self._transitions(v)]
        for view in message.changed:
            old = self.sessions.get(view.id)
            if old is not None and old.source == "loading" and view.source != "loading":
                self.unread -= 1
            self.sessions[view.id] = view
        for sid in message.removed:
            gone = self.sessions.pop(sid, None)
            if gone is not None and gone.source == "loading":
                self.unread -= 1
        self._set_dir_status(message.sessions_dir)
        self.sessions_signal.publish((list(message.changed), list(message.removed)))
        if message.touched:
            self.touched_signal.publish(message.touched)
        self._announce(events)

    @on(HeadersChanged)
    def _headers_changed(self, message: HeadersChanged) -> None:
        if self._current(message.project):
            self.headers = message.headers

    @on(ProjectMissing)
    def _project_missing(self, message: ProjectMissing) -> None:
        if not self._current(message.project):
            return
        removed = sorted(self.sessions)
        self.sessions = {}
        self.status = "project-missing"
        self.sessions_signal.publish(([], removed))

    @on(WatchPolling)
    def _polling(self, message: WatchPolling) -> None:
        if not self._current(message.project):
            return
        self.polling = True
        self.notify(message.reason, title="Polling for changes", severity="warning", markup=False)

    @on(DemoStarted)
    def _demo_started(self, message: DemoStarted) -> None:
        self._demo_starting = False
        self.demo = message.demo
        removed = sorted(self.sessions)
        self.sessions = {}
        self.headers = ()
        self.project = Project(message.demo.root)
        self.polling = False
        self._seen_sessions_dir = False
        self.status = "loading"
        self._update_sub_title()
        self.sessions_signal.publish(([], removed))
        self._start_watching()
        self.notify(
            f"Playing a simulated review in {fmt.display_path(message.demo.root)}",
            title="Live demo",
            markup=False,
        )

    def _set_dir_status(self, sessions_dir: bool) -> None:
        if sessions_dir:
            self._seen_sessions_dir = True
            self.status = "ready"
        else:
            self.status = "sessions-deleted" if self._seen_sessions_dir else "ready"

    def _transitions(self, view: SessionView) -> list[tuple[str, str]]:
        """(kind, text) for what a changed view means to a person watching."""
        old = self.sessions.get(view.id)
        sid = fmt.safe(view.id, 60)
        if old is None:
            return [("new", sid)]
        if old.source == "loading":  # start-up: the stand-in was replaced by the real view
            return []
        out = []
        completed = []
        for rnd in view.rounds:
            before = old.round(rnd.number, rnd.path)  # by directory: round-01 is not round-1
            if rnd.complete and (before is None or not before.complete):
                completed.append(rnd)
        for rnd in completed:
            verdict = fmt.safe(rnd.verdict, 40) if rnd.verdict else "no verdict"
            label = fmt.round_label(view, rnd).lower()  # `round 1 (round-01)` for a twin
            out.append(("round", f"{sid}: {label} complete · {verdict}"))
        if old.phase != view.phase and not (completed and view.complete):
            out.append(("phase", f"{sid}: {old.phase_label} → {view.phase_label}"))
        return out

    def _announce(self, events: list[tuple[str, str]]) -> None:
        if not events:
            return
        new = [text for kind, text in events if kind == "new"]
        if len(new) > MAX_NEW_SESSION_TOASTS:
            self._toast(f"{len(new)} new sessions", "New sessions")
        else:
            for sid in new:
                self._toast(sid, "New session")
        titles = {"round": "Round complete", "phase": "Phase"}
        for kind, text in events:
            if kind in titles:
                self._toast(text, titles[kind])
        if self._bell:
            self.bell()

    def _toast(self, text: str, title: str) -> None:
        """A change toast, at most MAX_TOASTS on screen: the table shows every change anyway,
        and a toast stack taller than the screen leaves stale cells behind (Textual 8.2.8)."""
        now = time.monotonic()
        self._toasts = [t for t in self._toasts if now - t < TOAST_SECONDS]
        if len(self._toasts) >= MAX_TOASTS:
            return
        self._toasts.append(now)
        self.notify(text, title=title, timeout=TOAST_SECONDS, markup=False)

    # -- title --------------------------------------------------------------------------

    def _update_sub_title(self) -> None:
        parts = [fmt.display_path(self.project.root) if self.project else "no project"]
        if self.demo is not None:
            parts.append("demo")
        if self.polling:
            parts.append("polling")
        self.sub_title = " · ".join(parts)

    def watch_polling(self) -> None:
        self._update_sub_title()

    # -- actions ------------------------------------------------------------------------

    def action_help(self) -> None:
        from ocr_tui.ui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def action_demo(self) -> None:
        if self.demo is not None or self._demo_starting:
            self.notify("The demo is already running.", markup=False)
            return
        self._demo_starting = True
        self._start_demo()

    def open_session(self, session_id: str) -> None:
        """Push the session drill-down screen."""
        try:
            from ocr_tui.ui.screens.session import SessionScreen
        except ImportError as exc:
            self.notify(f"The session screen is not available: {exc}", severity="warning")
            return
        self.push_screen(SessionScreen(session_id))

    def open_document(self, session_id: str, rel_path: str) -> None:
        """Push the document viewer for a file of a session (path relative to the session)."""
        try:
            from ocr_tui.ui.screens.document import DocumentScreen
        except ImportError as exc:
            self.notify(f"The document viewer is not available: {exc}", severity="warning")
            return
        self.push_screen(DocumentScreen(session_id, rel_path))

    def to_main_screen(self) -> MainScreen:
        """Pop any pushed screens (drill-downs, help) back to the session list."""
        while len(self.screen_stack) > 1:
            self.pop_screen()
        return self.main_screen

    def jump_to_session(self, session_id: str) -> None:
        self.to_main_screen().select_session(session_id)

    def run_main_action(self, action: str) -> None:
        """Run one of the main screen's actions (filters, sort, search) from anywhere."""
        main = self.to_main_screen()
        self.call_later(self.run_action, action, main)
