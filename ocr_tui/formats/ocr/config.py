"""`.ocr/config.yaml`: the one key ocr-tui reads from it, `dashboard.ide` (the IDE OCR's own
dashboard opens files in; `ocr_tui.core.editor` maps it to a program).

No YAML library: a line-based reader for exactly this shape, one pass over the lines (linear
time, no regular expression):

    dashboard:            # a top-level key (column 0) with nothing but a comment after it
      other: 1            # the block's keys share one indentation; deeper lines are skipped
      ide: vscode         # plain, "double" or 'single' quoted; a comment may follow

The file is read as every other OCR file is (capped, non-blocking, BOMs and UTF-16 handled,
CRLF line ends). Anything this reader does not understand gives None rather than a guess: a
flow mapping (`dashboard: {ide: x}`), a tab in the block's indentation, a block that goes back
to a shallower indentation than its first key, a key given twice, an escape in a quoted value,
a value on the next line, a value that is not a short name (`[A-Za-z0-9][A-Za-z0-9._+-]*`).
`auto`, OCR's default, is returned as it is (the editor module treats it as "no IDE").
"""

from __future__ import annotations

import string
from pathlib import Path

from ocr_tui.core.safe_read import read_capped
from ocr_tui.core.textdecode import decode_text

CONFIG_NAME = "config.yaml"
MAX_CONFIG = 256 * 1024  # OCR's own file is ~4 KiB; a larger one is not read
MAX_NAME = 64
_NAME_CHARS = frozenset(string.ascii_letters + string.digits + "._+-")
_NULLS = frozenset({"~", "null", "Null", "NULL"})


def dashboard_ide(ocr_dir: Path) -> str | None:
    """`dashboard.ide` from `ocr_dir/config.yaml` (`.ocr/config.yaml`), or None when the file
    is missing, unreadable, too large, binary, or does not give it plainly. Never raises."""
    try:
        problems: list[str] = []
        data, _ = read_capped(Path(ocr_dir) / CONFIG_NAME, CONFIG_NAME, problems, limit=MAX_CONFIG)
        if data is None:
            return None
        text = decode_text(data, CONFIG_NAME, problems)
        if any(p.endswith("looks binary") for p in problems):
            return None
        return parse_dashboard_ide(text)
    except Exception:  # a reader of someone else's file never takes the dashboard down
        return None


def parse_dashboard_ide(text: str) -> str | None:
    """`dashboard.ide` from the text of a config.yaml (see the module's docstring)."""
    in_block = False
    seen_dashboard = False
    seen_ide = False
    child: int | None = None  # the indentation of the dashboard block's keys
    value: str | None = None
    for raw in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if not raw.strip(" \t") or raw.lstrip(" \t").startswith("#"):
            continue  # blank, or only a comment
        stripped = raw.lstrip(" ")
        if stripped[0] == "\t":
            if in_block:
                return None  # a tab in the block's indentation: not YAML
            continue
        indent = len(raw) - len(stripped)
        if indent == 0:
            in_block = False
            key, rest = _key(stripped)
            if key == "dashboard":
                if seen_dashboard or not _nothing(rest):
                    return None  # twice, or not a block mapping (`{ide: x}`, `&anchor`, ...)
                seen_dashboard = in_block = True
            continue
        if not in_block:
            continue
        if child is None:
            child = indent
        if indent > child:
            continue  # under another key of the block
        if indent < child:
            return None
        key, rest = (None, "") if stripped[0] == "-" else _key(stripped)
        if key is None:
            return None  # a sequence or a bare scalar where the block's keys should be
        if key == "ide":
            if seen_ide:
                return None
            seen_ide = True
            value = _scalar(rest)
    return value


def _key(line: str) -> tuple[str | None, str]:
    """(`key`, what follows its colon) for `key: rest` or `key:`; (None, "") otherwise."""
    if line[0] in "\"'":
        end = line.find(line[0], 1)
        if end < 0 or not line.startswith(":", end + 1):
            return None, ""
        colon = end + 1
        key = line[1:end]
    else:
        colon = line.find(":")
        while colon >= 0 and colon + 1 < len(line) and line[colon + 1] not in " \t":
            colon = line.find(":", colon + 1)
        if colon <= 0:
            return None, ""
        key = line[:colon].rstrip(" \t")
    rest = line[colon + 1 :]
    if rest and rest[0] not in " \t":
        return None, ""
    return key, rest


def _nothing(rest: str) -> bool:
    """Nothing, or only a comment, after a key's colon."""
    rest = rest.strip(" \t")
    return not rest or rest.startswith("#")


def _scalar(rest: str) -> str | None:
    """A value as a short name: plain (up to a ` #` comment), "double" (no escapes) or
    'single' quoted (no '' escapes); None when it is anything else."""
    v = rest.strip(" \t")
    if not v or v.startswith("#"):
        return None  # null, or a value on the next line
    tail = ""
    if v[0] in "\"'":
        end = v.find(v[0], 1)
        if end < 0:
            return None
        inner, tail = v[1:end], v[end + 1 :].strip(" \t")
        if "\\" in inner and v[0] == '"':
            return None
    else:
        cut = len(v)
        for i in range(1, len(v)):
            if v[i] == "#" and v[i - 1] in " \t":
                cut = i
                break
        inner = v[:cut]
    if tail and not tail.startswith("#"):
        return None  # `'x'y`, `''` escapes, `"a" "b"`
    inner = inner.strip(" \t")
    if not inner or inner in _NULLS or len(inner) > MAX_NAME:
        return None
    if not inner[0].isalnum() or any(c not in _NAME_CHARS for c in inner):
        return None
    return inner
