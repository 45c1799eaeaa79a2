"""OCR's reads of the read seam (`core.reads`): what its screens show beyond the session's view,
by name, run here or by a far side's agent: `round` (a round's findings), `discourse` (a
round's discourse.md, linked to its findings), `run` (a map run). Each is the facade's own
function (`formats.ocr.api`), given where the session is."""

from __future__ import annotations

from ocr_tui.core.reads import ReadRefused, Where, read_kind
from ocr_tui.formats.ocr import api


def _own(path: str) -> str:
    """A round's or map run's directory, relative to its session and inside it."""
    if not path or path.startswith("/") or "\x00" in path or ".." in path.split("/"):
        raise ReadRefused("a round's directory is a path inside its session")
    return path


@read_kind("round", api.Loaded, number=int)
def _round(where: Where, number: int) -> api.Loaded:
    return api.read_round(where.session_dir, number, where.db_path, where.session_id)


@read_kind("discourse", api.DiscourseRead, round_path=str, number=int)
def _discourse(where: Where, round_path: str, number: int) -> api.DiscourseRead:
    return api.read_discourse(where.session_dir, _own(round_path), number, where.db_path,
                              where.session_id)  # fmt: skip


@read_kind("run", api.RunRead, run_path=str, number=int)
def _run(where: Where, run_path: str, number: int) -> api.RunRead:
    return api.read_run(where.session_dir, _own(run_path), number, where.db_path, where.session_id)
