"""`make screenshots`: SVGs of each screen from simulator data at a fixed clock, made with the
app's own `save_screenshot`. Usage: python -m ocr_tui.screenshots DIR"""

from __future__ import annotations

import asyncio
import math
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from ocr_tui.core.project import Project
from ocr_tui.demo import every_format_part_way
from ocr_tui.formats.ocr.sim import Simulator

START = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)
SIZE = (120, 36)


async def _settle(pilot, app, cond, tries: int = 100) -> None:
    for _ in range(tries):
        if cond():
            break
        await pilot.pause(0.05)
    await pilot.pause(0.3)


async def shoot(out: Path) -> list[str]:
    from ocr_tui.ui.app import OcrTuiApp  # Textual only when shooting (the house rules)

    out.mkdir(parents=True, exist_ok=True)
    made = []
    with tempfile.TemporaryDirectory(prefix="ocr-tui-shots-") as tmp:
        root = Path(tmp)
        sim = Simulator(root, store="ocr.db", seed=7, start=START, speed=math.inf)
        steps = sim.steps()
        for _ in range(20):  # stop mid-review: round 1, reviewers writing
            next(steps)
        clock = sim.now
        app = OcrTuiApp(Project(root), clock=lambda: clock)
        async with app.run_test(size=SIZE) as pilot:
            await _settle(pilot, app, lambda: len(app.sessions) >= 4)
            made.append(app.save_screenshot("main.svg", str(out)))
            await pilot.press("enter")
            await _settle(pilot, app, lambda: type(app.screen).__name__ == "SessionScreen")
            made.append(app.save_screenshot("session.svg", str(out)))
            await pilot.press("c")
            await _settle(pilot, app, lambda: type(app.screen).__name__ == "RoundScreen")
            made.append(app.save_screenshot("round.svg", str(out)))
            await pilot.press("enter")
            await _settle(pilot, app, lambda: type(app.screen).__name__ == "DocumentScreen")
            await pilot.pause(0.5)
            made.append(app.save_screenshot("document.svg", str(out)))
            # A finished two-round review: its latest round's findings, evolved from round 1.
            two = next(
                v.id
                for v in app.sessions.values()
                if v.framework == "ocr" and v.workflow == "review" and len(v.rounds) >= 2
            )
            app.open_session(two)
            await _settle(pilot, app, lambda: type(app.screen).__name__ == "SessionScreen")
            made.append(app.save_screenshot("session-closed.svg", str(out)))
            await pilot.press("l")  # its event log
            await _settle(pilot, app, lambda: type(app.screen).__name__ == "EventsScreen")
            made.append(app.save_screenshot("events.svg", str(out)))
            await pilot.press("escape")
            await _settle(pilot, app, lambda: type(app.screen).__name__ == "SessionScreen")
            await pilot.press("F")
            await _settle(
                pilot,
                app,
                lambda: type(app.screen).__name__ == "FindingsScreen" and app.screen.loads > 0,
            )
            made.append(app.save_screenshot("findings.svg", str(out)))
            findings = app.screen
            await pilot.press("enter")  # the gravest finding, in full
            await _settle(
                pilot,
                app,
                lambda: type(app.screen).__name__ == "FindingScreen" and app.screen.loads > 0,
            )
            await pilot.pause(0.3)
            made.append(app.save_screenshot("finding.svg", str(out)))
            from ocr_tui.ui.navigation import DiscourseTarget

            target = DiscourseTarget(two, findings.round_number, findings.round_path)
            app.open_target(target)
            await _settle(
                pilot,
                app,
                lambda: type(app.screen).__name__ == "DiscourseScreen" and app.screen.loads > 0,
            )
            made.append(app.save_screenshot("discourse.svg", str(out)))
            from ocr_tui.ui.navigation import MapRunTarget, ReviewsTarget

            app.open_target(ReviewsTarget())  # every round of every session (`r`)
            await _settle(pilot, app, lambda: type(app.screen).__name__ == "ReviewsScreen")
            made.append(app.save_screenshot("reviews.svg", str(out)))
            mapped = next(v for v in app.sessions.values() if any(r.sections for r in v.map_runs))
            run = next(r for r in mapped.map_runs if r.sections)
            app.open_target(MapRunTarget(mapped.id, run.number, run.path))
            await _settle(
                pilot,
                app,
                lambda: type(app.screen).__name__ == "MapRunScreen" and app.screen.loads > 0,
            )
            made.append(app.save_screenshot("map-run.svg", str(out)))
        made += await _formats(root / "formats", out)
        made += await _projects(root / "code", out)
        made += await _remote(root / "remote", out)
        empty = root / "empty"
        (empty / ".ocr" / "sessions").mkdir(parents=True)
        app = OcrTuiApp(Project(empty), clock=lambda: clock)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause(0.5)
            made.append(app.save_screenshot("empty.svg", str(out)))
    return made


