"""Simulate the LTVAI-Kit `/code` workflow: `.claude/.docs/{id}/state.json` sessions.

`Sim(root).setup()` writes three closed sessions (a full run with a spec, a fast `--auto` run with
the plan skipped, a full run with quality skipped); `steps()` then plays one live full-mode run
(no `--auto`, so it pauses for the user's go-ahead between phases) through the six phases:
state changes, the dispatcher's decisions (under `delegating_decisions`, as the phase files
write them), the research, plan and review reports. Every write is a temp file + os.replace.
Timestamps come from a simulated clock (`start`, default now) that advances by the unscaled
waits, so at speed 1 it follows the real clock.
"""

from __future__ import annotations

import json
import math
import os
import random
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

from ocr_tui.core.timeutil import fmt_ts

PHASES = ("init", "research", "plan", "implement", "quality", "review")
_LIVE_TASK = "Add rate limiting to the public API with per-key quotas"
_LIVE_SLUG = "api-rate-limiting"


def _write(path: Path, data: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}.{os.getpid()}.tmp"
    tmp.write_text(data, encoding="utf-8")
    os.replace(tmp, path)


def _phase(status: str = "pending") -> dict:
    return {"status": status, "skipped": False, "report": None, "started_at": None,
            "completed_at": None}  # fmt: skip


def _report(title: str, body: str) -> str:
    return f"# {title}\n\n{body}\n"


