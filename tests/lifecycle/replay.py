"""Replay each simulated lifecycle one action at a time and check, after every action, what
every surface says against each other and against the files on disk (`checks_ocr`,
`checks_other`). Two engines read the project: a fresh one per step (what `status` and
`findings` read) and one kept up to date by the changed paths only (what the dashboard reads).
At every `PROBE_EVERY`th step the same files are read again later: 90 s on (an agent's
heartbeat is stale) and 31 min on (quiet past `--stall-after`).

`replay(name)` is cached per process: the lifecycle's tests share one replay."""

from __future__ import annotations

import functools
import json
import math
import os
import re
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from ocr_tui.core.engine import Engine, encode_json
from ocr_tui.core.project import Project

from .checks_ocr import Moment, check_ocr
from .checks_other import check_other, truth_of
from .disk import read_truth
from .record import Checker, Result
from .surfaces import from_findings_cli

START = datetime(2026, 3, 10, 12, 0, 0, tzinfo=UTC)
PROBES = ((90, "90 s later"), (31 * 60, "31 min later"))
PROBE_EVERY = 6


@dataclass(frozen=True)
class Lifecycle:
    name: str
    kind: str  # ocr | code | analysis | idumb
    store: str = "state.json"
    # final.md's Blockers rewritten as an ordered list (`1. Title (file:line)`), as agents
    # write them: the state.json era has no round-meta.json, so final.md alone names them
    ordered_blockers: bool = False


LIFECYCLES = {
    lc.name: lc
    for lc in (
        Lifecycle("ocr-state.json", "ocr"),
        Lifecycle("ocr-ocr.db", "ocr", store="ocr.db"),
        Lifecycle("ocr-state.json-ordered-blockers", "ocr", ordered_blockers=True),
        Lifecycle("code", "code"),
        Lifecycle("analysis", "analysis"),
        Lifecycle("idumb", "idumb"),
    )
}


def listing(root: Path) -> dict[str, tuple[int, int, int]]:
    out = {}
    for dirpath, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            out[path] = (st.st_mtime_ns, st.st_size, st.st_ino)
    return out


def changed(before: dict, after: dict) -> list[str]:
    """The paths a watcher reports between two listings: made, gone, or rewritten."""
    return sorted(
        (set(before) ^ set(after)) | {p for p in after if before.get(p, after[p]) != after[p]}
    )


@functools.cache
def replay(name: str) -> Result:
    lc = LIFECYCLES[name]
    with tempfile.TemporaryDirectory(prefix="ocr-tui-replay-") as tmp:
        return _replay(lc, Path(tmp))


def _replay(lc: Lifecycle, root: Path) -> Result:
    result = Result(lc.name)
    clock = [START]
    steps, live_id = _steps(lc, root, clock)
    project = Project(root)
    live = Engine(project, clock=lambda: clock[0])
    live.scan()
    before = listing(root)
    for i, action in enumerate(steps):
        after = listing(root)
        live.apply(changed(before, after))
        live.restale()
        before = after
        sid = live_id()
        now = clock[0]
        moment = _moment(root, project, sid, lc, now, live.sessions(), cli=lc.kind == "ocr")
        _check(lc, Checker(result, i, action()), moment, root)
        if i == 0 and lc.kind == "ocr":  # the closed sessions the simulator wrote first
            for old in (v.id for v in moment.views if v.framework == "ocr" and v.id != sid):
                them = _moment(root, project, old, lc, now, live.sessions(), cli=True)
                _check(lc, Checker(result, i, action(), f"closed session {old}"), them, root)
        if i % PROBE_EVERY == 0:
            for seconds, where in PROBES:
                later = now + timedelta(seconds=seconds)
                probe = _moment(root, project, sid, lc, later, None, cli=False)
                _check(lc, Checker(result, i, action(), where), probe, root, idle=seconds)
        result.steps = i + 1
    return result


