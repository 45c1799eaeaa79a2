"""The findings screen, driven by keys in the real app on the sample project:
session → round → `F`, the filters, Enter to the reviewer file, live updates, a snapshot."""

from __future__ import annotations

from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

from textual.command import CommandPalette
from textual.pilot import Pilot

from ocr_tui.cli import make_app
from ocr_tui.core.project import Project
from ocr_tui.ui.screens.document.screen import DocumentScreen
from ocr_tui.ui.screens.ocr.finding.screen import FindingScreen
from ocr_tui.ui.screens.ocr.findings.screen import FindingsScreen
from ocr_tui.ui.screens.ocr.round.screen import RoundScreen
from ocr_tui.ui.screens.session.screen import SessionScreen
from ocr_tui.ui.widgets.drill_table import DrillTable

from .builders import NOW, SIZE, finding_shown, fixed_clock, loaded, set_mtime, wait_until
from .test_app_contract import search_palette

AUTH = "2026-03-10-feat-auth"
R2 = "rounds/round-2/reviews"


def finding(n: int, title: str, severity: str, location: str) -> str:
    return (
        f"### Finding {n}: {title}\n\n**Severity**: {severity}\n"
        f"**Location**: {location}\n\n{title}, explained.\n\n"
    )


def review(name: str, *items: tuple[str, str, str]) -> str:
    body = f"# {name} review\n\n## Findings\n\n"
    return body + "".join(finding(i, *item) for i, item in enumerate(items, start=1))


def give_findings(project: Project) -> Path:
    """The sample review's reviewer files, with distinct findings: round 2 keeps two of round
    1's, fixes two and adds one (the sample's own findings all share one title)."""
    s = project.sessions_dir / AUTH
    r1, r2 = s / "rounds" / "round-1" / "reviews", s / "rounds" / "round-2" / "reviews"
    token = ("Token not verified", "critical", "src/auth.py:L10")
    rate = ("No rate limit", "high", "src/api.py:L20-L30")
    dead = ("Dead code", "info", "src/util.py:L3")
    (r1 / "principal-1.md").write_text(review("Principal", token, rate, ("Naming", "low", "")))
    (r1 / "quality-1.md").write_text(review("Quality", rate, dead))
    leak = ("Log leak", "medium", "src/log.py:L5")
    (r2 / "principal-1.md").write_text(review("Principal", token, leak))
    (r2 / "quality-1.md").write_text(review("Quality", dead))
    set_mtime(s, NOW - timedelta(minutes=3))  # as written by `sample_project`
    return s


def table(app) -> DrillTable:
    return app.screen.query_one("#findings", DrillTable)


def titles(app) -> list[str]:
    t = table(app)
    if not t.display:
        return []
    return [t.get_cell(key, "title").plain for key in t.row_keys]


def count(app) -> str:
    return str(app.screen.query_one("#findings-count").render())


async def open_findings(pilot: Pilot) -> FindingsScreen:
    """Session list → the review (2nd row) → round 2 → `F`."""
    app = pilot.app
    await loaded(pilot)
    await pilot.press("j", "enter")
    await wait_until(
        pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
    )
    await wait_until(
        pilot,
        lambda: app.focused is not None and app.focused.id == "rounds",
        what="the rounds table to take the focus",
    )
    await pilot.press("j", "enter")
    await wait_until(
        pilot, lambda: isinstance(app.screen, RoundScreen), what="the round screen to open"
    )
    assert app.screen.round_number == 2
    await pilot.press("F")
    await wait_until(
        pilot, lambda: isinstance(app.screen, FindingsScreen), what="the findings screen to open"
    )
    screen = app.screen
    await wait_until(
        pilot, lambda: screen.loads > 0, what="the findings screen to load its findings"
    )
    await pilot.pause()
    return screen


