"""Drill-down screens (session -> round -> document), driven by keys against a stub App."""

from __future__ import annotations

import html
import os
import re
import shutil
from datetime import timedelta
from pathlib import Path

import pytest
from textual.widgets import Markdown

from ocr_tui.core.document_read import MAX_RENDER
from ocr_tui.ui.screens.document.screen import DocumentScreen
from ocr_tui.ui.screens.ocr.round.screen import RoundScreen
from ocr_tui.ui.screens.session.screen import SessionScreen
from ocr_tui.ui.widgets.breadcrumb import Breadcrumb

try:
    from .builders import wait_until
    from .drilldown_tree import NOW, SID, DrillApp, build_tree, freeze_mtimes, write
except ImportError:  # tests/ui collected as a plain directory
    from builders import wait_until
    from drilldown_tree import NOW, SID, DrillApp, build_tree, freeze_mtimes, write

SIZE = (120, 36)
SNAP_ROOT = Path("/tmp/ocr-tui-drilldown-snapshots")  # fixed: the path line is on screen
R1_PRINCIPAL = "rounds/round-1/reviews/principal-1.md"
R2_PRINCIPAL = "rounds/round-2/reviews/principal-1.md"


async def wait_for(pilot, condition, timeout: float = 5.0, *, what: str) -> None:
    """`builders.wait_until` with this file's shorter timeout."""
    await wait_until(pilot, condition, timeout, what=what)


def crumbs(app) -> str:
    return app.screen.query_one(Breadcrumb).plain


def doc_source(app) -> str:
    return app.screen.query_one("#doc", Markdown).source


def screen_svg(app) -> str:
    return app.export_screenshot()


def screen_text(app) -> str:
    """The screen's text, roughly (the SVG's text runs, unescaped)."""
    runs = re.findall(r"<text [^>]*>([^<]*)</text>", screen_svg(app))
    return html.unescape("".join(runs)).replace("\xa0", " ")


async def doc_ready(pilot, rel: str | None = None) -> None:
    app = pilot.app

    def ready() -> bool:
        s = app.screen
        return (
            isinstance(s, DocumentScreen)
            and (rel is None or s.rel_path == rel)
            and s.state is not None
            and s.state.rel == s.rel_path
            and s.loads > 0
        )

    await wait_for(pilot, ready, what=f"document {rel} to be read and shown")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    build_tree(tmp_path / "proj")
    return tmp_path / "proj"


# -- navigation ------------------------------------------------------------------------------


async def test_enter_round_then_reviewer_then_escape_back(tree: Path) -> None:
    app = DrillApp(tree, lambda: SessionScreen(SID))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
        )
        assert app.focused is not None and app.focused.id == "rounds"
        assert app.focused.cursor_key == "rounds/round-2"  # the current round, as `c` opens
        assert crumbs(app) == f"Sessions › {SID}"
        await pilot.press("g", "enter")  # the first round
        await wait_for(
            pilot, lambda: isinstance(app.screen, RoundScreen), what="the round screen to open"
        )
        assert app.screen.round_number == 1
        assert crumbs(app) == f"Sessions › {SID} › Round 1"
        assert "REQUEST CHANGES" in str(app.screen.query_one("#verdict").render())
        assert app.screen.query_one("#verdict").has_class("-request")
        await pilot.press("enter")  # first reviewer: Principal #1
        await doc_ready(pilot, R1_PRINCIPAL)
        assert "Token not verified" in doc_source(app)
        assert crumbs(app) == f"Sessions › {SID} › Round 1 › principal-1.md"
        assert str(app.screen.query_one("#doc-path").render()).endswith(R1_PRINCIPAL)
        await pilot.press("escape")
        await wait_for(
            pilot, lambda: isinstance(app.screen, RoundScreen), what="the round screen to be back"
        )
        await pilot.press("escape")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, SessionScreen),
            what="the session screen to be back",
        )
        assert app.focused is not None and app.focused.id == "rounds"
        await pilot.press("escape")
        await wait_for(
            pilot, lambda: len(app.screen_stack) == 1, what="only the first screen to be left"
        )
        await pilot.press("escape")  # nothing below the list: stays
        await pilot.pause()
        assert len(app.screen_stack) == 1


