"""The watcher, driven for real: files written while it runs show up as events."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from ocr_tui.core.engine import Engine
from ocr_tui.core.project import Project
from ocr_tui.core.watch import Changed, ProjectMissing, Scanned, watch_project

TIMEOUT = 10.0


def write_json(path: Path, obj: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(obj))
    os.replace(tmp, path)


class Collector:
    """Runs watch_project in a task and lets a test wait for an event matching a predicate."""

    def __init__(
        self, engine: Engine, poll: bool = False, backend: str = "auto", progressive=False
    ) -> None:
        self.progressive = progressive
        self.backend = backend
        self.engine = engine
        self.events: list = []
        self.stop = asyncio.Event()
        self.poll = poll
        self._new = asyncio.Event()
        self.task: asyncio.Task | None = None

    async def __aenter__(self) -> Collector:
        """`async with Collector(engine) as c`: runs it in a task, stopped on the way out."""
        self.task = asyncio.create_task(self.run())
        return self

    async def __aexit__(self, *exc) -> None:
        self.stop.set()
        assert self.task is not None
        await asyncio.wait_for(self.task, TIMEOUT)

    async def run(self) -> None:
        async for ev in watch_project(
            self.engine,
            stop=self.stop,
            poll=self.poll,
            backend=self.backend,
            progressive=self.progressive,
        ):
            self.events.append(ev)
            self._new.set()

    async def wait_for(self, pred, timeout: float = TIMEOUT, *, what: str):
        """The first event for which `pred` holds; `what` says, in words, what is awaited (a
        timeout says so, with the last events seen)."""

        async def inner():
            seen = 0
            while True:
                for ev in self.events[seen:]:
                    if pred(ev):
                        return ev
                seen = len(self.events)
                self._new.clear()
                if self.task is not None and self.task.done():
                    self.task.result()  # its error, if any
                    raise AssertionError(f"the watch ended: {self.events}")
                await self._new.wait()

        try:
            return await asyncio.wait_for(inner(), timeout)
        except TimeoutError:
            raise AssertionError(watch_failure(what, timeout, self.events)) from None


def watch_failure(what: str, timeout: float, events: list, last: int = 5) -> str:
    """A timed-out wait on watch events: what it waited for and the last events seen."""
    shown = [repr(ev) for ev in events[-last:]]
    lines = [f"    {line[:200] + '…' if len(line) > 200 else line}" for line in shown]
    return (
        f"timed out after {timeout}s waiting for {what}; {len(events)} events seen, the last:\n"
        + ("\n".join(lines) or "    (none)")
    )


def changed_phase(sid: str, phase: str):
    return lambda ev: (
        isinstance(ev, Changed) and any(v.id == sid and v.phase == phase for v in ev.sessions)
    )


@pytest.fixture
def project(tmp_path: Path) -> Project:
    (tmp_path / ".ocr" / "sessions").mkdir(parents=True)
    return Project(tmp_path)


BACKENDS = pytest.mark.parametrize(
    "poll,backend",
    [(False, "auto"), (False, "watchfiles"), (True, "auto")],
    ids=["inotify", "watchfiles", "polling"],
)


@BACKENDS
async def test_live_changes(project: Project, poll: bool, backend: str):
    sid = "2026-11-22-main"
    sdir = project.sessions_dir / sid
    write_json(sdir / "state.json", {"current_phase": "context", "status": "active"})
    c = Collector(Engine(project), poll=poll, backend=backend)
    task = asyncio.create_task(c.run())
    try:
        first = await c.wait_for(lambda ev: isinstance(ev, Scanned), what="the first scan")
        assert [v.id for v in first.sessions] == [sid]
        assert first.sessions_dir

        write_json(sdir / "state.json", {"current_phase": "reviews", "status": "active"})
        await c.wait_for(
            changed_phase(sid, "reviews"), what="the session to show the reviews phase"
        )

        review = sdir / "rounds" / "round-1" / "reviews" / "principal-1.md"
        review.parent.mkdir(parents=True)
        review.write_text("### Finding 1: x\n- **Severity**: High\n")
        await c.wait_for(
            lambda ev: (
                isinstance(ev, Changed)
                and any(v.id == sid and v.rounds and v.rounds[0].reviewers for v in ev.sessions)
            ),
            what="the session's first round to list a reviewer",
        )

        (project.sessions_dir / "2026-11-23-other").mkdir()
        await c.wait_for(
            lambda ev: (
                isinstance(ev, Changed) and any(v.id == "2026-11-23-other" for v in ev.sessions)
            ),
            what="the new session 2026-11-23-other to be listed",
        )
        shutil.rmtree(project.sessions_dir / "2026-11-23-other")
        await c.wait_for(
            lambda ev: isinstance(ev, Changed) and "2026-11-23-other" in ev.removed,
            what="2026-11-23-other to be gone",
        )
    finally:
        c.stop.set()
        await asyncio.wait_for(task, TIMEOUT)


@BACKENDS
async def test_sessions_dir_deleted_and_recreated(project: Project, poll: bool, backend: str):
    sid = "2026-11-22-main"
    write_json(project.sessions_dir / sid / "state.json", {"current_phase": "context"})
    c = Collector(Engine(project), poll=poll, backend=backend)
    task = asyncio.create_task(c.run())
    try:
        await c.wait_for(lambda ev: isinstance(ev, Scanned), what="the first scan")
        shutil.rmtree(project.sessions_dir)
        gone = await c.wait_for(
            lambda ev: isinstance(ev, Changed) and sid in ev.removed,
            what="the session to be gone with its directory",
        )
        assert not c.engine.views
        await c.wait_for(
            lambda ev: isinstance(ev, Changed) and not ev.sessions_dir,
            what="the report that the sessions directory is gone",
        )
        del gone
        write_json(project.sessions_dir / sid / "state.json", {"current_phase": "analysis"})
        await c.wait_for(
            changed_phase(sid, "analysis"), what="the recreated session to show the analysis phase"
        )
    finally:
        c.stop.set()
        await asyncio.wait_for(task, TIMEOUT)


@BACKENDS
async def test_whole_ocr_dir_deleted_then_back(project: Project, poll: bool, backend: str):
    c = Collector(Engine(project), poll=poll, backend=backend)
    task = asyncio.create_task(c.run())
    try:
        await c.wait_for(lambda ev: isinstance(ev, Scanned), what="the first scan")
        shutil.rmtree(project.ocr_dir)
        await c.wait_for(
            lambda ev: isinstance(ev, ProjectMissing), what="the report that the project is gone"
        )
        write_json(project.sessions_dir / "s1" / "state.json", {"current_phase": "reviews"})
        await c.wait_for(
            lambda ev: isinstance(ev, Changed) and any(v.id == "s1" for v in ev.sessions),
            what="the session s1 to be listed in the recreated project",
        )
    finally:
        c.stop.set()
        await asyncio.wait_for(task, TIMEOUT)


def _write_db(path: Path, phase: str) -> None:
    """Like upstream's sql.js writer: build a new file, rename it over ocr.db."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"ocr.db.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    con = sqlite3.connect(tmp)
    con.execute(
        "CREATE TABLE sessions (id TEXT PRIMARY KEY, branch TEXT NOT NULL, status TEXT, "
        "workflow_type TEXT, current_phase TEXT, phase_number INT, current_round INT, "
        "current_map_run INT, started_at TEXT, updated_at TEXT, session_dir TEXT)"
    )
    con.execute(
        "INSERT INTO sessions VALUES ('s1','main','active','review',?,1,1,1,"
        "'2026-11-22 01:00:00','2026-11-22 01:00:00','x')",
        (phase,),
    )
    con.commit()
    con.close()
    os.replace(tmp, path)


