"""Play a realistic OCR run into a directory, as OCR's agents and `ocr state` CLI write it.

`Simulator(root).run()` creates `<root>/.ocr/` with a few closed history sessions, then one
live review session that walks the 8 review phases twice (round 1 REQUEST CHANGES, round 2
APPROVE), runs a map, and closes. State goes to `state.json` (OCR <= 1.4 schema) or
`.ocr/data/ocr.db` (OCR >= 1.5, sql.js-style whole-file rewrite). Every write is a temp file
+ os.replace; timestamps and mtimes come from a simulated clock. The scenario and the file
bodies live in `sim_templates`; this module only executes them. No textual import.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sqlite3
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import msgspec

from ocr_tui.formats.ocr import sim_templates as T

STORES = ("state.json", "ocr.db")
HISTORY_BRANCHES = ("main", "fix-token-refresh", "feat-billing-webhooks", "refactor-db-layer")
HISTORY_BRANCHES += ("chore-bump-deps", "feat-rate-limiter", "hotfix-cache-eviction")
STATE_KEYS = ("session_id", "workflow_type", "status", "current_phase", "phase_number")
STATE_KEYS += ("current_round", "current_map_run", "started_at", "round_started_at")
STATE_KEYS += ("map_started_at", "updated_at")
SESSION_COLS = ("id", "branch", "status", "workflow_type", "current_phase", "phase_number")
SESSION_COLS += ("current_round", "current_map_run", "started_at", "updated_at", "session_dir")
HISTORY_SCALE = 12.0  # history sessions ran at "agent speed": ~15 min instead of ~75 s
LIVE_ROUNDS = [
    (list(T.REVIEWER_ORDER[:6]), "block"),
    (["principal-1", "principal-2", "quality-1", "testing-1", "performance-1"], "clean"),
]

# Migration 1's two CLI-owned tables (packages/cli/src/lib/db/migrations.ts).
SCHEMA = """
CREATE TABLE IF NOT EXISTS schema_version (
  version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL DEFAULT (datetime('now')),
  description TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
  id TEXT PRIMARY KEY, branch TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'active' CHECK(status IN ('active', 'closed')),
  workflow_type TEXT NOT NULL CHECK(workflow_type IN ('review', 'map')),
  current_phase TEXT NOT NULL DEFAULT 'context', phase_number INTEGER NOT NULL DEFAULT 1,
  current_round INTEGER NOT NULL DEFAULT 1, current_map_run INTEGER NOT NULL DEFAULT 1,
  started_at TEXT NOT NULL DEFAULT (datetime('now')),
  updated_at TEXT NOT NULL DEFAULT (datetime('now')), session_dir TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS orchestration_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  event_type TEXT NOT NULL, phase TEXT, phase_number INTEGER, round INTEGER, metadata TEXT,
  created_at TEXT NOT NULL DEFAULT (datetime('now')));
CREATE INDEX IF NOT EXISTS idx_events_session ON orchestration_events(session_id);
CREATE INDEX IF NOT EXISTS idx_events_type ON orchestration_events(event_type);
INSERT OR IGNORE INTO schema_version VALUES
  (1, '1970-01-01 00:00:00', 'Initial schema — sessions, events, artifacts, user state');
