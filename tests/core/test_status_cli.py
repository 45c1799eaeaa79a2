"""`ocr-tui status`: the --json schema and order, ASCII-only output, --oneline, the readable
table (no raw control character from disk ever reaches it), and the installed script. (Fitting
the table and the line to a width: test_cli_width.py.)"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ocr_tui.cli import main
from ocr_tui.ui.listing import ListQuery

from .builders import FIXED, ago, final_md, iso, reviewer_md, topology_md

EVIL = "\x1b]0;pwned\x07"

SESSION_KEYS = [
    "id", "branch", "source", "status", "workflow", "phase", "phase_label", "phase_number",
    "phase_total", "complete", "started_at", "updated_at", "last_activity", "stalled", "elapsed",
    "current_round", "rounds", "current_map_run", "map_runs", "problems",
]  # fmt: skip
ROUND_KEYS = [
    "number", "complete", "discourse", "verdict", "counts", "reviewers", "findings", "blockers",
    "evolution",
]  # fmt: skip
EVOLUTION_KEYS = ["new", "open", "resolved", "new_blockers", "resolved_blockers", "pending",
                  "pending_blockers"]  # fmt: skip
REVIEWER_KEYS = ["name", "label", "findings", "severity"]
SEVERITY_KEYS = ["critical", "high", "medium", "low", "info"]
COUNTS_KEYS = ["blockers", "should_fix", "suggestions"]
RUN_KEYS = ["number", "complete", "files"]
TS = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")


@pytest.fixture(autouse=True)
def _no_columns(monkeypatch):
    """Through a pipe the table fits $COLUMNS when it is set: these tests read it whole."""
    monkeypatch.delenv("COLUMNS", raising=False)


@pytest.fixture
def fixed_clock(monkeypatch):
    """The CLI builds its own Engine: give it the tests' fixed `now`."""
    import ocr_tui.core.workspace as workspace

    fixed = functools.partial(workspace.make_engine, clock=lambda: FIXED)
    monkeypatch.setattr(workspace, "make_engine", fixed)


def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["status", *args])
    out, err = capsys.readouterr()
    return code, out, err


def status_json(capsys, root: Path, *extra: str) -> dict:
    code, out, err = run_cli(capsys, str(root), "--json", *extra)
    assert code == 0 and err == ""
    assert out.endswith("\n") and out.count("\n") == 1
    return json.loads(out)


def keys_start_with(obj: dict, keys: list[str]) -> bool:
    return list(obj)[: len(keys)] == keys


def build_rich_project(tree) -> None:
    s = tree.session("2026-03-10-main")
    s.write("discovered-standards.md", "x")
    s.write("context.md", "x")
    s.round(
        1,
        reviewers={"principal-1": reviewer_md("High"), "quality-1": reviewer_md()},
        discourse="# d",
        final=final_md("REQUEST CHANGES", "## Blockers\n\n### 1. A\n"),
        meta={"verdict": "REQUEST CHANGES", "synthesis_counts": {"blockers": 1}},
    )
    s.round(
        2,
        reviewers={
            "principal-1": reviewer_md("High", "Low"),
            "principal-2": reviewer_md("Critical"),
            "quality-1": reviewer_md("Medium", "Medium", "Info"),
            "staff-engineer-2": reviewer_md(None),
        },
    )
    s.run(1, topology=topology_md("a.py", "b.py"))
    s.state(
        workflow_type="review",
        status="active",
        current_phase="reviews",
        phase_number=4,
        current_round=2,
        started_at=iso(ago(hours=2)),
        round_started_at=iso(ago(minutes=12)),
        updated_at=iso(ago(minutes=1)),
    )


# --- --json ---------------------------------------------------------------------------------


