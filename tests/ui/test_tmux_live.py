"""Left open beside a looping simulator, the dashboard shows the newest sessions: in a real
terminal (tmux, as in test_tmux.py), `ocr-tui simulate --loop` makes sessions faster than the list
has room for while nobody presses a key; once it stops, the pane's rows are `ocr-tui status`'s
first rows. (The list used to keep its cursor's session on screen by scrolling with it, so the same
old rows stayed while the newest went above the top.)
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from ocr_tui.ui.screens.sessions.cells import elide_id

from .test_tmux import DEADLINE_S, pane_factory, pytestmark  # noqa: F401 (the fixture)

SESSIONS = 30  # more than the list's ~20 rows at 120x40


def count(screen: str) -> int:
    """The filter bar's `N of N sessions` (0 before it shows)."""
    found = re.search(r"(\d+) of (\d+) sessions", screen)
    return int(found.group(2)) if found else 0


def list_ids(screen: str) -> list[str]:
    """The ids in the list's rows, top down (as drawn: the id cell, second on the line)."""
    lines = screen.splitlines()
    header = next(i for i, line in enumerate(lines) if line.lstrip().startswith("Session"))
    ids = []
    for line in lines[header + 1 :]:
        if "╭" in line or not line.strip():
            break
        ids.append(re.split(r"\s{2,}", line.strip())[1])
    return ids


def test_the_newest_sessions_stay_on_screen_beside_a_looping_simulator(
    tmp_path: Path,
    pane_factory,  # noqa: F811 (test_tmux's fixture)
) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    exe = str(Path(sys.executable).with_name("ocr-tui"))
    sim = subprocess.Popen(
        [exe, "simulate", str(root), "--speed", "400", "--store", "ocr.db", "--loop"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        pane = pane_factory(root)
        pane.wait(lambda s: count(s) >= SESSIONS, f"{SESSIONS} sessions", timeout=6 * DEADLINE_S)
    finally:
        sim.terminate()
        sim.wait(timeout=10)
    status = subprocess.run(
        [exe, "status", str(root)], capture_output=True, text=True, timeout=60, check=True
    ).stdout.splitlines()[1:]
    expected = [line.split()[0] for line in status]

    def named(cell: str, sid: str) -> bool:
        return cell in (sid, sid[11:]) or cell == elide_id(sid, len(cell))

    def same(screen: str) -> bool:  # the rows the list shows are status' first rows
        shown = list_ids(screen)
        if count(screen) != len(expected) or len(shown) < 15:
            return False
        # As a set, one place of slack at the bottom: at --speed 400 several sessions end in
        # the same second, and `status` and the list order such ties differ (left open).
        first = expected[: len(shown) + 1]
        return all(any(named(c, sid) for sid in first) for c in shown)

    pane.wait(same, f"status' first rows: {expected[:5]}…")
