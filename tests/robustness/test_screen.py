"""The dashboard on every hostile input: it starts, lists every session, opens the hostile
session and its documents, and no raw control sequence is on the rendered screen."""

from __future__ import annotations

import html
import re

import pytest

from ocr_tui.cli import make_app
from ocr_tui.core.project import find_project
from tests.ui.builders import wait_until

from . import cases_db  # noqa: F401 - registers the ocr.db cases
from .cases import CASES, SECRET, make_project
from .support import assert_terminal_safe, clock, fresh_scan, tree_digest

SIZE = (120, 36)
# The big ones cost seconds to draw and add nothing here that the smaller ones do not test.
MAX_DOCS = 1  # documents opened per hostile session (each costs a screen)
SKIP = {"reviewers_10000": "10,000 rows: tests/robustness/test_hostile covers the outputs"}


def screen_checked(app, where: str) -> str:
    """The screen as rendered (an SVG of it): every character checked, its text returned."""
    svg = app.export_screenshot()
    assert_terminal_safe(svg, f"the rendered screen ({where})")
    runs = re.findall(r"<text [^>]*>([^<]*)</text>", svg)
    return html.unescape("".join(runs)).replace("\xa0", " ")


def _writes_db(name: str) -> bool:
    return CASES[name].__module__.endswith("cases_db") or "db" in name


TOGETHER = sorted(n for n in set(CASES) - set(SKIP) if not _writes_db(n))
ALONE = sorted(n for n in set(CASES) - set(SKIP) if _writes_db(n))


async def _show(app, pilot, views, cases) -> str:
    """Open the list, then each hostile session and its documents; every screen checked."""
    await wait_until(pilot, lambda: app.status != "loading", what="the first scan to be applied")
    table = app.main_screen.table
    await wait_until(pilot, lambda: table.row_count == len(views), what="a row per session")
    assert set(app.sessions) == set(views)
    await pilot.pause()
    shown = screen_checked(app, "session list")
    for case in cases:
        if case.sid is None or not case.screen:
            continue
        app.open_session(case.sid)
        await wait_until(
            pilot, lambda: len(app.screen_stack) == 2, what=f"session {case.sid!r} to open"
        )
        await pilot.pause()
        shown += screen_checked(app, f"session {case.sid!r}")
        for rel in case.docs[:MAX_DOCS]:
            app.open_document(case.sid, rel)
            await wait_until(
                pilot, lambda: len(app.screen_stack) == 3, what=f"document {rel!r} to open"
            )
            await pilot.pause(0.05)
            shown += screen_checked(app, f"document {rel!r}")
            app.pop_screen()
            await wait_until(
                pilot, lambda: len(app.screen_stack) == 2, what="the session screen to be back"
            )
        shown += await _round_readers(app, pilot, case.sid)
        app.pop_screen()
        await wait_until(pilot, lambda: len(app.screen_stack) == 1, what="the list to be back")
    return shown


async def _round_readers(app, pilot, sid: str) -> str:
    """The latest round's findings, its first finding's detail and its discourse (the screens
    that read the round's files themselves), each checked; back to the session screen."""
    from ocr_tui.ui.navigation import DiscourseTarget, FindingsTarget, FindingTarget

    view = app.sessions.get(sid)
    if view is None or view.framework != "ocr" or not view.rounds:
        return ""
    rnd = view.rounds[-1]
    shown = ""
    targets = [
        FindingsTarget(sid, rnd.number, rnd.path),
        DiscourseTarget(sid, rnd.number, rnd.path),
    ]
    for target in targets:
        app.open_target(target)
        await wait_until(pilot, lambda: len(app.screen_stack) == 3, what=f"{target} to open")
        screen = app.screen
        await wait_until(pilot, lambda s=screen: s.loads > 0, what=f"{target} to be read")
        await pilot.pause(0.05)
        shown += screen_checked(app, f"{type(screen).__name__} of {sid!r}")
        if isinstance(target, FindingsTarget) and screen.findings:
            first = screen.shown[0] if screen.shown else screen.findings[0]
            app.open_target(FindingTarget(sid, rnd.number, rnd.path, first.id))
            await wait_until(
                pilot, lambda: len(app.screen_stack) == 4, what="the finding screen to open"
            )
            detail = app.screen
            await wait_until(pilot, lambda d=detail: d.loads > 0, what="the finding to be read")
            await pilot.pause(0.05)
            shown += screen_checked(app, f"finding {first.id} of {sid!r}")
            app.pop_screen()
            await wait_until(
                pilot, lambda: len(app.screen_stack) == 3, what="the findings screen to be back"
            )
        app.pop_screen()
        await wait_until(
            pilot, lambda: len(app.screen_stack) == 2, what="the session screen to be back"
        )
    return shown


async def _run(tmp_path, monkeypatch, names: list[str]) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    root = make_project(tmp_path / "proj")
    outside = tmp_path / "outside"
    outside.mkdir()
    cases = [CASES[n](root, outside) for n in names]
    views = fresh_scan(root)
    digest = tree_digest(tmp_path)
    app = make_app(find_project(root), clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        shown = await _show(app, pilot, views, cases)
        assert SECRET not in shown
    assert tree_digest(tmp_path) == digest


async def test_dashboard_on_every_hostile_session_at_once(tmp_path, monkeypatch) -> None:
    """One project holding every hostile session that does not write ocr.db."""
    await _run(tmp_path, monkeypatch, TOGETHER)


@pytest.mark.parametrize("name", ALONE)
async def test_dashboard_on_hostile_ocr_db(name: str, tmp_path, monkeypatch) -> None:
    await _run(tmp_path, monkeypatch, [name])


async def test_dashboard_says_when_it_falls_back_to_polling(tmp_path, monkeypatch) -> None:
    from ocr_tui.core import inotify

    if not inotify.available():
        pytest.skip("inotify is Linux-only")

    def refuse(self, path):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(inotify.Inotify, "_add", refuse)
    monkeypatch.setenv("HOME", str(tmp_path))
    root = make_project(tmp_path / "proj")
    notes: list[str] = []
    app = make_app(find_project(root), clock=clock)
    real_notice = app.notice  # (news, not a reply to a key: `ui.message_board`)

    def notice(message, **kw):
        notes.append(str(message))
        return real_notice(message, **kw)

    monkeypatch.setattr(app, "notice", notice)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.polling, what="the app to fall back to polling")
        assert any("No space left on device" in n for n in notes)
        await wait_until(
            pilot, lambda: app.main_screen.table.row_count == 2, what="the list to show 2 rows"
        )
        screen_checked(app, "polling")
