"""Change toasts: no toast for the session on screen, one toast per
session (a newer change replaces it, never stacks), and changes of many sessions at once
collect in one "N more" toast. Checked on the toasts Textual actually shows."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static
from textual.widgets._toast import Toast

from ocr_tui.ui.toasts import MAX_SESSION_TOASTS, ChangeToasts, Event

from .builders import wait_until


class ToastApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.viewed: str | None = None
        self.toasts = ChangeToasts(self, in_view=lambda: self.viewed)

    def compose(self) -> ComposeResult:
        yield Static("list")


def shown(app: App) -> list[str]:
    """The toasts on screen, top to bottom, as `title: message`."""
    out = []
    for toast in app.screen.query(Toast):
        note = toast._notification
        out.append(f"{note.title}: {note.message}")
    return out


def phase(sid: str, a: str, b: str) -> Event:
    return Event("phase", sid, f"{sid}: {a} → {b}")


async def test_a_newer_change_replaces_the_sessions_toast() -> None:
    app = ToastApp()
    async with app.run_test(notifications=True) as pilot:
        app.toasts.announce([phase("s1", "Context", "Review")])
        await wait_until(
            pilot,
            lambda: shown(app) == ["Phase: s1: Context → Review"],
            what="the toast for s1's change",
        )
        app.toasts.announce([phase("s1", "Review", "Discourse")])
        await wait_until(
            pilot,
            lambda: shown(app) == ["Phase: s1: Review → Discourse"],
            what="s1's newer change to replace its toast",
        )
        app.toasts.announce([phase("s2", "Context", "Review")])
        await wait_until(pilot, lambda: len(shown(app)) == 2, what="a toast for s2 beside s1's")
        assert shown(app) == ["Phase: s1: Review → Discourse", "Phase: s2: Context → Review"]


async def test_the_session_on_screen_raises_no_toast() -> None:
    app = ToastApp()
    app.viewed = "s1"
    async with app.run_test(notifications=True) as pilot:
        app.toasts.announce([phase("s1", "Context", "Review"), phase("s2", "A", "B")])
        await wait_until(pilot, lambda: shown(app), what="the toast for the session not on screen")
        await pilot.pause()
        assert shown(app) == ["Phase: s2: A → B"]


async def test_one_sessions_events_of_a_batch_are_one_toast() -> None:
    app = ToastApp()
    async with app.run_test(notifications=True) as pilot:
        done = Event("round", "s1", "s1: round 1 complete · APPROVE")
        app.toasts.announce([done, phase("s1", "Discourse", "Synthesis")])
        await wait_until(pilot, lambda: shown(app), what="a toast for the batch")
        await pilot.pause()
        assert shown(app) == ["Phase: s1: round 1 complete · APPROVE\ns1: Discourse → Synthesis"]


async def test_many_sessions_collect_in_one_more_toast() -> None:
    app = ToastApp()
    n = MAX_SESSION_TOASTS + 2
    async with app.run_test(notifications=True) as pilot:
        for i in range(n):
            app.toasts.announce([phase(f"s{i}", "A", "B")])
        await wait_until(
            pilot,
            lambda: len(shown(app)) == MAX_SESSION_TOASTS + 1,
            what="the toasts to stop at the limit, plus one more",
        )
        assert shown(app)[-1] == "Sessions: 2 more sessions changed"
        app.toasts.announce([phase("s0", "B", "C")])  # one with a toast of its own: replaced
        app.toasts.announce([phase("s9", "A", "B")])
        await wait_until(
            pilot,
            lambda: "Sessions: 3 more sessions changed" in shown(app),
            what="the more-toast to count 3 sessions",
        )
        assert "Phase: s0: B → C" in shown(app)
        assert len(shown(app)) == MAX_SESSION_TOASTS + 1


async def test_many_new_sessions_are_one_toast() -> None:
    app = ToastApp()
    async with app.run_test(notifications=True) as pilot:
        app.toasts.announce([Event("new", f"n{i}", f"n{i}") for i in range(5)])
        await wait_until(pilot, lambda: shown(app), what="a toast for the new sessions")
        await pilot.pause()
        assert shown(app) == ["New sessions: 5 new sessions"]


async def test_replaced_toasts_leave_nothing_mounted() -> None:
    """Bounded memory: Textual's ToastRack takes a replaced toast down but not the
    ToastHolder around it, so every replacement left an empty holder mounted for good (a
    live widget: ~40 of them per session the simulator creates). Only the toasts up remain."""
    from textual.widgets._toast import ToastHolder

    app = ToastApp()
    async with app.run_test(notifications=True) as pilot:
        for k in range(40):
            app.toasts.announce([phase(f"s{k % 2}", f"P{k}", f"P{k + 1}")])
            await pilot.pause()
        await wait_until(
            pilot,
            lambda: len(shown(app)) == 2 and "P40" in shown(app)[-1],
            what="two toasts shown, the newest saying P40",
        )
        await wait_until(
            pilot,
            lambda: len(app.screen.query(ToastHolder)) == 2,
            what="two toast holders left mounted",
        )
        await pilot.pause(0.2)
        assert len(app.screen.query(ToastHolder)) == 2
        assert len(app._notifications) == 2


async def test_a_replaced_toast_is_redrawn_in_place_and_its_time_starts_again(
    monkeypatch,
) -> None:
    """A newer change of a session shown in a toast: the same toast widget shows the new text
    (nothing mounted: a mount lays the screen out), and it stays its whole time from then."""
    import time

    from textual.widgets._toast import ToastHolder

    from ocr_tui.ui import toasts

    monkeypatch.setattr(toasts, "TOAST_SECONDS", 1.0)
    app = ToastApp()
    async with app.run_test(notifications=True) as pilot:
        app.toasts.announce([phase("s1", "Context", "Review")])
        await wait_until(pilot, lambda: len(shown(app)) == 1, what="s1's toast")
        holder = app.screen.query_one(ToastHolder)
        t0 = time.monotonic()
        await wait_until(pilot, lambda: time.monotonic() - t0 > 0.6, what="0.6 s gone")
        app.toasts.announce([phase("s1", "Review", "Discourse")])
        await wait_until(
            pilot,
            lambda: shown(app) == ["Phase: s1: Review → Discourse"],
            what="the newer change in s1's toast",
        )
        assert list(app.screen.query(ToastHolder)) == [holder]  # the same, not mounted anew
        await wait_until(pilot, lambda: time.monotonic() - t0 > 1.3, what="the first 1 s gone")
        assert shown(app) == ["Phase: s1: Review → Discourse"]  # its time started again
        await wait_until(pilot, lambda: not shown(app), what="the toast gone after its time")
        assert not app.screen.query(ToastHolder)
        assert len(app._notifications) == 0
