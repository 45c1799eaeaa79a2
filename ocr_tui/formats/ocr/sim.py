"""Play a realistic OCR run into a directory, as OCR's agents and `ocr state` CLI write it.

`Simulator(root).run()` creates `<root>/.ocr/` with a few closed history sessions (and, beside
it, the project's source files the findings point at: `sim_project`), then one
live review session that walks the 8 review phases twice (round 1 REQUEST CHANGES, round 2
APPROVE), runs a map, and closes. State goes to `state.json` (OCR <= 1.4 schema) or
`.ocr/data/ocr.db` (OCR >= 1.5, sql.js-style whole-file rewrite). Every write is a temp file
+ os.replace; timestamps and mtimes come from a simulated clock. In ocr.db, the closed history
sessions also get the review rows and triage OCR's web dashboard writes (`sim_dashboard`; the
live session none). The scenario is `sim_scenario`'s (the file bodies its `sim_*` modules'),
the files and stores `sim_store`'s; this module only executes them. No textual import.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from ocr_tui.formats.ocr import sim_scenario as S
from ocr_tui.formats.ocr.sim_project import write_project_files
from ocr_tui.formats.ocr.sim_store import DbStore, Files, JsonStore, make_store, to_json

STORES = ("state.json", "ocr.db")
HISTORY_BRANCHES = ("main", "fix-token-refresh", "feat-billing-webhooks", "refactor-db-layer")
HISTORY_BRANCHES += ("chore-bump-deps", "feat-rate-limiter", "hotfix-cache-eviction")
HISTORY_SCALE = 12.0  # history sessions ran at "agent speed": ~15 min instead of ~75 s
LIVE_ROUNDS = [
    (list(S.REVIEWER_ORDER[:6]), "block"),
    (["principal-1", "principal-2", "quality-1", "testing-1", "performance-1"], "clean"),
]
_Files = Files  # the writer under its old name (tests use it)


@dataclass
class SimStep:
    description: str
    session_id: str
    phase: str | None  # what the step just did


def _utc(t: datetime | None) -> datetime:  # naive means UTC; whole seconds
    t = t or datetime.now(UTC)
    return (t.replace(tzinfo=UTC) if t.tzinfo is None else t.astimezone(UTC)).replace(microsecond=0)


def _apply(files: Files, store: JsonStore | DbStore, sid: str, act: S.Action, t: datetime) -> None:
    sdir = os.path.join(files.sessions, sid)
    for rel in act.mkdirs:
        files.mkdir(os.path.join(sdir, rel), t)
    for rel, body in act.writes:
        files.write(os.path.join(sdir, rel), to_json(body) if isinstance(body, dict) else body, t)
    if act.event:
        store.change(sid, t, act.event, act.cols, rnd=act.rnd, meta=act.meta)


def _play(
    files, store, sid: str, plan: S.Plan, seed: int, start: datetime, scale: float, until: datetime
) -> None:
    """A whole session at once (history), its timestamps starting at `start`; in ocr.db, also
    what OCR's web dashboard wrote for it (`sim_dashboard`), nothing later than `until`."""
    now = last = start
    played: list[tuple[S.Action, datetime]] = []
    for act in S.scenario(sid, sid[11:], plan, seed):
        _apply(files, store, sid, act, now)
        played.append((act, now))
        last, now = now, now + timedelta(seconds=act.seconds * scale)
    files.touch_tree(os.path.join(files.sessions, sid), last)
    if isinstance(store, DbStore):
        store.dashboard(sid, played, seed, until)


