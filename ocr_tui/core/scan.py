"""A full scan: list every session of every source (cheap), then derive them a slice at a time,
newest first, so a list of 10,000 shows before one is parsed.
"""

from __future__ import annotations

import time
from datetime import datetime

from ocr_tui.core.headers import HeaderBoard
from ocr_tui.core.reading import list_sessions, mtime, placeholder_view
from ocr_tui.core.sessions import SessionStore
from ocr_tui.core.source import Source
from ocr_tui.core.view import SessionView


class Scan:
    """The full scan of `sources` into `table` (and `board`); `pending` is what is left."""

    def __init__(self, sources: list[Source], table: SessionStore, board: HeaderBoard) -> None:
        self.sources = sources
        self.table = table
        self.board = board
        self.pending: list[str] = []  # view ids queued by `begin`, derived by `step`

    def begin(self, now: datetime, *, placeholders: bool) -> None:
        """Forget everything, list every session and queue them, newest first. With
        `placeholders`, each session gets a stand-in view at once (`source == "loading"`)."""
        self.table.clear()
        self.board.clear()
        order: list[tuple[float, str]] = []
        for src in self.sources:
            try:
                src.begin_scan()
            except Exception as exc:
                self.board.report(src, exc)
            for key, path in list_sessions(src, self.board.report).items():
                vid = self.table.place(src, key, path)
                if placeholders:
                    view = placeholder_view(src, key, path)
                    view.id = vid
                    self.table.views[vid] = view
                    order.append((-(mtime(path) or 0.0), vid))
                else:
                    order.append((0.0, vid))
            self.board.rederive(src, now)
        order.sort()
        self.pending = [vid for _, vid in reversed(order)]  # popped from the end: newest first
        if not self.pending:
            self._end()

    def step(self, now: datetime, budget_s: float | None) -> list[SessionView]:
        """Derive queued sessions for about `budget_s` seconds (all with None); returns them."""
        deadline = None if budget_s is None else time.perf_counter() + budget_s
        out: list[SessionView] = []
        while self.pending:
            vid = self.pending.pop()
            if self.table.where(vid) is None:
                continue
            self.table.views[vid] = view = self.table.derive(vid, now)
            out.append(view)
            if deadline is not None and time.perf_counter() >= deadline:
                break
        if not self.pending:
            self._end()
        return out

    def _end(self) -> None:
        for src in self.sources:
            try:
                src.end_scan()
            except Exception as exc:
                self.board.report(src, exc)
