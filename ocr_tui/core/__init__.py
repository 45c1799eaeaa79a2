"""The format-neutral machinery: the view model, the Source protocol and registry, the Engine,
the watcher, safe reading and decoding, time parsing, text safety. No Textual, no format."""
