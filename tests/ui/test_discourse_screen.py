"""The discourse screen and the discourse in a finding's detail, by keys in
the real app on the sample project."""

from __future__ import annotations

from textual.pilot import Pilot

from ocr_tui.cli import make_app
from ocr_tui.core.project import Project
from ocr_tui.ui.navigation import DiscourseTarget, RoundTarget
from ocr_tui.ui.screens.document.screen import DocumentScreen
from ocr_tui.ui.screens.ocr.discourse.screen import DiscourseScreen
from ocr_tui.ui.widgets.drill_table import DrillTable

from .builders import SIZE, finding_shown, fixed_clock, loaded, wait_until
from .test_findings_screen import AUTH, give_findings, open_findings

DISCOURSE = """# Discourse Results

## Discourse from principal-1

AGREE quality-1 "Dead code"
CHALLENGE quality-1 "Dead code" — it is used by the \x1b[31mplugin loader

## Discourse from quality-1

AGREE principal-1 "Token not verified"
  - The token is never checked against the issuer.
CONNECT "Dead code" → principal-1 "Log leak"
SURFACE
  - Nobody looked at the migrations.
"""


def write_discourse(project: Project, text: str = DISCOURSE) -> None:
    path = project.sessions_dir / AUTH / "rounds" / "round-2" / "discourse.md"
    tmp = path.with_name("discourse.md.tmp")
    tmp.write_text(text)
    tmp.replace(path)


def rows(app) -> list[tuple[str, ...]]:
    table = app.screen.query_one("#responses", DrillTable)
    if not table.display:
        return []
    cols = ("author", "kind", "about", "findings")
    return [tuple(table.get_cell(k, c).plain for c in cols) for k in table.row_keys]


async def open_discourse(pilot: Pilot) -> DiscourseScreen:
    app = pilot.app
    await loaded(pilot)
    app.open_target(DiscourseTarget(AUTH, 2, "rounds/round-2"))
    await wait_until(
        pilot, lambda: isinstance(app.screen, DiscourseScreen), what="the discourse screen to open"
    )
    screen = app.screen
    await wait_until(
        pilot, lambda: screen.loads > 0, what="the discourse screen to load round 2's discourse"
    )
    await pilot.pause()
    return screen


async def test_discourse_by_reviewer_with_counts_and_links(project: Project) -> None:
    give_findings(project)
    write_discourse(project)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_discourse(pilot)
        assert rows(app) == [
            ("principal-1", "AGREE", "quality-1", "Dead code"),
            ("", "CHALLENGE", "quality-1", "Dead code"),
            ("quality-1", "AGREE", "principal-1", "Token not verified"),
            ("", "CONNECT", "principal-1", "Dead code +1 more"),
            ("", "SURFACE", "", ""),
        ]
        count = str(screen.query_one("#discourse-count").render())
        assert count.startswith("5 responses from 2 reviewers · 2 agree · 1 challenge")
        assert "1 connect · 1 surface" in count
        # The response at the cursor, in full, escape-safe.
        await pilot.press("j")
        shown = str(screen.query_one("#response").render())
        assert "plugin loader" in shown and "\x1b" not in shown

        await pilot.press("c", "c")  # challenge only
        assert [r[1] for r in rows(app)] == ["CHALLENGE"] and screen.kind == "challenge"
        await pilot.press("c", "c", "c")  # connect, surface, all
        assert len(rows(app)) == 5

        assert screen.cursor_response().kind == "surface"  # the cursor stayed on its row
        await pilot.press("g", "j", "j", "enter")  # AGREE principal-1 "Token not verified"
        await finding_shown(pilot)
        detail = app.screen
        assert detail.finding.title == "Token not verified"
        about = str(detail.query_one("#finding-discourse").render())
        assert "1 about it" in about and "AGREE" in about and "quality-1 → principal-1" in about
        await pilot.press("escape")
        await wait_until(
            pilot, lambda: app.screen is screen, what="the discourse screen to be back"
        )

        await pilot.press("o")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, DocumentScreen),
            what="the document screen to open",
        )
        assert app.screen.rel_path == "rounds/round-2/discourse.md"


async def test_discourse_follows_the_file_and_falls_back_to_markdown(project: Project) -> None:
    give_findings(project)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_discourse(pilot)
        assert rows(app) == []
        assert "no discourse.md" in str(screen.query_one("#discourse-empty").render())
        write_discourse(project)
        await wait_until(
            pilot,
            lambda: len(rows(app)) == 5,
            what="the discourse to list 5 rows once discourse.md is written",
        )
        write_discourse(project, "# Discourse\n\nWe all broadly agreed.\n")
        await wait_until(
            pilot,
            lambda: rows(app) == [],
            what="the discourse to list no rows once it has no responses",
        )
        await wait_until(
            pilot,
            lambda: screen.query_one("#discourse-raw").display,
            what="the discourse to fall back to the raw markdown",
        )
        assert "broadly agreed" in (screen._raw or "")


def test_snapshot_discourse_screen(snap_compare, project: Project) -> None:
    give_findings(project)
    write_discourse(project)

    async def run_before(pilot: Pilot) -> None:
        await open_discourse(pilot)
        pilot.app.clear_notifications()
        await pilot.pause()

    app = make_app(project, clock=fixed_clock)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


async def test_findings_detail_without_discourse_hides_the_section(project: Project) -> None:
    give_findings(project)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await open_findings(pilot)
        await pilot.press("enter")
        await finding_shown(pilot)
        assert not app.screen.query_one("#finding-discourse").display


async def test_the_round_screen_opens_the_discourse(project: Project) -> None:
    """`D` on the round, and Enter on its discourse.md row, open the discourse screen."""
    from ocr_tui.ui.screens.ocr.round.screen import RoundScreen

    give_findings(project)
    write_discourse(project)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        app.open_target(RoundTarget(AUTH, 2, "rounds/round-2"))
        await wait_until(
            pilot, lambda: isinstance(app.screen, RoundScreen), what="the round screen to open"
        )
        await wait_until(
            pilot,
            lambda: app.screen.round is not None and app.screen.round.discourse,
            what="the round screen to show round 2 with its discourse",
        )
        round_screen = app.screen
        await pilot.press("D")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, DiscourseScreen),
            what="the discourse screen to open",
        )
        await wait_until(pilot, lambda: len(rows(app)) == 5, what="the discourse to list 5 rows")
        await pilot.press("escape")
        await wait_until(
            pilot, lambda: app.screen is round_screen, what="the round screen to be back"
        )
        docs = round_screen.query_one("#round-docs", DrillTable)
        round_screen.set_focus(docs)
        docs.move_cursor(row=docs.row_keys.index("discourse.md"))
        await pilot.press("enter")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, DiscourseScreen),
            what="the discourse screen to open from the documents list",
        )
