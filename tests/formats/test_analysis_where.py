"""Where scientific analysis sessions live: the project's session dir, its archives, and the
skill's temp-dir fallback sessions (found by `poll`, owned by output directory)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ocr_tui.formats.analysis.source import AnalysisSource
from tests.formats.test_analysis import EXAMPLE, NOW, example, write

P = ".scientific-analysis-session"
T = "scientific-analysis-architect-session-"


@pytest.fixture
def tmp_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fake-tmp")


def temp_session(tmp_dir: Path, name: str, out_dir: Path | str | None) -> Path:
    """A fallback session; its session_id is `session-{name}` (the skill names both alike)."""
    state = example(session_id=f"session-{name}")
    state["config"] = {} if out_dir is None else {"output_directory": str(out_dir)}
    return write(tmp_dir, state, T + name)


def test_marker_and_watch_dirs(tmp_path, tmp_dir):
    assert not AnalysisSource.present_in(tmp_path)
    (tmp_path / P).mkdir()
    assert AnalysisSource.present_in(tmp_path)
    src = AnalysisSource(tmp_path, tmp_dir=tmp_dir)
    assert src.watch_dirs() == [tmp_path / P, tmp_path / (P + ".archive")]
    assert (src.framework, src.label, src.markers) == ("analysis", "Scientific analysis", (P,))


def test_archives_and_nested_archive(tmp_path, tmp_dir):
    write(tmp_path, example(session_id="session-3"), P)
    a = write(tmp_path, example(session_id="session-2", status="interrupted"), P + ".archive")
    nested = write(a, example(session_id="session-1", status="in_progress"), P)
    src = AnalysisSource(tmp_path, tmp_dir=tmp_dir)
    assert src.list_sessions() == {"session-3": tmp_path / P, "session-2": a, "session-1": nested}
    v = src.derive("session-1", nested, NOW)
    assert v.status == "closed" and "archived" in v.badges and "tmp" not in v.badges


def test_temp_sessions_belong_by_output_directory(tmp_path, tmp_dir, tmp_path_factory):
    mine = temp_session(tmp_dir, "20260204-143022-1", tmp_path)
    temp_session(tmp_dir, "20260204-143022-2", tmp_path_factory.mktemp("other-project"))
    temp_session(tmp_dir, "20260204-143022-3", None)
    temp_session(tmp_dir, "20260204-143022-4", "relative/dir")
    sub = temp_session(tmp_dir, "20260204-143022-5", tmp_path / "analysis" / "out")
    old = temp_session(tmp_dir, "20260201-000000-6.archive", tmp_path)
    (tmp_dir / (T + "20260204-143022-7")).write_text("a file, not a session")
    (tmp_dir / (T + "20260204-143022-8")).symlink_to(mine)  # not followed
    write(tmp_dir, example(), "unrelated-dir")
    src = AnalysisSource(tmp_path, tmp_dir=tmp_dir)
    found = src.list_sessions()
    assert found == {
        "session-20260204-143022-1": mine,
        "session-20260204-143022-5": sub,
        "session-20260201-000000-6.archive": old,
    }
    assert sorted(src.extra_watch_dirs()) == sorted(found.values())
    v = src.derive("session-20260201-000000-6.archive", old, NOW)
    assert v.status == "closed" and "archived" in v.badges and "tmp" in v.badges
    v = src.derive("session-20260204-143022-1", mine, NOW)
    assert v.status == "active" and "tmp" in v.badges and "archived" not in v.badges


def test_session_directory_counts_too(tmp_path, tmp_dir):
    d = tmp_dir / (T + "x")
    state = example(config={"session_directory": str(tmp_path / P)})
    write(tmp_dir, state, d.name)
    assert list(AnalysisSource(tmp_path, tmp_dir=tmp_dir).list_sessions()) == [
        EXAMPLE["session_id"]
    ]


def test_symlinked_output_directory_escaping_root(tmp_path, tmp_dir, tmp_path_factory):
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (tmp_path / "link").symlink_to(elsewhere)
    temp_session(tmp_dir, "a", tmp_path / "link")
    assert AnalysisSource(tmp_path, tmp_dir=tmp_dir).list_sessions() == {}


def test_poll_finds_new_renamed_and_late_state(tmp_path, tmp_dir):
    src = AnalysisSource(tmp_path, tmp_dir=tmp_dir)
    assert src.list_sessions() == {} and src.poll() is False
    d = temp_session(tmp_dir, "1", tmp_path)
    assert src.poll() is True and set(src.list_sessions()) == {"session-1"}
    assert src.poll() is False  # nothing changed: cached
    # Phase 0 creates the dir first, the state a moment later.
    late = tmp_dir / (T + "2")
    late.mkdir()
    assert src.poll() is False
    (late / "session-state.json").write_text(
        json.dumps(example(session_id="session-2", config={"output_directory": str(tmp_path)}))
    )
    assert src.poll() is True and set(src.list_sessions()) == {"session-1", "session-2"}
    # The skill's cleanup renames an old session to `*.archive`: the same session, moved.
    os.rename(d, d.with_name(d.name + ".archive"))
    assert src.poll() is True
    assert src.list_sessions() == {
        "session-1": d.with_name(d.name + ".archive"),
        "session-2": late,
    }
    # The output directory changes to another project: no longer ours.
    (late / "session-state.json").write_text(json.dumps(example(config={"output_directory": "/x"})))
    os.utime(late / "session-state.json", ns=(1, 1))
    assert src.poll() is True and set(src.list_sessions()) == {"session-1"}


def test_missing_temp_dir(tmp_path):
    src = AnalysisSource(tmp_path, tmp_dir=tmp_path / "no-such-dir")
    assert src.poll() is False and src.list_sessions() == {} and src.extra_watch_dirs() == []


def test_env_var_sets_the_temp_dir(tmp_path, tmp_dir, monkeypatch):
    temp_session(tmp_dir, "1", tmp_path)
    monkeypatch.setenv("OCR_TUI_ANALYSIS_TMP", str(tmp_dir))
    assert list(AnalysisSource(tmp_path).list_sessions()) == ["session-1"]
    monkeypatch.delenv("OCR_TUI_ANALYSIS_TMP")
    assert AnalysisSource(tmp_path).tmp_dir == Path("/tmp")


def test_touched(tmp_path, tmp_dir):
    d = temp_session(tmp_dir, "1", tmp_path)
    p, a = tmp_path / P, tmp_path / (P + ".archive")
    write(tmp_path, example(session_id="session-live"), P)
    write(tmp_path, example(session_id="session-old"), P + ".archive")
    write(a, example(session_id="session-older"), P)
    src = AnalysisSource(tmp_path, tmp_dir=tmp_dir)
    src.list_sessions()
    t = src.touched([p / "session-state.json", p / "logs" / "errors.log"])
    assert t.keys == {"session-live"} and not t.relist
    t = src.touched([p])
    assert t.relist and t.keys == {"session-live"}
    t = src.touched([a / "chapter1" / "x.md"])
    assert t.keys == {"session-old"} and not t.relist
    t = src.touched([a / P / "session-state.json"])
    assert t.keys == {"session-older"} and t.relist
    t = src.touched([d / "research-structure.md", d / "logs" / "errors.log"])
    assert t.keys == {"session-1"} and not t.relist
    t = src.touched([tmp_dir / (T + "9") / "session-state.json"])
    assert t.keys == set() and t.relist
    assert src.touched([tmp_path / "src" / "main.py"]).keys == set()