def test_json_shape(tree, capsys, fixed_clock):
    build_rich_project(tree)
    doc = status_json(capsys, tree.root)
    assert list(doc) == ["version", "project", "generated_at", "sessions", "headers"]
    assert doc["headers"] == []
    assert doc["version"] == 1 and doc["project"] == str(tree.root)
    assert doc["generated_at"] == "2026-03-10T12:00:00Z"
    (s,) = doc["sessions"]
    assert keys_start_with(s, SESSION_KEYS)
    assert list(s["elapsed"]) == ["since", "seconds", "running"]
    assert s["elapsed"] == {"since": iso(ago(minutes=12)), "seconds": 720, "running": True}
    assert (s["id"], s["branch"], s["source"], s["status"], s["workflow"]) == (
        "2026-03-10-main",
        "main",
        "state.json",
        "active",
        "review",
    )
    assert (s["phase"], s["phase_label"], s["phase_number"], s["phase_total"]) == (
        "reviews",
        "Parallel Reviews",
        4,
        8,
    )
    assert s["complete"] is False and s["stalled"] is False and s["problems"] == []
    assert s["framework"] == "ocr"
    for field in ("started_at", "updated_at", "last_activity"):
        assert TS.match(s[field])
    assert s["current_round"] == 2 and s["current_map_run"] == 1
    r1, r2 = s["rounds"]
    for r in (r1, r2):
        assert keys_start_with(r, ROUND_KEYS)
        for rev in r["reviewers"]:
            assert keys_start_with(rev, REVIEWER_KEYS)
            assert list(rev["severity"]) == SEVERITY_KEYS
    assert (r1["number"], r1["complete"], r1["discourse"], r1["verdict"]) == (
        1,
        True,
        True,
        "REQUEST CHANGES",
    )
    assert list(r1["counts"]) == COUNTS_KEYS
    assert r1["counts"] == {"blockers": 1, "should_fix": 0, "suggestions": 0}
    assert (r2["complete"], r2["verdict"], r2["counts"]) == (False, None, None)
    assert [(x["name"], x["label"], x["findings"]) for x in r2["reviewers"]] == [
        ("principal-1", "Principal #1", 2),
        ("principal-2", "Principal #2", 1),
        ("quality-1", "Quality #1", 3),
        ("staff-engineer-2", "Staff Engineer #2", 1),
    ]
    assert r2["reviewers"][2]["severity"] == {
        "critical": 0,
        "high": 0,
        "medium": 2,
        "low": 0,
        "info": 1,
    }
    # Distinct findings: "Problem number N" (one title and file in every reviewer file) is one
    # finding whoever raised it. Round 1: it and final.md's blocker "A" (matching no finding).
    assert (r1["findings"], r1["blockers"], r1["evolution"]) == (2, 1, None)
    # Round 2: seven reported, three distinct; the critical blocks; no final.md yet: "A" not
    # raised again is pending, not resolved.
    assert (r2["findings"], r2["blockers"]) == (3, 1)
    assert list(r2["evolution"]) == EVOLUTION_KEYS
    assert r2["evolution"] == {"new": 2, "open": 1, "resolved": None, "new_blockers": 0,
                               "resolved_blockers": None, "pending": 1,
                               "pending_blockers": 1}  # fmt: skip
    (run,) = s["map_runs"]
    assert keys_start_with(run, RUN_KEYS)
    assert (run["number"], run["complete"], run["files"]) == (1, False, 2)


def test_json_nulls(tree, capsys, fixed_clock):
    tree.session("odd-name")
    (s,) = status_json(capsys, tree.root)["sessions"]
    assert s["branch"] is None and s["started_at"] is None and s["last_activity"] is None
    assert s["elapsed"] == {"since": None, "seconds": None, "running": True}
    assert s["current_map_run"] is None and s["rounds"] == [] and s["map_runs"] == []


