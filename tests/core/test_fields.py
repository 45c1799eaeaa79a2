"""The field lines and line ranges reviewer files and final.md share (fields.py): every field
shape in both markup rules, every line-range shape, the place a finding's fields name, the
line-number guard, and linear time on 200,000-character runs."""

from __future__ import annotations

import time

import pytest

from ocr_tui.formats.ocr import final_items, findings_md
from ocr_tui.formats.ocr.fields import (
    LINES_LABELS,
    LOCATION_LABELS,
    MAX_LINE_DIGITS,
    Field,
    line_number,
    line_range,
    location_of,
    parse_field,
    parse_location,
)
from ocr_tui.formats.ocr.finding import Location
from ocr_tui.formats.ocr.markdown import numbered_lines

PLACES = LOCATION_LABELS | LINES_LABELS

# --- field lines ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line, field",
    [
        ("**Location**: a.ts", ("location", "a.ts", True)),
        ("**Location:** a.ts", ("location", "a.ts", True)),
        ("**Location** : a.ts", ("location", "a.ts", True)),
        ("- **Location**: a.ts", ("location", "a.ts", True)),
        ("* **Location**: a.ts", ("location", "a.ts", True)),
        ("+ **Location**: a.ts", ("location", "a.ts", True)),
        ("    - **Location**: a.ts", ("location", "a.ts", True)),
        ("__File__: a.ts", ("file", "a.ts", True)),
        ("__File:__ a.ts", ("file", "a.ts", True)),
        ("* Lines: 26", ("lines", "26", False)),
        ("Lines: 26", ("lines", "26", False)),
        ("LINES: 26", ("lines", "26", False)),
        ("**Flagged by**: @a-1, @b-2", ("flagged by", "@a-1, @b-2", True)),
        ("**Line range**: 3-9", ("line range", "3-9", True)),
        ("**File path**: a.ts", ("file path", "a.ts", True)),
        ("**Location**:", ("location", "", True)),
    ],
)
def test_field_shapes_in_both_markup_rules(line, field):
    assert parse_field(line) == field
    assert parse_field(line, strict=True) == field
    assert isinstance(parse_field(line), Field)


@pytest.mark.parametrize(
    "line, loose, strict",
    [
        # One `*` / `_`, three, or mixed markup: a reviewer file's field, not final.md's.
        ("_Location_: a.ts", ("location", "a.ts"), None),
        ("*Location*: a.ts", ("location", "a.ts"), None),
        ("***Location***: a.ts", ("location", "a.ts"), None),
        ("**Location*: a.ts", ("location", "a.ts"), None),
        # A space before the closing markup: final.md's, not a reviewer file's.
        ("**Location **: a.ts", None, ("location", "a.ts")),
        # Markup after the colon: a reviewer file takes up to three off; final.md only a
        # closing `:**` / `:__` when nothing closed the label before the colon.
        ("Location:* a.ts", ("location", "a.ts"), ("location", "* a.ts")),
        ("**Location**:** a.ts", ("location", "a.ts"), ("location", "** a.ts")),
        ("**Location:*** a.ts", ("location", "a.ts"), ("location", "* a.ts")),
        ("**Location**:**a.ts**", ("location", "a.ts**"), ("location", "**a.ts**")),
    ],
)
def test_the_two_markup_rules(line, loose, strict):
    got = parse_field(line)
    assert (got[:2] if got else None) == loose
    got = parse_field(line, strict=True)
    assert (got[:2] if got else None) == strict


@pytest.mark.parametrize(
    "line",
    [
        "",
        "Location",
        "Location a.ts",
        "`Location`: a.ts",
        "-**Location**: a.ts",  # no space after the bullet
        "1. **Location**: a.ts",
        "**Location**; a.ts",
        "**Location** — a.ts",
        "**" + "x" * 32 + "**: y",  # a label is at most 31 characters
        "**Loc*ation**: a.ts",
        "# Location: a.ts",
    ],
)
def test_not_field_lines(line):
    assert parse_field(line) is None
    assert parse_field(line, strict=True) is None


def test_labels_filter_and_bold():
    assert parse_field("**Severity**: high", PLACES) is None
    assert parse_field("**Files**: a.ts", PLACES) == ("files", "a.ts", True)
    assert parse_field("**Location details**: a.ts", PLACES) is None
    assert parse_field("Location: a.ts", PLACES) == ("location", "a.ts", False)
    assert parse_field("- *Note*: x").bold is False  # type: ignore[union-attr]
    assert parse_field("- ***Note***: x").bold is True  # type: ignore[union-attr]