"""


@dataclass
class SimStep:
    description: str
    session_id: str
    phase: str | None  # what the step just did


def _iso(t: datetime) -> str:  # state.json: YYYY-MM-DDTHH:MM:SSZ
    return t.isoformat("T", "seconds")[:19] + "Z"


def _sql(t: datetime) -> str:  # ocr.db: YYYY-MM-DD HH:MM:SS, UTC, no zone
    return t.isoformat(" ", "seconds")[:19]


def _utc(t: datetime | None) -> datetime:  # naive means UTC; whole seconds
    t = t or datetime.now(UTC)
    return (t.replace(tzinfo=UTC) if t.tzinfo is None else t.astimezone(UTC)).replace(microsecond=0)


def _json(obj: object) -> bytes:
    return msgspec.json.format(msgspec.json.encode(obj), indent=2) + b"\n"


def _put(path: str, data: bytes, mtime: float) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.utime(fd, (mtime, mtime))
    finally:
        os.close(fd)


class _Files:
    """Writes under `<root>/.ocr` with simulated mtimes (file and the directories above it).
    atomic: write `<dir>/.<name>.<pid>.tmp` (or tmp_name), then os.replace over the target."""

    def __init__(self, root: Path, *, atomic: bool = True, touch_dirs: bool = True) -> None:
        self.root = Path(root).resolve()
        self.ocr = self.root / ".ocr"
        self.sessions = self.ocr / "sessions"
        self.atomic, self.touch_dirs = atomic, touch_dirs
        self._top = str(self.ocr)
        self._made: set[str] = set()

    def write(self, path: str | Path, data: str | bytes, t: datetime, tmp: str = "") -> None:
        p = os.path.normpath(path)
        if not p.startswith(self._top + os.sep):  # never write outside root/.ocr
            raise ValueError(f"refusing to write outside {self._top}: {path}")
        d, ts = os.path.dirname(p), t.timestamp()
        if d not in self._made:
            os.makedirs(d, exist_ok=True)
            self._made.add(d)
        raw = data.encode() if isinstance(data, str) else data
        if not self.atomic:
            _put(p, raw, ts)
        else:
            tmp = os.path.join(d, tmp or f".{os.path.basename(p)}.{os.getpid()}.tmp")
            try:
                _put(tmp, raw, ts)
                os.replace(tmp, p)
            except BaseException:
                if os.path.exists(tmp):
                    os.unlink(tmp)
                raise
        if self.touch_dirs:
            self.touch(d, t)

    def mkdir(self, path: str | Path, t: datetime) -> None:
        os.makedirs(path, exist_ok=True)
        self._made.add(os.path.normpath(path))
        if self.touch_dirs:
            self.touch(path, t)

    def touch(self, d: str | Path, t: datetime) -> None:
        d, ts = os.path.normpath(d), t.timestamp()
        while d == self._top or d.startswith(self._top + os.sep):
            os.utime(d, (ts, ts))
            d = os.path.dirname(d)

    def touch_tree(self, top: str | Path, t: datetime) -> None:
        ts = t.timestamp()
        for dirpath, _, _ in os.walk(top, topdown=False):
            os.utime(dirpath, (ts, ts))


class _JsonStore:
    """`.ocr/sessions/{id}/state.json`, latest state.json-era schema (ocr-format §2.1); that
    era had no event log and no CLI, so only the columns matter."""

    def __init__(self, files: _Files) -> None:
        self.files, self.autosave = files, True
        self.states: dict[str, dict] = {}
        self.dirty: set[str] = set()

    def change(self, sid: str, t: datetime, event: str, cols: dict, **_: object) -> None:
        if not cols:
            return  # round_completed / map_completed only exist in the SQLite era
        if event == "session_created":
            self.states[sid] = {"session_id": sid, "started_at": _iso(t)}
        st = self.states[sid]
        st.update(cols, updated_at=_iso(t))
        if event in ("session_created", "round_started"):
            st["round_started_at"] = _iso(t)
        if cols.get("workflow_type") == "map":
            st["map_started_at"] = _iso(t)
        self.dirty.add(sid)
        if self.autosave:
            self.flush(t)

    def flush(self, t: datetime) -> None:
        for sid in sorted(self.dirty):
            st = self.states[sid]
            at = datetime.strptime(st["updated_at"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
            sdir = self.files.sessions / sid
            self.files.write(
                sdir / "state.json", _json({k: st[k] for k in STATE_KEYS if k in st}), at
            )
            if not self.files.touch_dirs:  # bulk mode: keep the session dir's own mtime
                os.utime(sdir, (at.timestamp(), at.timestamp()))
        self.dirty.clear()


class _DbStore:
    """`.ocr/data/ocr.db`: an in-memory copy, exported whole to `ocr.db.<pid>.tmp` and renamed
    over `ocr.db` on every save, like upstream's sql.js `saveDatabase()`. `change()` does what
    `ocr state init|transition|close|round-complete|map-complete` do (lib/state/index.ts);
    rows and events are buffered until flush() (one write for a whole history)."""

    def __init__(self, files: _Files) -> None:
        self.files, self.autosave = files, True
        self.path = files.ocr / "data" / "ocr.db"
        self.db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        if self.path.exists():
            self.db.deserialize(self.path.read_bytes())
        self.db.executescript(SCHEMA)
        self.rows: dict[str, dict] = {}
        self.events: list[tuple] = []
        self.dirty: set[str] = set()

    def change(self, sid: str, t: datetime, event: str, cols: dict, rnd=None, meta=None) -> None:
        ts = _sql(t)
        if event == "session_created":  # a re-run over an old tree replaces the old row
            self.db.execute("DELETE FROM orchestration_events WHERE session_id = ?", (sid,))
            self.rows[sid] = {"id": sid, "started_at": ts, "current_map_run": 1}
            self.rows[sid]["session_dir"] = f".ocr/sessions/{sid}"
        elif sid not in self.rows:
            cur = self.db.execute("SELECT * FROM sessions WHERE id = ?", (sid,))
            names = [c[0] for c in cur.description]
            self.rows[sid] = dict(zip(names, cur.fetchone(), strict=True))
        row = self.rows[sid]
        row.update(cols, updated_at=ts)
        self.dirty.add(sid)
        rnd = row["current_round"] if rnd is None else rnd
        metadata = json.dumps(meta) if meta else None
        self.events.append(
            (sid, event, row["current_phase"], row["phase_number"], rnd, metadata, ts)
        )
        if self.autosave:
            self.flush(t)

    def flush(self, t: datetime) -> None:
        marks = ", ".join("?" * len(SESSION_COLS))
        self.db.executemany(
            f"INSERT OR REPLACE INTO sessions ({', '.join(SESSION_COLS)}) VALUES ({marks})",
            [tuple(self.rows[sid][c] for c in SESSION_COLS) for sid in sorted(self.dirty)],
        )
        self.db.executemany(
            "INSERT INTO orchestration_events (session_id, event_type, phase, phase_number, "
            "round, metadata, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            self.events,
        )
        self.events, self.dirty = [], set()
        self.files.write(self.path, self.db.serialize(), t, f"ocr.db.{os.getpid()}.tmp")


def _make_store(files: _Files, store: str) -> _JsonStore | _DbStore:
    return _JsonStore(files) if store == "state.json" else _DbStore(files)


def _apply(
    files: _Files, store: _JsonStore | _DbStore, sid: str, act: T.Action, t: datetime
) -> None:
    sdir = os.path.join(files.sessions, sid)
    for rel in act.mkdirs:
        files.mkdir(os.path.join(sdir, rel), t)
    for rel, body in act.writes:
        files.write(os.path.join(sdir, rel), _json(body) if isinstance(body, dict) else body, t)
    if act.event:
        store.change(sid, t, act.event, act.cols, rnd=act.rnd, meta=act.meta)


def _play(files, store, sid: str, plan: T.Plan, seed: int, start: datetime, scale: float) -> None:
    """A whole session at once (history), its timestamps starting at `start`."""
    now = last = start
    for act in T.scenario(sid, sid[11:], plan, seed):
        _apply(files, store, sid, act, now)
        last, now = now, now + timedelta(seconds=act.seconds * scale)
    files.touch_tree(os.path.join(files.sessions, sid), last)


class Simulator:
    def __init__(
        self,
        root: Path,
        *,
        store: str = "state.json",
        seed: int = 1,
        start: datetime | None = None,
        speed: float = 1.0,
        history: int = 3,
        live_branch: str = "feat-live-review",
    ) -> None:
        if speed < 0 or math.isnan(speed):
            raise ValueError("speed must be >= 0 (0 or inf: no sleeping)")
        if store not in STORES:
            raise ValueError(f"store must be one of {STORES}, not {store!r}")
        self.root, self.store_kind, self.seed = Path(root), store, seed
        self.speed, self.history = speed, history
        #: the simulated clock (UTC); last_step_at is when the last step's action happened
        self.now = _utc(start)
        self.last_step_at, self.last_step_seconds = self.now, 0.0
        self.live_branch = live_branch.replace("/", "-")
        self.history_ids: list[str] = []
        self._files = _Files(self.root)
        self._store: _JsonStore | _DbStore | None = None
        self._loops = 0
        self._live_id = self._pick_id(self.live_branch)

    @property
    def live_session_id(self) -> str:
        return self._live_id

    def _pick_id(self, branch: str) -> str:
        day, n, cand = self.now.strftime("%Y-%m-%d"), 1, branch
        while (self._files.sessions / f"{day}-{cand}").exists():
            n += 1
            cand = f"{branch}-{n}"
        return f"{day}-{cand}"

    def setup(self) -> None:
        """Create `.ocr/sessions/` and the closed history sessions (once)."""
        if self._store is not None:
            return
        files = self._files
        files.sessions.mkdir(parents=True, exist_ok=True)
        self._store = store = _make_store(files, self.store_kind)
        store.autosave, files.touch_dirs = False, False
        rng = random.Random(f"ocr-sim/{self.seed}/history")
        branches = rng.sample(HISTORY_BRANCHES, min(self.history, len(HISTORY_BRANCHES)))
        days_ago = 0
        for i in range(self.history):
            days_ago += rng.randint(1, 3)
            begin = (self.now - timedelta(days=days_ago)).replace(
                hour=rng.randint(8, 17), minute=rng.randint(0, 59), second=rng.randint(0, 59)
            )
            branch = branches[i] if i < len(branches) else f"feat-history-{i}"
            two = i == 0 or (i != 1 and rng.random() < 0.5)  # newest had a re-review
            moods = ["block", "clean"] if two else [rng.choice(["clean", "discuss"])]
            plan = T.Plan(
                [(T.reviewers(rng.randint(4, 6)), mood) for mood in moods],
                map_run=i == min(1, self.history - 1),  # one map session
                requirements=rng.random() < 0.5,
                cli_meta=i < self.history - 1,  # the oldest predates OCR 1.6
                chatter=False,
            )
            sid = f"{begin:%Y-%m-%d}-{branch}"
            _play(files, store, sid, plan, self.seed, begin, HISTORY_SCALE)
            self.history_ids.append(sid)
        store.flush(self.now)
        files.touch(files.sessions, self.now)
        if isinstance(store, _DbStore):
            files.touch(store.path.parent, self.now)
        store.autosave, files.touch_dirs = True, True
        self._live_id = self._pick_id(self.live_branch)

    def steps(self) -> Iterator[SimStep]:
        """The live session, one action per next(): performs it at `now`, then advances the
        clock by the action's duration. Never sleeps. Runs setup() first if needed."""
        self.setup()
        sid, store = self._live_id, self._store
        plan = T.Plan(LIVE_ROUNDS, map_run=True, requirements=True)
        plan.cli_meta = self.store_kind == "ocr.db"
        for act in T.scenario(sid, sid[11:], plan, self.seed):
            _apply(self._files, store, sid, act, self.now)  # type: ignore[arg-type]
            self.last_step_at, self.last_step_seconds = self.now, act.seconds
            self.now += timedelta(seconds=act.seconds)
            yield SimStep(act.description, sid, act.phase)

    def run(self, *, stop: threading.Event | None = None, loop: bool = False) -> None:
        self._run(stop=stop, loop=loop)

    def _run(self, *, stop, loop: bool, on_step: Callable[[SimStep], None] | None = None) -> None:
        stop = stop or threading.Event()
        self.setup()
        while not stop.is_set():
            for step in self.steps():
                if on_step:
                    on_step(step)
                if self.speed not in (0, math.inf):
                    stop.wait(self.last_step_seconds / self.speed)
                if stop.is_set():
                    return
            if not loop:
                return
            self._loops += 1
            self._live_id = self._pick_id(f"{self.live_branch}-{self._loops + 1}")


