"""Findings read from ocr.db's `review_findings`: the join to `reviewer_outputs` /
`review_rounds`, merging, triage from `user_finding_progress`, older schemas, bad values."""

from __future__ import annotations

import os
import sqlite3

import pytest

from ocr_tui.formats.ocr.db import open_snapshot
from ocr_tui.formats.ocr.finding import Location, finding_id
from ocr_tui.formats.ocr.findings_db import findings_from_db, load_findings, read_findings

from .builders import SCHEMA_V1, tree_digest

# Migration 1's artifact and user tables (ocr-format.md §2.2), as OCR's dashboard creates them.
REVIEW_V1 = """
CREATE TABLE review_rounds (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    round_number INTEGER NOT NULL,
    verdict TEXT,
    blocker_count INTEGER DEFAULT 0,
    suggestion_count INTEGER DEFAULT 0,
    should_fix_count INTEGER DEFAULT 0,
    final_md_path TEXT,
    parsed_at TEXT DEFAULT (datetime('now')),
    UNIQUE(session_id, round_number)
);
CREATE TABLE reviewer_outputs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    round_id INTEGER NOT NULL REFERENCES review_rounds(id),
    reviewer_type TEXT NOT NULL,
    instance_number INTEGER NOT NULL DEFAULT 1,
    file_path TEXT NOT NULL,
    finding_count INTEGER DEFAULT 0,
    parsed_at TEXT DEFAULT (datetime('now')),
    UNIQUE(round_id, reviewer_type, instance_number)
);
CREATE TABLE review_findings (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    reviewer_output_id INTEGER NOT NULL REFERENCES reviewer_outputs(id),
    title TEXT NOT NULL,
    severity TEXT NOT NULL CHECK (severity IN ('critical', 'high', 'medium', 'low', 'info')),
    file_path TEXT,
    line_start INTEGER,
    line_end INTEGER,
    summary TEXT,
    is_blocker INTEGER DEFAULT 0,
    parsed_at TEXT DEFAULT (datetime('now'))
);
"""
PROGRESS_V1 = """
CREATE TABLE user_finding_progress (
    finding_id INTEGER PRIMARY KEY REFERENCES review_findings(id),
    status TEXT NOT NULL DEFAULT 'unread'
        CHECK (status IN ('unread', 'read', 'acknowledged', 'fixed', 'wont_fix')),
    updated_at TEXT DEFAULT (datetime('now'))
);
"""
CATEGORY_V7 = "ALTER TABLE review_findings ADD COLUMN category TEXT;"
# A copy with every constraint gone: wrong types and several progress rows per finding.
LOOSE = """
CREATE TABLE review_rounds (id, session_id, round_number);
CREATE TABLE reviewer_outputs (id, round_id, reviewer_type, instance_number);
CREATE TABLE review_findings (id, reviewer_output_id, title, severity, file_path, line_start,
    line_end, summary, is_blocker, category);
CREATE TABLE user_finding_progress (finding_id, status, updated_at);
"""

SID = "2026-04-01-feat-x"
OTHER = "2026-04-01-main"


