"""Property tests over generated markdown and JSON: each document gets hostile twins
that real editors, shells and agents produce (a BOM, CRLF line ends, UTF-16, long runs of
spaces and tabs, HTML comments holding more markdown, NUL bytes). Parsing is total (never
raises) on all of them, and equals the clean document's wherever the content is the same."""

from __future__ import annotations

import codecs
import json
import os
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ocr_tui.core.safe_read import MAX_JSON
from ocr_tui.core.textdecode import decode_text, json_bytes, load_json, sniff
from ocr_tui.formats.analysis import model as A
from ocr_tui.formats.codeflow.source import CodeWorkflowSource
from ocr_tui.formats.idumb import model as I  # noqa: E741
from ocr_tui.formats.ocr.final_items import parse_final_counts
from ocr_tui.formats.ocr.markdown import (
    parse_findings,
    parse_topology_files,
    parse_verdict,
)
from ocr_tui.formats.ocr.model import STATE_DECODER

PARSERS = (parse_findings, parse_verdict, parse_final_counts, parse_topology_files)
# CI is derandomized (a run never differs from the last); `make fuzz` (HYPOTHESIS_PROFILE=fuzz)
# explores anew with many more examples.
FUZZ = os.environ.get("HYPOTHESIS_PROFILE") == "fuzz"
SETTINGS = settings(
    max_examples=5000 if FUZZ else 150,
    deadline=None,
    derandomize=not FUZZ,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

# --- markdown ------------------------------------------------------------------------------

WORD = st.sampled_from(
    ["x", "leak", "Race", "in", "the", "watcher", "src/a.py:L1-L2", "`a.ts`", "**b**", "🔴", "é"]
)
SEVERITY = st.sampled_from(["Critical", "High", "Medium", "Low", "Info", "none", "🔴 **High**"])
VERDICT = st.sampled_from(["APPROVE", "REQUEST CHANGES", "**APPROVE** — nits", "REJECT."])
SECTION = st.sampled_from(["Blockers", "Should Fix", "Suggestions", "Findings", "Notes"])


@st.composite
def words(draw, min_size=1, max_size=4) -> str:
    return " ".join(draw(st.lists(WORD, min_size=min_size, max_size=max_size)))


@st.composite
def block(draw) -> list[tuple[str, str]]:
    """A few lines of one kind; each line tagged "text" or "code" (inside a fence)."""
    kind = draw(st.integers(0, 9))
    if kind == 0:
        level = draw(st.integers(1, 6))
        word = draw(st.sampled_from(["Finding", "Issue", "Suggestion", "Findings", "Note"]))
        return [(f"{'#' * level} {word} {draw(st.integers(1, 9))}: {draw(words())}", "text")]
    if kind == 1:
        lead = draw(st.sampled_from(["- ", "", "* "]))
        return [(f"{lead}**Severity**: {draw(SEVERITY)}", "text")]
    if kind == 2:
        return [("## Verdict", "text"), ("", "text"), (draw(VERDICT), "text")]
    if kind == 3:
        return [(f"**Verdict**: {draw(VERDICT)}", "text")]
    if kind == 4:
        return [(f"## {draw(SECTION)}", "text")]
    if kind == 5:
        return [(f"**{draw(SECTION)}**: {draw(st.integers(0, 9))}", "text")]
    if kind == 6:
        lead = draw(st.sampled_from(["- ", "### 1. ", "### 🔴 ", "- None"]))
        return [(lead + draw(words()), "text")]
    if kind == 7:
        fence = draw(st.sampled_from(["```", "~~~", "````"]))
        body = draw(st.lists(st.sampled_from(["a.py", "", "### Finding 9: no", "b/c.ts"]),
                             max_size=4))  # fmt: skip
        return [(fence, "code"), *((b, "code") for b in body), (fence, "code")]
    if kind == 8:
        return [("## Canonical File List", "text")]
    return [(draw(words(1, 8)), "text")]


@st.composite
def markdown(draw) -> list[tuple[str, str]]:
    lines: list[tuple[str, str]] = []
    for b in draw(st.lists(block(), max_size=14)):
        lines += b + [("", "text")]
    return lines


def join(lines: list[tuple[str, str]]) -> str:
    return "\n".join(text for text, _ in lines) + "\n"


def parsed(text: str) -> list:
    return [parse(text) for parse in PARSERS]


RUNS = st.sampled_from([" ", "  ", "\t", " \t ", " " * 40, "\t" * 9, " \t" * 2000])


@st.composite
def padded(draw, lines: list[tuple[str, str]]) -> str:
    """Every space between words (outside fenced code) becomes a run of spaces and tabs, and
    lines gain trailing whitespace."""
    out = []
    for text, kind in lines:
        if kind == "text" and text:
            parts = text.split(" ")
            text = parts[0] + "".join(draw(RUNS) + p for p in parts[1:]) + draw(RUNS)
        out.append(text)
    return "\n".join(out) + "\n"


@st.composite
def commented(draw, lines: list[tuple[str, str]]) -> str:
    """HTML comments between blocks, holding more markdown, and after heading lines."""
    out = []
    for text, kind in lines:
        if kind == "text" and not text and draw(st.booleans()):
            hidden = join(draw(markdown())).replace("-->", "")
            out.append("<!--\n" + hidden + "-->" if draw(st.booleans()) else "<!-- x -->")
        if kind == "text" and text.startswith("#") and draw(st.booleans()):
            text += " <!-- " + draw(words()) + " -->"
        out.append(text)
    return "\n".join(out) + "\n"


@SETTINGS
@given(doc=markdown(), data=st.data())
def test_markdown_twins_parse_as_the_clean_document(doc, data):
    clean = join(doc)
    expected = parsed(clean)
    twins = {
        "bom": "\ufeff" + clean,
        "crlf": clean.replace("\n", "\r\n"),
        "cr": clean.replace("\n", "\r"),
        "padded": data.draw(padded(doc)),
        "commented": data.draw(commented(doc)),
    }
    for name, twin in twins.items():
        assert parsed(twin) == expected, name
    # Through the reader's decoder too: the bytes an editor or a shell writes.
    for enc in (
        codecs.BOM_UTF8 + clean.encode(),
        codecs.BOM_UTF16_LE + clean.encode("utf-16-le"),
        clean.encode("utf-16-le"),
        codecs.BOM_UTF16_BE + clean.replace("\n", "\r\n").encode("utf-16-be"),
    ):
        problems: list[str] = []
        text = decode_text(enc, "f.md", problems)
        if sniff(enc)[0] == "utf-8" and not enc.startswith(codecs.BOM_UTF8):
            assert problems  # UTF-16 not recognised without its BOM: named, never garbage
            continue
        assert parsed(text) == expected
        assert problems == []


@SETTINGS
@given(doc=markdown(), cuts=st.lists(st.integers(0, 10_000), max_size=6))
def test_markdown_parsing_is_total_with_nul_and_garbage(doc, cuts):
    text = join(doc)
    for cut in cuts:  # NULs, lone surrogates' replacements, controls at random places
        i = cut % (len(text) + 1)
        text = text[:i] + "\x00\ufffd\x1b[2J\u202e" + text[i:]
    parsed(text)
    problems: list[str] = []
    parsed(decode_text(text.encode("utf-8", "replace"), "f.md", problems))


# --- JSON ----------------------------------------------------------------------------------

SCALAR = st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=12)
JSON = st.recursive(
    SCALAR,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),  # fmt: skip
    max_leaves=16,
)
STATE_KEYS = {  # fields the formats read, so the lenient readers see real values too
    "current_phase": st.sampled_from(["reviews", "context", "synthesis", "map-context"]),
    "status": st.sampled_from(["active", "closed", "in_progress", "completed"]),
    "current_round": st.integers(0, 5) | st.text(max_size=3),
    "started_at": st.sampled_from(["2026-11-20T10:00:00Z", "yesterday", "2026-11-20 10:00"]),
    "session_id": st.text(max_size=10),
    "sessionId": st.text(max_size=10),
    "phase": st.text(max_size=12),
    "current_phase_number": st.integers(0, 9),
    "workflow_type": st.sampled_from(["review", "map", "x"]),
}


