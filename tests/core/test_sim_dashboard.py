"""The simulator's ocr.db, as OCR's web dashboard leaves it for the closed history sessions
(`sim_dashboard`): review rows that read back as the same findings the files give, the
user's triage (a finding gone in the next round is `fixed`), the real tables and CHECKs, no
rows for the live session nor in state.json mode, deterministic, and not one simulated file
changed by them."""

from __future__ import annotations

import dataclasses
import json
import math
import re
import sqlite3
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest

from ocr_tui.cli import main
from ocr_tui.formats.ocr import sim_dashboard as D
from ocr_tui.formats.ocr.findings_db import load_findings
from ocr_tui.formats.ocr.fs import read_session
from ocr_tui.formats.ocr.round_findings import read_findings, read_with_store, round_findings
from ocr_tui.formats.ocr.sim import Simulator, build_history
from ocr_tui.formats.ocr.sim_store import DbStore

START = datetime(2026, 3, 10, 12, 0, 0, tzinfo=UTC)
TABLES = ("review_rounds", "reviewer_outputs", "review_findings", "user_finding_progress",
          "user_round_progress")  # fmt: skip


def simulate(root: Path, *, seed: int = 7, history: int = 3, store: str = "ocr.db") -> Simulator:
    sim = Simulator(root, store=store, seed=seed, start=START, speed=math.inf, history=history)
    sim.setup()
    return sim


def db_of(root: Path) -> Path:
    return root / ".ocr" / "data" / "ocr.db"


def query(root: Path, sql: str, args: tuple = ()) -> list[tuple]:
    con = sqlite3.connect(f"file:{db_of(root)}?mode=ro", uri=True)
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


def shape(findings) -> dict[str, tuple]:
    """What must not depend on the source: id -> title, severity, blocker, category, where,
    who, evolution."""
    return {
        f.id: (f.title, f.severity, f.blocker, f.category, f.location, sorted(f.reviewers),
               f.evolution)
        for f in findings
    }  # fmt: skip


def sessions(root: Path) -> Path:
    return root / ".ocr" / "sessions"


# --- the rows are the files' findings -----------------------------------------------------


@pytest.mark.parametrize("seed", [1, 4, 7])
def test_every_history_round_has_rows_that_read_as_its_files(tmp_path: Path, seed: int) -> None:
    """Each round's rows, read by ocr-tui's ocr.db reader and enriched by the same final.md,
    are the findings its round-meta.json (or, without one, its reviewer files) give."""
    sim = simulate(tmp_path, seed=seed)
    sources = Counter()
    for sid in sim.history_ids:
        sdir = sessions(tmp_path) / sid
        rows, problem = load_findings(db_of(tmp_path), sid)
        assert problem is None
        files = read_session(sdir, read_state_json=False)
        assert sorted(rows) == [r.number for r in files.rounds]
        for rnd in files.rounds:
            from_files, source, _ = round_findings(sdir, rnd)
            no_meta = dataclasses.replace(rnd, meta=None)
            from_db, db_source, _ = round_findings(sdir, no_meta, rows[rnd.number])
            assert db_source == "ocr.db"
            assert shape(from_db) == shape(from_files), f"{sid} round {rnd.number}"
            sources[source] += 1
    assert sources["round-meta.json"] and sources["markdown"]  # both dashboard paths


def test_read_with_store_gives_the_files_findings_with_triage(tmp_path: Path) -> None:
    """The one history session predating round-meta.json (two rounds): ocr-tui reads it from
    the rows, finding for finding what the files say, plus the user's triage."""
    sim = simulate(tmp_path, seed=3, history=1)
    (sid,) = sim.history_ids
    sdir = sessions(tmp_path) / sid
    with_db, problem = read_with_store(sdir, db_of(tmp_path), sid)
    without, problems = read_findings(sdir)
    assert problem is None and problems == []
    assert [r.number for r in with_db] == [r.number for r in without] == [1, 2]
    for a, b in zip(with_db, without, strict=True):
        assert (a.source, b.source) == ("ocr.db", "markdown")
        assert shape(a.findings) == shape(b.findings)
        assert all(f.triage in (None, *D.FINDING_STATUSES) for f in a.findings)
        assert all(f.triage is None for f in b.findings)
    r1, r2 = with_db
    assert sum(f.triage is not None for f in r1.current) > len(r1.current) / 2  # most
    resolved = [f for f in r2.findings if f.evolution == "resolved"]
    assert resolved and all(f.triage == "fixed" for f in resolved)
    still = {f.id for f in r2.current}
    assert all(f.triage == "fixed" for f in r1.current if f.id not in still)
    assert not [f for f in r1.current if f.id in still and f.triage == "fixed"]