async def _formats(root: Path, out: Path) -> list[str]:
    """Every format in one project, each live run part-way (real clock: the format simulators
    write their history relative to now)."""
    from ocr_tui.ui.app import OcrTuiApp

    every_format_part_way(root, store="ocr.db")
    made = []
    app = OcrTuiApp(Project(root))
    async with app.run_test(size=SIZE) as pilot:
        await _settle(pilot, app, lambda: len(app.sessions) >= 12)
        app.clear_notifications()
        await pilot.pause(0.2)
        made.append(app.save_screenshot("formats.svg", str(out)))
        code = next(v.id for v in app.sessions.values() if v.framework == "code" and v.running)
        app.open_session(code)
        await _settle(pilot, app, lambda: type(app.screen).__name__ == "SessionScreen")
        made.append(app.save_screenshot("formats-session.svg", str(out)))
    return made


async def _projects(code: Path, out: Path) -> list[str]:
    """Three projects under one directory (`ocr-tui --scan DIR`), each live run part-way."""
    from ocr_tui.core.workspace import Scope
    from ocr_tui.ui.app import OcrTuiApp

    clock = START
    for name, seed, steps in (("api", 7, 20), ("web", 3, 45), ("team/cli", 5, 8)):
        sim = Simulator(code / name, store="ocr.db", seed=seed, start=START, speed=math.inf)
        playing = sim.steps()
        for _ in range(steps):
            next(playing)
        clock = max(clock, sim.now)
    made = []
    app = OcrTuiApp(None, scope=Scope(scan=code), clock=lambda: clock)
    async with app.run_test(size=SIZE) as pilot:
        await _settle(pilot, app, lambda: len(app.sessions) >= 12)
        app.clear_notifications()
        await pilot.pause(0.2)
        made.append(app.save_screenshot("projects.svg", str(out)))
    return made


def _played(root: Path, seed: int, steps: int) -> None:
    """A simulated project whose live run is `steps` steps in, its last write about now (the
    far side reads it with the real clock: the screenshot's clock is the real one too)."""
    from datetime import timedelta

    dry = Simulator(root / "dry", store="ocr.db", seed=seed, start=START, speed=math.inf)
    playing = dry.steps()
    for _ in range(steps):
        next(playing)
    took = dry.now - START
    start = datetime.now(UTC) - took - timedelta(seconds=40)
    sim = Simulator(root, store="ocr.db", seed=seed, start=start, speed=math.inf)
    playing = sim.steps()
    for _ in range(steps):
        next(playing)
    import shutil

    shutil.rmtree(root / "dry", ignore_errors=True)


async def _remote(base: Path, out: Path) -> list[str]:
    """A local project and two remote ones in one list: `devbox:billing` (its far side, the
    agent, run here through `--via env`) and `ci-7:repo`, whose connection fails."""
    from ocr_tui.core.remote import RemoteSpec
    from ocr_tui.core.scope import Scope
    from ocr_tui.ui.app import OcrTuiApp

    _played(base / "api", 7, 20)
    _played(base / "srv" / "billing", 3, 45)
    agent = f"{sys.executable} -m ocr_tui"
    down = ("sh", "-c", "echo 'ssh: connect to host ci-7 port 22: Connection timed out' >&2;"
            " exit 255", "--")  # fmt: skip
    scope = Scope(
        (Project(base / "api"),),
        remotes=(
            RemoteSpec(
                host="devbox", path=str(base / "srv" / "billing"), via=("env",), agent=agent
            ),  # fmt: skip
            RemoteSpec(host="ci-7", path="/srv/repo", via=down, agent=agent),
        ),
    )
    made = []
    app = OcrTuiApp(None, scope=scope)
    async with app.run_test(size=SIZE) as pilot:
        await _settle(
            pilot, app, lambda: len(app.sessions) >= 8 and app.links["devbox:billing"].state
            == "up" and app.links["ci-7:repo"].state == "lost" and app.unread == 0,
        )  # fmt: skip
        app.clear_notifications()
        await pilot.pause(0.2)
        made.append(app.save_screenshot("remote.svg", str(out)))
    return made


def main(argv: list[str]) -> int:
    out = Path(argv[0] if argv else "screenshots")
    for path in asyncio.run(shoot(out)):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
