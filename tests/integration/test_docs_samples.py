"""The README and docs show what their commands print, and what they write stays out of git."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

import pytest

from tests import docs_samples

ROOT = Path(__file__).resolve().parents[2]


def test_every_sample_in_the_readme_and_docs_is_what_its_command_prints(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = docs_samples.main([])
    out = capsys.readouterr().out
    assert code == 0, out


def test_a_sample_edited_by_hand_is_caught(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "Text.\n\n```\n$ agent-monitor score examples/article_sales_report.json --out out/report.json\n"
        "1 dialog (passed 1, strict success 100.0%); 5 turns (success rate 100.0%)\n```\n",
        encoding="utf-8",
    )
    assert docs_samples.main([str(page)]) == 1
    out = capsys.readouterr().out
    assert "-1 dialog (passed 1, strict success 100.0%)" in out
    assert "+1 dialog (passed 0, strict success 0.0%)" in out
    assert docs_samples.main(["--write", str(page)]) == 0
    assert docs_samples.main([str(page)]) == 0
    assert page.read_text(encoding="utf-8").startswith("Text.\n\n```\n$ agent-monitor score")


def test_what_the_documented_commands_write_is_ignored_by_git() -> None:
    written = []
    for page in docs_samples.pages():
        for sample in docs_samples.samples(page):
            for line in sample.text.splitlines():
                if not line.startswith("$ "):
                    continue
                argv = shlex.split(line[2:])
                written += [argv[i + 1] for i, a in enumerate(argv[:-1]) if a in ("--out", "--html")]
    assert len(written) >= 6  # README: replay ×2, show --html, score; docs: score, gate baseline, replay
    for path in written:
        ignored = subprocess.run(["git", "check-ignore", "-q", path], cwd=ROOT, check=False)
        assert ignored.returncode == 0, f"{path} (written by a documented command) is not in .gitignore"
