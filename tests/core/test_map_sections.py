"""A map run's review sections: from map-meta.json, else ocr.db's map
tables, else map.md's section tables; the files the user marked reviewed from ocr.db alone;
`status --json` map runs gain `sections`."""

from __future__ import annotations

import json
import sqlite3

from ocr_tui.core.engine import encode_json
from ocr_tui.formats.ocr.map_sections import clean_title, from_markdown

from .builders import ago, sqlite_ts

A = "2026-03-10-map-a"

MAP_MD = """# Code Review Map

## File Review

### Section 1: Core changes

| Done | File | Role |
|---|---|---|
| [ ] | `src/auth.ts` | source |
| [x] | `src/token.ts` | source |

### Section 2: Tests and docs

| Done | File | Role |
|---|---|---|
| [ ] | `tests/auth.test.ts` | test |

## Manual Verification

| Done | File | Role |
|---|---|---|
| [ ] | `not/a/section.ts` | x |
"""

META = {
    "schema_version": 1,
    "sections": [
        {"section_number": 1, "title": "Section 1: Core changes", "description": "the heart",
         "files": [{"file_path": "src/auth.ts", "role": "source", "lines_added": 10,
                    "lines_deleted": 2},
                   {"file_path": "src/token.ts", "role": "source", "lines_added": "many"}]},
        {"section_number": 2, "title": "Tests", "files": [{"file_path": "t/a.py"}, {}]},
    ],
    "dependencies": [{"from_section": 2, "from_title": "Tests", "to_section": 1,
                      "to_title": "Core changes", "relationship": "tests"}],
}  # fmt: skip

MAP_TABLES = """
CREATE TABLE map_runs (id INTEGER PRIMARY KEY, session_id TEXT, run_number INTEGER,
  file_count INTEGER, map_md_path TEXT, parsed_at TEXT);
CREATE TABLE map_sections (id INTEGER PRIMARY KEY, map_run_id INTEGER, section_number INTEGER,
  title TEXT, description TEXT, file_count INTEGER, display_order INTEGER);
CREATE TABLE map_files (id INTEGER PRIMARY KEY, section_id INTEGER, file_path TEXT, role TEXT,
  lines_added INTEGER, lines_deleted INTEGER, display_order INTEGER);
CREATE TABLE user_file_progress (id INTEGER PRIMARY KEY, map_file_id INTEGER,
  is_reviewed INTEGER, reviewed_at TEXT);
"""


def sections(view, run: int = 1) -> list[tuple]:
    (r,) = [r for r in view.map_runs if r.number == run]
    return [(s.number, s.title, s.files, s.reviewed) for s in r.sections]


def map_session(tree, **run):
    s = tree.session(A)
    s.state(session_id=A, workflow_type="map", current_phase="complete", status="closed")
    s.run(1, **run)
    return s


def test_map_md_sections_without_the_database(tree):
    map_session(tree, map_md=MAP_MD)
    view = tree.view(A)
    # Ticks in map.md's Done column are not counted: ocr.db is the record of what was
    # reviewed, and without it what was reviewed is not known (null), not none (0).
    assert sections(view) == [(1, "Core changes", 2, None), (2, "Tests and docs", 1, None)]
    out = json.loads(encode_json(view))
    assert out["map_runs"][0]["sections"] == [
        {"number": 1, "title": "Core changes", "files": 2, "reviewed": None},
        {"number": 2, "title": "Tests and docs", "files": 1, "reviewed": None},
    ]


def test_map_meta_wins_over_map_md(tree):
    s = map_session(tree, map_md=MAP_MD)
    s.write("map/runs/run-1/map-meta.json", json.dumps(META))
    assert sections(tree.view(A)) == [(1, "Core changes", 2, None), (2, "Tests", 1, None)]


def test_a_broken_map_meta_falls_back_to_map_md_and_says_so(tree):
    s = map_session(tree, map_md=MAP_MD)
    s.write("map/runs/run-1/map-meta.json", '{"sections": [')
    view = tree.view(A)
    assert sections(view)[0][:3] == (1, "Core changes", 2)
    assert any("map-meta.json" in p for p in view.problems)


