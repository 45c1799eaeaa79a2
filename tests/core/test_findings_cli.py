"""`ocr-tui findings`: the JSON contract, filters, the table, default session and round, and
the exit codes of the CI gate."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ocr_tui.cli import main

KEYS = ["id", "title", "severity", "file", "line_start", "line_end", "category", "blocker",
        "reviewers", "evolution", "triage", "source", "path", "line"]  # fmt: skip
EVIL = "\x1b]0;pwned\x07"


def put(path: Path, text: str, mtime: float | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if mtime is not None:
        os.utime(path, (mtime, mtime))


def finding(n: int, title: str, severity: str, where: str) -> str:
    return f"### Finding {n}: {title}\n- **Severity**: {severity}\n- **Location**: `{where}`\n\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    s = tmp_path / ".ocr" / "sessions"
    old = s / "2026-11-20-old"
    put(old / "state.json", json.dumps({"current_phase": "complete", "status": "closed"}), 1e9)
    put(old / "rounds/round-1/reviews/principal-1.md", finding(1, "Old thing", "Low", "o.py:1"))
    main_ = s / "2026-11-23-main"
    put(main_ / "state.json", json.dumps({"current_phase": "reviews", "status": "active",
                                          "current_round": 2}))  # fmt: skip
    r1 = main_ / "rounds/round-1/reviews"
    put(r1 / "principal-1.md", finding(1, "SQL injection", "Critical", "db.py:L4-L9")
        + finding(2, "Race in watcher", "Medium", "w.py:3"))  # fmt: skip
    r2 = main_ / "rounds/round-2/reviews"
    put(r2 / "principal-1.md", finding(1, "Race in watcher", "Medium", "w.py:3")
        + finding(2, f"Unbounded cache {EVIL}", "High", "c.py:7")
        + finding(3, "Typo in docs", "Info", "README.md:1"))  # fmt: skip
    put(r2 / "security-1.md", finding(1, "Race in Watcher", "High", "w.py:3"))
    # Round 2's synthesis is written: its findings are all in (a round without one resolves
    # nothing: `test_a_round_just_begun_resolves_nothing_and_the_gate_cannot_pass`).
    put(main_ / "rounds/round-2/final.md", "# Review\n\n**Verdict**: APPROVE\n")
    return tmp_path


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["findings", *args])
    out, err = capsys.readouterr()
    return code, out, err


def doc(capsys, *args: str) -> dict:
    code, out, err = run(capsys, *args, "--json")
    assert code == 0 and out.count("\n") == 1
    assert all(line.startswith("ocr-tui: note: ") for line in err.splitlines())  # the title
    # with an escape sequence is named as a problem of its file
    assert out.isascii() and "\x1b" not in out
    return json.loads(out)


def test_json_contract_defaults_to_the_running_sessions_latest_round(project, capsys):
    d = doc(capsys, str(project))
    assert (d["version"], d["session"], d["round"], d["complete"]) == (
        2,
        "2026-11-23-main",
        2,
        True,
    )
    assert list(d) == ["version", "session", "round", "complete", "counts", "findings"]
    assert d["counts"] == {"critical": 0, "high": 2, "medium": 0, "low": 0, "info": 1,
                           "blockers": 0, "resolved": 1, "pending": 0}  # fmt: skip
    assert all(list(f) == KEYS for f in d["findings"])
    by = {f["title"]: f for f in d["findings"]}
    race = by["Race in watcher"]
    assert race["severity"] == "high" and race["reviewers"] == ["principal-1", "security-1"]
    assert race["evolution"] == "open" and race["source"] == "markdown"
    assert race["path"] == "rounds/round-2/reviews/principal-1.md" and race["line"] == 1
    assert (race["file"], race["line_start"], race["line_end"]) == ("w.py", 3, 3)
    assert by["SQL injection"]["evolution"] == "resolved"
    assert d["findings"][-1]["title"] == "SQL injection"  # resolved ones last


def test_round_one_has_no_evolution_and_its_critical_is_a_blocker(project, capsys):
    d = doc(capsys, str(project), "--session", "2026-11-23-main", "--round", "1")
    assert [f["evolution"] for f in d["findings"]] == [None, None]
    assert d["counts"]["blockers"] == 1 and d["findings"][0]["blocker"]


def test_filters_keep_the_counts_of_the_whole_round(project, capsys):
    d = doc(capsys, str(project), "--min-severity", "high")
    assert [f["severity"] for f in d["findings"]] == ["high", "high", "critical"]
    assert d["counts"]["info"] == 1  # counts cover the whole round
    d = doc(capsys, str(project), "--round", "1", "--blockers")
    assert [f["title"] for f in d["findings"]] == ["SQL injection"]


@pytest.mark.parametrize(
    ("fail_on", "code"),
    [("critical", 0), ("high", 1), ("info", 1), ("blocker", 0)],
)
def test_fail_on_is_a_ci_gate_that_ignores_resolved_findings(project, capsys, fail_on, code):
    c, _, err = run(capsys, str(project), "--fail-on", fail_on)
    assert c == code
    # A failed gate says why, on stderr (one line of its own).
    why = [line for line in err.splitlines() if "--fail-on" in line]
    assert bool(why) == bool(code)
    if code and fail_on == "high":
        assert why == ["ocr-tui: --fail-on high: 2 findings at high or worse are not resolved"]
    # --json still prints the whole object, and says what the gate decided
    c, out, _ = run(capsys, str(project), "--fail-on", fail_on, "--json")
    d = json.loads(out)
    assert c == code and d["round"] == 2
    assert d["gate"] == {"fail_on": fail_on, "result": "fail" if code else "pass"}


def test_fail_on_blocker_in_round_one(project, capsys):
    assert run(capsys, str(project), "--round", "1", "--fail-on", "blocker")[0] == 1


def test_table_is_readable_and_escape_safe(project, capsys):
    code, out, err = run(capsys, str(project))
    assert code == 0 and "principal-1.md holds terminal control characters" in err
    lines = out.splitlines()
    assert lines[0] == "2026-11-23-main · round 2 · 3 findings · 1 resolved"  # what it chose
    head = ["SEVERITY", "BLOCKER", "TITLE", "LOCATION", "REVIEWERS", "EVOLUTION"]
    assert lines[1].split() == head  # no TRIAGE: this project has no ocr.db
    assert "w.py:3" in out and "principal-1, security-1" in out and "resolved" in out
    assert "\x1b" not in out and "\x07" not in out


@pytest.mark.parametrize(
    "args",
    [("--session", "nope"), ("--session", "2026-11-23-main", "--round", "7")],
)
def test_unknown_session_or_round_is_one_line_and_exit_2(project, capsys, args):
    code, out, err = run(capsys, str(project), *args)
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("ocr-tui: ")


def test_no_project_is_exit_2(tmp_path, capsys):
    code, out, err = run(capsys, str(tmp_path / "nowhere"))
    assert code == 2 and out == ""


def test_a_file_that_cannot_be_read_is_a_note_on_stderr(project, capsys):
    bad = project / ".ocr/sessions/2026-11-23-main/rounds/round-2/reviews/quality-1.md"
    bad.write_bytes(b"\x00\x01\x1b[2Jbinary")
    code, out, err = run(capsys, str(project), "--json")
    assert code == 0 and json.loads(out)["round"] == 2
    assert err.startswith("ocr-tui: note: ") and "quality-1.md looks binary" in err
    assert "\x1b" not in err


def test_table_shows_triage_when_ocr_db_has_it(tmp_path, capsys):
    """The demo's closed reviews carry OCR's dashboard rows: the table says each triage."""
    from datetime import UTC, datetime

    from ocr_tui.formats.ocr.sim import Simulator

    root = tmp_path / "demo"
    sim = Simulator(root, store="ocr.db", seed=7, start=datetime(2026, 11, 22, tzinfo=UTC))
    sim.setup()
    closed = sorted(p.name for p in (root / ".ocr" / "sessions").iterdir())
    outs = [run(capsys, str(root), "--session", sid)[1] for sid in closed]
    with_triage = [o for o in outs if len(o.splitlines()) > 1 and "TRIAGE" in o.splitlines()[1]]
    assert with_triage, outs
    assert any(w in with_triage[0] for w in ("fixed", "acknowledged", "read", "wont_fix"))


# --- a round whose findings are not all in ---------------------------


def just_begun(tmp_path: Path) -> Path:
    """Round 1 closed (a critical finding, REQUEST CHANGES, its blocker listed as a numbered
    item), round 2 begun: `current_round: 2`, an empty `rounds/round-2/`."""
    sdir = tmp_path / ".ocr" / "sessions" / "2026-11-27-main"
    put(sdir / "state.json", json.dumps({"current_phase": "context", "status": "active",
                                         "current_round": 2}))  # fmt: skip
    put(sdir / "rounds/round-1/reviews/security-1.md",
        finding(1, "SQL injection in search", "Critical", "src/search.py:42")
        + finding(2, "Missing docstring", "Low", "src/search.py:1"))  # fmt: skip
    put(sdir / "rounds/round-1/final.md",
        "# Code Review: main\n\n**Verdict**: REQUEST CHANGES\n\n## Blockers\n\n"
        "1. SQL injection in search (src/search.py:42)\n")  # fmt: skip
    (sdir / "rounds/round-2").mkdir(parents=True)
    return tmp_path


def test_a_round_just_begun_resolves_nothing_and_the_gate_cannot_pass(tmp_path, capsys):
    root = just_begun(tmp_path)
    c, out, err = run(capsys, str(root), "--json", "--fail-on", "blocker")
    d = json.loads(out)
    assert (c, d["round"], d["complete"]) == (3, 2, False)
    assert d["counts"]["blockers"] is None and d["counts"]["resolved"] is None
    assert d["counts"]["critical"] is None  # nothing in yet: not known, as status says null
    assert d["counts"]["pending"] == 2
    assert [f["evolution"] for f in d["findings"]] == ["pending", "pending"]
    assert d["gate"] == {"fail_on": "blocker", "result": "unknown"}
    assert "not known yet: round 2 has no synthesis yet" in err
    # The table says it too; no severity passes either.
    c, out, _ = run(capsys, str(root), "--fail-on", "critical")
    assert c == 3
    head = out.splitlines()[0]
    assert head == ("2026-11-27-main · round 2 · in progress · no findings in yet · 2 of round 1"
                    " not re-reviewed yet")  # fmt: skip
    assert "resolved" not in out and "pending" in out
    # Round 1 itself is complete and fails: its critical finding is a blocker.
    c, out, _ = run(capsys, str(root), "--round", "1", "--json", "--fail-on", "blocker")
    assert c == 1 and json.loads(out)["counts"]["blockers"] == 1


def test_a_finding_already_in_fails_the_gate_before_the_synthesis(tmp_path, capsys):
    """Failing is certain once a finding of the round fails (findings only come in): exit 1
    at once; what does not fail yet is not known (3), never 0."""
    root = just_begun(tmp_path)
    put(root / ".ocr/sessions/2026-11-27-main/rounds/round-2/reviews/security-1.md",
        finding(1, "Token in logs", "High", "src/log.py:3"))  # fmt: skip
    assert run(capsys, str(root), "--fail-on", "high")[0] == 1
    assert run(capsys, str(root), "--fail-on", "critical")[0] == 3
    assert run(capsys, str(root), "--fail-on", "blocker")[0] == 3


def test_a_round_ocr_records_as_done_can_pass(tmp_path, capsys):
    """round-meta.json (`ocr state round-complete`) completes the round before final.md."""
    root = just_begun(tmp_path)
    put(root / ".ocr/sessions/2026-11-27-main/rounds/round-2/round-meta.json",
        json.dumps({"schema_version": 1, "verdict": "APPROVE", "reviewers": []}))  # fmt: skip
    c, out, _ = run(capsys, str(root), "--json", "--fail-on", "blocker")
    d = json.loads(out)
    assert (c, d["complete"], d["counts"]["resolved"], d["counts"]["pending"]) == (0, True, 2, 0)


def test_a_stopped_round_is_said_to_be_stopped(tmp_path, capsys):
    root = just_begun(tmp_path)
    put(
        root / ".ocr/sessions/2026-11-27-main/state.json",
        json.dumps({"current_phase": "complete", "status": "closed", "current_round": 2}),
    )
    c, out, err = run(capsys, str(root), "--fail-on", "blocker")
    assert c == 3 and "round 2 was stopped before its synthesis" in err
    assert "stopped before its synthesis" in out.splitlines()[0]


def test_help_names_the_exit_statuses_and_the_blocker_rule(capsys):
    with pytest.raises(SystemExit):
        main(["findings", "--help"])
    out = capsys.readouterr().out
    for line in ("1  a finding of the round", "3  none is, but the round is not complete",
                 "0  the round is complete", "isBlocker = severity === 'critical'"):  # fmt: skip
        assert line in out
