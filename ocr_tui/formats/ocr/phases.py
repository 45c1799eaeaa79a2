"""The two OCR workflows' phases: keys, numbers and upstream's labels (no IO)."""

from __future__ import annotations

REVIEW = "review"
MAP = "map"
WORKFLOWS = (REVIEW, MAP)

# (key, upstream `ocr progress` label), in order; the position is the phase number.
REVIEW_PHASES: tuple[tuple[str, str], ...] = (
    ("context", "Context Discovery"),
    ("change-context", "Change Context"),
    ("analysis", "Tech Lead Analysis"),
    ("reviews", "Parallel Reviews"),
    ("aggregation", "Aggregate Findings"),
    ("discourse", "Reviewer Discourse"),
    ("synthesis", "Final Synthesis"),
    ("complete", "Complete"),
)
MAP_PHASES: tuple[tuple[str, str], ...] = (
    ("map-context", "Context Discovery"),
    ("topology", "Topology Analysis"),
    ("flow-analysis", "Flow Tracing"),
    ("requirements-mapping", "Requirements Mapping"),
    ("synthesis", "Map Synthesis"),
    ("complete", "Complete"),
)
PHASES = {REVIEW: REVIEW_PHASES, MAP: MAP_PHASES}

# Keys written by older OCR versions, mapped to today's.
LEGACY_KEYS = {
    "requirements": "change-context",
    "map-topology": "topology",
    "map-flow": "flow-analysis",
    "map-flow-tracing": "flow-analysis",
    "map-requirements": "requirements-mapping",
    "map-synthesis": "synthesis",
    "map-complete": "complete",
}

# Keys a map stores for one of its phases besides the phase's own key: `ocr state init
# --workflow-type map` and `ocr state sync` of an unfinished map store `context` (OCR 1.10.4).
MAP_ALIASES = {"context": "map-context"}

_REVIEW_KEYS = frozenset(k for k, _ in REVIEW_PHASES)
_MAP_KEYS = frozenset(k for k, _ in MAP_PHASES) | frozenset(MAP_ALIASES)
# Keys both workflows store (context, synthesis, complete): they never tell the workflow.
SHARED_KEYS = _REVIEW_KEYS & _MAP_KEYS
# Keys that only one workflow has (used to tell the workflow from a phase key).
MAP_ONLY_KEYS = _MAP_KEYS - _REVIEW_KEYS
REVIEW_ONLY_KEYS = _REVIEW_KEYS - _MAP_KEYS
LEGACY_MAP_KEYS = frozenset(k for k in LEGACY_KEYS if k.startswith("map-"))

COMPLETE = "complete"


def canonical_phase(key: str) -> str:
    return LEGACY_KEYS.get(key, key)


def workflow_phase(workflow: str, raw_key: str) -> str:
    """The key of `raw_key`'s phase in `workflow`'s list (`context` in a map is `map-context`)."""
    key = canonical_phase(raw_key)
    return MAP_ALIASES.get(key, key) if workflow == MAP else key


def is_map_phase(raw_key: str) -> bool:
    return raw_key in MAP_ONLY_KEYS or raw_key in LEGACY_MAP_KEYS


def is_review_phase(raw_key: str) -> bool:
    return canonical_phase(raw_key) in REVIEW_ONLY_KEYS


def workflow_of_phase(raw_key: str) -> str | None:
    """The workflow a phase key belongs to when only one has it (`context`, `synthesis` and
    `complete`, which both have, give None)."""
    if is_map_phase(raw_key):
        return MAP
    if is_review_phase(raw_key):
        return REVIEW
    return None


def phase_index(workflow: str, key: str) -> int | None:
    """1-based position of `key` in the workflow's phase list, or None if unknown."""
    for i, (k, _) in enumerate(PHASES[workflow], start=1):
        if k == key:
            return i
    return None


def phase_label(workflow: str, key: str) -> str:
    for k, label in PHASES[workflow]:
        if k == key:
            return label
    return key
