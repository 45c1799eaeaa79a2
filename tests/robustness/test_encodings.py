"""Class: text files in another encoding than plain UTF-8.

Windows editors start UTF-8 with a byte-order mark; PowerShell's `>` writes UTF-16; files get
joined by `cat` with a BOM in the middle. Every reader of every format must read such a file as
its plain twin: the same views, phases, titles, times and findings, and no problem named. The
project below holds all four formats (OCR state.json, reviewer files, final.md, topology.md,
the code workflow's state.json, the analysis session-state.json and errors.log, iDumb's brain
and session files); each test re-encodes every text file in it, keeps the file times, and
compares a fresh scan with the plain project's.
"""

from __future__ import annotations

import codecs
import os
from datetime import UTC, datetime
from pathlib import Path

import msgspec
import pytest

from ocr_tui.core.engine import Engine
from ocr_tui.core.project import find_project
from ocr_tui.core.textdecode import decode_text, json_bytes, sniff
from tests.ui.mixed_project import mixed_project

from .support import clear_parse_cache

NOW = datetime(2026, 3, 10, 15, 0, tzinfo=UTC)
TEXT_SUFFIXES = (".json", ".md", ".log")

ENCODERS = {
    "utf-8-bom": lambda t: codecs.BOM_UTF8 + t.encode(),
    "utf-16-le-bom": lambda t: codecs.BOM_UTF16_LE + t.encode("utf-16-le"),
    "utf-16-be-bom": lambda t: codecs.BOM_UTF16_BE + t.encode("utf-16-be"),
    "utf-16-le-no-bom": lambda t: t.encode("utf-16-le"),  # PowerShell piped through some tools
    "utf-32-le-bom": lambda t: codecs.BOM_UTF32_LE + t.encode("utf-32-le"),
    "crlf": lambda t: t.replace("\n", "\r\n").encode(),
    "crlf-utf-8-bom": lambda t: codecs.BOM_UTF8 + t.replace("\n", "\r\n").encode(),
}


def scan(root: Path) -> dict[str, dict]:
    clear_parse_cache()
    views = Engine(find_project(root), clock=lambda: NOW).scan()
    return {v.id: msgspec.to_builtins(v) for v in views}


def text_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in TEXT_SUFFIXES)


def reencode(root: Path, encode) -> int:
    """Rewrite every text file under `root` with `encode`, keeping its times."""
    n = 0
    for path in text_files(root):
        st = path.stat()
        path.write_bytes(encode(path.read_text(encoding="utf-8")))
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
        n += 1
    return n


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    mixed_project(root)
    log = root / ".scientific-analysis-session" / "logs" / "errors.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(
        '{"timestamp": "2026-03-10T14:52:00Z", "phase": 4, "agent": "plan-reviewer",'
        ' "error_type": "timeout", "message": "slow", "recovery_action": "retry"}\n'
    )
    return root


@pytest.mark.parametrize("encoding", sorted(ENCODERS))
def test_every_reader_reads_a_reencoded_project_as_its_plain_twin(project, encoding):
    plain = scan(project)
    assert {v["framework"] for v in plain.values()} >= {"ocr", "code", "analysis", "idumb"}
    # The sample project holds one session with a cut state.json on purpose; no other problem.
    assert [sid for sid, v in plain.items() if v["problems"]] == ["2026-03-07-[bold]broken"]
    files = reencode(project, ENCODERS[encoding])
    assert files >= 10
    again = scan(project)
    assert again.keys() == plain.keys()
    for sid in plain:
        assert again[sid] == plain[sid], f"{encoding}: {sid} differs"


# --- the shared decoder ----------------------------------------------------------------------


@pytest.mark.parametrize("encoding", sorted(ENCODERS))
def test_decode_text_reads_each_encoding(encoding):
    text = '{"phase": "réviews ✓"}\n'
    problems: list[str] = []
    got = decode_text(ENCODERS[encoding](text), "f", problems)
    assert got.replace("\r\n", "\n") == text and problems == []


def test_sniff_does_not_take_binary_or_utf32_for_utf16():
    assert sniff(b"\x00\x00\x00{")[0] == "utf-8"  # UTF-32 BE without a BOM: not UTF-16
    assert sniff(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")[0] == "utf-8"
    assert sniff("{}".encode("utf-16-be"))[0] == "utf-16-be"


def test_binary_and_bad_bytes_are_named():
    problems: list[str] = []
    assert json_bytes(b"\x00\x01\x02\x03garbage", "f.json", problems) is None
    assert problems == ["f.json is not valid JSON (it holds NUL bytes: a binary file?)"]
    problems.clear()
    assert json_bytes(b'{"a": "\xff"}', "f.json", problems) == '{"a": "\ufffd"}'.encode()
    assert problems == ["f.json is not valid UTF-8 (bad bytes are shown as \ufffd)"]
    problems.clear()
    assert json_bytes(codecs.BOM_UTF16_LE + b"\x00\xd8", "f.json", problems) == b"\xef\xbf\xbd"
    assert problems == ["f.json is not valid UTF-16 (bad bytes are shown as \ufffd)"]
    problems.clear()
    assert json_bytes(codecs.BOM_UTF8 + b" \n", "f.json", problems) is None
    assert problems == ["f.json is empty"]


def test_a_cut_character_at_the_read_limit_is_not_a_problem():
    problems: list[str] = []
    data = "é".encode("utf-16-le") * 3 + "😀".encode("utf-16-le")[:2]
    assert decode_text(codecs.BOM_UTF16_LE + data, "f", problems, truncated=True) == "ééé\ufffd"
    assert problems == []
