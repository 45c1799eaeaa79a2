"""Changes applied to the live app's sessions, a local watcher's or a remote feed's alike: the
views stored, `sessions_signal` and `touched_signal` published, the changes said in toasts and,
with `notify`, the bell or desktop notifications (`ocr_tui.ui.notify`). A mixin of `LiveApp`
(`self` is the app); on the UI thread."""

from __future__ import annotations

from ocr_tui.core.view import SessionView
from ocr_tui.ui import textual_compat as tc
from ocr_tui.ui.notify import BEL, escapes, notes_for
from ocr_tui.ui.toasts import Event, transitions


def reading(view: SessionView) -> bool:
    """A stand-in still to be read (`unread` counts them): not one whose host is unreachable
    (nothing reads it until its connection is back)."""
    return view.source == "loading" and not view.offline


class LiveChanges:
    def apply_changes(
        self,
        changed: list[SessionView],
        removed: list[str],
        touched: frozenset[str] = frozenset(),
        *,
        announce: bool = True,
        sessions_dir: bool | None = None,
    ) -> None:
        """Views that changed or appeared, ids that went (a local watcher's or a remote
        feed's): applied, published, and with `announce` said in toasts and notifications."""
        events = (
            [e for v in changed for e in transitions(self.sessions.get(v.id), v)]
            if announce
            else []
        )
        found = self._projects_found(changed)
        if found:  # a project found (`--scan`): one notice, not a "new session" per session
            shown = {v.id for v in changed if v.project in found}
            events = [e for e in events if not (e.kind == "new" and e.session in shown)]
        for view in changed:
            old = self.sessions.get(view.id)
            was, now = old is not None and reading(old), reading(view)
            self.unread += now - was  # (a far side's stand-in counts until it is read)
            self.sessions[view.id] = view
        for sid in removed:
            gone = self.sessions.pop(sid, None)
            if gone is not None and reading(gone):
                self.unread -= 1
        if sessions_dir is not None:  # (a local watcher's: whether its store is there)
            self._set_dir_status(sessions_dir)
        self.sessions_signal.publish((changed, removed))
        if touched:
            self.touched_signal.publish(touched)
        self._toasts.announce([e for e in events if self.toast_wanted(e.session)])
        self._notify_changes(events)

    def toast_wanted(self, session_id: str) -> bool:
        """Does a change of this session raise a toast? (All do here; the dashboard leaves out
        a project's its list hides. The bell and desktop notes are for every session.)"""
        return True

    def _notify_changes(self, events: list[Event]) -> None:
        """The bell or desktop notifications for `events` (`notify`), none for the session on
        screen. On the UI thread: the escapes go straight to the driver, between frames."""
        if self.notify_mode == "off" or not events:
            return
        notes = notes_for(events, self.viewed_session())
        protocol = "bell" if self.notify_mode == "bell" else self._notify_protocol
        for seq in escapes(notes, protocol, self._notify_tmux):
            if seq == BEL:
                self.bell()  # Textual's own (nothing when headless)
            elif (driver := tc.driver(self)) is not None:
                driver.write(seq)  # as `App.copy_to_clipboard` writes its OSC 52
