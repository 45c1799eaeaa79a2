"""The built-in formats, one folder each, each shaped like a plugin (docs/formats.md)."""
