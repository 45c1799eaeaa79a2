"""What is on screen is the engine's sessions, always: random interleavings of
new sessions, changes, removals, sorts, filters, searches and scrolling, and after each step the
list's lines as a terminal shows them (`screen_record`: what the app wrote, not what the table
would draw if asked) are exactly the sessions the query leaves, in its order, from the scroll
position: each row's id and phase, and blank lines under the last.

Left open beside a looping simulator, the list once stopped showing new sessions: the cursor
stayed on its session as new ones were inserted above it, each insertion moved it a row down,
and once it reached the bottom line the view scrolled with it, so the same rows stayed on
screen while the newest (the active one among them) went above the top. The view now holds
still as the data moves: at the top it stays at the top; scrolled, the first unchanged row in
view keeps its line. The checks after each data step say so too.

The sessions are the watcher's messages (`SessionsChanged`), posted as the watcher posts them:
the app's own handling, the main screen and the table are all the real ones.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field
from datetime import timedelta

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from textual.geometry import Region

from ocr_tui.cli import make_app
from ocr_tui.core import display
from ocr_tui.core.project import Project
from ocr_tui.core.view import Elapsed, SessionView
from ocr_tui.ui.app import OcrTuiApp
from ocr_tui.ui.messages import SessionsChanged

from .builders import NOW, fixed_clock, iso, make_project, wait_until
from .screen_record import Terminal, record

FUZZ = os.environ.get("HYPOTHESIS_PROFILE") == "fuzz"
SIZE = (160, 40)  # the terminal: ~20 rows of the list
PHASES = (
    ("context", "Context Discovery", 1),
    ("reviews", "Parallel Reviews", 4),
    ("synthesis", "Final Synthesis", 7),
    ("complete", "Complete", 8),
)
BASE = NOW - timedelta(days=20)  # activity times count up from here: "newest" is the latest


def session(n: int, minute: int, phase: int, status: str, started: int) -> SessionView:
    key, label, number = PHASES[phase]
    at = iso(BASE + timedelta(minutes=minute))
    return SessionView(framework="ocr",
        id=f"2026-03-10-task-{n:03d}", branch=f"task-{n:03d}", source="state.json",
        status=status, workflow="review", phase=key, phase_label=label, phase_number=number,
        phase_total=8, complete=key == "complete",
        started_at=iso(BASE + timedelta(minutes=started)), updated_at=at, last_activity=at,
        stalled=False,
        elapsed=Elapsed(since=None, seconds=60, running=False), current_round=1, rounds=[],
        current_map_run=None, map_runs=[], problems=[], path=f"/p/{n}",
    )  # fmt: skip


# -- the steps -------------------------------------------------------------------------------

# (kind, …): data steps are what the watcher would post; the others are the user's.
NEW = st.tuples(
    st.just("new"),
    st.integers(1, 3),  # how many
    st.booleans(),  # the newest activity (as a live session), else somewhere in the past
    st.integers(0, 3),  # phase
    st.sampled_from(["active", "closed"]),
)
CHANGE = st.tuples(
    st.just("change"),
    st.integers(0, 10_000),  # which (of those there are)
    st.booleans(),  # new activity (the row moves to the top by activity), else only its cells
    st.integers(0, 3),
    st.sampled_from(["active", "closed"]),
)
REMOVE = st.tuples(st.just("remove"), st.integers(0, 10_000))
DATA = st.one_of(NEW, NEW, CHANGE, CHANGE, REMOVE)
BURST = st.tuples(st.just("burst"), st.lists(DATA, min_size=2, max_size=6))
KEYS = ["s", "S", "f", "1", "2", "3", "down", "up", "j", "k", "pagedown", "pageup"]
KEYS += ["ctrl+home", "ctrl+end", "g", "G"]
KEY = st.tuples(st.just("key"), st.sampled_from(KEYS))
WHEEL = st.tuples(st.just("wheel"), st.integers(-6, 6))
SEARCH = st.tuples(st.just("search"), st.sampled_from(["0", "1", "task-01", "2", "zz"]))
CLEAR = st.tuples(st.just("clear"))
STEP = st.one_of(DATA, DATA, DATA, BURST, KEY, KEY, KEY, WHEEL, SEARCH, CLEAR)
# the first sessions: more than fit (or fewer), all closed
START = st.tuples(
    st.just("new"), st.integers(12, 40), st.booleans(), st.integers(0, 3), st.just("closed")
)


@dataclass
class Model:
    """The sessions the watcher reported (what the engine holds), by id."""

    sessions: dict[str, SessionView] = field(default_factory=dict)
    minute: int = 0  # the newest activity so far
    made: int = 0  # sessions made so far (ids are never reused)

    def message(self, project: Project, step: tuple) -> SessionsChanged:
        kind = step[0]
        changed: list[SessionView] = []
        removed: list[str] = []
        ids = sorted(self.sessions)
        if kind == "new":
            _, count, newest, phase, status = step
            for _ in range(count):
                self.minute += 1
                minute = self.minute if newest else (self.made * 37) % max(1, self.minute)
                changed.append(session(self.made, minute, phase, status, self.made * 7 % 50))
                self.made += 1
        elif kind == "change" and ids:
            _, which, moves, phase, status = step
            old = self.sessions[ids[which % len(ids)]]
            key, label, number = PHASES[phase]
            fields = dict(status=status, phase=key, phase_label=label, phase_number=number)
            if moves:  # new activity: the row moves (to the top, by activity)
                self.minute += 1
                at = iso(BASE + timedelta(minutes=self.minute))
                fields.update(updated_at=at, last_activity=at)
            changed.append(msgspec.structs.replace(old, **fields))
        elif kind == "remove" and ids:
            removed.append(ids[step[1] % len(ids)])
        for view in changed:
            self.sessions[view.id] = view
        for sid in removed:
            del self.sessions[sid]
        return SessionsChanged(project, changed, removed, True)


# -- reading the screen ----------------------------------------------------------------------


def shown_rows(app: OcrTuiApp, terminal: Terminal) -> list[str]:
    """The list's rows as the terminal shows them (under its header), one line each."""
    table = app.main_screen.table
    if not table.display:
        return []
    region = table.region
    rows = table.scrollable_content_region.height - table.header_height
    return terminal.text(Region(region.x, region.y + table.header_height, region.width, rows))