def test_findings_cli_shows_the_triage(tmp_path: Path, capsys) -> None:
    sim = simulate(tmp_path, seed=3, history=1)
    (sid,) = sim.history_ids
    out = {}
    for rnd in ("1", "2"):
        args = ["findings", str(tmp_path), "--session", sid, "--round", rnd, "--json"]
        assert main(args) == 0
        out[rnd] = json.loads(capsys.readouterr().out)["findings"]
    assert all(f["source"] == "ocr.db" for f in out["1"] + out["2"])
    marked = [f["triage"] for f in out["1"] if f["triage"]]
    assert len(marked) > len(out["1"]) / 2 and set(marked) <= set(D.FINDING_STATUSES)
    resolved = [f for f in out["2"] if f["evolution"] == "resolved"]
    assert resolved and {f["triage"] for f in resolved} == {"fixed"}
    assert main(["findings", str(tmp_path), "--session", sid, "--json"]) == 0  # latest round
    assert any(f["triage"] for f in json.loads(capsys.readouterr().out)["findings"])


# --- the triage, row by row ------------------------------------------------------------------


def test_a_finding_gone_next_round_is_fixed_and_the_mix_is_realistic(tmp_path: Path) -> None:
    build_history(tmp_path, sessions=12, store="ocr.db", now=START)
    rows = query(
        tmp_path,
        "SELECT rr.session_id, rr.round_number, rf.title, rf.file_path, ufp.status "
        "FROM review_findings rf JOIN reviewer_outputs ro ON ro.id = rf.reviewer_output_id "
        "JOIN review_rounds rr ON rr.id = ro.round_id "
        "LEFT JOIN user_finding_progress ufp ON ufp.finding_id = rf.id",
    )
    keys: dict[tuple[str, int], set] = {}
    for sid, n, title, path, _ in rows:
        keys.setdefault((sid, n), set()).add((title, path))
    older, last = Counter(), Counter()
    for sid, n, title, path, status in rows:
        if n == 1:  # every build_history session has two rounds
            gone = (title, path) not in keys[(sid, 2)]
            assert (status == "fixed") == gone, (sid, title)
            older[status] += 1
        else:
            assert status != "fixed"
            last[status] += 1
    assert {"fixed", "acknowledged", "read", "wont_fix", None} <= set(older)
    assert older[None] < sum(older.values()) / 4  # most older-round findings triaged
    assert last[None] and sum(last.values()) > last[None]  # the last round: lighter
    rounds = query(
        tmp_path,
        "SELECT rr.round_number, urp.status FROM review_rounds rr "
        "LEFT JOIN user_round_progress urp ON urp.round_id = rr.id",
    )
    assert {s for n, s in rounds if n == 1} == {"changes_made"}
    assert {s for n, s in rounds if n == 2} <= {"acknowledged", "dismissed", None}


def test_a_shared_finding_has_one_status_and_clicks_follow_the_clock(tmp_path: Path) -> None:
    simulate(tmp_path, seed=5)
    rows = query(
        tmp_path,
        "SELECT ro.round_id, rf.title, rf.file_path, ufp.status, ufp.updated_at, ufp.id "
        "FROM user_finding_progress ufp JOIN review_findings rf ON rf.id = ufp.finding_id "
        "JOIN reviewer_outputs ro ON ro.id = rf.reviewer_output_id ORDER BY ufp.id",
    )
    assert rows
    by_finding: dict[tuple, set] = {}
    for rid, title, path, status, _, _ in rows:
        by_finding.setdefault((rid, title, path), set()).add(status)
    assert all(len(s) == 1 for s in by_finding.values())
    assert any(len([r for r in rows if r[:3] == k]) > 1 for k in by_finding)  # shared ones
    sessions_of = dict(query(tmp_path, "SELECT id, session_id FROM review_rounds"))
    for sid in set(sessions_of.values()):  # a session's clicks: ids in time order
        times = [r[4] for r in rows if sessions_of[r[0]] == sid]
        assert times == sorted(times)


def test_triage_times_lie_after_the_round_and_before_now(tmp_path: Path) -> None:
    build_history(tmp_path, sessions=3, store="ocr.db", now=START)
    now = START.strftime("%Y-%m-%d %H:%M:%S")
    parsed = query(tmp_path, "SELECT session_id, round_number, parsed_at FROM review_rounds")
    done = {(sid, n): at for sid, n, at in parsed}
    marks = query(
        tmp_path,
        "SELECT rr.session_id, rr.round_number, ufp.updated_at FROM user_finding_progress ufp "
        "JOIN review_findings rf ON rf.id = ufp.finding_id "
        "JOIN reviewer_outputs ro ON ro.id = rf.reviewer_output_id "
        "JOIN review_rounds rr ON rr.id = ro.round_id",
    )
    assert marks
    for sid, n, at in marks:
        assert done[(sid, n)] < at < now
        if (sid, n + 1) in done:  # before the re-review's final.md
            assert at < done[(sid, n + 1)]


