"""`ocr-tui triage` and `ocr-tui note`, as scripts and CI use them: the exact forms, exit 0 once
the mark is in ocr.db and read back, 2 for a usage error or an unknown session, round or
finding, 1 when it cannot be written, one plain line each; what they wrote shows in
`findings --json` and `status --json`; an earlier mark a late OCR write dropped is written
again by the next run."""

from __future__ import annotations

import json
import math
import os
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from ocr_tui.cli import main
from ocr_tui.formats.ocr.sim import Simulator

START = datetime(2026, 3, 10, 12, 0, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("sim")
    Simulator(root, store="ocr.db", seed=7, start=START, speed=math.inf, history=3).setup()
    return root


@pytest.fixture
def project(made, tmp_path) -> Path:
    import shutil

    root = tmp_path / "p"
    shutil.copytree(made, root, symlinks=True)
    return root


def _run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _closed_review(project: Path, capsys) -> tuple[str, dict]:
    code, out, _ = _run(capsys, "status", str(project), "--json")
    sessions = json.loads(out)["sessions"]
    sid = next(s["id"] for s in sessions if s["workflow"] == "review" and s["status"] == "closed")
    code, out, _ = _run(capsys, "findings", str(project), "--session", sid, "--round", "1",
                        "--json")  # fmt: skip
    return sid, json.loads(out)


def test_a_finding_marked_shows_in_findings(project, capsys):
    sid, before = _closed_review(project, capsys)
    fid = before["findings"][0]["id"]
    code, out, err = _run(capsys, "triage", str(project), "--session", sid, "--round", "1",
                          fid, "acknowledged")  # fmt: skip
    assert (code, err) == (0, "")
    assert out == f"finding {fid} (round 1 of {sid}): acknowledged\n"
    _, after = _closed_review(project, capsys)
    assert {f["id"]: f["triage"] for f in after["findings"]}[fid] == "acknowledged"
    code, out, err = _run(capsys, "triage", str(project), "--session", sid, fid, "clear")
    assert code == 0
    _, cleared = _closed_review(project, capsys)
    assert {f["id"]: f.get("triage") for f in cleared["findings"]}[fid] is None


def test_without_round_the_latest_round_that_raised_it(project, capsys):
    sid, before = _closed_review(project, capsys)
    fid = before["findings"][0]["id"]
    code, out, _ = _run(capsys, "triage", str(project), "--session", sid, fid, "read")
    assert code == 0 and "(round " in out


def test_round_state_and_note(project, capsys):
    sid, _ = _closed_review(project, capsys)
    code, out, err = _run(capsys, "triage", str(project), "--session", sid, "--round", "1",
                          "--round-state", "in_progress")  # fmt: skip
    assert (code, out) == (0, f"round 1 of {sid}: in_progress\n")
    code, out, err = _run(capsys, "note", str(project), "--session", sid, "ask Ana")
    assert (code, out) == (0, f"note added on the session of {sid}\n")
    con = sqlite3.connect(project / ".ocr" / "data" / "ocr.db")
    assert con.execute("SELECT target_type, target_id, content FROM user_notes WHERE content"
                       " = 'ask Ana'").fetchall() == [("session", sid, "ask Ana")]  # fmt: skip
    con.close()


@pytest.mark.parametrize(
    "args, says",
    [
        (["--session", "nope", "abc", "fixed"], "no session 'nope'"),
        (["--session", "{sid}", "--round", "9", "{fid}", "fixed"], "has no round 9"),
        (["--session", "{sid}", "0000000000", "fixed"], "no finding '0000000000'"),
        (["--session", "{sid}", "{fid}", "frobbed"], "not a finding state: 'frobbed'"),
        (["--session", "{sid}", "--round", "1", "--round-state", "nah"], "not a round state"),
        (["--session", "{sid}", "--round-state", "dismissed"], "--round-state needs --round N"),
        (["--session", "{sid}", "{fid}"], "expected [PATH] FINDING STATE"),
    ],
)
def test_usage_and_unknowns_are_exit_2(project, capsys, args, says):
    sid, before = _closed_review(project, capsys)
    fid = before["findings"][0]["id"]
    argv = [a.format(sid=sid, fid=fid) for a in args]
    with pytest.raises(SystemExit) as ex:  # argparse's usage errors exit from main
        code = main(["triage", str(project), *argv])
        raise SystemExit(code)
    err = capsys.readouterr().err
    assert ex.value.code == 2
    assert says in err


def test_cannot_be_written_is_exit_1(project, capsys):
    sid, before = _closed_review(project, capsys)
    fid = before["findings"][0]["id"]
    db = project / ".ocr" / "data" / "ocr.db"
    before_bytes = db.read_bytes()
    code, out, err = _run(capsys, "triage", str(project), "--session", sid, "--read-only", fid,
                          "fixed")  # fmt: skip
    assert (code, out) == (1, "")
    assert err == "ocr-tui: writing is off (--read-only or read_only in the config)\n"
    assert db.read_bytes() == before_bytes


def test_read_only_in_the_config(project, capsys, tmp_path, monkeypatch):
    sid, before = _closed_review(project, capsys)
    cfg = tmp_path / "config.toml"
    cfg.write_text("read_only = true\n")
    monkeypatch.setenv("OCR_TUI_CONFIG", str(cfg))
    code, _, err = _run(capsys, "triage", str(project), "--session", sid,
                        before["findings"][0]["id"], "fixed")  # fmt: skip
    assert code == 1 and "writing is off" in err


def test_no_store_is_exit_1_and_creates_nothing(tmp_path, capsys):
    root = tmp_path / "json"
    Simulator(root, store="state.json", seed=7, start=START, speed=math.inf, history=2).setup()
    code, out, _ = _run(capsys, "status", str(root), "--json")
    sid = next(s["id"] for s in json.loads(out)["sessions"] if s["workflow"] == "review")
    code, out, err = _run(capsys, "note", str(root), "--session", sid, "hello")
    assert code == 1
    assert "triage and notes need OCR ≥ 1.5's store" in err
    assert not (root / ".ocr" / "data" / "ocr.db").exists()


def test_a_mark_a_late_write_dropped_is_written_by_the_next_run(project, capsys):
    sid, before = _closed_review(project, capsys)
    fid = before["findings"][0]["id"]
    db = project / ".ocr" / "data" / "ocr.db"
    old = db.read_bytes()
    assert _run(capsys, "triage", str(project), "--session", sid, fid, "wont_fix")[0] == 0
    tmp = db.with_name(f"ocr.db.{os.getpid()}.tmp")
    tmp.write_bytes(old)
    os.rename(tmp, db)  # an OCR CLI write that had read the file before ours
    _, dropped = _closed_review(project, capsys)
    assert {f["id"]: f.get("triage") for f in dropped["findings"]}[fid] != "wont_fix"
    code, _, _ = _run(capsys, "note", str(project), "--session", sid, "later")
    assert code == 0
    _, back = _closed_review(project, capsys)
    assert {f["id"]: f.get("triage") for f in back["findings"]}[fid] == "wont_fix"


def test_a_blocker_marked_fixed_leaves_the_unresolved_count(project, capsys):
    """The views follow a mark as any change to ocr.db: status --json's open blockers count
    a blocker whose mark is cleared, and no longer once it is marked fixed."""

    def open_blockers(sid: str, number: int) -> int:
        out = _run(capsys, "status", str(project), "--json")[1]
        session = next(s for s in json.loads(out)["sessions"] if s["id"] == sid)
        return next(r for r in session["rounds"] if r["number"] == number)["open_blockers"]

    out = _run(capsys, "status", str(project), "--json")[1]
    sid, number = next((s["id"], r["number"]) for s in json.loads(out)["sessions"]
                       for r in s.get("rounds", []) if (r.get("blockers") or 0) > 0)  # fmt: skip
    out = _run(capsys, "findings", str(project), "--session", sid, "--round", str(number),
               "--blockers", "--json")[1]  # fmt: skip
    own = [f["id"] for f in json.loads(out)["findings"]
           if f.get("evolution") not in ("resolved", "pending")]  # fmt: skip
    for state, want in (("clear", len(own)), ("fixed", 0)):
        for fid in own:
            argv = ["triage", str(project), "--session", sid, "--round", str(number), fid, state]
            assert _run(capsys, *argv)[0] == 0
        assert open_blockers(sid, number) == want