def test_json_order_is_newest_activity_the_lists_default_order(tree, capsys, fixed_clock):
    """One order: `status` and the dashboard's list (`sort: last activity ▼`)
    list the same sessions in the same order; an active session gone quiet moves down."""

    def closed(sid, minutes):
        tree.session(sid).state(
            status="closed", current_phase="complete", mtime=ago(minutes=minutes)
        )

    def active(sid, minutes):
        tree.session(sid).state(
            status="active", current_phase="reviews", mtime=ago(minutes=minutes)
        )

    closed("2026-03-10-closed-newest", 1)
    closed("2026-03-01-closed-older", 60)
    active("2026-03-02-active-old", 90)
    active("2026-03-09-active-new", 5)
    tree.session("2026-03-08-active-empty")  # no activity at all: last
    # updated_at newer than any file counts as activity too.
    tree.session("2026-03-03-active-updated").state(
        status="active",
        current_phase="analysis",
        updated_at=iso(ago(minutes=2)),
        mtime=ago(hours=5),
    )
    ids = [s["id"] for s in status_json(capsys, tree.root)["sessions"]]
    assert ids == [
        "2026-03-10-closed-newest",
        "2026-03-03-active-updated",
        "2026-03-09-active-new",
        "2026-03-01-closed-older",
        "2026-03-02-active-old",
        "2026-03-08-active-empty",
    ]
    listed = ListQuery().apply(tree.views().values())
    assert [v.id for v in listed] == ids


def test_json_is_ascii_only_with_non_ascii_and_controls_escaped(tree, capsys, fixed_clock):
    sid = "2026-03-10-café-ü" + EVIL + "\u202e"
    s = tree.session(sid)
    s.state(
        branch="feat/ünïcode ✓ " + EVIL,
        status="active",
        current_phase="reviews\u0085" + EVIL,
        started_at="日本",
    )
    s.round(1, reviewers={"crème-1": "### Finding 1: 漢字\n- **Severity**: High\n"})
    code, out, err = run_cli(capsys, str(tree.root), "--json")
    assert code == 0 and err == ""
    assert out.isascii()
    assert not re.search(r"[\x00-\x1f\x7f]", out[:-1])  # only the final newline
    (v,) = json.loads(out)["sessions"]
    assert v["id"] == sid
    assert v["branch"] == "feat/ünïcode ✓ " + EVIL
    assert v["phase"] == "reviews\u0085" + EVIL
    assert v["rounds"][0]["reviewers"][0]["name"] == "crème-1"
    assert any("日本" in p for p in v["problems"])


def test_stall_after_option(tree, capsys, fixed_clock):
    tree.session("2026-03-10-main").state(
        status="active",
        current_phase="reviews",
        updated_at=iso(ago(minutes=10)),
        mtime=ago(minutes=10),
    )
    assert status_json(capsys, tree.root)["sessions"][0]["stalled"] is False
    assert status_json(capsys, tree.root, "--stall-after", "5m")["sessions"][0]["stalled"] is True
    assert (
        status_json(capsys, tree.root, "--stall-after", "700s")["sessions"][0]["stalled"] is False
    )


def test_json_with_the_db_store(tree, capsys, fixed_clock):
    tree.session("2026-03-10-db").round(1)
    tree.session("2026-03-10-nodb").state(current_phase="analysis")
    tree.db.session("2026-03-10-db", branch="feat/db", current_phase="reviews").save()
    doc = status_json(capsys, tree.root)
    by_id = {s["id"]: s for s in doc["sessions"]}
    assert by_id["2026-03-10-db"]["source"] == "ocr.db"
    assert by_id["2026-03-10-db"]["branch"] == "feat/db"
    assert by_id["2026-03-10-nodb"]["source"] == "state.json"


# --- --oneline ------------------------------------------------------------------------------


def test_oneline_like_the_issue_example(tree, capsys, fixed_clock):
    """Whole (no width limit), it is the issue's example led by the state glyph; by default it
    fits 60 columns: the kind `review`, the id's date and the reviewer count give way."""
    build_rich_project(tree)
    code, out, err = run_cli(capsys, str(tree.root), "--oneline", "--max-width", "0")
    assert code == 0 and err == ""
    assert out == (
        "● 2026-03-10-main review 4/8 Parallel Reviews · R2 · 4 reviewers · 3 findings · 2h 00m\n"
    )
    code, out, err = run_cli(capsys, str(tree.root), "--oneline")
    assert code == 0 and err == ""
    assert out == "● main 4/8 Parallel Reviews · R2 · 3 findings · 2h 00m\n"


