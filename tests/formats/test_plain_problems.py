"""Problems in plain words: a JSON file that cannot be read is named with
what is wrong with it, where, in words a user reads without knowing the parser: never
msgspec's `Input data was truncated` or `JSON is malformed: … (byte 12)`."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import msgspec
import pytest

from ocr_tui.core.engine import Engine
from ocr_tui.core.project import Project
from ocr_tui.core.textdecode import json_problem, load_json

BAD = "state.json is not valid JSON: "


def problem(data: bytes, name: str = "state.json") -> str:
    found: list[str] = []
    ok, _ = load_json(data, name, found)
    assert not ok and len(found) == 1, found
    return found[0]


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b'{"session_id": ', "state.json is cut off (ends mid-object)"),
        (b'{"phases": [1, 2', "state.json is cut off (ends mid-list)"),
        (b'{"task": "add a rate li', "state.json is cut off (ends mid-string)"),
        (b'{"a": "x\\"', "state.json is cut off (ends mid-string)"),  # an escaped quote
        (b"12", None),  # valid JSON: no problem (the reader says it is not an object)
        (b'{\n  "a" 1\n}', f"{BAD}a ':' is missing after a key (line 2, column 7)"),
        (b'{"a": 1} x', f"{BAD}there is more text after its end (line 1, column 11)"),
        (b'[1, 2,]', f"{BAD}a comma before a closing ] (line 1, column 7)"),
        (b"{a: 1}", f"{BAD}a key is not in double quotes (line 1, column 2)"),
        (b'{"a": -}', f"{BAD}an unexpected '}}' (line 1, column 8)"),
        (b'{"a": 1e999999}', "state.json holds a number too large to read"),
    ],
)  # fmt: skip
def test_json_errors_in_plain_words(data, expected):
    if expected is None:
        assert load_json(data, "state.json", [])[0]
        return
    text = problem(data)
    assert text == expected
    assert "Input data" not in text and "malformed" not in text and "byte" not in text


def test_a_wrong_type_names_the_field_and_the_types():
    class State(msgspec.Struct):
        current_phase: str | None = None
        rounds: list[int] = []

    for data, words in [
        (b'{"current_phase": 4}', "current_phase should be text or null, not a whole number"),
        (b'{"rounds": "2"}', "rounds should be a list, not text"),
    ]:
        try:
            msgspec.json.decode(data, type=State)
        except msgspec.ValidationError as exc:
            assert json_problem("state.json", exc, data) == f"state.json has a wrong value: {words}"
        else:  # pragma: no cover
            raise AssertionError("no error")


def session(root: Path, sid: str, state: bytes) -> None:
    d = root / ".ocr" / "sessions" / sid
    d.mkdir(parents=True)
    (d / "state.json").write_bytes(state)
    (d / "context.md").write_text("# Context\n")


def test_every_format_names_a_cut_off_file_in_plain_words(tmp_path):
    full = json.dumps({"current_phase": "reviews", "status": "active"}).encode()
    session(tmp_path, "2026-03-10-main", full[:-12])  # `{"current_phase": "reviews", "sta`
    analysis = tmp_path / ".scientific-analysis-session"
    analysis.mkdir()
    (analysis / "session-state.json").write_bytes(b'{"version": "2.1", "status": "in_pro')
    code = tmp_path / ".claude" / ".docs" / "260310-x"
    code.mkdir(parents=True)
    (code / "state.json").write_bytes(b'{"task": "x", "phases": {"init": {')
    now = datetime.now(UTC)
    views = {v.framework: v for v in Engine(Project(tmp_path), clock=lambda: now).scan()}
    assert "state.json is cut off (ends mid-string)" in views["ocr"].problems
    assert "session-state.json is cut off (ends mid-string)" in views["analysis"].problems
    assert "state.json is cut off (ends mid-object)" in views["code"].problems
    for view in views.values():
        assert not any("Input data" in p or "truncated" in p for p in view.problems)
