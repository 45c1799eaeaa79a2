"""Where the OCR simulator's writes go: files under `<root>/.ocr` with simulated mtimes, and the
session state, in `state.json` (OCR <= 1.4 schema) or `.ocr/data/ocr.db` (OCR >= 1.5, sql.js-
style whole-file rewrite) as OCR's `ocr state` CLI keeps it. `sim.py` drives them."""

from __future__ import annotations

import json
import os
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import msgspec

from ocr_tui.formats.ocr import sim_dashboard, sim_dashboard_db, sim_records

STATE_KEYS = ("session_id", "workflow_type", "status", "current_phase", "phase_number")
STATE_KEYS += ("current_round", "current_map_run", "started_at", "round_started_at")
STATE_KEYS += ("map_started_at", "updated_at")
SESSION_COLS = ("id", "branch", "status", "workflow_type", "current_phase", "phase_number")
SESSION_COLS += ("current_round", "current_map_run", "started_at", "updated_at", "session_dir")

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


def _iso(t: datetime) -> str:  # state.json: YYYY-MM-DDTHH:MM:SSZ
    return t.isoformat("T", "seconds")[:19] + "Z"


def _sql(t: datetime) -> str:  # ocr.db: YYYY-MM-DD HH:MM:SS, UTC, no zone
    return t.isoformat(" ", "seconds")[:19]


def to_json(obj: object) -> bytes:
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


class Files:
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


class JsonStore:
    """`.ocr/sessions/{id}/state.json`, latest state.json-era schema (ocr-format §2.1); that
    era had no event log and no CLI, so only the columns matter."""

    def __init__(self, files: Files) -> None:
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
                sdir / "state.json", to_json({k: st[k] for k in STATE_KEYS if k in st}), at
            )
            if not self.files.touch_dirs:  # bulk mode: keep the session dir's own mtime
                os.utime(sdir, (at.timestamp(), at.timestamp()))
        self.dirty.clear()


class DbStore:
    """`.ocr/data/ocr.db`: an in-memory copy, exported whole to `ocr.db.<pid>.tmp` and renamed
    over `ocr.db` on every save, like upstream's sql.js `saveDatabase()`. `change()` does what
    `ocr state init|transition|close|round-complete|map-complete` do (lib/state/index.ts);
    rows and events are buffered until flush() (one write for a whole history)."""

    def __init__(self, files: Files) -> None:
        self.files, self.autosave = files, True
        self.path = files.ocr / "data" / "ocr.db"
        self.db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        if self.path.exists():
            self.db.deserialize(self.path.read_bytes())
        self.db.executescript(SCHEMA)
        self.db.executescript(sim_records.SCHEMA)
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
        sim_records.command_event(self.db, sid, event, row.get("workflow_type") or "review", t)
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

    def dashboard(self, sid: str, played: list, seed: int, until: datetime) -> None:
        """What OCR's web dashboard wrote for closed session `sid` (`sim_dashboard`): its
        review rows and the user's triage, from the session's played (action, time) pairs;
        saved with the next flush."""
        rows = sim_dashboard.session_rows(sid, played, seed=seed, until=until)
        sim_dashboard_db.write(self.db, sid, rows)
        sim_records.write(self.db, sid, played, seed=seed, until=until)


def make_store(files: Files, store: str) -> JsonStore | DbStore:
    return JsonStore(files) if store == "state.json" else DbStore(files)
