"""DocumentScreen: one session file rendered as Markdown, reloaded in place when it changes.

The file is read in a thread worker (`ocr_tui.core.document_read.load_document`), never on
the UI thread. On every `sessions_signal` naming this session (and every POLL_SECONDS) the worker
re-stats the file and reads it only if its (size, mtime, inode) changed; the Markdown is
re-rendered only if the text changed, and the scroll position is kept. A deleted file keeps its
last text under a "deleted" note.

Keys: j/k scroll, g/G top/bottom, `[`/`]` step to the same file in the previous/next round
(e.g. principal-1.md of round 1 from round 2; the same document name in the previous/next run
for map-run files). When that round has no such file, `[`/`]` go to that round: an
`Open(round, "step")` reuses the round screen right below if there is one, else replaces this
screen by one.
"""

from __future__ import annotations

import os
import re
from datetime import datetime

from textual import on, work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Markdown, Static
from textual.worker import Worker, WorkerState, get_current_worker

from ocr_tui.core.document_read import MAX_RENDER, DocState, human_size
from ocr_tui.core.reads import Reader
from ocr_tui.core.textsafe import safe_line
from ocr_tui.core.timeutil import from_mtime
from ocr_tui.core.view import SessionView
from ocr_tui.ui import fmt, router
from ocr_tui.ui.contract import reader_of
from ocr_tui.ui.fmt import round_label, twin_name
from ocr_tui.ui.navigation import (
    ROUND_FILE,
    RUN_FILE,
    DiscourseTarget,
    DocumentTarget,
    FindingsTarget,
    FindingTarget,
    ReviewerTarget,
    RoundTarget,
    Target,
    neighbour_file,
)
from ocr_tui.ui.screens.base.drilldown import Crumb, DrilldownScreen
from ocr_tui.ui.screens.document.actions import KEYS, DocumentActions
from ocr_tui.ui.screens.ocr.markdown_text import keep_line_breaks
from ocr_tui.ui.screens.ocr.round_reader import way_in
from ocr_tui.ui.style import removed_banner
from ocr_tui.ui.widgets.breadcrumb import Breadcrumb
from ocr_tui.ui.widgets.key_footer import KeyFooter


