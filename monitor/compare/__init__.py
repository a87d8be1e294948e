"""Compare: is this value the same as that one, and where does a value come from. Pure apart from the
model I/O of `embedder`, `multilingual` and `judge`.

Shared by gold scoring (`score/`), grounding (`compare/evidence`) and attribution (`attribute/`):
- `facts`: normalized text and typed facts (numbers, amounts, dates, ids, acts) inside a text;
- `ladder`: one value against another, rung by rung (exact → normalized → typed → alias → differential →
  embedding → judge), with the rung that decided;
- `differential`, `lexicon`: the short span where two texts differ, and what its words mean;
- `embedder`, `multilingual`, `judge`: the shipped ONNX models and the optional LLM judge;
- `similarity`: the scorer protocol they share; `calibration`: thresholds fitted on labelled pairs;
- `evidence`: what a conversation states (user messages, tool results, system prompt, tool schemas),
  and the provenance of every value a call or a reply uses.

May import only `config`, `model` and `errors` (the layer contract in pyproject.toml).
"""
