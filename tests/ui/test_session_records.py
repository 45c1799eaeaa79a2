"""The session screen shows what OCR records (4, 5 on screen): the phase
timeline with when each phase was entered, how long it took and a bar; the event log on `l`;
the running agents with their heartbeat and staleness; the user's notes; the rounds' triage.
Driven by keys in the real app on the sample project, with ocr.db tables at the newest schema
holding hostile values; live changes through ocr.db replaced whole; a session without these
tables (state.json) shows none of it and says why `l` does nothing."""

from __future__ import annotations

import json
from datetime import timedelta

from textual.pilot import Pilot

from ocr_tui.cli import make_app
from ocr_tui.core.project import Project
from ocr_tui.ui.fmt import KEEP_TOGETHER
from ocr_tui.ui.screens.events.screen import EventsScreen
from ocr_tui.ui.screens.ocr.agents.pane import AgentsPane
from ocr_tui.ui.screens.ocr.round.screen import RoundScreen
from ocr_tui.ui.screens.session.screen import SessionScreen
from ocr_tui.ui.widgets.fit_table import FitTable
from ocr_tui.ui.widgets.notes_pane import NotesPane

from .builders import NOW, SIZE, fixed_clock, loaded, wait_until
from .records_db import AUTH, MAP, give_records, replace_db

ESC = "\x1b"


def ts(minutes_ago: float) -> str:
    """ocr.db's time: `YYYY-MM-DD HH:MM:SS`, UTC."""
    return (NOW - timedelta(minutes=minutes_ago)).strftime("%Y-%m-%d %H:%M:%S")


def q(value: object) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, int):
        return str(value)
    return "'" + str(value).replace("'", "''") + "'"


ALIVE = 1  # init: there on every machine (a snapshot needs pids that do not change)
GONE = 99_999_999  # above Linux's largest pid (2**22): never a process


def records_sql() -> str:
    """Events, running agents and notes of the feat-auth session, at the newest schema (the
    unmerged 10–11 columns of command_executions), with hostile values among them."""
    events = [
        ("session_created", None, None, None, 50),
        ("phase_transition", "change-context", 1, None, 49),
        ("phase_transition", "analysis", 1, None, 46),
        ("round_started", None, 1, None, 45),
        ("phase_transition", "reviews", 1, None, 44),
        ("round_completed", None, 1, json.dumps({
            "verdict": f"{ESC}[31mREQUEST CHANGES", "blocker_count": 10**15,
            "should_fix_count": 2, "suggestion_count": "three", "source": "orchestrator",
        }), 30),
        ("round_started", None, 2, None, 20),
        ("phase_transition", "reviews", 2, "{not json", 19),
        (f"custom{ESC}]0;pwn{chr(7)}", None, None, json.dumps({"why": [1, 2], "n": 3}), 18),
    ]  # fmt: skip
    sql = [
        "CREATE TABLE orchestration_events (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id "
        "TEXT, event_type TEXT, phase TEXT, phase_number INT, round INT, metadata TEXT, "
        "created_at TEXT);",
        "CREATE TABLE command_executions (id INTEGER PRIMARY KEY AUTOINCREMENT, command TEXT, "
        "args TEXT, exit_code INTEGER, started_at TEXT, finished_at TEXT, output TEXT, pid "
        "INTEGER, is_detached INTEGER, uid TEXT, workflow_id TEXT, parent_id INTEGER, vendor "
        "TEXT, vendor_session_id TEXT, persona TEXT, instance_index INTEGER, name TEXT, "
        "resolved_model TEXT, last_heartbeat_at TEXT, notes TEXT);",
        "CREATE TABLE user_notes (id INTEGER PRIMARY KEY AUTOINCREMENT, target_type TEXT, "
        "target_id TEXT, content TEXT, created_at TEXT, updated_at TEXT);",
    ]
    for kind, phase, rnd, meta, ago in events:
        sql.append(
            "INSERT INTO orchestration_events (session_id, event_type, phase, round, metadata, "
            f"created_at) VALUES ({q(AUTH)}, {q(kind)}, {q(phase)}, {q(rnd)}, {q(meta)}, "
            f"{q(ts(ago))});"
        )
    agents = [  # (persona, model, pid, heartbeat minutes ago)
        ("principal", "claude-x", ALIVE, 0.3),
        (f"quality{ESC}[2J", None, GONE, 0.2),
        ("security", "model-y", None, 5),
    ]
    for persona, model, pid, beat in agents:
        sql.append(
            "INSERT INTO command_executions (command, started_at, workflow_id, persona, "
            f"resolved_model, pid, last_heartbeat_at) VALUES ('review', {q(ts(12))}, "
            f"{q(AUTH)}, {q(persona)}, {q(model)}, {q(pid)}, {q(ts(beat))});"
        )
    notes = [
        ("session", AUTH, f"Re-run after the rebase.{ESC}[2J\nSecond line.", 5),
        ("round", "2", "Round 2: triaged with the team.", 4),
        ("round", "1", "Round 1 note.", 3),
    ]
    for kind, target, text, ago in notes:
        sql.append(
            "INSERT INTO user_notes (target_type, target_id, content, created_at, updated_at) "
            f"VALUES ({q(kind)}, {q(target)}, {q(text)}, {q(ts(ago))}, {q(ts(ago))});"
        )
    return "\n".join(sql)


