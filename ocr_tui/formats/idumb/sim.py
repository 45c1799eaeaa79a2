"""Play an iDumb (OpenCode plugin) project into a directory, as the plugin writes it.

`setup()` writes the brain (`.idumb/brain/state.json`) and three closed history sessions (stale,
old with a delegation depth from the 402fa8a era, archive-eligible) with their checkpoints in the
historical `.idumb/execution/{phase}/` location. `steps()` plays one live session: created,
agents spawned (`brain/execution-metrics.json`), checkpoints in `brain/execution/{phase}/`,
a planner/checker loop with an error, a compaction, v2 delegations, and the `session.idle`
event with a brain validation. Every write is a temp file + os.replace. No textual import.
"""

from __future__ import annotations

import json
import os
import random
import string
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

PHASE = "2/4 (Phase 2: build)"
PHASE_DIR = "phase-2-build"
AGENTS = ("idumb-supreme-coordinator", "idumb-planner", "idumb-plan-checker", "idumb-builder")


def _iso(dt: datetime) -> str:
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def _ms(dt: datetime) -> int:
    return int(dt.timestamp() * 1000)


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
        cid = f"checkpoint-{phase}-{task}-{_iso(at).replace(':', '-').replace('.', '-')}"
        done = [f"task-{i}" for i in range(self.rng.randint(1, 4))]
        self._write(
            f"{where}/{phase}/{cid}.json",
            {
                "id": cid,
                "version": "0.2.0",
                "createdAt": _iso(at),
                "phase": phase,
                "task": task,
                "type": kind,
                "status": "valid",
                "state": {"gitHash": f"{self.rng.getrandbits(28):07x}", "filesModified": []},
                "execution": {
                    "tasksCompleted": done,
                    "tasksInProgress": [task],
                    "tasksFailed": [],
                    "currentTask": task,
                },
                "metrics": {"iterationCount": 1, "agentSpawns": 2, "errorCount": 0},
                "context": {"anchors": [], "notes": ""},
            },
        )

    def _history(self, action: str, agent: str, result: str) -> None:
        entry = {"timestamp": _iso(datetime.now(UTC)), "action": action, "agent": agent}
        entry["result"] = result
        self.state["history"] = (self.state.get("history", []) + [entry])[-50:]
        self._write("brain/state.json", self.state)

    # -- the scenario -----------------------------------------------------------------------

    def setup(self) -> None:
        now = datetime.now(UTC)
        self.state = {
            "version": "0.2.0",
            "initialized": _iso(now - timedelta(days=45)),
            "framework": "idumb",
            "phase": PHASE,
            "lastValidation": _iso(now - timedelta(hours=30)),
            "validationCount": 11,
            "anchors": [
                {
                    "id": f"anchor-{_ms(now) - 9000}",
                    "created": _iso(now - timedelta(days=3)),
                    "type": "decision",
                    "content": "Use SQLite for the queue",
                    "priority": "high",
                },
                {
                    "id": f"anchor-{_ms(now) - 8000}",
                    "created": _iso(now - timedelta(days=2)),
                    "type": "governance-violation",
                    "content": "builder wrote outside scope",
                    "priority": "critical",
                },
                {
                    "id": f"anchor-{_ms(now) - 7000}",
                    "created": _iso(now - timedelta(days=1)),
                    "type": "context",
                    "content": "API v2 is frozen",
                    "priority": "normal",
                },
            ],
            "history": [],
        }
        for days, action, result in (
            (4, "validate", "pass"),
            (3, "task: plan phase 2", "partial"),
            (2, "validate", "SUCCESS: structure ok"),
        ):
            self.state["history"].append(
                {
                    "timestamp": _iso(now - timedelta(days=days)),
                    "action": action,
                    "agent": "idumb-validator",
                    "result": result,
                }
            )
        self._write("brain/state.json", self.state)
        history = (
            (timedelta(days=3, hours=2), timedelta(hours=3), "sessions", {"compactedAt": True}),
            (
                timedelta(days=9),
                timedelta(hours=1),
                "brain/sessions",
                {"delegationDepth": 0, "parentSession": None},
            ),
            (timedelta(days=40), timedelta(minutes=40), "sessions", {}),
        )
        for idle, ran, where, extra in history:
            sid = self._sid()
            last = now - idle
            created = last - ran
            meta = {
                "sessionId": sid,
                "createdAt": _iso(created),
                "lastUpdated": _iso(last),
                "phase": "1/4 (Phase 1: setup)",
                "governanceLevel": "standard",
                "language": {"communication": "english", "documents": "english"},
            }
            if extra.pop("compactedAt", False):
                meta["compactedAt"] = _iso(last - timedelta(minutes=20))
                meta["contextSize"] = self.rng.randint(150_000, 190_000)
            meta.update(extra)
            self._write(f"{where}/{sid}.json", meta)
            for i in range(2):
                at = created + ran * (i + 1) / 3
                self._checkpoint("execution", "phase-1-setup", f"setup-{i + 1}", at, "auto")

    def steps(self) -> Iterator[float]:
        def wait(seconds: float) -> float:
            return seconds / self.speed

        now = datetime.now(UTC)
        self.session = {
            "sessionId": self.sid,
            "createdAt": _iso(now),
            "lastUpdated": _iso(now),
            "phase": self.state.get("phase", "init"),
            "governanceLevel": "standard",
            "language": {"communication": "english", "documents": "english"},
        }
        self._write(f"sessions/{self.sid}.json", self.session)
        yield wait(2)
        self.metrics = {
            "sessionId": self.sid,
            "startedAt": _iso(now),
            "iterationCounts": {"plannerChecker": 0, "validatorFix": 0, "total": 0},
            "agentSpawns": {"total": 0, "byAgent": {}},
            "errors": {"total": 0, "byType": {}, "recent": []},
            "limits": {"maxDelegationDepth": 3, "maxErrors": 20},
        }
        self._write("brain/execution-metrics.json", self.metrics)
        yield wait(4)
        plan = [
            ("spawn", AGENTS[0]),
            ("delegate", (AGENTS[0], AGENTS[1], 0)),
            ("spawn", AGENTS[1]),
            ("checkpoint", "plan-tasks"),
            ("spawn", AGENTS[2]),
            ("iterate", "plannerChecker"),
            ("error", "plan-check"),
            ("spawn", AGENTS[1]),
            ("iterate", "plannerChecker"),
            ("complete", 0),
            ("history", ("task: plan phase 2", "pass")),
            ("compact", None),
            ("delegate", (AGENTS[1], AGENTS[3], 1)),
            ("spawn", AGENTS[3]),
            ("checkpoint", "build-queue"),
            ("iterate", "validatorFix"),
            ("spawn", AGENTS[3]),
            ("complete", 1),
            ("checkpoint", "build-api"),
            ("idle", None),
        ]
        for what, arg in plan:
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
            m["errors"]["recent"].append(f"[{_iso(now)}] {arg}: checker found 2 gaps in the plan")
            self._write("brain/execution-metrics.json", m)
        elif what == "checkpoint":
            kind = "pre_task" if arg.startswith("plan") else "post_task"
            self._checkpoint("brain/execution", PHASE_DIR, arg, now, kind)
        elif what == "delegate":
            src, dst, depth = arg
            n = len(self.delegations["delegations"]) + 1
            self.delegations["delegations"].append(
                {
                    "id": f"deleg-{_ms(now)}-{n}",
                    "fromAgent": src,
                    "toAgent": dst,
                    "taskId": f"task-{n}",
                    "context": "phase 2",
                    "expectedOutput": "evidence",
                    "allowedTools": [],
                    "allowedActions": [],
                    "maxDepth": 3 - depth - 1,
                    "status": "accepted",
                    "createdAt": _ms(now),
                    "expiresAt": _ms(now + timedelta(minutes=30)),
                }
            )
            self._write("brain/delegations.json", self.delegations)
        elif what == "complete":
            d = self.delegations["delegations"][arg]
            d.update(
                status="completed",
                completedAt=_ms(now),
                result={
                    "evidence": "tests pass",
                    "filesModified": [],
                    "testsRun": "unit",
                    "brainEntriesCreated": [],
                },
            )
            self._write("brain/delegations.json", self.delegations)
        elif what == "history":
            self._history(arg[0], AGENTS[0], arg[1])
        elif what == "compact":
            self.session.update(
                compactedAt=_iso(now), contextSize=self.rng.randint(160_000, 200_000)
            )
            self.session["lastUpdated"] = _iso(now)
            self._write(f"sessions/{self.sid}.json", self.session)
        elif what == "idle":  # the session.idle event, then a validation of the brain
            self.session["lastUpdated"] = _iso(now)
            self._write(f"sessions/{self.sid}.json", self.session)
            self.state["lastValidation"] = _iso(now)
            self.state["validationCount"] = self.state.get("validationCount", 0) + 1
            self._history("validate", "idumb-validator", "pass")
