from ocr_tui.cli import main

raise SystemExit(main())
