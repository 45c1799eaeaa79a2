"""The code workflow read leniently: drifted keys, dotted keys, wrong types and enums, bad files.
Every case still lists the session; what could not be read is a problem on it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ocr_tui.formats.codeflow.source import MAX_JSON, CodeWorkflowSource
from tests.formats.test_codeflow_support import (
    NOW,
    SID,
    derive,
    example,
    facts,
    in_research,
    write_docs,
    write_state,
)


def test_delegating_decisions_as_the_phase_files_write_them(tmp_path: Path) -> None:
    st = example()
    st["delegating_decisions"] = st.pop("dispatcher_decisions")
    write_state(tmp_path, st)
    v, _ = derive(tmp_path)
    assert facts(v)["research agents"] == "2× scouter (parallel)"
    assert v.summary == "1× reviewer (single)"
    assert len(v.steps) == 3


def test_delegating_wins_over_the_empty_init_object(tmp_path: Path) -> None:
    st = in_research()
    st["dispatcher_decisions"] = {}
    st["delegating_decisions.research"] = {
        "agent": "researcher",
        "mode": "single",
        "instances": 1,
        "inputs": ["Docs of the auth library"],
    }
    write_state(tmp_path, st)
    v, _ = derive(tmp_path, now=NOW.replace(hour=14, minute=40))
    assert v.summary == "1× researcher (single)"
    assert [s.detail for s in v.steps] == ["Docs of the auth library"]


def test_flat_dotted_keys_as_update_operations(tmp_path: Path) -> None:
    st = in_research()
    # The "When Phase Completes" / "When Phase Starts" operations, written literally.
    st.update(
        {
            "phases.research.status": "completed",
            "phases.research.completed_at": "2026-01-10T14:35:15Z",
            "phases.research.report": "research-report.md",
            "phases.plan.status": "in_progress",
            "phases.plan.started_at": "2026-01-10T14:35:20Z",
            "updated_at": "2026-01-10T14:35:20Z",
            "dispatcher_decisions.review": {"agent": "reviewer", "mode": "single", "instances": 1},
        }
    )
    write_state(tmp_path, st)
    write_docs(tmp_path)
    v, _ = derive(tmp_path, now=NOW.replace(hour=14, minute=40))
    assert v.problems == []
    assert (v.phase, v.phase_number) == ("plan", 2)
    assert v.timeline[1].document == "research-report.md"
    assert v.timeline[1].seconds == 290
    assert facts(v)["review agents"] == "1× reviewer (single)"


def test_only_dotted_keys_at_the_top(tmp_path: Path) -> None:
    st = {
        "id": SID,
        "task": "Dotted",
        "workflow": "code:fast",
        "created_at": "2026-01-10T14:30:22Z",
        "phases.init.status": "completed",
        "phases.init.skipped": False,
        "phases.research.status": "completed",
        "phases.research.skipped": True,
        "phases.plan.status": "in_progress",
        "updated_at": "2026-01-10T14:31:00Z",
    }
    write_state(tmp_path, st)
    v, _ = derive(tmp_path, now=NOW.replace(hour=14, minute=32))
    assert [s.state for s in v.timeline][:3] == ["done", "skipped", "current"]
    assert v.phase == "plan" and v.badges == ["fast"]


@pytest.mark.parametrize(
    ("status", "state"),
    [
        ("done", "done"),
        ("Complete", "done"),
        ("running", "current"),
        ("in-progress", "current"),
        ("skipped", "skipped"),
        ("not_started", "current"),  # the first pending phase is the current one
    ],
)
def test_status_synonyms(tmp_path: Path, status: str, state: str) -> None:
    st = in_research()
    st["phases"]["research"]["status"] = status
    write_state(tmp_path, st)
    v, _ = derive(tmp_path, now=NOW.replace(hour=14, minute=40))
    assert v.timeline[1].state == state
    assert v.problems == []


def test_unknown_and_failed_statuses(tmp_path: Path) -> None:
    st = in_research()
    st["phases"]["research"]["status"] = "exploded"
    st["phases"]["init"]["status"] = "failed"
    write_state(tmp_path, st)
    v, _ = derive(tmp_path, now=NOW.replace(hour=14, minute=40))
    assert any("exploded" in p for p in v.problems)
    assert v.timeline[0].state == "done"  # the format never blocks: failure ends the phase
    assert any("Init" in a and "failed" in a for a in v.alerts)
    assert v.phase == "research"


def test_wrong_types_are_problems_on_their_fields(tmp_path: Path) -> None:
    st = example()
    st["task"] = 42
    st["auto_mode"] = "true"
    st["created_at"] = "yesterday"
    st["phases"]["research"]["started_at"] = 7
    st["phases"]["research"]["report"] = ["not", "a", "name"]
    st["phases"]["plan"] = "completed"  # shorthand
    st["phases"]["quality"] = [1, 2]
    st["phases"]["extra"] = {"status": "completed"}
    st["dispatcher_decisions"]["research"]["instances"] = "2"
    st["dispatcher_decisions"]["review"]["inputs"] = "one scope"
    st["spec"] = ".claude/.specs/jwt-auth-refresh-token.md"
    write_state(tmp_path, st)
    write_docs(tmp_path)
    v, _ = derive(tmp_path)
    assert v.title is not None  # falls back to the slug
    assert "auto" in v.badges
    assert any("created_at" in p for p in v.problems)
    assert any("phases.research.started_at" in p for p in v.problems)
    assert any("phases.research.report" in p for p in v.problems)
    assert any("phases.quality" in p for p in v.problems)
    assert any("extra" in p for p in v.problems)
    assert v.timeline[2].state == "done"
    assert v.timeline[4].state == "current"  # quality unreadable: pending
    assert facts(v)["research agents"] == "2× scouter (parallel)"
    assert [s.detail for s in v.steps if s.key.startswith("review")] == ["one scope"]
    assert v.documents[0] == "../../.specs/jwt-auth-refresh-token.md"
    # created_at unreadable: the earliest phase start stands in
    assert v.started_at == "2026-01-10T14:30:22Z"


def test_phases_as_a_list(tmp_path: Path) -> None:
    st = example()
    st["phases"] = [{"name": k, **v} for k, v in st["phases"].items()]
    write_state(tmp_path, st)
    v, _ = derive(tmp_path)
    assert v.complete and v.phase_number == 6


def test_unknown_workflow_and_odd_decisions(tmp_path: Path) -> None:
    st = in_research()
    st["workflow"] = "turbo"
    st["dispatcher_decisions"] = {"research": "scouter", "plan": {"instances": 0}, "x": 5}
    write_state(tmp_path, st)
    v, _ = derive(tmp_path, now=NOW.replace(hour=14, minute=40))
    assert v.badges == ["turbo"]
    assert facts(v)["research agents"] == "1× scouter"
    assert facts(v)["plan agents"] == "1× agent"
    assert any("dispatcher_decisions.x" in p for p in v.problems)


def test_escape_sequences_are_kept_as_they_are(tmp_path: Path) -> None:
    st = example()
    st["task"] = "evil \x1b[31mred\x1b[0m task"
    st["dispatcher_decisions"]["research"]["inputs"][0] = "\x1b]0;title\x07"
    write_state(tmp_path, st)
    v, _ = derive(tmp_path)
    assert v.title == "evil \x1b[31mred\x1b[0m task"  # the UI makes it safe
    assert v.steps[0].detail == "\x1b]0;title\x07"


BAD = {
    "truncated": json.dumps({"task": "x", "phases": {"init": {"status": "comp"}}})[:-9].encode(),
    "binary": bytes(range(256)) * 4,
    "empty": b"",
    "list": b"[1, 2, 3]",
    "string": b'"hello"',
    "deep": b"[" * 100_000 + b"]" * 100_000,
    "deep-object": b'{"phases": ' + b'{"a": ' * 5000 + b"1" + b"}" * 5001,
    "nul": b'{"task": "a\x00b"}',
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_files_still_list_the_session(tmp_path: Path, name: str) -> None:
    write_state(tmp_path, BAD[name])
    v, _ = derive(tmp_path)
    assert v.id == SID and v.framework == "code"
    if name != "deep-object":
        assert v.problems, name
    assert v.started_at == "2026-01-10T00:00:00Z"  # from the id


def test_invalid_utf8_is_replaced_not_lost(tmp_path: Path) -> None:
    st = json.dumps(example()).replace("Add JWT", "Add \udcff JWT", 1)
    data = st.encode("utf-8", "surrogateescape").replace(b"\\udcff", b"\xff")
    write_state(tmp_path, data)
    v, _ = derive(tmp_path)
    assert v.complete
    assert any("UTF-8" in p for p in v.problems)
    assert v.title is not None and "\ufffd" in v.title


def test_huge_state_is_not_read(tmp_path: Path) -> None:
    st = example()
    st["task"] = "x" * (MAX_JSON + 10)
    write_state(tmp_path, st)
    v, _ = derive(tmp_path)
    assert any("larger than" in p for p in v.problems)


def test_missing_or_odd_state_file(tmp_path: Path) -> None:
    d = tmp_path / ".claude/.docs" / SID
    d.mkdir(parents=True)
    v, _ = derive(tmp_path)
    assert any("missing" in p for p in v.problems) and v.phase_number is None
    (d / "state.json").mkdir()
    v, _ = derive(tmp_path)
    assert any("not a regular file" in p for p in v.problems)
    os.rmdir(d / "state.json")
    os.mkfifo(d / "state.json")  # must not block
    v, _ = derive(tmp_path)
    assert any("not a regular file" in p for p in v.problems)


def test_unreadable_state_file(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads everything")
    d = write_state(tmp_path, example())
    (d / "state.json").chmod(0)
    try:
        v, _ = derive(tmp_path)
    finally:
        (d / "state.json").chmod(0o644)
    assert any("cannot be read" in p for p in v.problems)


def test_undecodable_directory_names(tmp_path: Path) -> None:
    docs = tmp_path / ".claude/.docs"
    docs.mkdir(parents=True)
    raw = os.fsencode(str(docs)) + b"/260110-caf\xe9"
    os.mkdir(raw)
    src = CodeWorkflowSource(tmp_path)
    keys = src.list_sessions()
    # Each bad byte named (`textsafe.name_key`), as OCR's ids: `caf\xe9` and `caf\xe8` are two.
    assert list(keys) == ["260110-caf\\xe9"]
    v = src.derive("260110-caf\\xe9", keys["260110-caf\\xe9"], NOW)
    assert v.id == "260110-caf\\xe9"
    t = src.touched([Path(os.fsdecode(raw)) / "state.json"])
    assert t.keys == {"260110-caf\\xe9"}


def test_reading_never_writes(tmp_path: Path) -> None:
    write_state(tmp_path, in_research())
    write_docs(tmp_path)

    def snapshot() -> dict[str, tuple[int, int]]:
        out = {}
        for dirpath, dirnames, filenames in os.walk(tmp_path):
            for n in dirnames + filenames:
                st = os.stat(os.path.join(dirpath, n))
                out[os.path.join(dirpath, n)] = (st.st_mtime_ns, st.st_size)
        return out

    before = snapshot()
    derive(tmp_path)
    assert snapshot() == before


_KEYS = st.sampled_from(
    [
        "phases",
        "init",
        "research",
        "review",
        "status",
        "skipped",
        "report",
        "started_at",
        "completed_at",
        "dispatcher_decisions",
        "delegating_decisions.review",
        "phases.plan.status",
        "spec",
        "path",
        "agent",
        "instances",
        "inputs",
        "workflow",
        "auto_mode",
        "created_at",
        "updated_at",
        "task",
        "a.b.c",
        ".",
        "",
    ]
)
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["completed", "in_progress", "pending", "2026-01-10T14:30:22Z", "../x.md"])
    | st.text(max_size=8)
)
_JSON = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=5),
    max_leaves=30,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=st.dictionaries(_KEYS, _JSON, max_size=8))
def test_any_json_object_gives_a_view(tmp_path_factory, doc) -> None:
    root = tmp_path_factory.mktemp("fuzz")
    write_state(root, json.dumps(doc))
    v, src = derive(root)
    assert v.id == SID and v.framework == "code"
    if any(k == "phases" or k.startswith("phases.") for k in doc):  # (dotted keys fold)
        assert len(v.timeline) == 6
    else:  # no phases: no phase is known (not `0 of 6 done`), and it says so
        assert v.timeline == [] and any("no phases" in p for p in v.problems)
    assert v.phase_number is None or 0 <= v.phase_number <= 6
    src.expires(v)


def test_report_paths_relative_to_the_root_or_absolute(tmp_path: Path) -> None:
    st = example()
    d = write_state(tmp_path, b"\xef\xbb\xbf" + json.dumps(st).encode())  # with a BOM
    write_docs(tmp_path)
    st["phases"]["research"]["report"] = f".claude/.docs/{SID}/research-report.md"
    st["phases"]["plan"]["report"] = str(d / "plan-report.md")
    (tmp_path.parent / f"{tmp_path.name}-outside.md").write_text("x")
    (d / "review-report.md").unlink()
    (d / "review-report.md").symlink_to(tmp_path.parent / f"{tmp_path.name}-outside.md")
    write_state(tmp_path, st)
    v, _ = derive(tmp_path)
    docs = [s.document for s in v.timeline]
    assert docs[1] == "research-report.md" and docs[2] == "plan-report.md"
    assert docs[5] is None  # a link out of the project is not offered
    assert any("review report" in p for p in v.problems)
    assert not any("outside" in x for x in v.documents)


def test_bom_is_tolerated(tmp_path: Path) -> None:
    write_state(tmp_path, b"\xef\xbb\xbf" + json.dumps(example()).encode())
    v, _ = derive(tmp_path)
    assert v.complete and not any("JSON" in p for p in v.problems)
