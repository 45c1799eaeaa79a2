"""Elapsed time, timestamps, last activity and stalled: all against a fixed `now`."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from ocr_tui.core.timeutil import fmt_ts, parse_ts

from .builders import FIXED, ago, final_md, iso, sqlite_ts

SID = "2026-03-10-main"
NOW = iso(FIXED)  # 2026-03-10T12:00:00Z


def has_problem(view, *words: str) -> bool:
    return any(all(w in p for w in words) for p in view.problems)


# --- timestamp parsing ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("2026-03-10T11:00:00Z", "2026-03-10T11:00:00Z"),
        ("2026-03-10T11:00:00z", "2026-03-10T11:00:00Z"),
        ("2026-03-10T11:00:00.123Z", "2026-03-10T11:00:00Z"),
        ("2026-03-10T11:00:00.123456789Z", "2026-03-10T11:00:00Z"),
        ("2026-03-10T13:00:00+02:00", "2026-03-10T11:00:00Z"),
        ("2026-03-10T06:30:00-04:30", "2026-03-10T11:00:00Z"),
        ("2026-03-10T11:00:00", "2026-03-10T11:00:00Z"),  # no zone = UTC
        ("2026-03-10 11:00:00", "2026-03-10T11:00:00Z"),  # SQLite's datetime('now')
        ("  2026-03-10T11:00:00Z  ", "2026-03-10T11:00:00Z"),
        ("2026-03-10T11:00Z", "2026-03-10T11:00:00Z"),
    ],
)
def test_parse_timestamp_forms(text, expected):
    assert fmt_ts(parse_ts(text)) == expected


@pytest.mark.parametrize(
    "text", [None, "", "yesterday", "{ISO-8601}", "2026-13-40T00:00:00Z", "1741600800"]
)
def test_unparsable_timestamps(text):
    assert parse_ts(text) is None


def test_timestamps_are_normalised_to_utc_in_the_view(tree):
    tree.session(SID).state(
        current_phase="reviews",
        status="active",
        started_at="2026-03-10T10:00:00.5+01:00",
        updated_at="2026-03-10 11:30:00",
    )
    v = tree.view(SID)
    assert (v.started_at, v.updated_at) == ("2026-03-10T09:00:00Z", "2026-03-10T11:30:00Z")


# --- elapsed: which start -------------------------------------------------------------------


def test_review_round_started_at(tree):
    tree.session(SID).state(
        workflow_type="review",
        status="active",
        current_phase="reviews",
        started_at=iso(ago(hours=5)),
        round_started_at=iso(ago(minutes=12)),
        map_started_at=iso(ago(hours=3)),
    )
    e = tree.view(SID).elapsed
    assert (e.since, e.seconds, e.running) == (iso(ago(minutes=12)), 12 * 60, True)


def test_review_without_round_start_uses_started_at(tree):
    tree.session(SID).state(
        status="active", current_phase="analysis", started_at="2026-03-10T11:15:00Z"
    )
    e = tree.view(SID).elapsed
    assert (e.since, e.seconds, e.running) == ("2026-03-10T11:15:00Z", 45 * 60, True)


def test_map_uses_map_started_at(tree):
    tree.session(SID).state(
        workflow_type="map",
        status="active",
        current_phase="topology",
        started_at=iso(ago(hours=5)),
        round_started_at=iso(ago(hours=4)),
        map_started_at=iso(ago(minutes=3)),
    )
    e = tree.view(SID).elapsed
    assert (e.since, e.seconds) == (iso(ago(minutes=3)), 180)


def test_map_without_map_start_uses_started_at(tree):
    tree.session(SID).state(
        workflow_type="map",
        current_phase="flow-analysis",
        started_at=iso(ago(minutes=20)),
        round_started_at=iso(ago(minutes=2)),
    )
    assert tree.view(SID).elapsed.seconds == 20 * 60


def test_no_state_uses_the_earliest_file_time(tree):
    s = tree.session(SID)
    s.write("discovered-standards.md", "x", mtime=ago(minutes=40))
    s.write("context.md", "x", mtime=ago(minutes=25))
    s.round(1, reviewers={"principal-1": "x"}, mtime=ago(minutes=5))
    v = tree.view(SID)
    assert v.source == "files"
    assert (v.elapsed.since, v.elapsed.seconds, v.elapsed.running) == (
        iso(ago(minutes=40)),
        40 * 60,
        True,
    )
    assert v.started_at is None and v.updated_at is None
    assert v.last_activity == iso(ago(minutes=5))


def test_empty_session_has_no_elapsed(tree):
    tree.session(SID)
    v = tree.view(SID)
    assert (v.elapsed.since, v.elapsed.seconds, v.elapsed.running) == (None, None, True)
    assert v.last_activity is None and v.stalled is False


def test_state_without_any_timestamp_uses_file_times(tree):
    s = tree.session(SID)
    s.state(current_phase="reviews", mtime=ago(minutes=7))
    s.write("context.md", "x", mtime=ago(minutes=9))
    assert tree.view(SID).elapsed.seconds == 9 * 60


@pytest.mark.parametrize(
    "started, since",
    [
        ("2026-03-10T11:00:00Z", "2026-03-10T11:00:00Z"),
        ("2026-03-10T13:00:00+02:00", "2026-03-10T11:00:00Z"),
        ("2026-03-10T11:00:00.999Z", "2026-03-10T11:00:00Z"),
        ("2026-03-10T11:00:00", "2026-03-10T11:00:00Z"),
        ("2026-03-10 11:00:00", "2026-03-10T11:00:00Z"),
    ],
)
def test_elapsed_accepts_every_timestamp_form(tree, started, since):
    tree.session(SID).state(status="active", current_phase="reviews", started_at=started)
    e = tree.view(SID).elapsed
    assert e.since == since and e.seconds in (3600, 3599)  # fractions are truncated down


# --- elapsed: running vs finished -----------------------------------------------------------


def test_finished_session_counts_to_updated_at(tree):
    s = tree.session(SID)
    s.round(1, final=final_md(), mtime=ago(minutes=1))
    s.state(
        status="closed",
        current_phase="complete",
        started_at=iso(ago(hours=2)),
        round_started_at=iso(ago(hours=1, minutes=30)),
        updated_at=iso(ago(hours=1)),
    )
    e = tree.view(SID).elapsed
    assert (e.since, e.seconds, e.running) == (iso(ago(hours=1, minutes=30)), 30 * 60, False)


def test_finished_without_updated_at_counts_to_last_activity(tree):
    s = tree.session(SID)
    s.state(
        status="closed", current_phase="complete", started_at=iso(ago(hours=3)), mtime=ago(hours=2)
    )
    s.write("rounds/round-1/final.md", final_md(), mtime=ago(hours=1))
    e = tree.view(SID).elapsed
    assert (e.seconds, e.running) == (2 * 3600, False)


def test_closed_early_is_not_running(tree):
    tree.session(SID).state(
        status="closed",
        current_phase="reviews",
        started_at=iso(ago(minutes=50)),
        updated_at=iso(ago(minutes=40)),
    )
    v = tree.view(SID)
    assert (v.elapsed.seconds, v.elapsed.running, v.stalled) == (600, False, False)


def test_complete_but_active_map_is_not_running(tree):
    tree.session(SID).state(
        workflow_type="map",
        status="active",
        current_phase="complete",
        map_started_at=iso(ago(minutes=30)),
        updated_at=iso(ago(minutes=10)),
    )
    e = tree.view(SID).elapsed
    assert (e.seconds, e.running) == (20 * 60, False)


def test_files_only_finished_session_counts_to_last_file(tree):
    s = tree.session(SID)
    s.write("discovered-standards.md", "x", mtime=ago(hours=3))
    s.round(1, reviewers={"principal-1": "x"}, final=final_md(), mtime=ago(hours=2))
    e = tree.view(SID).elapsed
    assert (e.since, e.seconds, e.running) == (iso(ago(hours=3)), 3600, False)


def test_updated_before_since_is_zero_not_negative(tree):
    tree.session(SID).state(
        status="closed",
        current_phase="complete",
        round_started_at=iso(ago(minutes=10)),
        updated_at=iso(ago(minutes=20)),
    )
    assert tree.view(SID).elapsed.seconds == 0


# --- elapsed: bad timestamps ----------------------------------------------------------------


def test_future_start_gives_zero_and_a_problem(tree):
    tree.session(SID).state(
        status="active", current_phase="reviews", started_at=iso(ago(minutes=-30))
    )
    v = tree.view(SID)
    assert v.elapsed.seconds == 0 and v.elapsed.since == "2026-03-10T12:30:00Z"
    assert has_problem(v, "started_at", "future")


def test_future_round_start_gives_zero_and_a_problem(tree):
    tree.session(SID).state(
        status="active",
        current_phase="reviews",
        started_at=iso(ago(hours=1)),
        round_started_at=iso(ago(hours=-5)),
    )
    v = tree.view(SID)
    assert v.elapsed.seconds == 0 and has_problem(v, "round_started_at", "future")
    assert not any(p.startswith("started_at") for p in v.problems)  # the session start is fine


def test_future_start_of_a_finished_session(tree):
    tree.session(SID).state(
        status="closed",
        current_phase="complete",
        started_at=iso(ago(hours=-1)),
        updated_at=iso(ago(minutes=5)),
    )
    v = tree.view(SID)
    assert v.elapsed.seconds == 0 and has_problem(v, "future")


def test_future_file_time_gives_zero_and_a_problem(tree):
    tree.session(SID).write("context.md", "x", mtime=ago(hours=-2))
    v = tree.view(SID)
    assert v.elapsed.seconds == 0
    assert has_problem(v, "future") and not has_problem(v, "started_at")


def test_future_updated_at_is_a_problem(tree):
    tree.session(SID).state(
        status="active",
        current_phase="reviews",
        started_at=iso(ago(hours=1)),
        updated_at=iso(ago(days=-1)),
    )
    v = tree.view(SID)
    assert v.elapsed.seconds == 3600 and has_problem(v, "updated_at", "future")


@pytest.mark.parametrize("field", ["started_at", "round_started_at"])
def test_unparsable_start_gives_null_and_a_problem(tree, field):
    s = tree.session(SID)
    s.write("context.md", "x", mtime=ago(minutes=10))
    fields = {"status": "active", "current_phase": "reviews", "started_at": iso(ago(hours=1))}
    fields[field] = "{ISO-8601-TIMESTAMP}"
    s.state(**fields)
    v = tree.view(SID)
    assert (v.elapsed.since, v.elapsed.seconds) == (None, None)
    assert has_problem(v, field, "not a timestamp")


def test_unparsable_updated_at_is_a_problem_and_file_times_give_last_activity(tree):
    s = tree.session(SID)
    s.state(
        status="active",
        current_phase="reviews",
        started_at=iso(ago(hours=1)),
        updated_at="later",
        mtime=ago(minutes=3),
    )
    v = tree.view(SID)
    assert v.updated_at is None and v.last_activity == iso(ago(minutes=3))
    assert has_problem(v, "updated_at", "later")


# --- last activity and stalled --------------------------------------------------------------


def test_last_activity_is_the_newest_of_updated_at_and_files(tree):
    s = tree.session(SID)
    s.state(
        status="active",
        current_phase="reviews",
        started_at=iso(ago(hours=1)),
        updated_at=iso(ago(minutes=20)),
        mtime=ago(minutes=20),
    )
    s.write("rounds/round-1/reviews/principal-1.md", "x", mtime=ago(minutes=4))
    assert tree.view(SID).last_activity == iso(ago(minutes=4))
    s.write("rounds/round-1/reviews/principal-1.md", "x", mtime=ago(minutes=50))
    assert tree.view(SID).last_activity == iso(ago(minutes=20))


def test_last_activity_sees_files_deep_in_rounds_and_runs(tree):
    s = tree.session(SID)
    s.write("context.md", "x", mtime=ago(hours=2))
    s.write("map/runs/run-1/topology.md", "x", mtime=ago(minutes=1))
    assert tree.view(SID).last_activity == iso(ago(minutes=1))


@pytest.mark.parametrize(
    "minutes_idle, stall_after, stalled",
    [
        (29, None, False),
        (31, None, True),
        (30, None, False),  # exactly at the threshold is not yet stalled
        (4, 180.0, True),
        (2, 180.0, False),
    ],
)
def test_stalled(tree, minutes_idle, stall_after, stalled):
    s = tree.session(SID)
    s.state(
        status="active",
        current_phase="reviews",
        started_at=iso(ago(hours=2)),
        updated_at=iso(ago(minutes=minutes_idle)),
        mtime=ago(minutes=minutes_idle),
    )
    kw = {} if stall_after is None else {"stall_after": stall_after}
    assert tree.view(SID, **kw).stalled is stalled


@pytest.mark.parametrize(
    "state",
    [
        {"status": "closed", "current_phase": "reviews"},
        {"status": "active", "current_phase": "complete"},
    ],
)
def test_not_running_is_never_stalled(tree, state):
    tree.session(SID).state(updated_at=iso(ago(days=3)), mtime=ago(days=3), **state)
    assert tree.view(SID).stalled is False


def test_files_only_session_stalls(tree):
    tree.session(SID).write("context.md", "x", mtime=ago(hours=1))
    v = tree.view(SID)
    assert v.running and v.stalled


def test_clock_is_the_engine_clock(tree):
    tree.session(SID).state(status="active", current_phase="reviews", started_at=iso(ago(hours=1)))
    later = datetime(2026, 3, 10, 13, 0, 0, tzinfo=UTC)
    engine = tree.engine(now=later)
    (v,) = engine.scan()
    assert v.elapsed.seconds == 2 * 3600
    assert engine.snapshot().generated_at == "2026-03-10T13:00:00Z"


def test_sqlite_form_is_utc_not_local_time_upstream_b2(tree, monkeypatch):
    import time

    monkeypatch.setenv("TZ", "America/New_York")
    if hasattr(time, "tzset"):
        time.tzset()
    try:
        tree.session(SID).state(
            status="active", current_phase="reviews", started_at=sqlite_ts(ago(minutes=30))
        )
        assert tree.view(SID).elapsed.seconds == 30 * 60
    finally:
        monkeypatch.undo()
        if hasattr(time, "tzset"):
            time.tzset()


def test_restale_flips_stalled_as_time_passes_without_file_events(tree):
    s = tree.session(SID)
    s.state(status="active", current_phase="reviews", updated_at=NOW, mtime=FIXED)
    tree.session("2026-03-10-closed").state(status="closed", current_phase="complete")
    clock = [FIXED]
    engine = tree.engine()
    engine.clock = lambda: clock[0]
    views = {v.id: v for v in engine.scan()}
    assert views[SID].stalled is False
    clock[0] = datetime(2026, 3, 10, 12, 20, tzinfo=UTC)
    assert engine.restale() == []
    clock[0] = datetime(2026, 3, 10, 12, 31, tzinfo=UTC)
    (changed,) = engine.restale()
    assert changed.id == SID and changed.stalled is True
    assert changed.elapsed.running is True
    assert engine.restale() == []
