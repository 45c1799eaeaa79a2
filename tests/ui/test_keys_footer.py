"""The footer shows no key that does nothing, and a key that does nothing says why: `[`/`]` on a
document of no round, `t` with one format (`d` while the demo runs: tests/ui/test_keys_demo.py)."""

from __future__ import annotations

from ocr_tui.ui.app import OcrTuiApp
from ocr_tui.ui.navigation import DocumentTarget
from ocr_tui.ui.screens.document.screen import DocumentScreen

from .builders import SIZE, loaded, wait_until

AUTH = "2026-03-10-feat-auth"


def record_toasts(app: OcrTuiApp, monkeypatch) -> list[str]:
    toasts: list[str] = []
    monkeypatch.setattr(app, "notify", lambda message, **kw: toasts.append(str(message)))
    return toasts


async def test_brackets_only_where_there_are_rounds_to_step(app: OcrTuiApp, monkeypatch) -> None:
    toasts = record_toasts(app, monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        app.open_target(DocumentTarget(AUTH, "context.md"))  # the session's, of no round
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, DocumentScreen),
            what="the document screen to open",
        )
        await wait_until(pilot, lambda: app.screen.loads > 0, what="the document to be read")
        keys = app.screen.active_bindings
        assert "left_square_bracket" not in keys and "right_square_bracket" not in keys
        assert "escape" in keys  # Back is there
        await pilot.press("[")  # does nothing, and says why
        await wait_until(pilot, lambda: toasts, what="a toast saying why [ does nothing")
        assert toasts == [
            "This document belongs to no round or map run: [ and ] have nowhere to go."
        ]
        assert app.screen.rel_path == "context.md"

        app.open_target(DocumentTarget(AUTH, "rounds/round-2/reviews/principal-1.md"), "back")
        await wait_until(
            pilot,
            lambda: app.screen.rel_path.startswith("rounds/"),
            what="the round 2 document to replace it",
        )
        keys = app.screen.active_bindings
        assert keys["left_square_bracket"].binding.description == "Prev round"
        assert "right_square_bracket" not in keys  # round 2 is the last: `]` hidden


async def test_a_hidden_key_pressed_anyway_says_why(app: OcrTuiApp, monkeypatch) -> None:
    toasts = record_toasts(app, monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert "t" not in app.screen.active_bindings  # one format: nothing to cycle
        await pilot.press("t")
        await wait_until(pilot, lambda: toasts, what="a toast saying why t does nothing")
        assert len(toasts) == 1 and "t" in toasts[0]
        toasts.clear()
        await pilot.press("x")  # bound to nothing: nothing to say
        await pilot.press("f")  # a key that works: no toast
        await pilot.pause()
        assert toasts == [] and app.main_screen.filter == "active"


async def test_round_brackets_only_where_a_round_is(project) -> None:
    """On the last round `]` is not in the Footer and, pressed, says there is no later round;
    on the first, `[` likewise."""
    from ocr_tui.cli import make_app
    from ocr_tui.ui.navigation import RoundTarget
    from ocr_tui.ui.screens.ocr.round.screen import RoundScreen

    from .builders import SIZE, fixed_clock, loaded, wait_until

    app = make_app(project, clock=fixed_clock)
    toasts: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        app.notify = lambda m, **kw: toasts.append(str(m))
        app.open_target(RoundTarget("2026-03-10-feat-auth", 2, "rounds/round-2"))
        await wait_until(
            pilot, lambda: isinstance(app.screen, RoundScreen), what="the round screen to open"
        )
        await pilot.pause()
        shown = {k for k, b in app.screen.active_bindings.items() if b.enabled and b.binding.show}
        assert "left_square_bracket" in shown and "right_square_bracket" not in shown
        await pilot.press("]")
        await wait_until(pilot, lambda: toasts, what="a toast saying why ] does nothing")
        assert toasts[-1] == "No later round." and app.screen.round_number == 2
        await pilot.press("[")
        await wait_until(
            pilot, lambda: app.screen.round_number == 1, what="the round screen to step to round 1"
        )
        shown = {k for k, b in app.screen.active_bindings.items() if b.enabled and b.binding.show}
        assert "left_square_bracket" not in shown and "right_square_bracket" in shown


async def test_list_keys_appear_with_the_first_session(tmp_path) -> None:
    """No sessions yet: the Footer offers no search, filter or sort; the first session written
    while the app runs brings them."""
    from datetime import UTC, datetime

    from ocr_tui.cli import make_app
    from ocr_tui.core.project import Project
    from ocr_tui.formats.ocr.sim import build_history

    from .builders import SIZE, wait_until

    root = tmp_path / "proj"
    (root / ".ocr" / "sessions").mkdir(parents=True)
    app = make_app(Project(root))

    def footer() -> set[str]:
        return {k for k, b in app.screen.active_bindings.items() if b.enabled and b.binding.show}

    async with app.run_test(size=SIZE) as pilot:
        await wait_until(
            pilot, lambda: app.status != "loading", what="the first scan to be applied"
        )
        await pilot.pause()
        assert not {"slash", "f", "s"} & footer()
        build_history(root, sessions=1, now=datetime(2026, 1, 1, tzinfo=UTC))
        await wait_until(
            pilot,
            lambda: {"slash", "f", "s"} <= footer(),
            what="the list's keys to appear in the footer",
        )
