"""The rows OCR's web dashboard writes for a review: `review_rounds`, `reviewer_outputs` and
`review_findings` (migrations 1, 6 and 7), as the simulator builds them before its user's triage
(`sim_dashboard_triage`) marks them and `sim_dashboard_db` writes them. A finding row carries
its finding's identity across reviewers and rounds (ocr-tui's finding id), which the triage
needs and no column holds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from ocr_tui.formats.ocr.finding import finding_id


def sql_time(t: datetime) -> str:  # ocr.db: YYYY-MM-DD HH:MM:SS, UTC, no zone
    return t.isoformat(" ", "seconds")[:19]


@dataclass(frozen=True)
class FindingRow:
    title: str
    severity: str
    file_path: str | None
    line_start: int | None
    line_end: int | None
    summary: str | None
    is_blocker: bool
    category: str | None
    parsed_at: str
    triage: tuple[str, str] | None = None  # user_finding_progress (status, updated_at)
    # The finding's identity across reviewers and rounds (ocr-tui's finding id); not a column.
    key: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not self.key:
            object.__setattr__(self, "key", finding_id(self.title, self.file_path))


@dataclass(frozen=True)
class OutputRow:
    reviewer_type: str
    instance_number: int
    file_path: str
    finding_count: int
    parsed_at: str
    findings: tuple[FindingRow, ...]


@dataclass(frozen=True)
class RoundRow:
    round_number: int
    verdict: str | None
    blocker_count: int
    suggestion_count: int
    should_fix_count: int
    final_md_path: str | None
    parsed_at: str | None
    source: str | None
    reviewer_count: int
    total_finding_count: int
    outputs: tuple[OutputRow, ...]
    progress: tuple[str, str] | None = None  # user_round_progress (status, updated_at)

    @property
    def findings(self) -> list[FindingRow]:
        return [f for o in self.outputs for f in o.findings]
