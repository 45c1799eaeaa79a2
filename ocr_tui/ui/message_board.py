"""Where the app's notifications are shown: toasts on a terminal with room for them, the message
line (`ocr_tui.ui.widgets.message_line`) on a small one, where nothing may cover the content.

Two kinds: a reply to the user's own key (`App.notify`, what every screen calls: "No later
round.", "src/api/middleware.py does not exist in ~/proj.") and news, what happened on its own
(`notice`: the sessions' changes, a project found, polling, the config's problems). On the
line a reply is said first and is never replaced by news while it lasts; the news wait, the
newest said with how many more. Both stay Textual notifications (`app._notifications`, reaped
as they expire), so what is up is one collection whatever shows it.
"""

from __future__ import annotations

from textual import events
from textual.app import App, ScreenStackError
from textual.geometry import Size
from textual.notifications import Notification, Notifications, Notify, SeverityLevel
from textual.timer import Timer

from ocr_tui.ui import textual_compat as tc
from ocr_tui.ui.widgets.message_line import MessageLine, chosen, is_small


class MessageBoard(App[None]):
    """An App whose notifications go to toasts or to the message line (see the module)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._news: set[str] = set()  # identities of the notifications that are news
        self._line_timer: Timer | None = None
        self._sized: Size | None = None  # the terminal's size, as the last Resize said

    def notice(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
    ) -> None:
        """Say news (not a reply to a key): a toast, or the message line on a small screen."""
        timeout = self.NOTIFICATION_TIMEOUT if timeout is None else timeout
        note = Notification(message, title, severity, timeout, markup=False)
        self.mark_news(note)
        self.post_message(Notify(note))

    def mark_news(self, note: Notification) -> None:
        self._news.add(note.identity)

    @property
    def small(self) -> bool:
        return is_small(self._sized or self.size)

    def on_resize(self, event: events.Resize) -> None:
        self._sized = event.size  # (`self.size` says it only once the screens are resized)
        self._refresh_notifications()  # toasts become the line, or the line toasts

    def _refresh_notifications(self) -> None:
        try:
            screen = self.screen
        except ScreenStackError:
            return
        notes = list(tc.notifications(self))  # (the expired ones reaped)
        self._news &= {n.identity for n in notes}
        small = self.small
        for rack in screen.query_children(tc.ToastRack):
            shown = Notifications()
            for note in [] if small else notes:
                shown.add(note)
            self.call_later(rack.show, shown)
        note, more = chosen(notes, self._news) if small else (None, 0)
        reply = note is not None and note.identity not in self._news
        for line in screen.query(MessageLine):
            line.say(small, note, more, reply)
        if self._line_timer is not None:
            self._line_timer.stop()
            self._line_timer = None
        if small and notes:  # said until it expires: then the next one, or nothing
            left = min(n.time_left for n in notes)
            self._line_timer = self.set_timer(max(0.05, left), self._refresh_notifications)
