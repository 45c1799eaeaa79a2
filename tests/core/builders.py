"""Small OCR project trees for the core tests: sessions in every era, both state stores.

Every file a builder writes gets a fixed modification time (by default an hour before
`FIXED`), so nothing a test asserts depends on the wall clock. Pass `Engine(clock=...)`
through `ProjectTree.engine()` / `ProjectTree.view()`, which use `FIXED` as "now".
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

from ocr_tui.core.engine import Engine
from ocr_tui.core.project import Project
from ocr_tui.core.view import SessionView

FIXED = datetime(2026, 3, 10, 12, 0, 0, tzinfo=UTC)
DEFAULT_AGE = timedelta(hours=1)


def ago(**delta: float) -> datetime:
    """`FIXED` minus a timedelta, e.g. `ago(minutes=5)`."""
    return FIXED - timedelta(**delta)


def iso(dt: datetime) -> str:
    """`2026-03-10T11:00:00Z`, as OCR's agents write state.json timestamps."""
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def sqlite_ts(dt: datetime) -> str:
    """`2026-03-10 11:00:00`, SQLite's `datetime('now')` form (UTC, no zone)."""
    return dt.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")


def _epoch(when: datetime | float | None) -> float:
    if when is None:
        return (FIXED - DEFAULT_AGE).timestamp()
    if isinstance(when, datetime):
        return when.timestamp()
    return float(when)


# --- markdown -------------------------------------------------------------------------------


def finding(title: str, severity: str | None = "Medium", *, level: int = 3, n: int = 1) -> str:
    """One template-style finding (`### Finding N: title` + `- **Severity**: …`)."""
    lines = [f"{'#' * level} Finding {n}: {title}", ""]
    if severity is not None:
        lines.append(f"- **Severity**: {severity}")
    lines += ["- **Location**: `src/app.py:L10-L12`", "- **Issue**: something is off", ""]
    return "\n".join(lines)


def reviewer_md(*severities: str | None, name: str = "Principal") -> str:
    """A reviewer file in the upstream template shape: `## Findings` then `### Finding N:`."""
    parts = [
        f"# {name} Review",
        "",
        "## Summary",
        "",
        "Looked at the change.",
        "",
        "## Findings",
        "",
    ]
    for i, sev in enumerate(severities, start=1):
        parts.append(finding(f"Problem number {i}", sev, n=i))
    parts += ["## What's Working Well", "", "- tests", "", "## Questions for Other Reviewers", ""]
    return "\n".join(parts)


def final_md(verdict: str = "APPROVE", body: str = "") -> str:
    return f"# Code Review: main\n\n## Verdict\n\n**{verdict}**\n\n---\n\n{body}"


def topology_md(*paths: str) -> str:
    listing = "\n".join(paths)
    return (
        "# Topology\n\n## Summary\n\nSome words.\n\n## Canonical File List\n\n"
        f"```\n{listing}\n```\n\n## Sections\n\n```\nnot counted\n```\n"
    )


# --- session directories --------------------------------------------------------------------


class SessionTree:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.id = path.name

    def write(self, rel: str, content: str | bytes = "", *, mtime=None) -> Path:
        p = self.path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content, encoding="utf-8")
        t = _epoch(mtime)
        os.utime(p, (t, t))
        return p

    def mkdir(self, rel: str) -> Path:
        p = self.path / rel
        p.mkdir(parents=True, exist_ok=True)
        return p

    def state(self, *, mtime=None, **fields) -> Path:
        """state.json with exactly these fields (any era)."""
        return self.write("state.json", json.dumps(fields), mtime=mtime)

    def round(
        self,
        n: int,
        *,
        reviewers: dict[str, str] | None = None,
        discourse: str | None = None,
        final: str | None = None,
        meta: dict | str | None = None,
        mtime=None,
    ) -> Path:
        d = self.mkdir(f"rounds/round-{n}")
        for name, text in (reviewers or {}).items():
            self.write(f"rounds/round-{n}/reviews/{name}.md", text, mtime=mtime)
        if discourse is not None:
            self.write(f"rounds/round-{n}/discourse.md", discourse, mtime=mtime)
        if meta is not None:
            body = meta if isinstance(meta, str) else json.dumps(meta)
            self.write(f"rounds/round-{n}/round-meta.json", body, mtime=mtime)
        if final is not None:
            self.write(f"rounds/round-{n}/final.md", final, mtime=mtime)
        return d

    def run(
        self,
        n: int,
        *,
        topology: str | None = None,
        flow: str | None = None,
        reqmap: str | None = None,
        map_md: str | None = None,
        mtime=None,
    ) -> Path:
        d = self.mkdir(f"map/runs/run-{n}")
        for name, text in (
            ("topology.md", topology),
            ("flow-analysis.md", flow),
            ("requirements-mapping.md", reqmap),
            ("map.md", map_md),
        ):
            if text is not None:
                self.write(f"map/runs/run-{n}/{name}", text, mtime=mtime)
        return d


