"""Two directories with one number (`round-01` beside `round-1`, `run-01` beside `run-1`):
both are read and listed, the canonical spelling (`round-N`, the one OCR writes) is round N
(first among its twins, and the current round when N is the highest), and the session names
the clash. The same in the derive, `status --json`, and ocr.db's round events."""

from __future__ import annotations

import json

from ocr_tui.formats.ocr.db_load import load_db
from ocr_tui.formats.ocr.fs import read_session

from .builders import ago, final_md, reviewer_md, sqlite_ts, topology_md

SID = "2026-03-10-twins"


def problems_with(view, *words: str) -> list[str]:
    return [p for p in view.problems if all(w in p for w in words)]


def test_round_01_and_round_1_are_both_read_and_the_clash_is_named(tree):
    s = tree.session(SID)
    s.write("rounds/round-01/reviews/alpha-1.md", reviewer_md("High"))
    s.write("rounds/round-1/reviews/beta-1.md", reviewer_md("Low", "Low"))
    files = read_session(s.path)
    assert [(r.number, r.rel) for r in files.rounds] == [
        (1, "rounds/round-1"),  # the canonical spelling first: it is round 1
        (1, "rounds/round-01"),
    ]
    assert [r.name for r in files.rounds[0].reviewers] == ["beta-1"]
    assert [r.name for r in files.rounds[1].reviewers] == ["alpha-1"]
    assert files.problems == ["rounds/round-01 and rounds/round-1 are both round 1"]


def test_leading_zeros_read_as_the_number_and_only_ascii_digits(tree):
    s = tree.session(SID)
    s.mkdir("rounds/round-007")
    s.mkdir("rounds/round-2")
    s.mkdir("rounds/round-\u0661")  # ARABIC-INDIC DIGIT ONE: int() reads it as 1; OCR does not
    files = read_session(s.path)
    assert [(r.number, r.rel) for r in files.rounds] == [(2, "rounds/round-2"),
                                                         (7, "rounds/round-007")]  # fmt: skip
    assert files.problems == []


def test_three_spellings_without_the_canonical_one(tree):
    s = tree.session(SID)
    for name in ("round-02", "round-002", "round-1"):
        s.mkdir(f"rounds/{name}")
    files = read_session(s.path)
    assert [r.rel for r in files.rounds] == [
        "rounds/round-1", "rounds/round-002", "rounds/round-02",
    ]  # fmt: skip
    assert files.problems == ["rounds/round-02 and rounds/round-002 are both round 2"]


def test_the_current_round_is_the_canonical_twin(tree):
    """round-2 (canonical, with final.md) and round-02 (no final.md): the derive reads the
    phase, verdict and `current` from round-2, whichever order the names sort in."""
    s = tree.session(SID)
    s.round(1, reviewers={"principal-1": reviewer_md("High")}, final=final_md("REQUEST CHANGES"))
    s.round(2, reviewers={"principal-1": reviewer_md()}, final=final_md("APPROVE"))
    s.write("rounds/round-02/reviews/stray-1.md", reviewer_md("Critical"))
    v = tree.view(SID)  # no state: the phase comes from the current round's files
    assert [(r.number, r.path) for r in v.rounds] == [
        (1, "rounds/round-1"), (2, "rounds/round-2"), (2, "rounds/round-02"),
    ]  # fmt: skip
    assert v.current_round == 2
    assert v.current is not None and v.current.path == "rounds/round-2"
    assert v.current.verdict == "APPROVE"
    assert v.phase == "complete" and v.complete
    assert problems_with(v, "rounds/round-02 and rounds/round-2 are both round 2")


def test_status_json_lists_both_twins_with_their_paths(tree, capsys):
    from ocr_tui.cli import main

    s = tree.session(SID)
    s.state(current_phase="reviews", status="active", current_round=1)
    s.write("rounds/round-01/reviews/alpha-1.md", reviewer_md("High"))
    s.write("rounds/round-1/reviews/beta-1.md", reviewer_md("Low"))
    assert main(["status", "--json", str(tree.root)]) == 0
    (doc,) = json.loads(capsys.readouterr().out)["sessions"]
    assert doc["current_round"] == 1
    assert [(r["number"], r["path"]) for r in doc["rounds"]] == [
        (1, "rounds/round-1"),
        (1, "rounds/round-01"),
    ]
    assert [r["reviewers"][0]["path"] for r in doc["rounds"]] == [
        "rounds/round-1/reviews/beta-1.md",
        "rounds/round-01/reviews/alpha-1.md",
    ]
    assert "rounds/round-01 and rounds/round-1 are both round 1" in doc["problems"]
    assert main(["status", str(tree.root)]) == 0  # the table: no crash, the session listed
    assert SID in capsys.readouterr().out


