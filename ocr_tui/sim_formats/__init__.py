"""Simulators for the other agent-workflow formats (used by `ocr-tui demo` and tests)."""
