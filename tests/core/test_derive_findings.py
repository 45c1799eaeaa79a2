"""The session view's findings: each round's distinct findings, blockers and
evolution in `status --json`, counted with `ocr-tui findings`' own model, so the two always
agree (simulated projects, a hand-built multi-round session with every source); and what that
costs: counted once per change of a round's inputs, kept in the persistent parse cache, ocr.db
findings read once per version of the file."""

from __future__ import annotations

import json
import math
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from ocr_tui.cli import main
from ocr_tui.formats.ocr import db as ocr_db
from ocr_tui.formats.ocr import file_cache, tally
from ocr_tui.formats.ocr import fs as ocr_fs
from ocr_tui.formats.ocr.sim import Simulator, build_history

from .builders import FIXED, ProjectTree, final_md
from .test_findings_db import CATEGORY_V7, PROGRESS_V1, REVIEW_V1, SCHEMA_V1, ReviewDb

SID = "2026-03-10-feat-x"
EVOLUTION_KEYS = [
    "new", "open", "resolved", "new_blockers", "resolved_blockers", "pending", "pending_blockers"
]  # fmt: skip


@pytest.fixture(autouse=True)
def fresh_caches(monkeypatch):
    """No parse cache on disk, nothing kept in memory from another test."""
    monkeypatch.setenv("OCR_TUI_CACHE_DIR", "off")
    file_cache.clear()
    tally.clear()


def finding(n: int, title: str, severity: str, where: str) -> str:
    return f"### Finding {n}: {title}\n- **Severity**: {severity}\n- **Location**: `{where}`\n\n"


def review(*findings: str) -> str:
    return "# Review\n\n## Findings\n\n" + "".join(findings)


def status(capsys, root: Path) -> dict:
    assert main(["status", "--json", str(root)]) == 0
    return json.loads(capsys.readouterr().out)


def agree(capsys, root: Path) -> int:
    """Every OCR session's every round number: `status --json`'s findings, blockers and
    evolution equal what `ocr-tui findings --json` lists for that round. Returns how many
    rounds were compared."""
    compared = 0
    for s in status(capsys, root)["sessions"]:
        if s["framework"] != "ocr":
            continue
        first: dict[int, dict] = {}
        for r in s["rounds"]:  # `findings --round N` reads the first directory numbered N
            first.setdefault(r["number"], r)
        for number, r in first.items():
            args = ["findings", str(root), "--session", s["id"], "--round", str(number), "--json"]
            assert main(args) == 0
            out = json.loads(capsys.readouterr().out)
            found = out["findings"]
            own = [f for f in found if f["evolution"] not in ("resolved", "pending")]
            where = f"{s['id']} round {number}"
            compared += 1
            assert r["complete"] == out["complete"], where
            # Nothing in yet: not known (null), never 0; else the round's own findings.
            assert r["findings"] == (len(own) if r["findings"] is not None else None), where
            if r["findings"] is None:
                assert not own and not r["reviewers"] and not r["complete"], where
            assert r["blockers"] == out["counts"]["blockers"], where
            if r["evolution"] is None:
                assert all(f["evolution"] is None for f in found), where
                continue
            assert list(r["evolution"]) == EVOLUTION_KEYS
            done = r["complete"]
            gone = [f for f in found if f["evolution"] == ("resolved" if done else "pending")]
            assert all(f["evolution"] != ("pending" if done else "resolved") for f in found)
            expected = {
                "new": sum(f["evolution"] == "new" for f in found),
                "open": sum(f["evolution"] == "open" for f in found),
                "resolved": len(gone) if done else None,
                "new_blockers": sum(f["evolution"] == "new" and f["blocker"] for f in found),
                "resolved_blockers": sum(f["blocker"] for f in gone) if done else None,
                "pending": 0 if done else len(gone),
                "pending_blockers": 0 if done else sum(f["blocker"] for f in gone),
            }
            assert r["evolution"] == expected, where
            assert out["counts"]["resolved"] == expected["resolved"], where
            assert out["counts"]["pending"] == expected["pending"], where
    return compared


# --- the JSON -------------------------------------------------------------------------------


