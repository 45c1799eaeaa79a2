"""The code workflow (seed 002) from the schema's complete example and its live variants."""

from __future__ import annotations

from pathlib import Path

from ocr_tui.formats.codeflow.source import CodeWorkflowSource
from tests.formats.test_codeflow_support import (
    NOW,
    SID,
    derive,
    example,
    facts,
    in_research,
    session_dir,
    write_docs,
    write_state,
)


def test_complete_example_is_a_closed_session(tmp_path: Path) -> None:
    write_state(tmp_path, example())
    write_docs(tmp_path)
    v, _ = derive(tmp_path)
    assert v.problems == []
    assert (v.id, v.framework, v.source, v.workflow) == (SID, "code", "state.json", "code")
    assert v.title == "Add JWT authentication with refresh token support"
    assert (v.status, v.complete, v.stalled, v.waiting) == ("closed", True, False, False)
    assert (v.phase, v.phase_number, v.phase_total) == ("complete", 6, 6)
    assert v.started_at == "2026-01-10T14:30:22Z"
    assert v.updated_at == "2026-01-10T15:45:33Z"
    # updated_at - created_at, not ticking
    assert (v.elapsed.seconds, v.elapsed.running) == (4511, False)
    assert v.path == str(session_dir(tmp_path))
    assert v.branch is None and v.rounds == [] and v.map_runs == []
    assert [s.key for s in v.timeline] == [
        "init",
        "research",
        "plan",
        "implement",
        "quality",
        "review",
    ]
    assert {s.state for s in v.timeline} == {"done"}
    assert [s.seconds for s in v.timeline] == [3, 290, 290, 2415, 265, 1228]
    research = v.timeline[1]
    assert (research.at, research.ended) == ("2026-01-10T14:30:25Z", "2026-01-10T14:35:15Z")
    assert [s.document for s in v.timeline] == [
        None,
        "research-report.md",
        "plan-report.md",
        None,
        None,
        "review-report.md",
    ]
    assert v.badges == ["full"]
    assert v.summary == "1× reviewer (single)"  # the review decision: the "reviewers" column
    f = facts(v)
    assert f["research agents"] == "2× scouter (parallel)"
    assert f["review agents"] == "1× reviewer (single)"
    assert f["progress"] == "6 of 6 phases done"
    assert f["date"].startswith("2026-01-10")
    assert "jwt-auth-refresh-token" in f["spec"] and "approved" in f["spec"]
    spec_doc = "../../.specs/jwt-auth-refresh-token.md"
    assert v.documents == [spec_doc, "research-report.md", "plan-report.md", "review-report.md"]
    assert (session_dir(tmp_path) / spec_doc).resolve() == (
        tmp_path / ".claude/.specs/jwt-auth-refresh-token.md"
    ).resolve()
    scopes = [(s.key, s.state, s.detail) for s in v.steps]
    assert scopes == [
        (
            "research-1",
            "done",
            "Search for existing authentication patterns and JWT implementations",
        ),
        ("research-2", "done", "Find related API endpoints and middleware structure"),
        ("review-1", "done", "Review all changes for security, performance, and code quality"),
    ]
    assert v.steps[0].seconds == 290 and v.steps[0].documents == ["research-report.md"]


def test_running_session_current_phase_and_elapsed(tmp_path: Path) -> None:
    write_state(tmp_path, in_research())
    now = NOW.replace(hour=14, minute=40)
    v, _ = derive(tmp_path, now=now)
    assert (v.status, v.complete, v.stalled) == ("active", False, False)
    assert (v.phase, v.phase_label, v.phase_number) == ("research", "Research", 1)
    assert [s.state for s in v.timeline] == ["done", "current"] + ["pending"] * 4
    assert v.timeline[1].seconds == 575  # 14:30:25 -> now
    assert (v.elapsed.since, v.elapsed.seconds, v.elapsed.running) == (
        "2026-01-10T14:30:22Z",
        578,
        True,
    )
    assert v.summary == "2× scouter (parallel)"
    assert [s.state for s in v.steps] == ["running", "running"]
    assert v.alerts == [] and not v.waiting


