"""The session list at 80×24, 120×40 and 200×60: which columns it shows and how
wide, the id's distinguishing end, no horizontal scrollbar, the detail pane's panes side by
side or stacked, the format header only with its sessions in view, the sort mark and `S`,
the search over titles, agents and verdicts, and the footer's keys."""

from __future__ import annotations

import re

import pytest
from textual.pilot import Pilot
from textual.widgets._footer import FooterKey

from ocr_tui.cli import make_app
from ocr_tui.core.display import id_core, name_order
from ocr_tui.ui.app import OcrTuiApp
from ocr_tui.ui.screens.sessions.cells import elide_id
from ocr_tui.ui.screens.sessions.detail_pane import DetailPane
from ocr_tui.ui.screens.sessions.headers_bar import HeadersBar

from .builders import fixed_clock, loaded, table_ids, wait_until
from .mixed_project import mixed_project

SIZES = [(80, 24), (120, 40), (200, 60)]
LONG_IDS = ("260310-jwt-auth-refresh-token", "session-20260310-143022-12345")


async def settle(pilot: Pilot) -> None:
    await loaded(pilot)
    pilot.app.clear_notifications()
    await pilot.pause()


def mixed_app(home, name: str = "proj") -> OcrTuiApp:
    return make_app(mixed_project(home / name), clock=fixed_clock)


def table_lines(app: OcrTuiApp) -> list[str]:
    table = app.main_screen.table
    return [table.render_line(y).text for y in range(table.size.height)]


def row_line(app: OcrTuiApp, sid: str) -> str:
    table = app.main_screen.table
    table.select(sid)
    index = table.get_row_index(sid)
    return table_lines(app)[index + 1 - int(table.scroll_offset.y)]


def footer_keys(app: OcrTuiApp) -> dict[str, str]:
    return {k.description: k.key for k in app.screen.query(FooterKey)}


@pytest.mark.parametrize("size", SIZES)
async def test_columns_fit_the_width_and_the_id_keeps_its_end(home, size) -> None:
    app = mixed_app(home)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        table = app.main_screen.table
        shown = table.columns_shown
        for key in ("state", "id", "phase", "activity", "needs"):
            assert key in shown, (size, shown)
        # every width holds the list: no horizontal scrollbar, nothing past the edge
        assert not table.show_horizontal_scrollbar
        assert table.virtual_size.width <= table.scrollable_content_region.width
        widths = {s.key: s.width for s in table.shown}
        assert widths["id"] >= 24
        # the column narrower than the widest id: every row without its prefix, alike
        assert max(len(sid) for sid in app.sessions) > widths["id"]
        for sid in app.sessions:
            line = row_line(app, sid)
            assert id_core(sid)[-6:] in line, (size, line)  # the end that tells them apart
            assert elide_id(sid, widths["id"], drop=True) in line
            assert not re.search(r"^.{4}(\d{4}-\d\d-\d\d-|\d{6}-|session-|ses_)", line), line
        if size == (200, 60):  # everything the formats have; the ids without their prefix,
            # cut only where the room left went to what needs you (an alert of 50 cells)
            assert set(shown) >= {"format", "flow", "round", "reviewers", "findings"}
            assert set(shown) >= {"verdict", "agents", "elapsed", "started"}
            cut = [sid for sid in app.sessions if id_core(sid) not in row_line(app, sid)]
            assert all(len(id_core(sid)) > widths["id"] for sid in cut)
            assert widths["needs"] >= 20 and not any(s.air for s in table.shown)
        if size == (80, 24):  # the low-priority columns gave way, the rows have room
            assert "started" not in shown and "reviewers" not in shown
            # the rows above the pane's 9 and the message line's one: 8 sessions
            assert table.size.height >= 9


def test_elide_id_drops_the_date_then_the_middle() -> None:
    assert elide_id("2026-11-23-feat-live-review", 40) == "2026-11-23-feat-live-review"
    # the table's choice, for every row: without the prefix even where the id would fit
    assert elide_id("2026-11-22-main", 40, drop=True) == "main"
    assert elide_id("2026-11-22-main", 40, drop=True, keep={"2026-11-22-main"}) == (
        "2026-11-22-main"  # ambiguous: another row's id is `…-main` too
    )
    assert elide_id("2026-11-23-feat-live-review", 20) == "feat-live-review"
    assert elide_id("261123-api-rate-limiting", 17) == "api-rate-limiting"
    short = elide_id("2026-11-23-feat-live-review-with-cache", 20)
    assert len(short) == 20 and short.endswith("with-cache") and "…" in short
    assert elide_id("ses_u8jzPde0IgxLd6GncfBAepfJBd", 16).endswith("fBAepfJBd")