def give_session_records(project: Project) -> None:
    give_records(project)  # triage of feat-auth's rounds: changes made, needs review
    replace_db(project.db_path, records_sql())


def rendered(app, selector: str) -> str:
    return str(app.screen.query_one(selector).render())


def column(app, table_id: str, key: str) -> list[str]:
    """The column's cells as read (a blank that keeps a phrase together is a space)."""
    t = app.screen.query_one(table_id, FitTable)
    cells = [t.get_cell(k, key).plain for k in t.row_keys] if t.display else []
    return [c.replace(KEEP_TOGETHER, " ") for c in cells]


async def open_auth(pilot: Pilot) -> SessionScreen:
    app = pilot.app
    await loaded(pilot)
    app.open_session(AUTH)
    await wait_until(
        pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
    )
    await wait_until(
        pilot,
        lambda: app.screen._last_meta is not None,
        what="the session screen to show the session",
    )
    await pilot.pause()
    return app.screen


async def test_the_session_screen_shows_timeline_agents_notes_and_triage(
    project: Project,
) -> None:
    give_session_records(project)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await open_auth(pilot)
        # the timeline: entered (the clock: one day, named in the title), took, a bar
        pane = screen.query_one("#timeline-pane")
        assert pane.border_title == "Phases of R2 · entered (UTC) · took"  # whose times
        lines = rendered(app, "#timeline").splitlines()
        # round 2 (the current one) went from its start to the reviews: the phases between
        # were not entered in it, and say nothing; the labels' column has room for every
        # OCR phase's (`4 Requirements Mapping`, a map's), so a map after it moves nothing
        assert [line.rstrip() for line in lines] == [
            "✓ 1 Context Discovery     14:40   1m 00s ▍",
            "✓ 2 Change Context",
            "✓ 3 Tech Lead Analysis",
            "▶ 4 Parallel Reviews      14:41      19m ██████",
            "· 5 Aggregate Findings",
            "· 6 Reviewer Discourse",
            "· 7 Final Synthesis",
            "· 8 Complete",
        ]
        assert pane.border_subtitle == ""  # recorded, not guessed: nothing approximate
        # running agents: fresh, the process gone, no heartbeat for 5 minutes
        agents = screen.query_one(AgentsPane)
        assert agents.display and agents.border_title == "Running agents · 3 · 2 stale"
        assert column(app, "#agents", "persona") == ["principal", "quality␛[2J", "security"]
        assert column(app, "#agents", "state") == [
            f"● pid {ALIVE}",
            f"⚠ pid {GONE} gone",
            "⚠ stale",
        ]
        assert column(app, "#agents", "beat") == ["18s ago", "12s ago", "5m ago"]
        assert column(app, "#agents", "model") == ["claude-x", "—", "model-y"]
        # notes, every one with what it is on; escape sequences shown, never sent
        notes = rendered(app, "#notes-pane-text")
        assert "session · 14:55 UTC (5m ago)\nRe-run after the rebase.␛[2J\nSecond line." in notes
        assert "round 2 · 14:56 UTC (4m ago)\nRound 2: triaged with the team." in notes
        assert ESC not in notes
        # the rounds' triage, under the verdict, in words
        rounds = screen.query_one("#rounds", FitTable)
        assert [str(c.label) for c in rounds.columns.values()][4] == "Verdict · triage"
        assert column(app, "#rounds", "verdict") == ["REQUEST CHANGES\nchanges made",
                                                      "in progress\nneeds review"]  # fmt: skip


