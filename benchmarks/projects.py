"""Several projects (`ocr-tui PATH PATH…`, `--scan DIR`): what a workspace of many projects costs
next to one project, in the same run.

- The `--scan` walk of a tree of 60 repositories (each with sources, a `.git`, a
  `node_modules` and a virtualenv; 12 hold a session store), against `os.walk` of the same
  tree to the same depth (what a walker that skips nothing visits). Then the walk's share of a
  core, as the workspace schedules it (every DISCOVER_EVERY_S, or LOOK_SHARE times its length).
- Per file event: `accept` (on the event loop) and `apply` (a state.json change re-derived),
  in a workspace of 60 projects against one project's Engine.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from benchmarks.common import figure, report, summary
from ocr_tui.core import workspace_projects
from ocr_tui.core.discover import DEFAULT_DEPTH, find_projects
from ocr_tui.core.engine import Engine
from ocr_tui.core.project import Project
from ocr_tui.core.registry import markers
from ocr_tui.core.workspace import Scope, Workspace

B = "7. several projects"
REPOS = 60
WITH_STORE = 12
SAMPLES = 30
EVENTS = 300


def _tree(top: Path) -> list[Path]:
    """REPOS repositories under `top` (in 6 groups, as ~/code/org/repo); the first
    WITH_STORE of them hold one OCR session each. Returns the projects."""
    projects = []
    for i in range(REPOS):
        repo = top / f"org{i % 6}" / f"repo{i:02d}"
        for d in ("src/app/models", "src/app/views", "tests/unit", "docs/guide"):
            (repo / d).mkdir(parents=True, exist_ok=True)
        for j in range(40):
            (repo / "node_modules" / f"pkg{j}" / "lib").mkdir(parents=True, exist_ok=True)
        for j in range(15):
            (repo / ".git" / "objects" / f"{j:02x}").mkdir(parents=True, exist_ok=True)
        (repo / "venv" / "lib" / "site-packages").mkdir(parents=True, exist_ok=True)
        (repo / "venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
        if i < WITH_STORE:
            session = repo / ".ocr" / "sessions" / "2026-11-23-main"
            session.mkdir(parents=True)
            (session / "state.json").write_text(
                '{"session_id": "2026-11-23-main", "status": "active",'
                ' "current_phase": "reviews", "started_at": "2026-11-23T10:00:00Z"}'
            )
            projects.append(repo)
    return projects


def _os_walk(top: Path, depth: int) -> int:
    """Directories `os.walk` visits to `depth` levels under `top`, skipping nothing."""
    base = str(top).rstrip(os.sep).count(os.sep)
    n = 0
    for dirpath, dirnames, _ in os.walk(top):
        n += 1
        if dirpath.count(os.sep) - base >= depth:
            dirnames[:] = []
    return n


def _timed(fn, samples: int = SAMPLES) -> list[float]:
    out = []
    for _ in range(samples):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="ocr-bench-projects-") as tmp:
        top = Path(tmp) / "code"
        projects = _tree(top)
        marks = markers()
        found = find_projects(top, marks, depth=DEFAULT_DEPTH)
        assert len(found.roots) == WITH_STORE, found.roots
        walk_ms = _timed(lambda: find_projects(top, marks, depth=DEFAULT_DEPTH))
        naive_ms = _timed(lambda: _os_walk(top, DEFAULT_DEPTH))
        report(
            f"--scan walk, {REPOS} repositories, depth {DEFAULT_DEPTH}",
            walk_ms,
            baseline_ms=naive_ms,
            median_max=50,
            bench=B,
        )
        walk = summary(walk_ms)["median"] / 1000
        every, share_of = workspace_projects.DISCOVER_EVERY_S, workspace_projects.LOOK_SHARE
        share = walk / (walk + max(every, share_of * walk))
        figure(
            B,
            "--scan: the walks' share of one core",
            f"{share * 100:.2f}%",
            target="<= 5%",
            ok=share <= 0.05,
        )

        ws = Workspace(Scope(tuple(Project(p) for p in projects)))
        ws.scan()
        ws.watch_roots()
        one = Engine(Project(projects[-1]))
        one.scan()
        state = projects[-1] / ".ocr" / "sessions" / "2026-11-23-main" / "state.json"
        path = str(state)

        def accepts(engine) -> None:
            for _ in range(EVENTS):
                engine.accept(path)

        accept_ws = [v / EVENTS * 1000 for v in _timed(lambda: accepts(ws))]
        accept_one = [v / EVENTS * 1000 for v in _timed(lambda: accepts(one))]
        a, b = summary(accept_ws)["median"], summary(accept_one)["median"]
        figure(
            B,
            f"accept one event: {len(projects)} projects vs one",
            f"{a:.1f} us vs {b:.1f} us",
            baseline=f"{a / b:.1f}x one project's",
            target="<= 3x one project's",
            ok=a <= 3 * b,
        )

        def change(engine) -> None:
            os.utime(state)
            engine.apply([path])

        apply_ws = _timed(lambda: change(ws))
        apply_one = _timed(lambda: change(one))
        a, b = summary(apply_ws)["median"], summary(apply_one)["median"]
        report(
            f"a state.json change: {len(projects)} projects",
            apply_ws,
            baseline_ms=apply_one,
            bench=B,
        )
        figure(
            B,
            f"a state.json change re-derived: {len(projects)} projects vs one",
            f"{a:.2f} ms vs {b:.2f} ms",
            baseline=f"{a / b:.1f}x one project's",
            target="<= 1.5x one project's",
            ok=a <= 1.5 * b,
        )


if __name__ == "__main__":
    main()
