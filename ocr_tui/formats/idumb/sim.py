"""Play an iDumb (OpenCode plugin) project into a directory, as the plugin writes it.

`setup()` writes the brain (`.idumb/brain/state.json`) and three closed history sessions (stale,
old with a delegation depth from the 402fa8a era, archive-eligible) with their checkpoints in the
historical `.idumb/execution/{phase}/` location. `steps()` plays one live session: created,
agents spawned (`brain/execution-metrics.json`), checkpoints in `brain/execution/{phase}/`,
a planner/checker loop with an error, a compaction, v2 delegations, and the `session.idle`
event with a brain validation. Every write is a temp file + os.replace. No textual import.
The records' contents are `sim_records.py`'s.
"""

from __future__ import annotations

import json
import os
import random
import string
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from ocr_tui.formats.idumb import sim_records as R
from ocr_tui.formats.idumb.sim_records import AGENTS, PHASE_DIR


class Sim:
    def __init__(self, root: Path, *, seed: int = 7, speed: float = 1.0) -> None:
        self.root = Path(root)
        self.base = self.root / ".idumb"
        self.rng = random.Random(seed)
        self.speed = max(speed, 1e-6)
        self.sid = self._sid()
        self.state: dict = {}
        self.metrics: dict = {}
        self.session: dict = {}
        self.delegations: dict = {"version": "1.0.0", "delegations": []}

    # -- writing ----------------------------------------------------------------------------

    def _sid(self) -> str:
        chars = string.ascii_letters + string.digits
        return "ses_" + "".join(self.rng.choice(chars) for _ in range(26))

    def _write(self, rel: str, data: object) -> None:
        path = self.base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data, indent=2))
        os.replace(tmp, path)

    def _checkpoint(self, where: str, phase: str, task: str, at: datetime, kind: str) -> None:
        cid, data = R.checkpoint(self.rng, phase, task, at, kind)
        self._write(f"{where}/{phase}/{cid}.json", data)

    def _history(self, action: str, agent: str, result: str) -> None:
        entry = {"timestamp": R.iso(datetime.now(UTC)), "action": action, "agent": agent}
        entry["result"] = result
        self.state["history"] = (self.state.get("history", []) + [entry])[-50:]
        self._write("brain/state.json", self.state)

    # -- the scenario -----------------------------------------------------------------------

    def setup(self) -> None:
        now = datetime.now(UTC)
        self.state = R.brain_state(now)
        self._write("brain/state.json", self.state)
        for idle, ran, where, extra in R.HISTORY:
            sid = self._sid()
            last = now - idle
            created = last - ran
            self._write(f"{where}/{sid}.json", R.old_session(self.rng, sid, created, last, extra))
            for i in range(2):
                at = created + ran * (i + 1) / 3
                self._checkpoint("execution", "phase-1-setup", f"setup-{i + 1}", at, "auto")

    def steps(self) -> Iterator[float]:
        def wait(seconds: float) -> float:
            return seconds / self.speed

        now = datetime.now(UTC)
        self.session = R.live_session(self.sid, now, self.state.get("phase", "init"))
        self._write(f"sessions/{self.sid}.json", self.session)
        yield wait(2)
        self.metrics = R.metrics(self.sid, now)
        self._write("brain/execution-metrics.json", self.metrics)
        yield wait(4)
        for what, arg in R.PLAN:
            self._step(what, arg)
            yield wait(self.rng.uniform(5.0, 9.0))

    def _step(self, what: str, arg) -> None:
        now = datetime.now(UTC)
        m = self.metrics
        if what == "spawn":
            m["agentSpawns"]["total"] += 1
            m["agentSpawns"]["byAgent"][arg] = m["agentSpawns"]["byAgent"].get(arg, 0) + 1
            self._write("brain/execution-metrics.json", m)
        elif what == "iterate":
            m["iterationCounts"][arg] += 1
            m["iterationCounts"]["total"] += 1
            self._write("brain/execution-metrics.json", m)
        elif what == "error":
            m["errors"]["total"] += 1
            m["errors"]["byType"][arg] = m["errors"]["byType"].get(arg, 0) + 1
            m["errors"]["recent"].append(f"[{R.iso(now)}] {arg}: checker found 2 gaps in the plan")
            self._write("brain/execution-metrics.json", m)
        elif what == "checkpoint":
            kind = "pre_task" if arg.startswith("plan") else "post_task"
            self._checkpoint("brain/execution", PHASE_DIR, arg, now, kind)
        elif what == "delegate":
            src, dst, depth = arg
            n = len(self.delegations["delegations"]) + 1
            self.delegations["delegations"].append(R.delegation(src, dst, depth, n, now))
            self._write("brain/delegations.json", self.delegations)
        elif what == "complete":
            self.delegations["delegations"][arg].update(R.completed(now))
            self._write("brain/delegations.json", self.delegations)
        elif what == "history":
            self._history(arg[0], AGENTS[0], arg[1])
        elif what == "compact":
            self.session.update(
                compactedAt=R.iso(now), contextSize=self.rng.randint(160_000, 200_000)
            )
            self.session["lastUpdated"] = R.iso(now)
            self._write(f"sessions/{self.sid}.json", self.session)
        elif what == "idle":  # the session.idle event, then a validation of the brain
            self.session["lastUpdated"] = R.iso(now)
            self._write(f"sessions/{self.sid}.json", self.session)
            self.state["lastValidation"] = R.iso(now)
            self.state["validationCount"] = self.state.get("validationCount", 0) + 1
            self._history("validate", "idumb-validator", "pass")