@BACKENDS
async def test_ocr_db_replaced(project: Project, poll: bool, backend: str):
    (project.sessions_dir / "s1").mkdir()
    _write_db(project.db_path, "context")
    c = Collector(Engine(project), poll=poll, backend=backend)
    task = asyncio.create_task(c.run())
    try:
        first = await c.wait_for(lambda ev: isinstance(ev, Scanned), what="the first scan")
        assert first.sessions[0].source == "ocr.db"
        assert first.sessions[0].phase == "context"
        _write_db(project.db_path, "discourse")
        await c.wait_for(
            changed_phase("s1", "discourse"),
            what="the session s1 to show the discourse phase from the new ocr.db",
        )
        assert not list(project.data_dir.glob("*-journal"))
        assert not list(project.data_dir.glob("*-wal"))
    finally:
        c.stop.set()
        await asyncio.wait_for(task, TIMEOUT)


@BACKENDS
async def test_progressive_start_lists_stand_ins_then_reads_newest_first(
    project: Project, poll: bool, backend: str
):
    sids = [f"2026-11-{d:02d}-s" for d in range(1, 41)]
    for i, sid in enumerate(sids):
        write_json(project.sessions_dir / sid / "state.json", {"current_phase": "context"})
        t = 1_700_000_000 + i * 60
        os.utime(project.sessions_dir / sid, (t, t))
    engine = Engine(project)
    c = Collector(engine, poll=poll, backend=backend, progressive=True)
    task = asyncio.create_task(c.run())
    try:
        first = await c.wait_for(
            lambda ev: isinstance(ev, Scanned), what="the first scan (stand-in rows)"
        )
        assert sorted(v.id for v in first.sessions) == sids
        assert all(v.source == "loading" for v in first.sessions)
        # a session created and one changed while the list loads are both seen
        write_json(
            project.sessions_dir / "2026-12-01-new" / "state.json", {"current_phase": "reviews"}
        )
        write_json(project.sessions_dir / sids[0] / "state.json", {"current_phase": "reviews"})
        await c.wait_for(
            lambda ev: not engine.pending and "2026-12-01-new" in engine.views,
            what="every session read, the newest listed",
        )
        await c.wait_for(
            lambda ev: engine.views[sids[0]].phase == "reviews",
            what="the newest session to show the reviews phase",
        )
        assert all(v.source != "loading" for v in engine.views.values())
        order = [v.id for ev in c.events if isinstance(ev, Changed) for v in ev.sessions]
        assert order.index(sids[-1]) < order.index(sids[1])  # the newest directory first
    finally:
        c.stop.set()
        await asyncio.wait_for(task, TIMEOUT)


