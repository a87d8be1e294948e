"""`python -m monitor` is the same as the `agent-monitor` command."""

from monitor.cli import main

raise SystemExit(main())
