"""ocr-tui benchmarks: `make bench` (python -m benchmarks [--quick] [NAME ...]); see README.md."""
