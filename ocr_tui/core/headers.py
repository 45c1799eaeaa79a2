"""The project-level headers: one per format that has project-level state, one more per format
whose reader failed (key `framework!`), and a version counter bumped whenever they change.
"""

from __future__ import annotations

from datetime import datetime

from ocr_tui.core.project import Project
from ocr_tui.core.source import Source
from ocr_tui.core.view import Header

HEADERS_EVERY_S = 60  # headers' staleness is counted in hours: re-derived once a minute


class HeaderBoard:
    """Every format's project-level header, and its failures."""

    def __init__(self, project: Project, name: str | None = None) -> None:
        self.project = project
        self.name = name  # one of several projects: its name, on each header
        self.headers: dict[str, Header] = {}
        self.version = 0  # bumped whenever `headers` changes
        self._at: datetime | None = None  # when `refresh` last re-derived them

    def report(self, src: Source, exc: Exception) -> None:
        """A reader of `src` raised: shown as a header of its own."""
        self.version += 1
        self.headers[f"{src.framework}!"] = Header(
            framework=src.framework,
            title=f"{src.label}: reader failed",
            path=str(self.project.root),
            alerts=[f"{type(exc).__name__}: {exc}"],
        )
        if self.name:
            self.headers[f"{src.framework}!"].project = self.name

    def rederive(self, src: Source, now: datetime) -> None:
        """Ask `src` for its header again (clearing a reported failure, unless it fails again)."""
        before = (self.headers.get(src.framework), self.headers.get(f"{src.framework}!"))
        self.headers.pop(f"{src.framework}!", None)
        try:
            h = src.header(now)
        except Exception as exc:
            self.report(src, exc)
            h = before[0]
        if h is None:
            self.headers.pop(src.framework, None)
        else:
            if self.name:
                h.project = self.name
            self.headers[src.framework] = h
        if (self.headers.get(src.framework), self.headers.get(f"{src.framework}!")) != before:
            self.version += 1

    def refresh(self, sources: list[Source], now: datetime) -> None:
        """Time passed: re-derive the headers shown, at most once every HEADERS_EVERY_S."""
        if self.headers and (
            self._at is None or (now - self._at).total_seconds() >= HEADERS_EVERY_S
        ):
            self._at = now
            for src in sources:
                if src.framework in self.headers:
                    self.rederive(src, now)

    def clear(self) -> None:
        self.headers.clear()
