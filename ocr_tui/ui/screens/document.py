"""DocumentScreen: one session file rendered as Markdown, reloaded in place when it changes.

The file is read in a thread worker (`docfile.load_document`), never on the UI thread. On
every `sessions_signal` naming this session (and every POLL_SECONDS) the worker re-stats the
file and reads it only if its (size, mtime, inode) changed; the Markdown is re-rendered only if
the text changed, and the scroll position is kept. A deleted file keeps its last text under a
"deleted" note.

Keys: j/k scroll, g/G top/bottom, `[`/`]` step to the same file in the previous/next round
(e.g. principal-1.md of round 1 from round 2; the same document name in the previous/next run
for map-run files). When that round has no such file, `[`/`]` go to that round's screen (the
RoundScreen below is reused if there is one, else this screen is replaced by it).
"""

from __future__ import annotations

import os

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Footer, Markdown, Static
from textual.worker import Worker, WorkerState, get_current_worker

from ocr_tui.core.textsafe import safe_line
from ocr_tui.core.timeutil import fmt_ts, from_mtime
from ocr_tui.core.view import SessionView
from ocr_tui.ui.fmt import round_label, twin_name
from ocr_tui.ui.screens.docfile import MAX_RENDER, DocState, human_size, load_document
from ocr_tui.ui.screens.drilldown import (
    ROUND_FILE,
    RUN_FILE,
    DrilldownScreen,
    Target,
    fmt_datetime,
    removed_banner,
)
from ocr_tui.ui.screens.round import RoundScreen, adjacent_item
from ocr_tui.ui.widgets.breadcrumb import Breadcrumb


