"""The command samples of the README and docs/, produced by running them: check or rewrite.

    .venv/bin/python -m tests.docs_samples            # check: exit 1 with a diff when a page is stale
    .venv/bin/python -m tests.docs_samples --write    # rewrite every sample with what the commands print

A sample is a fenced block (no language) whose first line starts with `$ `: each `$ command` line is
followed by what it printed (stdout and stderr, as a terminal shows them). `agent-monitor` runs this
tree's code (`python -m monitor`), `.venv/bin/python` this interpreter. Commands run in a scratch
folder that sees the repository's `tests`, `examples` and `monitor` (so relative paths read as in
the README, and what the commands write — `out/…` — never lands in the repository), with
`NO_COLOR` set. `agent-monitor run --demo` runs on a pseudo-terminal (its output for a person) until
every bundled conversation has its line, then gets Ctrl-C, shown as `^C`; its temporary folder and
its ports (the service runs on free ones) are written as on a default run.
"""

from __future__ import annotations

import argparse
import difflib
import os
import pty
import re
import select
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = ("README.md", "docs/*.md")
LINKED = ("tests", "examples", "monitor")  # what the samples' relative paths read
FENCE = re.compile(r"^```\n(\$ .*?)^```\n", re.M | re.S)
DEMO_LINE = re.compile(r"^\S+ +(PASS|FAIL|not scored)", re.M)  # the demo's line per conversation
DEMO_WAIT_S = 120  # a guard against a hung service, not a measurement
#: what a default demo run prints where this check's run differs: a random folder and free ports
CANONICAL = (
    (re.compile(r"agent-monitor-demo-\w+"), "agent-monitor-demo-XXXXXXXX"),
    (re.compile(r"(OTLP/HTTP on https?://[\w.]+:)\d+"), r"\g<1>4318"),
    (re.compile(r"(OTLP/gRPC on [\w.]+:)\d+"), r"\g<1>4317"),
    (re.compile(r"(metrics on https?://[\w.]+:)\d+"), r"\g<1>9464"),
)


@dataclass(frozen=True)
class Sample:
    page: Path
    start: int  # offset of the block's first `$` line in the page
    end: int  # offset of its closing fence
    text: str  # the block as the page has it


def samples(page: Path) -> list[Sample]:
    text = page.read_text(encoding="utf-8")
    return [Sample(page, m.start(1), m.end(1), m.group(1)) for m in FENCE.finditer(text)]


def produce(sample: Sample, scratch: Path) -> str:
    """The block as running its commands prints it."""
    out: list[str] = []
    for line in sample.text.splitlines():
        if line.startswith("$ "):
            command = line[2:]
            out.append(line)
            out.extend(run(command, scratch).splitlines())
    return "\n".join(out) + "\n"


def run(command: str, scratch: Path) -> str:
    argv = shlex.split(command)
    if argv[0] == "agent-monitor":
        argv = [sys.executable, "-m", "monitor", *argv[1:]]
    elif argv[0] == ".venv/bin/python":
        argv = [sys.executable, *argv[1:]]
    else:
        raise SystemExit(f"docs samples: cannot run {command!r} (only agent-monitor and .venv/bin/python)")
    env = {**os.environ, "NO_COLOR": "1", "PYTHONUNBUFFERED": "1"}
    env = {k: v for k, v in env.items() if not k.startswith("AGENT_MONITOR_")}
    if argv[3:5] == ["run", "--demo"]:
        return _demo(argv, scratch, env)
    done = subprocess.run(
        argv, cwd=scratch, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600
    )
    return done.stdout


def _demo(argv: list[str], scratch: Path, env: dict[str, str]) -> str:
    """`run --demo` on a terminal: read until each bundled conversation has its line, then Ctrl-C."""
    conversations = len(list((ROOT / "monitor" / "data" / "demo" / "traffic").glob("*.pb")))
    env = {
        **env,
        "AGENT_MONITOR_SERVER__HTTP_PORT": "0",
        "AGENT_MONITOR_SERVER__GRPC_PORT": "0",
        "AGENT_MONITOR_SERVER__METRICS_PORT": "0",
    }
    leader, follower = pty.openpty()
    process = subprocess.Popen(argv, cwd=scratch, env=env, stdin=follower, stdout=follower, stderr=follower)
    os.close(follower)
    text, interrupted = "", False
    deadline = time.monotonic() + DEMO_WAIT_S
    while True:
        if select.select([leader], [], [], 0.2)[0]:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal closed: the process is gone
                chunk = b""
            if not chunk:
                break
            text += chunk.decode("utf-8", "replace")
        verdicts = len(DEMO_LINE.findall(text))
        done = "demo: sent" in text and verdicts >= conversations
        if not interrupted and (done or time.monotonic() > deadline):
            time.sleep(0.5)  # let the last lines through before Ctrl-C
            process.send_signal(signal.SIGINT)
            interrupted = True
    process.wait(timeout=60)
    os.close(leader)
    out = []
    for line in text.replace("\r", "").splitlines():
        if "shutting down" in line:
            out.append("^C")
        for pattern, canonical in CANONICAL:
            line = pattern.sub(canonical, line)
        out.append(line)
    return "\n".join(out)


def scratch_dir() -> tempfile.TemporaryDirectory[str]:
    scratch = tempfile.TemporaryDirectory(prefix="docs-samples-")
    for name in LINKED:
        (Path(scratch.name) / name).symlink_to(ROOT / name)
    return scratch


def pages() -> list[Path]:
    return sorted({p for pattern in PAGES for p in ROOT.glob(pattern)})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="rewrite the samples instead of checking them")
    parser.add_argument(
        "pages", nargs="*", type=Path, help="only these pages (default: README.md, docs/*.md)"
    )
    args = parser.parse_args(argv)
    stale = 0
    with scratch_dir() as scratch:
        for page in [p.resolve() for p in args.pages] or pages():
            text = page.read_text(encoding="utf-8")
            rewritten, last = [], 0
            for sample in samples(page):
                produced = produce(sample, Path(scratch))
                rewritten += [text[last : sample.start], produced]
                last = sample.end
                if produced != sample.text:
                    stale += 1
                    name = page.relative_to(ROOT) if page.is_relative_to(ROOT) else page
                    diff = difflib.unified_diff(
                        sample.text.splitlines(), produced.splitlines(), f"{name} (page)", f"{name} (run)",
                        lineterm="",
                    )  # fmt: skip
                    print("\n".join(diff))
            if args.write:
                page.write_text("".join([*rewritten, text[last:]]), encoding="utf-8")
    if stale and not args.write:
        print(
            f"docs samples: {stale} stale; regenerate with `.venv/bin/python -m tests.docs_samples --write`"
        )
        return 1
    print(
        f"docs samples: {stale} rewritten" if args.write else "docs samples: every sample is what it prints"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
