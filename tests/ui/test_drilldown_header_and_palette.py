"""What a second new-user try found, each fixed as a class: the session header's
elapsed is the session's (as the list's Elapsed), with the round's time beside it; `F` is in
the session screen's footer; the palette on a drill-down screen offers that screen's own keys
and the places to go, not the list's filters nor Textual's widget keys; `l` on another
format's session says why in that format's words."""

from __future__ import annotations

from ocr_tui.cli import make_app
from ocr_tui.core.project import Project
from ocr_tui.ui.commands import ScreenCommands, SessionCommands
from ocr_tui.ui.screens.base.nothing_to_open import events_reason
from ocr_tui.ui.screens.document.screen import DocumentScreen
from ocr_tui.ui.screens.session.screen import SessionScreen

from .builders import SIZE, fixed_clock, loaded, wait_until
from .records_db import AUTH


async def open_auth(pilot) -> SessionScreen:
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
    return app.screen


async def test_the_header_says_the_sessions_time_and_the_rounds(project: Project) -> None:
    """feat-auth started 50m ago; its round 2 20m ago: the list's Elapsed says 50m, the
    header said 20m 00s. Now both: `elapsed 50m 00s (round 2: 20m 00s)`."""
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_auth(pilot)
        meta = str(screen.query_one("#session-meta").render()).replace("\xa0", " ")
        assert "elapsed 50m 00s (round 2: 20m 00s)" in meta


async def test_findings_key_is_in_the_session_footer(project: Project) -> None:
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_auth(pilot)
        await pilot.pause()
        shown = {b.binding.key for b in screen.active_bindings.values() if b.binding.show}
        assert {"F", "c"} <= shown


async def titles(app, provider_class) -> list[str]:
    provider = provider_class(app.screen, None)
    return [title for title, _, _ in provider._commands()]


async def test_the_palette_on_a_drill_screen_offers_its_own_keys(project: Project) -> None:
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        on_list = await titles(app, SessionCommands)
        assert "Filter: active sessions" in on_list and "Sort: by name" in on_list
        app.open_document(AUTH, "rounds/round-1/reviews/principal-1.md")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, DocumentScreen),
            what="the document screen to open",
        )
        await pilot.pause()
        here = await titles(app, SessionCommands) + await titles(app, ScreenCommands)
        assert not [t for t in here if t.startswith(("Filter:", "Sort:", "Format:"))]
        assert any(t.startswith("Session: ") for t in here)  # places to go stay
        assert any("(key ])" in t for t in here)  # the screen's own keys
        for widget_key in ("Cursor left", "Page Left", "Home", "Copy selected text"):
            assert not [t for t in here if t.startswith(widget_key)], widget_key


def test_the_event_log_reason_speaks_of_the_format(project: Project) -> None:
    from ocr_tui.core.view import Elapsed, SessionView

    view = SessionView(
        id="x", branch=None, source="state.json", status="active", workflow="code",
        phase="plan", phase_label="Plan", phase_number=3, phase_total=6, complete=False,
        started_at=None, updated_at=None, last_activity=None, stalled=False,
        elapsed=Elapsed(since=None, seconds=None, running=True), current_round=None,
        rounds=[], current_map_run=None, map_runs=[], problems=[], path="/x", framework="code",
    )  # fmt: skip
    assert events_reason(view) == (
        "Code workflow sessions have no event log: OCR's ocr.db (OCR 1.5+) records one."
    )


def test_the_summary_line_gives_up_whole_parts_not_letters(project: Project) -> None:
    """At 80 columns it read `… 14 reviews with a verdict · 0 unresolved blocke…`."""
    from ocr_tui.core.engine import Engine
    from ocr_tui.ui.screens.sessions.summary_bar import summary_content

    views = Engine(project).scan()
    whole = summary_content(views).plain
    assert whole.endswith("unresolved blocker") or whole.endswith("unresolved blockers")
    for width in range(20, len(whole) + 1):
        line = summary_content(views, width).plain
        assert "…" not in line
        assert line.split(" · ")[-1] == whole.split(" · ")[-1]  # the blockers stay
        assert line.startswith(whole.split(" · ")[0])  # and the sessions
        assert len(line) <= width or line.count(" · ") == 1


