"""Hostile inputs, one builder each, written into a project that also holds two well-formed
sessions. A builder returns the hostile session's id and what a test should look at."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from ocr_tui.core.textsafe import name_key

from .support import NOW, db_bytes, final_md, put, reviewer_md, set_mtimes, write_db

GOOD_A = "2026-11-20-good-a"
GOOD_B = "2026-11-21-good-b"
SECRET = "SECRET-OUTSIDE-PROJECT"
OLD = NOW - timedelta(hours=2)


def make_project(root: Path) -> Path:
    """A project with two well-formed sessions (a review and a map), fixed file times."""
    s = root / ".ocr" / "sessions"
    a = s / GOOD_A
    put(a / "state.json", json.dumps({
        "current_phase": "reviews", "status": "active", "current_round": 1,
        "started_at": "2026-11-20T10:00:00Z", "updated_at": "2026-11-20T10:30:00Z",
    }))  # fmt: skip
    put(a / "context.md", "# Context\n")
    put(a / "rounds/round-1/reviews/principal-1.md", reviewer_md("principal", ["high", "medium"]))
    put(a / "rounds/round-1/reviews/quality-1.md", reviewer_md("quality", ["low"]))
    put(a / "rounds/round-1/final.md", final_md("APPROVE", 1))
    b = s / GOOD_B
    put(b / "state.json", json.dumps({
        "workflow_type": "map", "current_phase": "topology", "status": "active",
        "started_at": "2026-11-21T09:00:00Z",
    }))  # fmt: skip
    put(b / "map/runs/run-1/topology.md", "# T\n\n## Canonical File List\n\n```\na.py\n```\n")
    set_mtimes(root / ".ocr", OLD)
    return root


@dataclass
class Case:
    sid: str | None  # the hostile session, if the input made one
    project_wide: bool = False  # a shared store (ocr.db): every session names the problem
    docs: list[str] = field(default_factory=list)  # documents of it to open on screen
    problem: bool = True  # must its `problems` be non-empty?
    check: Callable | None = None  # extra assertions on (views by id, every output joined)
    screen: bool = True  # open its session screen in the dashboard test (each costs ~1 s)
    stream: bool = True  # also read a real `watch --jsonl` (a cold scan in a new process)


CASES: dict[str, Callable[[Path, Path], Case]] = {}


def case(fn: Callable[[Path, Path], Case]) -> Callable[[Path, Path], Case]:
    CASES[fn.__name__] = fn
    return fn


def sdir(root: Path, name: str | bytes) -> Path:
    base = os.fsencode(root / ".ocr" / "sessions")
    raw = name if isinstance(name, bytes) else os.fsencode(name)
    return Path(os.fsdecode(base + b"/" + raw))


def _finish(root: Path, c: Case) -> Case:
    set_mtimes(root / ".ocr", OLD)
    return c


STATE = {"current_phase": "reviews", "status": "active", "started_at": "2026-11-22T08:00:00Z"}


# --- damaged files ---------------------------------------------------------------------------


@case
def truncated_state(root: Path, outside: Path) -> Case:
    """A non-atomic writer caught mid-write: state.json ends inside a string."""
    sid = "2026-11-22-mid-write"
    full = json.dumps({**STATE, "branch": "mid-write", "updated_at": "2026-11-22T09:00:00Z"})
    put(sdir(root, sid) / "state.json", full[: len(full) // 2])
    put(sdir(root, sid) / "rounds/round-1/reviews/principal-1.md", reviewer_md("p", ["high"]))

    def check(views, _out):
        view = views[sid]
        assert view.source == "files" and view.rounds[0].reviewers[0].findings == 1

    return _finish(root, Case(sid, check=check, screen=False))


GARBAGE = bytes(range(256)) * 16 + b"\x1b]0;garbage\x07\x00\xff"


@case
def binary_garbage(root: Path, outside: Path) -> Case:
    sid = "2026-11-22-garbage"
    d = sdir(root, sid)
    put(d / "state.json", GARBAGE)
    put(d / "context.md", GARBAGE)
    put(d / "rounds/round-1/reviews/principal-1.md", GARBAGE)
    put(d / "rounds/round-1/round-meta.json", GARBAGE)
    put(d / "rounds/round-1/final.md", GARBAGE)
    return _finish(root, Case(sid, docs=["context.md", "rounds/round-1/reviews/principal-1.md"]))


@case
def reviewer_50mb(root: Path, outside: Path) -> Case:
    sid = "2026-11-22-huge"
    unit = b"### Finding 1: big\n- **Severity**: High\n\n" + b"x" * 980 + b"\n"
    path = sdir(root, sid) / "rounds/round-1/reviews/principal-1.md"
    path.parent.mkdir(parents=True)
    with open(path, "wb") as fh:
        for _ in range(50):
            fh.write(unit * (1024 * 1024 // len(unit) + 1))
    assert path.stat().st_size >= 50 * 1024 * 1024

    def check(views, _out):
        view = views[sid]
        (rev,) = view.rounds[0].reviewers
        assert 0 < rev.findings < 50 * 1024  # the first part was read, not the whole file

    return _finish(root, Case(sid, check=check, screen=False))


@case
def reviewers_10000(root: Path, outside: Path) -> Case:
    """Not an error, only a lot: every file is listed and counted (no problem required)."""
    sid = "2026-11-22-crowd"
    reviews = sdir(root, sid) / "rounds/round-1/reviews"
    reviews.mkdir(parents=True)
    first = reviews / "reviewer-0.md"
    first.write_text(reviewer_md("r", ["low"]))
    base = str(reviews)
    for i in range(1, 10_000):  # hard links: one file's content, 10,000 names
        os.link(first, f"{base}/reviewer-{i}.md")

    def check(views, _out):
        view = views[sid]
        revs = view.rounds[0].reviewers
        assert len(revs) == 10_000 and sum(r.findings for r in revs) == 10_000
        assert [r.name for r in revs[:3]] == ["reviewer-0", "reviewer-1", "reviewer-2"]
        assert revs[-1].name == "reviewer-9999"  # natural order

    return _finish(root, Case(sid, problem=False, check=check, screen=False, stream=False))


@case
def deeply_nested_json(root: Path, outside: Path) -> Case:
    sid = "2026-11-22-deep"
    d = sdir(root, sid)
    put(d / "state.json", b"[" * 100_000)
    put(d / "rounds/round-1/round-meta.json", b'{"verdict": ' + b'{"a": ' * 50_000 + b"1")
    put(d / "rounds/round-1/final.md", final_md("APPROVE"))
    put(d / "rounds/round-1/reviews/principal-1.md", "#" * 100_000 + " " + "> " * 100_000 + "\n")
    return _finish(root, Case(sid, docs=["rounds/round-1/reviews/principal-1.md"]))


@case
def invalid_utf8(root: Path, outside: Path) -> Case:
    """Undecodable bytes in the session's name, a reviewer's name and file contents."""
    name = b"2026-11-22-caf\xe9-\xff"
    d = sdir(root, name)
    put(
        d / "state.json",
        b'{"branch": "caf\xe9", "current_phase": "re\xffviews", "status": "active"}',
    )
    reviews = Path(os.fsdecode(os.fsencode(d) + b"/rounds/round-1/reviews"))
    put(
        Path(os.fsdecode(os.fsencode(reviews) + b"/prin\xffcipal-1.md")), reviewer_md("p", ["high"])
    )
    put(
        reviews / "quality-1.md", b"# Q\n\n### Finding 1: bad \xc3\x28 bytes\n- **Severity**: low\n"
    )
    put(d / "context.md", b"# Context \xfe\xfe\n\ncaf\xe9\n")
    sid = name_key(os.fsdecode(name))  # each bad byte named: `caf\xe9-\xff`

    def check(views, _out):
        view = views[sid]
        assert len(view.rounds[0].reviewers) == 2

    return _finish(root, Case(sid, docs=["context.md", "rounds/round-1/reviews/quality-1.md"],
                              check=check))  # fmt: skip


# --- terminal escapes ------------------------------------------------------------------------

ESCAPES = {
    "osc_title": "\x1b]0;owned title\x07\x1b]2;owned\x1b\\",
    "osc52_clipboard": "\x1b]52;c;ZWNobyBvd25lZA==\x07",
    "csi_cursor": "\x1b[2J\x1b[H\x1b[10;10H\x1b[31m\x1b[?1049l",
    "bare_esc": "a\x1bb\x1b",
    "c1_controls": "\x9b31m\x9d0;t\x9c\x85\x90",
}


def _escape_case(kind: str) -> Callable[[Path, Path], Case]:
    seq = ESCAPES[kind]

    def build(root: Path, outside: Path) -> Case:
        sid = f"2026-11-22-{kind}{seq}"
        d = sdir(root, sid)
        put(d / "state.json", json.dumps({
            "branch": f"br{seq}", "current_phase": f"reviews{seq}", "status": f"active{seq}",
            "workflow_type": f"review{seq}", "started_at": f"2026{seq}",
            "updated_at": "2026-11-22T09:00:00Z",
        }))  # fmt: skip
        put(d / "context.md", f"# Context {seq}\n\nbody {seq} text\n")
        r = "rounds/round-1"
        put(d / f"{r}/reviews/principal{seq}-1.md", f"# P{seq}\n\n### Finding 1: t{seq}\n"
            f"- **Severity**: high{seq}\n")  # fmt: skip
        put(d / f"{r}/reviews/quality-1.md", reviewer_md(f"q{seq}", ["low"]) + seq)
        put(d / f"{r}/final.md", f"# Final\n\n**Verdict**: APPROVE{seq}\n\n**Blockers**: 1\n")
        put(d / f"{r}/round-meta.json", json.dumps({"verdict": f"REQUEST{seq} CHANGES"}))
        put(d / "map/runs/run-1/topology.md", f"## Canonical File List\n\n```\na{seq}.py\n```\n")
        return _finish(
            root,
            Case(
                sid,
                docs=[
                    f"{r}/reviews/principal{seq}-1.md",
                    "context.md",
                    f"{r}/reviews/quality-1.md",
                    f"{r}/final.md",
                ],
            ),
        )

    build.__name__ = f"escapes_{kind}"
    return build


for _kind in ESCAPES:
    case(_escape_case(_kind))


@case
def escapes_in_db_row(root: Path, outside: Path) -> Case:
    seq = "".join(ESCAPES.values())
    sid = "2026-11-22-db-escapes"
    sdir(root, sid).mkdir(parents=True)
    write_db(root / ".ocr/data/ocr.db", db_bytes({
        sid: {"branch": f"b{seq}", "current_phase": f"x{seq}", "status": f"s{seq}",
              "started_at": f"t{seq}", "updated_at": f"u{seq}"},
    }))  # fmt: skip
    return _finish(root, Case(sid))


# --- links and permissions -------------------------------------------------------------------


@case
def symlink_loops(root: Path, outside: Path) -> Case:
    sid = "2026-11-22-loops"
    d = sdir(root, sid)
    put(d / "state.json", json.dumps(STATE))
    (d / "rounds/round-1/reviews").mkdir(parents=True)
    os.symlink(".", d / "loop")
    os.symlink("b", d / "a")
    os.symlink("a", d / "b")
    os.symlink("..", d / "rounds/round-2")
    os.symlink("self.md", d / "rounds/round-1/reviews/self.md")
    os.symlink("../../..", d / "rounds/round-1/reviews/up.md")
    os.symlink(".", d / "map")
    os.symlink("sessions", root / ".ocr/sessions/2026-11-22-session-link")
    return _finish(root, Case(sid, screen=False))


@case
def symlinks_out_of_project(root: Path, outside: Path) -> Case:
    """Links to content outside the project are not followed: none of it is ever shown."""
    sid = "2026-11-22-links-out"
    out = outside / "elsewhere"
    put(out / "state.json", json.dumps({"current_phase": "complete", "branch": SECRET}))
    put(out / "secret.md", f"# {SECRET}\n")
    put(out / "rounds/round-1/reviews/principal-1.md", reviewer_md(SECRET, ["critical"] * 7))
    put(out / "rounds/round-1/final.md", final_md(SECRET))
    d = sdir(root, sid)
    d.mkdir(parents=True)
    os.symlink(out / "state.json", d / "state.json")
    os.symlink(out / "secret.md", d / "context.md")
    os.symlink(out / "rounds", d / "rounds")
    (d / "map").mkdir()
    os.symlink(out / "rounds", d / "map/runs")
    os.symlink(out, root / ".ocr/sessions/2026-11-22-linked-session")
    os.symlink(out / "state.json", root / ".ocr/data.json")

    def check(views, out_text):
        view = views[sid]
        assert SECRET not in out_text
        assert view.source == "files" and view.rounds == [] and view.phase != "complete"

    return _finish(root, Case(sid, check=check))


@case
def ocr_db_symlink_out_of_project(root: Path, outside: Path) -> Case:
    sid = "2026-11-22-db-link"
    put(sdir(root, sid) / "state.json", json.dumps(STATE))
    write_db(outside / "other.db", db_bytes({sid: {"branch": SECRET, "current_phase": "complete"}}))
    (root / ".ocr/data").mkdir(parents=True)
    os.symlink(outside / "other.db", root / ".ocr/data/ocr.db")

    def check(views, out_text):
        view = views[sid]
        assert SECRET not in out_text and view.source == "state.json"

    return _finish(root, Case(sid, project_wide=True, check=check))


# --- timestamps ------------------------------------------------------------------------------


@case
def timestamps_far_future(root: Path, outside: Path) -> Case:
    sid = "2026-11-22-future"
    put(sdir(root, sid) / "state.json", json.dumps({
        **STATE, "started_at": "9999-12-31T23:59:59Z", "updated_at": "9999-12-31T23:59:59-01:00",
        "round_started_at": "9999-12-31T23:59:59.999999Z",
    }))  # fmt: skip
    return _finish(root, Case(sid, screen=False))


@case
def timestamps_far_past(root: Path, outside: Path) -> Case:
    sid = "2026-11-22-past"
    put(sdir(root, sid) / "state.json", json.dumps({
        **STATE, "started_at": "0001-01-01T00:00:00Z", "updated_at": "0001-01-01T00:00:00+01:00",
        "status": "closed",
    }))  # fmt: skip
    return _finish(root, Case(sid, screen=False))


@case
def file_times_out_of_range(root: Path, outside: Path) -> Case:
    """Negative epoch and a time past what the file system can hold."""
    sid = "2026-11-22-mtimes"
    d = sdir(root, sid)
    put(d / "context.md", "# C\n")
    put(d / "rounds/round-1/reviews/principal-1.md", reviewer_md("p", ["low"]))
    set_mtimes(root / ".ocr", OLD)
    os.utime(d / "context.md", (-(10**10), -(10**10)))
    os.utime(d / "rounds/round-1/reviews/principal-1.md", (2**40, 2**40))
    return Case(sid, screen=False)


# --- names that normalise to one key ---------------------------------------------------------


@case
def duplicate_numbers_and_names(root: Path, outside: Path) -> Case:
    """`round-01` beside `round-1`, `round-007`, `run-01` beside `run-1` (both empty), reviewer
    files whose names differ only in an undecodable byte or only in case, and a name with a
    digit that `int` cannot read (`1²`). Each is listed; the clashes are named."""
    sid = "2026-11-22-twins"
    d = sdir(root, sid)
    put(d / "state.json", json.dumps({**STATE, "current_round": 1}))
    put(d / "rounds/round-1/reviews/principal-1.md", reviewer_md("p", ["high"]))
    put(d / "rounds/round-01/reviews/principal-1.md", reviewer_md("p01", ["low"]))
    put(d / "rounds/round-01/final.md", final_md("APPROVE"))
    r7 = d / "rounds/round-007/reviews"
    for tail in (b"/p\xff-1.md", b"/p\xfe-1.md"):
        put(Path(os.fsdecode(os.fsencode(r7) + tail)), reviewer_md("p", ["medium"]))
    put(r7 / "quality-1.md", reviewer_md("q", ["low"]))
    put(r7 / "Quality-1.md", reviewer_md("Q", ["low"]))
    put(r7 / "x1\u00b2.md", reviewer_md("x", ["low"]))
    (d / "map/runs/run-1").mkdir(parents=True)
    (d / "map/runs/run-01").mkdir(parents=True)

    def check(views, out):
        view = views[sid]
        assert [(r.number, r.path) for r in view.rounds] == [
            (1, "rounds/round-1"), (1, "rounds/round-01"), (7, "rounds/round-007"),
        ]  # fmt: skip
        assert view.current_round == 7 and len(view.rounds[2].reviewers) == 5
        assert [r.path for r in view.map_runs] == ["map/runs/run-1", "map/runs/run-01"]
        assert "rounds/round-01 and rounds/round-1 are both round 1" in view.problems
        assert "map/runs/run-01 and map/runs/run-1 are both run 1" in view.problems
        assert "both round 1" in out

    return _finish(root, Case(sid, docs=["rounds/round-01/reviews/principal-1.md"], check=check))
