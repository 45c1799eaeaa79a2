"""Which project the live app watches: another one (its sessions replace the ones before), none,
or, without a project, the first that appears where it was looked for at start; and the start
on the sessions read while the app was imported (`EarlyStart`). Mixins of `LiveApp` (`self` is
the app)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual import work
from textual.message import Message

from ocr_tui.core.early_read import Early
from ocr_tui.core.project import Project, ProjectNotFound, find_project
from ocr_tui.core.scope import Scope
from ocr_tui.core.view import SessionView
from ocr_tui.ui.fmt import safe


class ProjectFound(Message):
    """A project appeared where none was found (`look_for_project`)."""

    def __init__(self, project: Project) -> None:
        super().__init__()
        self.project = project


class EarlyStart:
    """The project's sessions as read while the app was imported (`core.early_read`): shown by
    the first frame; the watcher starts after it, and its own read replaces them."""

    _early = False  # the sessions shown are `early`'s, until the watcher's first listing

    def take_early(self, early: Early) -> None:
        self._early = True
        self.sessions = {v.id: v for v in early.views}
        self.unread = sum(1 for v in early.views if v.source == "loading")
        self.set_reactive(type(self).headers, tuple(early.headers))
        self._seen_sessions_dir = early.has_dir
        self.set_reactive(type(self).status, "ready")

    def watch_first(self) -> None:
        """Start watching: after the first frame when its rows are read already."""
        if self._early:
            self.call_after_refresh(self.start_watching)
        else:
            self.start_watching()


def kept(early: SessionView | None, scanned: SessionView) -> SessionView:
    """The view a first listing's `scanned` leaves on screen: a session read early keeps that
    view until the watcher's own read of it comes (not its stand-in meanwhile)."""
    if early is not None and scanned.source == "loading" and early.source != "loading":
        return early
    return scanned


class ProjectSwitch:
    """Switching projects, and waiting for one."""

    def switch_project(self, project: Project, scope: Scope | None = None) -> None:
        """Watch `project` (or the projects of `scope`) instead: every session of the one
        before is removed."""
        self.stop_remotes()
        removed = sorted(self.sessions)
        self.sessions = {}
        self.headers = ()
        self.scope = scope if scope is not None and scope.several else None
        self.project = Project(self.scope.root) if self.scope is not None else project
        self.polling = False
        self._seen_sessions_dir = False
        self.status = "loading"
        self.sessions_signal.publish(([], removed))
        self.start_watching()

    def clear_project(self) -> None:
        """Watch nothing: no project (the sessions of the one before are removed)."""
        if self._stop is not None:
            self._stop.set()
            self._stop = None
        self.stop_remotes()
        removed = sorted(self.sessions)
        self.sessions = {}
        self.headers = ()
        self.project = None
        self.scope = None
        if self.engine is not None:
            self.engine.close()
        self.engine = None
        self.polling = False
        self._seen_sessions_dir = False
        self.unread = 0
        self.status = "no-project"
        self.sessions_signal.publish(([], removed))

    def look_for_project(self) -> None:
        """Without a project: look for one where it was looked for at start (`start_path`
        and every directory above it) until one appears, then watch it."""
        self._look_for_project(self.start_path)

    def stop_looking_for_project(self) -> None:
        self.workers.cancel_group(self, "project-lookup")

    @work(exclusive=True, group="project-lookup", exit_on_error=False, description="find a project")
    async def _look_for_project(self, start: Path) -> None:
        def find() -> Project | None:  # in a thread: it stats the markers of every format
            try:
                return find_project(start)
            except (ProjectNotFound, OSError):
                return None

        while self.project is None:
            found = await asyncio.to_thread(find)
            if found is not None:
                self.post_message(ProjectFound(found))
                return
            await asyncio.sleep(self.PROJECT_POLL_S)

    def accepts_found_project(self) -> bool:
        """May a project that appeared replace "no project" now? (Not while a demo starts.)"""
        return True

    def project_of(self, session_id: str | None) -> Project | None:
        """The project session `session_id` belongs to (with one project: it)."""
        view = self.sessions.get(session_id) if session_id is not None else None
        if view is not None and view.host:
            return None  # a remote project's: nothing of it is here
        engine = self.engine
        if engine is None or session_id is None:
            return self.project
        from ocr_tui.core.workspace import Workspace  # (loaded with the engine)

        if isinstance(engine, Workspace):
            view = self.sessions.get(session_id)
            if view is not None and view.project:
                return engine.project_named(view.project)
            return None
        return self.project

    def _projects_found(self, changed: list[SessionView]) -> set[str]:
        """The projects (several shown) none of whose sessions were shown before these: a
        project a `--scan` found, its sessions read all at once. Said here in one notice."""
        if self.scope is None:
            return set()
        known = self._projects_seen
        found: dict[str, int] = {}
        for v in changed:
            if v.project and v.project not in known and v.id not in self.sessions:
                found[v.project] = found.get(v.project, 0) + 1
        known.update(v.project for v in changed if v.project)
        for name, n in found.items():
            self.notice(f"{safe(name, 40)}: {n} session{'s' * (n != 1)}", title="Project found")
        return set(found)
