"""The `agent-monitor` command: parse flags, load and validate config, build, run, exit code.

The only module that reads flags, files and the environment. Exit codes: 0 done; 1 the gate found a
regression; 2 bad input or configuration (the message names the file, line, dialog, turn and field).
User errors never print a traceback.
"""

from __future__ import annotations

import argparse
import csv
import json
import logging
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from monitor import __version__
from monitor.config import CompositionConfig, ScoringConfig, format_validation_error, load_settings
from monitor.errors import InputError, MonitorError
from monitor.model import AggregateReport, DialogReport
from monitor.words import counted

log = logging.getLogger("monitor")

EXIT_OK, EXIT_REGRESSION, EXIT_BAD_INPUT = 0, 1, 2
MAX_SHOWN = 50  # problems `replay` lists one by one; the rest are counted


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    if not hasattr(args, "handler"):
        parser.print_help(sys.stderr)
        return EXIT_BAD_INPUT
    try:
        code: int = args.handler(args)
        return code
    except MonitorError as exc:
        print(f"agent-monitor: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("agent-monitor: interrupted", file=sys.stderr)
        return 130


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="agent-monitor",
        description="Turn-level AEM correctness for multi-turn, tool-calling agents.",
    )
    p.add_argument("--version", action="version", version=f"agent-monitor {__version__}")
    p.add_argument("-v", "--verbose", action="store_true", help="debug logging on stderr")
    sub = p.add_subparsers(metavar="COMMAND")

    s = sub.add_parser("score", help="score golden dialogs offline (AEM per turn, attributed)")
    s.add_argument(
        "dialogs", type=Path, help="a .json or .jsonl file of golden dialogs, or a directory of them"
    )
    s.add_argument("--out", type=Path, help="write the JSON report here (default: stdout)")
    s.add_argument("--csv", type=Path, help="also write one CSV row per turn here")
    s.add_argument("--config", type=Path, help="YAML/JSON config (thresholds, composition, judge, …)")
    s.add_argument(
        "--composition",
        choices=["mean", "weighted", "gating", "sub_metric_thresholds"],
        help="override the composition rule of the config",
    )
    s.add_argument(
        "--keep-going", action="store_true", help="score the readable dialogs even if some are bad"
    )
    s.add_argument("--no-progress", action="store_true", help="no progress bar even on a terminal")
    s.set_defaults(handler=_cmd_score)

    g = sub.add_parser("gate", help="CI regression gate: compare a score report with a baseline")
    g.add_argument("--baseline", type=Path, required=True, help="the baseline report (output of `score`)")
    g.add_argument("--report", type=Path, required=True, help="the new report (output of `score`)")
    g.add_argument("--config", type=Path, help="config file whose `gate` section sets the limits")
    g.add_argument("--max-drop-points", type=float, help="strict success rate drop that fails (default 1.5)")
    g.add_argument(
        "--max-reason-rise", type=float, help="relative rise of a failure reason that fails (0.2 = 20%%)"
    )
    g.add_argument("--warn-latency-rise", type=float, help="relative latency rise that warns (0.15 = 15%%)")
    g.set_defaults(handler=_cmd_gate)

    c = sub.add_parser("calibrate", help="fit similarity thresholds per value kind from labelled pairs")
    c.add_argument("pairs", type=Path, help="JSONL of {a, b, equivalent, kind?, split?}")
    c.add_argument("--config", type=Path, help="config to start from (embedder, ladder)")
    c.add_argument("--out", type=Path, help="write the full calibration report (JSON) here")
    c.add_argument("--write-config", type=Path, help="write the fitted thresholds into this YAML config file")
    c.add_argument(
        "--fit-on-all",
        action="store_true",
        help="fit and score on every pair (default: fit on the `fit` split, report on the `test` split)",
    )
    c.set_defaults(handler=_cmd_calibrate)

    u = sub.add_parser("run", help="the service: OTLP/HTTP + OTLP/gRPC receivers, scoring, JSONL reports")
    u.add_argument(
        "--config", type=Path, help="YAML/JSON config (environment: AGENT_MONITOR_<SECTION>__<KEY>)"
    )
    u.add_argument(
        "--gold",
        type=Path,
        help="golden dialogs to score conversations against (default with --demo: the demo's)",
    )
    u.add_argument("--out", type=Path, help="append JSONL reports here (default: stdout)")
    u.add_argument("--host", help="bind address (default 127.0.0.1)")
    u.add_argument("--http-port", type=int, help="OTLP/HTTP port (default 4318)")
    u.add_argument("--grpc-port", type=int, help="OTLP/gRPC port (default 4317)")
    u.add_argument("--tls-cert", type=Path, help="TLS certificate (PEM) for both receivers")
    u.add_argument("--tls-key", type=Path, help="TLS private key (PEM)")
    u.add_argument("--trusted-network", action="store_true", help="allow a non-loopback bind without TLS")
    u.add_argument(
        "--workers", type=int, help="scoring processes (server.workers; default 1: scored in this process)"
    )
    u.add_argument(
        "--demo",
        action="store_true",
        help="post the bundled recorded agent traffic to this service on start (on a terminal without "
        "--out: one line per conversation, the JSONL in a temporary file)",
    )
    u.add_argument(
        "--policy",
        type=Path,
        help="reference policies (YAML/JSON) for traffic without gold (--demo: the demo's)",
    )
    _service_options(u)
    u.set_defaults(handler=_cmd_run)

    k = sub.add_parser("consume", help="the Kafka consumer-group path: ingest and/or score stages")
    k.add_argument(
        "--config",
        type=Path,
        help="YAML/JSON config (kafka, windows, …; environment: AGENT_MONITOR_KAFKA__…)",
    )
    k.add_argument("--bootstrap", help="Kafka bootstrap servers (default: kafka.bootstrap_servers)")
    k.add_argument(
        "--stage",
        choices=["ingest", "score", "both"],
        default="both",
        help="which stage(s) this process runs",
    )
    k.add_argument("--gold", type=Path, help="golden dialogs to score conversations against")
    k.add_argument("--policy", type=Path, help="reference policies for traffic without gold")
    k.add_argument("--replica", help="this replica's name in report headers (default: host-pid)")
    _service_options(k)
    k.set_defaults(handler=_cmd_consume)

    r = sub.add_parser(
        "replay", help="run the streaming pipeline over recorded OTLP files (.pb/.json/.jsonl)"
    )
    r.add_argument("files", type=Path, nargs="+", help="OTLP files or directories of them")
    r.add_argument(
        "--gold", type=Path, help="golden dialogs (file or directory) to score conversations against"
    )
    r.add_argument("--out", type=Path, help="append JSONL reports here (default: stdout)")
    r.add_argument("--policy", type=Path, help="reference policies (YAML/JSON) for traffic without gold")
    r.add_argument("--config", type=Path, help="YAML/JSON config")
    _service_options(r)
    r.set_defaults(handler=_cmd_replay)

    sh = sub.add_parser("show", help="show reports: one table per conversation, or one HTML page (--html)")
    sh.add_argument("reports", type=Path, nargs="+", help="JSONL of run/replay/consume, or the JSON of score")
    sh.add_argument("--conversation", help="only this conversation (a score report: dialog) id")
    sh.add_argument("--failed", action="store_true", help="only conversations with a failed turn")
    sh.add_argument("--release", help="only conversations of this release")
    sh.add_argument("--html", type=Path, help="write one self-contained HTML page here instead of tables")
    sh.set_defaults(handler=_cmd_show)

    e = sub.add_parser(
        "export-model", help="export a sentence-transformers model folder to ONNX (needs [export])"
    )
    e.add_argument("source_dir", type=Path, help="a sentence-transformers model folder")
    e.add_argument("--out", type=Path, required=True, help="output folder")
    e.add_argument("--quantize", choices=["int8"], help="int8 dynamic quantization (per-channel)")
    e.add_argument("--model-id", help="model id recorded in the model card (default: from the folder name)")
    e.set_defaults(handler=_cmd_export)

    lg = sub.add_parser(
        "loadgen",
        help="generate agent traffic with known verdicts: OTLP requests, gold references, truth",
        description=(
            "Writes <out>/gold/references.jsonl and <out>/truth.jsonl, and the traffic to --send "
            "(default <out>/traffic: one .pb request per file, for `replay`). Check the monitor's reports "
            "against the truth with `agent-monitor loadgen --check REPORTS --out DIR`."
        ),
    )
    lg.add_argument("--out", type=Path, required=True, help="folder for gold/, truth.jsonl and traffic/")
    lg.add_argument("--conversations", type=int, default=1000, help="how many (default 1000)")
    lg.add_argument("--seed", type=int, default=7, help="same seed, same traffic (default 7)")
    lg.add_argument("--rate", type=float, default=50.0, help="conversations started per second (default 50)")
    lg.add_argument(
        "--fault-rate", type=float, default=0.5, help="chance an exchange has a fault (default 0.5)"
    )
    lg.add_argument(
        "--references", type=int, default=60, help="gold variants per scenario family (default 60)"
    )
    lg.add_argument(
        "--conventions",
        default="genai,genai-events,strands,openinference",
        help="span shapes, comma-separated",
    )
    lg.add_argument("--late-fraction", type=float, default=0.02, help="spans delivered late (default 0.02)")
    lg.add_argument(
        "--batch-spans",
        type=int,
        default=512,
        help="spans per export request at most (default 512, as the SDK)",
    )
    lg.add_argument(
        "--time-scale", type=float, default=1.0, help="multiplies simulated durations (default 1)"
    )
    lg.add_argument("--no-end-marker", action="store_true", help="let inactivity close conversations")
    lg.add_argument(
        "--send",
        help="http://host:4318, grpc://host:4317 or kafka://bootstrap/topic: send, paced in real time",
    )
    lg.add_argument("--check", type=Path, help="a JSONL reports file to score against <out>/truth.jsonl")
    lg.set_defaults(handler=_cmd_loadgen)
    return p