def test_the_modules_read_fields_with_the_shared_parser():
    """findings_md reads a finding's place with the loose rule and its place labels only;
    final_items with the strict rule and every label."""
    text = "### Finding 1: x\n_File_: a.ts\n**Lines**: 3\n**Severity**: low\n"
    (f,) = findings_md.parse_reviewer_findings(text, "r.md", "p-1")
    assert f.location == Location(file="a.ts", line_start=3, line_end=3)
    text = "## Blockers\n\n### 1. x\n_File_: a.ts\n**Path **: b.ts\n**Lines**: 3\n"
    (item,) = final_items.parse_final_items(text)
    assert item.location == Location(file="b.ts", line_start=3, line_end=3)


# --- line ranges ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, span",
    [
        ("26", (26, 26)),
        ("L26", (26, 26)),
        ("l26", (26, 26)),
        ("26-30", (26, 30)),
        ("L26-L30", (26, 30)),
        ("L26-30", (26, 30)),
        ("26–30", (26, 30)),
        ("26—30", (26, 30)),
        ("26 - 30", (26, 30)),
        ("26 to 30", (26, 30)),
        ("L26 TO L30", (26, 30)),
        ("26:4", (26, 26)),  # a column
        ("26:4-30:9", (26, 30)),
        ("`26-30`", (26, 30)),
        ("~26", (26, 26)),
        ("(26-30)", (26, 30)),
        ("lines 26-30", (26, 30)),
        ("26, 40-45", (26, 26)),  # the first
        ("30-26", (30, 30)),  # backwards: the first line only
        ("0", (None, None)),  # lines are 1-based
        ("0-9", (None, None)),
        ("9-0", (9, 9)),
        ("9" * MAX_LINE_DIGITS, (int("9" * MAX_LINE_DIGITS),) * 2),
        ("1" * (MAX_LINE_DIGITS + 1), (None, None)),
        ("various", (None, None)),
        ("", (None, None)),
        ("٤٢", (None, None)),  # ASCII digits only
    ],
)
def test_line_range(value, span):
    assert line_range(value) == span


def test_line_number_guard():
    assert line_number("7") == 7
    assert line_number("007") == 7
    assert line_number("0") is None
    assert line_number("") is None
    assert line_number(None) is None
    assert line_number("1" * MAX_LINE_DIGITS) == int("1" * MAX_LINE_DIGITS)
    assert line_number("1" * (MAX_LINE_DIGITS + 1)) is None
    assert line_number("9" * 5000) is None  # int() would refuse it


@pytest.mark.parametrize(
    "value, expected",
    [
        ("a.ts:L42", ("a.ts", 42, 42)),
        ("a.ts:42-50", ("a.ts", 42, 50)),
        ("a.ts:L42-L50", ("a.ts", 42, 50)),
        ("a.ts:42–50", ("a.ts", 42, 50)),
        ("a.ts:42to50", ("a.ts", 42, 50)),
        ("a.ts 42 to 50", ("a.ts", None, None)),  # bare numbers after a path are not lines
        ("a.ts lines 42 to 50", ("a.ts", 42, 50)),
        ("a.ts:42:7", ("a.ts", 42, 42)),  # line and column
        ("a.ts (lines 3-9)", ("a.ts", 3, 9)),
        ("a.ts (lines 3:1-9:4)", ("a.ts", 3, 9)),
        ("a.ts (line 7)", ("a.ts", 7, 7)),
        ("a.ts, line: 7", ("a.ts", 7, 7)),
        ("a.ts#L12", ("a.ts", 12, 12)),
        ("a.ts #L12-L20", ("a.ts", 12, 20)),
        ("a.ts :12", ("a.ts", 12, 12)),
        ("[a.ts](a.ts#L12)", ("a.ts", 12, 12)),
        ("line 42", (None, 42, 42)),
        ("L42-L50", (None, 42, 50)),
        ("42:7", (None, 42, 42)),  # a line and column, not a file named `42`
        ("42:7-50:3", (None, 42, 50)),
        ("none", (None, None, None)),
        ("a.ts:L0", ("a.ts", None, None)),
    ],
)
def test_location_ranges(value, expected):
    lo = parse_location(value)
    assert (lo.file, lo.line_start, lo.line_end) == expected


