"""Simulated projects for the benchmarks. Big histories are built once into a cache directory
($OCR_BENCH_CACHE, default /tmp/ocr-bench-cache) and reused: 10,000 sessions take ~30 s to
several minutes and ~850 MB. Benchmarks treat a cached tree as read-only, except for one extra
session of their own that they add and remove."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from ocr_tui.formats.ocr.phases import REVIEW_PHASES  # noqa: F401  (re-exported to the benchmarks)
from ocr_tui.formats.ocr.sim import build_history

CACHE = Path(os.environ.get("OCR_BENCH_CACHE", "/tmp/ocr-bench-cache"))
# The newest session of a history ends here: in the past, so no "future timestamp" problems.
NOW = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def history(n: int) -> tuple[Path, list[str]]:
    """A project with `n` closed sessions (2 rounds x 4 reviewers), built once and cached."""
    root = CACHE / f"h{n}"
    ids_file = CACHE / f"h{n}.ids.json"
    if not (root.is_dir() and ids_file.is_file()):
        CACHE.mkdir(parents=True, exist_ok=True)
        building = CACHE / f"h{n}.building-{os.getpid()}"
        shutil.rmtree(building, ignore_errors=True)
        t0 = time.perf_counter()
        print(f"# building a {n}-session history in {root} (cached for later runs)…", flush=True)
        ids = build_history(building, sessions=n, now=NOW)
        shutil.rmtree(root, ignore_errors=True)
        os.replace(building, root)
        ids_file.write_text(json.dumps(ids))
        print(f"#   built in {time.perf_counter() - t0:.0f} s", flush=True)
    return root, json.loads(ids_file.read_text())


def fresh(n: int, prefix: str = "ocr-bench-") -> tuple[Path, list[str]]:
    """A small throwaway history (the caller removes it), ending a minute ago."""
    root = Path(tempfile.mkdtemp(prefix=prefix))
    ids = build_history(root, sessions=n, now=datetime.now(UTC) - timedelta(minutes=1))
    return root, ids


def iso(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def write_state(sdir: Path, **fields: object) -> float:
    """Replace `sdir/state.json` atomically; returns perf_counter at the rename."""
    sdir.mkdir(parents=True, exist_ok=True)
    path = sdir / "state.json"
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        data = {}
    data.update(fields)
    tmp = sdir / f".state.json.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(data, indent=2))
    t0 = time.perf_counter()
    os.replace(tmp, path)
    return t0


def make_running(root: Path, sid: str, phase: int = 4) -> None:
    """Reopen a session as running (active, in phase `phase`): its round started 5 minutes ago
    and it was touched a minute ago (a steady state: not its first minute, whose clock the
    list shows in seconds)."""
    key, _ = REVIEW_PHASES[phase - 1]
    now = datetime.now(UTC)
    write_state(
        root / ".ocr" / "sessions" / sid,
        status="active",
        current_phase=key,
        phase_number=phase,
        updated_at=iso(now - timedelta(minutes=1)),
        round_started_at=iso(now - timedelta(minutes=5)),
    )
    # ...and its files too: a session's last activity is its newest file's time (written just
    # now, its "12s ago" would change every second for the first minute of the measure).
    minute_ago = (now - timedelta(minutes=1)).timestamp()
    for path in (root / ".ocr" / "sessions" / sid).rglob("*"):
        os.utime(path, (minute_ago, minute_ago), follow_symlinks=False)