async def test_findings_screen_by_keys(project: Project) -> None:
    give_findings(project)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_findings(pilot)
        assert screen.target.number == 2 and screen.target.path == "rounds/round-2"
        assert titles(app) == [
            "Token not verified",
            "Log leak",
            "Dead code",
            "No rate limit",  # pending: round 1's, not raised again yet, after the others
            "Naming",
        ]
        t = table(app)
        first = t.row_keys[0]
        # no final.md: critical blocks; the word follows the severity (no column of its own)
        assert t.get_cell(first, "severity").plain == "critical blocker"
        assert t.get_cell(t.row_keys[1], "severity").plain == "medium"
        assert t.get_cell(first, "where").plain == "src/auth.py:10"
        assert t.get_cell(first, "evolution").plain == "open"
        assert t.get_cell(t.row_keys[1], "evolution").plain == "new"
        # round 2 has no synthesis yet: not re-reviewed yet, never "resolved"
        assert t.get_cell(t.row_keys[3], "evolution").plain == "pending"
        assert count(app).startswith("3 of 3 findings so far (+2 of 2 pending) · no filter")
        assert "Findings" in app.screen.query_one("#crumbs").plain

        # ≥ info would show the same rows (every finding here has a severity): `v` skips it.
        await pilot.press("v")  # ≥ low
        assert count(app).startswith("2 of 3 findings so far (+2 of 2 pending) · severity ≥ low")
        assert "Dead code" not in titles(app)
        await pilot.press("v", "v")  # ≥ high
        assert titles(app) == ["Token not verified", "No rate limit"]
        await pilot.press("b")
        assert titles(app) == ["Token not verified"]
        assert (
            "1 of 3 findings so far (+0 of 2 pending) · severity ≥ high · blockers only"
            in count(app)
        )
        await pilot.press("v")  # ≥ critical shows the same rows here: back to all
        assert screen.min_severity is None
        assert count(app).startswith("1 of 3 findings so far (+0 of 2 pending) · blockers only")
        await pilot.press("b")
        assert len(titles(app)) == 5

        await pilot.press("j", "enter")  # Log leak: its detail
        await finding_shown(pilot)
        detail = app.screen
        assert detail.finding.title == "Log leak"
        await pilot.press("o")  # the file it was read from: round 2's principal-1.md
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, DocumentScreen),
            what="the document screen to open",
        )
        assert app.screen.rel_path == f"{R2}/principal-1.md"
        await wait_until(
            pilot,
            lambda: "Log leak" in (app.screen.text or ""),
            what='the document to show "Log leak"',
        )
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is detail, what="the finding screen to be back")
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen, what="the findings screen to be back")
        assert table(app).cursor_row == 1
        await pilot.press("escape")
        await wait_until(
            pilot, lambda: isinstance(app.screen, RoundScreen), what="the round screen to be back"
        )


async def test_y_copies_the_findings_file_and_lines(project: Project) -> None:
    give_findings(project)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await open_findings(pilot)
        await pilot.press("y")  # the cursor is on the first row: "Token not verified"
        assert app.clipboard == "src/auth.py:10"
        await pilot.press("G", "y")  # "Naming" was given no file: nothing is copied
        assert app.clipboard == "src/auth.py:10"


async def test_brackets_step_rounds_keeping_the_filter(project: Project) -> None:
    give_findings(project)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_findings(pilot)
        await pilot.press("b")  # blockers only
        loads = screen.loads
        await pilot.press("[")
        await wait_until(
            pilot, lambda: screen.loads > loads, what="the findings of the round before to load"
        )
        assert screen.target.number == 1 and screen.blockers_only
        assert "Round 1" in str(screen.query_one("#findings-title").render())
        await pilot.press("[")  # there is no round before round 1
        await pilot.pause()
        assert screen.target.number == 1
        loads = screen.loads
        await pilot.press("]")
        await wait_until(
            pilot, lambda: screen.loads > loads, what="the findings of the next round to load"
        )
        assert screen.target.number == 2 and screen.blockers_only