# -- loadgen ----------------------------------------------------------------------------------


def _cmd_loadgen(args: argparse.Namespace) -> int:
    import dataclasses
    import time

    from monitor.loadgen.send import deliver, write_references, write_truth
    from monitor.loadgen.traffic import LoadConfig, Traffic

    if args.check is not None:
        return _check_loadgen(args.check, args.out / "truth.jsonl")
    for flag, value, ok in (
        ("--conversations", args.conversations, args.conversations >= 1),
        ("--rate", args.rate, args.rate > 0),
        ("--fault-rate", args.fault_rate, 0 <= args.fault_rate <= 1),
        ("--references", args.references, args.references >= 1),
        ("--late-fraction", args.late_fraction, 0 <= args.late_fraction <= 1),
        ("--time-scale", args.time_scale, args.time_scale > 0),
        ("--batch-spans", args.batch_spans, args.batch_spans >= 1),
    ):
        if not ok:
            raise InputError(flag, f"{value} is out of range")
    conventions = tuple(c.strip() for c in args.conventions.split(",") if c.strip())
    live = args.send is not None and not args.send.startswith(("file:", "/", "."))
    try:
        config = LoadConfig(
            conversations=args.conversations, seed=args.seed, rate=args.rate, references=args.references,
            fault_rate=args.fault_rate, conventions=conventions, late_fraction=args.late_fraction,
            batch_spans=args.batch_spans,
            time_scale=args.time_scale, end_marker=not args.no_end_marker,
        )  # fmt: skip
        if live:
            config = dataclasses.replace(config, start_ns=time.time_ns())
        traffic = Traffic(config)
    except ValueError as exc:
        raise InputError("--conventions", str(exc)) from exc
    refs = write_references(traffic.all_references(), args.out / "gold" / "references.jsonl")
    truth: list[dict[str, Any]] = []
    target = args.send or str(args.out / "traffic")
    done = deliver(traffic.requests(truth), target, paced=live, start_ns=config.start_ns)
    write_truth(truth, args.out / "truth.jsonl")
    print(
        f"loadgen: {counted(len(truth), 'conversation')}, {counted(done.spans, 'span')} in "
        f"{counted(done.requests, 'request')} ({done.bytes / 1e6:.1f} MB) to {target}; "
        f"{counted(refs, 'reference')} in {args.out / 'gold'}; truth in {args.out / 'truth.jsonl'}"
        + (f"; {counted(done.failed, 'request')} refused" if done.failed else ""),
        file=sys.stderr,
    )
    return EXIT_OK if not done.failed else EXIT_BAD_INPUT