class ReviewDb:
    """ocr.db with review rows: `add()` per finding creates its round and reviewer rows."""

    def __init__(self, path, schema: str) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self.con = sqlite3.connect(path)
        self.con.executescript(schema)
        self.rounds: dict[tuple, int] = {}
        self.outputs: dict[tuple, int] = {}

    def round_id(self, sid, number) -> int:
        if (sid, number) not in self.rounds:
            cur = self.con.execute(
                "INSERT INTO review_rounds (id, session_id, round_number) VALUES (?, ?, ?)",
                (len(self.rounds) + 1, sid, number),
            )
            self.rounds[(sid, number)] = cur.lastrowid
        return self.rounds[(sid, number)]

    def output_id(self, sid, number, reviewer: str) -> int:
        key = (sid, number, reviewer)
        if key not in self.outputs:
            kind, _, n = reviewer.rpartition("-")
            cols = "id, round_id, reviewer_type, instance_number"
            vals = [len(self.outputs) + 1, self.round_id(sid, number), kind, int(n)]
            if "file_path" in self.columns("reviewer_outputs"):
                cols += ", file_path"
                vals.append(f"rounds/round-{number}/reviews/{reviewer}.md")
            marks = ", ".join("?" for _ in vals)
            self.con.execute(f"INSERT INTO reviewer_outputs ({cols}) VALUES ({marks})", vals)
            self.outputs[key] = vals[0]
        return self.outputs[key]

    def columns(self, table: str) -> set[str]:
        return {r[1] for r in self.con.execute(f"PRAGMA table_info({table})")}

    def add(self, reviewer: str = "principal-1", *, sid=SID, number=1, **cols) -> int:
        row = {
            "reviewer_output_id": self.output_id(sid, number, reviewer),
            "title": "SQL injection in search",
            "severity": "high",
            **cols,
        }
        names = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        cur = self.con.execute(
            f"INSERT INTO review_findings ({names}) VALUES ({marks})", list(row.values())
        )
        return cur.lastrowid

    def progress(self, finding: int, status, updated_at: str = "2026-04-01 10:00:00") -> None:
        self.con.execute(
            "INSERT INTO user_finding_progress (finding_id, status, updated_at) VALUES (?, ?, ?)",
            (finding, status, updated_at),
        )

    def save(self):
        self.con.commit()
        self.con.close()
        return self.path


@pytest.fixture
def db_path(tmp_path):
    return tmp_path / "proj" / ".ocr" / "data" / "ocr.db"


@pytest.fixture
def db(db_path) -> ReviewDb:
    """The current schema: migration 1 with `category` (migration 7)."""
    return ReviewDb(db_path, SCHEMA_V1 + REVIEW_V1 + PROGRESS_V1 + CATEGORY_V7)


def read(db: ReviewDb, sid: str = SID):
    found, problem = load_findings(db.save(), sid)
    assert problem is None
    return found


def test_join_gives_each_round_its_findings(db):
    db.add(
        "security-1",
        title="SQL injection in search",
        severity="critical",
        file_path="src/search.ts",
        line_start=42,
        line_end=50,
        summary="User input reaches the query.\n\nUse parameters.",
        category="blocker",
    )
    db.add("quality-2", number=2, title="Long function", severity="low", file_path="src/a.ts")
    found = read(db)
    assert sorted(found) == [1, 2]
    (f,) = found[1]
    assert f.id == finding_id("SQL injection in search", "src/search.ts")
    assert f.title == "SQL injection in search"
    assert f.severity == "critical"
    assert f.location == Location(file="src/search.ts", line_start=42, line_end=50)
    assert f.category == "blocker" and f.blocker
    assert f.reviewers == ["security-1"]
    assert (f.source, f.path, f.line) == ("ocr.db", None, None)
    assert f.text == "User input reaches the query.\n\nUse parameters."
    assert f.triage is None and f.evolution is None
    (g,) = found[2]
    assert (g.title, g.severity, g.reviewers, g.blocker) == (
        "Long function",
        "low",
        ["quality-2"],
        False,
    )
    assert g.location == Location(file="src/a.ts")


def test_is_blocker_alone_makes_a_blocker_and_one_line_ends_where_it_starts(db):
    db.add(is_blocker=1, line_start=7, category="should_fix")
    (f,) = read(db)[1]
    assert f.blocker and f.category == "should_fix"
    assert (f.location.line_start, f.location.line_end) == (7, 7)


def test_two_reviewers_with_the_same_finding_are_one(db):
    db.add("principal-1", title="Race in the watcher", severity="medium", file_path="./w.py")
    db.add("principal-2", title="Race in the Watcher!", severity="high", file_path="w.py",
           line_start=3, line_end=9, is_blocker=1)  # fmt: skip
    db.add("principal-2", title="Another thing", severity="info")
    found = read(db)[1]
    assert [f.title for f in found] == ["Race in the watcher", "Another thing"]
    race = found[0]
    assert race.reviewers == ["principal-1", "principal-2"]
    assert race.severity == "high"  # the graver
    assert race.blocker
    assert (race.location.line_start, race.location.line_end) == (3, 9)