@router.route(DocumentTarget, ReviewerTarget)
class DocumentScreen(DocumentActions, DrilldownScreen):
    """`DocumentScreen(session_id, rel_path)`; `rel_path` is relative to the session dir."""

    BINDINGS = KEYS

    class Loaded(Message):
        def __init__(self, state: DocState, shown: str | None) -> None:
            super().__init__()
            self.state = state
            self.shown = shown  # the markdown rendered: the text with its line breaks kept

    def __init__(self, session_id: str, rel_path: str) -> None:
        super().__init__(session_id)
        self.rel_path = rel_path
        self.session_dir: str | None = None
        self.state: DocState | None = None  # the last load result shown
        self.text: str | None = None  # the markdown being shown, as read
        self._shown = ""  # and as rendered (`keep_line_breaks`, done in the worker)
        self._shown_rel: str | None = None
        self.loads = 0  # loads handled (the file was read or found missing)
        self.renders = 0  # times the Markdown was actually re-rendered
        self._way_in: list[Crumb] | None | bool = False  # False: not looked at yet

    @classmethod
    def for_target(cls, target: DocumentTarget | ReviewerTarget) -> DocumentScreen:
        return cls(target.session_id, target.path)

    @property
    def target(self) -> DocumentTarget:
        return DocumentTarget(self.session_id, self.rel_path)

    @property
    def full_path(self) -> str | None:
        # (a project file's `../../src/x.py` said as the path it is)
        return (
            os.path.normpath(os.path.join(self.session_dir, self.rel_path))
            if self.session_dir
            else None
        )

    def compose(self) -> ComposeResult:
        yield Breadcrumb(id="crumbs")
        yield removed_banner("the file's last known text")
        yield Static(id="doc-path", classes="dd-path")
        yield Static(id="doc-info", classes="dd-info")
        yield Static(id="doc-note", classes="dd-note")
        with VerticalScroll(id="doc-scroll"):
            yield Markdown(id="doc", open_links=False)
        yield KeyFooter()

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
                unknown = Content.styled("This session is not known.", "$text-error")
                self._show_note(unknown, "error")
                self._render_path()
            return
        self.session_dir = view.path
        self.refresh_bindings()  # `[` / `]` follow the rounds there are
        self._render_path()
        self.load(known=None if first else (self.state.key if self.state else None))

    def load(self, known: tuple | None = None) -> None:
        view = self.app.sessions.get(self.session_id)
        if self.session_dir is None or view is None:
            return
        self._load(reader_of(self.app, self.session_id), view, self.rel_path, known)

    @work(thread=True, exclusive=True, exit_on_error=False, group="document")
    def _load(self, reader: Reader, view: SessionView, rel: str, known: tuple | None) -> None:
        # the read seam (`core.reads`): here or on the session's far side
        try:
            state = reader.read("document", view, rel=rel, known=known)
        except Exception as exc:  # a far side lost, or its answer unreadable
            if known is not None:  # shown already: kept as it was (its host's line says why)
                return
            state = DocState(rel=rel, status="error", message=f"cannot be read: {exc}")
        shown = as_markdown(rel, state.text) if state.text else None  # here, not on the UI thread
        if not get_current_worker().is_cancelled:
            self.post_message(self.Loaded(state, shown))

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
        same_file = self._shown_rel == st.rel
        self._shown_rel = st.rel
        if st.status == "ok":
            text, shown = st.text or "", message.shown or ""
        elif st.status == "deleted" and same_file:
            text, shown = self.text or "", self._shown  # keep the last version on screen
        else:
            text, shown = "", ""
        self._shown = shown
        if text != self.text or not same_file:
            scroll = self.query_one("#doc-scroll", VerticalScroll)
            y = scroll.scroll_y if same_file else 0
            self.text = text
            await self.query_one("#doc", Markdown).update(shown)
            self.renders += 1
            scroll.call_after_refresh(scroll.scroll_to, y=y, animate=False, immediate=True)
        self.loads += 1

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.group == "document":
            self._show_note(f"Could not read this file: {event.worker.error}", "error")

    # -- rendering --------------------------------------------------------------------------

    def crumbs(self) -> list[Crumb]:
        """Where the file is (`… › Round 2 › principal-1.md`); opened from a round's discourse,
        findings or a finding, the way the user came (`… › Round 2 › Discourse ›
        discourse.md`) until `[`/`]` move it elsewhere."""
        if self._way_in is False:
            self._way_in = way_in(self, self._from_its_round)
        place = place_crumbs(self.view, self.session_id, self.rel_path)
        if self._way_in and not self.moved:
            return [*self._way_in, place[-1]]
        return self.session_crumbs() + place

    def _from_its_round(self, target: Target) -> bool:
        """Is `target` a view of the round this file belongs to (its discourse, findings or a
        finding)?"""
        if not isinstance(target, DiscourseTarget | FindingsTarget | FindingTarget):
            return False
        return self.rel_path.startswith(f"{target.path}/")

    def _render_path(self) -> None:
        path = self.full_path or self.rel_path
        self.query_one("#doc-path", Static).update(Content.styled(safe_line(path), "bold"))
        st = self.state
        shown = st if st is not None and st.rel == self.rel_path else None
        info = info_content(shown, self.app.now())
        self.query_one("#doc-info", Static).update(info)

    def _render_note(self, st: DocState) -> None:
        self._show_note(*note_for(st, bool(self.text)))

    def _show_note(self, text: str | Content | None, kind: str) -> None:
        note = self.query_one("#doc-note", Static)
        note.display = text is not None
        for k in ("deleted", "error", "cut"):
            note.set_class(k == kind, f"-{k}")
        if text is not None:
            note.update(text if isinstance(text, Content) else Content(safe_line(text)))

    # -- actions ----------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`[` / `]` say what they step: rounds for a round's file, runs for a map run's (the
        base hides both for a file of neither)."""
        if action == "step":
            return (
                bool(ROUND_FILE.match(self.rel_path))
                and self._has_neighbour(parameters)
                and super().check_action(action, parameters)
            )
        if action == "step_run":
            return bool(RUN_FILE.match(self.rel_path)) and self._has_neighbour(parameters)
        return super().check_action(action, parameters)

    def _neighbour(self, parameters: tuple[object, ...]):
        view = self.view
        if view is None or not parameters or not isinstance(parameters[0], int):
            return None
        return neighbour_file(view.rounds, view.map_runs, self.rel_path, parameters[0])

    def _has_neighbour(self, parameters: tuple[object, ...]) -> bool:
        """A round (or map run) before / after this file's (its last: `]` does nothing)."""
        step = self._neighbour(parameters)
        return step is None or step.item is not None

    def explain_disabled(self, action: str, parameters: tuple[object, ...]) -> str | None:
        step = self._neighbour(parameters) if action in ("step", "step_run") else None
        if step is not None and step.item is None:
            word = "earlier" if parameters[0] < 0 else "later"  # type: ignore[operator]
            return f"No {word} {step.kind}."
        return super().explain_disabled(action, parameters)

    @on(Markdown.LinkClicked)
    def _link(self, event: Markdown.LinkClicked) -> None:
        self.notify(f"Link: {safe_line(event.href)[:200]}", timeout=4, markup=False)


