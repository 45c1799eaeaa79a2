"""Bringing sessions up to date without a full scan: after a batch of changed paths, a
relisting, or a source's poll of places no one watches. Each source is asked what a change means
to it (`Source.touched`); only the sessions it names are derived again.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from ocr_tui.core.headers import HeaderBoard
from ocr_tui.core.places import owns
from ocr_tui.core.reading import list_sessions
from ocr_tui.core.sessions import SessionStore
from ocr_tui.core.source import Source, Touch
from ocr_tui.core.view import SessionView

Diff = tuple[list[SessionView], list[str]]  # (changed or new views, removed ids)


class Refresh:
    """Incremental updates of `table`, a SessionStore (and `board`) from `sources`."""

    def __init__(self, sources: list[Source], table: SessionStore, board: HeaderBoard) -> None:
        self.sources = sources
        self.table = table
        self.board = board
        self.touched: set[str] = set()  # view ids the last `apply` re-read (changed or not)

    def apply(self, paths: Iterable[str | Path], now: datetime) -> Diff:
        """Re-derive the sessions that `paths` touched."""
        paths = [Path(p) for p in paths]
        changed: list[SessionView] = []
        removed: list[str] = []
        self.touched = set()
        for src in self.sources:
            mine = [p for p in paths if owns(src, p)]
            if not mine:
                continue
            try:
                touch = src.touched(mine)
            except Exception as exc:
                self.board.report(src, exc)
                touch = Touch(relist=True, everything=True)
            c, r = self._refresh(src, touch, now)
            changed += c
            removed += r
        return changed, sorted(set(removed))

    def relist(self, ids: Iterable[str], now: datetime) -> Diff:
        """List every source again, and re-derive the sessions `ids`."""
        changed: list[SessionView] = []
        removed: list[str] = []
        keys: dict[int, set[str]] = {}
        for vid in ids:
            where = self.table.where(vid)
            if where is not None:
                keys.setdefault(id(where[0]), set()).add(where[1])
        for src in self.sources:
            c, r = self._refresh(src, Touch(keys=keys.get(id(src), set()), relist=True), now)
            changed += c
            removed += r
        return changed, sorted(set(removed))

    def poll(self, now: datetime) -> tuple[list[SessionView], list[str], bool]:
        """Ask every source to poll its unwatched places. Returns (changed, removed, moved):
        moved when one of them said its sessions moved (the directories to watch may have)."""
        changed: list[SessionView] = []
        removed: list[str] = []
        rearm = False
        for src in self.sources:
            try:
                moved = src.poll()
            except Exception as exc:
                self.board.report(src, exc)
                continue
            if moved:
                rearm = True
                c, r = self._refresh(src, Touch(relist=True, everything=True), now)
                changed += c
                removed += r
        return changed, sorted(set(removed)), rearm

    def _refresh(self, src: Source, touch: Touch, now: datetime) -> Diff:
        table = self.table
        changed: list[SessionView] = []
        removed: list[str] = []
        keys = table.keys(src)  # live: kept up to date, never rebuilt
        want = set(touch.keys)
        if touch.everything:
            want |= set(keys)
        relist = touch.relist or any(k not in keys for k in want)
        if relist:
            current = list_sessions(src, self.board.report)
            for key in [k for k in keys if k not in current]:
                vid = keys[key]
                table.forget(vid)
                removed.append(vid)
            for key, path in current.items():
                if key not in keys:
                    table.place(src, key, path)
                    want.add(key)
                elif table.path(keys[key]) != path:  # the session now lives elsewhere
                    table.place(src, key, path)
                    want.add(key)
        for key in sorted(want):
            vid = keys.get(key)
            if vid is None:
                continue
            if not os.path.lexists(table.path(vid)):
                table.forget(vid)
                removed.append(vid)
                continue
            view = table.derive(vid, now)
            self.touched.add(vid)
            if table.views.get(vid) != view:
                table.views[vid] = view
                changed.append(view)
        if touch.header or touch.everything or relist:  # not on every session file change
            self.board.rederive(src, now)
        return changed, removed