def id_of(app: OcrTuiApp, line: str) -> str:
    """The session a row's line shows, by its id cell (the whole id, or without its prefix
    when the column drops it: then the one session whose id that is), else the cell's text."""
    table = app.main_screen.table
    x = 0
    for key, column in table.columns.items():
        width = column.get_render_width(table)
        if key == "id":
            cell = line[x : x + width].strip()
            named = [sid for sid in app.sessions if cell in (sid, display.id_core(sid))]
            return named[0] if len(named) == 1 else cell
        x += width
    raise AssertionError("no id column")


def check_screen(app: OcrTuiApp, terminal: Terminal, model: Model, step: tuple) -> None:
    screen = app.main_screen
    table = screen.table
    assert set(app.sessions) == set(model.sessions), "the app holds what the watcher reported"
    expected = screen.list_query.apply(model.sessions.values())
    lines = shown_rows(app, terminal)
    if not expected:
        assert not table.display, f"after {step}: an empty list is not shown"
        return
    top = table.scroll_offset.y
    in_view = expected[top : top + len(lines)]
    assert len(in_view) == min(len(lines), len(expected) - top), (
        f"after {step}: {len(lines)} lines from row {top} of {len(expected)}"
    )
    for i, line in enumerate(lines):
        if i >= len(in_view):
            assert not line.strip(), f"after {step}: line {i} under the last row shows {line!r}"
            continue
        view = in_view[i]
        cell = id_of(app, line)
        assert cell == view.id, (
            f"after {step}: line {i} (row {top + i}) shows {cell!r}, not {view.id}\n"
            + "\n".join(lines)
        )
        assert view.phase_label in line, f"after {step}: {view.id} is not at {view.phase_label}"


# -- the test --------------------------------------------------------------------------------


async def settle(pilot) -> None:
    """Every message posted so far handled and the frames they asked for written (each
    pause: the messages queued so far handled, then a frame; what they posted, the next)."""
    for _ in range(3):
        await pilot.pause(0)


async def play(project: Project, steps: list[tuple]) -> None:
    app = make_app(project, clock=fixed_clock)
    terminal = record(app, SIZE)
    model = Model()
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(
            pilot, lambda: app.status == "ready", what="the empty project to be watched"
        )
        for step in steps:
            table = app.main_screen.table
            before = (table.scroll_offset.y, table.highlighted_id if table.row_count else None)
            kind = step[0]
            data = kind in ("new", "change", "remove", "burst")
            if kind == "burst":  # posted back to back, as a busy watcher does
                for each in step[1]:
                    app.post_message(model.message(project, each))
            elif data:
                app.post_message(model.message(project, step))
            elif kind == "key":
                await pilot.press(step[1])
            elif kind == "wheel":
                table.scroll_relative(y=step[1], animate=False)
            elif kind == "search":
                await pilot.press("slash", *step[1], "enter")
            elif kind == "clear":
                await pilot.press("escape")
            await settle(pilot)
            check_screen(app, terminal, model, step)
            if data and table.row_count:
                top, cursor = before
                if top == 0:  # at the top, the newest rows show
                    assert table.scroll_offset.y == 0, f"after {step}: the view left the top"
                if cursor in {v.id for v in screen_views(app)}:
                    assert table.highlighted_id == cursor, f"after {step}: the cursor moved"


