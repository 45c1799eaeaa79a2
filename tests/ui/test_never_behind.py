"""Never behind: when changes come faster than the screen follows, the states
between are skipped, not queued. A burst of the watcher's messages with keys pressed among them
is answered with the keys' effects and the burst's last state, in one list refresh for the
data, not one per change.

The engine → UI path mostly coalesced already: the watcher re-derives once per batch of file
events (400 rewrites of a state.json made 4-5 updates), and `SessionsChanged.can_replace`
merges the messages queued side by side. What still queued: each message the app applies
publishes `sessions_signal`, and Textual's `Signal` posts one callback per publish to each
screen, so when the app applied several in one turn (here, keys between them keep Textual from
merging) the main screen re-filtered, re-sorted and synced the whole list (57 ms at 10,000
sessions) once per message, each time to the same final state, with the keys behind. Here:
22 refreshes before, 1 now. Screens take the changes merged (`ocr_tui.ui.latest`).
"""

from __future__ import annotations

from textual import events

from ocr_tui.cli import make_app
from ocr_tui.ui.latest import Latest
from ocr_tui.ui.screens.sessions.screen import MainScreen

from .builders import fixed_clock, make_project, wait_until
from .screen_record import record
from .test_list_truth import SIZE, Model, check_screen, session, settle

BURST = 200  # changes
# pressed after that many changes: `S` 20 times (the sort turned round and back), `f` once
KEYS = {i: "S" for i in range(0, BURST, 10)} | {105: "f"}


async def test_a_burst_shows_its_last_state_and_answers_keys_in_a_few_refreshes(
    tmp_path, monkeypatch
):
    refreshes: list[dict] = []
    original = MainScreen.refresh_view

    def counted(self, **kw):
        refreshes.append(kw)
        return original(self, **kw)

    monkeypatch.setattr(MainScreen, "refresh_view", counted)
    project = make_project(tmp_path / "proj")
    app = make_app(project, clock=fixed_clock)
    terminal = record(app, SIZE)
    model = Model()
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(
            pilot, lambda: app.status == "ready", what="the empty project to be watched"
        )
        app.post_message(model.message(project, ("new", 30, False, 3, "closed")))
        await settle(pilot)
        screen = app.main_screen
        assert screen.table.row_count == 30
        refreshes.clear()
        # As a busy watcher posts them: one message per change, each its own (a key between
        # them keeps Textual from merging neighbouring messages), faster than they are
        # handled: all are queued before the first is.
        for i in range(BURST):
            step = ("change", i * 7, True, i % 4, "active" if i % 3 else "closed")
            app.post_message(model.message(project, step))
            if i in KEYS:
                app.post_message(events.Key(KEYS[i], KEYS[i]))
        await wait_until(
            pilot, lambda: app.sessions == model.sessions,
            what="the burst's last state to be applied",
        )  # fmt: skip
        await settle(pilot)
        assert (screen.sort, screen.reverse, screen.filter) == ("activity", False, "active")
        check_screen(app, terminal, model, "the burst")  # its last state, on screen
        data = [kw for kw in refreshes if not kw.get("follow")]
        assert len(data) <= 3, f"{len(data)} refreshes for a burst of {BURST} changes"
        assert len(refreshes) - len(data) == len(KEYS)  # each key's own


class Node:
    """What `Latest` asks of a node: `call_next`."""

    def __init__(self) -> None:
        self.calls: list = []

    def call_next(self, callback) -> None:
        self.calls.append(callback)


def test_changes_are_merged_until_taken_the_newest_view_winning():
    node, got = Node(), []
    latest = Latest(node, got.append)  # type: ignore[arg-type]
    a1, a2 = session(1, 1, 0, "active", 0), session(1, 2, 1, "active", 0)
    b, c = session(2, 3, 0, "active", 0), session(3, 4, 0, "closed", 0)
    latest(([a1, b], []))
    latest(([a2], ["2026-03-10-task-003"]))  # a newer a; c went
    latest(([], ["2026-03-10-task-002"]))  # b went
    latest(([c], []))  # c is back
    assert len(node.calls) == 1 and latest.merged == 3  # one call pending, not four
    node.calls.pop()()
    assert got == [([a2, c], ["2026-03-10-task-002"])]
    latest(([b], []))  # after it was taken: a call of its own, with only what came since
    node.calls.pop()()
    assert got[-1] == ([b], [])