def test_stalled_when_in_progress_and_updated_at_is_old(tmp_path: Path) -> None:
    write_state(tmp_path, in_research())
    v, src = derive(tmp_path, now=NOW, stall_after=600)  # updated 14:31, now 16:00
    assert v.stalled and v.status == "active"
    assert any(a.startswith("stalled?") and "Research" in a for a in v.alerts)
    # How long it has been quiet is a time (shown live), against the limit; no
    # frozen `no update for 1h 29m`.
    assert "stalled? Research in progress, no activity for over 10m" in v.alerts
    quiet = next(f.value for f in v.facts if f.label == "stalled?")
    assert quiet == f"no activity since {v.last_activity} (limit 10m)"
    fresh, _ = derive(tmp_path, now=NOW.replace(hour=14, minute=35), stall_after=600)
    assert not fresh.stalled and fresh.alerts == []
    # the engine re-derives when the threshold passes
    assert src.expires(fresh) == NOW.replace(hour=14, minute=41)


def test_between_phases_without_auto_waits_on_the_user(tmp_path: Path) -> None:
    st = in_research()
    st["phases"]["research"].update(status="completed", completed_at="2026-01-10T14:35:15Z")
    st["updated_at"] = "2026-01-10T14:35:15Z"
    write_state(tmp_path, st)
    v, _ = derive(tmp_path, now=NOW)
    assert (v.phase, v.phase_number, v.waiting, v.stalled) == ("plan", 2, True, False)
    assert v.timeline[2].state == "current" and v.timeline[2].at is None
    st["auto_mode"] = True
    write_state(tmp_path, st)
    v, _ = derive(tmp_path, now=NOW)
    assert not v.waiting and v.badges == ["full", "auto"]


def test_skipped_phases_count_as_done_and_render_skipped(tmp_path: Path) -> None:
    st = example()
    st["workflow"] = "code:fast"
    st["auto_mode"] = True
    st["phases"]["plan"] = {
        "status": "completed",
        "skipped": True,
        "report": None,
        "started_at": None,
        "completed_at": "2026-01-10T14:35:20Z",
    }
    st["phases"]["quality"]["status"] = "in_progress"
    st["phases"]["quality"]["completed_at"] = None
    st["phases"]["review"] = {"status": "pending", "skipped": False}
    write_state(tmp_path, st)
    v, _ = derive(tmp_path, now=NOW)
    assert v.badges == ["fast", "auto"] and v.workflow == "code:fast"
    assert [s.state for s in v.timeline] == [
        "done",
        "done",
        "skipped",
        "done",
        "current",
        "pending",
    ]
    assert v.phase == "quality" and v.phase_number == 4
    assert facts(v)["progress"] == "4 of 6 phases done (1 skipped)"
    assert v.timeline[2].seconds is None


def test_all_skipped_or_completed_is_closed(tmp_path: Path) -> None:
    st = example()
    st["phases"]["quality"] = {"status": "completed", "skipped": True}
    write_state(tmp_path, st)
    v, _ = derive(tmp_path)
    assert v.complete and v.status == "closed" and v.phase_number == 6