async def test_the_palette_opens_a_sessions_latest_findings(project: Project) -> None:
    give_findings(project)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("ctrl+p")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, CommandPalette),
            what="the command palette to open",
        )
        await search_palette(pilot, f"Findings: {AUTH}")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, FindingsScreen),
            what="the findings screen to open from the palette",
        )
        assert app.screen.target.number == 2


async def test_f_on_the_session_opens_the_latest_round(project: Project) -> None:
    give_findings(project)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        app.open_session(AUTH)
        await wait_until(
            pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
        )
        await pilot.press("F")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, FindingsScreen),
            what="the findings screen to open",
        )
        assert app.screen.target.number == 2
        await pilot.press("escape")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, SessionScreen),
            what="the session screen to be back",
        )


async def test_findings_follow_a_reviewer_file(project: Project) -> None:
    s = give_findings(project)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_findings(pilot)
        assert "Race in the cache" not in titles(app)
        path = s / R2 / "quality-1.md"
        text = review(
            "Quality",
            ("Dead code", "info", "src/util.py:L3"),
            ("Race in the cache", "high", "src/cache.py:L7"),
        )
        tmp = path.with_name("quality-1.md.tmp")
        tmp.write_text(text)
        tmp.replace(path)
        await wait_until(
            pilot,
            lambda: "Race in the cache" in titles(app),
            what='the new finding "Race in the cache" to be listed',
        )
        assert app.screen is screen
        assert titles(app)[:2] == ["Token not verified", "Race in the cache"]
        assert count(app).startswith("4 of 4 findings")


def test_snapshot_findings_screen(snap_compare, project: Project) -> None:
    give_findings(project)

    async def run_before(pilot: Pilot) -> None:
        await open_findings(pilot)
        pilot.app.clear_notifications()
        await pilot.pause()

    app = make_app(project, clock=fixed_clock)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


async def test_sorted_by_evolution_s_reverses_it_all(project: Project) -> None:
    """By evolution the round before's findings are a value like the others: `S` puts them
    first (it changed nothing while they were held last whatever the sort)."""
    give_findings(project)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_findings(pilot)
        await pilot.press("s", "s")
        assert screen.query_state.sort == "evolution"
        evolutions = [table(app).get_cell(k, "evolution").plain for k in table(app).row_keys]
        assert evolutions == ["new", "open", "open", "pending", "pending"]
        await pilot.press("S")
        evolutions = [table(app).get_cell(k, "evolution").plain for k in table(app).row_keys]
        assert evolutions == ["pending", "pending", "open", "open", "new"]


async def test_s_sorts_by_column_and_slash_searches(project: Project) -> None:
    give_findings(project)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_findings(pilot)
        await pilot.press("s")  # by blocker: the blocker first, then severity order
        assert screen.query_state.sort == "blocker"
        await pilot.press("s", "s")  # evolution, then title
        assert screen.query_state.sort == "title" and "by title" in count(app)
        # A → Z, the previous round's resolved findings after the others whatever the sort.
        assert titles(app) == [
            "Dead code",
            "Log leak",
            "Token not verified",
            "Naming",
            "No rate limit",
        ]
        await pilot.press("S")  # reversed
        assert "by title ↑" in count(app)
        assert titles(app)[:3] == ["Token not verified", "Log leak", "Dead code"]
        await pilot.press("s")  # by file
        assert screen.query_state.sort == "where" and not screen.query_state.reverse

        # Typed in one burst: the box has focus before the next key; `/` is text in the box.
        await pilot.press("slash", *"src/log", "enter")
        assert screen.query_state.search == "src/log"
        assert titles(app) == ["Log leak"]
        assert '"src/log"' in count(app) and count(app).startswith("1 of 3 findings")
        assert app.focused is table(app) and app.screen is screen
        await pilot.press("escape")  # clears the search first
        assert len(titles(app)) == 5 and app.screen is screen
        await pilot.press("slash", *"principal")  # reviewers are searched too
        assert titles(app) == ["Token not verified", "Log leak", "Naming", "No rate limit"]
        await pilot.press("escape", "escape")  # clear, then back
        await wait_until(
            pilot, lambda: isinstance(app.screen, RoundScreen), what="the round screen to be back"
        )


