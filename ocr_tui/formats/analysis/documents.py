"""The Scientific Analysis Architect's documents: the output paths a session's state names,
resolved to markdown files the UI may open (relative to the session dir)."""

from __future__ import annotations

import os
from pathlib import Path

from ocr_tui.core.safe_read import inside
from ocr_tui.formats.analysis.listing import Listing


class Documents:
    """Output paths as documents relative to the session dir: relative paths are looked up in
    the session dir, then the output directory (when inside the project), then the project
    root; absolute ones are kept when inside the project root or the session dir. Markdown
    files that exist are offered; `missing` counts the others."""

    def __init__(self, listing: Listing, session: Path, output_dir: str | None) -> None:
        self.session = os.path.normpath(os.path.abspath(session))
        self.real_session = os.path.realpath(self.session)
        bases = [self.session]
        if output_dir and os.path.isabs(output_dir) and listing.in_root(output_dir):
            bases.append(os.path.normpath(output_dir))
        bases.append(listing.tops[0])
        self.bases = list(dict.fromkeys(bases))
        self.tops = listing.tops
        self.missing = 0
        self._memo: dict[str, str | None] = {}

    def get(self, raw: str) -> str | None:
        if raw in self._memo:
            return self._memo[raw]
        found = None
        if raw.lower().endswith(".md") and "\x00" not in raw:  # documents are markdown
            for base in [""] if os.path.isabs(raw) else self.bases:
                cand = os.path.normpath(os.path.join(base, raw))
                if os.path.isfile(cand) and self._allowed(cand):
                    found = os.path.relpath(cand, self.session)
                    break
            if found is None:
                self.missing += 1
        self._memo[raw] = found
        return found

    def _allowed(self, cand: str) -> bool:
        """Inside the session dir or the project root, symbolic links resolved."""
        try:
            real = os.path.realpath(cand)
        except (OSError, ValueError):
            return False
        return inside(real, (self.real_session, *self.tops))
