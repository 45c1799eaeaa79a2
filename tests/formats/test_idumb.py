"""iDumb (seed 004, reference section 4): sessions by idle time, the brain header, checkpoints,
execution metrics, delegations; built from the seed's and the real repositories' samples."""

from __future__ import annotations

import json
import os
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import msgspec
import pytest

from ocr_tui.core.timeutil import fmt_ts
from ocr_tui.formats.idumb.source import IdumbSource

T0 = datetime(2026, 2, 5, 18, 13, 23, tzinfo=UTC)
SID = "ses_3d0fdbb84ffeAN7FeCuPSp5ZW7"
# shynlee04/idumb-v2@eddb462:.idumb/sessions/ses_3d0fdbb84ffeAN7FeCuPSp5ZW7.json
REAL_SESSION = {
    "sessionId": SID,
    "createdAt": "2026-02-05T18:13:23.708Z",
    "lastUpdated": "2026-02-05T18:13:23.708Z",
    "phase": "init",
    "governanceLevel": "standard",
    "language": {"communication": "english", "documents": "english"},
}
# shynlee04/idumb-v2@28a64dd:.idumb/brain/execution-metrics.json (counts filled in)
METRICS = {
    "sessionId": SID,
    "startedAt": "2026-02-05T18:13:23.709Z",
    "iterationCounts": {"plannerChecker": 2, "validatorFix": 1, "total": 3},
    "agentSpawns": {"total": 3, "byAgent": {"idumb-planner": 2, "idumb-plan-checker": 1}},
    "errors": {
        "total": 1,
        "byType": {"plan-check": 1},
        "recent": ["[2026-02-05T18:20:00.000Z] plan-check: checker found gaps"],
    },
    "limits": {"maxErrors": 20},
}
# shynlee04/project-alpha-master@a48dca8:.idumb/brain/state.json (shape; breaks the schema)
ALPHA_STATE = {
    "version": "0.2.0",
    "initialized": "2026-02-01T10:00:00.000Z",
    "framework": "both",
    "phase": "0/0 (Phase 0)",
    "lastValidation": "2026-02-05T12:00:00.000Z",
    "validationCount": 4,
    "anchors": [
        {"id": "anchor-1", "type": "governance-violation", "content": "x", "priority": "critical"},
        {"id": "anchor-2", "type": "decision", "content": "y", "priority": "high"},
        {"id": "anchor-3", "type": "context", "content": "z", "priority": "normal"},
        {"id": "anchor-4", "type": "context", "content": "z", "priority": "normal"},
    ],
    "history": [
        {"timestamp": "2026-02-04T10:00:00Z", "action": "init", "agent": "a", "result": "pass"},
        {
            "timestamp": "2026-02-04T11:00:00Z",
            "action": "validate",
            "agent": "idumb-validator",
            "result": "SUCCESS: structure validated",
            "details": "extra key",
        },
        {"timestamp": "2026-02-04T12:00:00Z", "action": "build", "agent": "b", "result": "fail"},
        {"timestamp": "2026-02-04T13:00:00Z", "action": "check", "agent": "c", "result": "pass"},
    ],
}


def write(path: Path, data) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def session(root: Path, sid: str = SID, where: str = "sessions", **fields) -> Path:
    data = dict(REAL_SESSION, sessionId=sid)
    for k, v in fields.items():
        if v is None and k in data:
            del data[k]
        else:
            data[k] = v
    return write(root / ".idumb" / where / f"{sid}.json", data)


def view(root: Path, now: datetime, key: str = SID, src: IdumbSource | None = None):
    src = src or IdumbSource(root)
    sessions = src.list_sessions()
    return src.derive(key, sessions[key], now), src


def fact(v, label: str):
    return next((f for f in v.facts if f.label == label), None)


# -- sessions: the real sample, idle states, expiry --------------------------------------------


