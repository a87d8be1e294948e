"""Scoring worker processes for `run` with `server.workers` > 1. Processes and threads; no payload I/O.

The receiving process keeps decode → normalize → windows (the window store must see every span of a
conversation, unnamed spans joining through their trace, so raw spans are never sharded) and hands
each *closed* conversation (a `Job`: its spans, version, closed_by, spans_dropped) to a `ScoringPool`
of N processes. Each process builds its own ladder (embedding models, judge) from the config, and
receives the references and policies, once, when it starts (`_start_worker`); it sends back an
`Outcome` (the report dict, how scoring went, the embedder counters it added). Reports, metrics,
redaction, the sink and the counters stay in the receiving process (the pipeline's `deliver`).

- Processes are started with `spawn`: onnxruntime sessions and their threads are not fork-safe.
- Each worker is a one-process `ProcessPoolExecutor` with its own queue of jobs (`_Slot`). A new
  conversation goes to the worker with the fewest jobs; a conversation that already has a job
  waiting goes to the same worker, so its versions are reported in order.
- `waiting()` counts jobs handed over and not yet delivered; the pipeline refuses new requests
  while it is at `server.score_queue` (the queue itself never refuses: what was accepted is scored).
- Results are delivered by one thread, in the order the workers finish; the sink sees one report at
  a time.
- A worker that dies (killed, out of memory, a crash in native code) is replaced. The job it was
  scoring (it writes the job's number into a shared value while it scores) is reported unscored with
  the reason; its other jobs go to the replacement (one it died before starting is scored there).
  Nothing is lost, nothing is reported twice (a job is delivered only while it is still pending). A
  worker that keeps dying costs one conversation per death, never a loop: a replacement is started
  only for jobs waiting for it.
- A worker that cannot build its ladder (a missing model) says why: at start the pool raises
  `ModelError` with the reason (`run` exits 2, as with one worker); a replacement that cannot start
  reports each job it is given unscored with that reason.
- Workers ignore SIGINT/SIGTERM (the receiving process drains them on shutdown, `wait_idle`) and exit
  when the receiving process is gone.
"""

from __future__ import annotations

import logging
import multiprocessing
import multiprocessing.connection
import os
import queue
import signal
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from typing import Any

from monitor.assemble.windows import OpenConversation
from monitor.compare.ladder import Ladder, build_ladder
from monitor.config import ScoringConfig
from monitor.errors import ModelError, MonitorError
from monitor.model import Dialog
from monitor.reference.policy import Policy
from monitor.runtime.conversation import Outcome, describe, report_closed, unscored_report
from monitor.runtime.heap import settle_heap

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Job:
    """One closed conversation to score (a copy: the window store may reopen the original)."""

    seq: int
    conversation: OpenConversation
    closed_by: str


#: what runs in a worker process: a module-level function (it is pickled by name)
ScoreJob = Callable[[Job], Outcome]
#: where the pool sends each finished job: the pipeline's publishing
Deliver = Callable[[Job, Outcome], None]


@dataclass
class _Worker:
    """The worker process's state, built once by `_start_worker`."""

    config: ScoringConfig
    references: Mapping[str, Dialog]
    policies: Mapping[str, Policy]
    ladder: Ladder
    sent: dict[str, int]  # embedder counters already reported


_WORKER: _Worker | None = None
_SCORING: Any = None  # the shared value: the number of the job being scored, 0 when none
_START_ERROR: str | None = None  # why this worker could not build its ladder


