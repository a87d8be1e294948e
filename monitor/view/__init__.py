"""`agent-monitor show`: dialog reports for people, as terminal tables and one self-contained HTML page.

Reads what `run`, `replay`, `consume` (JSONL) and `score` (JSON) wrote; imports only `monitor.model`,
`monitor.report` and the standard library, never the runtime, so it runs wherever the reports are.
"""