async def test_the_detail_steps_and_follows_its_file(project: Project) -> None:
    s = give_findings(project)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await open_findings(pilot)
        await pilot.press("enter")  # Token not verified
        await finding_shown(pilot)
        detail = app.screen
        meta = str(detail.query_one("#finding-meta").render())
        assert "critical" in meta and "blocker" in meta and "open" in meta
        assert "src/auth.py:10" in meta and "principal-1" in meta
        assert f"{R2}/principal-1.md:" in meta
        assert "Token not verified, explained." in detail._text
        crumbs = detail.query_one("#crumbs").plain
        assert "Findings" in crumbs and "Token not verified" in crumbs
        await pilot.press("y")
        assert app.clipboard == "src/auth.py:10"

        await pilot.press("]")  # the next finding of the round: Log leak
        await wait_until(
            pilot, lambda: detail.finding is not None, what="the next finding to be shown"
        )
        assert detail.finding.title == "Log leak"
        await pilot.press("[")
        await wait_until(
            pilot, lambda: detail.finding is not None, what="the finding before to be shown"
        )
        assert detail.finding.title == "Token not verified"

        # The reviewer rewrites the finding: the detail follows, live.
        path = s / R2 / "principal-1.md"
        text = path.read_text().replace("Token not verified, explained.", "Now with a fix.")
        tmp = path.with_name("principal-1.md.tmp")
        tmp.write_text(text)
        tmp.replace(path)
        await wait_until(
            pilot,
            lambda: "Now with a fix." in (detail._text or ""),
            what="the detail to show the edited text",
        )
        # ... and drops it: round 1 had it; round 2 has no synthesis yet: pending, not
        # resolved (the round's findings are not all in) ...
        tmp.write_text(review("Principal", ("Log leak", "medium", "src/log.py:L5")))
        tmp.replace(path)
        await wait_until(
            pilot,
            lambda: detail.finding.evolution == "pending",
            what="the finding to show pending once its reviewer rewrote it",
        )
        assert "not re-reviewed yet" in str(detail.query_one("#finding-meta").render())
        # ... until round 2's synthesis is written: then round 2 fixed it.
        (s / "rounds" / "round-2" / "final.md").write_text("# Review\n\n**Verdict**: APPROVE\n")
        await wait_until(
            pilot,
            lambda: detail.finding.evolution == "resolved",
            what="the finding to show resolved once round 2 is synthesised",
        )
        assert "resolved" in str(detail.query_one("#finding-meta").render())
        # Round 1 loses it too: it is gone from round 2's list; its last text stays.
        r1 = s / "rounds" / "round-1" / "reviews" / "principal-1.md"
        r1.write_text(review("Principal", ("Naming", "low", "")))
        await wait_until(pilot, lambda: detail.gone, what="the detail to say its finding is gone")
        assert "not in round 2 now" in str(detail.query_one("#finding-note").render())
        assert "Token not verified" in detail._text  # round 1's record of it, as last read


def test_snapshot_finding_detail(snap_compare, project: Project) -> None:
    give_findings(project)

    async def run_before(pilot: Pilot) -> None:
        await open_findings(pilot)
        await pilot.press("enter")
        await wait_until(
            pilot,
            lambda: isinstance(pilot.app.screen, FindingScreen),
            what="the finding screen to open",
        )
        await wait_until(
            pilot, lambda: pilot.app.screen.loads > 0, what="the finding screen to load its finding"
        )
        pilot.app.clear_notifications()
        await pilot.pause()

    app = make_app(project, clock=fixed_clock)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