def test_the_same_finding_in_two_rounds_stays_in_each(db):
    db.add(number=1)
    db.add(number=2)
    found = read(db)
    assert [len(found[1]), len(found[2])] == [1, 1]
    assert found[1][0].id == found[2][0].id


def test_triage_is_the_raw_status_of_the_latest_progress_row(db_path):
    db = ReviewDb(db_path, SCHEMA_V1 + LOOSE)
    a = db.add(id=1, title="A")
    db.add(id=2, title="B")
    db.add(id=3, title="C")
    db.progress(a, "read", "2026-04-01 10:00:00")
    db.progress(a, "fixed", "2026-04-01 12:00:00")
    db.progress(a, "acknowledged", "2026-04-01 11:00:00")
    db.progress("2", "wont_fix")  # the id as text
    db.progress(99, "read")  # no such finding
    found = {f.title: f.triage for f in read(db)[1]}
    assert found == {"A": "fixed", "B": "wont_fix", "C": None}


def test_triage_from_a_without_rowid_table(db_path):
    progress = (
        "CREATE TABLE user_finding_progress (finding_id INTEGER PRIMARY KEY, status TEXT) "
        "WITHOUT ROWID;"
    )
    db = ReviewDb(db_path, SCHEMA_V1 + REVIEW_V1 + progress)
    rid = db.add()
    db.con.execute("INSERT INTO user_finding_progress VALUES (?, 'read')", (rid,))
    (f,) = read(db)[1]
    assert f.triage == "read"


def test_triage_of_a_merged_finding_is_the_latest_of_its_rows(db):
    a = db.add("principal-1")
    b = db.add("quality-1")
    db.progress(a, "acknowledged", "2026-04-01 12:00:00")
    db.progress(b, "read", "2026-04-01 09:00:00")
    (f,) = read(db)[1]
    assert f.reviewers == ["principal-1", "quality-1"] and f.triage == "acknowledged"


def test_other_sessions_rows_do_not_leak(db):
    db.add(title="Mine")
    theirs = db.add(sid=OTHER, title="Theirs", number=3)
    db.progress(theirs, "fixed")
    assert [f.title for f in read(db)[1]] == ["Mine"]
    found, problem = load_findings(db.path, "no-such-session")
    assert (found, problem) == ({}, None)
    assert list(load_findings(db.path, OTHER)[0]) == [3]


def test_rounds_without_findings_are_absent(db):
    db.round_id(SID, 1)
    db.output_id(SID, 2, "principal-1")  # a reviewer with no finding rows
    db.add(number=3)
    assert list(read(db)) == [3]


def test_schema_before_migration_7_has_no_category(db_path):
    db = ReviewDb(db_path, SCHEMA_V1 + REVIEW_V1 + PROGRESS_V1)
    db.add(is_blocker=0)
    (f,) = read(db)[1]
    assert f.category is None and not f.blocker and f.severity == "high"


def test_without_user_finding_progress_there_is_no_triage(db_path):
    db = ReviewDb(db_path, SCHEMA_V1 + REVIEW_V1 + CATEGORY_V7)
    db.add()
    (f,) = read(db)[1]
    assert f.triage is None


def test_db_without_review_tables_has_no_findings_and_no_problem(db_path):
    db = ReviewDb(db_path, SCHEMA_V1)
    assert load_findings(db.save(), SID) == ({}, None)


def test_a_join_column_missing_is_a_problem(db_path):
    db = ReviewDb(
        db_path,
        SCHEMA_V1
        + "CREATE TABLE review_rounds (id, round_number);"
        + "CREATE TABLE reviewer_outputs (id, round_id);"
        + "CREATE TABLE review_findings (id, reviewer_output_id, title);",
    )
    found, problem = load_findings(db.save(), SID)
    assert found == {} and "session_id" in problem


