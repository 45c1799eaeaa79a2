"""Polling (--poll, network file systems, and the fallback when the OS refuses more watches)
must see every change, however close together."""

from __future__ import annotations

import os

from .cases import GOOD_A, make_project, sdir
from .support import LiveWatch, put, state_json


def test_polling_sees_a_second_rewrite_within_the_same_second(tmp_path) -> None:
    root = make_project(tmp_path / "proj")
    state = sdir(root, GOOD_A) / "state.json"
    w = LiveWatch(root, poll=True).start()
    try:
        put(state, state_json(current_phase="discourse", status="active"), atomic=False)
        w.touched()
        w.settle(deadline=5)  # the poller saw the first write (it polls every 250 ms)
        first = state.stat().st_mtime_ns
        put(state, state_json(current_phase="synthesis", status="active"), atomic=False)
        # Within the same second as the first write, as two quick writes are (pinned here so
        # the test does not depend on how fast this machine is).
        pinned = first + 1 if first % 10**9 < 10**9 - 1 else first - 1
        os.utime(state, ns=(pinned, pinned))
        w.touched()
        # watchfiles' poller compares times to the second; the watcher reads a batch's paths
        # again after RECHECK_S, so the second write shows within about two seconds.
        assert w.settle(deadline=5)[GOOD_A].phase == "synthesis"
    finally:
        w.close()