def screen_views(app: OcrTuiApp) -> list[SessionView]:
    return app.main_screen.visible()


@settings(
    max_examples=400 if FUZZ else 12,
    deadline=None,
    derandomize=not FUZZ,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(start=START, steps=st.lists(STEP, min_size=8, max_size=30 if not FUZZ else 60))
def test_the_screen_shows_the_lists_sessions_in_order(tmp_path, start, steps) -> None:
    project = make_project(tmp_path / "proj")  # empty: the sessions come as messages
    asyncio.run(play(project, [start, *steps]))


# -- the case, step by step ----------------------------------------------------------


async def start(project: Project, count: int):
    """The app, what its terminal shows, and `count` closed sessions (newest last made)."""
    app = make_app(project, clock=fixed_clock)
    terminal = record(app, SIZE)
    model = Model()
    return app, terminal, model, ("new", count, True, 3, "closed")


async def test_new_sessions_show_at_the_top_while_the_cursor_stays_on_its_session(tmp_path):
    project = make_project(tmp_path / "proj")
    app, terminal, model, first = await start(project, 8)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(
            pilot, lambda: app.status == "ready", what="the empty project to be watched"
        )
        app.post_message(model.message(project, first))
        await settle(pilot)
        table = app.main_screen.table
        await pilot.press("j", "j")  # the user picks a session, then leaves the screen alone
        chosen = table.highlighted_id
        for _ in range(30):  # a new live session every few seconds: far more than fit
            app.post_message(model.message(project, ("new", 1, True, 0, "active")))
            await settle(pilot)
            check_screen(app, terminal, model, "a new session")
            newest = max(model.sessions.values(), key=lambda v: v.last_activity or "")
            assert id_of(app, shown_rows(app, terminal)[0]) == newest.id
            assert table.highlighted_id == chosen
        rows = len(shown_rows(app, terminal))
        assert table.cursor_row >= rows  # below the screen now: the newest are on it
        await pilot.press("k")  # the next move of the cursor shows it again
        await settle(pilot)
        top = table.scroll_offset.y
        assert top <= table.cursor_row < top + rows
        check_screen(app, terminal, model, "k")


async def test_a_scrolled_list_keeps_the_rows_in_view_as_sessions_come(tmp_path):
    project = make_project(tmp_path / "proj")
    app, terminal, model, first = await start(project, 40)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(
            pilot, lambda: app.status == "ready", what="the empty project to be watched"
        )
        app.post_message(model.message(project, first))
        await settle(pilot)
        table = app.main_screen.table
        table.scroll_relative(y=10, animate=False)  # reading older sessions
        await settle(pilot)
        before = [id_of(app, line) for line in shown_rows(app, terminal)]
        for step in [("new", 2, True, 0, "active"), ("new", 1, False, 1, "closed")]:
            app.post_message(model.message(project, step))
            await settle(pilot)
            check_screen(app, terminal, model, step)
        moved = model.sessions[sorted(model.sessions)[39]]  # in view: its row leaves it
        app.post_message(model.message(project, ("change", 39, True, 2, "active")))
        await settle(pilot)
        check_screen(app, terminal, model, "a change")
        after = [id_of(app, line) for line in shown_rows(app, terminal)]
        still = [sid for sid in before if sid != moved.id]
        assert after[: len(still)] == still, "the rows in view stay on their lines"


async def test_a_click_opens_the_row_shown_where_it_was_clicked_after_rows_moved(tmp_path):
    """A row kept drawn while rows were added above it says which it is by its key: a click
    on it highlights the session shown there, not the one at its old place."""
    project = make_project(tmp_path / "proj")
    app, terminal, model, first = await start(project, 30)  # the list as tall as it gets
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(
            pilot, lambda: app.status == "ready", what="the empty project to be watched"
        )
        app.post_message(model.message(project, first))
        await settle(pilot)
        table = app.main_screen.table
        for _ in range(2):  # (two rows: each row kept drawn keeps its stripe too)
            app.post_message(model.message(project, ("new", 1, True, 0, "active")))
            await settle(pilot)
        line = 6
        shown = id_of(app, shown_rows(app, terminal)[line])
        await pilot.click(table, offset=(10, table.header_height + line))
        await settle(pilot)
        assert table.highlighted_id == shown
