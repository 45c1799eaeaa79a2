"""Absent data is not a negative fact, in the other formats too (class 1, hunted
beyond OCR): a missing field or an unreadable file shows as not known (`—`, `?`, pending),
never as 0, "changes requested", "valid", "waiting on you" or a phase."""

from __future__ import annotations

import os
from datetime import timedelta

from ocr_tui.formats.idumb.source import IdumbSource
from tests.formats import test_analysis as ana
from tests.formats import test_codeflow_support as code
from tests.formats.test_idumb import T0
from tests.formats.test_idumb import write as idumb_write

# --- scientific analysis ----------------------------------------------------------------------


def test_an_approval_without_its_verdict_is_pending_not_changes_requested(tmp_path):
    asked = {"phase_3": {"timestamp": "2026-02-04T15:00:00Z"}}  # no `approved` yet
    state = ana.example(current_phase=4, completed_phases=[0, 1, 2, 3], user_approvals=asked)
    _, v = ana.view(tmp_path, state)
    approval = next(f for f in v.facts if f.label == "approval")
    assert "pending" in approval.value and approval.tone == "neutral"
    assert "changes requested" not in approval.value


def test_an_empty_or_half_written_state_claims_no_phase(tmp_path):
    _, v = ana.view(tmp_path, "")
    assert v.phase_number is None and v.timeline == [] and not v.elapsed.running
    assert v.problems  # and says why


def test_an_interview_without_its_place_says_it_does_not_know_it(tmp_path):
    state = ana.example(current_phase=6, completed_phases=[0, 1, 2, 3, 4, 5],
                        interview_progress={"total_concerns": 12})  # fmt: skip
    _, v = ana.view(tmp_path, state)
    assert ana.fact(v, "interview") == "?/12 concerns"


def test_without_an_update_time_the_files_time_is_its_last_activity(tmp_path):
    state = ana.example()
    del state["last_updated"]
    d = ana.write(tmp_path, state)
    written = (ana.NOW - timedelta(seconds=30)).timestamp()  # written 30 s ago
    os.utime(d / "session-state.json", (written, written))
    v = ana.AnalysisSource(tmp_path, tmp_dir=tmp_path / "no-tmp").derive("project", d, ana.NOW)
    assert v.last_activity == "2026-02-04T15:09:30Z" and not v.stalled


# --- the code workflow ------------------------------------------------------------------------


def test_a_state_without_phases_claims_none_done(tmp_path):
    state = code.example()
    del state["phases"]
    code.write_state(tmp_path, state)
    v, _ = code.derive(tmp_path)
    assert v.phase_number is None and v.timeline == []
    assert "state.json has no phases: no phase is known" in v.problems


def test_auto_mode_absent_is_not_known_to_wait_on_you(tmp_path):
    state = code.in_research()
    state["phases"]["research"] = {"status": "completed", "completed_at": "2026-01-10T15:00:00Z"}
    state.pop("auto_mode", None)
    code.write_state(tmp_path, state)
    v, _ = code.derive(tmp_path)
    assert not v.waiting
    state["auto_mode"] = False
    code.write_state(tmp_path, state)
    v, _ = code.derive(tmp_path)
    assert v.waiting  # said off: then it does wait for the go-ahead


def test_a_phase_with_a_completion_time_and_no_status_is_done(tmp_path):
    state = code.in_research()
    state["phases"]["research"] = {"completed_at": "2026-01-10T15:00:00Z"}
    code.write_state(tmp_path, state)
    v, _ = code.derive(tmp_path)
    research = next(s for s in v.timeline if s.key == "research")
    assert research.state == "done"


# --- iDumb -----------------------------------------------------------------------------------


def test_metrics_without_counts_say_not_known_never_zero_in_green(tmp_path):
    idumb_write(tmp_path / ".idumb/brain/state.json", {"framework": "x", "phase": "p"})
    idumb_write(tmp_path / ".idumb/brain/execution-metrics.json", {"sessionId": "other"})
    h = IdumbSource(tmp_path).header(T0)
    facts = {f.label: f for f in h.facts}
    assert facts["agent spawns"].value == "—"
    assert facts["errors"].value.startswith("—") and facts["errors"].tone == "neutral"
    assert facts["iterations"].value == "planner↔checker —, validator↔fix —, total —"
    assert facts["validations"].value == "—"  # no validationCount


def test_an_unreadable_brain_state_states_no_facts(tmp_path):
    idumb_write(tmp_path / ".idumb/brain/state.json", b"")
    h = IdumbSource(tmp_path).header(T0)
    labels = {f.label for f in h.facts}
    assert not labels & {"validations", "anchors", "history", "framework", "phase"}
    assert h.alerts  # the reader says why
