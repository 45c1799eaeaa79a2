"""The Source interface from a third party's side: a toy format registered as a plugin is
discovered, listed beside OCR, watched live, and its bugs stay on its own sessions."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime
from pathlib import Path

import pytest
from test_watch import TIMEOUT, Collector, write_json

from ocr_tui.core import registry
from ocr_tui.core.engine import Engine
from ocr_tui.core.project import Project, find_project
from ocr_tui.core.source import Source, Touch
from ocr_tui.core.view import Elapsed, SessionView
from ocr_tui.core.watch import Changed, Scanned, watch_project
from ocr_tui.formats.ocr.source import OcrSource


class ToySource(Source):
    """`.toy/*.json`: {"phase": "...", "boom": bool}."""

    framework = "toy"
    label = "Toy"
    markers = (".toy",)

    def watch_dirs(self) -> list[Path]:
        return [self.root / ".toy"]

    def list_sessions(self) -> dict[str, Path]:
        d = self.root / ".toy"
        return {p.stem: p for p in sorted(d.glob("*.json"))} if d.is_dir() else {}

    def touched(self, paths) -> Touch:
        t = Touch()
        for p in paths:
            if p.suffix == ".json":
                t.keys.add(p.stem)
            t.relist = True
        return t

    def derive(self, key: str, path: Path, now: datetime) -> SessionView:
        data = json.loads(path.read_text())
        if data.get("boom"):
            raise RuntimeError("toy reader bug")
        return SessionView(
            id=key,
            branch=None,
            source=path.name,
            status="active",
            workflow="toy",
            phase=data["phase"],
            phase_label=data["phase"].title(),
            phase_number=1,
            phase_total=2,
            complete=False,
            started_at=None,
            updated_at=None,
            last_activity=None,
            stalled=False,
            elapsed=Elapsed(since=None, seconds=None, running=False),
            current_round=None,
            rounds=[],
            current_map_run=None,
            map_runs=[],
            problems=[],
            path=str(path),
            framework="toy",
        )


class FakeEntryPoint:
    def __init__(self, name: str, value: object) -> None:
        self.name, self.value, self._obj = name, str(value), value

    def load(self):
        if isinstance(self._obj, Exception):
            raise self._obj
        return self._obj


@pytest.fixture
def plugins(monkeypatch):
    """Register ToySource (and a broken plugin) through the entry-point group."""
    registry.source_classes.cache_clear()
    registry.load_errors.clear()
    eps = [FakeEntryPoint("toy", ToySource), FakeEntryPoint("broken", ImportError("no module"))]
    monkeypatch.setattr(
        registry, "entry_points", lambda group: eps if group == registry.GROUP else []
    )
    yield
    registry.source_classes.cache_clear()
    registry.load_errors.clear()


def engine_for(root: Path) -> Engine:
    return Engine(Project(root), sources=[OcrSource(root), ToySource(root)])


def test_entry_point_plugins_are_found_and_broken_ones_reported(plugins, tmp_path):
    classes = registry.source_classes()
    assert classes[0] is OcrSource and ToySource in classes
    assert [name for name, _ in registry.load_errors] == ["broken"]
    (tmp_path / ".toy").mkdir()
    (tmp_path / "deep" / "er").mkdir(parents=True)
    assert find_project(tmp_path / "deep" / "er").root == tmp_path  # the toy marker counts
    assert ".toy" in registry.markers()


def test_mixed_project_lists_both_and_a_reader_bug_stays_on_its_session(tmp_path):
    (tmp_path / ".ocr" / "sessions" / "2026-01-01-main").mkdir(parents=True)
    write_json(tmp_path / ".toy" / "a.json", {"phase": "build"})
    write_json(tmp_path / ".toy" / "b.json", {"phase": "x", "boom": True})
    views = {v.id: v for v in engine_for(tmp_path).scan()}
    assert views.keys() == {"2026-01-01-main", "a", "b"}
    assert views["2026-01-01-main"].framework == "ocr"
    assert (views["a"].framework, views["a"].phase) == ("toy", "build")
    assert views["b"].framework == "toy" and "toy reader bug" in views["b"].problems[0]
    assert views["a"].problems == [] and views["2026-01-01-main"].problems == []


def test_apply_touches_only_the_changed_format(tmp_path):
    (tmp_path / ".ocr" / "sessions" / "2026-01-01-main").mkdir(parents=True)
    write_json(tmp_path / ".toy" / "a.json", {"phase": "build"})
    engine = engine_for(tmp_path)
    engine.scan()
    write_json(tmp_path / ".toy" / "a.json", {"phase": "ship"})
    changed, removed = engine.apply([tmp_path / ".toy" / "a.json"])
    assert [(v.id, v.phase) for v in changed] == [("a", "ship")] and removed == []
    (tmp_path / ".toy" / "a.json").unlink()
    assert engine.apply([tmp_path / ".toy" / "a.json"]) == ([], ["a"])


def test_same_id_in_two_formats_gets_a_prefix(tmp_path):
    (tmp_path / ".ocr" / "sessions" / "same").mkdir(parents=True)
    write_json(tmp_path / ".toy" / "same.json", {"phase": "build"})
    ids = sorted(v.id for v in engine_for(tmp_path).scan())
    assert ids == ["same", "toy:same"]


@pytest.mark.parametrize("backend", ["auto", "watchfiles"], ids=["inotify", "watchfiles"])
async def test_a_format_directory_appearing_later_is_watched(tmp_path, backend):
    (tmp_path / ".ocr" / "sessions").mkdir(parents=True)
    c = Collector(engine_for(tmp_path), backend=backend)
    task = asyncio.create_task(c.run())
    try:
        await c.wait_for(lambda ev: isinstance(ev, Scanned), what="the first scan")
        write_json(tmp_path / ".toy" / "a.json", {"phase": "build"})
        await c.wait_for(
            lambda ev: isinstance(ev, Changed) and any(v.id == "a" for v in ev.sessions),
            what="the toy session a to be listed",
        )
        write_json(tmp_path / ".toy" / "a.json", {"phase": "ship"})
        await c.wait_for(
            lambda ev: (
                isinstance(ev, Changed)
                and any(v.id == "a" and v.phase == "ship" for v in ev.sessions)
            ),
            what="the toy session a to show the ship phase",
        )
    finally:
        c.stop.set()
        await asyncio.wait_for(task, TIMEOUT)


async def test_sessions_dir_recreated_empty_is_reported(tmp_path):
    sessions = tmp_path / ".ocr" / "sessions"
    sessions.mkdir(parents=True)
    c = Collector(Engine(Project(tmp_path), sources=[OcrSource(tmp_path)]))
    task = asyncio.create_task(c.run())
    try:
        await c.wait_for(
            lambda ev: isinstance(ev, Scanned) and ev.sessions_dir,
            what="the first scan, with a sessions directory",
        )
        sessions.rmdir()
        await c.wait_for(
            lambda ev: isinstance(ev, Changed) and not ev.sessions_dir,
            what="the report that the sessions directory is gone",
        )
        sessions.mkdir()
        await c.wait_for(
            lambda ev: isinstance(ev, Changed) and ev.sessions_dir,
            what="the report that the sessions directory is back",
        )
    finally:
        c.stop.set()
        await asyncio.wait_for(task, TIMEOUT)
    assert watch_project  # the module under test
