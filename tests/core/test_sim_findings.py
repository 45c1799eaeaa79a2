"""The simulator's findings, read back by the findings model (`read_findings`): realistic
locations, findings shared by several reviewers, final.md items that attach to them,
round-meta.json agreeing with the reviewer files, and a round 2 that keeps some, fixes some
(round 1's blockers among them) and adds one or two."""

from __future__ import annotations

import json
import math
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest

from ocr_tui.formats.ocr.findings import merge
from ocr_tui.formats.ocr.findings_md import parse_reviewer_findings
from ocr_tui.formats.ocr.round_findings import RoundFindings, read_findings
from ocr_tui.formats.ocr.sim import Simulator

START = datetime(2026, 3, 10, 12, 0, 0, tzinfo=UTC)


def live(tmp_path: Path, store: str, seed: int) -> tuple[Path, list[RoundFindings]]:
    sim = Simulator(tmp_path, store=store, seed=seed, start=START, speed=math.inf, history=0)
    for _ in sim.steps():
        pass
    sdir = tmp_path / ".ocr" / "sessions" / sim.live_session_id
    rounds, problems = read_findings(sdir)
    assert problems == []
    return sdir, rounds


@pytest.mark.parametrize("store", ["state.json", "ocr.db"])
def test_two_rounds_open_new_resolved(tmp_path: Path, store: str) -> None:
    sdir, rounds = live(tmp_path, store, 7)
    assert [r.number for r in rounds] == [1, 2]
    r1, r2 = rounds
    assert r1.source == r2.source == ("round-meta.json" if store == "ocr.db" else "markdown")
    evolution = Counter(f.evolution for f in r2.findings)
    assert evolution["open"] >= 1 and evolution["new"] >= 1 and evolution["resolved"] >= 1
    assert 1 <= evolution["new"] <= 2
    # open: the same finding (title and file) as in round 1; resolved: round 1's, gone now
    ids1 = {f.id for f in r1.current}
    assert all(f.id in ids1 for f in r2.findings if f.evolution in ("open", "resolved"))
    assert all(f.id not in ids1 for f in r2.findings if f.evolution == "new")
    # round 1 blocks, round 2 approves: every round-1 blocker is resolved
    blockers = [f for f in r1.current if f.blocker]
    assert blockers and not any(f.blocker for f in r2.current)
    resolved = {f.id for f in r2.findings if f.evolution == "resolved"}
    assert {f.id for f in blockers} <= resolved
    for rf in rounds:
        # shared findings are one finding with every reviewer
        assert any(len(f.reviewers) >= 2 for f in rf.current)
        # every final.md item attached to a finding: none read from final.md itself
        assert not [f.title for f in rf.findings if f.path and f.path.endswith("final.md")]
        for f in rf.current:
            loc = f.location
            assert loc.file and loc.file.count("/") >= 1
            assert loc.line_start and loc.line_end and loc.line_start <= loc.line_end
            assert f.category in ("blocker", "should_fix", "suggestion")
    if store == "ocr.db":  # round-meta.json's flagged_by is every reviewer of the finding
        for rf in rounds:
            meta = json.loads((sdir / f"rounds/round-{rf.number}/round-meta.json").read_text())
            flagged = {
                f["title"]: sorted(n.lstrip("@") for n in f["flagged_by"])
                for r in meta["reviewers"]
                for f in r["findings"]
            }
            assert {f.title: sorted(f.reviewers) for f in rf.current} == flagged


@pytest.mark.parametrize("seed", range(1, 6))
def test_meta_agrees_with_reviewer_files(tmp_path: Path, seed: int) -> None:
    sdir, rounds = live(tmp_path, "ocr.db", seed)
    for rf in rounds:
        rdir = sdir / f"rounds/round-{rf.number}"
        groups = [
            parse_reviewer_findings(p.read_text(), p.name, p.stem)
            for p in sorted((rdir / "reviews").glob("*.md"))
        ]

        def key(fs):
            return {f.id: (f.severity, f.location, sorted(f.reviewers)) for f in fs}

        assert key(merge(groups)) == key(rf.current)  # final.md added no reviewer either
        evolution = Counter(f.evolution for f in rf.findings)
        if rf.number == 2:
            assert evolution["open"] and evolution["new"] and evolution["resolved"]
