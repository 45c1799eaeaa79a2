"""The pieces the three other-format readers share: lenient decoding (core/lenient.py) and
capped, non-blocking reads (core/safe_read.py)."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import msgspec

from ocr_tui.core.lenient import (
    Style,
    checked_ts,
    created_updated,
    elapsed,
    fold_dotted,
    lenient,
    merge_dotted,
    when,
)
from ocr_tui.core.safe_read import MAX_JSON, inside, read_capped, read_tail
from tests.formats.test_analysis import example, view

NOW = datetime(2026, 2, 4, 15, 0, tzinfo=UTC)


class Inner(msgspec.Struct, kw_only=True):
    n: int | None = None


class Outer(msgspec.Struct, kw_only=True):
    name: str | None = None
    inner: Inner = msgspec.field(default_factory=Inner)
    items: list[Inner] = []
    tags: list[str] = []
    depth: int | None | msgspec.UnsetType = msgspec.UNSET


def test_dotted_keys_nested_keys_win_or_later_writes_win() -> None:
    raw = {"a": {"b": 1}, "a.b": 2, "a.c": 3}
    assert fold_dotted(raw) == {"a": {"b": 1, "c": 3}}
    assert merge_dotted(raw) == {"a": {"b": 2, "c": 3}}
    assert fold_dotted({"x": 1}) == {"x": 1}


def test_one_wrong_field_is_one_problem() -> None:
    problems: list[str] = []
    got = lenient({"name": 5, "inner.n": "7", "items": [{"n": 1}, "x"]}, Outer, "", problems)
    assert got.name is None and got.inner.n == 7 and got.items == [Inner(n=1)]
    assert problems == [
        "name has the wrong type (int): ignored",
        "items[1] is not an object: ignored",
    ]


def test_styles_keep_each_formats_words() -> None:
    problems: list[str] = []
    tally = Style(fast=False, tally=True, numbers_as_text=True)
    got = lenient({"name": 5, "tags": ["a", 2, None], "depth": None}, Outer, "", problems, tally)
    assert got.name == "5" and got.tags == ["a", "2"] and got.depth is None
    assert problems == ["tags: 1 item(s) of the wrong type ignored"]
    problems.clear()
    flat = Style(fold=False, deep=False, kind=True)
    assert lenient([1], Outer, "spec", problems, flat) == Outer()
    assert problems == ["spec is not an object (list): ignored"]


def test_times() -> None:
    problems: list[str] = []
    assert checked_ts("nope", "at", problems) is None and problems == [
        "at 'nope' is not a timestamp"
    ]
    problems.clear()
    soon = NOW + timedelta(minutes=1)
    checked_ts("2030-01-01T00:00:00Z", "at", problems, future=soon)
    assert problems == ["at 2030-01-01T00:00:00Z is in the future"]
    c, u, last, from_file = created_updated(None, None, ("c", "u"), [], future=soon, mtime=0.0)
    assert (c, u, from_file) == (None, None, True) and last == datetime(1970, 1, 1, tzinfo=UTC)
    assert when(1_700_000_000_000) == datetime.fromtimestamp(1_700_000_000, UTC)
    assert when(True) is None and when("2026-02-04T15:00:00Z") == NOW
    e = elapsed(NOW - timedelta(seconds=90), NOW, True)
    assert (e.since, e.seconds, e.running) == ("2026-02-04T14:58:30Z", 90, True)
    assert elapsed(None, NOW, False).seconds is None


def test_capped_reads(tmp_path: Path) -> None:
    problems: list[str] = []
    assert read_capped(tmp_path / "none.json", "none.json", problems) == (None, None)
    assert problems == []
    f = tmp_path / "f.json"
    f.write_bytes(b"\xef\xbb\xbf{}")
    assert read_capped(f, "f.json", problems)[0] == b"\xef\xbb\xbf{}"  # as on disk
    f.write_bytes(b"  \n")
    data, st = read_capped(f, "f.json", problems)
    assert data is None and st is not None and problems == ["f.json is empty"]
    f.write_bytes(b" " * (MAX_JSON + 1))
    assert read_capped(f, "f.json", problems)[0] is None and "larger than 1 MiB" in problems[-1]
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)  # must not block
    assert read_capped(fifo, "fifo.json", problems)[0] is None
    assert problems[-1] == "fifo.json is not a regular file"
    assert read_tail(fifo, 100) is None
    f.write_bytes(b"0123456789")
    assert read_tail(f, 4) == (b"6789", True) and read_tail(f, 40) == (b"0123456789", False)


def test_inside() -> None:
    assert inside("/a/b", ["/a/"]) and inside("/a", ["/a"]) and not inside("/ab", ["/a"])


def test_analysis_errors_log_fifo_does_not_block(tmp_path: Path) -> None:
    logs = tmp_path / ".scientific-analysis-session" / "logs"
    logs.mkdir(parents=True)
    os.mkfifo(logs / "errors.log")
    _, v = view(tmp_path, example())
    assert v.phase == "plan-review" and v.problems == []
