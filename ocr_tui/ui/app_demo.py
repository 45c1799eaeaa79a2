"""The live demo from inside the dashboard (`d`): every format's simulator playing into a temporary
project that replaces the one shown, and back to it when left. A mixin of `OcrTuiApp` (`self` is
the app); its messages are handled there."""

from __future__ import annotations

import asyncio
import threading

from textual import work

from ocr_tui.ui import fmt
from ocr_tui.ui.messages import DemoStarted


class DemoMode:
    """Starting and leaving the live demo."""

    def action_demo(self) -> None:
        if self.demo is not None:
            self.action_leave_demo()
            return
        if self._demo_starting:
            self.notify("The demo is starting…", markup=False)
            return
        self._demo_starting = True
        self.stop_looking_for_project()
        self._start_demo()

    def accepts_found_project(self) -> bool:
        return self.demo is None and not self._demo_starting

    def action_leave_demo(self) -> None:
        """Stop the demo and return to the project shown before it (or to none)."""
        demo, self.demo = self.demo, None
        if demo is None:
            return
        # Joining the player and removing its directory is IO: not on the UI thread.
        threading.Thread(target=demo.stop, name="ocr-tui-demo-stop").start()
        self.to_main_screen()
        back, self._before_demo = self._before_demo, None
        scope, self._scope_before_demo = self._scope_before_demo, None
        if back is not None:
            self.switch_project(back, scope)
            where = fmt.display_path(back.root)
        else:
            self.clear_project()
            self.look_for_project()
            where = "no project"
        self._update_sub_title()
        self.refresh_bindings()
        self.notify(f"Stopped the demo; back to {where}.", title="Live demo", markup=False)

    @work(exclusive=True, group="demo", exit_on_error=False, description="start the demo")
    async def _start_demo(self) -> None:
        start_demo = self._demo_factory
        if start_demo is None:
            self._demo_starting = False
            self.notify("No demo in this build of the app.", severity="warning")
            if self.project is None:
                self.look_for_project()
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
