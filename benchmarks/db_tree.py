"""A project whose `.ocr/data/ocr.db` holds a long history: 10 / 1,000 / 10,000
sessions, built in seconds and cached under $OCR_BENCH_CACHE like the other histories.

The simulator (`build_history(store="ocr.db")`) plays SEED sessions into ocr.db as OCR's CLI
and web dashboard write it: every table OCR has, the events, the agent commands, the review
rows, their findings and triage, map rows, notes. The history is those rows cloned in bulk
(`INSERT … SELECT` from the seed database, in SQLite): copy k's session ids end `-k{k}`, every
integer id is offset by k times the seed's largest, so each clone's rows point at its own.
Only the seed sessions have their files; the clones have an empty directory each (a session
OCR recorded whose files were cleaned up reads from its row alone), so the project is ~16 KB a
session, nearly all of it in ocr.db.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import time
from pathlib import Path

from benchmarks.trees import CACHE, NOW
from ocr_tui.formats.ocr.sim import build_history

SEED = 20  # sessions played by the simulator; the rest are clones of them

# Per table: its integer columns that hold the id of another table's row (the offset of that
# table applies), and its text columns that hold a session id.
_REFS: dict[str, tuple[dict[str, str], tuple[str, ...]]] = {
    "sessions": ({}, ("id",)),
    "orchestration_events": ({}, ("session_id",)),
    "command_executions": ({}, ("workflow_id", "uid")),
    "map_runs": ({}, ("session_id",)),
    "map_sections": ({"map_run_id": "map_runs"}, ()),
    "map_files": ({"section_id": "map_sections"}, ()),
    "user_file_progress": ({"map_file_id": "map_files"}, ()),
    "review_rounds": ({}, ("session_id",)),
    "reviewer_outputs": ({"round_id": "review_rounds"}, ()),
    "review_findings": ({"reviewer_output_id": "reviewer_outputs"}, ()),
    "user_finding_progress": ({"finding_id": "review_findings"}, ()),
    "user_round_progress": ({"round_id": "review_rounds"}, ()),
    "user_notes": ({}, ()),
}
_NOTE_TARGETS = {
    "round": "review_rounds",
    "finding": "review_findings",
    "run": "map_runs",
    "section": "map_sections",
    "file": "map_files",
}


def _clone(con: sqlite3.Connection, copies: int) -> None:
    """Add `copies - 1` clones of every seed row (copy 0 is the seed itself)."""
    span = {t: con.execute(f"SELECT COALESCE(MAX(rowid), 0) FROM {t}").fetchone()[0] for t in _REFS}
    con.execute("CREATE TEMP TABLE k (k INTEGER PRIMARY KEY)")
    con.executemany("INSERT INTO k VALUES (?)", [(k,) for k in range(1, copies)])
    for table, (ints, texts) in _REFS.items():
        cols = [r[1] for r in con.execute(f"PRAGMA table_info({table})")]
        exprs = []
        for c in cols:
            if c == "id" and table != "sessions":
                exprs.append(f"id + k.k * {span[table]}")
            elif c in ints:
                exprs.append(f"{c} + k.k * {span[ints[c]]}")
            elif c in texts:
                exprs.append(f"CASE WHEN {c} IS NULL THEN NULL ELSE {c} || '-k' || k.k END")
            elif c == "session_dir" and table == "sessions":
                exprs.append(f"{c} || '-k' || k.k")
            elif table == "user_notes" and c == "target_id":
                whens = " ".join(
                    f"WHEN '{kind}' THEN CAST(CAST(target_id AS INTEGER) + k.k * {span[t]} AS TEXT)"
                    for kind, t in _NOTE_TARGETS.items()
                )
                exprs.append(f"CASE target_type WHEN 'session' THEN target_id || '-k' || k.k "
                             f"{whens} ELSE target_id END")  # fmt: skip
            else:
                exprs.append(c)
        con.execute(
            f"INSERT INTO main.{table} ({', '.join(cols)}) "
            f"SELECT {', '.join(exprs)} FROM seed.{table}, k ORDER BY k.k, seed.{table}.rowid"
        )
    con.execute("DROP TABLE k")


def db_history(n: int) -> tuple[Path, list[str]]:
    """A project with `n` closed sessions recorded in ocr.db (see the module's docstring),
    built once into $OCR_BENCH_CACHE/db{n}; returns it and the session ids, newest first."""
    root = CACHE / f"db{n}"
    ids_file = CACHE / f"db{n}.ids.json"
    if root.is_dir() and ids_file.is_file():
        return root, json.loads(ids_file.read_text())
    CACHE.mkdir(parents=True, exist_ok=True)
    building = CACHE / f"db{n}.building-{os.getpid()}"
    shutil.rmtree(building, ignore_errors=True)
    t0 = time.perf_counter()
    print(f"# building a {n}-session ocr.db history in {root} (cached)…", flush=True)
    seed_ids = build_history(building, sessions=min(n, SEED), now=NOW, store="ocr.db")
    db = building / ".ocr" / "data" / "ocr.db"
    copies = -(-n // SEED)
    ids = list(seed_ids)
    if copies > 1:
        con = sqlite3.connect(":memory:", isolation_level=None)
        con.deserialize(db.read_bytes())
        con.execute("ATTACH ':memory:' AS seed")
        for table in _REFS:
            sql = con.execute(
                "SELECT sql FROM main.sqlite_master WHERE name = ?", (table,)
            ).fetchone()[0]
            con.execute(sql.replace(f"CREATE TABLE {table}", f"CREATE TABLE seed.{table}", 1))
            con.execute(f"INSERT INTO seed.{table} SELECT * FROM main.{table}")
        con.execute("BEGIN")
        _clone(con, copies)
        extra = [f"{sid}-k{k}" for k in range(1, copies) for sid in seed_ids]
        keep = set(ids + extra[: n - len(ids)])
        drop = [sid for sid in extra if sid not in keep]
        con.executemany("DELETE FROM sessions WHERE id = ?", [(s,) for s in drop])
        con.execute("COMMIT")
        con.execute("DETACH seed")
        con.execute("VACUUM")
        tmp = db.with_name("ocr.db.tmp")
        tmp.write_bytes(con.serialize())
        con.close()
        os.replace(tmp, db)
        sessions = building / ".ocr" / "sessions"
        for sid in extra[: n - len(ids)]:
            (sessions / sid).mkdir()
        ids += extra[: n - len(ids)]
    shutil.rmtree(root, ignore_errors=True)
    os.replace(building, root)
    ids_file.write_text(json.dumps(ids))
    size = (root / ".ocr" / "data" / "ocr.db").stat().st_size
    print(f"#   built in {time.perf_counter() - t0:.1f} s, ocr.db {size / 1e6:.1f} MB", flush=True)
    return root, ids