class Sim:
    def __init__(
        self, root: Path, *, seed: int = 7, speed: float = 1.0, start: datetime | None = None
    ) -> None:
        self.root = Path(root)
        self.rng = random.Random(seed)
        self.speed = speed if speed > 0 else 1.0
        self.clock = (start or datetime.now(UTC)).astimezone(UTC).replace(microsecond=0)
        # Played against the wall clock (no `start`, a finite speed): after each wait the clock
        # is the real time, so a run faster than real time never writes a time to come.
        self._wall = start is None and math.isfinite(self.speed)
        self.docs = self.root / ".claude" / ".docs"
        self.specs = self.root / ".claude" / ".specs"
        self.live_id = self.clock.strftime("%y%m%d") + "-" + _LIVE_SLUG

    @property
    def live_dir(self) -> Path:
        return self.docs / self.live_id

    # -- history ------------------------------------------------------------------------------

    def _closed(
        self,
        days_ago: float,
        slug: str,
        task: str,
        *,
        fast: bool,
        auto: bool,
        skip: tuple[str, ...],
        spec: bool,
        research: dict,
        review: dict,
    ) -> None:
        t = self.clock - timedelta(days=days_ago)
        sid = t.strftime("%y%m%d") + "-" + slug
        d = self.docs / sid
        state: dict = {
            "id": sid, "task": task, "workflow": "code:fast" if fast else "code",
            "auto_mode": auto, "created_at": fmt_ts(t), "updated_at": None, "spec": None,
            "phases": {}, "dispatcher_decisions": {"research": research, "review": review},
        }  # fmt: skip
        if spec:
            state["spec"] = {"id": slug, "path": f".claude/.specs/{slug}.md", "status": "done"}
            _write(self.specs / f"{slug}.md", f"---\nfeature_id: {slug}\n---\n\n# {task}\n")
        for name in PHASES:
            ph = _phase("completed")
            ph["started_at"] = fmt_ts(t)
            if name in skip:
                ph["skipped"] = True
            else:
                t += timedelta(seconds=self.rng.randint(60, 1800) if name != "init" else 3)
                if name in ("research", "plan", "review"):
                    ph["report"] = f"{name}-report.md"
                    _write(d / ph["report"], _report(f"{name.title()} report", task))
            ph["completed_at"] = fmt_ts(t)
            state["phases"][name] = ph
            t += timedelta(seconds=5)
        state["updated_at"] = state["phases"]["review"]["completed_at"]
        _write(d / "state.json", json.dumps(state, indent=2))

    def setup(self) -> None:
        scouts = ["Find existing auth patterns", "Map the API middleware"]
        self._closed(3.2, "jwt-auth-refresh-token", "Add JWT authentication with refresh tokens",
                     fast=False, auto=False, skip=(), spec=True,
                     research={"agent": "scouter", "mode": "parallel", "instances": 2,
                               "inputs": scouts},
                     review={"agent": "reviewer", "mode": "single", "instances": 1,
                             "inputs": ["Review all changes for security"]})  # fmt: skip
        self._closed(2.1, "fix-login-redirect", "Fix the redirect loop after login",
                     fast=True, auto=True, skip=("plan",), spec=False,
                     research={"agent": "scouter", "mode": "single", "instances": 1,
                               "inputs": ["Trace the login redirect"]},
                     review={"agent": "reviewer", "mode": "single", "instances": 1,
                             "inputs": ["Check the fix"]})  # fmt: skip
        self._closed(0.9, "csv-export", "Export reports as CSV",
                     fast=False, auto=True, skip=("quality",), spec=False,
                     research={"agent": "researcher", "mode": "single", "instances": 1,
                               "inputs": ["CSV libraries and streaming"]},
                     review={"agent": "reviewer", "mode": "parallel", "instances": 2,
                             "inputs": ["Correctness", "Performance"]})  # fmt: skip

    # -- the live run ---------------------------------------------------------------------------

    def _plan(self) -> Iterator[tuple[float, Callable[[], None]]]:
        """(seconds to wait after, the write) for each step of the live run."""
        st: dict = {}
        d = self.live_dir

        def save() -> None:
            st["updated_at"] = fmt_ts(self.clock)
            _write(d / "state.json", json.dumps(st, indent=2))

        def create() -> None:
            st.update({
                "id": self.live_id, "task": _LIVE_TASK, "workflow": "code", "auto_mode": False,
                "created_at": fmt_ts(self.clock), "updated_at": None,
                "spec": {"id": _LIVE_SLUG, "path": f".claude/.specs/{_LIVE_SLUG}.md",
                         "status": "approved"},
                "phases": {p: _phase() for p in PHASES}, "dispatcher_decisions": {},
            })  # fmt: skip
            _write(
                self.specs / f"{_LIVE_SLUG}.md",
                f"---\nfeature_id: {_LIVE_SLUG}\n---\n\n# {_LIVE_TASK}\n",
            )
            begin("init")()

        def begin(name: str):
            def f() -> None:
                st["phases"][name]["status"] = "in_progress"
                st["phases"][name]["started_at"] = fmt_ts(self.clock)
                save()

            return f

        def finish(name: str, report: bool = False):
            def f() -> None:
                ph = st["phases"][name]
                if report:
                    ph["report"] = f"{name}-report.md"
                    _write(d / ph["report"], _report(f"{name.title()} report", _LIVE_TASK))
                ph["status"] = "completed"
                ph["completed_at"] = fmt_ts(self.clock)
                save()

            return f

        def decide(name: str, agent: str, mode: str, inputs: list[str]):
            def f() -> None:
                st.setdefault("delegating_decisions", {})[name] = {
                    "agent": agent,
                    "mode": mode,
                    "instances": len(inputs),
                    "inputs": inputs,
                }
                save()

            return f

        r = self.rng
        yield r.uniform(2, 4), create
        yield r.uniform(1, 3), finish("init")
        yield r.uniform(4, 8), begin("research")
        yield r.uniform(2, 4), decide("research", "scouter", "parallel",
                                      ["Find the request pipeline and middleware",
                                       "Find existing quota or throttling code"])  # fmt: skip
        yield r.uniform(15, 25), finish("research", report=True)
        yield r.uniform(5, 10), begin("plan")
        yield r.uniform(12, 20), finish("plan", report=True)
        yield r.uniform(5, 10), begin("implement")
        yield r.uniform(30, 45), finish("implement")
        yield r.uniform(3, 6), begin("quality")
        yield r.uniform(10, 15), finish("quality")
        yield r.uniform(4, 8), begin("review")
        yield (
            r.uniform(2, 4),
            decide(
                "review",
                "reviewer",
                "single",
                ["Review the rate limiter for correctness and races"],
            ),
        )
        yield 0.0, finish("review", report=True)

    def steps(self) -> Iterator[float]:
        for wait, write in self._plan():
            write()
            written = self.clock
            self.clock += timedelta(seconds=round(wait))
            yield wait / self.speed
            if self._wall:
                self.clock = max(written, datetime.now(UTC).replace(microsecond=0))
