"""The document screen's `[` / `]`: in the Footer (and working) only for a file of a round or a
map run; a session-level document has no round to step to."""

from __future__ import annotations

from ocr_tui.cli import make_app
from ocr_tui.ui.screens.document.screen import DocumentScreen

from .builders import SIZE, fixed_clock, loaded, wait_until

AUTH = "2026-03-10-feat-auth"


def footer_keys(app) -> set[str]:
    bindings = app.screen.active_bindings
    return {key for key, b in bindings.items() if b.enabled and b.binding.show}


async def test_brackets_only_where_there_is_a_round(project) -> None:
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        app.open_document(AUTH, "rounds/round-1/reviews/principal-1.md")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, DocumentScreen),
            what="the document screen to open",
        )
        # round 1 of 2: `]` steps, `[` has no round before it and is hidden
        assert "right_square_bracket" in footer_keys(app)
        assert "left_square_bracket" not in footer_keys(app)
        app.pop_screen()
        (project.sessions_dir / AUTH / "context.md").write_text("# Context\n")
        app.open_document(AUTH, "context.md")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, DocumentScreen),
            what="the document screen to open on context.md",
        )
        doc = app.screen
        assert not {"left_square_bracket", "right_square_bracket"} & footer_keys(app)
        await pilot.press("]")  # does nothing: the screen stays
        await pilot.pause()
        assert app.screen is doc and doc.rel_path == "context.md"