def test_rounds_carry_findings_blockers_and_evolution_after_the_reviewers(tree, capsys):
    s = tree.session(SID)
    s.round(1, reviewers={
        "principal-1": review(finding(1, "SQL injection", "Critical", "db.py:L4"),
                              finding(2, "Race in watcher", "Medium", "w.py:3")),
        "security-1": review(finding(1, "SQL Injection", "High", "db.py:L4")),
    })  # fmt: skip
    s.round(2, reviewers={"principal-1": review(finding(1, "Race in watcher", "Low", "w.py:3"))})
    r1, r2 = status(capsys, tree.root)["sessions"][0]["rounds"]
    keys = ["number", "complete", "discourse", "verdict", "counts", "reviewers", "findings",
            "blockers", "evolution", "path", "open_blockers", "triage", "started_at",
            "ended_at", "approximate"]  # fmt: skip
    assert list(r1) == list(r2) == keys
    # Three reviewer findings, two distinct; no final.md: the critical one blocks.
    assert (r1["findings"], r1["blockers"], r1["evolution"]) == (2, 1, None)
    assert sum(r["findings"] for r in r1["reviewers"]) == 3
    # Round 2 has no synthesis yet: one finding so far, its blockers not known, and round 1's
    # SQL injection not raised again yet: pending, not resolved.
    assert (r2["complete"], r2["findings"], r2["blockers"]) == (False, 1, None)
    assert r2["evolution"] == {"new": 0, "open": 1, "resolved": None, "new_blockers": 0,
                               "resolved_blockers": None, "pending": 1,
                               "pending_blockers": 1}  # fmt: skip
    assert r2["open_blockers"] == 1  # the pending blocker is not known to be resolved
    assert r1["counts"] is None  # the synthesis' counts: none before final.md


# --- one source of truth: status --json == findings --json -------------------------------------


def build_multi_round(tree: ProjectTree) -> None:
    """One session with every source of findings, round by round, and the odd layouts."""
    s = tree.session(SID)
    s.round(1, reviewers={
        "principal-1": review(finding(1, "SQL injection in query builder", "Critical",
                                      "src/db.py:L40-L44"),
                              finding(2, "Race in the watcher", "Medium", "src/watch.py:12")),
        "security-1": review(finding(1, "SQL Injection in Query Builder", "High",
                                     "src/db.py:L40")),
    }, final=final_md("REQUEST CHANGES", (
        "## Blockers\n\n### 1. SQL injection in query builder\n**Flagged by**: @principal-1\n"
        "**Location**: `src/db.py:L40-L44`\n\n## Should Fix\n\n### 1. Flaky retry test\n"
        "**Flagged by**: @testing-1\n\n## Suggestions\n\n- \"Races in teh watcher\" — @x-1\n"
    )))  # fmt: skip
    # Round 2: ocr.db rows win over its reviewer files.
    s.round(2, reviewers={"principal-1": review(finding(1, "Only in markdown", "Low", "a.py:1"))})
    # Round 3: round-meta.json wins over everything.
    s.round(3, reviewers={"principal-1": review(finding(1, "Ignored", "Low", "a.py:1"))}, meta={
        "verdict": "REQUEST CHANGES", "reviewers": [{"type": "principal", "instance": 1,
        "findings": [
            {"title": "Unbounded cache", "category": "should_fix", "severity": "low",
             "file_path": "src/cache.py"},
            {"title": "Token never expires", "category": "blocker", "severity": "high",
             "file_path": "src/auth.py", "line_start": 9},
        ]}]})  # fmt: skip
    # Round 3's twin directory, and round 5 with no round 4 before it.
    s.round(5, reviewers={"principal-1": review(finding(1, "Token never expires", "Critical",
                                                        "src/auth.py:9"))})  # fmt: skip
    s.write("rounds/round-03/reviews/quality-1.md", review(finding(1, "Twin", "High", "t.py:1")))
    s.state(current_phase="reviews", workflow_type="review", status="active")
    db = ReviewDb(tree.db_path, SCHEMA_V1 + REVIEW_V1 + PROGRESS_V1 + CATEGORY_V7)
    db.con.execute("INSERT INTO sessions (id, branch, session_dir) VALUES (?, 'x', ?)",
                   (SID, SID))  # fmt: skip
    race = db.add("principal-1", sid=SID, number=2, title="Race in the watcher",
                  severity="medium", file_path="src/watch.py")  # fmt: skip
    db.add("quality-1", sid=SID, number=2, title="Unbounded cache", severity="low",
           file_path="src/cache.py", is_blocker=1, category="blocker")  # fmt: skip
    db.progress(race, "acknowledged")
    db.save()