async def test_tab_to_documents_and_map_runs(tree: Path) -> None:
    app = DrillApp(tree, lambda: SessionScreen(SID))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
        )
        seen = []
        for _ in range(3):
            await pilot.press("tab")
            seen.append(app.focused.id)
        assert set(seen) == {"rounds", "runs", "documents"}
        while app.focused.id != "documents":
            await pilot.press("tab")
        await pilot.press("enter")  # context.md (documents are sorted)
        await doc_ready(pilot, "context.md")
        assert "Adds token authentication." in doc_source(app)
        assert crumbs(app) == f"Sessions › {SID} › context.md"
        await pilot.press("escape")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, SessionScreen),
            what="the session screen to be back",
        )
        assert app.focused.id == "documents"  # focus is restored
        while app.focused.id != "runs":
            await pilot.press("tab")
        await pilot.press("down", "enter")  # run-1: map.md, then topology.md
        await doc_ready(pilot, "map/runs/run-1/topology.md")
        assert "Canonical File List" in doc_source(app)
        assert crumbs(app) == f"Sessions › {SID} › Map run 1 › topology.md"


async def test_round_brackets_step_in_place(tree: Path) -> None:
    app = DrillApp(tree, lambda: RoundScreen(SID, 1))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot, lambda: isinstance(app.screen, RoundScreen), what="the round screen to open"
        )
        screen, depth = app.screen, len(app.screen_stack)
        await pilot.press("right_square_bracket")
        assert screen.round_number == 2 and app.screen is screen
        assert crumbs(app).endswith("› Round 2")
        assert screen.query_one("#verdict").has_class("-progress")
        assert "IN PROGRESS" in str(screen.query_one("#verdict").render())
        assert screen.query_one("#reviewers").row_keys == [  # keyed by path (names can clash)
            "rounds/round-2/reviews/principal-1.md",
            "rounds/round-2/reviews/security-1.md",
        ]
        assert not screen.query_one("#round-docs").display
        await pilot.press("]")  # no round 3: stays
        assert screen.round_number == 2
        await pilot.press("[")
        assert screen.round_number == 1 and len(app.screen_stack) == depth
        assert screen.query_one("#round-docs").row_keys == ["discourse.md", "final.md"]
        await pilot.press("f")
        await doc_ready(pilot, "rounds/round-1/final.md")


async def test_document_brackets_step_between_rounds(tree: Path) -> None:
    app = DrillApp(tree, lambda: RoundScreen(SID, 2))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot, lambda: isinstance(app.screen, RoundScreen), what="the round screen to open"
        )
        round_screen = app.screen
        await pilot.press("enter")
        await doc_ready(pilot, R2_PRINCIPAL)
        doc, depth = app.screen, len(app.screen_stack)
        await pilot.press("[")  # same reviewer, previous round, same screen
        await doc_ready(pilot, R1_PRINCIPAL)
        assert app.screen is doc and len(app.screen_stack) == depth
        assert "Token not verified" in doc_source(app)
        assert crumbs(app).endswith("› Round 1 › principal-1.md")
        await pilot.press("[")  # no round 0: stays
        assert doc.rel_path == R1_PRINCIPAL
        await pilot.press("]")
        await doc_ready(pilot, R2_PRINCIPAL)
        await pilot.press("escape")
        await wait_for(
            pilot, lambda: app.screen is round_screen, what="the round screen to be back"
        )
        await pilot.press("down", "enter")  # security-1.md only exists in round 2
        await doc_ready(pilot, "rounds/round-2/reviews/security-1.md")
        await pilot.press("[")  # -> back to the round screen, now showing round 1
        await wait_for(
            pilot,
            lambda: app.screen is round_screen,
            what="the round screen to be back, on round 1",
        )
        assert round_screen.round_number == 1 and len(app.screen_stack) == depth - 1


async def test_breadcrumb_click_goes_back(tree: Path) -> None:
    app = DrillApp(tree, lambda: SessionScreen(SID))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
        )
        await pilot.press("g", "enter", "enter")
        await doc_ready(pilot, R1_PRINCIPAL)
        # "Sessions › 2026-11-22-feat-auth › Round 1 › principal-1.md": click "Round 1"
        await pilot.click(Breadcrumb, offset=(len(f"Sessions › {SID} › ") + 2, 0))
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, RoundScreen),
            what="the round screen to open from the breadcrumb",
        )
        await pilot.click(Breadcrumb, offset=(3, 0))  # "Sessions"
        await wait_for(
            pilot, lambda: len(app.screen_stack) == 1, what="only the first screen to be left"
        )


async def test_q_quits(tree: Path) -> None:
    app = DrillApp(tree, lambda: RoundScreen(SID, 1))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot, lambda: isinstance(app.screen, RoundScreen), what="the round screen to open"
        )
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0