@st.composite
def json_doc(draw) -> dict:
    doc = draw(st.dictionaries(st.text(max_size=8), JSON, max_size=5))
    for key, strategy in STATE_KEYS.items():
        if draw(st.booleans()):
            doc[key] = draw(strategy)
    return doc


def twins(doc: dict, run: str) -> dict[str, bytes]:
    compact = json.dumps(doc, ensure_ascii=False)
    pretty = json.dumps(doc, ensure_ascii=False, indent="\t" + run)
    return {
        "bom": codecs.BOM_UTF8 + compact.encode(),
        "crlf": pretty.replace("\n", "\r\n").encode(),
        "runs": json.dumps(doc, ensure_ascii=False, separators=(run + ",", ":" + run)).encode(),
        "utf-16-bom": codecs.BOM_UTF16_LE + pretty.encode("utf-16-le"),
        "utf-16": compact.encode("utf-16-le"),
        "utf-16-be-bom": codecs.BOM_UTF16_BE + compact.encode("utf-16-be"),
        "bom-crlf-runs": codecs.BOM_UTF8 + pretty.replace("\n", "\r\n" + run).encode(),
    }


def readers(data: bytes, tmp: Path) -> list:
    """What every JSON reader makes of `data`: (value, problems) each."""
    out = []
    problems: list[str] = []
    out.append((load_json(data, "f.json", problems), problems))
    problems = []
    clean = json_bytes(data, "state.json", problems)
    try:
        value = None if clean is None else STATE_DECODER.decode(clean)
    except msgspec.DecodeError as exc:
        value = type(exc).__name__
    out.append((value, problems))
    problems = []
    out.append((A.decode_state(data, problems), problems))
    for cls in (I.SessionMeta, I.BrainState):
        problems = []
        out.append((I.decode(data, cls, "s.json", problems), problems))
    session = tmp / "s"
    session.mkdir(exist_ok=True)
    (session / "state.json").write_bytes(data)
    problems = []
    out.append((CodeWorkflowSource(tmp)._read_state(session, problems)[0], problems))
    return out


