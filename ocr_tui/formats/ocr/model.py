"""msgspec Structs for OCR's on-disk formats. Lenient: unknown fields are ignored and every
field is optional, because agents write these files by hand and schemas drift (no IO here)."""

from __future__ import annotations

import msgspec

from ocr_tui.formats.ocr.map_sections import RunMap


class StateJson(msgspec.Struct, kw_only=True, frozen=True):
    """`.ocr/sessions/{id}/state.json`, OCR <= 1.4, all three schema eras."""

    session_id: str | None = None
    branch: str | None = None
    workflow_type: str | None = None
    status: str | None = None
    current_phase: str | None = None
    phase_number: int | None = None
    current_round: int | None = None
    current_map_run: int | None = None
    started_at: str | None = None
    round_started_at: str | None = None
    map_started_at: str | None = None
    updated_at: str | None = None
    completed_phases: list[str] | None = None


class SynthesisCounts(msgspec.Struct, kw_only=True, frozen=True):
    blockers: int = 0
    should_fix: int = 0
    suggestions: int = 0


class MetaFinding(msgspec.Struct, kw_only=True, frozen=True):
    title: str | None = None
    category: str | None = None
    severity: str | None = None
    # Read leniently by findings_meta (a wrong type is a missing value, never a lost file).
    file_path: object = None
    line_start: object = None
    line_end: object = None
    summary: object = None
    flagged_by: object = None


class MetaReviewer(msgspec.Struct, kw_only=True, frozen=True):
    type: str | None = None
    instance: int | None = None
    findings: list[MetaFinding] = []


class RoundMeta(msgspec.Struct, kw_only=True, frozen=True):
    """`rounds/round-N/round-meta.json` (OCR >= 1.6, written by `ocr state round-complete`)."""

    schema_version: int | None = None
    verdict: str | None = None
    synthesis_counts: SynthesisCounts | None = None
    reviewers: list[MetaReviewer] = []


STATE_DECODER = msgspec.json.Decoder(StateJson)
ROUND_META_DECODER = msgspec.json.Decoder(RoundMeta)


class StoredEvent(msgspec.Struct, kw_only=True, frozen=True):
    """One `orchestration_events` row (ocr.db), as written: its metadata parsed (an object, or
    None when absent, not JSON or not an object)."""

    type: str
    phase: str | None = None
    phase_number: int | None = None
    round: int | None = None
    at: str | None = None  # created_at as stored (SQLite UTC without a zone)
    meta: dict | None = None


class StoredAgent(msgspec.Struct, kw_only=True, frozen=True):
    """A `command_executions` row that started and has not finished (ocr.db): an agent
    command running now. The columns after `started_at` exist in newer OCR builds only."""

    command: str
    started_at: str | None = None
    pid: int | None = None
    heartbeat_at: str | None = None  # last_heartbeat_at
    persona: str | None = None
    model: str | None = None  # resolved_model


class StoredNote(msgspec.Struct, kw_only=True, frozen=True):
    """A `user_notes` row (OCR's dashboard), placed: `target` session | round | finding |
    run | section | file; `round` / `run` / `section` its numbers where the target has them;
    `key` a finding's id (`finding_id`) or a file's path."""

    target: str
    text: str
    at: str | None = None  # updated_at, else created_at, as stored
    round: int | None = None
    run: int | None = None
    section: int | None = None
    key: str | None = None
    id: int | None = None  # user_notes.id: what an edit or a deletion names


class StoredState(msgspec.Struct, kw_only=True, frozen=True):
    """A session's workflow position, normalised from whichever store held it."""

    source: str  # "ocr.db" | "state.json"
    branch: str | None = None
    workflow_type: str | None = None
    status: str | None = None
    current_phase: str | None = None
    phase_number: int | None = None
    current_round: int | None = None
    current_map_run: int | None = None
    started_at: str | None = None
    round_started_at: str | None = None
    map_started_at: str | None = None
    updated_at: str | None = None
    # (phase key as stored, when it was entered) for the current round, oldest first (ocr.db):
    # its phase_transition events, and the phase it starts in (session_created, or the
    # round's round_started: OCR's `init` writes no transition to the first phase) and
    # `complete` at session_closed (a session closed straight from synthesis gets no
    # transition to it). A phase entered twice keeps its first time.
    phase_times: tuple[tuple[str, str], ...] = ()
    # The session's last EVENTS_KEPT orchestration events, in the order written (by id).
    events: tuple[StoredEvent, ...] = ()
    # (round, the user's triage of it: `user_round_progress.status` as stored) (ocr.db).
    round_triage: tuple[tuple[int, str], ...] = ()
    # The agent commands running for this session (ocr.db's project-wide command_executions:
    # by workflow_id where set, else the project's newest active session's).
    agents: tuple[StoredAgent, ...] = ()
    # (map run number, its sections and files as OCR's dashboard stored them, with the
    # user's reviewed marks) (ocr.db's map tables).
    map_runs: tuple[tuple[int, RunMap], ...] = ()
    notes: tuple[StoredNote, ...] = ()  # the user's notes on it and its parts (ocr.db)
    # (round, latest `round_started` event time) for every round that has one (ocr.db).
    round_starts: tuple[tuple[int, str], ...] = ()
    # What was wrong with the store's rows for this session (e.g. two rows with its id).
    problems: tuple[str, ...] = ()

    def round_start(self, number: int | None) -> str | None:
        """When round `number` started: ocr.db's latest `round_started` event for that round;
        state.json's `round_started_at` (which is about its current round)."""
        if self.source == "ocr.db":
            return next((at for n, at in self.round_starts if n == number), None)
        return self.round_started_at


def state_from_json(state: StateJson) -> StoredState:
    """The workflow position a state.json holds (the fields both Structs share)."""
    shared = set(StoredState.__struct_fields__) & set(StateJson.__struct_fields__)
    return StoredState(source="state.json", **{f: getattr(state, f) for f in shared})