def test_run_01_and_run_1_are_both_read_and_the_canonical_one_is_current(tree):
    s = tree.session(SID)
    s.state(workflow_type="map", current_phase="topology", status="active")
    s.run(1, topology=topology_md("a.py", "b.py"), map_md="# Map\n")
    s.write("map/runs/run-01/topology.md", topology_md("x.py"))
    s.mkdir("map/runs/run-0003")
    v = tree.view(SID)
    assert [(r.number, r.path, r.files, r.complete) for r in v.map_runs] == [
        (1, "map/runs/run-1", 2, True),
        (1, "map/runs/run-01", 1, False),
        (3, "map/runs/run-0003", None, False),
    ]
    assert v.current_map_run == 3
    assert problems_with(v, "map/runs/run-01 and map/runs/run-1 are both run 1")
    assert [r.documents for r in v.map_runs[:2]] == [
        ["map/runs/run-1/map.md", "map/runs/run-1/topology.md"],
        ["map/runs/run-01/topology.md"],
    ]


def test_map_synthesis_reads_the_canonical_twin_of_the_latest_run(tree):
    """At `synthesis` with both rounds/ and map/: the latest run's map.md decides, and the
    latest run is run-2 (canonical), not its twin run-02 that sorts after it."""
    s = tree.session(SID)
    s.state(current_phase="synthesis", status="active")
    s.round(1, final=final_md("APPROVE"))
    s.run(2, map_md=None, topology=topology_md("a.py"))
    s.write("map/runs/run-02/map.md", "# Map\n")
    v = tree.view(SID)
    assert v.workflow == "map"  # run-2 has no map.md yet: the map is the one at synthesis


def test_db_round_events_for_one_round_in_two_spellings_give_one_start(tree):
    """ocr.db can name round 1 as 1, "01" or " 1" (text, where a column has no type): one round,
    the latest start wins, and the round's elapsed time is counted from it."""
    s = tree.session(SID)
    s.round(1, reviewers={"principal-1": reviewer_md()})
    tree.db.session(
        SID,
        status="active",
        current_phase="reviews",
        current_round=1,
        started_at=sqlite_ts(ago(hours=3)),
        updated_at=sqlite_ts(ago(minutes=1)),
    )
    tree.db.event(SID, "round_started", ago(hours=2), round=1)
    tree.db.event(SID, "round_started", ago(hours=1), round="01")
    tree.db.event(SID, "round_started", ago(minutes=90), round=" 1")
    tree.db.save()
    snap = load_db(tree.db_path)
    assert [n for n, _ in snap.rows[SID].round_starts] == [1]
    v = tree.view(SID)
    assert v.elapsed.since is not None and v.elapsed.seconds == 3600


# --- session ids ----------------------------------------------------------------------------


def test_view_ids_stay_apart_when_a_format_prefix_is_taken_too(tree):
    """OCR sessions `260310-x` and `code:260310-x` and a code workflow `260310-x`: the code
    workflow's id falls back to `code:260310-x`, which an OCR session holds already; all
    three stay listed, each with an id of its own."""
    tree.session("260310-x").write("context.md", "# C\n")
    tree.session("code:260310-x").write("context.md", "# C\n")
    code = tree.root / ".claude/.docs/260310-x"
    code.mkdir(parents=True)
    (code / "state.json").write_text(json.dumps({"id": "260310-x", "workflow": "code"}))
    views = tree.engine().scan()
    assert len(views) == 3
    assert len({v.id for v in views}) == 3
    assert sorted(v.framework for v in views) == ["code", "ocr", "ocr"]


def test_code_workflow_and_idumb_keep_undecodable_names_apart(tree):
    import os

    docs = os.fsencode(tree.root / ".claude/.docs")
    for tail in (b"/260310-caf\xe9", b"/260310-caf\xe8"):
        os.makedirs(docs + tail)
        with open(docs + tail + b"/state.json", "w") as fh:
            fh.write('{"workflow": "code"}')
    sessions = os.fsencode(tree.root / ".idumb/sessions")
    os.makedirs(sessions)
    for tail in (b"/ses_\xe9.json", b"/ses_\xe8.json"):
        with open(sessions + tail, "w") as fh:
            fh.write('{"phase": "init"}')
    views = tree.engine().scan()
    ids = sorted(v.id for v in views)
    assert ids == ["260310-caf\\xe8", "260310-caf\\xe9", "ses_\\xe8", "ses_\\xe9"]


def test_two_db_rows_for_one_session_are_one_state_with_a_problem(tree):
    """OCR's `sessions.id` is the primary key; a store without it (a copy, a hand-made table)
    can hold an id twice: the last row is read and the session says so."""
    s = tree.session(SID)
    s.round(1)
    tree.db.schema = tree.db.schema.replace("id TEXT PRIMARY KEY", "id TEXT")
    tree.db.session(SID, status="active", current_phase="reviews", branch="first")
    tree.db.session(SID, status="active", current_phase="discourse", branch="second")
    tree.db.save()
    v = tree.view(SID)
    assert (v.source, v.branch, v.phase) == ("ocr.db", "second", "discourse")
    assert problems_with(v, "ocr.db has 2 rows for this session")
