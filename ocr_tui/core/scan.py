"""A full scan: list every session of every source (cheap), then derive them a slice at a time,
newest first, so a list of 10,000 shows before one is parsed.

Sessions unchanged since the last scan (of any process) are served from the persistent result
cache (`result_cache`); on a large first start, the sessions it does not hold are derived by
worker processes (`pool`), whose views this process only merges.
"""

from __future__ import annotations

import time
from concurrent.futures import FIRST_COMPLETED, Future, wait
from datetime import datetime
from pathlib import Path

from ocr_tui.core import pool as workers
from ocr_tui.core.headers import HeaderBoard
from ocr_tui.core.reading import finish_view, list_sessions, mtime, placeholder_view
from ocr_tui.core.result_cache import ResultCache
from ocr_tui.core.sessions import SessionStore
from ocr_tui.core.source import Source
from ocr_tui.core.view import SessionView

# A batch sent to the pool: its source, when it was derived, and (view id, key, path,
# the session's derivation count when sent) of each session.
_Batch = tuple[Source, datetime, list[tuple[str, str, Path, int]]]


class Scan:
    """The full scan of `sources` into `table` (and `board`); `pending` is what is left."""

    def __init__(self, sources: list[Source], table: SessionStore, board: HeaderBoard) -> None:
        self.sources = sources
        self.table = table
        self.board = board
        self.pending: list[str] = []  # view ids queued by `begin`, derived by `step`
        # Views of sessions unchanged since the last scan (of any process) come from here.
        self.cache = ResultCache(board.project.root, sources)
        self._pool: workers.Pool | None = None
        self._inflight: dict[Future, _Batch] = {}
        self._running = False
        self._release_at_end = False
        self.pooled = 0  # sessions sent to worker processes by the last `begin`

    def remaining(self) -> list[str]:
        """The view ids left to derive: queued here, then those in worker processes."""
        if not self._inflight:
            return self.pending
        return self.pending + [b[0] for _, _, batch in self._inflight.values() for b in batch]

    @property
    def waiting(self) -> bool:
        """Sessions are left to derive (queued here, or in worker processes)."""
        return bool(self.pending or self._inflight)

    def begin(self, now: datetime, *, placeholders: bool, pool: bool = True) -> None:
        """Forget everything, list every session and queue them, newest first. With
        `placeholders`, each session gets a stand-in view at once (`source == "loading"`).
        `pool` False: no worker processes now (a workspace decides for all its projects
        at once, then calls `start_pool`)."""
        self._stop_pool()
        before = self.table.placed()
        self.table.clear()
        self.board.clear()
        self.cache.load()
        self.table.cache = self.cache if self.cache.enabled else None
        self._running, self._release_at_end = True, False
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
                    self.table.views[vid] = self.table.stamp(view)
                    order.append((-(mtime(path) or 0.0), vid))
                else:
                    order.append((0.0, vid))
            self.board.rederive(src, now)
        self.table.forget_gone(before)  # those listed before and not now: gone
        order.sort()
        self.pending = [vid for _, vid in reversed(order)]  # popped from the end: newest first
        if pool:
            self._start_pool(now)
        if not self.waiting:
            self._end()

    def step(self, now: datetime, budget_s: float | None) -> list[SessionView]:
        """Derive queued sessions for about `budget_s` seconds (all with None); returns them
        (with the views worker processes sent meanwhile)."""
        deadline = None if budget_s is None else time.perf_counter() + budget_s
        out: list[SessionView] = self._collect(now)
        while self.pending or self._inflight:
            if not self.pending:  # only the workers' batches are left: wait for one
                left = None if deadline is None else max(0.0, deadline - time.perf_counter())
                wait(list(self._inflight), timeout=left, return_when=FIRST_COMPLETED)
                out += self._collect(now)
                if deadline is not None and time.perf_counter() >= deadline:
                    break
                continue
            vid = self.pending.pop()
            if self.table.where(vid) is None:
                continue
            self.table.views[vid] = view = self.table.derive(vid, now)
            out.append(view)
            if deadline is not None and time.perf_counter() >= deadline:
                break
        if self._inflight:
            out += self._collect(now)
        if self._running and not self.waiting:
            self._end()
        return out

    def settle(self) -> None:
        """The start-up is over (the caller re-read what it had to): drop the views kept for
        it, now or when the scan ends."""
        if self._running:
            self._release_at_end = True
        else:
            self._release()

    # -- worker processes -------------------------------------------------------------------

    def start_pool(self, now: datetime) -> None:
        """Worker processes for what is left, however few (several projects' scans: their
        sessions together were worth it)."""
        self._start_pool(now, force=True)

    def _start_pool(self, now: datetime, force: bool = False) -> None:
        """Send the sessions no cached view stands for to worker processes, in batches,
        newest first, when there are enough of them to be worth it."""
        table, known = self.table, self.cache.known
        cold: list[tuple[Source, str, str, Path]] = []
        for vid in reversed(self.pending):  # newest first
            where = table.where(vid)
            if where is None:
                continue
            src, key, path = where
            if workers.pool_safe(src) and (src.framework, key) not in known:
                cold.append((src, vid, key, path))
        self.pooled = 0
        if not (force and cold and workers.wanted(workers.POOL_MIN)) and not workers.wanted(
            len(cold)
        ):
            return
        try:
            self._pool = workers.Pool()
        except Exception:  # no processes here (a sandbox): derive in-thread
            self._pool = None
            return
        sent: set[str] = set()
        batch: list[tuple[str, str, Path, int]] = []
        for i, (src, vid, key, path) in enumerate(cold):
            batch.append((vid, key, path, table.generation(vid)))
            last = i + 1 == len(cold)
            if len(batch) >= workers.BATCH or last or cold[i + 1][0] is not src:
                fut = self._pool.submit(src, [(k, p) for _, k, p, _ in batch], now)
                if fut is None:
                    break
                self._inflight[fut] = (src, now, batch)
                sent |= {b[0] for b in batch}
                batch = []
        self.pooled = len(sent)
        if sent:
            self.pending = [vid for vid in self.pending if vid not in sent]

    def _collect(self, now: datetime) -> list[SessionView]:
        """Merge the batches the workers finished; a failed batch is queued here instead."""
        out: list[SessionView] = []
        done = [f for f in self._inflight if f.done()]
        for fut in done:
            src, at, batch = self._inflight.pop(fut)
            got = workers.answers(fut)
            if got is None:  # the worker died or its answer is unreadable: derive them here
                self.pending += [b[0] for b in reversed(batch)]
                continue
            seen: set[int] = set()
            for i, fp, ok, view in got:
                if not 0 <= i < len(batch) or i in seen:
                    continue
                seen.add(i)
                vid, key, path, gen = batch[i]
                if self.table.where(vid) != (src, key, path) or self.table.generation(vid) != gen:
                    continue  # gone, moved, or derived here since (a live change): newer
                if view is None:
                    self.pending.append(vid)
                    continue
                view, expires = finish_view(src, vid, view, now)
                if ok:
                    self.cache.put(src, key, path, fp, view, at)
                self.table.note_expiry(vid, expires)
                self.table.views[vid] = view = self.table.stamp(view)
                out.append(view)
            self.pending += [b[0] for i, b in enumerate(batch) if i not in seen]
        return out

    def close(self) -> None:
        """The engine is dropped, maybe from another thread than the one still stepping it:
        only the workers are let go (their batches left come back cancelled, and `_collect`
        derives those in the thread); nothing the stepping thread iterates is touched."""
        pool = self._pool
        if pool is not None:
            pool.close()

    def _stop_pool(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None
        self._inflight.clear()

    # -- the end ------------------------------------------------------------------------------

    def _end(self) -> None:
        self._running = False
        self._stop_pool()
        for src in self.sources:
            try:
                src.end_scan()
            except Exception as exc:
                self.board.report(src, exc)
        self.cache.save()  # kept for lookups until `settle`
        if self._release_at_end:
            self._release()

    def _release(self) -> None:
        self.table.cache = None
        self.cache.forget()