# --- ocr.db ---------------------------------------------------------------------------------

# Migration 1 of upstream's SQLite store (ocr-format.md §2.2), the two tables `ocr state` owns.
SCHEMA_V1 = """
CREATE TABLE schema_version (
    version INTEGER PRIMARY KEY,
    applied_at TEXT DEFAULT (datetime('now')),
    description TEXT
);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    branch TEXT NOT NULL,
    status TEXT DEFAULT 'active' CHECK (status IN ('active', 'closed')),
    workflow_type TEXT CHECK (workflow_type IN ('review', 'map')),
    current_phase TEXT DEFAULT 'context',
    phase_number INTEGER DEFAULT 1,
    current_round INTEGER DEFAULT 1,
    current_map_run INTEGER DEFAULT 1,
    started_at TEXT DEFAULT (datetime('now')),
    updated_at TEXT DEFAULT (datetime('now')),
    session_dir TEXT NOT NULL
);
CREATE TABLE orchestration_events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    event_type TEXT NOT NULL,
    phase TEXT,
    phase_number INTEGER,
    round INTEGER,
    metadata TEXT,
    created_at TEXT DEFAULT (datetime('now'))
);
INSERT INTO schema_version (version, description) VALUES (1, 'initial');
"""


class OcrDb:
    """Collects rows, then `save()` writes `.ocr/data/ocr.db` as upstream does: a temp file
    renamed over the old one."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.sessions: list[dict] = []
        self.events: list[dict] = []
        self.schema = SCHEMA_V1

    def session(self, sid: str, **cols) -> OcrDb:
        default_time = sqlite_ts(FIXED - DEFAULT_AGE)  # not datetime('now'): the wall clock
        row = {
            "id": sid,
            "branch": cols.pop("branch", sid[11:] or sid),
            "session_dir": sid,
            "started_at": default_time,
            "updated_at": default_time,
        }
        row.update(cols)
        self.sessions.append(row)
        return self

    def event(self, sid: str, event_type: str, created_at: datetime | str, **cols) -> OcrDb:
        at = created_at if isinstance(created_at, str) else sqlite_ts(created_at)
        self.events.append({"session_id": sid, "event_type": event_type, "created_at": at, **cols})
        return self

    def save(self, *, mtime=None) -> Path:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f"ocr.db.{os.getpid()}.tmp")
        if tmp.exists():
            tmp.unlink()
        con = sqlite3.connect(tmp)
        try:
            con.execute("PRAGMA synchronous=OFF")  # test speed; the file is renamed in whole
            con.executescript(self.schema)
            for table, rows in (("sessions", self.sessions), ("orchestration_events", self.events)):
                for row in rows:
                    cols = ", ".join(row)
                    marks = ", ".join("?" for _ in row)
                    con.execute(
                        f"INSERT INTO {table} ({cols}) VALUES ({marks})", list(row.values())
                    )
            con.commit()
        finally:
            con.close()
        os.replace(tmp, self.path)
        t = _epoch(mtime)
        os.utime(self.path, (t, t))
        return self.path


# --- projects -------------------------------------------------------------------------------


class ProjectTree:
    def __init__(self, root: Path, *, sessions: bool = True) -> None:
        self.root = root
        self.ocr = root / ".ocr"
        self.sessions_dir = self.ocr / "sessions"
        self.data_dir = self.ocr / "data"
        self.db_path = self.data_dir / "ocr.db"
        self.ocr.mkdir(parents=True, exist_ok=True)
        if sessions:
            self.sessions_dir.mkdir(exist_ok=True)
        self._db: OcrDb | None = None

    @property
    def project(self) -> Project:
        return Project(self.root)

    def session(self, sid: str) -> SessionTree:
        p = self.sessions_dir / sid
        p.mkdir(parents=True, exist_ok=True)
        return SessionTree(p)

    @property
    def db(self) -> OcrDb:
        if self._db is None:
            self._db = OcrDb(self.db_path)
        return self._db

    def engine(self, *, now: datetime = FIXED, **kw) -> Engine:
        return Engine(self.project, clock=lambda: now, **kw)

    def views(self, **kw) -> dict[str, SessionView]:
        return {v.id: v for v in self.engine(**kw).scan()}

    def view(self, sid: str, **kw) -> SessionView:
        return self.views(**kw)[sid]


def tree_digest(root: Path) -> dict[str, tuple]:
    """Every path under `root` (directories too) mapped to (kind, sha256 of the content,
    size, mode, mtime_ns): anything written, created, removed or touched shows."""
    out: dict[str, tuple] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            digest = "dir"
            if name in filenames and not os.path.islink(p):
                with open(p, "rb") as fh:
                    digest = hashlib.sha256(fh.read()).hexdigest()
            out[os.path.relpath(p, root)] = (digest, st.st_size, st.st_mode, st.st_mtime_ns)
    return out
