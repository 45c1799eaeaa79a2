"""RemoteFeed (`core.remote_feed`): a remote project followed for the dashboard, against a
scripted far side (a fake link): the whole snapshot first, ids made the app's own; changes,
removals and touched ids after it; a lost connection marks what was shown offline and
reconnects with a growing backoff, the fresh snapshot replacing what was kept; a far side that
sends an unreadable session, too many sessions or too many lines is cut off."""

from __future__ import annotations

import threading

import pytest

from ocr_tui.core import remote_feed
from ocr_tui.core.remote import RemoteError, RemoteSpec
from ocr_tui.core.remote_feed import FeedViews, LinkState, RemoteFeed

SPEC = RemoteSpec(host="devbox", path="/srv/api")
NAME = "devbox:api"


def session(sid: str, phase: str = "reviewing") -> dict:
    """A session as the far side's stream writes it (`watch --jsonl`'s JSON)."""
    return {
        "id": sid, "branch": "main", "source": "state.json", "status": "active",
        "workflow": "review", "phase": phase, "phase_label": phase, "phase_number": 1,
        "phase_total": 8, "complete": False, "started_at": None, "updated_at": None,
        "last_activity": None, "stalled": False, "current_round": None,
        "elapsed": {"since": None, "seconds": None, "running": True},
        "rounds": [], "current_map_run": None, "map_runs": [], "problems": [],
        "path": f"/srv/api/.ocr/sessions/{sid}",
    }  # fmt: skip


class Script:
    """What each connection's far side says: a list per connection of batches (lists of
    lines), or an exception `open()` raises; the connection ends after its last batch."""

    def __init__(self, *connections) -> None:
        self.connections = list(connections)
        self.opened = 0

    def link(self, spec: RemoteSpec):
        script = self

        class Link:
            def __init__(self) -> None:
                self.batches: list = []

            def open(self) -> dict:
                conn = script.connections[min(script.opened, len(script.connections) - 1)]
                script.opened += 1
                if isinstance(conn, Exception):
                    raise conn
                self.batches = list(conn)
                return {"type": "hello", "protocol": 1, "min_protocol": 1, "root": "/srv/api"}

            def batch(self, timeout: float):
                return self.batches.pop(0) if self.batches else None

            def why_ended(self) -> str:
                return f"{spec.label}: the far side ended (exit 255)"

            def close(self, graceful: bool = True) -> None:
                pass

        return Link()


def follow(script: Script, until, monkeypatch) -> list:
    """The feed's events until `until(events)` holds (or 200 ms pass without one: the backoff
    is made tiny here)."""
    monkeypatch.setattr(remote_feed, "BACKOFF_S", (0.001, 0.002, 0.004))
    events: list = []
    stop = threading.Event()
    got = threading.Event()

    def emit(ev) -> None:
        events.append(ev)
        if until(events):
            stop.set()
            got.set()

    feed = RemoteFeed(SPEC, NAME, emit, link_factory=script.link, clock=lambda: 1000.0)
    t = threading.Thread(target=feed.run, args=(stop,))
    t.start()
    got.wait(10)  # waits for: the events `until` wants
    stop.set()
    t.join(10)
    assert not t.is_alive()
    return events


def views_of(events) -> list[FeedViews]:
    return [e for e in events if isinstance(e, FeedViews)]


def states(events) -> list[str]:
    return [e.state for e in events if isinstance(e, LinkState)]


def test_the_snapshot_whole_then_changes(monkeypatch):
    script = Script([
        [{"type": "headers", "headers": []}, {"type": "snapshot", "session": session("a")}],
        [{"type": "snapshot", "session": session("b")}, {"type": "scanned"}],
        [{"type": "changed", "session": session("a", "done")}, {"type": "removed", "id": "b"},
         {"type": "touched", "ids": ["a"]}],
    ])  # fmt: skip
    events = follow(script, lambda ev: len(views_of(ev)) >= 2, monkeypatch)
    first, second = views_of(events)[:2]
    assert first.full and sorted(v.id for v in first.changed) == [f"{NAME}/a", f"{NAME}/b"]
    assert {(v.project, v.host) for v in first.changed} == {(NAME, "devbox")}
    assert not second.full and [v.phase for v in second.changed] == ["done"]
    assert second.removed == [f"{NAME}/b"] and second.touched == {f"{NAME}/a"}
    assert states(events)[0] == "up"


