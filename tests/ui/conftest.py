"""Fixtures for the dashboard tests: deterministic time zone and home directory, sample
projects, an app on the sample project with a fixed clock."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from ocr_tui.cli import make_app
from ocr_tui.core.project import Project
from ocr_tui.ui.app import OcrTuiApp

from .builders import fixed_clock, make_project, sample_project


@pytest.fixture(autouse=True)
def utc(monkeypatch: pytest.MonkeyPatch):
    """Local times on screen are UTC, whatever the machine's zone."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home directory of our own, so paths on screen read `~/proj` in every run."""
    monkeypatch.setenv("HOME", str(tmp_path))
    return tmp_path


@pytest.fixture
def project(home: Path) -> Project:
    return sample_project(home / "proj")


@pytest.fixture
def empty_project(home: Path) -> Project:
    return make_project(home / "proj")


@pytest.fixture
def app(project: Project) -> OcrTuiApp:
    return make_app(project, clock=fixed_clock)


@pytest.fixture(scope="module")
def sim_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The simulator's project (its closed two-round review `2026-11-22-main` among them), at
    a fixed start: the history sessions' ids carry their dates."""
    from ocr_tui.formats.ocr.sim import Simulator

    root = tmp_path_factory.mktemp("sim")
    start = datetime(2026, 11, 23, 22, 0, tzinfo=UTC)
    Simulator(root, store="ocr.db", seed=7, speed=1, start=start).setup()
    return root
