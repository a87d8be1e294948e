"""agent-monitor: turn-level AEM correctness for multi-turn, tool-calling agents.

Data flow (one folder per stage): reference/ (gold dialogs, alignment) → score/ (structural,
completeness, truthfulness, the comparison ladder; embedder and judge are the only model I/O) →
attribute/ (dependency graph, root cause vs cascade) → report (dialog and aggregate reports) →
publish/ (files). cli.py is the only place that reads files, flags and the environment.
"""

__version__ = "0.1.0"
