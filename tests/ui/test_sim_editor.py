"""`e` in the simulated project: the demo's and `ocr-tui simulate`'s findings and
map files are there to open, at the finding's line, not `… does not exist`."""

from __future__ import annotations

import math
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from ocr_tui.cli import make_app
from ocr_tui.core.project import Project
from ocr_tui.formats.ocr.sim import Simulator
from ocr_tui.ui.navigation import FindingsTarget, MapRunTarget
from ocr_tui.ui.screens.ocr.findings.screen import FindingsScreen
from ocr_tui.ui.screens.ocr.map_run.screen import MapRunScreen

from .builders import SIZE, fixed_clock, loaded, wait_until

START = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)


def fake_editor(tmp_path: Path) -> tuple[Path, Path]:
    """An editor named like vim (`+LINE FILE`) that records its arguments."""
    record = tmp_path / "editor-args.txt"
    (tmp_path / "bin").mkdir()
    script = tmp_path / "bin" / "vim"
    script.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > "{record}"\n')
    script.chmod(0o755)
    return script, record


async def test_e_opens_the_simulated_finding_and_map_file(tmp_path: Path, monkeypatch) -> None:
    root = tmp_path / "proj"
    sim = Simulator(root, store="ocr.db", seed=7, start=START, speed=math.inf, history=0)
    sim.run()
    script, record = fake_editor(tmp_path)
    monkeypatch.setenv("VISUAL", str(script))
    app = make_app(Project(root), clock=fixed_clock)

    @contextmanager
    def suspend():  # a headless driver cannot suspend; the real one does
        yield

    monkeypatch.setattr(app, "suspend", suspend)
    toasts: list[str] = []
    sid = sim.live_session_id
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        monkeypatch.setattr(app, "notify", lambda m, **kw: toasts.append(m))
        app.open_target(FindingsTarget(sid, 1, "rounds/round-1"))
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, FindingsScreen),
            what="the findings screen to open",
        )
        screen = app.screen
        await wait_until(
            pilot,
            lambda: screen.loads > 0 and screen.findings is not None,
            what="the findings screen to load its findings",
        )
        await pilot.pause()
        finding = screen.cursor_finding()
        await pilot.press("e")
        await wait_until(
            pilot,
            lambda: record.exists() and toasts,
            what="the editor to be run and a toast to say so",
        )
        where = finding.location
        assert record.read_text().split("\n")[:2] == [
            f"+{where.line_start}",
            str((root / where.file).resolve()),
        ]
        assert toasts == [f"Back from {where.file}:{where.line_start} in vim."]

        record.unlink()
        app.open_target(MapRunTarget(sid, 1, "map/runs/run-1"))
        await wait_until(
            pilot, lambda: isinstance(app.screen, MapRunScreen), what="the map run screen to open"
        )
        screen = app.screen
        await wait_until(pilot, lambda: screen.loads > 0, what="the map run screen to load")
        await pilot.pause()
        await pilot.press("enter", "e")  # into the section's files; its first
        await wait_until(
            pilot,
            lambda: record.exists() and len(toasts) == 2,
            what="the editor to be run on the map file and a second toast",
        )
        opened = record.read_text().split("\n")[0]
        assert Path(opened).is_file() and Path(opened).is_relative_to(root.resolve())
        assert "does not exist" not in " ".join(toasts)
