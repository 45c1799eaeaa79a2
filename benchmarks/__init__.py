"""ocr-tui benchmarks: `make bench` (python -m benchmarks [NAME ...])."""
