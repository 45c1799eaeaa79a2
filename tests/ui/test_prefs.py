"""The dashboard starts with the user's preferences (config file and flags)
and remembers a theme picked in the app."""

from __future__ import annotations

from ocr_tui.cli import make_app
from ocr_tui.core import config
from ocr_tui.core.prefs import Prefs

from .builders import SIZE, fixed_clock, loaded, wait_until


async def test_sort_filter_theme_and_problems_apply(project, monkeypatch) -> None:
    shown: list[str] = []
    prefs = Prefs(
        theme="textual-light", sort="name", filter="closed", problems=("config x: colour: bad",)
    )
    app = make_app(project, clock=fixed_clock, prefs=prefs)
    monkeypatch.setattr(app, "notice", lambda message, **kw: shown.append(str(message)))
    async with app.run_test(size=SIZE) as pilot:
        # not `loaded`: the list shows the closed sessions alone
        await wait_until(pilot, lambda: app.sessions and not app.unread, what="every session read")
        screen = app.main_screen
        shown_ids = {v.id for v in screen.visible()}
        await wait_until(
            pilot,
            lambda: set(screen.table.session_ids) == shown_ids,
            what="the list to show the filtered sessions",
        )
        assert (screen.sort, screen.filter) == ("name", "closed")
        assert app.theme == "textual-light"
        assert any("config x: colour: bad" in m for m in shown)  # (one notice for all)
        assert "Filter: closed" in str(screen.query_one("#filter-bar").render())


async def test_an_unknown_theme_says_so(project, monkeypatch) -> None:
    shown: list[str] = []
    app = make_app(project, clock=fixed_clock, prefs=Prefs(theme="\x1b[31mnope"))
    monkeypatch.setattr(app, "notice", lambda message, **kw: shown.append(str(message)))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert app.theme != "nope"
        assert any("is not one of the themes" in m and "\x1b" not in m for m in shown)
        assert len(shown) == 1 and "textual-light" not in shown[0]  # short: not the 21 names


async def test_a_theme_picked_is_remembered(project, tmp_path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('sort = "name"\n')
    app = make_app(project, clock=fixed_clock, prefs=Prefs(config=path))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        app.theme = "nord"  # what Textual's theme picker (ctrl+p: Change theme) does
        await wait_until(
            pilot,
            lambda: config.load(path=path).theme == "nord",
            what="the picked theme to be saved",
        )
    assert config.load(path=path).sort == "name"


async def test_without_a_config_file_nothing_is_written(project, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    app = make_app(project, clock=fixed_clock)  # as the tests build it: no prefs
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        app.theme = "nord"
        await pilot.pause()
    assert not (tmp_path / "ocr-tui").exists()
