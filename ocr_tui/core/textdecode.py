"""Bytes from disk to text, one way for every reader (no IO here).

Agents, editors and shells write text in more than one encoding: Windows editors start UTF-8
with a byte-order mark, PowerShell's `>` writes UTF-16 (with a BOM, or without one when piped
through some tools), and a stray byte may not be UTF-8 at all. Every reader (JSON and markdown,
in every format, and the document screen) goes through `decode_text`, so that no reader loses a
session's phase to a BOM that another reader drops:

- a UTF-8, UTF-16 or UTF-32 BOM picks the encoding and is dropped;
- without a BOM, text whose first bytes alternate with NULs (`{\\0"\\0`) is UTF-16 without a
  BOM, and is read as such;
- otherwise the text is UTF-8; bytes that are not are shown as U+FFFD and named as a problem;
- NUL bytes in what should be UTF-8 text mean a binary file, named as a problem.

`json_bytes` gives clean UTF-8 bytes for msgspec's decoders (which need bytes) from the same
rules.
"""

from __future__ import annotations

import codecs
from typing import Any

import msgspec

from ocr_tui.core.textsafe import safe_line

# Longest first: UTF-32 LE's BOM starts with UTF-16 LE's.
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
SNIFF = 8192  # bytes looked at for NULs
_UNIT = {"utf-16-le": 2, "utf-16-be": 2, "utf-32-le": 4, "utf-32-be": 4, "utf-8": 1}


def sniff(data: bytes) -> tuple[str, int]:
    """(the encoding of `data`, the length of its BOM)."""
    for bom, enc in _BOMS:
        if data.startswith(bom):
            return enc, len(bom)
    head = data[:SNIFF]
    if len(head) >= 2 and b"\x00" in head:
        # Mostly-ASCII text in UTF-16 without a BOM: most bytes at one parity are NUL and
        # hardly any at the other (UTF-32 and binary files have NULs at both).
        even, odd = head[0::2], head[1::2]
        if _mostly_nul(odd) and _hardly_nul(even):
            return "utf-16-le", 0
        if _mostly_nul(even) and _hardly_nul(odd):
            return "utf-16-be", 0
    return "utf-8", 0


def _mostly_nul(b: bytes) -> bool:
    return b.count(0) * 2 >= len(b)


def _hardly_nul(b: bytes) -> bool:
    return b.count(0) * 10 <= len(b)


def decode_text(data: bytes, name: str, problems: list[str], *, truncated: bool = False) -> str:
    """`data` (the first bytes of the file `name`, cut short when `truncated`) as text; a
    problem about the encoding, if any, is appended to `problems` (`name` must already be safe
    to show)."""
    enc, skip = sniff(data)
    body = data[skip:]
    if enc != "utf-8":
        unit = _UNIT[enc]
        if truncated:
            body = body[: len(body) - len(body) % unit]
        try:
            return body.decode(enc)
        except UnicodeDecodeError:
            if not _cut_only(body, enc, truncated):
                label = enc[:6].upper()
                problems.append(f"{name} is not valid {label} (bad bytes are shown as \ufffd)")
            return body.decode(enc, "replace")
    if b"\x00" in body[:SNIFF]:
        problems.append(f"{name} looks binary")
        return body.decode("utf-8", "replace")
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = body.decode("utf-8", "replace")
        if not (truncated and exc.start >= len(body) - 3):  # not a character cut by the limit
            problems.append(f"{name} is not valid UTF-8 (bad bytes are shown as \ufffd)")
        return text


def _cut_only(body: bytes, enc: str, truncated: bool) -> bool:
    """Was the only bad character one cut in half by the read limit (a surrogate pair)?"""
    if not truncated:
        return False
    try:
        body[:-4].decode(enc)
        return True
    except UnicodeDecodeError:
        return False


def json_bytes(data: bytes, name: str, problems: list[str]) -> bytes | None:
    """`data` as UTF-8 bytes for a JSON decoder: BOM dropped, UTF-16/32 converted, bad bytes
    replaced (with a problem). None, with a problem, when nothing but whitespace is left or
    the file looks binary."""
    if not data.startswith((b"\xef", b"\xff", b"\xfe", b"\x00")) and b"\x00" not in data[:4]:
        try:  # the usual case: plain UTF-8, returned as it is
            data.decode("utf-8")
            if b"\x00" not in data[:SNIFF]:
                return data if data.strip() else _empty(name, problems)
        except UnicodeDecodeError:
            pass
    found: list[str] = []
    text = decode_text(data, name, found)
    if any(p.endswith("looks binary") for p in found):
        problems.append(f"{name} is not valid JSON (it holds NUL bytes: a binary file?)")
        return None
    problems.extend(found)
    if not text.strip():
        return _empty(name, problems)
    return text.encode("utf-8")