async def test_the_event_log_by_keys(project: Project) -> None:
    give_session_records(project)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_auth(pilot)
        assert "l" in screen.active_bindings
        await pilot.press("l")
        await wait_until(
            pilot, lambda: isinstance(app.screen, EventsScreen), what="the event log to open"
        )
        await pilot.pause()
        assert app.screen.query_one("#crumbs").plain == f"Sessions › {AUTH} › Events"
        assert rendered(app, "#events-count") == ("9 events, newest first, as OCR recorded them")
        what = column(app, "#events", "what")
        assert what == [
            "custom␛]0;pwn␇", "entered 4 Parallel Reviews", "round 2 started",
            "round 1 completed", "entered 4 Parallel Reviews", "round 1 started",
            "entered 3 Tech Lead Analysis", "entered 2 Change Context", "session created",
        ]  # fmt: skip
        details = column(app, "#events", "details")
        done = details[what.index("round 1 completed")]
        # the verdict safe, a huge count as it is, a count of the wrong type left out
        assert done == (
            "␛[31mREQUEST CHANGES · 1000000000000000 blockers · 2 should fix · from orchestrator"
        )
        assert details[0] == "n 3"  # a list in the metadata is left out; bad JSON: nothing
        assert details[1] == "round 2"
        assert column(app, "#events", "at")[-1] == "14:10"
        for cells in (what, details):
            assert not any(ESC in c for c in cells)

        # Enter on an event about a round opens it; Esc comes back to the log, then the session
        await pilot.press("j", "j", "j")
        assert app.screen.query_one("#events", FitTable).cursor_row == 3
        await pilot.press("enter")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, RoundScreen),
            what="the round screen to open from the event",
        )
        assert app.screen.round_number == 1
        await pilot.press("escape")
        await wait_until(
            pilot, lambda: isinstance(app.screen, EventsScreen), what="the event log to be back"
        )
        await pilot.press("escape")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, SessionScreen),
            what="the session screen to be back",
        )


async def test_live_an_event_an_agent_finishing_and_a_note(project: Project) -> None:
    """ocr.db replaced whole (as OCR's writer does) with a new event, an agent finished and a
    new note: the open screens show each without a key pressed."""
    give_session_records(project)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_auth(pilot)
        await pilot.press("l")
        await wait_until(
            pilot, lambda: isinstance(app.screen, EventsScreen), what="the event log to open"
        )
        replace_db(
            project.db_path,
            "INSERT INTO orchestration_events (session_id, event_type, round, metadata, "
            f"created_at) VALUES ({q(AUTH)}, 'round_completed', 2, "
            f"{q(json.dumps({'verdict': 'APPROVE', 'blocker_count': 0}))}, {q(ts(1))});"
            f"UPDATE command_executions SET finished_at = {q(ts(0.5))}, exit_code = 0 "
            "WHERE persona = 'security';"
            "INSERT INTO user_notes (target_type, target_id, content, created_at) VALUES "
            f"('session', {q(AUTH)}, 'A new note.', {q(ts(0.1))});",
        )
        await wait_until(
            pilot,
            lambda: column(app, "#events", "what")[:1] == ["round 2 completed"],
            what="the event log to show round 2 completed first",
        )
        assert column(app, "#events", "details")[0] == "APPROVE · 0 blockers"
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen, what="the session screen to be back")
        await pilot.pause()
        assert screen.query_one(AgentsPane).border_title == "Running agents · 2 · 1 stale"
        assert "A new note." in rendered(app, "#notes-pane-text")


async def test_the_round_screen_shows_its_notes_and_triage(project: Project) -> None:
    give_session_records(project)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await open_auth(pilot)
        await pilot.press("c")  # the current round: 2
        await wait_until(
            pilot, lambda: isinstance(app.screen, RoundScreen), what="the round screen to open"
        )
        await pilot.pause()
        notes = app.screen.query_one(NotesPane)
        assert notes.display and notes.border_title == "Notes · 1"
        assert "Round 2: triaged with the team." in rendered(app, "#round-notes-text")
        assert "Round 1 note." not in rendered(app, "#round-notes-text")
        assert "triage: needs review" in rendered(app, "#verdict")


