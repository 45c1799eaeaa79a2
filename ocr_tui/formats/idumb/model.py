"""msgspec Structs for iDumb's `.idumb/` files (OpenCode plugin, seed 004): the brain state,
session metadata, phase checkpoints, halt contexts, execution metrics and v2 delegations.

Lenient (no IO here): every field is optional and converted on its own with `strict=False`,
so a field of the wrong type is a problem on that field, not a lost session. Enums (framework,
anchor priority, history result, checkpoint status) are kept as free strings because real files
break them ("both", "SUCCESS: ..."). Fields that must be told apart from "absent" (the session's
`delegationDepth` / `parentSession`) default to `msgspec.UNSET`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import msgspec

from ocr_tui.core.lenient import S, Style
from ocr_tui.core.lenient import lenient as _lenient
from ocr_tui.core.textdecode import load_json

MAX_DELEGATION_DEPTH = 3  # idumb-v2 src/schemas/delegation.ts
MAX_ERRORS = 20  # execution-metrics.ts limits.maxErrors
CHECKPOINT_STALE = timedelta(hours=48)  # checkpoint.ts marks older checkpoints stale on load
BRAIN_WARN_H, BRAIN_CRITICAL_H = 48, 168  # config.ts staleness defaults
HISTORY_SHOWN = 5


class Anchor(msgspec.Struct, kw_only=True):
    id: str | None = None
    created: str | None = None
    type: str | None = None
    content: str | None = None
    priority: str | None = None


class HistoryEntry(msgspec.Struct, kw_only=True):
    timestamp: str | None = None
    action: str | None = None
    agent: str | None = None
    result: str | None = None
    details: Any = None


class BrainState(msgspec.Struct, kw_only=True):
    version: str | None = None
    initialized: str | None = None
    framework: str | None = None
    phase: str | None = None
    lastValidation: str | None = None
    validationCount: int | None = None
    anchors: list[Anchor] = []
    history: list[HistoryEntry] = []


class SessionMeta(msgspec.Struct, kw_only=True):
    sessionId: str | None = None
    createdAt: str | None = None
    lastUpdated: str | None = None
    phase: str | None = None
    governanceLevel: str | None = None
    delegationDepth: int | None | msgspec.UnsetType = msgspec.UNSET
    parentSession: str | None | msgspec.UnsetType = msgspec.UNSET
    compactedAt: str | None = None
    contextSize: str | None = None
    resumedAt: str | None = None
    idleAt: str | None = None


class CheckpointExecution(msgspec.Struct, kw_only=True):
    tasksCompleted: list[str] = []
    tasksInProgress: list[str] = []
    tasksFailed: list[str] = []
    currentTask: str | None = None


class Checkpoint(msgspec.Struct, kw_only=True):
    id: str | None = None
    createdAt: str | None = None
    phase: str | None = None
    task: str | None = None
    type: str | None = None
    status: str | None = None
    execution: CheckpointExecution = msgspec.field(default_factory=CheckpointExecution)


class Halt(msgspec.Struct, kw_only=True):
    timestamp: str | None = None
    sessionId: str | None = None
    reason: str | None = None


class Iterations(msgspec.Struct, kw_only=True):
    plannerChecker: int | None = None
    validatorFix: int | None = None
    total: int | None = None


class Spawns(msgspec.Struct, kw_only=True):
    total: int | None = None
    byAgent: dict[str, int] = {}


class Errors(msgspec.Struct, kw_only=True):
    total: int | None = None
    byType: dict[str, int] = {}
    recent: list[str] = []


class Limits(msgspec.Struct, kw_only=True):
    maxErrors: int | None = None
    maxDelegationDepth: int | None = None


class Metrics(msgspec.Struct, kw_only=True):
    sessionId: str | None = None
    startedAt: str | None = None
    iterationCounts: Iterations = msgspec.field(default_factory=Iterations)
    agentSpawns: Spawns = msgspec.field(default_factory=Spawns)
    errors: Errors = msgspec.field(default_factory=Errors)
    limits: Limits = msgspec.field(default_factory=Limits)


class Delegation(msgspec.Struct, kw_only=True):
    id: str | None = None
    fromAgent: str | None = None
    toAgent: str | None = None
    taskId: str | None = None
    maxDepth: int | None = None
    status: str | None = None
    createdAt: Any = None  # epoch ms (v2) or an ISO string
    completedAt: Any = None
    expiresAt: Any = None


class DelegationStore(msgspec.Struct, kw_only=True):
    version: str | None = None
    delegations: list[Delegation] = []


IDUMB = Style(fast=False, tally=True, numbers_as_text=True)  # every field on its own


def lenient(obj: Any, cls: type[S], where: str, problems: list[str]) -> S:
    """`obj` as `cls`, one field at a time (see `ocr_tui.core.lenient`): wrong types are
    dropped and named in `problems`; lists and dicts keep their good items; dotted keys
    (`"execution.currentTask"`) are nested."""
    return _lenient(obj, cls, where, problems, IDUMB)


def decode(data: bytes, cls: type[S], name: str, problems: list[str]) -> S | None:
    """One JSON file as `cls`, or None (with a problem) when it is not a JSON object."""
    ok, obj = load_json(data, name, problems)
    if not ok:
        return None
    if cls is DelegationStore and isinstance(obj, list):
        obj = {"delegations": obj}  # a bare list of records
    if not isinstance(obj, dict):
        problems.append(f"{name} does not hold a JSON object")
        return None
    return lenient(obj, cls, "", problems)


# -- what the source read of the shared files (the view rules: ocr_tui.formats.idumb.derive) -------


@dataclass
class Cp:
    """One checkpoint file: `phase` is its directory's name, `name` its file stem."""

    phase: str
    name: str
    cp: Checkpoint | None
    at: datetime | None
    problems: list[str] = field(default_factory=list)


@dataclass
class HaltRec:
    name: str  # the `halt-{ms}` directory
    halt: Halt
    at: datetime | None
    problems: list[str] = field(default_factory=list)


_FRACTION = re.compile(r"(\d{1,4})\s*/\s*(\d{1,4})")


def phase_position(text: str) -> tuple[int | None, int]:
    """iDumb's phase is free text; "2/5 (Phase 2)" gives (2, 5). Otherwise (None, 0): no
    phase ladder to draw."""
    m = _FRACTION.search(text or "")
    if m:
        n, total = int(m.group(1)), int(m.group(2))
        if 1 <= n <= total <= 99:
            return n, total
    return None, 0
