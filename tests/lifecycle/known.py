"""The disagreements the replay finds on today's code, each a bug in the product (not in the
test): `test_replay.py` marks each (check, lifecycle) `xfail(strict=True)` with its reason, so
the suite stays green and the mark fails (XPASS) the day the fix lands: remove it then.

Found by the replay on 6b9f84f. The bugs issue 24 named (a round just begun resolving the
round before's findings, `findings --fail-on blocker` passing it, final.md's ordered-list
blockers not counted, a map session's file count in the Verdict column, a stale agent's `●`)
are fixed there; the replay finds each of them on c749220, the commit before the fixes."""

from __future__ import annotations

from dataclasses import dataclass

OCR = ("ocr-state.json", "ocr-ocr.db", "ocr-state.json-ordered-blockers")


@dataclass(frozen=True)
class Known:
    check: str
    lifecycles: tuple[str, ...]
    reason: str


KNOWN: tuple[Known, ...] = (
    Known(
        "blockers are never fewer than OCR's dashboard counts",
        OCR,
        "Round 1's critical 'Secret logged at debug level' is raised by quality-1 and "
        "security-1: OCR's dashboard stores blocker_count 2 (filesystem-sync.ts counts "
        "review_findings rows with is_blocker, one per reviewer; round-meta.json's `blocker` "
        "rows likewise), while status --json, the list, the detail pane, the session screen, "
        "findings --json and the Reviews view all say 1 (tally.count counts findings merged "
        "by title and file). README: 'never shows fewer than it would on the same files'.",
    ),
    Known(
        "round time matches the stored round start",
        ("ocr-ocr.db",),
        "An ocr.db session's map run, in its first phase (map-context, before "
        "map/runs/run-1/ exists), counts its Round time from the session's start (list and "
        "status say 1m) instead of its map-context phase_transition event (1s); state.json's "
        "map_started_at gives 1s. derive.py takes the map's start from the run directory's "
        "span (unit_times.run_span), and there is no run directory yet.",
    ),
    Known(
        "a stale agent is said at every width",
        ("ocr-ocr.db",),
        "`status` at 80 and 100 columns shows `! active` and neither `agent stale` nor the "
        "AGENTS column for a session whose agent's heartbeat is 90 s old (e.g. in phase 3/8 "
        "Tech Lead Analysis): STATUS is planned at its 8-cell minimum (display.plan gives the "
        "room to a readable id and the phase first) and clip_words drops the phrase, so the "
        "`!` is not explained. README (issue 24, item 7): STATUS says `agent stale` at every "
        "width; the detail pane does.",
    ),
    Known(
        "the Agents column names the phase's agents",
        ("code", "analysis"),
        "In a phase whose agents are not on disk yet, the Agents column (status --json's "
        "summary, the list, status) names an earlier phase's: the code workflow at plan, "
        "implement and quality says `2× scouter (parallel)` (research's dispatcher "
        "decision; codeflow/derive.py falls back to 'the latest phase that has a decision'), "
        "scientific analysis at 3/8 Subsection Planning says `research-architect` (phase "
        "2's run). README: 'Agents (the phase's agents ...)'; `—` is 'not known (yet)'.",
    ),
)


def known_in(lifecycle: str) -> dict[str, str]:
    """The checks known to fail in `lifecycle`, with why."""
    return {k.check: k.reason for k in KNOWN if lifecycle in k.lifecycles}
