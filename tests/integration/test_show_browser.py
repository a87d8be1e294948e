"""`show --html` in a real browser: headless Chromium (Debian `chromium`, installed by .ci/test) opens the
page for the article's example and for a recorded Strands conversation, takes a screenshot and reads
the DOM after the page's own script ran: the root turn and the arrows from each cascade to it."""

from __future__ import annotations

import shutil
import struct
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from monitor.cli import main
from tests.conftest import ROOT
from tests.unit.test_show import ARTICLE_REPORT, HOSTILE, streamed

CHROMIUM = shutil.which("chromium")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Debian's chromium is not installed here (.ci/test installs it for CI)"
)
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync")  # fmt: skip
WINDOW = (1280, 720)


class Dom(HTMLParser):
    """Every element as (tag, attributes), in document order, and the text of the element with an id."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.text: dict[str, str] = {}
        self._open: str | None = None
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {k: v or "" for k, v in attrs}
        self.elements.append((tag, attributes))
        self._open = attributes.get("id")

    def handle_data(self, data: str) -> None:
        if self._open:
            self.text[self._open] = self.text.get(self._open, "") + data

    def find(self, tag: str, **attrs: str) -> list[dict[str, str]]:
        want = {k.rstrip("_").replace("_", "-"): v for k, v in attrs.items()}
        return [a for t, a in self.elements if t == tag and all(a.get(k) == v for k, v in want.items())]


def browse(page: Path, tmp: Path) -> tuple[Dom, Path]:
    """The DOM after load, and a screenshot of the first screen."""
    shot = tmp / (page.stem + ".png")
    base = [str(CHROMIUM), *FLAGS, f"--window-size={WINDOW[0]},{WINDOW[1]}", "--hide-scrollbars"]
    runs = (("dom", "--dump-dom"), ("shot", f"--screenshot={shot}"))
    out = {}
    for name, flag in runs:
        done = subprocess.run(
            [*base, f"--user-data-dir={tmp / ('profile-' + name)}", flag, page.as_uri()],
            capture_output=True, text=True, timeout=120, check=True,
        )  # fmt: skip
        out[name] = done.stdout
    return Dom(out["dom"]), shot


def png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    width, height = struct.unpack(">II", head[16:24])
    return width, height


def html_of(tmp: Path, *args: str) -> Path:
    page = tmp / "page.html"
    assert main(["show", *args, "--html", str(page)]) == 0
    return page


def cascade_arrows(dom: Dom, root: int) -> list[int]:
    return sorted(int(a["data-from"]) for a in dom.find("path", class_="arrow", data_to=str(root)))


def test_the_articles_example_in_chromium(tmp_path: Path) -> None:
    dom, shot = browse(html_of(tmp_path, str(ARTICLE_REPORT)), tmp_path)
    [root] = dom.find("li", data_verdict="root")
    assert root["data-turn"] == "2"
    assert [int(c["data-turn"]) for c in dom.find("li", data_verdict="cascade")] == [3, 4, 5]
    assert cascade_arrows(dom, 2) == [3, 4, 5]
    assert png_size(shot) == WINDOW and shot.stat().st_size > 30_000  # a drawn page, not a blank one


def test_a_recorded_strands_conversation_in_chromium(tmp_path: Path) -> None:
    reports = tmp_path / "r.jsonl"
    gold = ROOT / "monitor" / "data" / "demo" / "gold"
    replay = ["replay", str(ROOT / "tests" / "fixtures" / "otlp" / "strands"), "--gold", str(gold)]
    assert main([*replay, "--out", str(reports)]) == 0
    dom, shot = browse(html_of(tmp_path, str(reports)), tmp_path)
    assert [a["data-conv"] for a in dom.find("tr", data_failed="1")] == [""]  # the list view: one failed
    assert dom.text["f-count"] == "2 shown"  # the page's script ran: its CSP hash is right
    [root] = dom.find("li", data_verdict="root")
    assert root["data-turn"] == "4"  # filter_data(metric="profit") where gold says revenue
    assert cascade_arrows(dom, 4) == [5, 6]
    assert png_size(shot) == WINDOW


def test_injected_content_stays_text_in_chromium(tmp_path: Path) -> None:
    reports = tmp_path / "r.jsonl"
    reports.write_text(streamed("conv", release="'><img src=x onerror=alert(3)>", agent=HOSTILE) + "\n")
    dom, _ = browse(html_of(tmp_path, str(reports)), tmp_path)
    assert not dom.find("img") and len(dom.find("script")) == 1