def test_real_session_just_created_is_active_and_running(tmp_path):
    session(tmp_path)
    v, src = view(tmp_path, T0 + timedelta(minutes=10))
    assert (v.id, v.framework, v.source, v.workflow) == (SID, "idumb", f"{SID}.json", "session")
    assert v.path == str(tmp_path / ".idumb" / "sessions" / f"{SID}.json")
    assert (v.status, v.complete, v.stalled, v.waiting) == ("active", False, False, False)
    assert v.elapsed.running and v.elapsed.since == "2026-02-05T18:13:23Z"
    assert v.elapsed.seconds == 599  # .708 s after the second
    assert v.badges == ["active"] and not v.alerts and not v.problems
    # the phase is the phase, once: not also the title (the format has no task or topic)
    assert (v.phase, v.phase_label, v.title) == ("init", "init", None)
    assert (v.phase_number, v.phase_total) == (None, 0)
    assert fact(v, "phase at creation").value == "init"
    assert fact(v, "governance").value == "standard"
    # never a depth or parent the file does not have
    assert fact(v, "delegation depth") is None and fact(v, "parent session") is None
    assert src.expires(v) == T0.replace(microsecond=708000) + timedelta(hours=1)
    v.id = f"idumb:{SID}"  # the engine renames a key another format already uses
    assert src.expires(v) == T0.replace(microsecond=708000) + timedelta(hours=1)
    assert v.started_at == v.updated_at == v.last_activity == "2026-02-05T18:13:23Z"


@pytest.mark.parametrize(
    ("idle_h", "word", "status", "alert", "next_h"),
    [
        (0.5, "active", "active", None, 1),
        (1.0, "resumable", "active", None, 48),
        (47.9, "resumable", "active", None, 48),
        (48.0, "stale", "closed", "stale", 168),
        (100, "stale", "closed", "stale", 168),
        (168, "old", "closed", "old: idle over 7 days", 720),
        (719, "old", "closed", "old", 720),
        (720, "archive-eligible", "closed", "archive-eligible", None),
        (5000, "archive-eligible", "closed", "archive-eligible", None),
    ],
)
def test_idle_state_thresholds(tmp_path, idle_h, word, status, alert, next_h):
    last = T0 + timedelta(hours=2)
    session(tmp_path, createdAt=fmt_ts(T0), lastUpdated=fmt_ts(last))
    v, src = view(tmp_path, last + timedelta(hours=idle_h))
    assert v.status == status and word in v.badges
    assert not v.complete and not v.stalled
    assert v.elapsed.running is (word == "active")
    if word != "active":
        assert v.elapsed.seconds == 7200  # createdAt -> lastUpdated
    if alert is None:
        assert v.alerts == []
    else:
        assert any(a.startswith(alert) for a in v.alerts)
    if word == "archive-eligible":
        assert any("advisory" in a for a in v.alerts)
    assert fact(v, "state").value.startswith(word)
    expected = None if next_h is None else last + timedelta(hours=next_h)
    assert src.expires(v) == expected


def test_resumable_says_until_when(tmp_path):
    session(tmp_path, lastUpdated=fmt_ts(T0))
    v, _ = view(tmp_path, T0 + timedelta(hours=6))
    f = fact(v, "state")
    until = fmt_ts(T0 + timedelta(hours=48))  # a time: the screens say how long is left, live
    assert f.tone == "warn" and f.value == f"resumable in context until {until} (idle over 1h)"


def test_idle_time_is_never_measured_into_a_text(tmp_path):
    """`active (idle 0s)` stood still until the next change; no fact or alert says
    how long a session has been idle (its `last update` time does, on screen, live)."""
    session(tmp_path, lastUpdated=fmt_ts(T0))
    for hours in (0, 0.5, 6, 100, 200, 1000):
        v, _ = view(tmp_path, T0 + timedelta(hours=hours))
        texts = [f.value for f in v.facts] + v.alerts
        assert not any("idle 0s" in t or re.search(r"idle \d", t) for t in texts), texts
        assert fact(v, "last update").value == fmt_ts(T0)


