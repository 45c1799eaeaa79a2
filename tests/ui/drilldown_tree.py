"""A small OCR session tree and a stub App with the app-level contract the drill-down screens
rely on (`sessions`, `now()`, `fixed_clock`, `sessions_signal`, `open_document`), so the
drill-down tests do not depend on the real app."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.signal import Signal
from textual.widgets import Static

from ocr_tui.core.engine import Engine
from ocr_tui.core.project import find_project
from ocr_tui.core.view import SessionView

SID = "2026-11-22-feat-auth"
NOW = datetime(2026, 11, 22, 10, 42, 5, tzinfo=UTC)
MTIME = datetime(2026, 11, 22, 10, 30, 0, tzinfo=UTC).timestamp()


def finding(n: int, title: str, severity: str) -> str:
    return (
        f"### Finding {n}: {title}\n\n- **Severity**: {severity}\n"
        f"- **Location**: src/auth.py:L{n * 10}\n- **Issue**: {title}.\n\n"
    )


def reviewer(name: str, findings: list[tuple[str, str]], filler: int = 0) -> str:
    body = f"# {name} Review\n\n## Summary\n\nReviewed the auth change.\n\n## Findings\n\n"
    body += "".join(finding(i, t, s) for i, (t, s) in enumerate(findings, start=1))
    body += "## What's Working Well\n\n" + "".join(
        f"- Point {i}: the code is clear here.\n" for i in range(1, filler + 1)
    )
    return body


FINAL_1 = """# Code Review: feat/auth

## Verdict

**REQUEST CHANGES**

## Blockers

### 🚫 Token is not verified

## Should Fix

### 1. Missing rate limit
### 2. Password hash cost too low

## Suggestions

- "Rename the helper" — @principal-1
- "Add a test" — @quality-1
"""

TOPOLOGY = (
    "# Topology\n\n## Canonical File List\n\n```\nsrc/auth.py\nsrc/db.py\ntests/test_auth.py\n```\n"
)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def build_tree(root: Path, *, long_reviews: bool = False) -> Path:
    """Write a project with one review session (2 rounds, round 1 final) and one map run.
    Returns the session directory. Every file gets the same fixed mtime."""
    if root.exists():
        shutil.rmtree(root)
    s = root / ".ocr" / "sessions" / SID
    state = {
        "session_id": SID,
        "branch": "feat/auth",
        "workflow_type": "review",
        "status": "active",
        "current_phase": "reviews",
        "phase_number": 4,
        "current_round": 2,
        "started_at": "2026-11-22T10:00:00Z",
        "updated_at": "2026-11-22T10:30:00Z",
    }
    write(s / "state.json", json.dumps(state))
    write(s / "discovered-standards.md", "# Discovered Standards\n\n- PEP 8\n- Type hints\n")
    write(s / "context.md", "# Change Context\n\nAdds token authentication.\n")
    filler = 60 if long_reviews else 0
    r1 = s / "rounds" / "round-1"
    write(
        r1 / "reviews" / "principal-1.md",
        reviewer(
            "Principal",
            [("Token not verified", "Critical"), ("No rate limit", "High"), ("Naming", "Low")],
            filler,
        ),
    )
    write(
        r1 / "reviews" / "quality-1.md",
        reviewer("Quality", [("Weak hash", "High"), ("Dead code", "Info")], filler),
    )
    write(r1 / "discourse.md", "# Discourse Results\n\n## Consensus (High Confidence)\n\n- Token\n")
    write(r1 / "final.md", FINAL_1)
    r2 = s / "rounds" / "round-2"
    write(r2 / "reviews" / "principal-1.md", reviewer("Principal", [("Naming", "Medium")], filler))
    write(r2 / "reviews" / "security-1.md", reviewer("Security", [("Log leak", "Low")], filler))
    run = s / "map" / "runs" / "run-1"
    write(run / "topology.md", TOPOLOGY)
    write(run / "map.md", "# Code Review Map\n\n## Executive Summary\n\nSmall change.\n")
    freeze_mtimes(root)
    return s


def freeze_mtimes(root: Path, when: float = MTIME) -> None:
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            os.utime(os.path.join(dirpath, name), (when, when))


class DrillApp(App):
    """Stub of the real app's contract. The default screen stands for the sessions list."""

    def __init__(
        self,
        root: Path,
        first: Callable[[], Screen] | None = None,
        *,
        now: datetime = NOW,
        fixed_clock: bool = True,
    ) -> None:
        super().__init__()
        self.engine = Engine(find_project(root), clock=lambda: now)
        self.sessions: dict[str, SessionView] = {v.id: v for v in self.engine.scan()}
        self.sessions_signal: Signal = Signal(self, "sessions")
        self.fixed_clock = fixed_clock
        self._now = now
        self._first = first

    def compose(self) -> ComposeResult:
        yield Static("sessions list", id="main")

    def on_mount(self) -> None:
        if self._first is not None:
            self.push_screen(self._first())

    def now(self) -> datetime:
        return self._now

    def open_document(self, session_id: str, rel_path: str) -> None:
        from ocr_tui.ui.screens.document.screen import DocumentScreen

        self.push_screen(DocumentScreen(session_id, rel_path))

    async def rescan(self) -> tuple[list[SessionView], list[str]]:
        """Re-read the project in a thread and publish what changed (as the app does)."""
        views = await asyncio.to_thread(self.engine.scan)
        new = {v.id: v for v in views}
        changed = [v for v in views if self.sessions.get(v.id) != v]
        removed = sorted(set(self.sessions) - set(new))
        self.sessions = new
        self.sessions_signal.publish((changed, removed))
        return changed, removed