# --- the tables ---------------------------------------------------------------------------


def test_real_tables_checks_and_schema_versions(tmp_path: Path) -> None:
    simulate(tmp_path, history=2)
    versions = [v for (v,) in query(tmp_path, "SELECT version FROM schema_version")]
    assert versions == [1, 2, 3, 4, 6, 7, 8, 9]
    cols = {t: [r[1] for r in query(tmp_path, f"PRAGMA table_info({t})")] for t in TABLES}
    assert cols["review_rounds"][-3:] == ["source", "reviewer_count", "total_finding_count"]
    assert cols["review_findings"][-1] == "category"
    assert cols["user_finding_progress"] == ["id", "finding_id", "status", "updated_at"]
    assert cols["user_round_progress"] == ["id", "round_id", "status", "updated_at"]
    assert query(tmp_path, "PRAGMA integrity_check") == [("ok",)]
    con = sqlite3.connect(db_of(tmp_path))
    try:
        for sql in (
            "UPDATE user_finding_progress SET status = 'done'",
            "UPDATE user_round_progress SET status = 'fixed'",
            "UPDATE review_findings SET severity = 'major'",
        ):
            with pytest.raises(sqlite3.IntegrityError):
                con.execute(sql)
    finally:
        con.close()
    rounds = query(tmp_path, "SELECT source, verdict, reviewer_count FROM review_rounds")
    assert {s for s, _, _ in rounds} == {"orchestrator", "parser"}
    assert all(v in ("APPROVE", "REQUEST CHANGES", "NEEDS DISCUSSION") for _, v, _ in rounds)


def test_round_counts_follow_round_meta_and_final_md(tmp_path: Path) -> None:
    sim = simulate(tmp_path, seed=2)
    events = {
        (sid, rnd): json.loads(meta)
        for sid, rnd, meta in query(
            tmp_path,
            "SELECT session_id, round, metadata FROM orchestration_events "
            "WHERE event_type = 'round_completed'",
        )
    }
    assert events
    for sid, n, verdict, b, s, sf, source, rc, total in query(
        tmp_path,
        "SELECT session_id, round_number, verdict, blocker_count, suggestion_count, "
        "should_fix_count, source, reviewer_count, total_finding_count FROM review_rounds",
    ):
        assert sid in sim.history_ids
        final = (sessions(tmp_path) / sid / f"rounds/round-{n}/final.md").read_text()
        assert f"**{verdict}**" in final
        if source == "orchestrator":  # the counts the CLI's round_completed event has
            e = events[(sid, n)]
            got = (verdict, b, sf, s, rc, total)
            want = ("verdict", "blocker_count", "should_fix_count", "suggestion_count")
            want += ("reviewer_count", "total_finding_count")
            assert got == tuple(e[k] for k in want)
        else:  # final.md's items; no counts upstream's parser path leaves at 0
            assert (sid, n) not in events and (rc, total) == (0, 0)
            section = {
                name: final.split(f"\n## {name}\n")[1].split("\n## ")[0]
                for name in ("Blockers", "Should Fix", "Suggestions")
            }
            assert s == section["Suggestions"].count('\n- "')
            assert sf == len(re.findall(r"(?m)^### \d+\. ", section["Should Fix"]))
            # blockers: recounted from the round's critical rows, one per reviewer
            critical = query(
                tmp_path,
                "SELECT COUNT(*) FROM review_findings rf JOIN reviewer_outputs ro "
                "ON ro.id = rf.reviewer_output_id JOIN review_rounds rr ON rr.id = ro.round_id "
                "WHERE rr.session_id = ? AND rr.round_number = ? AND rf.severity = 'critical'",
                (sid, n),
            )
            assert b == critical[0][0] >= len(re.findall(r"(?m)^### \d+\. ", section["Blockers"]))


def test_no_rows_for_the_live_session_nor_without_history(tmp_path: Path) -> None:
    sim = simulate(tmp_path / "a", history=2)
    before = query(tmp_path / "a", "SELECT COUNT(*) FROM review_findings")
    for _ in sim.steps():
        pass
    assert query(tmp_path / "a", "SELECT COUNT(*) FROM review_findings") == before
    ids = {sid for (sid,) in query(tmp_path / "a", "SELECT session_id FROM review_rounds")}
    assert ids == set(sim.history_ids)
    live = Simulator(tmp_path / "b", store="ocr.db", start=START, speed=math.inf, history=0)
    for _ in live.steps():
        pass
    names = {n for (n,) in query(tmp_path / "b", "SELECT name FROM sqlite_master")}
    assert not names & set(TABLES)  # the dashboard was never opened