class DocumentScreen(DrilldownScreen):
    """`DocumentScreen(session_id, rel_path)`; `rel_path` is relative to the session dir."""

    BINDINGS = [
        Binding("j", "scroll(1)", "Down", id="doc.down", show=False),
        Binding("k", "scroll(-1)", "Up", id="doc.up", show=False),
        Binding("g", "top", "Top", id="doc.top", show=False),
        Binding("G", "bottom", "Bottom", id="doc.bottom", show=False),
        Binding("[", "step(-1)", "Prev round", id="doc.prev"),
        Binding("]", "step(1)", "Next round", id="doc.next"),
    ]

    class Loaded(Message):
        def __init__(self, state: DocState) -> None:
            super().__init__()
            self.state = state

    def __init__(self, session_id: str, rel_path: str) -> None:
        super().__init__(session_id)
        self.rel_path = rel_path
        self.session_dir: str | None = None
        self.state: DocState | None = None  # the last load result shown
        self.text: str | None = None  # the markdown being shown
        self._shown_rel: str | None = None
        self.loads = 0  # loads handled (the file was read or found missing)
        self.renders = 0  # times the Markdown was actually re-rendered

    @property
    def nav_key(self) -> tuple:
        return ("doc", self.session_id, self.rel_path)

    @property
    def full_path(self) -> str | None:
        return os.path.join(self.session_dir, self.rel_path) if self.session_dir else None

    def compose(self) -> ComposeResult:
        yield Breadcrumb(id="crumbs")
        yield removed_banner("the file's last known text")
        yield Static(id="doc-path", classes="dd-path")
        yield Static(id="doc-info", classes="dd-info")
        yield Static(id="doc-note", classes="dd-note")
        with VerticalScroll(id="doc-scroll"):
            yield Markdown(id="doc", open_links=False)
        yield Footer()

    # `touched_signal` names every session whose files a batch changed (even when its derived
    # view did not), so an edit shows at once. A document outside the watched directories (a
    # spec elsewhere in the project) is caught by a slow stat in the worker.
    POLL_SECONDS = 2.0

    def after_mount(self) -> None:
        self.query_one("#doc-scroll").focus()
        self.set_interval(self.POLL_SECONDS, self._poll)
        touched = getattr(self.app, "touched_signal", None)
        if touched is not None:
            touched.subscribe(self, self._on_touched)

    def _on_touched(self, ids: frozenset[str]) -> None:
        if self.session_id in ids:
            self._poll()

    def _poll(self) -> None:
        if not self.removed and self.state is not None and self.state.rel == self.rel_path:
            self.load(known=self.state.key)

    # -- loading ----------------------------------------------------------------------------

    def render_view(self, view: SessionView | None, *, first: bool) -> None:
        self.set_crumbs(self.crumbs())
        if view is None:
            if first:
                self._show_note(Content.styled("This session is not known.", "$error"), "error")
                self._render_path()
            return
        self.session_dir = view.path
        self._render_path()
        self.load(known=None if first else (self.state.key if self.state else None))

    def load(self, known: tuple | None = None) -> None:
        if self.session_dir is None:
            return
        project = getattr(self.app, "project", None)
        root = str(project.root) if project is not None else None
        self._load(self.session_dir, self.rel_path, known, root)

    @work(thread=True, exclusive=True, exit_on_error=False, group="document")
    def _load(self, session_dir: str, rel: str, known: tuple | None, root: str | None) -> None:
        state = load_document(session_dir, rel, known, root=root)
        if not get_current_worker().is_cancelled:
            self.post_message(self.Loaded(state))

    @on(Loaded)
    async def _loaded(self, message: Loaded) -> None:
        st = message.state
        if st.rel != self.rel_path or st.status == "unchanged":
            return
        if not self.query("#doc"):
            return  # the screen is being dismissed (or the app is closing)
        self.state = st
        self._render_path()
        self._render_note(st)
        if st.status == "ok":
            text = st.text or ""
        elif st.status == "deleted" and self._shown_rel == st.rel:
            text = self.text or ""  # keep the last version on screen
        else:
            text = ""
        same_file = self._shown_rel == st.rel
        self._shown_rel = st.rel
        if text != self.text or not same_file:
            scroll = self.query_one("#doc-scroll", VerticalScroll)
            y = scroll.scroll_y if same_file else 0
            self.text = text
            await self.query_one("#doc", Markdown).update(text)
            self.renders += 1
            scroll.call_after_refresh(scroll.scroll_to, y=y, animate=False, immediate=True)
        self.loads += 1

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.group == "document":
            self._show_note(f"Could not read this file: {event.worker.error}", "error")

    # -- rendering --------------------------------------------------------------------------

    def crumbs(self) -> list[tuple[str, Target]]:
        crumbs = self.session_crumbs()
        rel = self.rel_path
        view = self.view
        if m := ROUND_FILE.match(rel):
            path, n = m.group(1), int(m.group(2))
            rnd = view.round(n, path) if view is not None else None
            label = round_label(view, rnd) if rnd is not None else f"Round {n}"
            crumbs.append((label, ("round", self.session_id, n, path)))
            crumbs.append((m.group(3).rsplit("/", 1)[-1], None))
        elif m := RUN_FILE.match(rel):
            path, n = m.group(1), int(m.group(2))
            runs = view.map_runs if view is not None else []
            run = next((r for r in runs if r.path == path), None)
            twin = twin_name(runs, run) if run is not None else None
            crumbs.append((f"Map run {n}" + (f" ({twin})" if twin else ""), None))
            crumbs.append((m.group(3), None))
        else:
            crumbs.append((rel, None))
        return crumbs

    def _render_path(self) -> None:
        path = self.full_path or self.rel_path
        self.query_one("#doc-path", Static).update(Content.styled(safe_line(path), "bold"))
        st = self.state
        parts: list = []
        if st is None or st.rel != self.rel_path:
            parts = ["loading…"]
        elif st.status not in ("deleted", "error"):
            parts = [human_size(st.size)]
            if st.mtime is not None:
                modified = fmt_datetime(fmt_ts(from_mtime(st.mtime)))
                parts += [" · modified ", modified]
        self.query_one("#doc-info", Static).update(Content.assemble(*parts))

    def _render_note(self, st: DocState) -> None:
        if st.status == "deleted":
            self._show_note(
                "This file was deleted" + (": below is its last version." if self.text else "."),
                "deleted",
            )
        elif st.status == "binary":
            self._show_note(f"Not shown: {st.message} ({human_size(st.size)}).", "error")
        elif st.status == "error":
            self._show_note(f"Not shown: this file {st.message}.", "error")
        elif st.truncated:
            self._show_note(
                f"Only the first {human_size(MAX_RENDER)} of {human_size(st.size)} are shown.",
                "cut",
            )
        else:
            self._show_note(None, "")

    def _show_note(self, text: str | Content | None, kind: str) -> None:
        note = self.query_one("#doc-note", Static)
        note.display = text is not None
        for k in ("deleted", "error", "cut"):
            note.set_class(k == kind, f"-{k}")
        if text is not None:
            note.update(text if isinstance(text, Content) else Content(safe_line(text)))

    # -- actions ----------------------------------------------------------------------------

    def action_scroll(self, lines: int) -> None:
        self.query_one("#doc-scroll", VerticalScroll).scroll_relative(y=lines, animate=False)

    def action_top(self) -> None:
        self.query_one("#doc-scroll", VerticalScroll).scroll_home(animate=False)

    def action_bottom(self) -> None:
        self.query_one("#doc-scroll", VerticalScroll).scroll_end(animate=False)

    @on(Markdown.LinkClicked)
    def _link(self, event: Markdown.LinkClicked) -> None:
        self.notify(f"Link: {safe_line(event.href)[:200]}", timeout=4, markup=False)

    def show_document(self, rel: str) -> None:
        """Show another file of the same session in this screen."""
        self.rel_path = rel
        self.set_crumbs(self.crumbs())
        self._render_path()
        self.load(known=None)

    def action_step(self, delta: int) -> None:
        view = self.view
        word = "earlier" if delta < 0 else "later"
        if view is None:
            self.app.bell()
            return
        if m := ROUND_FILE.match(self.rel_path):
            tail = m.group(3)
            rnd = adjacent_item(view.rounds, m.group(1), int(m.group(2)), delta)
            if rnd is None:
                self.app.bell()
                self.notify(f"No {word} round.", timeout=2, markup=False)
                return
            files = {r.path for r in rnd.reviewers}
            files |= {f"{rnd.path}/discourse.md"} if rnd.discourse else set()
            files |= {f"{rnd.path}/final.md"} if rnd.complete else set()
            candidate = f"{rnd.path}/{tail}"
            if candidate in files:
                self.show_document(candidate)
            else:
                self.notify(
                    f"{round_label(view, rnd)} has no {safe_line(tail)}.", timeout=3, markup=False
                )
                self._to_round(rnd.number, rnd.path)
        elif m := RUN_FILE.match(self.rel_path):
            tail = m.group(3)
            run = adjacent_item(view.map_runs, m.group(1), int(m.group(2)), delta)
            if run is None:
                self.app.bell()
                self.notify(f"No {word} map run.", timeout=2, markup=False)
            elif f"{run.path}/{tail}" in run.documents:
                self.show_document(f"{run.path}/{tail}")
            else:
                self.notify(
                    f"Map run {run.number} has no {safe_line(tail)}.", timeout=3, markup=False
                )
        else:
            self.app.bell()
            self.notify(
                "A session document: there is no round to step to.", timeout=2, markup=False
            )

    def _to_round(self, number: int, path: str) -> None:
        stack = self.app.screen_stack
        below = stack[-2] if len(stack) > 1 else None
        if isinstance(below, RoundScreen) and below.session_id == self.session_id:
            below.show_round(number, path)
            self.app.pop_screen()
        else:
            self.app.switch_screen(RoundScreen(self.session_id, number, path))