def test_minimal_columns_are_enough(db_path):
    db = ReviewDb(
        db_path,
        SCHEMA_V1
        + "CREATE TABLE review_rounds (id, session_id, round_number);"
        + "CREATE TABLE reviewer_outputs (id, round_id, reviewer_type, instance_number);"
        + "CREATE TABLE review_findings (reviewer_output_id, summary);",
    )
    rid = db.output_id(SID, 1, "testing-1")
    db.con.execute("INSERT INTO review_findings VALUES (?, ?)", (rid, "First line\nmore"))
    (f,) = read(db)[1]
    assert (f.title, f.text, f.reviewers, f.severity) == ("First line", "First line\nmore",
                                                          ["testing-1"], None)  # fmt: skip


def test_bad_values_are_those_values_missing(db_path):
    db = ReviewDb(db_path, SCHEMA_V1 + LOOSE)
    db.add(title="Bad severity", severity="urgent", category="nit", line_start=0, line_end=-3)
    db.add(title="Text lines", severity="High", category="Should Fix", line_start="12",
           line_end="x")  # fmt: skip
    db.add(title="Float lines", severity=3, line_start=4.0, line_end=2.5, is_blocker="true")
    db.add(title="Backwards", line_start=20, line_end=10, file_path="`src/b.ts`")
    db.add(title=42, summary=None)  # a number is no title and there is no summary
    db.add(title="  ", summary="  ")
    db.add(title="Blank line", line_start=" ", line_end="", is_blocker="no")
    db.add(title=b"Blob title")  # a blob is no text
    rid = db.add(title="placeholder")
    db.con.execute(  # text that is not UTF-8
        "UPDATE review_findings SET title = CAST(? AS TEXT), file_path = CAST(? AS TEXT) "
        "WHERE rowid = ?",
        (b"\xffbytes title", b"src/\xfe.py", rid),
    )
    found = {f.title: f for f in read(db)[1]}
    bad = found["Bad severity"]
    assert (bad.severity, bad.category, bad.location.line_start, bad.location.line_end) == (
        None, None, None, None,
    )  # fmt: skip
    text = found["Text lines"]
    assert (text.severity, text.category) == ("high", "should_fix")
    assert (text.location.line_start, text.location.line_end) == (12, 12)
    flt = found["Float lines"]
    assert flt.severity is None and flt.blocker
    assert (flt.location.line_start, flt.location.line_end) == (4, 4)
    back = found["Backwards"]
    assert back.location == Location(file="src/b.ts", line_start=20, line_end=20)
    blank = found["Blank line"]
    assert blank.location == Location() and not blank.blocker
    assert "42" not in found and "Blob title" not in found and "placeholder" not in found
    assert not any(t.strip() == "" for t in found)
    odd = [f for t, f in found.items() if "bytes title" in t]
    assert len(odd) == 1 and "\ufffd" in odd[0].title and odd[0].location.file == "src/\ufffd.py"


def test_bad_round_numbers_and_reviewers(db_path):
    db = ReviewDb(db_path, SCHEMA_V1 + LOOSE)
    for rid, number in ((1, None), (2, 0), (3, "two"), (4, "2"), (5, 1.0)):
        db.con.execute("INSERT INTO review_rounds VALUES (?, ?, ?)", (rid, SID, number))
    outputs = ((1, 1, "principal", 1), (2, 2, "principal", 1), (3, 3, "principal", 1),
               (4, 4, "@quality", "x"), (5, 5, None, 1))  # fmt: skip
    for row in outputs:
        db.con.execute("INSERT INTO reviewer_outputs VALUES (?, ?, ?, ?)", row)
        db.con.execute(
            "INSERT INTO review_findings (id, reviewer_output_id, title) VALUES (?, ?, ?)",
            (row[0], row[0], f"F{row[0]}"),
        )
    found = read(db)
    assert sorted(found) == [1, 2]
    assert [(f.title, f.reviewers) for f in found[2]] == [("F4", ["quality"])]
    assert [(f.title, f.reviewers) for f in found[1]] == [("F5", [])]


