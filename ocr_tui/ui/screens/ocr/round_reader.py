"""RoundReaderScreen: the base of the screens that read a round's files themselves (its
findings, one finding, its discourse) rather than showing the session's derived view.

The read runs in a thread worker (`read_blocking`, never on the UI thread) when the screen
opens, and again whenever the app's `touched_signal` says a batch changed the session's files
(even when its derived view did not change); without that signal, on every view change. The
result is posted back and applied on the UI thread (`apply_read`). `loads` counts the reads
applied (tests wait on it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual import on, work
from textual.css.query import NoMatches
from textual.message import Message
from textual.screen import Screen
from textual.worker import Worker, WorkerState, get_current_worker

from ocr_tui.core.reads import Reader
from ocr_tui.core.textsafe import safe_line
from ocr_tui.core.view import SessionView
from ocr_tui.ui.contract import reader_of
from ocr_tui.ui.fmt import round_label
from ocr_tui.ui.navigation import RoundTarget, Target
from ocr_tui.ui.screens.base.drilldown import Crumb, DrilldownScreen
from ocr_tui.ui.widgets.breadcrumb import Breadcrumb

READ_GROUP = "round-read"


def screen_below(screen: Screen) -> Screen | None:
    """The screen `screen` was opened on: the one under it in the stack (the top one while
    `screen` is being pushed)."""
    try:
        stack = screen.app.screen_stack
    except Exception:  # no app (yet)
        return None
    if screen in stack:
        i = stack.index(screen)
        return stack[i - 1] if i > 0 else None
    return stack[-1] if stack else None


def way_in(screen: DrilldownScreen, fits: Callable[[Target], bool]) -> list[Crumb] | None:
    """The breadcrumb of the way the user came, when the screen below shows a place `fits`
    accepts: that screen's crumbs, its own place last (Back and a click return there). None
    otherwise (the crumbs then say where the place is, not how it was reached)."""
    below = screen_below(screen)
    if not isinstance(below, DrilldownScreen) or below.session_id != screen.session_id:
        return None
    try:
        target = below.target
        parts = below.query_one(Breadcrumb).parts
    except (NotImplementedError, NoMatches):  # it shows no one place, or has no breadcrumb
        return None
    if not fits(target) or not parts:
        return None
    targets = list(below._crumb_targets)
    if len(targets) != len(parts):
        return None
    crumbs: list[Crumb] = [(label, t) for (label, _), t in zip(parts, targets, strict=True)]
    crumbs[-1] = (crumbs[-1][0], target)
    return crumbs


class RoundReaderScreen(DrilldownScreen):
    """A drill-down screen of round `number` (directory `path`) that reads the round's files."""

    # What is read, for "Could not read …" (e.g. "the findings").
    READS = "the round"

    class Read(Message):
        def __init__(self, result: Any) -> None:
            super().__init__()
            self.result = result

    def __init__(self, session_id: str, number: int, path: str) -> None:
        super().__init__(session_id)
        self.round_number = number
        self.round_path = path
        self.session_dir: str | None = None
        self.has_read = False  # a read has been applied (or is being applied)
        self.loads = 0  # reads applied
        # a far side's reads: one in flight at a time (a busy far session's changes would
        # queue requests there, each answered after the next was wanted), the last one again
        self._in_flight = False
        self._again = False

    # -- for subclasses ---------------------------------------------------------------------

    def read_blocking(self, reader: Reader, view: SessionView) -> Any:
        """Blocking IO, in a thread: what `apply_read` shows, read through `reader` (the read
        seam, `core.reads`: here or on the session's far side)."""
        raise NotImplementedError

    async def apply_read(self, result: Any) -> None:
        """On the UI thread: show `result`."""
        raise NotImplementedError

    def render_heading(self, view: SessionView | None) -> None:
        """Show what comes from the view alone (a title); called on every view change."""

    def show_problem(self, text: str) -> None:
        """Show why nothing can be shown (the session is unknown, the read failed)."""
        self.notify(text, severity="error", markup=False)

    def crumbs(self, view: SessionView | None) -> list[Crumb]:
        return self.round_crumbs(view)

    # -- shared -----------------------------------------------------------------------------

    def label(self, view: SessionView | None) -> str:
        """`Round 2` (with its directory when two have one number)."""
        rnd = view.round(self.round_number, self.round_path) if view is not None else None
        return round_label(view, rnd) if rnd is not None else f"Round {self.round_number}"

    def round_crumbs(self, view: SessionView | None, *tail: Crumb) -> list[Crumb]:
        """Sessions › id › Round N (back to the round) › `tail`."""
        back = RoundTarget(self.session_id, self.round_number, self.round_path)
        return [*self.session_crumbs(), (self.label(view), back), *tail]

    def after_mount(self) -> None:
        touched = getattr(self.app, "touched_signal", None)
        if touched is not None:
            touched.subscribe(self, self._on_touched)

    def _on_touched(self, ids: frozenset[str]) -> None:
        if self.session_id in ids and not self.removed:
            self.load()

    def render_view(self, view: SessionView | None, *, first: bool) -> None:
        self.set_crumbs(self.crumbs(view))
        self.render_heading(view)
        if view is None:
            if first:
                self.show_problem("This session is not known.")
            return
        self.session_dir = view.path
        # A file change re-reads through `touched_signal`; a view change alone needs no read.
        if first or not self.has_read or getattr(self.app, "touched_signal", None) is None:
            self.load()

    def load(self) -> None:
        """Read the round again (the previous read, if still running, is cancelled)."""
        view = self.app.sessions.get(self.session_id)
        if self.session_dir is None or view is None:
            return
        reader = reader_of(self.app, self.session_id)
        if reader.host is not None:  # a far side's: one request at a time, the last one again
            if self._in_flight:
                self._again = True
                return
            self._in_flight = True
        self._read(reader, view)

    @work(thread=True, exclusive=True, exit_on_error=False, group=READ_GROUP)
    def _read(self, reader: Reader, view: SessionView) -> None:
        result = self.read_blocking(reader, view)
        if not get_current_worker().is_cancelled:
            self.post_message(self.Read(result))

    @on(Read)
    async def _apply(self, message: Read) -> None:
        if not self.is_attached:
            return  # the screen is being dismissed
        self.has_read = True
        await self.apply_read(message.result)
        self.loads += 1

    @on(Worker.StateChanged)
    def _read_failed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != READ_GROUP:
            return
        if event.state in (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED):
            self._in_flight = False
            if self._again:  # the files changed while a far side was asked: ask again
                self._again = False
                self.load()
        if event.state == WorkerState.ERROR:
            self.show_problem(safe_line(f"Could not read {self.READS}: {event.worker.error}"))
