"""Class: a parse cache written by another build. Same file name,
decodable, other value types or another version: a mismatch is a miss, never a wrong answer,
and results with any cache equal results with the cache off."""

from __future__ import annotations

import os

import msgspec
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import ocr_tui
from ocr_tui.core import result_cache
from ocr_tui.core.engine import Engine
from ocr_tui.core.project import Project
from ocr_tui.formats.ocr import file_cache, parse_cache
from tests.test_parse_cache import make

# --- a cache from another build ---------------------------------------------


def _keys(project: Project) -> list[tuple[str, str, str, list[int]]]:
    """(kind, session, path within it, [size, mtime, ctime, ino]) of every file the cache
    would hold."""
    out = []
    for path in project.sessions_dir.rglob("*.md"):
        st = path.stat()
        kind = "final" if path.name == "final.md" else "findings"
        session = project.sessions_dir / path.relative_to(project.sessions_dir).parts[0]
        stamp = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]
        out.append((kind, str(session), str(path.relative_to(session)), stamp))
    return out


FOREIGN = {  # decodable values of other shapes and types, as another build might write them
    "strings": {"findings": [["1", "2", "3", "4", "5"], []], "final": [["X", ["1", "2", "3"]], []]},
    "dicts": {"findings": [{"high": 1}, []], "final": [{"verdict": "X"}, []]},
    "longer": {"findings": [[9, 9, 9, 9, 9, 9], ["p"]], "final": [["X", [1, 2, 3, 4]], [], 1]},
    "negative": {"findings": [[-1, 0, 0, 0, 0], []], "final": [["X", [-5, 0, 0]], []]},
    "bools": {"findings": [[True, False, 0, 0, 0], []], "final": [[True, [1, 2, 3]], []]},
    "problems": {"findings": [[0, 0, 0, 0, 0], [1, 2]], "final": [None, "not a list"]},
    "nulls": {"findings": [[None, None, 0, 0, 0], None], "final": [[None, None], None]},
}


@pytest.mark.parametrize("shape", sorted(FOREIGN))
def test_a_cache_from_another_build_is_never_trusted(tmp_path, monkeypatch, shape):
    """Same file name, decodable, other value types: every entry is a miss, and the result
    equals the result with the cache off."""
    project = make(tmp_path)
    monkeypatch.setenv("OCR_TUI_CACHE_DIR", "off")
    file_cache.clear()
    expected = Engine(project).scan()

    monkeypatch.setenv("OCR_TUI_CACHE_DIR", str(tmp_path / "cache"))
    f = parse_cache.cache_file(project.root)
    f.parent.mkdir(parents=True)
    entries = [(k, p, *rest, FOREIGN[shape][k]) for k, p, *rest in _keys(project)]
    for layout in (
        (parse_cache.SCHEMA, parse_cache.build_stamp(), entries),  # this build's stamp even
        (1, entries),  # the layout before the stamp
    ):
        f.write_bytes(msgspec.msgpack.encode(layout))
        file_cache.clear()
        assert Engine(project).scan() == expected


def test_a_well_typed_cache_of_another_version_is_not_read(tmp_path, monkeypatch):
    """Right types, wrong answers, written by another build: the build's stamp differs."""
    project = make(tmp_path)
    monkeypatch.setenv("OCR_TUI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(result_cache, "cache_file", lambda root: None)  # parse cache alone
    f = parse_cache.cache_file(project.root)
    f.parent.mkdir(parents=True)
    lies = {"findings": [[7, 0, 0, 0, 0], []], "final": [["REJECT", [5, 5, 5]], []]}
    entries = [(k, p, *rest, lies[k]) for k, p, *rest in _keys(project)]
    for stamp in ("0.0.1/parse-1/0000", "another build"):
        f.write_bytes(msgspec.msgpack.encode((parse_cache.SCHEMA, stamp, entries)))
        file_cache.clear()
        views = Engine(project).scan()
        r = views[0].rounds[0]
        assert r.reviewers[0].findings == 2 and r.verdict == "REQUEST CHANGES"
    # ... and the file is then rewritten by this build, and read back.
    file_cache.clear()
    loaded = parse_cache.load(f)
    assert loaded and all(
        kind in ("findings", "final", "tally") for files in loaded.values() for kind, _ in files
    )


def test_the_stamp_names_the_version_the_schema_and_the_parsers():
    stamp = parse_cache.build_stamp()
    assert ocr_tui.__version__ in stamp and f"schema-{parse_cache.SCHEMA}" in stamp
    assert len(stamp.rsplit("/", 1)[-1]) >= 16  # a digest of the parsers' source


_plain = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 10) | st.text(max_size=5) | st.floats(),
    lambda inner: st.lists(inner, max_size=6),
    max_leaves=12,
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(values=st.lists(_plain, min_size=2, max_size=2))
def test_any_cache_gives_the_result_of_no_cache(tmp_path_factory, values):
    """Whatever a cache file holds under this build's stamp that is not of its kind's exact
    type, results equal the cache off. (A value of the right type under the right stamp and
    file stat is trusted: that is the cache.)"""
    tmp = tmp_path_factory.mktemp("any")
    project = make(tmp)
    for (kind, *_), v in zip(_keys(project), values, strict=True):
        try:
            parse_cache.from_plain(kind, msgspec.msgpack.encode(v))
            assume(False)
        except msgspec.DecodeError:
            pass
    os.environ["OCR_TUI_CACHE_DIR"] = "off"
    try:
        file_cache.clear()
        expected = Engine(project).scan()
        os.environ["OCR_TUI_CACHE_DIR"] = str(tmp / "cache")
        f = parse_cache.cache_file(project.root)
        f.parent.mkdir(parents=True, exist_ok=True)
        keys = _keys(project)
        entries = [(k, p, *rest, v) for (k, p, *rest), v in zip(keys, values, strict=True)]
        stamp = parse_cache.build_stamp()
        f.write_bytes(msgspec.msgpack.encode((parse_cache.SCHEMA, stamp, entries)))
        file_cache.clear()
        assert Engine(project).scan() == expected
    finally:
        os.environ.pop("OCR_TUI_CACHE_DIR", None)