def db_with_map(tree, *, reviewed: tuple[str, ...]):
    tree.db.session(A, workflow_type="map", current_phase="complete", status="closed")
    tree.db.schema += MAP_TABLES
    tree.db.save()
    con = sqlite3.connect(tree.db_path)
    con.execute(f"INSERT INTO map_runs VALUES (1, '{A}', 1, 3, NULL, NULL)")
    con.execute("INSERT INTO map_sections VALUES (10, 1, 1, 'Section 1: Core changes', NULL, 2, 1)")
    con.execute("INSERT INTO map_sections VALUES (11, 1, 2, 'Tests and docs', NULL, 1, 2)")
    for fid, sec, path in ((1, 10, "src/auth.ts"), (2, 10, "src/token.ts"),
                           (3, 11, "tests/auth.test.ts")):  # fmt: skip
        con.execute(f"INSERT INTO map_files VALUES ({fid}, {sec}, '{path}', 'source', 1, 0, {fid})")
        done = 1 if path in reviewed else 0
        con.execute(
            "INSERT INTO user_file_progress (map_file_id, is_reviewed, reviewed_at) "
            "VALUES (?, ?, ?)",
            (fid, done, sqlite_ts(ago(minutes=3))),
        )
    con.commit()
    con.close()


def test_reviewed_marks_come_from_the_database(tree):
    map_session(tree, map_md=MAP_MD)
    db_with_map(tree, reviewed=("src/token.ts", "tests/auth.test.ts"))
    assert sections(tree.view(A)) == [(1, "Core changes", 2, 1), (2, "Tests and docs", 1, 1)]


def test_database_sections_when_the_files_have_none(tree):
    map_session(tree, topology="# Topology\n")
    db_with_map(tree, reviewed=("src/auth.ts",))
    assert sections(tree.view(A)) == [(1, "Core changes", 2, 1), (2, "Tests and docs", 1, 0)]


def test_no_map_tables_no_sections_no_problem(tree):
    map_session(tree, topology="# Topology\n")
    tree.db.session(A, workflow_type="map").save()
    view = tree.view(A)
    assert sections(view) == [] and not view.problems


def test_clean_title_and_hostile_markdown():
    assert clean_title("Section 3: Data layer") == "Data layer"
    assert clean_title("section 12 — Tests") == "Tests"
    assert clean_title("Section 3") == "Section 3"
    assert clean_title(42) is None
    # Long runs of whitespace and pipes: linear, no crash.
    text = "### Section 1: A\n" + "|" + " " * 200_000 + "`x`|\n" + "| " * 100_000 + "\n"
    run = from_markdown(text)
    assert run is not None and run.sections[0].files[0].path == "x"
    assert from_markdown("# nothing here\n") is None


# --- every shape OCR's dashboard reads ----------------------------------------------


def files_of(text: str) -> list[tuple[int, str, list[tuple]]]:
    run = from_markdown(text)
    assert run is not None, text
    return [
        (s.number, s.title, [(f.path, f.role, f.added, f.deleted) for f in s.files])
        for s in run.sections
    ]


def test_a_checkbox_list_of_files_is_read():
    text = (
        "## File Review\n\n### Section 1: Entry\n\n"
        "- [ ] `src/a.ts` — entry point\n- [x] `src/b.ts` — helper +12/-3\n"
        "- not a file\n"
    )
    assert files_of(text) == [
        (1, "Entry", [("src/a.ts", "entry point", None, None), ("src/b.ts", "helper", 12, 3)])
    ]


def test_table_rows_without_backticks_are_read():
    text = (
        "### Section 1: Core\n\n| File | Role | +/- |\n|---|---|---|\n"
        "| src/a.ts | entry | +4/-2 |\n| src/b.ts | test | 10/0 |\n"
    )
    assert files_of(text) == [
        (1, "Core", [("src/a.ts", "entry", 4, 2), ("src/b.ts", "test", 10, 0)])
    ]


def test_sections_without_a_number_take_their_place_as_ocr_numbers_them():
    """OCR's dashboard counts every heading that is not one of its metadata headings; ocr.db's
    reviewed marks use that numbering, so ocr-tui numbers them alike."""
    text = (
        "# Code Review Map\n\n## Executive Summary\n\nwords\n\n"
        "## Authentication flow\n\n- [ ] `src/auth.ts` — login\n\n"
        "## Notes without files\n\nprose\n\n"
        "### Section 7: Numbered\n\n| [ ] | `src/x.ts` | x |\n\n"
        "## Manual Verification\n\n- [ ] `not/a/section.ts` — no\n"
    )
    got = files_of(text)
    assert [(n, t, len(f)) for n, t, f in got] == [
        (1, "Authentication flow", 1),
        (7, "Numbered", 1),
    ]


def test_a_map_md_of_these_shapes_counts_its_files_in_the_view(tree):
    text = (
        "### Section 1: A\n\n- [ ] `src/a.ts` — a\n\n### Section 2: B\n\n| src/b.ts | b | +1/-1 |\n"
    )
    map_session(tree, map_md=text)
    view = tree.view(A)
    (run,) = view.map_runs
    assert [(s.number, s.files) for s in run.sections] == [(1, 1), (2, 1)]