def place_crumbs(view: SessionView | None, session_id: str, rel: str) -> list[Crumb]:
    """The crumbs after the session's: the round (back to its screen) or map run a file
    belongs to, then the file."""
    if m := ROUND_FILE.match(rel):
        path, n = m.group(1), int(m.group(2))
        rnd = view.round(n, path) if view is not None else None
        label = round_label(view, rnd) if rnd is not None else f"Round {n}"
        return [(label, RoundTarget(session_id, n, path)), (m.group(3).rsplit("/", 1)[-1], None)]
    if m := RUN_FILE.match(rel):
        path, n = m.group(1), int(m.group(2))
        runs = view.map_runs if view is not None else []
        run = next((r for r in runs if r.path == path), None)
        twin = twin_name(runs, run) if run is not None else None
        return [(f"Map run {n}" + (f" ({twin})" if twin else ""), None), (m.group(3), None)]
    if rel.startswith("../"):  # a file of the project (a finding's, shown read-only): its name
        return [(rel.rsplit("/", 1)[-1], None)]
    return [(rel, None)]


def info_content(st: DocState | None, now: datetime) -> Content:
    """`12.3 KiB · modified 10:30 UTC` (`fmt.when`'s clock time: the line is re-drawn when the
    file changes, not as time passes, so no relative time to freeze); `loading…` before the
    first read."""
    parts: list = []
    if st is None:
        parts = ["loading…"]
    elif st.status not in ("deleted", "error"):
        parts = [human_size(st.size)]
        if st.mtime is not None:
            parts += [" · modified ", fmt.when(from_mtime(st.mtime), now, "clock") or "—"]
    return Content.assemble(*parts)


def note_for(st: DocState, had_text: bool) -> tuple[str | None, str]:
    """The note over a document (None: no note) and its kind: deleted, error or cut."""
    if st.status == "deleted":
        last = ": below is its last version." if had_text else "."
        return f"This file was deleted{last}", "deleted"
    if st.status == "binary":
        return f"Not shown: {st.message} ({human_size(st.size)}).", "error"
    if st.status == "error":
        return f"Not shown: this file {st.message}.", "error"
    if st.truncated:
        return f"Only the first {human_size(MAX_RENDER)} of {human_size(st.size)} are shown.", "cut"
    return None, ""


MARKDOWN = (".md", ".markdown", ".mdown", ".txt")


def as_markdown(rel: str, text: str) -> str:
    """What the Markdown widget is given: a session's markdown with its line breaks kept; any
    other file (a finding's source file, shown read-only) as one fenced block of its text."""
    if rel.lower().endswith(MARKDOWN) or "." not in rel.rsplit("/", 1)[-1]:
        return keep_line_breaks(text)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)  # (linear)
    fence = "`" * max(3, longest + 1)
    lang = rel.rsplit(".", 1)[-1].lower()
    lang = lang if lang.isalnum() and len(lang) <= 12 else ""
    return f"{fence}{lang}\n{text}\n{fence}\n"
