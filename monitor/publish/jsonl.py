"""Report sink: one JSON object per line, to a file or stdout. I/O.

The file is appended to (a restarted service keeps its history), its folder created when missing.
Each line is a conversation report (`ConversationReport.to_json`). A re-report after late spans is a
new line with a higher `version`; consumers keep the highest version per `conversation_id`.
"""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path
from typing import IO, Any

from monitor.errors import InputError


class JsonlSink:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        try:
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
            self._fh: IO[str] = path.open("a", encoding="utf-8") if path else sys.stdout
        except OSError as exc:
            raise InputError(str(path), f"cannot write reports here ({exc.strerror})") from exc
        self._lock = threading.Lock()
        self.written = 0

    def __call__(self, report: dict[str, Any]) -> None:
        line = json.dumps(report, ensure_ascii=False, sort_keys=False)
        with self._lock:
            self._fh.write(line + "\n")
            self._fh.flush()
            self.written += 1

    def close(self) -> None:
        if self.path is not None:
            self._fh.close()