def test_delegation_depth_and_parent_only_where_present(tmp_path):
    session(tmp_path, "ses_a", delegationDepth=0, parentSession=None)
    session(tmp_path, "ses_b", delegationDepth=2, parentSession="ses_a")
    session(tmp_path, "ses_c", delegationDepth=6, parentSession="ses_b")
    now = T0 + timedelta(minutes=5)
    a, src = view(tmp_path, now, "ses_a")
    assert fact(a, "delegation depth").value == "0" and fact(a, "parent session") is None
    assert not any(b.startswith("depth") for b in a.badges)
    b, _ = view(tmp_path, now, "ses_b", src)
    assert fact(b, "delegation depth").value == "2" and "depth 2" in b.badges
    assert fact(b, "parent session").value == "ses_a"
    c, _ = view(tmp_path, now, "ses_c", src)
    assert any("delegation loop" in x for x in c.alerts)


def test_compaction_marker(tmp_path):
    session(tmp_path, compactedAt="2026-02-05T18:40:00Z", contextSize=184000)
    v, _ = view(tmp_path, T0 + timedelta(minutes=50))
    # `compacted (184000)` had no unit; a count is the context's size in tokens.
    assert "compacted" in v.badges
    value = fact(v, "compacted").value
    assert value == "2026-02-05T18:40:00Z; the context was 184,000 tokens"
    session(tmp_path, compactedAt="2026-02-05T18:40:00Z", contextSize="90%")
    v, _ = view(tmp_path, T0 + timedelta(minutes=50))
    assert "compacted" in v.badges
    assert fact(v, "compacted").value == "2026-02-05T18:40:00Z; the context was 90%"


@pytest.mark.parametrize(
    ("text", "number", "total", "label"),
    [
        ("2/5 (Phase 2: build)", 2, 5, "Phase 2: build"),
        ("  1 / 4 (Phase 1: setup) ", 1, 4, "Phase 1: setup"),
        ("3/4 - verify", 3, 4, "verify"),
        ("3/4: verify", 3, 4, "verify"),
        ("2/5 (a) (b)", 2, 5, "(a) (b)"),
        ("4/4", 4, 4, "4/4"),  # nothing but the position: the label is the text itself
        ("0/0 (Phase 0)", None, 0, "Phase 0"),  # project-alpha's real brain: no total is known
        ("0/0", None, 0, "0/0"),
        ("0/4 (Phase 0: init)", None, 0, "0/4 (Phase 0: init)"),  # not a position: kept whole
        ("13/12 (x)", None, 0, "13/12 (x)"),
        ("Phase 2/5: build", 2, 5, "Phase 2/5: build"),  # the position inside: kept (the list
        ("init", None, 0, "init"),  # shows it once)
    ],
)
def test_phase_position_is_taken_out_of_the_label(tmp_path, text, number, total, label):
    """The position ("2/5") is the view's phase_number/phase_total; the label is the phase's
    name without it, so a row that shows both says each once. A total that is not known (no
    position, or "0/0") is 0 with no number, and "0/0" is not kept as a label prefix."""
    session(tmp_path, phase=text)
    v, _ = view(tmp_path, T0)
    assert (v.phase_number, v.phase_total, v.phase_label) == (number, total, label)
    assert v.phase == text.strip()  # the raw text is kept: the key, the "phase at creation" fact
    assert fact(v, "phase at creation").value == text.strip()
    assert v.title is None


def test_both_session_dirs_listed_and_deduped(tmp_path):
    session(tmp_path, "ses_old", where="brain/sessions")
    session(tmp_path, "ses_dup", where="sessions", lastUpdated="2026-02-05T18:20:00Z")
    newer = session(tmp_path, "ses_dup", where="brain/sessions", lastUpdated="2026-02-05T19:00:00Z")
    src = IdumbSource(tmp_path)
    listed = src.list_sessions()
    assert set(listed) == {"ses_old", "ses_dup"}
    assert listed["ses_dup"].parent.name == "sessions"
    assert listed["ses_dup"].parent.parent.name == ".idumb"
    v = src.derive("ses_dup", listed["ses_dup"], T0 + timedelta(hours=1))
    assert v.path == str(newer) and v.updated_at == "2026-02-05T19:00:00Z"
    assert fact(v, "copies") is not None


# -- the brain header ---------------------------------------------------------------------------