@pytest.mark.parametrize("size", SIZES)
async def test_detail_panes_side_by_side(home, size) -> None:
    """The detail pane's boxes side by side at every width (the phases only on a wide
    screen), each its own scroller that Tab reaches; the list as tall as its rows, the pane
    right under it with the rest: no row between them stays empty (at 80x24, five did)."""
    app = mixed_app(home)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        screen = app.main_screen
        phases, rounds, session = (
            screen.query_one(f"#dp-{n}") for n in ("phases", "rounds", "session")
        )
        assert rounds.region.y == session.region.y  # side by side
        assert rounds.region.x < session.region.x
        assert rounds.region.height == session.region.height
        assert phases.display == (size == (200, 60))
        if size == (80, 24):
            assert screen.has_class("-narrow") and screen.has_class("-short")
            assert session.region.width == 30 and rounds.region.width == 50
        table = screen.table
        pane = screen.query_one(DetailPane)
        assert pane.region.y == table.region.bottom  # right under the list
        rows = min(table.row_count + 1, table.size.height)
        assert table.size.height == rows  # its rows, or all it may have (the pane's rest)
        assert pane.region.height >= (9 if size == (80, 24) else 15)
        boxes = [box for box in (phases, rounds, session) if box.display]
        assert screen.focused is table
        for box in boxes:  # Tab goes through them, each to scroll with the keys
            await pilot.press("tab")
            assert screen.focused is box
            if box.max_scroll_y:
                await pilot.press("end")
                await wait_until(
                    pilot,
                    lambda box=box: box.scroll_y == box.max_scroll_y,
                    what="the pane to scroll to its end",
                )
        assert size != (80, 24) or any(b.max_scroll_y for b in boxes)  # (more than shows)
        await pilot.press(*["shift+tab"] * len(boxes))
        assert screen.focused is table


async def test_format_header_only_with_its_sessions_in_view(home) -> None:
    app = mixed_app(home)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        bar = screen.query_one(HeadersBar)
        assert bar.display and bar.size.height == 1  # one line, even at 80 columns
        [line] = bar.lines
        assert line.plain.startswith("iDumb brain") and line.cell_length <= bar.size.width
        assert "\n" not in str(bar.render())
        await pilot.press("t")  # OCR only: no iDumb session in view
        assert screen.format == "ocr"
        await pilot.pause()
        assert not bar.display
        while screen.format != "idumb":
            await pilot.press("t")
        await pilot.pause()
        assert bar.display
        await pilot.press("t")  # all formats again; a search leaving no iDumb row hides it
        await pilot.press("slash", *"rate", "enter")
        await wait_until(
            pilot,
            lambda: table_ids(app) == ["260310-rate-limiter"],
            what="the search to leave only 260310-rate-limiter",
        )
        assert not bar.display
    app = mixed_app(home, "wide")
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        bar = app.main_screen.query_one(HeadersBar)
        [line] = bar.lines  # wide: its facts whole (at 80 columns: those that fit)
        assert "validations 12 · brain age 3d 6h since last validation (stale)" in line.plain
        assert "anchors 1 critical" in line.plain


async def test_sort_mark_and_reverse(home) -> None:
    app = mixed_app(home)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.main_screen.table

        def labels() -> dict[str, str]:
            return {s.key: s.label for s in table.shown}

        before = table_ids(app)
        assert labels()["activity"] == "Activity ▼"
        assert labels()["id"] == "Session"
        await pilot.press("S")
        assert labels()["activity"] == "Activity ▲"
        assert table_ids(app) == before[::-1]
        assert "reversed" in str(app.main_screen.query_one("#filter-bar").render())
        await pilot.press("s")  # by start time: its column is shown, even at 80 columns
        assert app.main_screen.sort == "start" and not app.main_screen.reverse
        assert labels()["started"] == "Started (UTC) ▼" and "▼" not in labels()["activity"]
        await pilot.press("s")  # by name, A to Z: ascending down the list, ▲ as everywhere
        assert labels()["id"] == "Session ▲"
        assert table_ids(app) == sorted(before, key=name_order)
        await pilot.press("S")  # Z to A
        assert labels()["id"] == "Session ▼"
        assert table_ids(app) == sorted(before, key=name_order, reverse=True)
        await pilot.click("#sessions", offset=(6, 0))  # the Session header: reversed again
        await wait_until(
            pilot, lambda: labels()["id"] == "Session ▲", what="the Session header to show ▲"
        )
        assert table_ids(app) == sorted(before, key=name_order)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("rate limiter", {"260310-rate-limiter"}),  # a code workflow's title (its task)
        ("mouse liver", {"session-20260310-143022-12345"}),  # an analysis' title
        # the agents of a phase: the running one's, and those the finished one's research had
        ("scouter", {"260310-rate-limiter", "260310-jwt-auth-refresh-token"}),
        ("request changes", set()),  # feat-auth's verdict is round 1's; its round 2 has none
        ("approve", {"2026-03-10-fix-cache", "2026-03-09-main"}),  # OCR verdicts
        ("security", {"2026-03-10-feat-auth"}),  # an OCR reviewer
    ],
)
async def test_search_finds_titles_agents_and_verdicts(home, text, expected) -> None:
    app = mixed_app(home)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *text, "enter")
        await wait_until(pilot, lambda: app.main_screen.search == text, what="the search to apply")
        await pilot.pause()
        assert set(table_ids(app)) == expected
        # kept: the footer says how to clear it, and Esc does
        assert footer_keys(app).get("Clear search") == "escape"
        await pilot.press("escape")
        assert app.main_screen.search == "" and len(table_ids(app)) == len(app.sessions)
        await pilot.pause()
        assert "Clear search" not in footer_keys(app)


