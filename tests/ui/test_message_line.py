"""On a small terminal nothing covers the content: at 80x24 two stacked toasts
hid most of the findings table and sat over the `?` help, and a reply to the user's own key
(`src/api/middleware.py does not exist…`) was mixed in among the sessions' toasts. There, the
app's notifications are said on one reserved line above the footer, a reply first and never
replaced by news while it lasts; with room (120x40 and more) the news stay toasts."""

from __future__ import annotations

from textual.notifications import Notification
from textual.widgets._toast import Toast

from ocr_tui.ui.screens.help.screen import HelpScreen
from ocr_tui.ui.widgets.message_line import MessageLine, chosen, is_small, line_content

from .builders import loaded, wait_until

REPLY = "src/api/middleware.py does not exist in ~/proj."


def test_a_reply_is_said_first_and_the_news_are_counted() -> None:
    news = Notification("feat-auth: Parallel Reviews → Reviewer Discourse", "Phase")
    older = Notification("fix-cache: finished", "Session finished")
    reply = Notification(REPLY, severity="warning")
    ids = {news.identity, older.identity}
    assert chosen([older, reply, news], ids) == (reply, 2)  # the reply, whatever came after
    assert chosen([older, news], ids) == (news, 1)  # else the newest news
    assert chosen([], ids) == (None, 0)
    said = line_content(news, 1)
    assert said.plain == "+1 Phase: feat-auth: Parallel Reviews → Reviewer Discourse"
    hostile = Notification("a\x1b[2Jb\nsecond line", "t\x07")
    assert (
        "\x1b" not in line_content(hostile, 0).plain
        and "\x07" not in line_content(hostile, 0).plain
    )
    assert " · second line" in line_content(hostile, 0).plain  # one line


def test_small_is_below_120_columns_or_32_lines() -> None:
    from textual.geometry import Size

    assert is_small(Size(80, 24)) and is_small(Size(200, 30)) and is_small(Size(119, 60))
    assert not is_small(Size(120, 40)) and not is_small(Size(200, 60))


def line_of(app) -> MessageLine:
    return app.screen.query_one(MessageLine)


def toasts(app) -> list[Toast]:
    return list(app.screen.query(Toast))


async def test_at_80x24_the_line_says_it_and_nothing_covers_the_list(app) -> None:
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await loaded(pilot)
        app.clear_notifications()
        line = line_of(app)
        table = app.main_screen.table
        # the line sits between the pane and the footer: the content ends above it
        await wait_until(pilot, lambda: line.display, what="the message line to show")
        assert line.region.height == 1 and line.region.y == 22
        assert app.main_screen.query_one("#body").region.bottom == line.region.y
        app.notice("feat-auth: Parallel Reviews → Reviewer Discourse", title="Phase", timeout=60)
        await wait_until(
            pilot,
            lambda: "Reviewer Discourse" in line.text,
            what="the line to show the phase change",
        )
        app.notify(REPLY, severity="warning", timeout=0.6, markup=False)  # e on a finding
        await wait_until(
            pilot, lambda: REPLY in line.text, what="the line to show the editor's reply"
        )
        app.notice("fix-cache: finished", title="Session finished", timeout=60)
        await pilot.pause()
        assert REPLY in line.text and line.text.startswith("+2")  # not lost among them
        assert not toasts(app) and table.region.bottom <= line.region.y
        # the reply over, the newest news
        await wait_until(
            pilot,
            lambda: "fix-cache: finished" in line.text,
            timeout=5,
            what="the line to show the newest news once the reply is over",
        )
        assert line.text.startswith("+1 Session finished:")
        # the help shows the same line, at the same place: nothing over the help either
        await pilot.press("question_mark")
        await wait_until(
            pilot, lambda: isinstance(app.screen, HelpScreen), what="the help screen to open"
        )
        await wait_until(
            pilot,
            lambda: "fix-cache: finished" in line_of(app).text,
            what="the help's line to show the newest news",
        )
        assert line_of(app).region.y == 22 and not toasts(app)


async def test_with_room_the_news_are_toasts_and_the_line_is_not_there(app) -> None:
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await loaded(pilot)
        app.clear_notifications()
        app.notice("fix-cache: finished", title="Session finished", timeout=60)
        await wait_until(pilot, lambda: toasts(app), what="a toast with the news")
        assert not line_of(app).display
        await pilot.resize_terminal(80, 24)  # smaller: the toast becomes the line
        await wait_until(
            pilot,
            lambda: "fix-cache: finished" in line_of(app).text,
            what="the line to show the news at 80x24",
        )
        await wait_until(pilot, lambda: not toasts(app), what="the toasts to go")


def test_snapshot_a_reply_among_news_at_80x24(snap_compare, app) -> None:
    async def run_before(pilot) -> None:
        await loaded(pilot)
        app.clear_notifications()
        app.notice("feat-auth: Parallel Reviews → Reviewer Discourse", title="Phase", timeout=600)
        app.notify(REPLY, severity="warning", timeout=600, markup=False)
        await wait_until(
            pilot, lambda: REPLY in line_of(app).text, what="the line to show the editor's reply"
        )

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
