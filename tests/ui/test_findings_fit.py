"""The findings table at 80x24, 120x40 and 200x60, as a new user saw it: the columns share the
width (no text cut while a column has room to spare, the title the widest, every reviewer
where there is room), a column that says nothing takes no room (no Evolution in round 1, no
Blocker column: the word follows the severity), one vocabulary (no state glyph for a blocker,
`—` for no triage, `& 1 more` reviewers, every active filter's key when nothing matches)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets.data_table import ColumnKey

from ocr_tui.cli import make_app
from ocr_tui.core.project import Project
from ocr_tui.core.states import PHASE_MARKS, STATES, UNKNOWN
from ocr_tui.formats.ocr.finding import Finding, Location
from ocr_tui.ui.navigation import FindingsTarget
from ocr_tui.ui.screens.ocr.findings.screen import FindingsScreen
from ocr_tui.ui.widgets.drill_table import DrillTable

from .builders import NOW, fixed_clock, loaded, set_mtime, wait_until
from .test_findings_screen import AUTH, review

SIZES = [(80, 24), (120, 40), (200, 60)]
SIM = "2026-11-22-main"  # the simulator's closed review of two rounds (ocr.db triage)

LONG = (
    "Worker and API share mutable module state",
    "high",
    "src/services/notifications.py:L66-L69",
)
RETRY = ("Missing error handling on retry exhaustion", "medium", "src/utils/retry.py:L57")
N1 = ("N+1 queries in user listing", "medium", "src/db/query.py:L136")
PAGES = ("Duplicated pagination logic", "low", "src/db/query.py:L245-L253")
TOKEN = ("Token not verified", "critical", "src/auth.py:L10")  # no final.md: it blocks


def give_long_findings(project: Project) -> None:
    """Round 2 of the sample review: long titles and paths, one finding raised by three
    reviewers (round 1 had two of them: `open`, the others `new`)."""
    s = project.sessions_dir / AUTH
    r1, r2 = s / "rounds" / "round-1" / "reviews", s / "rounds" / "round-2" / "reviews"
    (r1 / "principal-1.md").write_text(review("Principal", LONG, RETRY))
    (r1 / "quality-1.md").write_text(review("Quality", N1))
    (r2 / "principal-1.md").write_text(review("Principal", LONG, RETRY))
    (r2 / "principal-2.md").write_text(review("Principal", LONG, N1, TOKEN))
    (r2 / "quality-1.md").write_text(review("Quality", LONG, PAGES))
    set_mtime(s, NOW - timedelta(minutes=3))


async def open_round(pilot: Pilot, sid: str, number: int) -> FindingsScreen:
    app = pilot.app
    await loaded(pilot)
    app.open_target(FindingsTarget(sid, number, f"rounds/round-{number}"))
    await wait_until(
        pilot, lambda: isinstance(app.screen, FindingsScreen), what="the findings screen to open"
    )
    screen = app.screen
    await wait_until(
        pilot,
        lambda: screen.loads > 0 and screen.findings is not None,
        what="the findings screen to load its findings",
    )
    await pilot.pause()
    await pilot.pause()
    return screen


def table(app) -> DrillTable:
    return app.screen.query_one("#findings", DrillTable)


def column(app, key: str) -> list[str]:
    t = table(app)
    return [t.get_cell(row, key).plain for row in t.row_keys]


def keys(app) -> list[str]:
    return [c.key.value for c in table(app).ordered_columns]


def check_fit(screen: FindingsScreen) -> None:
    """No text cut while the table has room to spare; no horizontal scrolling; the title the
    widest of the cut columns; reviewers whole where they fit, else `& N more` (or a count),
    never `+N`."""
    t = screen.query_one("#findings", DrillTable)
    assert t.display and t.row_count
    spare = t.scrollable_content_region.width - t.virtual_size.width
    shown = {f.id: f for f in screen.shown}
    cut: set[str] = set()
    problems = [f"{-spare} cells wider than the table"] if spare < 0 else []
    for row in t.row_keys:
        f = shown[t.key_of(row)]
        names = t.get_cell(row, "reviewers").plain
        problems += [f"reviewers {names!r}: `+N` says new findings"] if "+" in names else []
        cut |= {"title"} if t.get_cell(row, "title").plain != f.title else set()
        place = t.get_cell(row, "where").plain
        cut |= {"where"} if place != f.location.text() else set()
        name = f.location.text().rpartition("/")[2]  # the file's name and line: never cut
        if place != f.location.text() and len(name) + 2 <= len(place):
            problems += [] if place.endswith("/" + name) else [f"path {place!r} cut in {name!r}"]
        whole = ", ".join(f.reviewers)  # a count in less room than them all is no cut
        fits = len(whole) <= t.columns[ColumnKey("reviewers")].content_width + max(spare, 0)
        cut |= {"reviewers"} if names != whole and fits else set()
    if cut and spare > 0:
        problems.append(f"{sorted(cut)} cut with {spare} cells blank")
    widths = {c.key.value: c.content_width for c in t.ordered_columns}
    if "title" in cut and widths["title"] < max(widths["where"], widths["reviewers"]):
        problems.append(f"the title cut narrower than another column: {widths}")
    assert not problems, problems


@pytest.mark.parametrize("size", [*SIZES, (100, 11)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_columns_share_the_width(project: Project, size) -> None:
    give_long_findings(project)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=size) as pilot:
        screen = await open_round(pilot, AUTH, 2)
        check_fit(screen)
        three = "principal-1, principal-2, quality-1"
        if size[0] >= 200:  # room for every text whole
            assert LONG[0] in column(app, "title")
            assert "src/services/notifications.py:66-69" in column(app, "where")
            assert three in column(app, "reviewers")
        else:
            assert any(
                name.endswith(" more") or "reviewers" in name for name in column(app, "reviewers")
            )
        await pilot.press("b")  # filtered: laid out again for the rows shown
        await pilot.pause()
        check_fit(screen)
        assert [s.split()[-1] for s in column(app, "severity")] == ["blocker"]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("number", [1, 2])
async def test_the_simulated_review_fits(sim_root: Path, size, number) -> None:
    app = make_app(Project(sim_root), clock=fixed_clock)
    async with app.run_test(size=size) as pilot:
        screen = await open_round(pilot, SIM, number)
        check_fit(screen)
        # Findings without triage say so with the project's "none" mark, never a blank.
        triage = column(app, "triage")
        assert "" not in triage and UNKNOWN in triage
        # The blocker is a word after the severity; no column is all one "nothing" mark.
        severity = column(app, "severity")
        assert any(s.endswith(" blocker") for s in severity), severity
        assert "blocker" not in keys(app)
        if number == 1:  # no round before it: nothing to evolve from
            assert "evolution" not in keys(app)
        else:
            assert set(column(app, "evolution")) - {UNKNOWN}
        # No glyph of a session state or a phase mark means something else here (`…` is the
        # cut text's mark everywhere; `—` is "none").
        taken = {g for g, _ in STATES.values()} | set(PHASE_MARKS.values())
        taken -= {"…", UNKNOWN}
        short = [k for k in keys(app) if k in ("severity", "evolution", "triage")]
        for key in short:
            for text in column(app, key):
                assert not set(text) & taken, (key, text)
        await pilot.resize_terminal(size[0] + 7, size[1])  # a resize lays it out again
        await wait_until(
            pilot,
            lambda: screen.size.width == size[0] + 7,
            what="the screen to take the wider terminal",
        )
        await pilot.pause()
        check_fit(screen)


async def test_round_1_has_no_evolution_column_and_brackets_bring_it_back(project: Project) -> None:
    give_long_findings(project)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_round(pilot, AUTH, 2)
        await pilot.press("s", "s")  # severity → blocker → evolution
        assert screen.query_state.sort == "evolution"
        assert "evolution" in keys(app)
        loads = screen.loads
        await pilot.press("[")
        await wait_until(
            pilot, lambda: screen.loads > loads, what="the findings of the round before to load"
        )
        await pilot.pause()
        assert "evolution" not in keys(app)
        assert screen.query_state.sort == "severity"  # the column it sorted on went away
        await pilot.press("s", "s")  # blocker (still, in the severity cell), then title
        assert screen.query_state.sort == "title"
        check_fit(screen)
        loads = screen.loads
        await pilot.press("]")
        await wait_until(
            pilot, lambda: screen.loads > loads, what="the findings of the next round to load"
        )
        await pilot.pause()
        assert "evolution" in keys(app) and "new" in column(app, "evolution")
        assert app.focused is table(app)


async def test_no_match_lists_every_active_filters_key(sim_root: Path) -> None:
    app = make_app(Project(sim_root), clock=fixed_clock)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_round(pilot, SIM, 2)
        await pilot.press("t", "b", "slash", *"zzz", "enter")
        await wait_until(
            pilot, lambda: not table(app).display, what="the table to hide when no finding matches"
        )
        text = str(screen.query_one("#findings-empty").render())
        assert text.startswith("No findings match"), text
        for key in ("t:", "b:", "/:"):
            assert key in text, (key, text)
        assert "v:" not in text  # not active
        assert f"triage {screen.query_state.label_triage()}" in text


# -- the plan, without an app -----------------------------------------------------------------
# (the new names are imported in the tests: the Pilot tests above run against any version)


def finding(title: str, file: str, reviewers: tuple[str, ...], **kw) -> Finding:
    loc = Location(file=file, line_start=1)
    return Finding(
        id=title, title=title, severity="high", location=loc, reviewers=[*reviewers], **kw
    )


def rows_and_keys() -> tuple[list[Finding], list[str]]:
    from ocr_tui.ui.screens.ocr.findings.cells import columns

    rows = [
        finding("T" * 40, "src/" + "p" * 30 + ".py", ("principal-1", "principal-2", "quality-1")),
        finding(
            "Short", "a.py", ("quality-1",), blocker=True, evolution="open", triage="acknowledged"
        ),
    ]
    return rows, [k for k, _ in columns(evolution=True, triage=True)]


def test_full_words_and_whole_texts_when_they_fit() -> None:
    from ocr_tui.ui.screens.ocr.findings.cells import plan

    rows, keys = rows_and_keys()
    p = plan(rows, 200, keys)
    assert not p.compact
    assert (p.title, p.where, p.reviewers) == (40, 39, 35)


def test_short_of_room_the_short_words_and_the_title_the_most() -> None:
    from ocr_tui.ui.screens.ocr.findings.cells import plan

    rows, keys = rows_and_keys()
    p = plan(rows, 110, keys)
    assert p.compact
    # every cell given to a column: severity `high blocker` 12, `open` 4 (`Evol`), `ack` 6
    # (`Triage`), 2 a column of padding
    assert p.title + p.where + p.reviewers == 110 - 12 - 4 - 6 - 2 * len(keys)
    assert p.title > max(p.where, p.reviewers)
    assert p.reviewers == len("principal-1 & 2 more")  # a name rather than `3 reviewers`


def test_the_triage_filter_for_findings_without_one_says_the_none_mark() -> None:
    from ocr_tui.ui.screens.ocr.findings.view import NO_TRIAGE, FindingsQuery

    assert FindingsQuery(triage=NO_TRIAGE).label() == f"triage {UNKNOWN}"
    assert FindingsQuery(triage="read").label() == "triage read"


def test_a_triage_state_is_said_in_words():
    """`wont_fix` as stored, `won't fix` on screen (`won't` where the columns are short); the
    other states are words already."""
    from ocr_tui.ui.screens.ocr.findings.cells import cell_text

    f = Finding(id="x", title="t", triage="wont_fix")
    assert cell_text("triage", f, False) == "won't fix"
    assert cell_text("triage", f, True) == "won't"
    assert cell_text("triage", Finding(id="y", title="t", triage="fixed"), True) == "fixed"
