from __future__ import annotations

import pytest

from .builders import ProjectTree


@pytest.fixture
def tree(tmp_path) -> ProjectTree:
    """An OCR project with an empty `.ocr/sessions/`."""
    return ProjectTree(tmp_path / "proj")
