"""Messages the watcher and demo workers post to the app; `@on` handlers on the app apply
them (workers compute, handlers mutate). Each carries the project it is about, so a message
still queued from a replaced watcher (e.g. after `d` switched to the demo) is ignored."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from textual.message import Message

from ocr_tui.core.project import Project
from ocr_tui.core.view import Header, SessionView


class DemoRun(Protocol):
    """A live demo being played (`ocr_tui.demo.Demo`): its project, and how to stop it."""

    root: Path

    def stop(self) -> None: ...


class SessionsScanned(Message):
    """The watcher's first full picture of the project."""

    def __init__(self, project: Project, sessions: list[SessionView], sessions_dir: bool) -> None:
        super().__init__()
        self.project = project
        self.sessions = sessions
        self.sessions_dir = sessions_dir


class SessionsChanged(Message):
    """Some sessions changed or appeared (`changed`) or went away (`removed` ids).

    Bursts coalesce: while one is queued behind another, the newer absorbs the older.
    """

    def __init__(
        self,
        project: Project,
        changed: list[SessionView],
        removed: list[str],
        sessions_dir: bool,
        touched: frozenset[str] = frozenset(),
    ) -> None:
        super().__init__()
        self.project = project
        self.changed = changed
        self.removed = removed
        self.sessions_dir = sessions_dir
        self.touched = touched  # sessions whose files changed, even if their views did not

    def can_replace(self, message: Message) -> bool:
        # Called on the older (dequeued) message with the next pending one: returning True
        # drops `self` and handles `message`, so fold our content into it first.
        if not isinstance(message, SessionsChanged) or message.project != self.project:
            return False
        newer = {v.id for v in message.changed}
        gone = set(message.removed)
        kept = [v for v in self.changed if v.id not in newer and v.id not in gone]
        message.changed = kept + message.changed
        message.removed = sorted((set(self.removed) - newer) | gone)
        message.touched = self.touched | message.touched
        return True


class HeadersChanged(Message):
    """A format's project-level state (iDumb's brain) changed."""

    def __init__(self, project: Project, headers: tuple[Header, ...]) -> None:
        super().__init__()
        self.project = project
        self.headers = headers


class ProjectMissing(Message):
    """`.ocr/` is gone; the watcher waits for it to come back."""

    def __init__(self, project: Project) -> None:
        super().__init__()
        self.project = project


class WatchPolling(Message):
    """Native file watching failed; the watcher polls instead."""

    def __init__(self, project: Project, reason: str) -> None:
        super().__init__()
        self.project = project
        self.reason = reason


class DemoStarted(Message):
    """The live demo project was created (off the UI thread) and is being played."""

    def __init__(self, demo: DemoRun) -> None:
        super().__init__()
        self.demo = demo
