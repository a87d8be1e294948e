"""A scoring function for worker tests: holds each job until a gate file exists, after saying which
worker process has it. Runs inside a spawned scoring worker (imported there by name), so it is kept
light: the gate's path comes from the environment (`AEM_TEST_GATE`), which the worker inherits."""

from __future__ import annotations

import os
import time
from pathlib import Path

from monitor.runtime.conversation import Outcome
from monitor.runtime.workers import Job, score_job


def held(job: Job) -> Outcome:
    gate = Path(os.environ["AEM_TEST_GATE"])
    (gate.parent / f"scoring-{job.conversation.conversation_id}").write_text(str(os.getpid()))
    while not gate.exists():
        time.sleep(0.02)
    return score_job(job)