def test_oneline_prefers_the_newest_running_session(tree, capsys, fixed_clock):
    tree.session("2026-03-10-closed").state(
        status="closed", current_phase="complete", mtime=ago(minutes=1)
    )
    tree.session("2026-03-09-old-running").state(
        status="active", current_phase="analysis", mtime=ago(hours=3)
    )
    tree.session("2026-03-08-running").state(
        status="active", current_phase="reviews", mtime=ago(minutes=30)
    )
    _, out, _ = run_cli(capsys, str(tree.root), "--oneline", "--max-width", "0")
    assert out.startswith("● 2026-03-08-running review 4/8 Parallel Reviews")
    assert out.count("\n") == 1


def test_oneline_without_running_sessions_shows_the_newest(tree, capsys, fixed_clock):
    tree.session("2026-03-01-a").state(status="closed", current_phase="complete", mtime=ago(days=2))
    tree.session("2026-03-02-b").state(
        status="closed", current_phase="complete", mtime=ago(hours=2)
    )
    _, out, _ = run_cli(capsys, str(tree.root), "--oneline", "--max-width", "0")
    assert out.startswith("✓ 2026-03-02-b review 8/8 Complete")


def test_oneline_map_session(tree, capsys, fixed_clock):
    s = tree.session("2026-03-10-map")
    s.run(1, topology=topology_md("a"))
    s.state(workflow_type="map", status="active", current_phase="flow-analysis",
            map_started_at=iso(ago(minutes=3)))  # fmt: skip
    _, out, _ = run_cli(capsys, str(tree.root), "--oneline", "--max-width", "0")
    assert out.startswith("⚠ 2026-03-10-map map 3/6 Flow Tracing")  # no activity: stalled
    assert "R1" not in out and "reviewers" not in out


def test_oneline_with_no_sessions(tree, capsys):
    code, out, err = run_cli(capsys, str(tree.root), "--oneline")
    assert code == 0 and err == "" and out.count("\n") == 1


# --- readable outputs never carry raw control characters ------------------------------------


def _plant_evil(tree) -> None:
    s = tree.session("2026-03-10-" + EVIL + "\x9b31m\u202e")
    s.state(
        branch=EVIL,
        workflow_type="review" + EVIL,
        status="act" + EVIL,
        current_phase=EVIL + "phase",
        started_at="at" + EVIL,
    )
    s.round(
        1,
        reviewers={"evil" + EVIL: "### Finding 1: " + EVIL + "\n"},
        meta={"verdict": "APPROVE" + EVIL},
    )
    t = tree.session("2026-03-10-plain")
    t.round(1, final="## Verdict\n\n**" + EVIL + "REJECT\x1b[2J**\n")
    t.state(status="active", current_phase="synthesis", updated_at=iso(ago(minutes=1)))


RAW_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


@pytest.mark.parametrize(
    "fmt", [[], ["--oneline", "--max-width", "0"], ["--oneline"], ["--max-width", "50"]]
)
def test_readable_outputs_never_contain_raw_control_characters(tree, capsys, fixed_clock, fmt):
    _plant_evil(tree)
    code, out, err = run_cli(capsys, str(tree.root), *fmt)
    assert code == 0
    assert "\x1b" not in out and "\x07" not in out and "\x9b" not in out
    assert not RAW_CONTROL.search(out), repr(out)
    assert not RAW_CONTROL.search(err)
    if fmt in ([], ["--oneline", "--max-width", "0"]):  # whole: nothing cut away
        assert "pwned" in out.lower()  # shown, made visible, not dropped


def test_table_lists_every_session_and_its_problems(tree, capsys, fixed_clock):
    _plant_evil(tree)
    _, out, _ = run_cli(capsys, str(tree.root))
    lines = out.splitlines()
    assert lines[0].split()[:4] == ["SESSION", "STATUS", "FLOW", "PHASE"]
    assert any("2026-03-10-plain" in ln and "7/8 Final Synthesis" in ln for ln in lines)
    problem_lines = [ln for ln in lines if ln.startswith("✗ ")]  # core.states' problem glyph
    assert len(problem_lines) >= 3  # workflow_type, status, started_at, unknown phase
    assert not any(ln.startswith("! ") for ln in lines)  # `!` means "needs attention"


