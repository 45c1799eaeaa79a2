"""The derived view of a session: what the dashboard and the headless outputs show.

Field order is the order of `status --json`. Strings that came from disk are kept as they
are here (JSON escapes them); readable outputs pass them through `ocr_tui.core.textsafe`.
"""

from __future__ import annotations

import msgspec
from msgspec import UNSET, UnsetType


class Severity(msgspec.Struct, kw_only=True, gc=False):
    critical: int = 0
    high: int = 0
    medium: int = 0
    low: int = 0
    info: int = 0

    def total(self) -> int:
        return self.critical + self.high + self.medium + self.low + self.info


class Reviewer(msgspec.Struct, kw_only=True, gc=False):
    name: str
    label: str
    findings: int
    severity: Severity
    path: str  # relative to the session directory


class Counts(msgspec.Struct, kw_only=True, gc=False):
    blockers: int
    should_fix: int
    suggestions: int


class Evolution(msgspec.Struct, kw_only=True, gc=False):
    """A round's findings against the round numbered one less (`ocr-tui findings`' evolution):
    `new` (not there before), `open` (there before too), `resolved` (there before, not raised
    again by the round, complete), `pending` (there before, not raised again yet: the round's
    findings are not all in, so nothing is resolved yet and `resolved` is None);
    `new_blockers` / `resolved_blockers` / `pending_blockers`: how many of those are blockers."""

    new: int
    open: int
    resolved: int | None
    new_blockers: int
    resolved_blockers: int | None
    pending: int = 0
    pending_blockers: int = 0


class Round(msgspec.Struct, kw_only=True, gc=False):
    number: int
    # Its findings are all in: its synthesis is written (final.md, round-meta.json) or OCR
    # records it as done (a round_completed event).
    complete: bool
    discourse: bool
    verdict: str | None
    counts: Counts | None  # the synthesis' own numbers (round-meta.json, final.md), or None
    reviewers: list[Reviewer]
    # The round's distinct findings (merged across reviewers; the round before's resolved or
    # pending ones not counted), and how many are blockers: `ocr-tui findings`' model, counted.
    # None: not known yet (nothing is in yet for `findings`; for `blockers`, no synthesis yet
    # and none found so far). A blocker is a critical finding or one the synthesis names, and
    # there are never fewer than the synthesis counts.
    findings: int | None = None
    blockers: int | None = None
    evolution: Evolution | None = None  # None in round 1, or when the round before is missing
    path: str  # relative to the session directory, e.g. "rounds/round-2"
    # The blockers not known to be resolved: of `blockers`, those the user has not triaged as
    # fixed or won't fix in OCR's dashboard (without triage: all of them); while the round is
    # not complete, the round before's it has not judged again yet too.
    open_blockers: int = 0
    # The user's triage of the round in OCR's dashboard (`user_round_progress.status`, raw:
    # needs_review, in_progress, changes_made, acknowledged, dismissed), or None: no row.
    triage: str | None = None
    # When it started and ended (None: not known, or not ended yet); `approximate` when
    # either comes from file times rather than a store (`formats/ocr/unit_times.py`).
    started_at: str | None = None
    ended_at: str | None = None
    approximate: bool = False

    @property
    def reviewer_findings(self) -> int:
        """The reviewers' finding counts added up: a finding three reviewers raised counts
        three times (`findings` counts it once)."""
        return sum(r.findings for r in self.reviewers)


class MapSection(msgspec.Struct, kw_only=True, gc=False):
    """A map run's review section: its title (without `Section N:`), how many files it has
    and how many of them the user marked reviewed in OCR's dashboard (ocr.db)."""

    number: int
    title: str
    files: int
    reviewed: int | None = None  # None: no record of it (only ocr.db keeps the marks)


class MapRun(msgspec.Struct, kw_only=True, gc=False):
    number: int
    complete: bool
    files: int | None
    path: str
    documents: list[str] = []  # relative to the session directory
    sections: list[MapSection] = []
    started_at: str | None = None  # as a Round's
    ended_at: str | None = None
    approximate: bool = False


class Elapsed(msgspec.Struct, kw_only=True, gc=False):
    since: str | None
    seconds: int | None
    running: bool


class PhaseStep(msgspec.Struct, kw_only=True, gc=False):
    key: str
    label: str
    number: int
    state: str  # "done" | "current" | "pending" | "skipped"
    at: str | None = None  # when the phase was entered, where known (ocr.db events)
    ended: str | None = None  # when it finished, where the format records it
    seconds: int | None = None  # how long it took (or has taken), where known
    document: str | None = None  # the phase's report, relative to the session's path
    # The times are guessed from the files the phases wrote (no store records them).
    approximate: bool = False


class LogEvent(msgspec.Struct, kw_only=True, gc=False):
    """One event of the session's log (OCR >= 1.5's `orchestration_events`): `type` as the
    store names it (session_created, phase_transition, round_started, round_completed,
    map_completed, session_closed, session_resumed, session_synced, …), `at` in UTC, `meta`
    the event's metadata object (None when absent or not a JSON object)."""

    type: str
    phase: str | None = None
    round: int | None = None
    at: str | None = None
    meta: dict | None = None