async def test_map_only_session(tmp_path: Path) -> None:
    sid = "2026-11-23-map-only"
    s = tmp_path / ".ocr" / "sessions" / sid
    write(s / "discovered-standards.md", "# Standards\n")
    write(s / "map" / "runs" / "run-1" / "topology.md", "# Topology\n")
    app = DrillApp(tmp_path, lambda: SessionScreen(sid))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
        )
        assert not app.screen.query_one("#rounds-pane").display
        assert app.screen.query_one("#runs").row_keys == ["map/runs/run-1/topology.md"]
        await pilot.press("c")  # no round: a notice, no crash
        while app.focused.id != "runs":
            await pilot.press("tab")
        await pilot.press("enter")
        await doc_ready(pilot, "map/runs/run-1/topology.md")
        # A map run's file: `[` / `]` step runs; the only run: neither has one to go to.
        shown = {b.binding.description for b in app.screen.active_bindings.values() if b.enabled}
        assert not {"Prev run", "Next run", "Prev round", "Next round"} & shown
        await pilot.press("]")  # no later run: stays
        assert app.screen.rel_path == "map/runs/run-1/topology.md"


# -- live ------------------------------------------------------------------------------------


async def test_open_document_reloads_in_place_keeping_scroll(tree: Path) -> None:
    build_tree(tree, long_reviews=True)
    app = DrillApp(tree, lambda: DocumentScreen(SID, R1_PRINCIPAL))
    path = tree / ".ocr" / "sessions" / SID / R1_PRINCIPAL
    async with app.run_test(size=SIZE) as pilot:
        await doc_ready(pilot, R1_PRINCIPAL)
        doc = app.screen
        scroll = doc.query_one("#doc-scroll")
        await wait_for(
            pilot,
            lambda: scroll.max_scroll_y > 20,
            what="the document to be laid out taller than its view",
        )
        await pilot.press(*"jjjjjjjj")
        assert scroll.scroll_y == 8
        renders = doc.renders

        # Touched but unchanged: re-read, not re-rendered.
        later = path.stat().st_mtime + 60
        os.utime(path, (later, later))
        await app.rescan()
        await wait_for(
            pilot,
            lambda: doc.state.key[1] == path.stat().st_mtime_ns,
            what="the document to reload at the file's new time",
        )
        assert doc.renders == renders

        path.write_text(path.read_text().replace("No rate limit", "Rate limit added"))
        await app.rescan()
        await wait_for(
            pilot,
            lambda: "Rate limit added" in doc_source(app),
            what="the document to reload with the edit",
        )
        await wait_for(
            pilot,
            lambda: "Rate limit added" in screen_text(app),
            what="the screen to show the edit",
        )
        assert doc.renders == renders + 1
        assert scroll.scroll_y == 8
        assert app.screen is doc

        path.unlink()
        await app.rescan()
        note = doc.query_one("#doc-note")
        await wait_for(
            pilot,
            lambda: note.display and note.has_class("-deleted"),
            what="the note that the document was deleted",
        )
        assert "This file was deleted" in str(note.render())
        assert "Rate limit added" in doc_source(app)  # the last version stays
        path.write_text("# Back again\n")
        await app.rescan()
        await wait_for(
            pilot, lambda: "Back again" in doc_source(app), what="the recreated file to be shown"
        )
        assert not note.display


async def test_document_polls_for_edits_the_signal_misses(tree: Path, monkeypatch) -> None:
    monkeypatch.setattr(DocumentScreen, "POLL_SECONDS", 0.1)
    app = DrillApp(tree, lambda: DocumentScreen(SID, "context.md"))
    path = tree / ".ocr" / "sessions" / SID / "context.md"
    async with app.run_test(size=SIZE) as pilot:
        await doc_ready(pilot, "context.md")
        path.write_text("# Change Context\n\nRewritten without any signal.\n")
        await wait_for(
            pilot,
            lambda: "without any signal" in doc_source(app),
            what="the unsignalled edit to be found by polling",
        )


async def test_session_changes_refresh_in_place_and_removal_is_shown(tree: Path) -> None:
    app = DrillApp(tree, lambda: SessionScreen(SID))
    session_dir = tree / ".ocr" / "sessions" / SID
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
        )
        screen = app.screen
        rounds = screen.query_one("#rounds")
        assert rounds.cursor_key == "rounds/round-2"  # keyed by directory (round-01, round-1)
        await pilot.press("up")  # the user's choice: round 1
        write(session_dir / "rounds" / "round-3" / "reviews" / "principal-1.md", "# P\n")
        await app.rescan()
        keys = ["rounds/round-1", "rounds/round-2", "rounds/round-3"]
        await wait_for(
            pilot, lambda: rounds.row_keys == keys, what="the rounds table to list round 3"
        )
        assert rounds.cursor_key == "rounds/round-1"  # stays put (untouched, it follows: R3)
        await pilot.press("enter")
        await wait_for(
            pilot, lambda: isinstance(app.screen, RoundScreen), what="the round screen to open"
        )
        shutil.rmtree(session_dir)
        await app.rescan()
        for s in (app.screen, screen):
            await wait_for(
                pilot,
                lambda s=s: s.query_one("#removed").display,
                what="each screen to say the session was removed",
            )
        assert isinstance(app.screen, RoundScreen)  # not popped
        assert "removed" in str(app.screen.query_one("#removed").render())
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, what="the session screen to be back")