@pytest.mark.parametrize(
    "content",
    [b"", b"not a database at all" * 100, b"SQLite format 3\x00" + b"\x00" * 200],
)
def test_corrupt_or_empty_file_is_a_problem_never_an_exception(db_path, content):
    db_path.parent.mkdir(parents=True)
    db_path.write_bytes(content)
    found, problem = load_findings(db_path, SID)
    assert found == {} and problem and "ocr.db" in problem


def test_truncated_database_is_a_problem(db):
    db.add()
    data = db.save().read_bytes()
    db.path.write_bytes(data[: len(data) // 2])
    found, problem = load_findings(db.path, SID)
    assert found == {}
    assert problem is None or "could not be read" in problem


def test_absent_file_or_a_directory(tmp_path):
    assert load_findings(tmp_path / "nope" / "ocr.db", SID) == ({}, None)
    (tmp_path / "dir.db").mkdir()
    found, problem = load_findings(tmp_path / "dir.db", SID)
    assert found == {} and "not a regular file" in problem


def test_symbolic_link_is_not_followed(db, tmp_path):
    db.add()
    link = tmp_path / "link.db"
    os.symlink(db.save(), link)
    found, problem = load_findings(link, SID)
    assert found == {} and "symbolic link" in problem


def test_corrupt_connection_given_directly_never_raises():
    con = sqlite3.connect(":memory:")
    con.deserialize(b"garbage" * 200)
    assert findings_from_db(con, SID) == {}
    found, problem = read_findings(con, SID)
    assert found == {} and "could not be read" in problem


def test_a_callers_connection_keeps_its_text_factory(db):
    rid = db.add()
    db.con.execute(
        "UPDATE review_findings SET summary = CAST(? AS TEXT) WHERE id = ?",
        (b"bad \xff utf-8", rid),
    )
    con = sqlite3.connect(db.save())
    try:
        before = con.text_factory
        (f,) = findings_from_db(con, SID)[1]
        assert f.text == "bad \ufffd utf-8"
        assert con.text_factory is before
    finally:
        con.close()


def test_reading_leaves_the_project_untouched(db, tmp_path):
    db.add()
    db.save()
    root = tmp_path / "proj"
    before = tree_digest(root)
    assert read_findings(open_snapshot(db.path), SID)[0]
    assert load_findings(db.path, SID)[0]
    assert tree_digest(root) == before


def test_wal_mode_file_is_read(db):
    db.add()
    db.con.commit()
    db.con.execute("PRAGMA journal_mode=WAL")
    db.con.close()
    data = bytearray(db.path.read_bytes())
    assert data[18:20] == b"\x02\x02"
    for side in ("-wal", "-shm"):
        p = db.path.with_name(db.path.name + side)
        if p.exists():
            p.unlink()
    db.path.write_bytes(bytes(data))
    assert [f.title for f in load_findings(db.path, SID)[0][1]] == ["SQL injection in search"]


def test_open_blockers_leave_out_the_ones_triaged_fixed_or_wont_fix(db, db_path):
    """The session view's `open_blockers`: blockers not triaged fixed / won't fix (the summary
    line's "unresolved blockers"), counted from the same findings as `blockers`."""
    from ocr_tui.core.engine import Engine
    from ocr_tui.core.project import Project

    root = db_path.parent.parent.parent
    (root / ".ocr" / "sessions" / SID / "rounds" / "round-1").mkdir(parents=True)
    db.con.execute("INSERT INTO sessions (id, branch, session_dir) VALUES (?, 'x', ?)", (SID, SID))
    fixed = db.add(title="A", is_blocker=1)
    db.add(title="B", is_blocker=1, file_path="b.py")
    wont = db.add(title="C", is_blocker=1, file_path="c.py")
    read_only = db.add(title="D", is_blocker=1, file_path="d.py")
    db.add(title="E", is_blocker=0, file_path="e.py", severity="low")
    db.progress(fixed, "fixed")
    db.progress(wont, "wont_fix")
    db.progress(read_only, "read")
    db.save()
    (view,) = Engine(Project(root)).scan()
    (rnd,) = view.rounds
    assert (rnd.blockers, rnd.open_blockers) == (4, 2)