def test_state_json_mode_writes_no_db(tmp_path: Path) -> None:
    simulate(tmp_path / "a", store="state.json")
    build_history(tmp_path / "b", sessions=3, store="state.json", now=START)
    assert not (tmp_path / "a/.ocr/data").exists() and not (tmp_path / "b/.ocr/data").exists()


# --- determinism and the files ------------------------------------------------------------


def dump(root: Path) -> list[list[tuple]]:
    return [query(root, f"SELECT * FROM {t} ORDER BY id") for t in TABLES]


def test_same_seed_same_rows_and_a_rerun_replaces_them(tmp_path: Path) -> None:
    simulate(tmp_path / "a", seed=5)
    simulate(tmp_path / "b", seed=5)
    simulate(tmp_path / "c", seed=6)
    assert dump(tmp_path / "a") == dump(tmp_path / "b") != dump(tmp_path / "c")
    counts = [len(t) for t in dump(tmp_path / "a")]
    simulate(tmp_path / "a", seed=5)  # over the old tree: the same sessions, rows replaced
    assert [len(t) for t in dump(tmp_path / "a")] == counts


def tree(root: Path) -> dict[str, object]:
    """Every file and directory under .ocr (bytes and mtimes), and the CLI-owned rows."""
    out: dict[str, object] = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        if path.name == "ocr.db":
            out[rel] = path.stat().st_mtime
            for t in ("sessions", "orchestration_events"):
                out[f"{rel}:{t}"] = query(root, f"SELECT * FROM {t} ORDER BY 1")
        elif path.is_file():
            out[rel] = (path.read_bytes(), path.stat().st_mtime)
        else:
            out[rel] = path.stat().st_mtime
    return out


@pytest.mark.parametrize("seed", [1, 7])
def test_the_rows_change_no_simulated_file(tmp_path: Path, seed: int, monkeypatch) -> None:
    """Own random numbers: with or without the dashboard's rows, every file (and every
    sessions / orchestration_events row) is the same, byte for byte and mtime for mtime."""
    trees = []
    for name in ("with", "without"):
        if name == "without":
            monkeypatch.setattr(DbStore, "dashboard", lambda *a, **k: None)
        sim = simulate(tmp_path / name, seed=seed, history=4)
        for _ in sim.steps():
            pass
        build_history(tmp_path / f"{name}-bulk", sessions=4, store="ocr.db", now=START, seed=seed)
        trees.append((tree(tmp_path / name), tree(tmp_path / f"{name}-bulk")))
        names = {n for (n,) in query(tmp_path / name, "SELECT name FROM sqlite_master")}
        assert (name == "with") == (set(TABLES) <= names)
    assert trees[0] == trees[1]


# --- the dashboard's parsers ----------------------------------------------------------------


def test_reviewer_parser_skips_the_findings_heading() -> None:
    text = (
        "# Quality-1 Review\n\n## Findings\n\n### Finding 1: Unused constant\n"
        "- **Severity**: Low\n- **Location**: `src/a.ts:L48-56`\n- **Issue**: dead code\n\n"
        "## Finding: Inconsistent imports\n**Severity**: High\n**File**: `src/b.ts`\n"
        "**Lines**: 26\n\nSome text.\n\n## What's Working Well\n\n- Tests.\n"
    )
    assert D.parse_reviewer(text) == [
        {"title": "Unused constant", "severity": "low", "file_path": "src/a.ts",
         "line_start": 48, "line_end": 56, "summary": "- **Issue**: dead code",
         "is_blocker": False},
        {"title": "Inconsistent imports", "severity": "high", "file_path": "src/b.ts",
         "line_start": 26, "line_end": 26, "summary": "Some text.", "is_blocker": False},
    ]  # fmt: skip
    assert D.parse_reviewer("## Findings\n\nNo findings in my area.\n") == []
    (only,) = D.parse_reviewer("### Issue 2: Crash\nBad.\n")
    assert (only["severity"], only["is_blocker"], only["file_path"]) == ("info", False, None)


def test_final_parser_reads_verdict_and_section_items() -> None:
    text = (
        "# Code Review: x\n\n## Verdict\n\n**REQUEST CHANGES**\n\n## Blockers\n\n"
        "### 1. SQL injection\n\n**Flagged by**: @a\n\n### 🚫 Secret logged\n\n"
        "## Should Fix\n\n- None\n\n## Suggestions\n\n### Code Quality\n\n"
        '- "Rename it" — @a\n- "Split it" — @b\n\n---\n\n- not counted\n'
    )
    assert D.parse_final(text) == (
        "REQUEST CHANGES",
        {"blockers": 2, "should_fix": 0, "suggestions": 2},
    )
    assert D.parse_final("**Verdict**: APPROVE\n**Blockers**: 3\n")[1]["blockers"] == 3