def test_one_description_of_search_and_of_finished() -> None:
    from ocr_tui.core.states import STATES
    from ocr_tui.ui.commands import MAIN_ACTIONS
    from ocr_tui.ui.screens.sessions.keys import SEARCHED

    assert SEARCHED == "ids, branches, titles, agents, verdicts and alerts"
    assert any(SEARCHED in help_text for _, _, help_text in MAIN_ACTIONS)
    assert "waiting" not in STATES["waiting"][1]  # `◆ waiting on you` is the only waiting


def test_the_header_wraps_between_phrases_never_inside_one() -> None:
    """At 80 columns `elapsed 50m 00s (round` / `2: 20m 00s)` broke a phrase in two."""
    from textual.content import Content

    from ocr_tui.ui.screens.session.cells import SEP, wrap_phrases

    meta = Content.assemble("review", SEP, "phase 4/8 Parallel Reviews", SEP,
                            "elapsed ", ("50m 00s", "bold"), " (round 2: 20m 00s)")  # fmt: skip
    kept = wrap_phrases(meta, 40)
    assert kept.plain.split("\n") == [
        "review · phase 4/8 Parallel Reviews",
        "elapsed 50m 00s (round 2: 20m 00s)",
    ]
    assert any(s.style == "bold" for s in kept.spans)  # the styles stay
    assert wrap_phrases(meta, 200).plain == meta.plain  # room: one line


async def test_findings_keep_the_keys_after_a_filter_empties_them(sim_root) -> None:
    """`b`, `t` (no finding matches), `b` again: one row back, but Enter and `j` did nothing
    until Tab: the table had lost the focus while hidden."""
    from ocr_tui.ui.navigation import FindingsTarget
    from ocr_tui.ui.screens.ocr.findings.screen import FindingsScreen

    app = make_app(Project(sim_root), clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        sid = "2026-11-22-main"
        view = app.sessions[sid]
        latest = view.rounds[-1]
        app.open_target(FindingsTarget(sid, latest.number, latest.path))
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, FindingsScreen),
            what="the findings screen to open",
        )
        screen = app.screen

        def table():  # replaced by one with a Triage column when ocr.db's read arrives
            return screen.query_one("#findings")

        await wait_until(
            pilot,
            lambda: screen.query("#findings") and table().row_count > 0,
            what="the findings table to list its findings",
        )
        await pilot.pause()
        await pilot.press("b")  # blockers only
        for _ in range(8):  # and a triage state until none matches
            await pilot.press("t")
            await pilot.pause()
            if not table().display:
                break
        assert not table().display
        await pilot.press("b")  # every severity again: some match
        await pilot.pause()
        assert table().display and app.focused is table()


async def test_the_summary_line_goes_with_a_format_filter_of_another_format(home) -> None:
    """`t` to the code workflow left `OCR · 4 sessions · 0 active …` above code sessions."""
    from ocr_tui.ui.screens.sessions.summary_bar import SummaryBar

    from .mixed_project import mixed_project

    app = make_app(mixed_project(home / "proj"), clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        bar = app.screen.query_one(SummaryBar)
        assert bar.display and bar.plain.startswith("OCR · ")
        for _ in range(6):
            await pilot.press("t")
            await pilot.pause()
            fmt_shown = app.main_screen.format
            assert bar.display == (fmt_shown in ("all", "ocr")), fmt_shown


async def test_next_is_hidden_at_the_last_round_and_says_why(project: Project) -> None:
    """On the last round's file `] Next round` was in the footer and did nothing, silently."""
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        app.open_document(AUTH, "rounds/round-2/reviews/principal-1.md")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, DocumentScreen),
            what="the document screen to open",
        )
        await pilot.pause()
        actions = {b.binding.action for b in app.screen.active_bindings.values()}
        assert "step(1)" not in actions and "step(-1)" in actions  # no round after 2
        app.clear_notifications()
        await pilot.press("right_square_bracket")
        await pilot.pause()
        assert "No later round." in [n.message for n in app._notifications]
        assert app.screen.rel_path == "rounds/round-2/reviews/principal-1.md"
