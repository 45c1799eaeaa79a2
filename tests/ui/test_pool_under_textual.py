"""The dashboard reads a large first start in worker processes, as `Engine.scan` does. Under
Textual, `sys.stderr` is a capture whose `fileno()` is -1, and multiprocessing's resource
tracker (which every spawned worker needs) failed to start with it: the app derived every
session in its own process (10,000 sessions: 60 s, against 25 s for `Engine.scan`), and no test
saw it, since a test process had the tracker running already. So: a fresh process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.core.builders import ProjectTree, reviewer_md

SCRIPT = textwrap.dedent(
    """
    import asyncio, json, sys, time
    from pathlib import Path
    from ocr_tui.cli import make_app
    from ocr_tui.core.project import Project

    async def main():
        app = make_app(Project(Path(sys.argv[1])))
        async with app.run_test(size=(100, 30)) as pilot:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:  # until every session is read
                await pilot.pause(0.05)
                if app.engine is not None and not app.engine.pending and not app.unread:
                    break
            scan = app.engine._scan
            print(json.dumps({
                "pooled": scan.pooled,
                "unread": app.unread,
                "sources": sorted({v.source for v in app.sessions.values()}),
                "stderr": sys.stderr.fileno(),
            }))

    asyncio.run(main())
    """
)


def test_the_dashboard_reads_in_worker_processes(tmp_path: Path) -> None:
    tree = ProjectTree(tmp_path / "proj")
    for i in range(6):
        s = tree.session(f"2026-03-{i + 1:02d}-s{i}")
        s.state(status="closed", current_phase="complete", phase_number=8, current_round=1)
        s.round(1, reviewers={"principal-1": reviewer_md("High")})
    env = {**os.environ, "OCR_TUI_POOL": "on", "OCR_TUI_CACHE_DIR": "off"}
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tree.root)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["stderr"] == -1  # (the condition: Textual's capture, no descriptor)
    assert got["pooled"] == 6  # every session went to the workers
    assert got["unread"] == 0 and "loading" not in got["sources"]