async def test_the_screens_keys_are_in_the_palette(project: Project) -> None:
    give_findings(project)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_findings(pilot)
        await pilot.press("ctrl+p")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, CommandPalette),
            what="the command palette to open",
        )
        await search_palette(pilot, "Severity ≥ (key v)")
        await wait_until(
            pilot,
            lambda: app.screen is screen and screen.min_severity == "low",
            what="the palette's command to set severity ≥ low",
        )
        await pilot.press("ctrl+p")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, CommandPalette),
            what="the command palette to open",
        )
        await search_palette(pilot, "Blockers (key b)")
        await wait_until(
            pilot, lambda: screen.blockers_only, what="the palette's command to show blockers only"
        )


def fake_editor(tmp_path: Path, code: int = 0) -> tuple[Path, Path]:
    """An editor that records its arguments, one per line, and exits with `code`."""
    record = tmp_path / "editor-args.txt"
    (tmp_path / "bin").mkdir(exist_ok=True)
    script = tmp_path / "bin" / "vim"  # named like vim: opened at `+LINE FILE`
    script.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > "{record}"\nexit {code}\n')
    script.chmod(0o755)
    return script, record


async def test_e_opens_the_finding_in_the_editor_and_comes_back(
    project: Project, tmp_path: Path, monkeypatch
) -> None:
    give_findings(project)
    (project.root / "src").mkdir()
    (project.root / "src" / "auth.py").write_text("x = 1\n" * 20)
    script, record = fake_editor(tmp_path)
    monkeypatch.setenv("VISUAL", f"{script} -n")  # its own argument is kept
    app = make_app(project, clock=fixed_clock)
    suspended = []

    @contextmanager
    def suspend():
        suspended.append(True)  # a headless driver cannot suspend; the real one does
        yield

    monkeypatch.setattr(app, "suspend", suspend)
    toasts: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_findings(pilot)
        monkeypatch.setattr(app, "notify", lambda m, **kw: toasts.append(m))
        await pilot.press("e")  # Token not verified: src/auth.py:10
        await wait_until(
            pilot,
            lambda: record.exists() and toasts,
            what="the editor to be run and a toast to say so",
        )
        assert record.read_text().split("\n")[:3] == [
            "-n",
            "+10",
            str((project.root / "src" / "auth.py").resolve()),
        ]
        assert suspended == [True] and app.screen is screen
        assert toasts == ["Back from src/auth.py:10 in vim."]

        await pilot.press("j")  # Log leak: src/log.py does not exist in the project
        await pilot.press("e")
        await wait_until(
            pilot, lambda: len(toasts) == 2, what="a second toast (the file does not exist)"
        )
        assert "does not exist" in toasts[1] and suspended == [True]

        record.unlink()
        await pilot.press("k", "enter")  # the detail has `e` too
        await finding_shown(pilot)
        await pilot.press("e")
        await wait_until(
            pilot,
            lambda: record.exists() and len(toasts) == 3,
            what="the editor to be run again and a third toast",
        )
        assert "+10" in record.read_text() and isinstance(app.screen, FindingScreen)


async def test_e_without_an_editor_or_outside_the_project_says_so(
    project: Project, tmp_path: Path, monkeypatch
) -> None:
    s = give_findings(project)
    outside = tmp_path / "secret.py"
    outside.write_text("x\n")
    path = s / R2 / "principal-1.md"
    path.write_text(review("Principal", ("Escape", "critical", f"{outside}:L1")))
    set_mtime(s, NOW - timedelta(minutes=3))  # keep the list's order
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    app = make_app(project, clock=fixed_clock)
    launched = []
    monkeypatch.setattr(app, "suspend", lambda: launched.append(True))
    toasts: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        await open_findings(pilot)
        monkeypatch.setattr(app, "notify", lambda m, **kw: toasts.append(m))
        assert titles(app)[0] == "Escape"
        await pilot.press("e")
        await wait_until(pilot, lambda: toasts, what="a toast saying why the editor cannot open")
        assert "not in this project" in toasts[0] and not launched