async def test_a_session_without_records_shows_none_and_says_why(project: Project) -> None:
    """The sample project without ocr.db: state.json sessions have no event log, agents or
    notes; `l` is hidden and, pressed, says why; the times are guessed and marked `~`."""
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_auth(pilot)
        assert not screen.query_one(AgentsPane).display
        assert not screen.query_one("#notes-pane").display
        assert "l" not in screen.active_bindings
        await pilot.press("l")
        await pilot.pause()
        assert app.screen is screen
        messages = [n.message for n in app._notifications]
        assert any("only OCR's ocr.db (OCR 1.5+) records an event log" in m for m in messages)
        timeline = rendered(app, "#timeline")
        assert "~" in timeline  # the times guessed from the files, said so
        assert screen.query_one("#timeline-pane").border_subtitle.startswith("~ approximate")


def test_snapshot_session_with_records(project: Project, snap_compare) -> None:
    give_session_records(project)

    async def run_before(pilot: Pilot) -> None:
        await open_auth(pilot)

    assert snap_compare(make_app(project, clock=fixed_clock), terminal_size=(160, 50),
                        run_before=run_before)  # fmt: skip


def test_snapshot_event_log(project: Project, snap_compare) -> None:
    give_session_records(project)

    async def run_before(pilot: Pilot) -> None:
        await open_auth(pilot)
        await pilot.press("l")
        await wait_until(
            pilot, lambda: isinstance(pilot.app.screen, EventsScreen), what="the event log to open"
        )
        await pilot.pause()

    assert snap_compare(make_app(project, clock=fixed_clock), terminal_size=SIZE,
                        run_before=run_before)  # fmt: skip


async def test_the_oldest_schema_and_a_database_without_these_tables(project: Project) -> None:
    """command_executions as migration 1 made it (no pid, heartbeat, persona or model): the
    agent runs, nothing said of what is not known. ocr.db without the events, agents and notes
    tables: no error, nothing shown, `l` says OCR recorded nothing yet."""
    give_records(project)  # ocr.db with triage and map tables only
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_auth(pilot)
        assert app.sessions[AUTH].source == "ocr.db" and not app.sessions[AUTH].problems
        assert not screen.query_one(AgentsPane).display
        assert not screen.query_one("#notes-pane").display
        await pilot.press("l")
        await pilot.pause()
        assert app.screen is screen
        messages = [n.message for n in app._notifications]
        assert "OCR has recorded no event for this session yet." in messages

        replace_db(
            project.db_path,
            "CREATE TABLE command_executions (id INTEGER PRIMARY KEY AUTOINCREMENT, command "
            "TEXT, args TEXT, exit_code INTEGER, started_at TEXT, finished_at TEXT, output TEXT);"
            f"INSERT INTO command_executions (command, started_at) VALUES ('review', {q(ts(3))});"
            # without workflow_id, an agent is the newest active session's: make it this one
            f"UPDATE sessions SET status = 'closed' WHERE id = {q(MAP)};",
        )
        await wait_until(
            pilot, lambda: screen.query_one(AgentsPane).display, what="the agents pane to show"
        )
        await pilot.pause()
        assert screen.query_one(AgentsPane).border_title == "Running agents · 1"
        row = [column(app, "#agents", key)[0] for key in ("command", "persona", "model")]
        assert row == ["review", "—", "—"]
        assert column(app, "#agents", "beat") == ["none"]
        assert column(app, "#agents", "state") == ["● running"]


async def test_the_notes_times_move_on_with_the_clock(project: Project) -> None:
    """The session screen's one-second tick moves a note's `(5m ago)` on, as the agents'."""
    give_session_records(project)
    now = [NOW]
    app = make_app(project, clock=lambda: now[0])
    async with app.run_test(size=(200, 60)) as pilot:
        screen = await open_auth(pilot)
        assert "session · 14:55 UTC (5m ago)" in rendered(app, "#notes-pane-text")
        now[0] = NOW + timedelta(minutes=10)
        screen._tick()  # what the one-second timer calls
        await pilot.pause()
        assert "session · 14:55 UTC (15m ago)" in rendered(app, "#notes-pane-text")
