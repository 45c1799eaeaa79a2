"""Suite-wide isolation: no test reads or writes the user's cache directory, state directory
(the marks' journal) or config file."""

import pytest


@pytest.fixture(autouse=True)
def _no_user_cache(monkeypatch, tmp_path_factory):
    monkeypatch.setenv("OCR_TUI_CACHE_DIR", "off")
    monkeypatch.setenv("OCR_TUI_CONFIG", "off")
    monkeypatch.setenv("OCR_TUI_STATE_DIR", str(tmp_path_factory.mktemp("state")))
    monkeypatch.delenv("COLUMNS", raising=False)  # `status` fits its table to $COLUMNS
