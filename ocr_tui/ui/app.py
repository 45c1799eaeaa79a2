"""The dashboard app: the session list as its default screen, the keys that work everywhere,
the command palette, navigation, the title and the live demo.

The live data (the watcher, `sessions`, the signals, the change toasts) is `LiveApp`'s
(`ocr_tui.ui.live`); the screens read it through `ocr_tui.ui.contract`. Screens never import
each other: they post `Open(target)` (`ocr_tui.ui.navigation`), which is handled here by the
router (`ocr_tui.ui.router`, which imports a screen's module when it first opens it);
`open_session` / `open_document` do the same for callers outside the screens. At start-up only
the session list is imported; the other screens, the help and the command palette's providers
when first used.

Keys mean what they say: a key whose action does not apply is hidden from the footer by the
`check_action` of the node that binds it, and when pressed anyway, says why (`on_key` asks that
node's `explain_disabled`). `?` shows the keys of the screen it is pressed on.

The demo is a toggle: `d` switches to a live demo in a temporary project, `d` again stops it
and returns to the project shown before (or to "no project", which waits for one).
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual import events, on
from textual.app import App
from textual.binding import Binding
from textual.worker import Worker, WorkerState

from ocr_tui.core.prefs import Prefs
from ocr_tui.core.project import Project
from ocr_tui.core.scope import Scope
from ocr_tui.ui import fmt, router
from ocr_tui.ui import textual_compat as tc
from ocr_tui.ui.app_demo import DemoMode
from ocr_tui.ui.live import LiveApp
from ocr_tui.ui.messages import DemoRun, DemoStarted
from ocr_tui.ui.navigation import DocumentTarget, How, Open, SessionTarget, Target
from ocr_tui.ui.screens.ocr.triage.keeper import keep as keep_marks
from ocr_tui.ui.screens.sessions.screen import MainScreen

if TYPE_CHECKING:
    from textual.command import Provider
    from textual.screen import Screen


def fit_breakpoints(app: App, screen: Screen) -> None:
    """Give `screen` the breakpoint classes (`HORIZONTAL_BREAKPOINTS`, `VERTICAL_BREAKPOINTS`:
    the list's `-narrow`/`-medium`/`-wide`...) of the terminal's size before its first frame.
    Textual sets them on the screen's first Resize, which comes after that frame is drawn: the
    first frame would be laid out without them, then styled and laid out again (~20 ms of
    start-up). The first Resize then finds them set (by the same rule: Textual's own)."""
    horizontal = screen.HORIZONTAL_BREAKPOINTS
    vertical = screen.VERTICAL_BREAKPOINTS
    horizontal = app.HORIZONTAL_BREAKPOINTS if horizontal is None else horizontal
    vertical = app.VERTICAL_BREAKPOINTS if vertical is None else vertical
    width, height = app.size
    classes: dict[str, bool] = {}
    for dimension, breakpoints in ((width, horizontal or []), (height, vertical or [])):
        classes |= {name: False for _, name in breakpoints}
        classes |= dict.fromkeys(tc.breakpoint_classes(screen, dimension, breakpoints), True)
    if classes:
        screen.update_classes(classes, animate=False)


def _session_commands() -> type[Provider]:
    from ocr_tui.ui.commands import SessionCommands

    return SessionCommands


def _screen_commands() -> type[Provider]:
    from ocr_tui.ui.commands import ScreenCommands

    return ScreenCommands


tc.apply_fixes()  # (the pinned Textual's leak: ui/textual_compat.py)


class OcrTuiApp(DemoMode, LiveApp):
    CSS_PATH = "app.tcss"
    TITLE = "ocr-tui"
    # The palette's providers, imported when it first opens (Textual takes a callable).
    COMMANDS = App.COMMANDS | {_session_commands, _screen_commands}
    BINDINGS = [
        Binding("q", "quit", "Quit", tooltip="Quit ocr-tui"),
        Binding("question_mark", "help", "Help", tooltip="Keys and legend"),
        Binding("d", "demo", "Demo", tooltip="Switch to a live demo; d again comes back"),
        Binding("d", "leave_demo", "Leave demo", tooltip="Stop the demo, back to the project"),
    ]

    def __init__(
        self,
        project: Project | None,
        *,
        demo: bool = False,
        demo_factory: Callable[[], DemoRun] | None = None,
        prefs: Prefs | None = None,
        **live: Any,
    ) -> None:
        """`demo`: start the demo at once. `demo_factory` starts a live demo project
        (blocking: it runs in a thread); the app is built with one by
        `ocr_tui.cli.make_app`. Without it, `d` says so. `prefs`: the user's (config file
        and flags): theme, sort, filter, editor, and where a theme picked is remembered.
        `live`: `LiveApp`'s options (start_path, poll, notify, bell, stall_after, clock)."""
        super().__init__(project, **live)
        self.prefs = prefs or Prefs()
        self.demo: DemoRun | None = None  # while the demo plays
        self._demo_factory = demo_factory
        self._start_demo_on_mount = demo
        self._demo_starting = False
        # where `d` returns to from the demo (and the projects shown there, when several)
        self._before_demo: Project | None = None
        self._scope_before_demo: Scope | None = None
        self._shutting_down = threading.Event()  # set on unmount

    def toast_wanted(self, session_id: str) -> bool:
        """No toasts for the sessions of a project the list does not show (`p`)."""
        shown = getattr(getattr(self, "main_screen", None), "project", "all")
        if shown == "all":
            return True
        view = self.sessions.get(session_id)
        return view is None or view.project == shown

    def get_driver_class(self) -> Any:
        from ocr_tui.ui import terminal_writer

        terminal_writer.install()  # a terminal that goes away never hangs the app's exit
        return super().get_driver_class()

    def get_default_screen(self) -> MainScreen:
        self.main_screen = MainScreen()
        if self.prefs.sort:
            self.main_screen.set_reactive(MainScreen.sort, self.prefs.sort)
        if self.prefs.filter:
            self.main_screen.set_reactive(MainScreen.filter, self.prefs.filter)
        fit_breakpoints(self, self.main_screen)
        return self.main_screen

    def on_mount(self) -> None:
        self._end_on_hangup()
        self._apply_prefs()
        self._update_sub_title()
        if self._start_demo_on_mount:
            self.action_demo()
        elif self.project is not None:
            self.watch_first()
            keep_marks(self, self.project.db_path)  # an earlier ocr-tui's, to write again
        else:
            self.look_for_project()

    HANGUP_SIGNALS = ("SIGHUP", "SIGTERM")

    def _end_on_hangup(self) -> None:
        """A closed terminal (SIGHUP: a tmux session killed, an ssh link lost) or SIGTERM ends
        the app as `q` does, so the demo's temporary project is removed and the watcher
        stopped; the default action ended the process on the spot. Not when headless."""
        if self.is_headless:
            return
        loop = asyncio.get_running_loop()
        for name in self.HANGUP_SIGNALS:
            sig = getattr(signal, name, None)
            if sig is None:
                continue
            try:
                loop.add_signal_handler(sig, self.exit)
            except (NotImplementedError, RuntimeError, ValueError):
                pass  # not the main thread, or a platform without them

    def _apply_prefs(self) -> None:
        """The config file's theme, and what was wrong with the file; from then on, a theme
        picked in the app is remembered in the file (when there is one to write)."""
        prefs = self.prefs
        problems = list(prefs.problems)
        if prefs.theme:
            if prefs.theme in self.available_themes:
                self.theme = prefs.theme
            else:
                problems.append(
                    f"theme {fmt.safe(prefs.theme, 40)!r} is not one of the themes here"
                    " (ctrl+p: Change theme lists them); ignored"
                )
        if problems:  # one notice, however many (each is one line)
            more = f"\n… and {len(problems) - 5} more (see stderr)" if len(problems) > 5 else ""
            self.notice(
                "\n".join(problems[:5]) + more, title="Config", severity="warning", timeout=10
            )
        if prefs.config is not None:
            self.theme_changed_signal.subscribe(self, self._remember_theme)

    def _remember_theme(self, theme: Any) -> None:
        name = getattr(theme, "name", None) or str(theme)
        path = self.prefs.config

        def save() -> None:  # file IO: not on the UI thread
            from ocr_tui.core import config

            problem = config.save_theme(name, path)
            if problem:
                self.call_from_thread(
                    self.notify, problem, title="Config", severity="warning", markup=False
                )

        self.run_worker(save, thread=True, group="config", exit_on_error=False)

    def on_unmount(self) -> None:  # LiveApp.on_unmount stops the watcher
        self._shutting_down.set()
        if self.demo is not None:
            # Joining the player and removing its directory is IO: not on the UI thread. A
            # non-daemon thread still finishes before the process exits.
            threading.Thread(target=self.demo.stop, name="ocr-tui-demo-stop").start()
            self.demo = None

    def _update_sub_title(self) -> None:
        self.sub_title = sub_title(self)

    def watch_polling(self) -> None:
        self._update_sub_title()

    def watch_status(self) -> None:
        # Every change of project (one found, the demo, back from it) passes a new status.
        self._update_sub_title()

    # -- navigation ---------------------------------------------------------------------

    @on(Open)
    def _open(self, message: Open) -> None:
        self.open_target(message.target, message.how, message.via)

    def open_target(self, target: Target, how: How = "push", via: tuple[Target, ...] = ()) -> bool:
        """Show `target` (see `navigation.How`); False if no screen shows it."""
        if router.navigate(self, target, how, via):
            return True
        self.notify("There is nothing to show for this yet.", severity="warning", markup=False)
        return False

    def open_session(self, session_id: str) -> None:
        """Push the session drill-down screen."""
        self.open_target(SessionTarget(session_id))

    def open_document(self, session_id: str, rel_path: str) -> None:
        """Push the document viewer for a file of a session (path relative to the session)."""
        self.open_target(DocumentTarget(session_id, rel_path))

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

    # -- actions ------------------------------------------------------------------------

    def action_help(self) -> None:
        from ocr_tui.ui.screens.help.screen import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    # -- keys that do not apply ---------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "demo":
            return self._demo_factory is not None and self.demo is None
        if action == "leave_demo":
            return self.demo is not None
        return True

    def explain_disabled(self, action: str, parameters: tuple[object, ...]) -> str | None:
        if action == "demo" and self._demo_factory is None:
            return "No demo in this build of the app."
        return None

    def on_key(self, event: events.Key) -> None:
        """A key no binding runs (App's own handler runs after this one): if a binding of it
        does not apply here, say why."""
        from ocr_tui.ui.screens.help.screen import why_key_does_nothing

        reason = why_key_does_nothing(self.screen, event.key)
        if reason:
            self.notify(reason, timeout=3, markup=False)

    # -- the demo -----------------------------------------------------------------------

    @on(DemoStarted)
    def _demo_started(self, message: DemoStarted) -> None:
        self._demo_starting = False
        self.demo = message.demo
        self._before_demo = self.project
        self._scope_before_demo = self.scope
        self.stop_looking_for_project()
        self.to_main_screen()  # a drill-down screen would show a session of the project left
        self.switch_project(Project(message.demo.root))
        self._update_sub_title()
        self.refresh_bindings()
        back = fmt.display_path(self._before_demo.root) if self._before_demo else "no project"
        self.notify(
            f"Playing a simulated review in {fmt.display_path(message.demo.root)}. "
            f"Press d to stop it and return to {back}.",
            title="Live demo",
            markup=False,
        )

    @on(Worker.StateChanged)
    def _demo_failed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.group == "demo":
            self._demo_starting = False
            error = event.worker.error
            self.notify(f"Could not start the demo: {error}", severity="error", markup=False)
            if self.project is None:
                self.look_for_project()


def sub_title(app: OcrTuiApp) -> str:
    """What the title says of what is shown: the project (or how many, and where), the remote
    ones, the demo, polling."""
    scope = app.scope
    if scope is not None:
        where = fmt.display_path(scope.root)
        n, far = len(scope.projects), len(scope.remotes)
        if scope.scan:
            parts = [f"projects under {where}"]
        elif n:
            parts = [f"{n} project{'s' * (n != 1)} in {where}"]
        else:
            parts = []
        if far:
            parts.append(f"{far} remote project{'s' * (far != 1)}")
    else:
        parts = [fmt.display_path(app.project.root) if app.project else "no project"]
    if app.demo is not None:
        parts.append("demo")
    if app.polling:
        parts.append("polling")
    return " · ".join(parts)
