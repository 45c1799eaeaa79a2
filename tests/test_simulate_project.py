"""The simulated project's own files: every file a simulated finding or map run
names exists outside `.ocr/`, long enough for the finding's lines, so `e` opens it in the
demo and after `ocr-tui simulate`; a file of the user's is never written over."""

from __future__ import annotations

import json
import math
import random
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from ocr_tui.core.editor import Plan, plan
from ocr_tui.formats.ocr.sim import Simulator
from ocr_tui.formats.ocr.sim_project import source_text
from ocr_tui.formats.ocr.sim_reviews import FILE_POOL, SOURCE_LINES, changeset, review_round

START = datetime(2026, 3, 10, 12, 0, 0, tzinfo=UTC)
LOCATION = re.compile(r"^- \*\*Location\*\*: (\S+):L(\d+)(?:-L(\d+))?$", re.M)
MAP_FILE = re.compile(r"^\| \[[ x]\] \| `([^`]+)` \|", re.M)


def named_places(root: Path) -> set[tuple[str, int]]:
    """Every (file, last line) the project's sessions name: reviewer files, round-meta.json,
    map.md."""
    out: set[tuple[str, int]] = set()
    sessions = root / ".ocr" / "sessions"
    for md in sessions.glob("*/rounds/round-*/reviews/*.md"):
        for path, start, end in LOCATION.findall(md.read_text()):
            out.add((path, int(end or start)))
    for meta in sessions.glob("*/rounds/round-*/round-meta.json"):
        for reviewer in json.loads(meta.read_text())["reviewers"]:
            for f in reviewer["findings"]:
                out.add((f["file_path"], f["line_end"] or f["line_start"]))
    for md in sessions.glob("*/map/runs/run-*/map.md"):
        out |= {(path, 1) for path in MAP_FILE.findall(md.read_text())}
    return out


@pytest.mark.parametrize(("store", "seed"), [("ocr.db", 7), ("state.json", 1), ("ocr.db", 3)])
def test_every_named_file_and_line_is_there_to_open(tmp_path: Path, store: str, seed: int) -> None:
    Simulator(tmp_path, store=store, seed=seed, start=START, speed=math.inf).run()
    places = named_places(tmp_path)
    assert len({p for p, _ in places}) >= 6 and any(line > 1 for _, line in places)
    for path, line in places:
        file = tmp_path / path
        assert file.is_file(), path
        assert len(file.read_text().splitlines()) >= line, (path, line)
        done = plan(tmp_path, path, line, {"VISUAL": "vi"}, None)  # what `e` does
        assert isinstance(done, Plan) and done.line == line, done


def test_written_once_outside_ocr_with_the_simulated_time(tmp_path: Path) -> None:
    sim = Simulator(tmp_path, start=START, speed=math.inf, history=0)
    sim.setup()
    assert sorted(p.name for p in tmp_path.iterdir()) == [".ocr", "docs", "src", "tests"]
    session = tmp_path / "src" / "auth" / "session.py"
    assert session.stat().st_mtime == START.timestamp()
    assert session.read_text() == source_text("src/auth/session.py")
    compile(session.read_text(), str(session), "exec")  # reads as Python
    session.write_text("edited\n")
    Simulator(tmp_path, start=START, speed=math.inf, history=0).setup()  # played again
    assert session.read_text() == "edited\n"


def test_a_file_of_the_user_s_is_never_written_over(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "config.py").write_text("mine\n")
    elsewhere = tmp_path.parent / f"{tmp_path.name}-elsewhere"
    elsewhere.mkdir()
    (tmp_path / "tests").symlink_to(elsewhere)  # nothing is written through a link
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "architecture.md").symlink_to(elsewhere / "arch.md")  # dangling
    Simulator(tmp_path, start=START, speed=math.inf, history=0).setup()
    assert (tmp_path / "src" / "config.py").read_text() == "mine\n"
    assert list(elsewhere.iterdir()) == []
    assert (tmp_path / "src" / "db" / "query.py").is_file()


def test_every_pool_file_has_its_lines() -> None:
    for path in FILE_POOL:
        assert len(source_text(path).splitlines()) == SOURCE_LINES


@pytest.mark.parametrize("seed", range(8))
def test_a_long_re_review_stays_within_the_files(seed: int) -> None:
    """A problem carried from round to round moves down a little each time (a blocker stays
    while rounds block): after forty rounds (`build_history(rounds=40)`) it must still be
    inside its file."""
    rng = random.Random(seed)
    files, names, earlier = changeset(rng), ["principal-1", "security-1", "quality-1"], []
    for _ in range(40):
        earlier.append(review_round(rng, names, files, "block", earlier))
    ends = [f.end for r in earlier for fs in r.values() for f in fs]
    assert max(ends) <= SOURCE_LINES