@SETTINGS
@given(doc=json_doc(), run=RUNS)
def test_json_twins_read_as_the_clean_document_in_every_reader(tmp_path_factory, doc, run):
    tmp = tmp_path_factory.mktemp("json")
    expected = readers(json.dumps(doc, ensure_ascii=False).encode(), tmp)
    for name, data in twins(doc, run).items():
        if len(data) > MAX_JSON:
            continue  # a file over the read limit is named as too large, by design
        got = readers(data, tmp)
        if name == "utf-16" and sniff(data)[0] != "utf-16-le":
            # Without a BOM, UTF-16 is recognised by its NULs (mostly-ASCII text); otherwise
            # it is named as a problem, never read as garbage.
            assert all(problems for _, problems in got), got
            continue
        assert got == expected, name


@SETTINGS
@given(doc=json_doc(), cuts=st.lists(st.integers(0, 10_000), min_size=1, max_size=4))
def test_json_reading_is_total_with_nul_bytes(tmp_path_factory, doc, cuts):
    data = json.dumps(doc).encode()
    for cut in cuts:
        i = cut % (len(data) + 1)
        data = data[:i] + b"\x00" + data[i:]
    for _, problems in readers(data, tmp_path_factory.mktemp("nul"))[:1]:
        assert problems  # named, not silently read
    readers(codecs.BOM_UTF16_LE + data, tmp_path_factory.mktemp("nul16"))


@pytest.mark.parametrize("data", [b"\x00", b"\xff\xfe", b"\xfe\xff\x00", b"\xef\xbb\xbf", b""])
def test_json_reading_is_total_on_fragments(tmp_path, data):
    readers(data, tmp_path)
