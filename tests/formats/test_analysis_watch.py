"""The watcher follows scientific analysis sessions in the project and in the temp dir."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from ocr_tui.core.engine import Engine
from ocr_tui.core.project import Project
from ocr_tui.core.watch import Changed, Scanned, watch_project
from ocr_tui.formats.analysis.source import AnalysisSource
from tests.formats.test_analysis import example
from tests.test_watch import watch_failure

TIMEOUT = 10.0


def put(path: Path, obj: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(obj))
    os.replace(tmp, path)


@pytest.mark.parametrize("poll", [False, True])
def test_watch_project_and_temp_sessions(tmp_path, tmp_path_factory, poll):
    tmp_dir = tmp_path_factory.mktemp("fake-tmp")
    root = tmp_path / "proj"
    live, temp = "session-20260204-143022-1", "session-20260204-143022-7"
    f = root / ".scientific-analysis-session" / "session-state.json"
    put(f, example(session_id=live, current_phase=1))
    engine = Engine(Project(root), sources=[AnalysisSource(root, tmp_dir=tmp_dir)])
    mine = {"config": {"output_directory": str(root)}, "session_id": temp}

    async def main():
        events: list = []
        new = asyncio.Event()
        stop = asyncio.Event()

        async def run():
            async for ev in watch_project(engine, stop=stop, poll=poll):
                events.append(ev)
                new.set()

        async def wait_for(pred, *, what: str):
            """The first event for which `pred` holds; `what` says, in words, what is awaited
            (a timeout says so, with the last events seen)."""

            async def inner():
                seen = 0
                while True:
                    for ev in events[seen:]:
                        if pred(ev):
                            return ev
                    seen = len(events)
                    new.clear()
                    await new.wait()

            try:
                return await asyncio.wait_for(inner(), TIMEOUT)
            except TimeoutError:
                raise AssertionError(watch_failure(what, TIMEOUT, events)) from None

        def changed(vid, test):
            return lambda ev: (
                isinstance(ev, Changed) and any(v.id == vid and test(v) for v in ev.sessions)
            )

        task = asyncio.create_task(run())
        try:
            ev = await wait_for(lambda ev: isinstance(ev, Scanned), what="the first scan")
            assert [v.id for v in ev.sessions] == [live]
            # The live session advances.
            put(f, example(session_id=live, current_phase=2))
            await wait_for(
                changed(live, lambda v: v.phase_number == 3),
                what="the live session to reach phase 3",
            )
            # A fallback session appears in the temp dir: found by poll, then watched.
            d = tmp_dir / "scientific-analysis-architect-session-20260204-143022-7"
            put(d / "session-state.json", example(current_phase=1, **mine))
            await wait_for(
                changed(temp, lambda v: v.phase_number == 2 and "tmp" in v.badges),
                what="the temp-dir session to show phase 2, marked tmp",
            )
            put(d / "session-state.json", example(current_phase=5, **mine))
            await wait_for(
                changed(temp, lambda v: v.phase_number == 6),
                what="the temp-dir session to reach phase 6",
            )
            # The skill's cleanup renames it: the same session (same id), now archived.
            os.rename(d, d.with_name(d.name + ".archive"))
            ev = await wait_for(
                changed(temp, lambda v: v.status == "closed" and "archived" in v.badges),
                what="the renamed session to show closed and archived",
            )
            assert temp not in ev.removed
        finally:
            stop.set()
            task.cancel()
            try:
                await task
            except (asyncio.CancelledError, Exception):
                pass

    asyncio.run(main())
