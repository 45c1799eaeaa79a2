"""One test per hostile input (tests/robustness/cases*.py): no crash, the problem shown on that
session only, every other session unaffected, the user's tree unchanged, and no raw control
sequence in any readable output (`status` table and one-line, `status --json`, and a real
`watch --jsonl` process)."""

from __future__ import annotations

import json

import msgspec
import pytest

from . import cases_db  # noqa: F401 - registers the ocr.db cases
from .cases import CASES, make_project
from .support import cli_output, fresh_scan, tree_digest, watch_jsonl


def build(name: str, tmp_path):
    root = make_project(tmp_path / "proj")
    outside = tmp_path / "outside"
    outside.mkdir()
    before = fresh_scan(root)
    assert before and all(not v.problems for v in before.values())
    return root, before, CASES[name](root, outside)


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_input(name: str, tmp_path, capsys) -> None:
    root, before, case = build(name, tmp_path)
    digest = tree_digest(tmp_path)

    views = fresh_scan(root)  # no crash

    # No session lost, none invented (links to directories are not sessions).
    expected_ids = set(before) | ({case.sid} if case.sid else set())
    assert set(views) == expected_ids
    if not case.project_wide:
        hostile = views[case.sid]
        if case.problem:
            assert hostile.problems, f"{name}: no problem shown on {case.sid!r}"
        for sid, view in before.items():
            assert views[sid] == view, f"{name}: {sid} was affected"
    else:  # a project-wide store: every session names it, and nothing else changes
        for sid, view in views.items():
            assert view.problems, f"{name}: {sid} does not name the problem"
            if sid in before:
                assert msgspec.structs.replace(view, problems=[]) == before[sid]

    table = cli_output(capsys, "status", str(root))
    line = cli_output(capsys, "status", str(root), "--oneline")
    doc = json.loads(cli_output(capsys, "status", str(root), "--json"))
    assert sorted(s["id"] for s in doc["sessions"]) == sorted(views)
    stream: list[dict] = []
    if case.stream:
        stream = watch_jsonl(root, len(views))
        snapshots = {d["session"]["id"] for d in stream if d["type"] == "snapshot"}
        assert snapshots == set(views)
    for sid in views:
        assert (sid in table) or ("\x1b" in sid or any(ord(c) >= 0x7F for c in sid))

    if case.check is not None:
        everything = "\n".join([table, line, json.dumps(doc), json.dumps(stream)])
        case.check(views, everything)

    assert tree_digest(tmp_path) == digest, f"{name}: the user's tree changed"