async def test_format_key_only_with_several_formats(app: OcrTuiApp, home) -> None:
    async with app.run_test(size=(120, 40)) as pilot:  # the sample project: OCR only
        await settle(pilot)
        assert "Format" not in footer_keys(app) and "Sort" in footer_keys(app)
        assert not app.main_screen.table.columns_shown.count("format")
    mixed = mixed_app(home, "mixed")
    async with mixed.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert footer_keys(mixed)["Format"] == "t"


async def test_cells_paint_no_background(home) -> None:
    """The cursor row and the stripes are the row's: no cell paints its own background."""
    app = mixed_app(home)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        table = app.main_screen.table
        for sid in app.sessions:
            for key in table.columns_shown:
                for span in table.get_cell(sid, key).spans:
                    assert span.style.bgcolor is None, (sid, key, span)
        # and on screen: the cursor row is one background from edge to edge
        table.select(table_ids(app)[0])
        await pilot.pause()
        strip = table.render_line(1)
        backgrounds = {seg.style.bgcolor for seg in strip if seg.style and seg.text.strip()}
        assert len(backgrounds) == 1


async def test_each_column_means_one_thing(home) -> None:
    """Verdicts only in Verdict, alerts only in Needs, agents only in Agents; Flow says only
    what Fmt does not; a map session's unit is its map run; Elapsed is the session's."""
    app = mixed_app(home)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        table = app.main_screen.table

        def cell(sid: str, key: str) -> str:
            return table.get_cell(sid, key).plain

        for sid, view in app.sessions.items():
            if view.framework != "ocr":
                for key in ("round", "reviewers", "findings", "verdict"):
                    assert cell(sid, key) == "—", (sid, key)
                assert cell(sid, "flow") != cell(sid, "format")
            else:
                assert cell(sid, "agents") == "—" and cell(sid, "needs") == "—"
        assert cell("260310-rate-limiter", "flow") == "fast"
        assert cell("260310-jwt-auth-refresh-token", "flow") == "—"
        # its phase under way has no agents of its own yet: `—`, not research's scouters
        assert cell("260310-rate-limiter", "agents") == "—"
        assert cell("session-20260310-143022-12345", "needs") == "your approval"
        assert cell("2026-03-10-map-onboarding", "round") == "M1"
        assert cell("2026-03-10-feat-auth", "elapsed") == "50m"  # the session's, not round 2's
        table.select("2026-03-10-feat-auth")  # the detail pane says both, each by its name
        clock = app.main_screen.query_one("#dp-clock")
        await wait_until(
            pilot,
            lambda: "elapsed  50m (running)" in str(clock.render()),
            what="the detail pane to show the elapsed time, running",
        )
        assert "round    20m" in str(clock.render())
        labels = {s.key: s.label for s in table.shown}
        assert "round_time" not in labels  # several formats: no per-round time
        await pilot.press("t")  # OCR only: its round time, said so
        await pilot.pause()
        labels = {s.key: s.label for s in table.shown}
        assert labels["round_time"] == "Round time"
        assert "needs" not in labels and "format" not in labels  # (Agents: OCR's agents)
        assert cell("2026-03-10-feat-auth", "round_time") == "20m"


def test_names_sort_naturally_and_a_huge_number_is_no_error() -> None:
    """`review-2` before `review-10` (as reviewers are); a run of 6,000 digits orders by its
    length, never through `int` (Python refuses more than 4,300 digits)."""
    ids = ["2026-11-26-review-10", "2026-11-26-review-2", "2026-11-26-review", "x-" + "9" * 6000]
    assert sorted(ids, key=name_order) == [
        "2026-11-26-review", "2026-11-26-review-2", "2026-11-26-review-10", "x-" + "9" * 6000,
    ]  # fmt: skip