@pytest.mark.parametrize(
    "fields, expected",
    [
        ([("location", "a.ts:3")], ("a.ts", 3, 3)),
        ([("file", "a.ts"), ("lines", "26-30")], ("a.ts", 26, 30)),
        ([("lines", "26-30"), ("file", "a.ts")], ("a.ts", 26, 30)),  # either order
        ([("location", "a.ts:5"), ("lines", "26")], ("a.ts", 5, 5)),  # the file's own lines win
        ([("location", "a.ts:1"), ("location", "b.ts:2")], ("a.ts", 1, 1)),  # first wins
        ([("location", "N/A"), ("file", "a.ts")], ("a.ts", None, None)),  # no file: read on
        ([("file", "a.ts"), ("location", "line 42")], ("a.ts", 42, 42)),
        ([("location", "line 42"), ("lines", "26")], (None, 26, 26)),  # a Lines field first
        # Lines of another file are not this file's.
        ([("location", "a.ts"), ("location", "b.ts:20")], ("a.ts", None, None)),
        ([("lines", "various"), ("lines", "7")], (None, 7, 7)),  # the first with a range
        ([("severity", "a.ts:3"), ("flagged by", "@a")], (None, None, None)),  # not places
        ([], (None, None, None)),
    ],
)
def test_location_of(fields, expected):
    lo = location_of(fields)
    assert (lo.file, lo.line_start, lo.line_end) == expected


# --- linear time ----------------------------------------------------------------------------

RUN = 200_000
RUNS = {
    "spaces": " " * RUN,
    "letters": "a" * RUN,
    "digits": "1" * RUN,
    "stars": "*" * RUN,
    "underscores": "_" * RUN,
    "colons": ":" * RUN,
    "hashes": "#L" * (RUN // 2),
    "dashes": "1-" * (RUN // 2),
    "digit-colons": "1:" * (RUN // 2),
    "to": "1 to " * (RUN // 5),
    "lines": "lines " * (RUN // 6),
    "L": "L" * RUN,
    "brackets": "[" * RUN + "](",
    "labels": "Location " * (RUN // 9),
}
SHAPES = [
    "{R}",
    "**Location**: {R}",
    "- **{R}**: a.ts",
    "**Location{R}**: a.ts",
    "{R}: a.ts",
    "**Location**: a.ts:{R}",
    "**Location**: a.ts (lines {R}",
    "**Lines**: {R}x",
    "**Lines**: L{R}-",
]


def _cpu(fn) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("run", sorted(RUNS))
def test_linear_on_long_runs(shape, run):
    line = shape.replace("{R}", RUNS[run])

    def every_function() -> None:
        for strict in (False, True):
            f = parse_field(line, strict=strict)
            parse_field(line, PLACES, strict=strict)
            if f:
                location_of([(f.label, f.value), ("lines", f.value), ("file", f.value)])
        line_range(line)
        parse_location(line)
        location_of([("location", line), ("lines", line)])

    assert _cpu(every_function) < 0.5, (shape, run)


def test_normalised_lines_read_as_written():
    """The callers' lines come from `numbered_lines`: a padded field line reads as the plain
    one once its whitespace runs are folded."""
    pad = " \t" * (RUN // 2)
    raw = f"-{pad}**Location**{pad}:{pad}`a.ts:L1-L2`{pad}(lines{pad}3){pad}"
    ((_, line, _),) = numbered_lines(raw)
    f = parse_field(line, PLACES)
    assert f is not None and f.label == "location"
    assert parse_location(f.value) == Location(file="a.ts", line_start=1, line_end=2)


def test_pad_counts_cells_not_characters() -> None:
    """A column of names with a wide one (a reviewer, a phase named in CJK) lines up."""
    from ocr_tui.core.cells import pad

    assert pad("日本", 6) == "日本  " and pad("ab", 6) == "ab    "
    assert pad("日本語の名前", 6) == "日本語の名前"  # never cut: the caller clips first


def test_small_int_reads_ascii_digits_only_and_never_raises() -> None:
    from ocr_tui.core.lenient import small_int

    assert small_int(" 42 ") == 42 and small_int("-3") == -3 and small_int("007") == 7
    for bad in ("²", "١٢", "", "-", "4.2", "1e3", "9" * 6000, "x1"):
        assert small_int(bad) is None, bad
    assert small_int("12345", 4) is None and small_int("1234", 4) == 1234
