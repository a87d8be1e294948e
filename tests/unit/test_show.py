"""`agent-monitor show` through the real CLI: what a person reads in the terminal and in the HTML page."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from monitor.cli import main
from tests.conftest import ROOT

ARTICLE_REPORT = ROOT / "tests" / "golden" / "expected" / "article_sales_report.report.json"
HOSTILE = "</script><script>alert(1)</script><img src=x onerror=alert(2)>"


def article() -> dict[str, Any]:
    dialog: dict[str, Any] = json.loads(ARTICLE_REPORT.read_text())["dialogs"][0]
    return dialog


def streamed(
    conversation_id: str, *, spans: int = 12, version: int = 1, release: str = "1.4.0", **over: Any
) -> str:
    """A `run`/`replay` report line: the dialog report's fields at the top level, plus the stream's."""
    line = {"conversation_id": conversation_id, "agent": "reports-agent", "release": release, "version": version,
            "scored": True, **article(), "dialog_id": conversation_id, "spans": spans, **over}  # fmt: skip
    return json.dumps(line)


def passing(conversation_id: str, **over: Any) -> str:
    data = json.loads(streamed(conversation_id, **over))
    data["test_pass"], data["turns"] = True, [t for t in data["turns"] if t["success"]]
    return json.dumps(data)


def show(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["show", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_articles_example_reads_as_one_root_and_three_cascades(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = show(capsys, str(ARTICLE_REPORT))
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert "sales-report-eu" in lines[0]
    assert "turn 2 (inconsistent_parameter_values) broke; turns 3–5 only inherited it (cascade)" in lines[0]
    row = {int(m.group(1)): line for line in lines if (m := re.match(r"\s+(\d+)  ", line))}
    assert "ROOT CAUSE" in row[2] and 'reports.FilterData(metric="profit", region="EU")' in row[2]
    assert "metric: gold 'revenue', got 'profit'" in row[2]
    for later in (3, 4, 5):
        assert "cascade ← 2" in row[later] and "prior_action_failed" in row[later]
    assert "dataset_id: gold 'ds_eu_revenue_2024'" in row[3]
    assert "pass ≈" in row[1]  # the paraphrased question was decided in the uncertain band
    assert lines[-1].startswith("≈ uncertain: a comparison in the band")
    assert "\x1b[" not in out  # not a terminal: no colours


def test_streamed_reports_are_deduped_and_filtered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reports = tmp_path / "r.jsonl"
    reports.write_text(
        "\n".join([
            passing("conv-a", spans=8),            # cut short: fewer spans than the re-report below
            streamed("conv-b", release="1.5.0"),
            streamed("conv-a", spans=12, version=1),
            passing("conv-a", spans=12, version=1),  # same spans and version: the later line counts
            streamed("conv-c", spans=12, version=3),
            passing("conv-c", spans=12, version=2),  # a lower version never wins
        ]) + "\n"
    )  # fmt: skip
    code, out, _ = show(capsys, str(reports))
    assert code == 0
    heads = [line for line in out.splitlines() if line.startswith("━━")]
    assert [h.split()[1] for h in heads] == ["conv-a", "conv-b", "conv-c"]
    assert "PASS" in heads[0] and "FAIL" in heads[1] and "FAIL" in heads[2]
    assert f"{reports}:4" in out and f"{reports}:5" in out  # where each shown report came from

    _, out, _ = show(capsys, str(reports), "--failed")
    assert [h.split()[1] for h in out.splitlines() if h.startswith("━━")] == ["conv-b", "conv-c"]
    _, out, _ = show(capsys, str(reports), "--release", "1.5.0")
    assert [h.split()[1] for h in out.splitlines() if h.startswith("━━")] == ["conv-b"]
    _, out, _ = show(capsys, str(reports), "--conversation", "conv-c")
    assert "release 1.4.0" in out and "conv-b" not in out
    code, out, err = show(capsys, str(reports), "--conversation", "nope")
    assert code == 0 and out == "" and f"no conversation matches, of 3 in {reports}" in err


def test_bad_lines_are_named_and_the_rest_is_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reports = tmp_path / "r.jsonl"
    bad_turn = json.loads(streamed("conv-x"))
    bad_turn["turns"][1]["turn_no"] = "two"
    reports.write_text(
        "\n".join([streamed("conv-a"), "{not json", "[1, 2]", json.dumps(bad_turn), '{"x": 1}'])
    )
    code, out, err = show(capsys, str(reports), str(tmp_path / "missing.jsonl"))
    assert code == 2
    assert "Traceback" not in err
    assert f"{reports}:2: not JSON" in err
    assert f"{reports}:3: not a report (a JSON list" in err
    assert f"{reports}:4: not a dialog report (turns.1.turn_no:" in err
    assert f"{reports}:5: not an agent-monitor report" in err
    assert f"{tmp_path / 'missing.jsonl'}: cannot read (No such file or directory)" in err
    assert "conv-a" in out and "conv-x" not in out


def test_an_unscored_conversation_shows_what_the_agent_did(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reports = tmp_path / "r.jsonl"
    observed = [{"turn_no": 1, "role": "Tool", "type": "action", "error": "timeout",
                 "predicted": {"tool_id": "lookup", "action": "lookup", "args": {"id": 7}}}]  # fmt: skip
    line = {"conversation_id": "c1", "agent": "a", "release": None, "reference_id": None, "version": 1,
            "scored": False, "unscored_reason": "no_reference", "spans": 3, "observed_turns": observed}  # fmt: skip
    reports.write_text(json.dumps(line) + "\n")
    code, out, _ = show(capsys, str(reports))
    assert code == 0
    assert "not scored (no_reference)" in out
    assert re.search(r"1  Tool\s+lookup\(id=7\)\s+not scored\s+timeout", out)


def test_the_html_page_is_self_contained(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "out" / "r.html"
    code, out, err = show(capsys, str(ARTICLE_REPORT), "--html", str(page))
    assert code == 0 and out == "" and f"wrote {page}: 1 conversation, 1 failed" in err
    html = page.read_text()
    assert "default-src 'none'" in html  # the page may fetch nothing
    assert not re.search(r"<(link|img|iframe)\b|\bsrc=", html)
    assert html.count("<script>") == 1
    assert len(re.findall(r"<path class='arrow' data-from='[345]' data-to='2'", html)) == 3
    assert "data-turn='2' data-verdict='root'" in html


def test_agent_content_cannot_inject_html(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = copy.deepcopy(article())
    data["turns"][0]["predicted"]["response"] = HOSTILE
    data["turns"][1]["comparisons"][0]["gold"] = HOSTILE
    data["turns"][1]["detail"] = HOSTILE
    reports = tmp_path / "r.jsonl"
    reports.write_text(
        streamed(
            "<b>conv</b>",
            release="'><svg onload=alert(3)>",
            **{k: v for k, v in data.items() if k != "dialog_id"},
        )
        + "\n"
        + streamed("other")
        + "\n"
    )
    page = tmp_path / "r.html"
    assert show(capsys, str(reports), "--html", str(page))[0] == 0
    html = page.read_text()
    assert (
        html.count("<script>") == 1 and "<img" not in html and "<svg onload" not in html and "<b>" not in html
    )
    assert "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;" in html
    assert "data-release='&#x27;&gt;&lt;svg onload=alert(3)&gt;'" in html


def test_the_turns_a_table_leaves_out_are_named_with_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The user's messages have no row, nor has a reply no gold turn asks for: the table says which
    turns it leaves out and why, in the terminal and on the page."""
    data = json.loads(streamed("c1"))
    data["turns"] = [
        {**t, "turn_no": t["turn_no"] + 1, "live_turn_no": t["turn_no"] + 1} for t in data["turns"]
    ]
    roles = {1: "User", 2: "Agent", 3: "Tool", 4: "Tool", 5: "Tool", 6: "Agent", 7: "User", 8: "Agent"}
    data["observed_turns"] = [{"turn_no": n, "role": r} for n, r in roles.items()]
    data["unmatched"] = [{"live_turn_no": 8, "type": "response", "why": "reply_without_gold"}]
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(data) + "\n", encoding="utf-8")
    code, out, _ = show(capsys, str(path))
    assert code == 0
    assert "   not shown: turns 1, 7 (the user's messages); turn 8 (replies no gold turn asks for)" in out
    page = tmp_path / "r.html"
    show(capsys, str(path), "--html", str(page))
    assert "not shown: turns 1, 7 (the user&#x27;s messages); turn 8" in page.read_text()


def test_long_failure_names_wrap_between_their_words_on_the_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "r.html"
    show(capsys, str(ARTICLE_REPORT), "--html", str(page))
    html = page.read_text()
    assert "<div class='why'>inconsistent_<wbr>parameter_<wbr>values</div>" in html
    assert ".turn .why { font-weight: 600; overflow-wrap: break-word; }" in html  # not inside a word
