"""A remote project followed for the dashboard (issue 29): one connection to its far side
(`core.remote.RemoteLink`), its sessions as views of this side, and the connection's state.
Format-neutral and without Textual: the app runs `RemoteFeed.run` in a thread and applies what
it emits on the UI thread.

- Connect; the far side's snapshot is collected until its `scanned` line, then emitted whole
  (`FeedViews(full=True)`: every session it has, and the ids shown before that it no longer
  has, removed). After that, a batch of lines is one `FeedViews`.
- Lost (the far side ended, was cut off, or could not be reached): `LinkState("lost")` with the
  reason and when, the sessions shown kept but each marked `offline`; reconnect after a backoff
  (1, 2, 4 … 30 s); the fresh snapshot replaces what was kept.
- A far side whose session is not a readable view, whose ids are not unique, or that sends
  more than MAX_SESSIONS sessions, or more than MAX_RATE lines a second for FLOOD_S seconds:
  cut off with one line (`LinkState("lost")`), reconnected like any lost connection.

Ids: the app's id of a far session is `NAME/ID` (`devbox:api/2026-11-29-main`), its project
`NAME` and its host the far host; `far_id` takes the far side's id back.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from ocr_tui.core.remote import RemoteError, RemoteLink, RemoteSpec
from ocr_tui.core.textsafe import safe_block
from ocr_tui.core.view import SessionView

BACKOFF_S = (1.0, 2.0, 4.0, 8.0, 15.0, 30.0)
BATCH_WAIT_S = 5.0  # how long a read of the stream waits for its first line (close() wakes it)
MAX_SESSIONS = 50_000  # one far side's
MAX_RATE = 20_000  # lines a second, sustained for FLOOD_S: a flood
FLOOD_S = 5.0
STEADY_S = 10.0  # a connection up this long starts the backoff afresh when it is lost


@dataclass(frozen=True)
class LinkState:
    """A remote project's connection: "connecting" (the first time), "up", "waiting" (up; the
    far side has no session store yet), "lost" (reconnecting after `retry_at`)."""

    name: str
    host: str
    state: str
    message: str = ""  # why it was lost (one line, as the far side's ssh or agent said it)
    since: float = 0.0  # wall-clock time the state began (lost: when the connection was lost)
    retry_at: float | None = None  # wall-clock time of the next attempt


@dataclass(frozen=True)
class FeedViews:
    """Sessions of remote project `name` that changed or appeared, and ids that went."""

    name: str
    changed: list[SessionView] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    touched: frozenset[str] = frozenset()
    full: bool = False  # a whole snapshot: every session of the project is in `changed`


FeedEvent = LinkState | FeedViews


class Flooded(Exception):
    pass


def far_view(raw: object, name: str, host: str) -> SessionView:
    """A far session (its JSON object) as a view of this side: its id `NAME/ID`, its project
    `name`, its host (RemoteError: not a readable view)."""
    try:
        view = msgspec.convert(raw, SessionView)
    except (msgspec.ValidationError, TypeError) as exc:
        raise RemoteError(f"{name}: the far side sent a session that is not readable"
                          f" ({str(exc)[:120]}): cut off") from None  # fmt: skip
    return msgspec.structs.replace(
        view, id=f"{name}/{view.id}", project=name, host=host, offline=msgspec.UNSET
    )


def far_id(app_id: str, name: str) -> str:
    """The far side's own id of the app's `NAME/ID`."""
    return app_id[len(name) + 1 :] if app_id.startswith(f"{name}/") else app_id


class RemoteFeed:
    """`run(stop)` in a thread: connects, follows, reconnects until `stop` is set, calling
    `emit` with each `FeedEvent` (from that thread). `close()` ends the connection (any
    thread): no ssh process is left. `request(op, **args)` asks the far side (a worker
    thread), RemoteError when it is not connected."""

    def __init__(
        self,
        spec: RemoteSpec,
        name: str,
        emit: Callable[[FeedEvent], None],
        *,
        link_factory: Callable[[RemoteSpec], RemoteLink] = RemoteLink,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.spec = spec
        self.name = name
        self.emit = emit
        self._factory = link_factory
        self._clock = clock
        self._link: RemoteLink | None = None
        self._lock = threading.Lock()
        self._shown: dict[str, SessionView] = {}  # the app's ids -> views, as last emitted
        self.root: str | None = None  # the far project's root, as its hello says it
        self.state = LinkState(name, spec.host, "connecting", since=clock())

    # -- the connection ----------------------------------------------------------------------

    def run(self, stop: threading.Event) -> None:
        attempt = 0
        while not stop.is_set():
            link = self._factory(self.spec)
            try:
                with self._lock:
                    self._link = link
                if stop.is_set():
                    break
                hello = link.open()
                root = hello.get("root")
                self.root = root if isinstance(root, str) and root.startswith("/") else None
                opened = time.monotonic()
                listed = self._follow(link, stop)
                if listed and time.monotonic() - opened >= STEADY_S:
                    attempt = 0  # (one that ends right after its list backs off all the same)
                why = link.why_ended()
            except (RemoteError, Flooded) as exc:
                why = str(exc)
            finally:
                with self._lock:
                    self._link = None
                link.close(graceful=False)
            if stop.is_set():
                break
            wait = BACKOFF_S[min(attempt, len(BACKOFF_S) - 1)]
            attempt += 1
            self._lost(why, wait)
            stop.wait(wait)

    def close(self) -> None:
        with self._lock:
            link = self._link
        if link is not None:
            link.close(graceful=False)

    def request(self, op: str, timeout: float = 30.0, **args: Any) -> Any:
        with self._lock:
            link = self._link
        if link is None or self.state.state not in ("up", "waiting"):
            raise RemoteError(f"{self.name}: not connected ({self.state.message or 'connecting'})")
        return link.request(op, timeout=timeout, **args)

    def _set(self, state: LinkState) -> None:
        self.state = state
        self.emit(state)

    def _lost(self, why: str, wait: float) -> None:
        now = self._clock()
        since = self.state.since if self.state.state == "lost" else now
        host = self.spec.host
        for prefix in (f"{self.name}: ", f"{self.spec.label}: "):  # (the bar names it)
            why = why.removeprefix(prefix)
        self._set(LinkState(self.name, host, "lost", why, since, now + wait))
        if self._shown:  # kept on screen, each marked: nothing of it is known to be current
            marked = [msgspec.structs.replace(v, offline=True) for v in self._shown.values()]
            self._shown = {v.id: v for v in marked}
            self.emit(FeedViews(self.name, marked))

    # -- the stream --------------------------------------------------------------------------

    def _follow(self, link: RemoteLink, stop: threading.Event) -> bool:
        """Until the far side ends (False: it never got as far as its snapshot)."""
        snapshot: dict[str, SessionView] | None = {}  # collecting, until `scanned`
        scanned = False
        window, lines = self._clock(), 0
        while not stop.is_set():
            batch = link.batch(BATCH_WAIT_S)
            if batch is None:
                return scanned
            now = self._clock()
            if now - window >= FLOOD_S:
                window, lines = now, 0
            lines += len(batch)
            if lines > MAX_RATE * FLOOD_S:
                raise Flooded(f"{self.name}: the far side sent over {MAX_RATE:,} lines a second"
                              f" for {FLOOD_S:.0f}s: cut off")  # fmt: skip
            changed: dict[str, SessionView] = {}
            removed: set[str] = set()
            touched: set[str] = set()
            for line in batch:
                kind = line.get("type")
                if kind == "snapshot":
                    if snapshot is None:
                        snapshot = {}  # a new whole scan (the far store came back)
                    view = self._view(line.get("session"))
                    snapshot[view.id] = view
                    if len(snapshot) > MAX_SESSIONS:
                        raise Flooded(f"{self.name}: the far side sent over {MAX_SESSIONS:,}"
                                      " sessions: cut off")  # fmt: skip
                elif kind == "listed" or (kind == "scanned" and snapshot is not None):
                    # every session listed (stand-ins while the far side reads them: shown at
                    # once, each replaced as it is read), or a whole snapshot read
                    self._replace(snapshot or {})
                    snapshot, scanned = None, True
                    changed, removed = {}, set()
                    if self.state.state != "up":  # (its store there now, if it was waiting)
                        self._set(LinkState(self.name, self.spec.host, "up", since=now))
                elif kind == "changed":
                    view = self._view(line.get("session"))
                    changed[view.id] = view
                    removed.discard(view.id)
                elif kind == "removed" and isinstance(line.get("id"), str):
                    vid = f"{self.name}/{line['id']}"
                    changed.pop(vid, None)
                    removed.add(vid)
                elif kind == "touched" and isinstance(line.get("ids"), list):
                    touched.update(f"{self.name}/{i}" for i in line["ids"] if isinstance(i, str))
                elif kind == "waiting":
                    where = str(line.get("path", ""))[:300]
                    self._set(LinkState(self.name, self.spec.host, "waiting",
                                        f"no session store at {where} yet", now))  # fmt: skip
                    if self._shown:  # its store is gone there: so are its sessions, as here
                        self._replace({})
                    changed, removed = {}, set()
            if scanned and (changed or removed or touched):
                if len(self._shown) + len(changed) > MAX_SESSIONS and any(
                    v not in self._shown for v in changed
                ):
                    raise Flooded(f"{self.name}: the far side sent over {MAX_SESSIONS:,}"
                                  " sessions: cut off")  # fmt: skip
                if changed and self.state.state == "waiting":
                    self._set(LinkState(self.name, self.spec.host, "up", since=now))
                for vid in removed:
                    self._shown.pop(vid, None)
                self._shown.update(changed)
                self.emit(FeedViews(self.name, list(changed.values()), sorted(removed),
                                    frozenset(touched | changed.keys())))  # fmt: skip
        return scanned

    def _view(self, raw: object) -> SessionView:
        return far_view(raw, self.name, self.spec.host)

    def _replace(self, views: dict[str, SessionView]) -> None:
        gone = sorted(set(self._shown) - set(views))
        self._shown = dict(views)
        self.emit(FeedViews(self.name, list(views.values()), gone, frozenset(views), full=True))


class RemoteReader:
    """The read seam's far side (`core.reads`): each read asked of the agent (`read`), run
    there as a local project's read runs here, its answer decoded into the read's own type."""

    def __init__(self, feed: RemoteFeed, timeout: float = 30.0) -> None:
        self.feed = feed
        self.host = feed.spec.host
        self.timeout = timeout

    def read(self, name: str, view: SessionView, **args: Any) -> Any:
        from ocr_tui.core.reads import checked

        kind = checked(name, args)
        raw = self.feed.request("read", timeout=self.timeout, name=name,
                                session=far_id(view.id, self.feed.name), args=args)  # fmt: skip
        try:
            result = msgspec.convert(raw, kind.result)
        except (msgspec.ValidationError, TypeError) as exc:
            raise RemoteError(f"{self.feed.name}: the far side's {name} is not readable"
                              f" ({str(exc)[:120]})") from None  # fmt: skip
        # a text a local read gives escape-safe (a document's, a discourse's) is made so here
        # too: the far side's word for it is not taken
        if dataclasses.is_dataclass(result) and isinstance(getattr(result, "text", None), str):
            result = dataclasses.replace(result, text=safe_block(result.text))
        return result