def test_status_and_findings_agree_on_a_hand_built_session(tree, capsys):
    build_multi_round(tree)
    assert agree(capsys, tree.root) == 4  # rounds 1, 2, 3 and 5 (`round-03` has no command)
    rounds = status(capsys, tree.root)["sessions"][0]["rounds"]
    got = [(r["path"], r["findings"], r["blockers"], r["evolution"]) for r in rounds]

    def e(*n: int) -> dict:
        return dict(zip(EVOLUTION_KEYS, n, strict=True))

    assert got == [
        # SQL injection (twice reported, a blocker by final.md), race (final.md's suggestion
        # `Races in teh watcher`, naming no file, is it), flaky test (final.md's own)
        ("rounds/round-1", 3, 1, None),
        # ocr.db, no synthesis yet: the race (open) and the cache (new, a blocker: known so
        # far); round 1's other two not raised again yet: pending (one a blocker), not resolved
        ("rounds/round-2", 2, 1, e(1, 1, None, 1, None, 2, 1)),
        # round-meta.json (complete): the cache (open, no longer a blocker) and the token (new,
        # blocks); round 2's race is resolved
        ("rounds/round-3", 2, 1, e(1, 1, 1, 1, 0, 0, 0)),
        # the twin: counted on its own against round 2, no synthesis: no blocker known yet
        ("rounds/round-03", 1, None, e(1, 0, None, 0, None, 2, 1)),
        # no round 4: no evolution; a critical finding blocks (OCR's dashboard's rule)
        ("rounds/round-5", 1, 1, None),
    ]


@pytest.mark.parametrize("store", ["state.json", "ocr.db"])
def test_status_and_findings_agree_on_a_simulated_review_step_by_step(tmp_path, capsys, store):
    """The simulator's live session, checked as it is written (rounds without final.md, with
    round-meta.json for ocr.db), with the in-memory caches carried from step to step."""
    start = datetime(2026, 3, 10, 12, 0, 0, tzinfo=UTC)
    sim = Simulator(tmp_path, store=store, seed=3, start=start, speed=math.inf, history=2)
    compared = 0
    for i, _ in enumerate(sim.steps()):
        if i % 6 == 0:
            compared += agree(capsys, tmp_path)
    compared += agree(capsys, tmp_path)
    assert compared >= 6


@pytest.mark.parametrize("store", ["state.json", "ocr.db"])
def test_status_and_findings_agree_on_a_simulated_history(tmp_path, capsys, store):
    build_history(tmp_path, sessions=6, store=store, now=FIXED)
    assert agree(capsys, tmp_path) == 12  # two rounds a session


# --- the cost: counted once per change, persisted, ocr.db read once ---------------------------


def counting(monkeypatch) -> list[str]:
    calls: list[str] = []
    from ocr_tui.formats.ocr import round_findings as rf_module

    real = rf_module.round_findings  # the findings read, behind the kept last rounds

    def spy(session, rnd, rows=None):
        calls.append(rnd.rel)
        return real(session, rnd, rows)

    monkeypatch.setattr(rf_module, "round_findings", spy)
    return calls


def test_a_round_is_read_again_only_when_its_inputs_or_the_round_before_change(tree, monkeypatch):
    build_multi_round(tree)
    calls = counting(monkeypatch)
    engine = tree.engine()
    first = engine.scan()
    assert sorted(calls) == sorted(
        ["rounds/round-1", "rounds/round-2", "rounds/round-3", "rounds/round-03", "rounds/round-5"]
    )  # each round's findings read once, though rounds 1-3 are also a next round's previous
    calls.clear()
    assert engine.rescan() == ([], []) and calls == []  # nothing changed: nothing read

    # Round 1's final.md changes: round 1 is read again, and round 2's evolution with it
    # (round 2's own findings come from the reading kept in memory: not read again).
    final = tree.sessions_dir / SID / "rounds" / "round-1" / "final.md"
    final.write_text(final.read_text().replace("### 1. Flaky retry test", "### 1. Flaky test"))
    engine.apply([final])
    assert calls == ["rounds/round-1"]
    v = engine.views[SID]
    assert v.rounds[0].findings == first[0].rounds[0].findings
    assert v.rounds[1].evolution == first[0].rounds[1].evolution  # both retries resolved

    # A new process, the same files: served from the persistent cache, nothing read.
    calls.clear()
    monkeypatch.setenv("OCR_TUI_CACHE_DIR", str(tree.root.parent / "cache"))
    tree.engine().scan()  # writes the cache
    file_cache.clear()
    tally.clear()
    calls.clear()
    again = tree.engine().scan()
    assert calls == [] and again[0].rounds == engine.views[SID].rounds


def test_findings_are_read_from_the_texts_the_listing_read(tree, monkeypatch):
    """A reviewer file or final.md parsed anew by the listing is not read a second time by the
    findings model (a cached parse reads nothing: then the model reads the file)."""
    build_multi_round(tree)
    opened: list[str] = []
    real = ocr_fs._read_text
    monkeypatch.setattr(ocr_fs, "_read_text", lambda p, *a: opened.append(p) or real(p, *a))
    tree.engine().scan()
    assert opened and len(opened) == len(set(opened))