def _moment(root, project, sid, lc, now, live, *, cli: bool) -> Moment:
    fresh = Engine(project, clock=lambda: now)
    views = fresh.scan()
    doc = json.loads(encode_json(fresh.snapshot()))
    truth = read_truth(root, sid, lc.store) if lc.kind == "ocr" else None
    facts = from_findings_cli(root, sid) if cli else None
    return Moment(root, sid, now, truth, views, doc, live if live is not None else views, facts)


def _check(lc: Lifecycle, chk: Checker, m: Moment, root: Path, *, idle: float = 0) -> None:
    if lc.kind == "ocr":
        check_ocr(chk, m)
    else:
        check_other(chk, m, lc.kind, truth_of(lc.kind, root, m.sid, m.now), idle)


# --- the simulators, one action per step ---------------------------------------------------


def _steps(lc: Lifecycle, root: Path, clock: list[datetime]):
    """(an iterator of the steps, each a function saying what it did; the live session's
    id, once it exists)."""
    if lc.kind == "ocr":
        from ocr_tui.formats.ocr.sim import Simulator

        sim = Simulator(root, store=lc.store, seed=1, start=START, speed=0, history=1)
        sim.setup()

        def ocr() -> Iterator[Callable[[], str]]:
            for step in sim.steps():
                if lc.ordered_blockers:
                    _order_blockers(root / ".ocr" / "sessions" / step.session_id)
                clock[0] = sim.now
                yield lambda d=step.description: d

        return ocr(), lambda: sim.live_session_id
    if lc.kind == "code":
        from ocr_tui.formats.codeflow.sim import Sim as CodeSim

        sim = CodeSim(root, start=START, speed=math.inf)
        sim.setup()

        def code() -> Iterator[Callable[[], str]]:
            for _ in sim.steps():
                clock[0] = sim.clock
                yield lambda: _said(truth_of("code", root, sim.live_id, clock[0]))

        return code(), lambda: sim.live_id
    if lc.kind == "analysis":
        from ocr_tui.formats.analysis.sim import Sim as AnalysisSim

        sim = AnalysisSim(root, speed=1e9)
    else:
        from ocr_tui.formats.idumb.sim import Sim as IdumbSim

        sim = IdumbSim(root, speed=1e9)
    sim.setup()
    old = {v.id for v in Engine(Project(root)).scan()}
    found: list[str] = []

    def live_id() -> str:
        if not found:
            found.extend(v.id for v in Engine(Project(root)).scan() if v.id not in old)
        return found[0]

    def wall() -> Iterator[Callable[[], str]]:
        steps = sim.steps()
        while True:  # played against the wall clock: read at the next whole second
            done = next(steps, None) is None  # (the analysis run's last writes come after
            clock[0] = (datetime.now(UTC) + timedelta(seconds=1)).replace(microsecond=0)
            yield lambda: _said(truth_of(lc.kind, root, live_id(), clock[0]))
            if done:  # its last wait: one more step to read them)
                return

    return wall(), live_id


def _said(truth: dict) -> str:
    words = [f"phase {truth['position']}" if truth["position"] else "a write"]
    words += ["waiting on you"] if truth["waiting"] else []
    words += ["closed"] if truth["closed"] else []
    return ", ".join(words)


_BLOCKER_ITEM = re.compile(r"^### (\d+)\. (.+?)\n(?:.*\n)*?\*\*Location\*\*: `([^`]+)`\n(?:.+\n)*",
                           re.M)  # fmt: skip


def _order_blockers(sdir: Path) -> None:
    """final.md's `### 1. Title` blocker items as an ordered list, `1. Title (file:line)`;
    the file keeps its time (the simulator's clock)."""
    for final in sdir.glob("rounds/round-*/final.md"):
        text = final.read_text()
        head, sep, rest = text.partition("## Blockers\n")
        body, nxt, tail = rest.partition("## Should Fix")
        if not sep or "### " not in body:
            continue
        body = _BLOCKER_ITEM.sub(lambda m: f"{m[1]}. {m[2]} ({m[3]})\n", body)
        st = final.stat()
        tmp = final.with_name(".final.md.tmp")
        tmp.write_text(head + sep + body + nxt + tail)
        os.utime(tmp, (st.st_atime, st.st_mtime))
        tmp.replace(final)