class Simulator:
    def __init__(
        self,
        root: Path,
        *,
        store: str = "state.json",
        seed: int = 1,
        start: datetime | None = None,
        speed: float = 1.0,
        history: int = 3,
        live_branch: str = "feat-live-review",
    ) -> None:
        if speed < 0 or math.isnan(speed):
            raise ValueError("speed must be >= 0 (0 or inf: no sleeping)")
        if store not in STORES:
            raise ValueError(f"store must be one of {STORES}, not {store!r}")
        self.root, self.store_kind, self.seed = Path(root), store, seed
        self.speed, self.history = speed, history
        #: the simulated clock (UTC); last_step_at is when the last step's action happened
        self.now = _utc(start)
        # Played against the wall clock (no `start` given): each step happens at the real
        # time, so a run faster than real time (`--speed 20`) never writes a time to come.
        self._wall = start is None and speed not in (0, math.inf)
        self._instant = start is None and speed in (0, math.inf)
        self.last_step_at, self.last_step_seconds = self.now, 0.0
        self.live_branch = live_branch.replace("/", "-")
        self.history_ids: list[str] = []
        self._files = Files(self.root)
        self._store: JsonStore | DbStore | None = None
        self._loops, self._live_n = 0, 1
        self._live_id = self._pick_id(self.live_branch)

    @property
    def live_session_id(self) -> str:
        return self._live_id

    def _pick_id(self, branch: str, first: int = 1) -> str:
        """`{day}-{branch}` (number 1), else `{branch}-2`, `-3`…: the first free from number
        `first` on, kept as the live session's number (a loop's next asks for one past it)."""
        day, n = self.now.strftime("%Y-%m-%d"), first

        def name(n: int) -> str:
            return f"{day}-{branch}" if n == 1 else f"{day}-{branch}-{n}"

        while (self._files.sessions / name(n)).exists():
            n += 1
        self._live_n = n
        return name(n)

    def setup(self) -> None:
        """Create `.ocr/sessions/` and the closed history sessions (once)."""
        if self._store is not None:
            return
        files = self._files
        files.sessions.mkdir(parents=True, exist_ok=True)
        write_project_files(self.root, self.now)  # the files the findings point at
        self._store = store = make_store(files, self.store_kind)
        store.autosave, files.touch_dirs = False, False
        rng = random.Random(f"ocr-sim/{self.seed}/history")
        branches = rng.sample(HISTORY_BRANCHES, min(self.history, len(HISTORY_BRANCHES)))
        days_ago = 0
        for i in range(self.history):
            days_ago += rng.randint(1, 3)
            begin = (self.now - timedelta(days=days_ago)).replace(
                hour=rng.randint(8, 17), minute=rng.randint(0, 59), second=rng.randint(0, 59)
            )
            branch = branches[i] if i < len(branches) else f"feat-history-{i}"
            two = i == 0 or (i != 1 and rng.random() < 0.5)  # newest had a re-review
            moods = ["block", "clean"] if two else [rng.choice(["clean", "discuss"])]
            plan = S.Plan(
                [(S.reviewers(rng.randint(4, 6)), mood) for mood in moods],
                map_run=i == min(1, self.history - 1),  # one map session
                requirements=rng.random() < 0.5,
                cli_meta=i < self.history - 1,  # the oldest predates OCR 1.6
                chatter=False,
            )
            sid = f"{begin:%Y-%m-%d}-{branch}"
            _play(files, store, sid, plan, self.seed, begin, HISTORY_SCALE, self.now)
            self.history_ids.append(sid)
        store.flush(self.now)
        files.touch(files.sessions, self.now)
        if isinstance(store, DbStore):
            files.touch(store.path.parent, self.now)
        store.autosave, files.touch_dirs = True, True
        self._live_id = self._pick_id(self.live_branch)

    def steps(self) -> Iterator[SimStep]:
        """The live session, one action per next(): performs it at `now`, then advances the
        clock by the action's duration. Never sleeps. Runs setup() first if needed."""
        self.setup()
        sid, store = self._live_id, self._store
        plan = S.Plan(LIVE_ROUNDS, map_run=True, requirements=True)
        plan.cli_meta = self.store_kind == "ocr.db"
        if self._instant and self._loops == 0:
            # Written all at once against the wall clock (`--speed 0`): the session is
            # played as if it had just ended now, never into times to come.
            total = sum(a.seconds for a in S.scenario(sid, sid[11:], plan, self.seed))
            self.now -= timedelta(seconds=total)
        for act in S.scenario(sid, sid[11:], plan, self.seed):
            _apply(self._files, store, sid, act, self.now)  # type: ignore[arg-type]
            self.last_step_at, self.last_step_seconds = self.now, act.seconds
            self.now += timedelta(seconds=act.seconds)
            yield SimStep(act.description, sid, act.phase)

    def run(self, *, stop: threading.Event | None = None, loop: bool = False) -> None:
        self._run(stop=stop, loop=loop)

    def _run(self, *, stop, loop: bool, on_step: Callable[[SimStep], None] | None = None) -> None:
        stop = stop or threading.Event()
        self.setup()
        while not stop.is_set():
            for step in self.steps():
                if on_step:
                    on_step(step)
                if self.speed not in (0, math.inf):
                    stop.wait(self.last_step_seconds / self.speed)
                    if self._wall:
                        self.now = max(self.last_step_at, _utc(None))
                if stop.is_set():
                    return
            if not loop:
                return
            self._loops += 1
            # the next number, not a suffix on this one's (`-2`, `-3`, `-4`; was `-2-2`)
            self._live_id = self._pick_id(self.live_branch, self._live_n + 1)


