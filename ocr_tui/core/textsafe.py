"""Make text from disk safe to print: no terminal control sequence reaches the screen raw."""

from __future__ import annotations

import re

# C0 controls except tab/newline, DEL, C1 controls, and the Unicode bidi overrides that can
# make a name read differently from what it is.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_CONTROL_INLINE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _visible(match: re.Match[str]) -> str:
    ch = match.group()
    code = ord(ch)
    if code == 0x1B:
        return "␛"
    if code < 0x20:
        return chr(0x2400 + code)  # the Control Pictures block: ␀ ␁ … ␟
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def has_control(text: str) -> bool:
    """Does `text` hold a control character other than tab, newline and CR (an escape
    sequence, a C1 control, a bidi override)?"""
    return _CONTROL.search(text.replace("\r", "")) is not None


def is_undecodable(name: str) -> bool:
    """Was this file name (as `os` decodes it) not valid UTF-8?"""
    try:
        name.encode("utf-8")
        return False
    except UnicodeEncodeError:
        return True


def unsurrogate(text: str) -> str:
    """Replace lone surrogates (from undecodable bytes in file names) with U+FFFD."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def name_key(name: str) -> str:
    """A file name as a key that keeps names apart: each byte that is not UTF-8 (a lone
    surrogate from `os.fsdecode`) becomes the text `\\xNN`, so `x\\xff` and `x\\xfe` stay two
    sessions (`unsurrogate` would make both `x\ufffd`)."""
    try:
        name.encode("utf-8")
        return name
    except UnicodeEncodeError:
        return "".join(
            f"\\x{ord(c) - 0xDC00:02x}" if 0xDC80 <= ord(c) <= 0xDCFF else c for c in name
        )


# U+FE0F asks for an emoji's wide presentation (`⚠️`): terminals draw it two cells wide while
# Rich counts one, which shifts every border after it. Without it the text form is drawn.
_EMOJI_PRESENTATION = "\ufe0f"


def safe_line(text: object) -> str:
    """One line of text with every control character (newlines too) shown as a symbol."""
    text = unsurrogate(str(text)).replace(_EMOJI_PRESENTATION, "")
    return _CONTROL_INLINE.sub(_visible, text)


def safe_block(text: str) -> str:
    """Multi-line text (e.g. a markdown document) with control characters made visible;
    tabs and newlines are kept, CR/LF line ends are normalised."""
    text = unsurrogate(text).replace("\r\n", "\n").replace(_EMOJI_PRESENTATION, "")
    return _CONTROL.sub(_visible, text)