class RunningAgent(msgspec.Struct, kw_only=True, gc=False):
    """An agent command running for the session (OCR >= 1.5's `command_executions`): since
    `started_at`; `pid`, `heartbeat_at`, `persona` and `model` where the OCR build records
    them; `stale` when the heartbeat is older than a minute or the process is gone on this
    machine (None when neither a heartbeat nor a pid is known)."""

    command: str
    started_at: str | None = None
    pid: int | None = None
    heartbeat_at: str | None = None
    persona: str | None = None
    model: str | None = None
    stale: bool | None = None


class Note(msgspec.Struct, kw_only=True, gc=False):
    """A note the user wrote in OCR's dashboard (`user_notes`), on the session or a part of
    it: `target` session | round | finding | run | section | file, with the numbers that
    place it (`round`, `run`, `section`) and `key` (a finding's id, a file's path)."""

    target: str
    text: str
    at: str | None = None
    round: int | None = None
    run: int | None = None
    section: int | None = None
    key: str | None = None
    id: int | None = None  # ocr.db's user_notes.id (what an edit or a deletion names)


class Fact(msgspec.Struct, kw_only=True, gc=False):
    """One labelled line of the detail pane (e.g. "spec", "agents", "approval")."""

    label: str
    value: str
    tone: str = "neutral"  # "neutral" | "good" | "warn" | "bad"


class Step(msgspec.Struct, kw_only=True, gc=False):
    """Something to drill into that is not an OCR round: an agent run, a checkpoint..."""

    key: str
    label: str
    state: str  # free word from the format: "success", "failure", "valid", "stale"...
    at: str | None = None
    ended: str | None = None
    seconds: float | None = None
    detail: str | None = None
    documents: list[str] = []  # relative to the session's path


class Header(msgspec.Struct, kw_only=True, gc=False):
    """Project-level state of a framework (iDumb's brain): shown above the session list."""

    framework: str
    # With several projects: the name of the project it belongs to (see SessionView.project).
    project: str | UnsetType = UNSET
    title: str
    path: str
    facts: list[Fact] = []
    alerts: list[str] = []


class SessionView(msgspec.Struct, kw_only=True, gc=False):
    id: str
    # With several projects (`ocr-tui PATH PATH…`, `--scan DIR`): the name of the session's
    # project (`Snapshot.projects`), and `id` is `project/the session's own id`. Unset (not
    # in the JSON at all) with one project.
    project: str | UnsetType = UNSET
    # A remote project's session (`HOST:PATH`, issue 29): the host it is read on. Unset (not in
    # the JSON) for a local one.
    host: str | UnsetType = UNSET
    # A remote session while its host's connection is lost: the view is the last one known.
    offline: bool | UnsetType = UNSET
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
    # The whole session's time (start to end, or to now while it runs), in every format: the
    # list's Elapsed and status' ELAPSED (`elapsed` is OCR's round time). Set by the engine.
    session_seconds: int | None = None
    timeline: list[PhaseStep] = []
    events: list[LogEvent] = []  # the last 200, in the order written (newest last)
    agents: list[RunningAgent] = []  # agent commands running now
    notes: list[Note] = []  # the user's notes (OCR's dashboard), oldest first
    documents: list[str] = []  # session-level markdown documents, relative paths
    # The format's key (its Source's `framework`: "ocr", "code", …); the fields below it are
    # empty for the host format, whose sessions say the same with rounds and map runs.
    framework: str = ""
    title: str | None = None  # the task, dataset or phase text the format gives a session
    badges: list[str] = []  # short tags: "fast", "auto", "5 chapters", "compacted"...
    summary: str | None = None  # the list's "reviewers" column for other frameworks
    waiting: bool = False  # waiting on a human (an approval gate)
    alerts: list[str] = []  # plain words: "interrupted", "error: ...", "stale (52 h idle)"
    facts: list[Fact] = []
    steps: list[Step] = []

    @property
    def running(self) -> bool:
        return self.status == "active" and not self.complete

    def round(self, number: int | None, path: str | None = None) -> Round | None:
        """Round `number`; with `path`, the round in that directory (`rounds/round-01` and
        `rounds/round-1` are both round 1: without a path, the first, `round-1`)."""
        for r in self.rounds:
            if r.number == number and (path is None or r.path == path):
                return r
        return None

    @property
    def current(self) -> Round | None:
        return self.round(self.current_round)


def own_id(sid: str, project: str | UnsetType | None) -> str:
    """A session's own id, without its project's name (`api/2026-11-23-main` →
    `2026-11-23-main`); with one project, the id as it is."""
    if project and sid.startswith(f"{project}/"):
        return sid[len(project) + 1 :]
    return sid


class ProjectRef(msgspec.Struct, kw_only=True, gc=False):
    """One of several projects shown: its name (the sessions' `project`) and where it is."""

    name: str
    path: str


class Snapshot(msgspec.Struct, kw_only=True, gc=False):
    """`status --json`: the whole project (with several: every one, and `project` is the
    directory that holds them all, or the `--scan` DIR)."""

    version: int
    project: str
    generated_at: str
    sessions: list[SessionView]
    headers: list[Header] = []
    projects: list[ProjectRef] | UnsetType = UNSET  # with several projects only