def test_watch_session_option_streams_only_that_session(tmp_path):
    """`watch --jsonl --session ID`: the snapshot and the changes of that session only."""
    from tests.robustness.support import put, state_json, watch_jsonl

    sessions = tmp_path / ".ocr" / "sessions"
    for sid in ("2026-11-22-a", "2026-11-22-b"):
        put(sessions / sid / "state.json", state_json(current_phase="context"))
    wrote: list[bool] = []

    def until(lines: list[dict]) -> bool:
        if not wrote and any(d["type"] == "snapshot" for d in lines):
            wrote.append(True)
            put(sessions / "2026-11-22-a" / "state.json", state_json(current_phase="analysis"))
            put(sessions / "2026-11-22-b" / "state.json", state_json(current_phase="reviews"))
        return any(d["type"] == "changed" for d in lines)

    lines = watch_jsonl(tmp_path, 1, until=until, args=("--session", "2026-11-22-b"))
    ids = [(d["type"], d["session"]["id"]) for d in lines if "session" in d]
    assert ids[0] == ("snapshot", "2026-11-22-b")
    assert ("changed", "2026-11-22-b") in ids
    assert all(sid == "2026-11-22-b" for _, sid in ids)


async def test_a_busy_project_does_not_starve_the_ticks(tmp_path: Path, monkeypatch):
    """An agent writing without a pause of TICK_S (no Tick from the watcher) still gets the
    ticks' work done every TICK_S: here, a project made under the scanned directory is found
    while another one's state.json changes every 50 ms."""
    from ocr_tui.core import watch, workspace_projects
    from ocr_tui.core.workspace import Scope, Workspace

    monkeypatch.setattr(workspace_projects, "DISCOVER_EVERY_S", 0.0)
    monkeypatch.setattr(watch, "TICK_S", 0.5)
    busy = tmp_path / "busy"
    state = busy / ".ocr" / "sessions" / "2026-11-22-main" / "state.json"
    write_json(state, {"current_phase": "context", "status": "active"})
    c = Collector(Workspace(Scope(scan=tmp_path)))
    task = asyncio.create_task(c.run())
    stop_writing = asyncio.Event()

    async def write_forever() -> None:
        n = 0
        while not stop_writing.is_set():
            n += 1
            write_json(state, {"current_phase": "reviews", "status": "active", "n": n})
            await asyncio.sleep(0.05)

    writer = asyncio.create_task(write_forever())
    try:
        await c.wait_for(lambda ev: isinstance(ev, Scanned), what="the first scan")
        await c.wait_for(
            changed_phase("busy/2026-11-22-main", "reviews"),
            what="the busy project's session to show the reviews phase",
        )
        write_json(tmp_path / "new" / ".ocr" / "sessions" / "2026-11-23-x" / "state.json",
                   {"current_phase": "context", "status": "active"})  # fmt: skip
        await c.wait_for(
            lambda ev: (
                isinstance(ev, Changed) and any(v.id == "new/2026-11-23-x" for v in ev.sessions)
            ),
            what="the new project's session to be listed",
        )
    finally:
        stop_writing.set()
        await writer
        c.stop.set()
        await asyncio.wait_for(task, TIMEOUT)