def test_lost_marks_offline_and_a_fresh_snapshot_replaces(monkeypatch):
    one = [[{"type": "snapshot", "session": session("a")},
            {"type": "snapshot", "session": session("b")}, {"type": "scanned"}]]  # fmt: skip
    two = [[{"type": "snapshot", "session": session("a", "done")}, {"type": "scanned"}]]
    script = Script(one, RemoteError("devbox: Connection refused"), two)
    events = follow(script, lambda ev: sum(1 for v in views_of(ev) if v.full) >= 2, monkeypatch)
    lost = [e for e in events if isinstance(e, LinkState) and e.state == "lost"]
    assert lost[0].message == "the far side ended (exit 255)"  # (the bar names the project)
    assert lost[1].message == "devbox: Connection refused"
    assert lost[1].since == lost[0].since  # lost since the first: still reconnecting
    offline = views_of(events)[1]
    assert not offline.full and all(v.offline for v in offline.changed)
    fresh = [v for v in views_of(events) if v.full][-1]
    assert [v.id for v in fresh.changed] == [f"{NAME}/a"] and fresh.removed == [f"{NAME}/b"]
    assert not any(v.offline for v in fresh.changed)
    assert states(events)[-1] == "up"


def test_the_backoff_grows_while_it_cannot_connect(monkeypatch):
    script = Script(RemoteError("devbox: no route to host"))
    events = follow(script, lambda ev: states(ev).count("lost") >= 4, monkeypatch)
    lost = [e for e in events if isinstance(e, LinkState) and e.state == "lost"][:4]
    # (the clock stands still here: retry_at - since is each wait)
    assert [round(e.retry_at - e.since, 3) for e in lost] == [0.001, 0.002, 0.004, 0.004]


@pytest.mark.parametrize(
    ("lines", "said"),
    [
        ([{"type": "snapshot", "session": {"id": 5}}], "is not readable"),
        ([{"type": "snapshot", "session": session(str(i))} for i in range(5)],
         "over 3 sessions: cut off"),
        ([{"type": "headers", "headers": []}] * 200, "lines a second for 5s: cut off"),
    ],
    ids=["unreadable", "too-many-sessions", "flood"],
)  # fmt: skip
def test_a_hostile_far_side_is_cut_off(monkeypatch, lines, said):
    monkeypatch.setattr(remote_feed, "MAX_SESSIONS", 3)
    monkeypatch.setattr(remote_feed, "MAX_RATE", 10)
    script = Script([lines])
    events = follow(script, lambda ev: "lost" in states(ev), monkeypatch)
    lost = next(e for e in events if isinstance(e, LinkState) and e.state == "lost")
    assert said in lost.message


def test_far_ids_and_requests_when_not_connected():
    feed = RemoteFeed(SPEC, NAME, lambda ev: None, link_factory=Script([]).link)
    assert remote_feed.far_id(f"{NAME}/2026-11-29-main", NAME) == "2026-11-29-main"
    with pytest.raises(RemoteError, match="not connected"):
        feed.request("ping")


def test_a_far_store_gone_then_back(monkeypatch):
    """Reconnected to a far project whose store is gone: its sessions leave the list (they
    stayed, marked offline, while the link was up and waiting); back, it is up again."""
    one = [[{"type": "snapshot", "session": session("a")}, {"type": "listed"}]]
    two = [
        [{"type": "waiting", "path": "/srv/api/.ocr"}],
        [{"type": "snapshot", "session": session("c")}, {"type": "listed"}],
    ]
    script = Script(one, two)
    events = follow(script, lambda ev: states(ev)[-1:] == ["up"] and "waiting" in states(ev),
                    monkeypatch)  # fmt: skip
    assert states(events)[-3:] == ["lost", "waiting", "up"]
    gone = next(v for v in views_of(events) if v.full and not v.changed)
    assert gone.removed == [f"{NAME}/a"]
    assert [v.id for v in views_of(events)[-1].changed] == [f"{NAME}/c"]
