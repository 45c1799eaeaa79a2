"""The rows of ocr.db that OCR's web dashboard writes for a session besides its findings: its
map runs (`map_runs` → `map_sections` → `map_files`, reviewed from `user_file_progress`) and
the user's notes (`user_notes`, placed through the rows they target). Read by `db_load.load_db`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ocr_tui.formats.ocr.db_values import as_int as _as_int
from ocr_tui.formats.ocr.db_values import as_str as _as_str
from ocr_tui.formats.ocr.db_values import columns as _columns
from ocr_tui.formats.ocr.finding import finding_id
from ocr_tui.formats.ocr.map_sections import (
    MAX_FILES,
    MAX_SECTIONS,
    MapFile,
    MapSection,
    RunMap,
    clean_title,
)
from ocr_tui.formats.ocr.model import StoredNote

if TYPE_CHECKING:
    import sqlite3


def read_maps(con: sqlite3.Connection) -> dict[str, dict[int, RunMap]]:
    """session -> map run number -> its sections and files as OCR's dashboard stored them
    (`map_runs` → `map_sections` → `map_files`, in display order), each file marked reviewed
    from `user_file_progress`. Missing tables or columns read as no map rows."""
    runs, secs = _columns(con, "map_runs"), _columns(con, "map_sections")
    files = _columns(con, "map_files")
    if not (
        {"id", "session_id", "run_number"} <= runs
        and {"id", "map_run_id"} <= secs
        and {"section_id", "file_path"} <= files
    ):
        return {}
    progress = _columns(con, "user_file_progress")
    has_progress = {"map_file_id", "is_reviewed"} <= progress and "id" in files

    def col(table: set[str], alias: str, name: str) -> str:
        return f"{alias}.{name}" if name in table else "NULL"

    reviewed = (
        "(SELECT MAX(p.is_reviewed) FROM user_file_progress p WHERE p.map_file_id = f.id)"
        if has_progress
        else "NULL"
    )
    query = (
        "SELECT r.session_id, r.run_number, s.id, "
        f"{col(secs, 's', 'section_number')}, {col(secs, 's', 'title')}, "
        f"{col(secs, 's', 'description')}, f.file_path, {col(files, 'f', 'role')}, "
        f"{col(files, 'f', 'lines_added')}, {col(files, 'f', 'lines_deleted')}, {reviewed} "
        "FROM map_runs r JOIN map_sections s ON s.map_run_id = r.id "
        "LEFT JOIN map_files f ON f.section_id = s.id "
        f"ORDER BY r.id, {col(secs, 's', 'display_order')}, s.id, "
        f"{col(files, 'f', 'display_order')}, f.rowid"
    )
    raw: dict[str, dict[int, dict[object, list]]] = {}
    for sid, run, sec_id, number, title, desc, path, role, added, deleted, done in con.execute(
        query
    ):
        sid, run = _as_str(sid), _as_int(run)
        if sid is None or run is None or run <= 0:
            continue
        section = raw.setdefault(sid, {}).setdefault(run, {})
        entry = section.setdefault(sec_id, [number, title, desc, []])
        path = _as_str(path)
        if path and len(entry[3]) < MAX_FILES:
            entry[3].append(
                MapFile(
                    path=path.strip()[:1000],
                    role=_as_str(role),
                    added=_count(added),
                    deleted=_count(deleted),
                    reviewed=truthy(done),
                )  # fmt: skip
            )
    out: dict[str, dict[int, RunMap]] = {}
    for sid, by_run in raw.items():
        for run, by_section in by_run.items():
            sections = []
            for i, (number, title, desc, mapped) in enumerate(by_section.values(), start=1):
                n = _as_int(number)
                n = n if n is not None and n > 0 else i
                sections.append(
                    MapSection(
                        number=n,
                        title=clean_title(_as_str(title)) or f"Section {n}",
                        description=_as_str(desc),
                        files=tuple(mapped),
                    )  # fmt: skip
                )
            out.setdefault(sid, {})[run] = RunMap(tuple(sections[:MAX_SECTIONS]), origin="ocr.db")
    return out


NOTES_KEPT = 200  # per session
MAX_NOTE_CHARS = 20_000


def read_notes(con: sqlite3.Connection) -> dict[str, list[StoredNote]]:
    """session -> the user's notes (`user_notes`) on it, its rounds, findings, map runs,
    sections and files, each placed through the table its `target_id` names; a note whose
    target is gone is not shown. Missing tables or columns read as no notes."""
    cols = _columns(con, "user_notes")
    if not {"target_type", "target_id", "content"} <= cols:
        return {}
    at = "COALESCE(updated_at, created_at)" if {"updated_at", "created_at"} <= cols else "NULL"
    order = "id" if "id" in cols else "rowid"
    rows = con.execute(
        f"SELECT target_type, target_id, content, {at}, {order} FROM user_notes ORDER BY {order}"
    )
    places = _note_places(con)
    out: dict[str, list[StoredNote]] = {}
    for kind, target, content, when, rid in rows:
        kind, text = _as_str(kind), _as_str(content)
        if not kind or not text or not text.strip():
            continue
        if kind == "session":
            sid, where = _as_str(target), {}
        else:
            sid, where = places.get((kind, _as_int(target)), (None, {}))
        if sid is None:
            continue
        kept = out.setdefault(sid, [])
        kept.append(StoredNote(target=kind, text=text[:MAX_NOTE_CHARS], at=_as_str(when),
                               id=_as_int(rid) if order == "id" else None, **where))  # fmt: skip
        del kept[:-NOTES_KEPT]
    return out


def _note_places(con: sqlite3.Connection) -> dict[tuple[str, int | None], tuple[str, dict]]:
    """(target type, row id) -> (session, where in it) for every row a note can target."""
    import sqlite3

    places: dict[tuple[str, int | None], tuple[str, dict]] = {}
    queries = {
        "round": (("review_rounds", {"id", "session_id", "round_number"}),
                  "SELECT id, session_id, round_number FROM review_rounds"),
        "run": (("map_runs", {"id", "session_id", "run_number"}),
                "SELECT id, session_id, run_number FROM map_runs"),
        "section": (("map_sections", {"id", "map_run_id", "section_number"}),
                    "SELECT s.id, r.session_id, r.run_number, s.section_number FROM map_sections s "
                    "JOIN map_runs r ON r.id = s.map_run_id"),
        "file": (("map_files", {"id", "section_id", "file_path"}),
                 "SELECT f.id, r.session_id, r.run_number, s.section_number, f.file_path "
                 "FROM map_files f JOIN map_sections s ON s.id = f.section_id "
                 "JOIN map_runs r ON r.id = s.map_run_id"),
        "finding": (("review_findings", {"id", "reviewer_output_id", "title"}),
                    "SELECT f.id, rr.session_id, rr.round_number, f.title, f.file_path "
                    "FROM review_findings f JOIN reviewer_outputs o ON o.id = f.reviewer_output_id "
                    "JOIN review_rounds rr ON rr.id = o.round_id"),
    }  # fmt: skip
    for kind, ((table, needed), query) in queries.items():
        if not needed <= _columns(con, table):
            continue
        try:
            found = con.execute(query).fetchall()
        except sqlite3.Error:  # a joined table or column missing (older schemas)
            continue
        for row in found:
            rid, sid = _as_int(row[0]), _as_str(row[1])
            if rid is None or sid is None:
                continue
            if kind == "round":
                where = {"round": _as_int(row[2])}
            elif kind == "run":
                where = {"run": _as_int(row[2])}
            elif kind == "section":
                where = {"run": _as_int(row[2]), "section": _as_int(row[3])}
            elif kind == "file":
                where = {"run": _as_int(row[2]), "section": _as_int(row[3]), "key": _as_str(row[4])}
            else:
                title = _as_str(row[3])
                if not title:
                    continue
                where = {"round": _as_int(row[2]), "key": finding_id(title, _as_str(row[4]))}
            places[(kind, rid)] = (sid, where)
    return places


def _count(value: object) -> int | None:
    n = _as_int(value)
    return n if n is not None and 0 <= n < 10**9 else None


def truthy(value: object) -> bool:
    """A flag column: 1 / a non-zero number / `"1"`, `"true"`, `"yes"`."""
    if isinstance(value, bool | int | float):
        return bool(value)
    return isinstance(value, str) and value.strip().lower() in ("1", "true", "yes")