def test_snapshot_findings_filtered_sorted_searched(snap_compare, project: Project) -> None:
    """≥ low, sorted by file descending, searched for `src`: the count line says all three."""
    give_findings(project)

    async def run_before(pilot: Pilot) -> None:
        screen = await open_findings(pilot)
        await pilot.press("v", "s", "s", "s", "s", "S", "slash", *"src", "enter")
        await wait_until(
            pilot, lambda: screen.query_state.search == "src", what='the search for "src" to apply'
        )
        pilot.app.clear_notifications()
        await pilot.pause()

    app = make_app(project, clock=fixed_clock)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


async def test_columns_fit_their_rows_after_a_filter(project: Project) -> None:
    """A column is as wide as its widest cell shown: a filter that hides the long rows narrows
    it, and showing them again gives back the same widths (DataTable only ever widens)."""
    from textual.widgets.data_table import ColumnKey

    s = give_findings(project)
    long = "A very long title about a race in the cache invalidation of the session"
    (s / R2 / "quality-1.md").write_text(
        review("Quality", ("Dead code", "info", "src/util.py:L3"), (long, "low", "src/x.py:L1"))
    )
    set_mtime(s, NOW - timedelta(minutes=3))
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await open_findings(pilot)
        t = table(app)
        await pilot.pause()
        width = t.columns[ColumnKey("title")].content_width
        await pilot.press("b")  # the blocker alone: a short title
        await pilot.pause()
        assert t.columns[ColumnKey("title")].content_width == len("Token not verified")
        assert t.virtual_size.width <= t.size.width  # no horizontal scrollbar
        await pilot.press("b")
        await pilot.pause()
        assert t.columns[ColumnKey("title")].content_width == width


def test_snapshot_findings_at_80_columns(snap_compare, project: Project) -> None:
    """80×24: short words in the short columns (Sev, B, Evol), the room to title and file."""
    give_findings(project)

    async def run_before(pilot: Pilot) -> None:
        await open_findings(pilot)
        pilot.app.clear_notifications()
        await pilot.pause()

    app = make_app(project, clock=fixed_clock)
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


async def test_t_without_triage_says_why(project: Project, monkeypatch) -> None:
    """No ocr.db triage in this round: `t` is not in the Footer and, pressed, says why."""
    give_findings(project)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await open_findings(pilot)
        toasts: list[str] = []
        monkeypatch.setattr(app, "notify", lambda m, **kw: toasts.append(str(m)))
        keys = {k for k, b in app.screen.active_bindings.items() if b.enabled and b.binding.show}
        assert "t" not in keys and "v" in keys
        await pilot.press("t")
        await wait_until(pilot, lambda: toasts, what="a toast saying why there is no triage")
        assert "No triage in this round" in toasts[0]


async def test_the_detail_steps_in_the_tables_order_and_back_lands_on_it(project: Project) -> None:
    """Sorted by title: `]` in the detail goes to the next row of the table, not the round's
    default order; Esc puts the table's cursor on the finding shown last."""
    give_findings(project)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_findings(pilot)
        await pilot.press("s", "s", "s")  # by title: Dead code, Log leak, Token not verified, …
        assert titles(app)[:3] == ["Dead code", "Log leak", "Token not verified"]
        await pilot.press("g", "enter")
        await finding_shown(pilot)
        detail = app.screen
        assert detail.finding.title == "Dead code"
        await pilot.press("]")
        await wait_until(
            pilot, lambda: detail.finding is not None, what="the next finding to be shown"
        )
        assert detail.finding.title == "Log leak"  # the table's next row (by severity: Token)
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen, what="the findings screen to be back")
        assert table(app).cursor_row == 1  # on Log leak
