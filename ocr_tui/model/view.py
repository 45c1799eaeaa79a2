"""The derived view of a session: what the dashboard and the headless outputs show.

Field order is the order of `status --json`. Strings that came from disk are kept as they
are here (JSON escapes them); readable outputs pass them through `ocr_tui.textsafe`.
"""

from __future__ import annotations

import msgspec


class Severity(msgspec.Struct, kw_only=True):
    critical: int = 0
    high: int = 0
    medium: int = 0
    low: int = 0
    info: int = 0

    def total(self) -> int:
        return self.critical + self.high + self.medium + self.low + self.info


class Reviewer(msgspec.Struct, kw_only=True):
    name: str
    label: str
    findings: int
    severity: Severity
    path: str  # relative to the session directory


class Counts(msgspec.Struct, kw_only=True):
    blockers: int
    should_fix: int
    suggestions: int


class Round(msgspec.Struct, kw_only=True):
    number: int
    complete: bool
    discourse: bool
    verdict: str | None
    counts: Counts | None
    reviewers: list[Reviewer]
    path: str  # relative to the session directory, e.g. "rounds/round-2"

    @property
    def findings(self) -> int:
        return sum(r.findings for r in self.reviewers)


class MapRun(msgspec.Struct, kw_only=True):
    number: int
    complete: bool
    files: int | None
    path: str
    documents: list[str] = []  # relative to the session directory


class Elapsed(msgspec.Struct, kw_only=True):
    since: str | None
    seconds: int | None
    running: bool


class PhaseStep(msgspec.Struct, kw_only=True):
    key: str
    label: str
    number: int
    state: str  # "done" | "current" | "pending"
    at: str | None = None  # when the phase was entered, where known (ocr.db events)


class SessionView(msgspec.Struct, kw_only=True):
    id: str
    branch: str | None
    source: str  # "ocr.db" | "state.json" | "files"
    status: str  # "active" | "closed"
    workflow: str  # "review" | "map"
    phase: str
    phase_label: str
    phase_number: int | None
    phase_total: int
    complete: bool
    started_at: str | None
    updated_at: str | None
    last_activity: str | None
    stalled: bool
    elapsed: Elapsed
    current_round: int | None
    rounds: list[Round]
    current_map_run: int | None
    map_runs: list[MapRun]
    problems: list[str]
    # Beyond the schema: where the session is, and what the dashboard drills into.
    path: str
    timeline: list[PhaseStep] = []
    documents: list[str] = []  # session-level markdown documents, relative paths

    @property
    def running(self) -> bool:
        return self.status == "active" and not self.complete

    def round(self, number: int | None) -> Round | None:
        for r in self.rounds:
            if r.number == number:
                return r
        return None

    @property
    def current(self) -> Round | None:
        return self.round(self.current_round)


class Snapshot(msgspec.Struct, kw_only=True):
    """`status --json`: the whole project."""

    version: int
    project: str
    generated_at: str
    sessions: list[SessionView]