def build_history(
    root: Path,
    *,
    sessions: int,
    rounds: int = 2,
    reviewers: int = 4,
    store: str = "state.json",
    seed: int = 1,
    now: datetime | None = None,
) -> list[str]:
    """Write `sessions` closed sessions at once, newest first, 45 simulated minutes apart
    (every 10th also has a map run); returns their ids. One ocr.db write in total; markdown
    is written directly (nobody reads yet), the db via temp + rename."""
    if store not in STORES:
        raise ValueError(f"store must be one of {STORES}, not {store!r}")
    now = _utc(now)
    files = _Files(Path(root), atomic=False, touch_dirs=False)
    files.sessions.mkdir(parents=True, exist_ok=True)
    st = _make_store(files, store)
    st.autosave = False
    names = T.reviewers(reviewers)
    moods = ["block"] * (rounds - 1) + ["clean"]
    ids = []
    for i in range(sessions):
        branch = f"{HISTORY_BRANCHES[i % len(HISTORY_BRANCHES)]}-{i + 1}"
        begin = now - timedelta(minutes=45 * (i + 1))
        sid = f"{begin:%Y-%m-%d}-{branch}"
        plan = T.Plan([(names, m) for m in moods], map_run=i % 10 == 9, chatter=False)
        plan.cli_meta = store == "ocr.db"
        _play(files, st, sid, plan, seed, begin, 1.0)
        ids.append(sid)
    files.atomic = True
    st.flush(now)
    files.touch(files.sessions, now)
    if isinstance(st, _DbStore):
        files.touch(st.path.parent, now)
    return ids


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m ocr_tui.formats.ocr.sim",
        description="Make DIR an OCR project and play a realistic review run into it.",
    )
    p.add_argument("dir", metavar="DIR", type=Path)
    p.add_argument("--speed", type=float, default=1.0, help="0 or inf: no sleeping")
    p.add_argument("--store", choices=STORES, default="state.json")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--history", type=int, default=3, help="closed sessions written first")
    p.add_argument("--loop", action="store_true", help="new live session after each close")
    args = p.parse_args(argv)
    sim = Simulator(
        args.dir, store=args.store, seed=args.seed, speed=args.speed, history=args.history
    )

    def show(step: SimStep) -> None:
        at = sim.last_step_at.strftime("%H:%M:%S")
        print(f"{at} {step.session_id} [{step.phase}] {step.description}", flush=True)

    try:
        sim.setup()
        n = len(sim.history_ids)
        print(f"{sim.now:%H:%M:%S} {sim.root}: {n} closed session(s) in .ocr/", flush=True)
        sim._run(stop=None, loop=args.loop, on_step=show)
    except KeyboardInterrupt:
        return 0
    except BrokenPipeError:  # `… | head`: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    sys.exit(main())
