"""A detail line that changes without changing its height repaints its widget alone: Textual's
`Static.update` lays the whole screen out again each time (no layout pass
when no size changed). One that grows still gets the room it needs."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widget import Widget
from textual.widgets import Static

from ocr_tui.ui.widgets.static_update import update_static

from .builders import wait_until


class Lines(App[None]):
    CSS = "#auto { height: auto; } #fixed { height: 3; }"

    def compose(self) -> ComposeResult:
        yield Static("one", id="auto")
        yield Static("one", id="fixed")


def spy_layouts(monkeypatch) -> list[str]:
    laid: list[str] = []
    original = Widget.refresh

    def refresh(self, *regions, layout=False, **kw):
        if layout:
            laid.append(str(self.id))
        return original(self, *regions, layout=layout, **kw)

    monkeypatch.setattr(Widget, "refresh", refresh)
    return laid


async def test_same_height_repaints_without_a_layout_pass(monkeypatch) -> None:
    app = Lines()
    async with app.run_test(size=(40, 10)) as pilot:
        auto, fixed = app.query_one("#auto", Static), app.query_one("#fixed", Static)
        await pilot.pause()
        laid = spy_layouts(monkeypatch)
        update_static(auto, "two")
        update_static(fixed, "two\nthree\nfour\nfive")  # its height is the CSS's
        assert laid == []
        await pilot.pause()
        assert "two" in str(auto.render_line(0).text)
        assert "two" in str(fixed.render_line(0).text)


async def test_a_taller_content_gets_its_room(monkeypatch) -> None:
    app = Lines()
    async with app.run_test(size=(40, 10)) as pilot:
        auto = app.query_one("#auto", Static)
        await pilot.pause()
        laid = spy_layouts(monkeypatch)
        update_static(auto, "one\ntwo\nthree")
        assert laid == ["auto"]
        await wait_until(pilot, lambda: auto.size.height == 3, what="the static to grow to 3 rows")
        update_static(auto, "wrapped " * 10)  # 80 cells at 40: two lines
        await wait_until(
            pilot, lambda: auto.size.height == 2, what="the static to shrink to 2 rows"
        )


async def test_hidden_widgets_wait_to_be_shown(monkeypatch) -> None:
    app = Lines()
    async with app.run_test(size=(40, 10)) as pilot:
        auto = app.query_one("#auto", Static)
        auto.display = False
        await pilot.pause()
        laid = spy_layouts(monkeypatch)
        update_static(auto, "one\ntwo\nthree")
        assert laid == []
        auto.display = True  # showing it lays it out, at its new height
        await wait_until(
            pilot, lambda: auto.size.height == 3, what="the shown static to be 3 rows high"
        )


async def test_the_hidden_phases_pane_shows_the_latest_phase_when_shown(project) -> None:
    """At 120 columns the detail pane hides its phases (the list shows the phase): changes
    made meanwhile are kept aside, and shown when a wider screen shows the pane."""
    from ocr_tui.cli import make_app

    from .builders import NOW, fixed_clock, iso, loaded
    from .test_live import AUTH, set_state

    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        app.main_screen.select_session(AUTH)
        timeline = app.main_screen.query_one("#dp-timeline", Static)
        assert not timeline.parent.display
        set_state(project, AUTH, current_phase="synthesis", updated_at=iso(NOW))
        await wait_until(
            pilot,
            lambda: app.sessions[AUTH].phase == "synthesis",
            what="feat-auth to be read at the synthesis phase",
        )
        await pilot.resize_terminal(160, 40)
        await wait_until(
            pilot,
            lambda: timeline.parent.display and timeline.size.height > 0,
            what="the phases pane to show on the wider screen",
        )
        await wait_until(
            pilot,
            lambda: "Final Synthesis" in str(timeline.render()),
            what="the phases pane to show Final Synthesis",
        )


async def test_keep_height_lays_out_only_to_grow(monkeypatch) -> None:
    """A session's text going 3 -> 2 -> 3 lines lays the screen out once, not twice."""
    app = Lines()
    async with app.run_test(size=(40, 10)) as pilot:
        auto = app.query_one("#auto", Static)
        update_static(auto, "1\n2\n3")
        await wait_until(pilot, lambda: auto.size.height == 3, what="the static to grow to 3 rows")
        laid = spy_layouts(monkeypatch)
        update_static(auto, "1\n2", keep_height=True)
        await pilot.pause()
        assert laid == [] and auto.size.height == 3  # the third line left blank
        assert "2" in str(auto.render_line(1).text)
        update_static(auto, "1\n2\n3", keep_height=True)
        update_static(auto, "1\n2\n3\n4", keep_height=True)  # growing lays out
        assert laid == ["auto"]
        await wait_until(pilot, lambda: auto.size.height == 4, what="the static to grow to 4 rows")