def test_control_characters_in_the_json_are_escaped_not_raw(tree, capsys, fixed_clock):
    _plant_evil(tree)
    _, out, _ = run_cli(capsys, str(tree.root), "--json")
    assert "\x1b" not in out and "\\u001b" in out
    doc = json.loads(out)
    evil = next(s for s in doc["sessions"] if s["id"] != "2026-03-10-plain")
    assert evil["branch"] == EVIL  # the data itself is kept exact
    assert evil["status"] == "active" and evil["workflow"] == "review"  # invalid: absent
    assert evil["rounds"][0]["verdict"] == "APPROVE" + EVIL.upper()


# --- the installed console script -----------------------------------------------------------


def test_installed_console_script(tree, tmp_path):
    build_rich_project(tree)
    script = Path(sys.executable).with_name("ocr-tui")
    assert script.exists(), "ocr-tui is not installed in the venv (pip install -e .)"
    done = subprocess.run(
        [str(script), "status", str(tree.ocr / "sessions"), "--json"],
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.isascii() and done.stderr == b""
    doc = json.loads(done.stdout)
    assert doc["project"] == str(tree.root)
    assert [s["id"] for s in doc["sessions"]] == ["2026-03-10-main"]
    assert doc["sessions"][0]["rounds"][1]["reviewers"][1]["label"] == "Principal #2"

    missing = subprocess.run(
        [str(script), "status", str(tmp_path / "nowhere"), "--json"],
        capture_output=True,
        timeout=60,
        text=True,
    )
    assert missing.returncode == 2 and missing.stdout == ""
    assert len(missing.stderr.splitlines()) == 1 and str(tmp_path / "nowhere") in missing.stderr


def test_undecodable_directory_name(tree, capsys, fixed_clock):
    os.mkdir(os.fsencode(tree.sessions_dir) + b"/2026-03-10-bad-\xff\x1b[31m")
    code, out, _ = run_cli(capsys, str(tree.root), "--json")
    assert code == 0 and out.isascii()
    (s,) = json.loads(out)["sessions"]
    assert s["id"] == "2026-03-10-bad-\\xff\x1b[31m"  # the bad byte named, kept apart
    code, out, _ = run_cli(capsys, str(tree.root))
    assert code == 0 and "\x1b" not in out and "bad-\\xff" in out


# --- the readable table: one meaning per column, in every format ----------------------------


def _every_format(root: Path) -> None:
    """All four formats, each live run part-way (as `ocr-tui demo` and the screenshots play
    them), plus an OCR map session with no round yet and an iDumb session whose phase is free
    text with no k/n position."""
    from datetime import timedelta

    from ocr_tui.demo import every_format_part_way

    now = every_format_part_way(root)
    mapping = root / ".ocr" / "sessions" / f"{now:%Y-%m-%d}-map-no-round"
    mapping.mkdir()
    (mapping / "state.json").write_text(
        json.dumps(
            {
                "workflow_type": "map",
                "current_phase": "topology",
                "status": "active",
                "started_at": iso(now - timedelta(minutes=1)),
            }
        )
    )
    (root / ".idumb" / "sessions" / "ses_freeTextPhase.json").write_text(
        json.dumps({"sessionId": "ses_freeTextPhase", "createdAt": iso(now), "phase": "build"})
    )


def table_rows(out: str) -> list[dict[str, str]]:
    """The table's rows as {column: cell}, cut at the header's column starts."""
    lines = out.splitlines()
    cols = [(m.group(), m.start()) for m in re.finditer(r"\S+(?: \S+)*", lines[0])]
    ends = [start for _, start in cols[1:]] + [None]
    return [
        {name: line[start:end].strip() for (name, start), end in zip(cols, ends, strict=True)}
        for line in lines[1:]
        if not line.startswith("✗ ")
    ]


def test_table_columns_mean_the_same_in_every_format(tmp_path, capsys):
    """REV is the current round's reviewer count, FIND its findings, VERDICT its verdict, for
    every session or "—"; PHASE is the current phase's position among the workflow's phases and
    its label (the code workflow's `phase_number` counts finished phases; iDumb's label may
    carry the position itself, or have none). A format's agents and alerts get their own
    columns instead of standing in REV and VERDICT."""
    root = tmp_path / "proj"
    _every_format(root)
    assert main(["status", "--json", str(root)]) == 0
    views = {s["id"]: s for s in json.loads(capsys.readouterr().out)["sessions"]}
    assert {s["framework"] for s in views.values()} == {"ocr", "code", "analysis", "idumb"}
    assert main(["status", str(root)]) == 0
    rows = table_rows(capsys.readouterr().out)
    assert len(rows) == len(views)
    for row in rows:
        s = views[row["SESSION"]]
        where = f"{s['framework']} {s['id']}: {row}"
        cur = next((r for r in s["rounds"] if r["number"] == s["current_round"]), None)
        if s["workflow"] == "map" and s["current_map_run"]:  # its unit: the map run, as listed
            assert row["RND"] == f"M{s['current_map_run']}", where
            # never the review round's facts it went through before: the run's own files
            assert (row["REV"], row["FIND"]) == ("—", "—"), where
            assert row["VERDICT"] == "—", where  # a map run has no verdict
            continue
        elif s["current_round"] is None:
            assert (row["RND"], row["REV"], row["FIND"]) == ("—", "—", "—"), where
        else:
            assert row["RND"] == f"R{s['current_round']}", where
            assert row["REV"] == str(len(cur["reviewers"]) if cur else 0), where
            assert row["FIND"] == str(cur["findings"] if cur else 0), where  # distinct
        assert row["VERDICT"] == ((cur and cur["verdict"]) or "—"), where
        assert row["AGENTS"] == (s["summary"] or "—"), where
        needs = "your approval" if s["waiting"] else s["alerts"][0] if s["alerts"] else "—"
        assert row["NEEDS"] == needs, where  # as the list's Needs column
        current = [t["number"] for t in s["timeline"] if t["state"] == "current"]
        position = current[0] if current else s["phase_number"]
        label = s["phase_label"]
        if not s["phase_total"]:
            assert row["PHASE"] == label, where  # no position to give
        elif label.startswith(f"{position}/{s['phase_total']}"):
            assert row["PHASE"] == label, where  # given once, not twice
        else:
            assert row["PHASE"] == f"{position or '?'}/{s['phase_total']} {label}", where
    assert "3/6 Plan" in [r["PHASE"] for r in rows]  # the live code session: its 3rd phase
    assert "build" in [r["PHASE"] for r in rows]  # iDumb, free text: no "?/0"


# --- --session ID ---------------------------------------------------------------------------


def test_session_option_picks_sessions_by_id(tree, capsys, fixed_clock):
    """`--session ID` (repeatable) in every output; an unknown id is one line and exit 2."""
    for sid in ("2026-03-10-main", "2026-03-09-fix", "2026-03-08-old"):
        tree.session(sid).state(current_phase="reviews")
    doc = status_json(capsys, tree.root, "--session", "2026-03-09-fix")
    assert [s["id"] for s in doc["sessions"]] == ["2026-03-09-fix"]
    doc = status_json(
        capsys, tree.root, "--session", "2026-03-08-old", "--session", "2026-03-10-main"
    )
    assert sorted(s["id"] for s in doc["sessions"]) == ["2026-03-08-old", "2026-03-10-main"]
    code, out, err = run_cli(
        capsys, str(tree.root), "--oneline", "--max-width", "0", "--session", "2026-03-08-old"
    )
    assert code == 0 and out.startswith("⚠ 2026-03-08-old ")  # stalled: no activity
    code, out, err = run_cli(capsys, str(tree.root), "--session", "2026-03-09-fix")
    assert code == 0 and "2026-03-09-fix" in out and "2026-03-10-main" not in out
    code, out, err = run_cli(capsys, str(tree.root), "--json", "--session", "nope\x1b[2J")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "no session 'nope␛[2J'" in err and "\x1b" not in err
