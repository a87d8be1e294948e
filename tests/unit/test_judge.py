"""The optional LLM judge against a stub OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any, ClassVar

import pytest
from pydantic import SecretStr

from monitor.compare.embedder import OnnxEmbedder
from monitor.compare.judge import LlmJudge
from monitor.compare.ladder import Ladder
from monitor.config import JudgeConfig, ScoringConfig
from monitor.model import Rung


class _Stub(BaseHTTPRequestHandler):
    seen: ClassVar[list[dict[str, Any]]] = []
    #: pairs the stub calls equivalent
    EQUIVALENT: ClassVar[set[tuple[str, str]]] = {
        ("Q3 2024 revenue", "third quarter revenue figures for 2024")
    }

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.seen.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
        pair = json.loads(body["messages"][-1]["content"])
        verdict = (pair["gold"], pair["predicted"]) in self.EQUIVALENT
        content = json.dumps({"equivalent": verdict, "confidence": 0.9})
        payload = json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def stub_url() -> Iterator[str]:
    server = HTTPServer(("127.0.0.1", 0), _Stub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Stub.seen.clear()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()


def test_judge_resolves_the_uncertain_band(embedder: OnnxEmbedder, stub_url: str) -> None:
    config = ScoringConfig(judge=JudgeConfig(url=stub_url, api_key=SecretStr("sk-test")))
    ladder = Ladder(config, embedder, LlmJudge(config.judge))  # type: ignore[arg-type]
    c = ladder.compare("metric", "revenue", "expenses")
    assert c.rung is Rung.JUDGE and c.equal is False and c.uncertain is False
    assert c.score is not None  # the embedding score is kept for the report
    assert ladder.compare("p", "Q3 2024 revenue", "third quarter revenue figures for 2024").equal
    assert _Stub.seen[0]["path"] == "/v1/chat/completions" and _Stub.seen[0]["auth"] == "Bearer sk-test"


def test_exact_matches_never_reach_the_judge(embedder: OnnxEmbedder, stub_url: str) -> None:
    config = ScoringConfig(judge=JudgeConfig(url=stub_url))
    ladder = Ladder(config, embedder, LlmJudge(config.judge))  # type: ignore[arg-type]
    ladder.compare("city", "NYC", "New York City")
    ladder.compare("id", "A123", "A124")
    assert _Stub.seen == []


def test_unreachable_judge_falls_back_to_the_threshold_and_flags(embedder: OnnxEmbedder) -> None:
    config = ScoringConfig(judge=JudgeConfig(url="http://127.0.0.1:9/v1", timeout_s=1.0))
    judge = LlmJudge(config.judge)  # type: ignore[arg-type]
    c = Ladder(config, embedder, judge).compare("metric", "revenue", "expenses")
    assert c.rung is Rung.EMBEDDING and c.uncertain is True and c.equal is False
    assert "judge failed" in c.note and judge.errors == 1
