"""The newest state, never a queue of the states before it: `subscribe_latest` hands a screen
the app's session changes (`sessions_signal`'s `(changed, removed)`) merged, one call however
many changes came since its last one.

Textual's `Signal.subscribe` posts one callback to the subscriber per publish. A burst of N
changes (the watcher's messages, each applied by the app in turn) then queued N refreshes on
the main screen, each re-filtering, re-sorting and syncing every session (57 ms at 10,000
sessions) to the same final state, and a key pressed meanwhile waited behind all of them.
Here the changes are merged as they are published (a session's newest view wins; one changed
after it went is back) and the subscriber is called once, at its next turn, with all of them.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.dom import DOMNode
from textual.signal import Signal

from ocr_tui.core.view import SessionView

Payload = tuple[list[SessionView], list[str]]


class Latest:
    """What `callback` has not been given yet, merged; at most one call of it pending."""

    def __init__(self, node: DOMNode, callback: Callable[[Payload], object]) -> None:
        self.node = node
        self.callback = callback
        self._changed: dict[str, SessionView] = {}
        self._removed: set[str] = set()
        self._due = False
        self.merged = 0  # publishes folded into a call already due (for tests)

    def __call__(self, payload: Payload) -> None:
        changed, removed = payload
        for sid in removed:
            self._changed.pop(sid, None)
            self._removed.add(sid)
        for view in changed:
            self._removed.discard(view.id)
            self._changed[view.id] = view
        if self._due:
            self.merged += 1
            return
        self._due = True
        self.node.call_next(self._deliver)

    def _deliver(self) -> None:
        self._due = False
        self.callback(self.take())

    def take(self) -> Payload:
        """What was published since the last call or take, merged (the call still due, if
        one is, then gets what is published from now on)."""
        changed, removed = list(self._changed.values()), sorted(self._removed)
        self._changed, self._removed = {}, set()
        return changed, removed


def subscribe_latest(
    signal: Signal[Payload], node: DOMNode, callback: Callable[[Payload], object]
) -> Latest:
    """Call `callback` (on `node`, after its current message) with the changes published
    since its last call, merged: once per turn of `node`, however many were published."""
    latest = Latest(node, callback)
    signal.subscribe(node, latest, immediate=True)
    return latest
