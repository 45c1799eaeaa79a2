"""Write small OCR session trees directly (state.json + rounds/round-N/reviews/*.md +
final.md …) for the UI tests, with fixed file times so derived times are deterministic; and
wait for the UI by polling a condition (never a fixed sleep)."""

from __future__ import annotations

import io
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from rich.console import Console
from textual.pilot import Pilot

from ocr_tui.core.project import Project

NOW = datetime(2026, 3, 10, 15, 0, 0, tzinfo=UTC)


def iso(dt: datetime) -> str:
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def fixed_clock() -> datetime:
    return NOW


@dataclass
class RoundSpec:
    # reviewer file name (without .md) -> severities of its findings
    reviewers: dict[str, list[str]] = field(default_factory=dict)
    discourse: bool = False
    verdict: str | None = None  # writes final.md when set
    counts: tuple[int, int, int] = (0, 0, 0)  # blockers, should fix, suggestions


def reviewer_md(name: str, severities: list[str]) -> str:
    out = [f"# {name} review", ""]
    for i, sev in enumerate(severities, start=1):
        out += [f"## Finding {i}: something to look at", f"**Severity**: {sev}", "", "Text.", ""]
    return "\n".join(out)


def final_md(verdict: str, counts: tuple[int, int, int]) -> str:
    b, s, g = counts
    return (
        f"# Final review\n\n**Verdict**: {verdict}\n\n"
        f"**Blockers**: {b}\n**Should Fix**: {s}\n**Suggestions**: {g}\n"
    )


def make_project(root: Path, *, sessions_dir: bool = True) -> Project:
    project = Project(root)
    project.ocr_dir.mkdir(parents=True, exist_ok=True)
    if sessions_dir:
        project.sessions_dir.mkdir(exist_ok=True)
    return project


def write_session(
    project: Project,
    sid: str,
    *,
    phase: str = "reviews",
    status: str = "active",
    workflow: str = "review",
    started: datetime = NOW - timedelta(hours=1),
    updated: datetime | None = None,
    rounds: list[RoundSpec] | None = None,
    map_runs: list[bool] | None = None,  # complete flag per run
    branch: str | None = None,
    state: str | dict | None = None,  # raw state.json text or extra fields; None: generated
    mtime: datetime | None = None,
) -> Path:
    """Write one session; every file and directory gets `mtime` (default: `updated`)."""
    updated = updated or started + timedelta(minutes=10)
    path = project.sessions_dir / sid
    path.mkdir(parents=True, exist_ok=True)
    if isinstance(state, str):
        (path / "state.json").write_text(state)
    else:
        data = {
            "session_id": sid,
            "workflow_type": workflow,
            "status": status,
            "current_phase": phase,
            "current_round": len(rounds or []) or 1,
            "started_at": iso(started),
            "updated_at": iso(updated),
        }
        if branch:
            data["branch"] = branch
        data.update(state or {})
        (path / "state.json").write_text(json.dumps(data, indent=2))
    (path / "discovered-standards.md").write_text("# Standards\n")
    (path / "context.md").write_text("# Context\n")
    for number, spec in enumerate(rounds or [], start=1):
        rdir = path / "rounds" / f"round-{number}"
        (rdir / "reviews").mkdir(parents=True, exist_ok=True)
        for name, severities in spec.reviewers.items():
            (rdir / "reviews" / f"{name}.md").write_text(reviewer_md(name, severities))
        if spec.discourse:
            (rdir / "discourse.md").write_text("# Discourse\n")
        if spec.verdict:
            (rdir / "final.md").write_text(final_md(spec.verdict, spec.counts))
    for number, complete in enumerate(map_runs or [], start=1):
        run = path / "map" / "runs" / f"run-{number}"
        run.mkdir(parents=True, exist_ok=True)
        (run / "topology.md").write_text(
            "# Topology\n\n## Canonical File List\n\n```\nsrc/a.py\nsrc/b.py\nsrc/c.py\n```\n"
        )
        if complete:
            (run / "map.md").write_text("# Map\n")
    set_mtime(path, mtime or updated)
    return path


def set_mtime(path: Path, when: datetime) -> None:
    ts = when.timestamp()
    for dirpath, dirnames, filenames in os.walk(path):
        for name in filenames + dirnames:
            os.utime(os.path.join(dirpath, name), (ts, ts), follow_symlinks=False)
    os.utime(path, (ts, ts))