def _check_loadgen(reports_path: Path, truth_path: Path) -> int:
    from monitor.loadgen.evaluate import evaluate
    from monitor.report import latest_reports

    truth = _read_jsonl(truth_path)
    reports = latest_reports(_read_jsonl(reports_path))
    try:
        summary = evaluate(truth, reports).summary()
    except (KeyError, TypeError, AttributeError) as exc:
        raise InputError(
            f"{truth_path} / {reports_path}", f"not a loadgen truth file and monitor reports (missing {exc})"
        ) from exc
    print(json.dumps(summary, indent=2))
    return EXIT_OK


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    try:
        lines = path.read_text().splitlines()
    except OSError as exc:
        raise InputError(str(path), f"cannot read ({exc.strerror})") from exc
    out = []
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}:{n}", f"not JSON ({exc.msg} at column {exc.colno})") from exc
    return out


# -- score ------------------------------------------------------------------------------------


def _cmd_score(args: argparse.Namespace) -> int:
    from monitor.compare.ladder import build_ladder
    from monitor.reference.golden import load_dialogs
    from monitor.report import aggregate, csv_rows, summary_text
    from monitor.score.dialog import score_dialog, texts_to_embed

    config = load_settings(args.config)
    if args.composition:
        config = config.model_copy(
            update={"composition": config.composition.model_copy(update={"rule": args.composition})}
        )
    loaded = load_dialogs(args.dialogs)
    for d in [d for d in loaded.dialogs if not any(t.gold_turn is not None for t in d.turns)]:
        loaded.dialogs.remove(d)
        loaded.errors.append(
            f"{d.source}: dialog {d.dialog_id!r} has no gold_turn: `score` needs gold to score against "
            "(for traffic without gold, `replay` scores it against a policy)"
        )
    for error in loaded.errors:
        print(f"agent-monitor: bad input: {error}", file=sys.stderr)
    if loaded.errors and not args.keep_going:
        print(
            f"agent-monitor: {len(loaded.errors)} bad dialog(s); nothing scored. Fix them, or pass "
            "--keep-going to score the rest.",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    ladder = build_ladder(config)
    if ladder.scorer is not None:
        ladder.scorer.prefetch(texts_to_embed(loaded.dialogs))
    reports: list[DialogReport] = []
    for dialog in _progress(loaded.dialogs, args.no_progress):
        reports.append(score_dialog(dialog, ladder, config.composition, alignment=config.alignment))
    agg = aggregate(reports, loaded.errors)
    document = {
        "aggregate": agg.model_dump(mode="json"),
        "dialogs": [r.model_dump(mode="json") for r in reports],
    }
    text = json.dumps(document, indent=2, ensure_ascii=False)
    if args.out:
        _write(args.out, text + "\n")
    else:
        sys.stdout.write(text + "\n")
    if args.csv:
        from monitor.report import CSV_COLUMNS

        try:
            with args.csv.open("w", newline="", encoding="utf-8") as fh:
                writer = csv.DictWriter(fh, fieldnames=CSV_COLUMNS)
                writer.writeheader()
                writer.writerows(csv_rows(reports))
        except OSError as exc:
            raise InputError(str(args.csv), f"cannot write ({exc.strerror})") from exc
    print(summary_text(agg), file=sys.stderr)
    return EXIT_BAD_INPUT if loaded.errors else EXIT_OK


def _progress(items: list[Any], disabled: bool) -> Any:
    if disabled or not sys.stderr.isatty() or len(items) < 20:
        return items
    from tqdm import tqdm

    return tqdm(items, desc="scoring", unit="dialog", file=sys.stderr)


# -- run ----------------------------------------------------------------------------------------


class _Headlines:
    """A sink for a person at a terminal: each report to `sink` (JSONL) and its headline to stdout."""

    def __init__(self, sink: Callable[[dict[str, Any]], None]) -> None:
        self.sink = sink

    def __call__(self, report: dict[str, Any]) -> None:
        from monitor.view.reports import headline_of

        self.sink(report)
        print(headline_of(report), flush=True)


def _cmd_run(args: argparse.Namespace) -> int:
    import asyncio
    import tempfile

    from monitor.compare.ladder import Ladder, build_ladder
    from monitor.publish.jsonl import JsonlSink
    from monitor.publish.prometheus import MonitorMetrics
    from monitor.runtime.heap import settle_heap
    from monitor.runtime.pipeline import Pipeline
    from monitor.runtime.workers import ScoringPool
    from monitor.sources.service import demo_dir, serve

    server_flags = {
        "host": args.host, "http_port": args.http_port, "grpc_port": args.grpc_port,
        "tls_cert": args.tls_cert, "tls_key": args.tls_key, "trusted_network": args.trusted_network or None,
        "workers": args.workers,
    }  # fmt: skip
    flags: dict[str, Any] = {"server": {k: v for k, v in server_flags.items() if v is not None}}
    flags.update(_service_flags(args))
    if args.demo:  # each recording is sent whole, in one request: its end marker closes it at once
        flags["windows"] = {"end_marker_grace_s": 0}
    config = load_settings(args.config, flags)
    gold = args.gold or (demo_dir() / "gold" if args.demo else None)
    references = load_references(gold)
    policies = load_policies(args.policy or (demo_dir() / "policy.yaml" if args.demo else None))
    pool = None
    if config.server.workers > 1:  # the workers load the models; this process decodes and publishes
        pool = ScoringPool(config, references, policies, config.server.workers)
        ladder = Ladder(config, None)
    else:
        ladder = build_ladder(config)  # loads the model before the receivers accept anything
    logging.getLogger("monitor").setLevel(logging.INFO)
    sink = JsonlSink(args.out)
    publish: Callable[[dict[str, Any]], None] = sink
    if args.demo and args.out is None and sys.stdout.isatty():  # a person watching: headlines, JSONL aside
        sink = JsonlSink(Path(tempfile.mkdtemp(prefix="agent-monitor-demo-")) / "reports.jsonl")
        publish = _Headlines(sink)
        print(
            f"demo: one line per conversation below; the JSONL reports go to {sink.path}\n"
            f"      see them turn by turn: agent-monitor show {sink.path}  (--html page.html for a page)",
            flush=True,
        )
    metrics = MonitorMetrics(config.server.max_label_values)
    events = _evaluation_events(config)
    pipeline = Pipeline(config, ladder, references, publish, metrics, policies, pool=pool, events=events)
    settle_heap()
    try:
        asyncio.run(serve(config.server, pipeline, demo=args.demo))
    except OSError as exc:  # e.g. TLS files unreadable; a port that cannot be bound is named by `serve`
        raise InputError(f"{config.server.host}", f"cannot start the receivers ({exc})") from exc
    finally:
        pipeline.close()
        sink.close()
        if events is not None:
            events.close()
    return EXIT_OK


def _cmd_consume(args: argparse.Namespace) -> int:
    import os
    import socket

    from monitor.compare.ladder import build_ladder
    from monitor.publish.prometheus import MonitorMetrics
    from monitor.runtime.heap import settle_heap
    from monitor.runtime.pipeline import Pipeline
    from monitor.sources.service import consume

    flags: dict[str, Any] = {"kafka": {"bootstrap_servers": args.bootstrap}} if args.bootstrap else {}
    config = load_settings(args.config, {**flags, **_service_flags(args)})
    replica = args.replica or f"{socket.gethostname()}-{os.getpid()}"
    references, policies = load_references(args.gold), load_policies(args.policy)
    logging.getLogger("monitor").setLevel(logging.INFO)
    metrics = MonitorMetrics(config.server.max_label_values)
    events = _evaluation_events(config)
    pipeline = Pipeline(
        config, build_ladder(config), references, lambda r: None, metrics, policies, events=events
    )
    settle_heap()
    try:
        failures = consume(config, pipeline, replica, args.stage)
    finally:
        if events is not None:
            events.close()
    if failures:
        print(f"agent-monitor: consume stopped: {'; '.join(failures)}", file=sys.stderr)
        return 3
    return EXIT_OK


# -- replay -----------------------------------------------------------------------------------


def load_references(path: Path | None) -> dict[str, Any]:
    """Gold dialogs by dialog_id; a bad reference file stops the start (exit 2) with its location."""
    from monitor.reference.golden import load_dialogs

    if path is None:
        return {}
    loaded = load_dialogs(path)
    if loaded.errors:
        raise InputError(str(path), "bad gold references:\n" + "\n".join(loaded.errors))
    return {d.dialog_id: d for d in loaded.dialogs}


def _service_options(parser: argparse.ArgumentParser) -> None:
    """The options `run`, `replay` and `consume` share (read back by `_service_flags`)."""
    parser.add_argument(
        "--no-builtin-policy",
        action="store_true",
        help="leave a conversation with neither gold nor a policy unscored (default: the built-in policy "
        "scores it: span schemas, grounding, tool errors, duplicate calls)",
    )
    parser.add_argument(
        "--evaluation-events",
        metavar="URL",
        help="send each verdict as an OTLP gen_ai.evaluation.result event on the span it judges, to this "
        "OTLP/HTTP base URL (records go to URL/v1/logs; config: evaluation_events.*)",
    )


def _service_flags(args: argparse.Namespace) -> dict[str, Any]:
    """`--no-builtin-policy` and `--evaluation-events` as settings flags (absent: the config file or the
    environment decides)."""
    flags: dict[str, Any] = {"builtin_policy": False} if args.no_builtin_policy else {}
    if args.evaluation_events:
        flags["evaluation_events"] = {"endpoint": args.evaluation_events, "protocol": "http/protobuf"}
    return flags


def _evaluation_events(config: ScoringConfig) -> Any:
    """The evaluation events' exporter when `evaluation_events.endpoint` is set, else None."""
    if not config.evaluation_events.endpoint:
        return None
    from monitor.publish.evaluation_events import EvaluationEvents

    return EvaluationEvents(config.evaluation_events)


def load_policies(path: Path | None) -> dict[str, Any]:
    """Policies by agent; a bad policy file stops the start (exit 2) with its lines and keys."""
    from monitor.reference import policy

    return policy.load_policies(path) if path is not None else {}


def _cmd_replay(args: argparse.Namespace) -> int:
    import time

    from monitor.compare.ladder import build_ladder
    from monitor.publish.jsonl import JsonlSink
    from monitor.runtime.heap import settle_heap
    from monitor.runtime.pipeline import Pipeline
    from monitor.sources.files import read_payloads

    # the whole input has arrived when it is read: an end marker closes its conversation at once
    config = load_settings(args.config, {**_service_flags(args), "windows": {"end_marker_grace_s": 0}})
    references = load_references(args.gold)
    policies = load_policies(args.policy)
    sink = JsonlSink(args.out)
    # arrival time in a replay: the whole input arrives at once, in file order, at the instant the replay
    # starts. Nothing closes by inactivity or age while reading (recorded gaps are not replayed), so each
    # conversation closes on its end marker, on eviction at windows.max_open, or at the end of the input.
    started_ns = time.time_ns()
    events = _evaluation_events(config)
    pipeline = Pipeline(
        config, build_ladder(config), references, sink, policies=policies, clock=lambda: started_ns,
        events=events,
    )  # fmt: skip
    settle_heap()
    bad = shown = 0
    try:
        for payload in read_payloads(args.files, config.server.max_request_bytes):
            try:
                if payload.error is not None:
                    raise InputError(payload.origin, payload.error)
                result = pipeline.ingest(payload.data, payload.content_type, payload.origin, payload.signal)
            except InputError as exc:
                bad += 1
                print(f"agent-monitor: bad input: {exc}", file=sys.stderr)
                continue
            for problem in result.problems:
                shown += 1
                if shown <= MAX_SHOWN:
                    print(f"agent-monitor: span not used: {problem}", file=sys.stderr)
        pipeline.flush()
    finally:
        sink.close()
        if events is not None:
            events.close()  # sends what is queued, within the exporter's timeout
    if events is not None:
        sent, dropped = (int(events.counts()[f"evaluation_events_{k}"]) for k in ("sent", "dropped"))
        print(
            f"evaluation events: {sent} sent to {config.evaluation_events.endpoint}, {dropped} dropped",
            file=sys.stderr,
        )
    if shown > MAX_SHOWN:
        print(f"agent-monitor: … and {counted(shown - MAX_SHOWN, 'more span')} not used", file=sys.stderr)
    for failure in pipeline.failures:
        print(f"agent-monitor: not scored: {failure}", file=sys.stderr)
    st = pipeline.stats
    errors = sum(v for k, v in st.items() if k.startswith("pipeline_errors:"))
    print(
        f"replayed {counted(st['requests'], 'request')}, {counted(st['spans_received'], 'span')}: "
        f"{counted(st['conversations_reported'], 'conversation report')} ({st['conversations_scored']} scored, "
        f"{st['conversations_unscored']} without a reference or policy, or not scorable); "
        f"{counted(bad, 'bad payload')}, {counted(st['spans_rejected_no_id'], 'span without ids')}, "
        f"{counted(st['spans_rejected_unreadable'], 'unreadable span')}, {counted(errors, 'pipeline error')}",
        file=sys.stderr,
    )
    return EXIT_BAD_INPUT if bad or errors or st["spans_rejected_unreadable"] else EXIT_OK


# -- show -------------------------------------------------------------------------------------


def _cmd_show(args: argparse.Namespace) -> int:
    import os

    from monitor.view.html import render_html
    from monitor.view.reports import read_reports, select
    from monitor.view.terminal import render_text

    loaded = read_reports(args.reports)
    for problem in loaded.problems:
        print(f"agent-monitor: bad input: {problem}", file=sys.stderr)
    shown = select(loaded.conversations, args.conversation, args.failed, args.release)
    sources = ", ".join(str(p) for p in args.reports)
    if not shown:
        print(
            f"agent-monitor: no conversation matches, of {len(loaded.conversations)} in {sources}",
            file=sys.stderr,
        )
    if args.html:
        _write(args.html, render_html(shown, sources))
        failed = sum(s.failed for s in shown)
        print(f"wrote {args.html}: {counted(len(shown), 'conversation')}, {failed} failed", file=sys.stderr)
    elif shown:
        sys.stdout.write(render_text(shown, colour=sys.stdout.isatty() and "NO_COLOR" not in os.environ))
    return EXIT_BAD_INPUT if loaded.problems else EXIT_OK


# -- gate -------------------------------------------------------------------------------------


def _cmd_gate(args: argparse.Namespace) -> int:
    from monitor.gate import run_gate

    config = load_settings(args.config).gate
    overrides = {
        "max_success_drop_points": args.max_drop_points,
        "max_reason_rise": args.max_reason_rise,
        "warn_latency_rise": args.warn_latency_rise,
    }
    try:
        config = type(config).model_validate(
            {**config.model_dump(), **{k: v for k, v in overrides.items() if v is not None}}
        )
    except ValidationError as exc:
        raise InputError("gate flags", "\n" + format_validation_error(exc)) from exc
    result = run_gate(_read_aggregate(args.baseline), _read_aggregate(args.report), config)
    print(f"baseline {args.baseline}  ->  report {args.report}")
    for line in result.diff:
        print("  " + line)
    for w in result.warnings:
        print(f"WARNING: {w}")
    for f in result.failures:
        print(f"FAIL: {f}")
    print("gate: PASS" if result.passed else "gate: FAIL")
    return EXIT_OK if result.passed else EXIT_REGRESSION


def _read_aggregate(path: Path) -> AggregateReport:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(str(path), f"cannot read ({exc.strerror})") from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(str(path), f"not a JSON report ({exc})") from exc
    if isinstance(data, dict) and "aggregate" in data:
        data = data["aggregate"]
    try:
        return AggregateReport.model_validate(data)
    except ValidationError as exc:
        raise InputError(
            str(path), "not an agent-monitor score report:\n" + format_validation_error(exc, "aggregate")
        ) from exc


# -- calibrate --------------------------------------------------------------------------------


def _cmd_calibrate(args: argparse.Namespace) -> int:
    from monitor.compare.calibration import (
        accuracy_table,
        calibrate,
        dump_json,
        load_pairs,
        report_table,
        thresholds_document,
    )
    from monitor.compare.ladder import build_ladder

    config = load_settings(args.config)
    pairs = load_pairs(args.pairs)
    reports, accuracy = calibrate(pairs, build_ladder(config), held_apart=not args.fit_on_all)
    print(report_table(reports))
    print()
    print(accuracy_table(accuracy))
    if args.out:
        _write(args.out, dump_json(reports, accuracy) + "\n")
    if args.write_config:
        existing: dict[str, Any] = {}
        if args.write_config.is_file():
            existing = yaml.safe_load(args.write_config.read_text(encoding="utf-8")) or {}
        section = existing.get("thresholds", {}) if isinstance(existing.get("thresholds"), dict) else {}
        section.update(thresholds_document(reports)["thresholds"])
        existing["thresholds"] = section
        ScoringConfig.model_validate(existing)  # refuse to write a config that would not load
        _write(args.write_config, yaml.safe_dump(existing, sort_keys=False))
        print(f"thresholds written to {args.write_config}")
    return EXIT_OK


# -- export-model -----------------------------------------------------------------------------


def _cmd_export(args: argparse.Namespace) -> int:
    from monitor.export.onnx_export import export_model

    result = export_model(args.source_dir, args.out, quantize=args.quantize, model_id=args.model_id)
    print(f"exported to {result.out_dir}")
    print(f"  fp32 vs PyTorch: min cosine {result.min_cosine_fp32:.6f}")
    if result.min_cosine_int8 is not None:
        print(f"  int8 vs fp32:    min cosine {result.min_cosine_int8:.4f}")
    return EXIT_OK


def _write(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(str(path), f"cannot write ({exc.strerror})") from exc


__all__ = ["CompositionConfig", "main"]
