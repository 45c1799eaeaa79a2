"""Every hostile input (tests/robustness/cases*.py) through `ocr-tui findings`, for every
session and round: no crash, terminal-safe output, the user's tree unchanged (a new
command is hunted for the same classes)."""

from __future__ import annotations

import json

import pytest

from ocr_tui import cli

from . import cases_db  # noqa: F401 - registers the ocr.db cases
from .cases import CASES, make_project
from .support import assert_terminal_safe, fresh_scan, tree_digest


@pytest.mark.parametrize("name", sorted(CASES))
def test_findings_survive_every_hostile_input(name: str, tmp_path, capsys) -> None:
    root = make_project(tmp_path / "proj")
    outside = tmp_path / "outside"
    outside.mkdir()
    CASES[name](root, outside)
    digest = tree_digest(tmp_path)
    for view in fresh_scan(root).values():
        if view.framework != "ocr":
            continue
        rounds = [r.number for r in view.rounds] or [None]
        for number in rounds:
            args = ["findings", str(root), "--session", view.id, "--json"]
            if number is not None:
                args += ["--round", str(number)]
            capsys.readouterr()
            code = cli.main(args)
            out, err = capsys.readouterr()
            assert "Traceback" not in err, f"{name}: {view.id!r} R{number}: {err}"
            assert_terminal_safe(out, f"{name}: findings stdout")
            assert_terminal_safe(err, f"{name}: findings stderr")
            if code == 0:
                doc = json.loads(out)
                assert doc["round"] == number or number is None
            else:  # no round yet, or an id the command cannot name: one plain line
                assert code == 2 and out == "" and err.count("\n") == 1, (name, view.id, err)
    assert tree_digest(tmp_path) == digest, f"{name}: the user's tree changed"