def _empty(name: str, problems: list[str]) -> None:
    problems.append(f"{name} is empty")
    return None


def load_json(data: bytes, name: str, problems: list[str]) -> tuple[bool, Any]:
    """(True, the JSON value in `data`) or (False, None) with a problem naming `name`."""
    clean = json_bytes(data, name, problems)
    if clean is None:
        return False, None
    try:
        return True, msgspec.json.decode(clean)
    except (msgspec.DecodeError, ValueError, RecursionError) as exc:
        problems.append(json_problem(name, exc, clean))
    return False, None


# -- JSON errors in plain words ---------------------------------------------------------------
#
# msgspec says `Input data was truncated` or `JSON is malformed: expected ':' (byte 12)`; a user
# reads `state.json is cut off (ends mid-object)` or `state.json is not valid JSON: a ':' is
# missing (line 2, column 7)`.

_MALFORMED = {
    "trailing characters": "there is more text after its end",
    "invalid character": "an unexpected {char}",
    "trailing comma in object": "a comma before a closing }",
    "trailing comma in array": "a comma before a closing ]",
    "expected ':'": "a ':' is missing after a key",
    "expected ',' or '}'": "a ',' or '}' is missing",
    "expected ',' or ']'": "a ',' or ']' is missing",
    "object keys must be strings": "a key is not in double quotes",
    "invalid escape character in string": "a string has an invalid \\ escape",
    "invalid utf-8 sequence": "a string holds bytes that are not UTF-8",
    "invalid number": "a number is not valid",
}
_TYPES = {
    "int": "a whole number",
    "float": "a number",
    "str": "text",
    "bool": "true or false",
    "array": "a list",
    "object": "an object",
    "null": "null",
}


def json_problem(name: str, exc: BaseException, data: bytes) -> str:
    """A JSON decoding error of the file `name` (already safe to show) in plain words: where
    the text is cut off, what is wrong at which line and column, which value has the wrong
    type. `data`: the bytes that were decoded."""
    if isinstance(exc, RecursionError):
        return f"{name} is nested too deeply to read"
    text = " ".join(str(exc).split())
    if text.startswith("Input data was truncated"):
        return f"{name} is cut off (ends {_ends_in(data)})"
    if text.startswith("Number out of range"):
        return f"{name} holds a number too large to read"
    if isinstance(exc, msgspec.ValidationError):
        return f"{name} has a wrong value: {validation_words(text)}"
    head, sep, rest = text.partition("JSON is malformed: ")
    if sep:
        what, _, at = rest.rpartition(" (byte ")
        words = _MALFORMED.get(what)
        if words is not None and at[:-1].isdigit():
            offset = int(at[:-1])
            char = data[offset : offset + 1]
            shown = repr(char.decode("latin-1")) if char and 32 < char[0] < 127 else "character"
            return f"{name} is not valid JSON: {words.format(char=shown)} ({_where(data, offset)})"
    return f"{name} is not valid JSON ({short(exc)})"


def validation_words(text: str) -> str:
    """msgspec's `Expected `int`, got `str` - at `$.phase`` as `phase should be a whole
    number, not text`."""
    message, _, at = text.partition(" - at `")
    where = at.rstrip("`").removeprefix("$").lstrip(".") or "the file"
    if message.startswith("Expected `") and "`, got `" in message:
        want, _, got = message.removeprefix("Expected `").partition("`, got `")
        want_words = " or ".join(_TYPES.get(t.strip(), t.strip()) for t in want.split("|"))
        got_words = _TYPES.get(got.rstrip("`"), got.rstrip("`"))
        return safe_line(f"{where} should be {want_words}, not {got_words}")
    return safe_line(f"{message} ({where})" if at else message)


def _where(data: bytes, offset: int) -> str:
    before = data[:offset]
    line = before.count(b"\n") + 1
    column = offset - (before.rfind(b"\n") + 1) + 1
    return f"line {line}, column {column}"


def _ends_in(data: bytes) -> str:
    """What a cut-off JSON text ends in: `mid-string`, `mid-object`, `mid-list`, or
    `mid-value` (a number or word cut short at the top level)."""
    stack: list[int] = []
    in_string = escaped = False
    for byte in data:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x7B, 0x5B):  # { [
            stack.append(byte)
        elif byte in (0x7D, 0x5D) and stack:
            stack.pop()
    if in_string:
        return "mid-string"
    if stack:
        return "mid-object" if stack[-1] == 0x7B else "mid-list"
    return "mid-value"


def short(exc: BaseException, limit: int = 80) -> str:
    """An exception's message on one short line."""
    text = safe_line(" ".join((str(exc) or type(exc).__name__).split()))
    return text if len(text) <= limit else text[: limit - 1] + "…"