def test_header_from_a_schema_breaking_sample(tmp_path):
    write(tmp_path / ".idumb/brain/state.json", ALPHA_STATE)
    h = IdumbSource(tmp_path).header(datetime(2026, 2, 6, 12, tzinfo=UTC))
    assert h.framework == "idumb" and h.title == "iDumb brain · both · phase 0/0 (Phase 0)"
    facts = {f.label: f for f in h.facts}
    assert facts["framework"].value == "both" and facts["validations"].value == "4"
    assert facts["anchors"].value == "1 critical, 1 high, 2 normal"
    assert facts["history"].value == "4 entries, 2 not pass (2 in the last 4)"
    shown = [f for f in h.facts if f.label.strip() == "history" and f.label != "history"]
    assert len(shown) == 4 and sum(f.tone == "warn" for f in shown) == 2
    assert "SUCCESS: structure validated" in shown[2].value  # newest first
    assert facts["brain age"].tone == "good" and h.alerts == []


@pytest.mark.parametrize(
    ("hours", "tone", "alert"),
    [(47, "good", None), (48, "warn", "brain stale"), (168, "bad", "brain critically stale")],
)
def test_brain_staleness(tmp_path, hours, tone, alert):
    write(tmp_path / ".idumb/brain/state.json", ALPHA_STATE)
    last = datetime(2026, 2, 5, 12, tzinfo=UTC)
    h = IdumbSource(tmp_path).header(last + timedelta(hours=hours))
    age = next(f for f in h.facts if f.label == "brain age")
    assert age.tone == tone and "since last validation" in age.value
    assert (alert is None and not h.alerts) or any(a.startswith(alert) for a in h.alerts)


def test_brain_staleness_from_initialized_and_the_historical_path(tmp_path):
    state = {k: v for k, v in ALPHA_STATE.items() if k != "lastValidation"}
    write(tmp_path / ".idumb/idumb-brain/state.json", state)
    h = IdumbSource(tmp_path).header(datetime(2026, 2, 4, 10, tzinfo=UTC))
    assert h.path.endswith("idumb-brain/state.json")
    age = next(f for f in h.facts if f.label == "brain age")
    assert age.tone == "warn" and "since initialization" in age.value


def test_fresh_v2_init_and_no_state(tmp_path):
    assert IdumbSource(tmp_path).header(T0) is None  # no .idumb at all
    (tmp_path / ".idumb").mkdir()
    h = IdumbSource(tmp_path).header(T0)
    assert h is not None and any("no brain state" in a for a in h.alerts)
    fresh = {"version": "0.3.1", "initialized": "2026-02-05T18:13:00Z", "framework": "none"}
    write(tmp_path / ".idumb/brain/state.json", dict(fresh, phase="init", anchors=[], history=[]))
    h = IdumbSource(tmp_path).header(T0)
    assert h.title == "iDumb brain · none · phase init" and h.alerts == []
    assert next(f for f in h.facts if f.label == "anchors").value == "none"


# -- checkpoints, halts, metrics, delegations ---------------------------------------------------


def checkpoint(root: Path, where: str, phase: str, task: str, at: datetime, **extra) -> Path:
    cid = f"checkpoint-{phase}-{task}-{fmt_ts(at).replace(':', '-')}"
    body = {"id": cid, "createdAt": fmt_ts(at), "phase": phase, "task": task, "type": "auto"}
    body |= {"status": "valid", "execution": {"tasksCompleted": ["a", "b"], "currentTask": task}}
    return write(root / ".idumb" / where / phase / f"{cid}.json", body | extra)


