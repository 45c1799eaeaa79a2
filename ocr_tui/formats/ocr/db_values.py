"""Values read from ocr.db's rows, whatever their storage class: the lenient conversions every
ocr.db reader shares."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ocr_tui.core.lenient import small_int

if TYPE_CHECKING:
    import sqlite3


def as_int(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        return small_int(value)
    return None


def as_str(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def columns(con: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in con.execute(f"PRAGMA table_info({table})")}
