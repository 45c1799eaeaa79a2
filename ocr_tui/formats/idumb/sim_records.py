"""The JSON records the iDumb plugin writes, as the simulator (`sim.py`) plays them: the brain
state, session metadata, phase checkpoints, execution metrics and v2 delegations. Pure: the
simulator writes them (and owns the random generator passed in)."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

PHASE = "2/4 (Phase 2: build)"
PHASE_DIR = "phase-2-build"
AGENTS = ("idumb-supreme-coordinator", "idumb-planner", "idumb-plan-checker", "idumb-builder")
# The live session's story after its metrics appear: (what, its argument), one a step.
PLAN = (
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
)
# The closed history sessions: (idle, how long it ran, its directory, extra metadata).
HISTORY = (
    (timedelta(days=3, hours=2), timedelta(hours=3), "sessions", {"compactedAt": True}),
    (
        timedelta(days=9),
        timedelta(hours=1),
        "brain/sessions",
        {"delegationDepth": 0, "parentSession": None},
    ),
    (timedelta(days=40), timedelta(minutes=40), "sessions", {}),
)


def iso(dt: datetime) -> str:
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def ms(dt: datetime) -> int:
    return int(dt.timestamp() * 1000)


def checkpoint(
    rng: random.Random, phase: str, task: str, at: datetime, kind: str
) -> tuple[str, dict]:
    """(its id, the checkpoint file)."""
    cid = f"checkpoint-{phase}-{task}-{iso(at).replace(':', '-').replace('.', '-')}"
    done = [f"task-{i}" for i in range(rng.randint(1, 4))]
    return cid, {
        "id": cid,
        "version": "0.2.0",
        "createdAt": iso(at),
        "phase": phase,
        "task": task,
        "type": kind,
        "status": "valid",
        "state": {"gitHash": f"{rng.getrandbits(28):07x}", "filesModified": []},
        "execution": {
            "tasksCompleted": done,
            "tasksInProgress": [task],
            "tasksFailed": [],
            "currentTask": task,
        },
        "metrics": {"iterationCount": 1, "agentSpawns": 2, "errorCount": 0},
        "context": {"anchors": [], "notes": ""},
    }


def brain_state(now: datetime) -> dict:
    """The brain at setup: validated 30 h ago, three anchors, three history entries."""
    state = {
        "version": "0.2.0",
        "initialized": iso(now - timedelta(days=45)),
        "framework": "idumb",
        "phase": PHASE,
        "lastValidation": iso(now - timedelta(hours=30)),
        "validationCount": 11,
        "anchors": [
            {
                "id": f"anchor-{ms(now) - 9000}",
                "created": iso(now - timedelta(days=3)),
                "type": "decision",
                "content": "Use SQLite for the queue",
                "priority": "high",
            },
            {
                "id": f"anchor-{ms(now) - 8000}",
                "created": iso(now - timedelta(days=2)),
                "type": "governance-violation",
                "content": "builder wrote outside scope",
                "priority": "critical",
            },
            {
                "id": f"anchor-{ms(now) - 7000}",
                "created": iso(now - timedelta(days=1)),
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
        state["history"].append(
            {
                "timestamp": iso(now - timedelta(days=days)),
                "action": action,
                "agent": "idumb-validator",
                "result": result,
            }
        )
    return state


def old_session(
    rng: random.Random, sid: str, created: datetime, last: datetime, extra: dict
) -> dict:
    """A closed history session's metadata (`extra`: its era's fields; `compactedAt`: True
    for a compacted one)."""
    meta = {
        "sessionId": sid,
        "createdAt": iso(created),
        "lastUpdated": iso(last),
        "phase": "1/4 (Phase 1: setup)",
        "governanceLevel": "standard",
        "language": {"communication": "english", "documents": "english"},
    }
    extra = dict(extra)
    if extra.pop("compactedAt", False):
        meta["compactedAt"] = iso(last - timedelta(minutes=20))
        meta["contextSize"] = rng.randint(150_000, 190_000)
    meta.update(extra)
    return meta


def live_session(sid: str, now: datetime, phase: str) -> dict:
    return {
        "sessionId": sid,
        "createdAt": iso(now),
        "lastUpdated": iso(now),
        "phase": phase,
        "governanceLevel": "standard",
        "language": {"communication": "english", "documents": "english"},
    }


def metrics(sid: str, now: datetime) -> dict:
    return {
        "sessionId": sid,
        "startedAt": iso(now),
        "iterationCounts": {"plannerChecker": 0, "validatorFix": 0, "total": 0},
        "agentSpawns": {"total": 0, "byAgent": {}},
        "errors": {"total": 0, "byType": {}, "recent": []},
        "limits": {"maxDelegationDepth": 3, "maxErrors": 20},
    }


def delegation(src: str, dst: str, depth: int, n: int, now: datetime) -> dict:
    """The `n`th v2 delegation, accepted, expiring in 30 minutes."""
    return {
        "id": f"deleg-{ms(now)}-{n}",
        "fromAgent": src,
        "toAgent": dst,
        "taskId": f"task-{n}",
        "context": "phase 2",
        "expectedOutput": "evidence",
        "allowedTools": [],
        "allowedActions": [],
        "maxDepth": 3 - depth - 1,
        "status": "accepted",
        "createdAt": ms(now),
        "expiresAt": ms(now + timedelta(minutes=30)),
    }


def completed(now: datetime) -> dict:
    """A delegation's fields once it is done."""
    return {
        "status": "completed",
        "completedAt": ms(now),
        "result": {
            "evidence": "tests pass",
            "filesModified": [],
            "testsRun": "unit",
            "brainEntriesCreated": [],
        },
    }