def test_ocr_db_findings_are_read_once_per_version_and_rederive_their_session(tree, monkeypatch):
    build_multi_round(tree)
    other = "2026-03-10-other"
    tree.session(other).round(1, reviewers={"p-1": review(finding(1, "X", "High", "x.py:1"))})
    opens: list[Path] = []
    real = ocr_db.open_snapshot
    monkeypatch.setattr(ocr_db, "open_snapshot", lambda p, *a: opens.append(p) or real(p, *a))
    engine = tree.engine()
    views = {v.id: v for v in engine.scan()}
    assert len(opens) == 1  # one read of ocr.db for every session's state and findings
    assert views[SID].rounds[1].findings == 2

    # A new version of the store with one more finding for round 2 of SID only.
    con = sqlite3.connect(tree.db_path)
    rid = con.execute("SELECT id FROM reviewer_outputs LIMIT 1").fetchone()[0]
    con.execute(
        "INSERT INTO review_findings (reviewer_output_id, title, severity, file_path) "
        "VALUES (?, 'Leaks a handle', 'high', 'src/io.py')",
        (rid,),
    )
    con.commit()
    con.close()
    changed, removed = engine.apply([tree.db_path])
    assert [v.id for v in changed] == [SID] and removed == []  # the other session: untouched
    assert len(opens) == 2
    assert engine.views[SID].rounds[1].findings == 3


def test_a_findings_table_the_join_cannot_use_is_a_problem_of_every_session(tree, capsys):
    tree.session(SID).round(1, reviewers={"p-1": review(finding(1, "X", "High", "x.py:1"))})
    loose = (
        "CREATE TABLE review_rounds (id, session_id, round_number);"
        "CREATE TABLE reviewer_outputs (id, round);"  # no round_id: the join cannot be made
        "CREATE TABLE review_findings (id, reviewer_output_id, title);"
    )
    ReviewDb(tree.db_path, SCHEMA_V1 + loose).save()
    doc = status(capsys, tree.root)
    (s,) = doc["sessions"]
    assert any("`reviewer_outputs` has no `round_id` column" in p for p in s["problems"])
    assert s["rounds"][0]["findings"] == 1  # the reviewer files: as `ocr-tui findings` reads


def test_a_failure_of_the_findings_model_costs_the_counts_not_the_view(tree, monkeypatch):
    import ocr_tui.formats.ocr.tally as tally

    def boom(*_a, **_k):
        raise ValueError("a bug \x1b[31m")

    tree.session(SID).round(1, reviewers={"p-1": review(finding(1, "X", "High", "x.py:1"))})
    monkeypatch.setattr(tally, "tally_rounds", boom)  # (imported by derive as it runs)
    v = tree.view(SID)
    assert v.source == "files" and v.rounds[0].reviewers[0].findings == 1
    assert v.rounds[0].findings is None and v.rounds[0].evolution is None  # not known
    assert "its findings could not be counted: a bug ␛[31m" in v.problems


# --- a round OCR records as done ----------------------------------------------


def test_a_round_completed_event_completes_the_round_in_every_view(tree, capsys):
    """`ocr state round-complete` records a round_completed event (and writes round-meta.json,
    which may be gone): the round's findings are all in, in status and findings alike."""
    s = tree.session(SID)
    s.round(1, reviewers={"p-1": review(finding(1, "Leak", "Critical", "a.py:1"))})
    s.round(2, reviewers={"p-1": review(finding(1, "Other", "Low", "b.py:2"))})
    tree.db.session(SID, current_round=2, current_phase="synthesis", phase_number=7)
    tree.db.save()
    r2 = status(capsys, tree.root)["sessions"][0]["rounds"][1]
    assert (r2["complete"], r2["evolution"]["resolved"], r2["evolution"]["pending"]) == (
        False, None, 1
    )  # fmt: skip
    assert main(["findings", str(tree.root), "--fail-on", "blocker"]) == 3
    capsys.readouterr()
    tree.db.event(SID, "round_completed", FIXED, round=2, phase="synthesis")
    tree.db.save()
    tally.clear()
    r2 = status(capsys, tree.root)["sessions"][0]["rounds"][1]
    assert (r2["complete"], r2["evolution"]["resolved"], r2["evolution"]["pending"]) == (
        True, 1, 0
    )  # fmt: skip
    assert r2["evolution"]["resolved_blockers"] == 1 and r2["blockers"] == 0
    assert agree(capsys, tree.root) == 2
    assert main(["findings", str(tree.root), "--fail-on", "blocker"]) == 0