def test_checkpoints_per_phase_from_every_root(tmp_path):
    session(tmp_path, lastUpdated="2026-02-05T20:00:00Z")
    checkpoint(tmp_path, "execution", "phase-1-setup", "t1", T0 + timedelta(minutes=10))
    checkpoint(tmp_path, "idumb-brain/execution", "phase-1-setup", "t2", T0 + timedelta(hours=1))
    checkpoint(tmp_path, "brain/execution", "2", "t3", T0 + timedelta(hours=1, minutes=30))
    broken = write(tmp_path / ".idumb/brain/execution/2/checkpoint-broken.json", b"{not json")
    at = (T0 + timedelta(hours=1)).timestamp()
    os.utime(broken, (at, at))  # no createdAt to read: the file's time places it
    checkpoint(tmp_path, "brain/execution", "2", "later", T0 + timedelta(hours=5))  # after
    now = T0 + timedelta(hours=3)
    v, src = view(tmp_path, now)
    assert fact(v, "checkpoints phase-1-setup").value.startswith("2 (2 valid); the latest valid, ")
    keys = [s.key for s in v.steps]
    assert any(k.startswith("checkpoint:phase-1-setup/") for k in keys)  # phase not split
    assert not any("later" in k for k in keys)
    states = {s.label: s.state for s in v.steps}
    assert states["2: t3"] == "valid" and states["2: checkpoint-broken"] == "corrupted"
    t1 = next(s for s in v.steps if s.label == "phase-1-setup: t1")
    assert "tasks done 2" in t1.detail and "current: t1" in t1.detail
    # a valid checkpoint turns stale after 48 h: re-derived, and the engine is told when
    assert src.expires(v) == T0 + timedelta(minutes=10, hours=48)
    later = T0 + timedelta(hours=60)
    v2 = src.derive(SID, Path(v.path), later)
    assert {s.label: s.state for s in v2.steps}["phase-1-setup: t1"] == "stale"
    h = src.header(later)
    assert any(f.label == "checkpoints 2" and "1 corrupted" in f.value for f in h.facts)


def test_halt_attaches_to_its_session(tmp_path):
    session(tmp_path)
    write(
        tmp_path / ".idumb/execution/halt-1770315300000/halt-context.json",
        {"timestamp": "2026-02-05T18:15:00Z", "sessionId": SID, "reason": "validator stall"},
    )
    write(tmp_path / ".idumb/execution/halt-1770315400000/halt-context.json", {"sessionId": "x"})
    v, src = view(tmp_path, T0 + timedelta(minutes=5))
    assert "halted" in v.badges and "emergency halt: validator stall" in v.alerts
    assert [s.state for s in v.steps] == ["halt"]
    h = src.header(T0)
    assert any(a.startswith("emergency halt halt-1770315400000") for a in h.alerts)


def test_metrics_attach_to_the_matching_session_else_header(tmp_path):
    session(tmp_path)
    write(tmp_path / ".idumb/brain/execution-metrics.json", METRICS)
    v, src = view(tmp_path, T0 + timedelta(minutes=5))
    assert v.summary == "2× idumb-planner, 1× idumb-plan-checker"
    assert fact(v, "agent spawns").value == "3 (2× idumb-planner, 1× idumb-plan-checker)"
    assert fact(v, "errors").value == "1 of 20 allowed (1× plan-check)"
    assert fact(v, "iterations").value == "planner↔checker 2, validator↔fix 1, total 3"
    err = next(s for s in v.steps if s.state == "error")
    assert (err.label, err.at, err.detail) == (
        "plan-check",
        "2026-02-05T18:20:00Z",
        "checker found gaps",
    )
    assert not any(f.label == "agent spawns" for f in src.header(T0).facts)
    over = dict(METRICS, sessionId="ses_other", errors={"total": 25, "byType": {"x": 25}})
    write(tmp_path / ".idumb/brain/execution-metrics.json", over)
    src.begin_scan()
    v, _ = view(tmp_path, T0 + timedelta(minutes=5), src=src)
    assert v.summary is None and fact(v, "agent spawns") is None
    h = src.header(T0)
    assert any(f.label == "errors" and f.value.startswith("25 of 20 allowed") for f in h.facts)
    assert "errors 25 over the limit of 20" in h.alerts