def sample_project(root: Path) -> Project:
    """Six sessions, one of each kind the list shows (times relative to NOW)."""
    p = make_project(root)
    h = timedelta(hours=1)
    m = timedelta(minutes=1)
    write_session(
        p, "2026-03-10-feat-auth", phase="reviews",
        started=NOW - 50 * m, updated=NOW - 3 * m,
        rounds=[
            RoundSpec({"principal-1": ["high", "medium"], "quality-1": ["low"]},
                      discourse=True, verdict="REQUEST CHANGES", counts=(1, 2, 3)),
            RoundSpec({"principal-1": ["critical", "high", "medium"], "quality-1": ["low", "info"],
                       "security-1": []}),
        ],
        state={"round_started_at": iso(NOW - 20 * m)},
    )  # fmt: skip
    write_session(
        p, "2026-03-10-fix-cache", phase="complete", status="active",
        started=NOW - 2 * h, updated=NOW - 30 * m,
        rounds=[RoundSpec({"principal-1": ["low"], "quality-1": []}, verdict="APPROVE")],
    )  # fmt: skip
    write_session(
        p, "2026-03-09-main", phase="complete", status="closed",
        started=NOW - 26 * h, updated=NOW - 25 * h,
        rounds=[RoundSpec({"principal-1": ["medium"], "principal-2": []}, verdict="APPROVE")],
    )  # fmt: skip
    write_session(
        p, "2026-03-08-refactor-db", phase="analysis",
        started=NOW - 50 * h, updated=NOW - 49 * h,
    )  # fmt: skip
    write_session(
        p, "2026-03-10-map-onboarding", phase="topology", workflow="map",
        started=NOW - 15 * m, updated=NOW - 1 * m, map_runs=[False],
        state={"current_map_run": 1},
    )  # fmt: skip
    broken = write_session(
        p, "2026-03-07-[bold]broken", state='{"session_id": ', mtime=NOW - 72 * h
    )
    set_mtime(broken, NOW - 72 * h)
    return p


# -- waiting on the UI ----------------------------------------------------------------------

SIZE = (120, 36)


async def wait_until(
    pilot: Pilot, predicate: Callable[[], object], timeout: float = 20.0, *, what: str
) -> None:
    """Poll the UI until `predicate()` is true. `what` says, in words, what is awaited; after
    `timeout` seconds it fails saying so, with the predicate's last value and the app's state
    (screen, focus, the visible text)."""
    deadline = time.monotonic() + timeout
    while not (last := predicate()):
        if time.monotonic() > deadline:
            raise AssertionError(wait_failure(pilot.app, what, timeout, last))
        await pilot.pause(0.05)


async def finding_shown(pilot: Pilot) -> None:
    """Wait until the finding screen is open and shows its finding."""
    from ocr_tui.ui.screens.ocr.finding.screen import FindingScreen

    app = pilot.app
    await wait_until(
        pilot, lambda: isinstance(app.screen, FindingScreen), what="the finding screen to open"
    )
    await wait_until(
        pilot,
        lambda: app.screen.finding is not None,
        what="the finding screen to show its finding",
    )


def wait_failure(app, what: str, timeout: float, last: object) -> str:
    """The failure message of a wait: what it waited for, the predicate's last value and
    what the app showed then."""
    value = repr(last)
    if len(value) > 200:
        value = value[:200] + "…"
    try:
        screen = type(app.screen).__name__
        focused = app.focused
        focus = "nothing" if focused is None else repr(focused)
    except Exception as error:  # noqa: BLE001 - the report must not hide the timeout
        screen, focus = f"? ({error!r})", "?"
    return (
        f"timed out after {timeout}s waiting for {what}\n"
        f"  the condition last gave: {value}\n"
        f"  screen: {screen}; focused: {focus}\n"
        f"  the screen shows:\n{screen_text(app)}"
    )


def screen_text(app, rows: int = 40) -> str:
    """The visible screen as plain text (its first `rows` non-blank rows, trailing spaces
    dropped), for failure messages."""
    try:
        width, height = app.size
        console = Console(
            width=width, height=height, file=io.StringIO(), record=True, color_system=None
        )
        console.print(
            app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
        )
        lines = [line.rstrip() for line in console.export_text().splitlines()]
    except Exception as error:  # noqa: BLE001 - the report must not hide the timeout
        return f"    (could not render the screen: {error!r})"
    shown = [line for line in lines if line.strip()]
    more = f"\n    … {len(shown) - rows} more rows" if len(shown) > rows else ""
    return "\n".join(f"    |{line}" for line in shown[:rows]) + more


async def loaded(pilot: Pilot) -> None:
    """Wait until the first scan is applied and the table shows it."""
    app = pilot.app
    await wait_until(pilot, lambda: app.status != "loading", what="the first scan to be applied")
    await wait_until(
        pilot, lambda: app.main_screen.query("#sessions"), what="the sessions list to be composed"
    )  # (composed)
    await wait_until(
        pilot,
        lambda: app.main_screen.table.row_count == len(app.sessions),
        what="the list to show a row per session",
    )
    # start-up shows stand-in rows first: wait until every session is read
    await wait_until(
        pilot,
        lambda: all(v.source != "loading" for v in app.sessions.values()),
        what="every session read (no stand-in rows)",
    )
    await pilot.pause()


def table_ids(app) -> list[str]:
    return app.main_screen.table.session_ids
