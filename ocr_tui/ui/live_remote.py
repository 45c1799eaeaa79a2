"""The dashboard's remote projects (`ocr-tui HOST:PATH`, issue 29): one `RemoteFeed`
(`core.remote_feed`) per project, each in its own thread (a slow host never holds up the UI or
the other hosts), its events posted to the app and applied here on the UI thread, with the
local projects' sessions: the same list, toasts and signals. A mixin of `LiveApp`.

What the screens read besides `LiveApp`'s (`ocr_tui.ui.contract`):
- `app.links: dict[str, LinkState]`: each remote project's connection, by its name;
- `app.links_signal`: published when one changes;
- `app.reader_of(session_id) -> Reader`: where the session's reads run (`core.reads`): here,
  or on its far side. No screen knows which.
"""

from __future__ import annotations

import threading

from textual.message import Message
from textual.signal import Signal

from ocr_tui.core.reads import LocalReader, Reader
from ocr_tui.core.remote_feed import FeedEvent, FeedViews, LinkState, RemoteFeed, RemoteReader
from ocr_tui.core.textsafe import safe_line
from ocr_tui.core.view import SessionView


class RemoteArrived(Message):
    """An event of a remote project's feed (posted from its thread)."""

    def __init__(self, event: FeedEvent, generation: int) -> None:
        super().__init__()
        self.event = event
        self.generation = generation


class RemoteProjects:
    """Starts, follows and ends the scope's remote projects."""

    def init_remotes(self) -> None:
        self.feeds: dict[str, RemoteFeed] = {}
        self.links: dict[str, LinkState] = {}
        self.links_signal: Signal[dict[str, LinkState]] = Signal(self, "links")
        self._remote_stop: threading.Event | None = None
        self._remote_generation = 0  # events of feeds stopped since are dropped

    def start_remotes(self) -> None:
        """Follow the scope's remote projects (those followed before are ended first)."""
        from ocr_tui.core.remote import remote_names

        self.stop_remotes()
        specs = list(self.scope.remotes) if self.scope is not None else []
        if not specs:
            return
        self._remote_generation += 1
        generation = self._remote_generation
        stop = self._remote_stop = threading.Event()
        taken = {v.project for v in self.sessions.values() if v.project}
        for spec, name in zip(specs, remote_names(specs, taken), strict=True):

            def emit(event: FeedEvent, generation: int = generation) -> None:
                self.post_message(RemoteArrived(event, generation))

            feed = RemoteFeed(spec, name, emit)
            self.feeds[name] = feed
            self.links[name] = feed.state
            threading.Thread(target=feed.run, args=(stop,), name=f"remote {name}",
                             daemon=True).start()  # fmt: skip
        self.links_signal.publish(dict(self.links))

    def stop_remotes(self) -> None:
        """End every remote connection (their ssh processes reaped) and forget their sessions'
        links (the sessions themselves go with the project switch that stops them)."""
        if self._remote_stop is not None:
            self._remote_stop.set()
            self._remote_stop = None
        for feed in self.feeds.values():
            feed.close()
        self.feeds = {}
        if self.links:
            self.links = {}
            self.links_signal.publish({})

    def reader_of(self, session_id: str) -> Reader:
        """Where the reads of session `session_id` run: its far side's agent, or here."""
        view = self.sessions.get(session_id)
        if view is not None and view.host:
            feed = self.feeds.get(view.project or "")
            if feed is not None:
                return RemoteReader(feed)
        return LocalReader(self.project_of(session_id))

    def is_remote(self, session_id: str | None) -> bool:
        view = self.sessions.get(session_id) if session_id else None
        return bool(view is not None and view.host)

    def on_remote_arrived(self, message: RemoteArrived) -> None:
        # (by name: a mixin's `@on` handlers are not collected, its methods are)
        if message.generation != self._remote_generation or self._remote_stop is None:
            return  # a feed ended since (a project switch, the app closing)
        event = message.event
        if isinstance(event, LinkState):
            before = self.links.get(event.name)
            self.links[event.name] = event
            self.links_signal.publish(dict(self.links))
            if event.state == "lost" and (before is None or before.state != "lost"):
                self.notice(safe_line(f"{event.name}: {event.message}"), title="Connection lost",
                            severity="warning")  # fmt: skip
            return
        self._apply_remote(event)

    def _apply_remote(self, event: FeedViews) -> None:
        quiet = event.full or any(v.offline for v in event.changed)
        self.apply_changes(list(event.changed), list(event.removed), event.touched,
                           announce=not quiet)  # fmt: skip

    def remote_views(self) -> dict[str, SessionView]:
        """The remote projects' sessions shown now (kept when the local ones are replaced)."""
        return {k: v for k, v in self.sessions.items() if v.host}