def build_history(
    root: Path,
    *,
    sessions: int,
    rounds: int = 2,
    reviewers: int = 4,
    store: str = "state.json",
    seed: int = 1,
    now: datetime | None = None,
) -> list[str]:
    """Write `sessions` closed sessions at once, newest first, 45 simulated minutes apart
    (every 10th also has a map run); returns their ids. One ocr.db write in total; markdown
    is written directly (nobody reads yet), the db via temp + rename."""
    if store not in STORES:
        raise ValueError(f"store must be one of {STORES}, not {store!r}")
    now = _utc(now)
    files = Files(Path(root), atomic=False, touch_dirs=False)
    files.sessions.mkdir(parents=True, exist_ok=True)
    st = make_store(files, store)
    st.autosave = False
    names = S.reviewers(reviewers)
    moods = ["block"] * (rounds - 1) + ["clean"]
    ids = []
    for i in range(sessions):
        branch = f"{HISTORY_BRANCHES[i % len(HISTORY_BRANCHES)]}-{i + 1}"
        begin = now - timedelta(minutes=45 * (i + 1))
        sid = f"{begin:%Y-%m-%d}-{branch}"
        plan = S.Plan([(names, m) for m in moods], map_run=i % 10 == 9, chatter=False)
        plan.cli_meta = store == "ocr.db"
        _play(files, st, sid, plan, seed, begin, 1.0, now)
        ids.append(sid)
    files.atomic = True
    st.flush(now)
    files.touch(files.sessions, now)
    if isinstance(st, DbStore):
        files.touch(st.path.parent, now)
    return ids


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m ocr_tui.formats.ocr.sim",
        description="Make DIR an OCR project and play a realistic review run into it.",
    )
    p.add_argument("dir", metavar="DIR", type=Path)
    p.add_argument("--speed", type=float, default=1.0, help="0 or inf: no sleeping")
    p.add_argument("--store", choices=STORES, default="state.json")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--history", type=int, default=3, help="closed sessions written first")
    p.add_argument("--loop", action="store_true", help="new live session after each close")
    args = p.parse_args(argv)
    sim = Simulator(
        args.dir, store=args.store, seed=args.seed, speed=args.speed, history=args.history
    )

    def show(step: SimStep) -> None:
        at = sim.last_step_at.strftime("%H:%M:%S")
        print(f"{at} {step.session_id} [{step.phase}] {step.description}", flush=True)

    try:
        sim.setup()
        n = len(sim.history_ids)
        print(f"{sim.now:%H:%M:%S} {sim.root}: {n} closed session(s) in .ocr/", flush=True)
        sim._run(stop=None, loop=args.loop, on_step=show)
    except KeyboardInterrupt:
        return 0
    except BrokenPipeError:  # `… | head`: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    sys.exit(main())
