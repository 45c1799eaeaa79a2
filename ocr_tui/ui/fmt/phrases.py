"""Phrases that wrap whole (`2 critical`, `REQUEST CHANGES`, never `2` / `critical`), drawn with
plain spaces.

A cell joins a phrase's words with `fmt.KEEP_TOGETHER` (U+00A0 NO-BREAK SPACE). Rich's
`Text.wrap` and Textual's `Content.wrap` both break at it (their word pattern is `\\s`, which
matches U+00A0), and the blank that neither breaks at, U+2800, is a character a terminal copies
as `⠀`. So a `FitTable`'s wrapping columns hold `Phrases`: while Rich divides the lines, each
U+00A0 stands in as U+2800 (one cell, no whitespace to `\\s`), and each line then has a plain
space where it was: what the terminal shows, and copies, is a space.
"""

from __future__ import annotations

import re

from rich.console import Console
from rich.containers import Lines
from rich.text import Text

from ocr_tui.ui.fmt import KEEP_TOGETHER

HOLD = "\u2800"  # KEEP_TOGETHER while the lines are divided: no whitespace to Rich
_BREAKS = re.compile(rf"[^\S{KEEP_TOGETHER}]+")  # whitespace but KEEP_TOGETHER


class Phrases(Text):
    """A `Text` whose KEEP_TOGETHER blanks hold their words together when it wraps, drawn
    as spaces (wrapped or not)."""

    @classmethod
    def of(cls, text: Text) -> Phrases:
        """`text` as Phrases (styles and spans kept)."""
        new = cls(
            text.plain,
            style=text.style,
            justify=text.justify,
            overflow=text.overflow,
            no_wrap=text.no_wrap,
            end=text.end,
            tab_size=text.tab_size,
        )
        new._spans[:] = text._spans
        return new

    def copy(self) -> Phrases:
        return Phrases.of(self)

    def wrap(self, console: Console, width: int, **options) -> Lines:  # type: ignore[override]
        plain = self.plain
        if KEEP_TOGETHER not in plain:
            return super().wrap(console, width, **options)
        held = Text.copy(self)
        held.plain = plain.replace(KEEP_TOGETHER, HOLD)  # as long: the spans stay in place
        lines = held.wrap(console, width, **options)
        for line in lines:
            line.plain = line.plain.replace(HOLD, " ")
        return lines


def words(text: str) -> list[str]:
    """`text`'s words as it wraps: a phrase joined by KEEP_TOGETHER is one."""
    return [w for w in _BREAKS.split(text) if w]