def test_spec_outside_the_project_is_a_fact_not_a_document(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (tmp_path / "secret.md").write_text("no")
    st = example()
    st["spec"]["path"] = "../secret.md"
    write_state(root, st)
    v, _ = derive(root)
    assert "../secret.md" in facts(v)["spec"]
    assert not any("secret" in d for d in v.documents)
    st["spec"] = None
    write_state(root, st)
    v, _ = derive(root)
    assert "spec" not in facts(v)


def test_missing_spec_file_and_report_are_named(tmp_path: Path) -> None:
    write_state(tmp_path, example())  # no report or spec files on disk
    v, _ = derive(tmp_path)
    assert "not found" in facts(v)["spec"]
    assert v.documents == []
    assert any("research report" in p for p in v.problems)


def test_other_markdown_in_the_session_dir_are_documents(tmp_path: Path) -> None:
    d = write_state(tmp_path, example())
    write_docs(tmp_path)
    (d / "notes.md").write_text("x")
    (d / "scouts").mkdir()
    (d / "scouts" / "scout-1.md").write_text("x")
    (d / "state.json.md.txt").write_text("x")
    v, _ = derive(tmp_path)
    assert v.documents[-2:] == ["notes.md", "scouts/scout-1.md"]
    assert v.documents.count("research-report.md") == 1


def test_list_sessions_and_touched(tmp_path: Path) -> None:
    src = CodeWorkflowSource(tmp_path)
    assert src.list_sessions() == {} and not src.present_in(tmp_path)
    write_state(tmp_path, example())
    write_state(tmp_path, in_research(), sid="260111-other")
    (tmp_path / ".claude/.docs/.hidden").mkdir()
    (tmp_path / ".claude/.docs/loose.md").write_text("x")
    assert CodeWorkflowSource.present_in(tmp_path)
    assert set(src.list_sessions()) == {SID, "260111-other"}
    assert src.watch_dirs() == [tmp_path / ".claude/.docs"]
    docs = tmp_path / ".claude/.docs"
    t = src.touched([docs / SID / "state.json"])
    assert t.keys == {SID} and not t.relist
    t = src.touched([docs / "260112-new"])
    assert t.keys == {"260112-new"} and t.relist
    assert src.touched([tmp_path / ".claude"]).relist
    assert src.touched([docs]).relist
    assert src.touched([tmp_path / "elsewhere" / "x"]).keys == set()
    assert not src.accept(str(docs / SID / ".state.json.123.tmp"))


def test_id_date_when_created_at_is_missing(tmp_path: Path) -> None:
    st = {"task": "t", "phases": {}}
    write_state(tmp_path, st, sid="251231-new-year")
    v, _ = derive(tmp_path, sid="251231-new-year", now=NOW)
    assert v.started_at == "2025-12-31T00:00:00Z"
    assert facts(v)["date"] == "2025-12-31 · new-year"
    assert v.phase == "init" and v.phase_number == 0 and v.running
    assert v.elapsed.seconds == int(
        (NOW - NOW.replace(year=2025, month=12, day=31, hour=0)).total_seconds()
    )


def test_title_falls_back_to_the_slug(tmp_path: Path) -> None:
    write_state(tmp_path, {"phases": {}}, sid="260101-make-it-fast")
    v, _ = derive(tmp_path, sid="260101-make-it-fast")
    assert v.title == "make it fast"


def test_expires_is_none_when_closed(tmp_path: Path) -> None:
    write_state(tmp_path, example())
    v, src = derive(tmp_path)
    assert src.expires(v) is None


def test_expires_only_while_a_phase_is_in_progress(tmp_path: Path) -> None:
    st = in_research()
    write_state(tmp_path, st)
    early = NOW.replace(hour=14, minute=32)
    v, src = derive(tmp_path, now=early, stall_after=600)
    assert src.expires(v) == NOW.replace(hour=14, minute=41)
    # between phases (waiting on the user): time alone changes nothing but the ticking clock
    st["phases"]["research"].update(status="completed", completed_at="2026-01-10T14:35:15Z")
    write_state(tmp_path, st)
    v = src.derive(SID, session_dir(tmp_path), NOW)
    assert v.waiting and src.expires(v) is None
    # never started
    write_state(tmp_path, {"task": "t"}, sid="260110-fresh")
    v = src.derive("260110-fresh", session_dir(tmp_path, "260110-fresh"), NOW)
    assert v.running and src.expires(v) is None
    # unreadable again: no longer stallable
    write_state(tmp_path, in_research())
    assert src.expires(src.derive(SID, session_dir(tmp_path), early)) is not None
    write_state(tmp_path, b"{")
    assert src.expires(src.derive(SID, session_dir(tmp_path), early)) is None