def test_v2_delegations(tmp_path):
    session(tmp_path, lastUpdated="2026-02-05T19:00:00Z")
    ms = int(T0.timestamp() * 1000)
    recs = [
        {"id": "d1", "fromAgent": "idumb-supreme-coordinator", "toAgent": "idumb-executor",
         "taskId": "t1", "maxDepth": 2, "status": "completed", "createdAt": ms + 60_000,
         "completedAt": ms + 360_000, "expiresAt": ms + 1_860_000},
        {"id": "d2", "fromAgent": "idumb-executor", "toAgent": "idumb-investigator",
         "taskId": "t2", "maxDepth": 1, "status": "pending", "createdAt": ms + 120_000,
         "expiresAt": ms + 1_920_000},
    ]  # fmt: skip
    write(tmp_path / ".idumb/brain/delegations.json", {"version": "1.0.0", "delegations": recs})
    now = T0 + timedelta(hours=1)  # resumable; d2 expired at +32 min
    v, src = view(tmp_path, now)
    steps = {s.key: s for s in v.steps}
    assert steps["delegation:d1"].state == "completed" and steps["delegation:d1"].seconds == 300
    assert "depth 1" in steps["delegation:d1"].detail
    assert steps["delegation:d2"].state == "expired" and "depth 2" in steps["delegation:d2"].detail
    assert fact(v, "delegations").value == "2 (1 completed, 1 expired)"
    assert any("expired without a result" in a for a in v.alerts)
    v = src.derive(SID, Path(v.path), T0 + timedelta(minutes=10))
    assert steps and {s.key: s.state for s in v.steps}["delegation:d2"] == "pending"
    assert src.expires(v) == T0 + timedelta(minutes=32, seconds=1)


# -- lenient reading ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (b"", "is empty"),
        (b'{"sessionId": "x", "createdAt": ', "is cut off (ends mid-object)"),
        (b"\x00\xff\xfe binary", "not valid JSON"),
        (b"[1, 2]", "does not hold a JSON object"),
        (b"[" * 5000 + b"]" * 5000, "nested too deeply"),
        # Like every other reader: bad bytes are shown as U+FFFD, the rest of the file is read.
        (b'{"sessionId": "x", "lastUpdated": "\xff\xfe"}', "not valid UTF-8"),
    ],
)
def test_bad_session_files_keep_the_session_listed(tmp_path, body, problem):
    p = write(tmp_path / ".idumb/sessions/ses_bad.json", body)
    os.utime(p, (T0.timestamp(), T0.timestamp()))
    v, _ = view(tmp_path, T0 + timedelta(minutes=3), "ses_bad")
    assert v.id == "ses_bad" and any(problem in x for x in v.problems)
    assert v.last_activity == fmt_ts(T0)  # idle time from the file's time


def test_huge_session_file_is_not_read(tmp_path):
    write(tmp_path / ".idumb/sessions/ses_big.json", b'{"a": "' + b"x" * (1 << 20) + b'"}')
    v, _ = view(tmp_path, T0, "ses_big")
    assert any("larger than 1 MiB" in x for x in v.problems)


def test_wrong_types_missing_fields_dotted_keys(tmp_path):
    write(
        tmp_path / ".idumb/sessions/ses_w.json",
        {
            "sessionId": 12345,  # a number: kept as text
            "createdAt": "yesterday",
            "lastUpdated": "2026-02-05T18:30:00Z",
            "phase": ["not", "text"],
            "delegationDepth": "two",
            "language.communication": "english",
            "contextSize": 9000,
            "compactedAt": "2026-02-05T18:25:00Z",
        },
    )
    v, _ = view(tmp_path, T0 + timedelta(minutes=30), "ses_w")
    assert v.status == "active" and v.updated_at == "2026-02-05T18:30:00Z"
    assert fact(v, "session").value == "12345"
    assert any("createdAt 'yesterday'" in p for p in v.problems)
    assert any(p.startswith("phase has the wrong type") for p in v.problems)
    assert any(p.startswith("delegationDepth has the wrong type") for p in v.problems)
    assert fact(v, "delegation depth") is None and v.phase == "unknown"
    assert "compacted" in v.badges
    assert fact(v, "compacted").value.endswith("the context was 9,000 tokens")