def _start_worker(
    config: ScoringConfig, references: Mapping[str, Dialog], policies: Mapping[str, Policy], scoring: Any
) -> None:
    global _WORKER, _SCORING, _START_ERROR
    _SCORING = scoring
    for sig in (signal.SIGINT, signal.SIGTERM):  # the receiving process decides when scoring stops
        signal.signal(sig, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    if parent is not None:  # an orphan exits instead of waiting for jobs forever

        def watch() -> None:
            multiprocessing.connection.wait([parent.sentinel])
            os._exit(0)

        threading.Thread(target=watch, daemon=True, name="parent-watch").start()
    try:
        _WORKER = _Worker(config, references, policies, build_ladder(config), {})
        settle_heap()  # the worker's start-up heap (models, lexicon, references) out of the GC's way
    except Exception as exc:  # said by `_ready` (at start) or by each job's unscored report (a replacement)
        _START_ERROR = str(exc) if isinstance(exc, MonitorError) else describe(exc)


def _ready() -> str | None:
    """None once the worker can score, else why it cannot."""
    return _START_ERROR


def _run_job(score: ScoreJob, job: Job) -> Outcome:
    """Score `job` with `score`, its number in the shared value meanwhile (who was scoring what)."""
    _SCORING.value = job.seq
    try:
        return score(job)
    finally:
        _SCORING.value = 0


def score_job(job: Job) -> Outcome:
    """Score one job in a worker process (the default `ScoreJob`)."""
    w = _WORKER
    if w is None:
        raise ModelError(
            f"the scoring worker could not start: {_START_ERROR or 'not started by ScoringPool'}"
        )
    outcome = report_closed(job.conversation, job.closed_by, w.references, w.ladder, w.config, w.policies)
    stats = getattr(w.ladder.scorer, "stats", None)
    added: dict[str, int] = {}
    if isinstance(stats, dict):
        added = {k: int(v) - w.sent.get(k, 0) for k, v in stats.items()}
        w.sent = {k: int(v) for k, v in stats.items()}
    return replace(outcome, embedder=added)


@dataclass
class _Slot:
    """One worker: its executor (replaced when the process dies) and its jobs not yet delivered."""

    index: int
    executor: ProcessPoolExecutor
    scoring: Any  # the worker's shared value (multiprocessing RawValue): the job it is scoring
    generation: int = 0
    pending: OrderedDict[int, Job] = field(default_factory=OrderedDict)
    lost: set[int] = field(default_factory=set)  # pending, but reported unscored: never resent


class ScoringPool:
    def __init__(
        self,
        config: ScoringConfig,
        references: Mapping[str, Dialog],
        policies: Mapping[str, Policy],
        workers: int,
        score: ScoreJob = score_job,
        start_timeout_s: float = 600.0,
    ) -> None:
        """Start `workers` processes and wait until each has loaded its models (a worker that cannot
        start is a `ModelError` here, before anything is accepted)."""
        self._context = multiprocessing.get_context("spawn")
        self._initargs = (config, dict(references), dict(policies))
        self._score = score
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._seq = 0
        self._unfinished = 0
        self._deliver: Deliver | None = None
        self._events: queue.SimpleQueue[tuple[Any, ...] | None] = queue.SimpleQueue()
        self.stats: Counter[str] = Counter()  # embedder counters summed over workers; workers_replaced
        self._slots = [_Slot(i, *self._executor()) for i in range(workers)]
        try:
            errors = [slot.executor.submit(_ready).result(timeout=start_timeout_s) for slot in self._slots]
        except Exception as exc:
            self._shutdown_executors()
            raise ModelError(f"a scoring worker could not start: {describe(exc)}") from exc
        if any(errors):
            self._shutdown_executors()
            raise ModelError(next(e for e in errors if e))
        self._thread = threading.Thread(target=self._deliver_loop, name="score-deliver", daemon=True)
        self._thread.start()

    def bind(self, deliver: Deliver) -> None:
        """Where finished jobs go (the pipeline calls this once, before submitting)."""
        self._deliver = deliver

    def waiting(self) -> int:
        """Jobs handed over and not yet delivered (queued, being scored, or being published)."""
        with self._lock:
            return self._unfinished

    def submit(self, conversation: OpenConversation, closed_by: str) -> None:
        """Queue a closed conversation for scoring (copied: spans list, version, spans_dropped). Never
        blocks on scoring and never refuses."""
        copy = OpenConversation(
            conversation.conversation_id,
            spans=list(conversation.spans),
            version=conversation.version,
            spans_dropped=conversation.spans_dropped,
        )
        with self._lock:
            self._seq += 1
            job = Job(self._seq, copy, closed_by)
            slot = self._slot_for(copy.conversation_id)
            slot.pending[job.seq] = job
            self._unfinished += 1
            self._send(slot, job)

    def wait_idle(self) -> None:
        """Until every job handed over has been delivered (shutdown: nothing queued is lost)."""
        with self._idle:
            self._idle.wait_for(lambda: self._unfinished == 0)

    def close(self) -> None:
        """Wait for what is queued, then stop the workers and the delivery thread."""
        self.wait_idle()
        self._events.put(None)
        self._thread.join(timeout=60)
        self._shutdown_executors()

    # -- inside ----------------------------------------------------------------------------------

    def _executor(self) -> tuple[ProcessPoolExecutor, Any]:
        scoring = self._context.RawValue("q", 0)
        executor = ProcessPoolExecutor(
            max_workers=1,
            mp_context=self._context,
            initializer=_start_worker,
            initargs=(*self._initargs, scoring),
        )
        return executor, scoring

    def _shutdown_executors(self) -> None:
        for slot in getattr(self, "_slots", []):
            slot.executor.shutdown(wait=True, cancel_futures=True)

    def _slot_for(self, conversation_id: str) -> _Slot:
        for slot in self._slots:  # a conversation with a job waiting: the same worker, in order
            if any(j.conversation.conversation_id == conversation_id for j in slot.pending.values()):
                return slot
        return min(self._slots, key=lambda s: len(s.pending))

    def _send(self, slot: _Slot, job: Job) -> None:
        """Hand `job` to the slot's worker (under the lock). A worker found dead is replaced first."""
        try:
            future = slot.executor.submit(_run_job, self._score, job)
        except (BrokenProcessPool, RuntimeError) as exc:  # it died while idle, or was shut down
            self._replace(slot, slot.generation, describe(exc))
            return
        generation = slot.generation
        future.add_done_callback(lambda f: self._events.put((slot, generation, job, f)))

    def _replace(self, slot: _Slot, generation: int, why: str) -> None:
        """The slot's process died (under the lock): a new one; the job the dead worker was scoring is
        reported unscored, the others go to the new process."""
        if slot.generation != generation:
            return  # already replaced: a later notice of the same death
        old, scoring = slot.executor, slot.scoring.value
        slot.generation += 1
        slot.executor, slot.scoring = self._executor()
        self.stats["workers_replaced"] += 1
        old.shutdown(wait=False, cancel_futures=True)
        if scoring in slot.pending and scoring not in slot.lost:
            slot.lost.add(scoring)
            self._events.put((slot.pending[scoring], why))
        jobs = [j for j in slot.pending.values() if j.seq not in slot.lost]
        log.warning("scoring worker %d died (%s); replaced (counted: workers_replaced)", slot.index, why)
        for job in jobs:
            self._send(slot, job)

    def _deliver_loop(self) -> None:
        while True:
            event = self._events.get()
            if event is None:
                return
            try:
                if len(event) == 2:  # a job whose worker died while scoring it
                    job, why = event
                    reason = f"the scoring worker process died while scoring this conversation ({why})"
                    report = unscored_report(job.conversation, job.closed_by, reason)
                    self._finish(job, Outcome(report.to_json(), False, 0.0, failure=reason, error=why))
                else:
                    self._result(*event)
            except Exception:  # never foreseen; this thread must live, or shutdown would wait forever
                log.exception("a scoring result could not be handled (counted: delivery_errors)")
                with self._idle:
                    self.stats["delivery_errors"] += 1
                    job = event[0] if len(event) == 2 else event[2]
                    for slot in self._slots:
                        if slot.pending.pop(job.seq, None) is not None:
                            self._unfinished -= 1
                    self._idle.notify_all()

    def _result(self, slot: _Slot, generation: int, job: Job, future: Future[Outcome]) -> None:
        if future.cancelled():
            return  # its executor was replaced; the job went to the new one
        exc = future.exception()
        if isinstance(exc, BrokenProcessPool):
            with self._lock:
                self._replace(slot, generation, describe(exc))
            return
        if exc is not None:  # e.g. a report that could not be pickled: still reported, unscored
            why = describe(exc)
            report = unscored_report(job.conversation, job.closed_by, f"scoring failed: {why}")
            self._finish(
                job, Outcome(report.to_json(), False, 0.0, failure=f"scoring failed: {why}", error=why)
            )
            return
        self._finish(job, future.result())

    def _finish(self, job: Job, outcome: Outcome) -> None:
        """Deliver a job once: only while it is still pending (a job resent to a replacement may also
        have finished in the dead worker)."""
        with self._lock:
            slot = next((s for s in self._slots if job.seq in s.pending), None)
            if slot is None:
                return
            self.stats.update(outcome.embedder)
        try:
            if self._deliver is not None:
                self._deliver(job, outcome)
        except Exception:  # the pipeline's publishing counts its own faults; this thread must live
            log.exception("delivering a report failed")
        finally:
            with self._idle:
                slot.pending.pop(job.seq, None)
                slot.lost.discard(job.seq)
                self._unfinished -= 1
                self._idle.notify_all()