async def test_elapsed_ticks_with_a_live_clock(tree: Path) -> None:
    clock = {"now": NOW}
    app = DrillApp(tree, lambda: SessionScreen(SID), fixed_clock=False)
    app.now = lambda: clock["now"]
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
        )
        meta = app.screen.query_one("#session-meta")
        assert "elapsed 42m 05s" in str(meta.render()).replace("\xa0", " ")
        clock["now"] = NOW + timedelta(seconds=3)
        shown = lambda: str(meta.render()).replace("\xa0", " ")  # noqa: E731
        await wait_for(
            pilot, lambda: "elapsed 42m 08s" in shown(), what="the elapsed time to tick to 42m 08s"
        )


# -- what reaches the terminal ---------------------------------------------------------------


async def test_escape_sequences_never_reach_the_screen(tree: Path) -> None:
    session_dir = tree / ".ocr" / "sessions" / SID
    evil = (
        "# Title \x1b]0;pwned\x07\n\nclear \x1b[2J here\n\n"
        "clipboard \x1b]52;c;aGk=\x07 done\n\nentity &#27;]0;x&#7; end\n"
    )
    write(session_dir / R1_PRINCIPAL, evil)
    write(session_dir / "rounds" / "round-1" / "reviews" / "evil\x1b[31m-1.md", evil)
    app = DrillApp(tree, lambda: RoundScreen(SID, 1))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot, lambda: isinstance(app.screen, RoundScreen), what="the round screen to open"
        )
        assert "\x1b" not in screen_svg(app)
        assert "␛" in screen_text(app)  # the reviewer named with an ESC, made visible
        await pilot.press("enter")  # the first reviewer: the one with the ESC in its name
        await doc_ready(pilot, "rounds/round-1/reviews/evil\x1b[31m-1.md")
        assert "evil␛[31m-1.md" in crumbs(app)
        await wait_for(
            pilot,
            lambda: "clipboard" in screen_text(app),
            what="the document's clipboard line to be drawn",
        )
        svg = screen_svg(app)
        assert "\x1b" not in svg and "\x07" not in svg
        assert "\x1b" not in doc_source(app)
        assert "␛]52;c;aGk=" in doc_source(app)


async def test_big_and_binary_documents_show_a_note(tree: Path) -> None:
    session_dir = tree / ".ocr" / "sessions" / SID
    (session_dir / "big.md").write_bytes(b"# Big\n" + b"word " * (MAX_RENDER // 4))
    (session_dir / "blob.md").write_bytes(b"\x00\x01\x02" * 100)
    app = DrillApp(tree, lambda: DocumentScreen(SID, "big.md"))
    async with app.run_test(size=SIZE) as pilot:
        await doc_ready(pilot, "big.md")
        note = app.screen.query_one("#doc-note")
        assert note.display and "Only the first 512.0 KiB" in str(note.render())
        app.push_screen(DocumentScreen(SID, "blob.md"))
        await doc_ready(pilot, "blob.md")
        note = app.screen.query_one("#doc-note")
        assert note.display and "binary" in str(note.render())
        assert doc_source(app) == ""


# -- snapshots -------------------------------------------------------------------------------


def snap_tree(name: str) -> Path:
    """A fresh tree at a fixed path (the path is on screen): what an earlier run left there
    (another version of the tree, a file since dropped) must not show."""
    root = SNAP_ROOT / name / "proj"
    shutil.rmtree(root.parent, ignore_errors=True)
    build_tree(root)
    freeze_mtimes(root)
    return root


def test_snapshot_session_screen(snap_compare) -> None:
    app = DrillApp(snap_tree("session"), lambda: SessionScreen(SID))

    async def run_before(pilot) -> None:
        await wait_for(
            pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
        )

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_snapshot_round_screen(snap_compare) -> None:
    app = DrillApp(snap_tree("round"), lambda: RoundScreen(SID, 1))

    async def run_before(pilot) -> None:
        await wait_for(
            pilot, lambda: isinstance(app.screen, RoundScreen), what="the round screen to open"
        )
        await pilot.press("down")

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_snapshot_document_screen(snap_compare) -> None:
    app = DrillApp(snap_tree("document"), lambda: DocumentScreen(SID, "rounds/round-1/final.md"))

    async def run_before(pilot) -> None:
        await doc_ready(pilot, "rounds/round-1/final.md")
        await wait_for(
            pilot,
            lambda: "Token is not verified" in screen_text(app),
            what='the final synthesis to show "Token is not verified"',
        )

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