def test_missing_times_and_future_times(tmp_path):
    p = session(tmp_path, createdAt=None, lastUpdated=None)
    os.utime(p, (T0.timestamp(), T0.timestamp()))
    v, _ = view(tmp_path, T0 + timedelta(hours=3))
    assert "resumable" in v.badges and any("no lastUpdated" in x for x in v.problems)
    session(tmp_path, lastUpdated="2026-03-01T00:00:00Z")
    v, _ = view(tmp_path, T0)
    assert any("in the future" in x for x in v.problems) and "active" in v.badges


def test_escapes_are_kept_for_the_ui(tmp_path):
    session(tmp_path, phase="\x1b[31mred\x1b[0m")
    v, _ = view(tmp_path, T0)
    assert v.phase_label == "\x1b[31mred\x1b[0m"  # the UI makes it safe (textsafe)


def test_lenient_brain_and_metrics(tmp_path):
    state = {
        "framework": 7,
        "phase": None,
        "validationCount": "3",
        "anchors": [{"priority": "urgent"}, "junk", {"priority": None}],
        "history": {"not": "a list"},
        "initialized": "2026-02-05T00:00:00Z",
    }
    write(tmp_path / ".idumb/brain/state.json", state)
    write(
        tmp_path / ".idumb/brain/execution-metrics.json", {"agentSpawns": {"byAgent": {"a": "x"}}}
    )
    h = IdumbSource(tmp_path).header(T0)
    facts = {f.label: f.value for f in h.facts}
    assert facts["framework"] == "7" and facts["phase"] == "unknown"
    assert facts["validations"] == "3" and facts["anchors"] == "1 none, 1 urgent"
    # a count of spawns that is not a number, with no total: not known, not 0
    assert facts["history"] == "none" and facts["agent spawns"] == "—"
    assert any("history is not a list" in a for a in h.alerts)
    write(tmp_path / ".idumb/brain/state.json", b"\x1b]0;x\x07 not json")
    h = IdumbSource(tmp_path).header(T0)
    assert any("not valid JSON" in a for a in h.alerts)


def test_a_fifo_never_blocks(tmp_path):
    (tmp_path / ".idumb/brain").mkdir(parents=True)
    os.mkfifo(tmp_path / ".idumb/brain/state.json")
    h = IdumbSource(tmp_path).header(T0)
    assert h is not None and any("not a regular file" in a for a in h.alerts)


# -- what a change means -------------------------------------------------------------------------


def test_touched_and_accept(tmp_path):
    session(tmp_path)
    write(tmp_path / ".idumb/brain/execution-metrics.json", METRICS)
    src = IdumbSource(tmp_path)
    b = tmp_path / ".idumb"
    src.header(T0)  # reads the shared files
    t = src.touched([b / "sessions" / f"{SID}.json"])
    assert t.keys == {SID} and t.relist and not t.everything
    t = src.touched([b / "brain/state.json"])
    assert t.header and not t.keys and not t.everything
    src.begin_scan()  # the shared files are read again, the metrics' last owner is kept
    write(b / "brain/execution-metrics.json", dict(METRICS, sessionId="ses_new"))
    t = src.touched([b / "brain/execution-metrics.json"])
    assert t.keys == {SID, "ses_new"} and t.header
    t = src.touched([b / "brain/execution/phase-1/checkpoint-x.json"])
    assert t.everything and t.header
    assert src.touched([b / "brain/delegations.json"]).everything
    assert src.accept(str(b / "sessions" / "x.json"))
    assert src.accept(str(b / "execution/halt-1/halt-context.json"))
    assert not src.accept(str(b / "sessions" / ".x.json.123.tmp"))
    assert not src.accept(str(b / "brain/tasks.json"))
    assert not src.accept(str(b / "brain/audit/2026-02-07/writes.jsonl"))
    assert src.watch_dirs() == [b] and IdumbSource.present_in(tmp_path)


def test_views_encode_as_json(tmp_path):
    session(tmp_path, compactedAt="2026-02-05T18:25:00Z", contextSize=1)
    write(tmp_path / ".idumb/brain/state.json", ALPHA_STATE)
    v, src = view(tmp_path, T0)
    msgspec.json.encode(v)
    msgspec.json.encode(src.header(T0))
