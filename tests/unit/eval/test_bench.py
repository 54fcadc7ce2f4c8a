"""The benchmark's board part end to end on a few items (lexical retrieval, no index): every
section present, targets listed with their measured values, nothing asserted on time; and the
endpoint part (the ``openai`` backend on a fake chat model against the offline default): counts,
ratios and the printed table."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from labourcrew.errors import ConfigError
from labourcrew.eval.bench import (
    ENDPOINT_METRICS,
    RELEASE_STATUSES,
    TARGETS,
    endpoint_skip_reason,
    format_bench,
    format_endpoint,
    run_bench,
    run_endpoint_bench,
)
from labourcrew.eval.runner import EvalResources
from labourcrew.ledger.roles import Role
from labourcrew.settings import load_settings


def test_bench_board_part(resources):
    settings = load_settings("offline")
    result = run_bench(
        settings=settings, retrieval=False, board_items=4, throughput_items=2, llm_items=2, resources=resources
    )
    board = result["board"]["offline"]
    assert board["n"] == 4 and board["p50_s"] is not None and board["p95_s"] >= board["p50_s"]
    assert "skipped" in result["board"]["openai"]
    calls = result["llm_calls"]
    assert calls["calls_per_question_mean"] > 0  # one call per language-role call
    assert calls["critical_path_per_question_mean"] <= calls["calls_per_question_mean"]
    assert result["memory"]["peak_rss_total_mb"] >= result["memory"]["peak_rss_self_mb"] > 0
    tp = result["throughput"]
    assert tp["workers_1"]["items_per_s"] > 0 and tp["workers_2"]["items_per_s"] > 0
    assert [t["target"] for t in result["targets"]] == list(TARGETS)
    assert all(t["met"] in (True, False, None) for t in result["targets"])
    text = format_bench(result)
    assert "Gate-Verified Citation Precision" in text and "peak RSS" in text


# ---------------------------------------------------------------- the endpoint against the offline default

_REPLIES = {
    Role.ISSUE_SPOTTER: {"question_type": "direct_factual", "language": "bn", "text_register": "formal",
                         "section_labels": [], "concepts": [], "sub_questions": [], "cues": []},
    Role.WORKER_COUNSEL: {"claims": []},
    Role.EMPLOYER_COUNSEL: {"claims": []},
    Role.LEGAL_INTERPRETER: {"governing_rule": None, "notes": ""},
    Role.TRUST_AUDITOR: {"verdicts": []},
}


class _FixedChat(BaseChatModel):
    """Answers its role with one fixed schema-valid reply (no claims), 700 tokens in, 9 out."""

    role: Role
    log: Any
    lock: Any

    @property
    def _llm_type(self) -> str:
        return "fixed-chat"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any) -> ChatResult:
        with self.lock:
            self.log.append(self.role)
        msg = AIMessage(content=json.dumps(_REPLIES[self.role]),
                        usage_metadata={"input_tokens": 700, "output_tokens": 9, "total_tokens": 709})
        return ChatResult(generations=[ChatGeneration(message=msg)])


def test_endpoint_part_compares_openai_with_the_offline_default(graph, lexical_port) -> None:
    settings = load_settings("offline", llm={"base_url": "http://127.0.0.1:9/v1", "model": "fake-model"},
                             gate={"mode": "categorical"})
    assert endpoint_skip_reason(settings) is None
    log: list[Role] = []
    lock = threading.Lock()
    res = EvalResources(settings, graph=graph, port=lexical_port,
                        chat_model_factory=lambda role: _FixedChat(role=role, log=log, lock=lock))
    out = run_endpoint_bench(settings=settings, llm_limit=2, resources=res)

    off, on = out["offline"], out["openai"]
    assert out["n"] == off["n"] == on["n"] == 2 and len(out["items"]) == 2
    assert on["backend"] == "openai:fake-model" and off["backend"] == "one-call-per-role"
    assert out["endpoint"] == "http://127.0.0.1:9/v1" and out["model"] == "fake-model"
    # every chat request the fake answered is in the record, with its tokens
    assert on["llm_calls_total"] == len(log) > 0
    assert (on["tokens_in_total"], on["tokens_out_total"]) == (700 * len(log), 9 * len(log))
    assert on["calls_per_question_mean"] == pytest.approx(len(log) / 2)
    assert 0 < on["critical_path_per_question_mean"] <= on["calls_per_question_mean"]
    assert off["calls_per_question_mean"] > 0 and off["tokens_in_total"] == 0  # structure counted, no tokens
    for side in (off, on):
        assert list(side["statuses"])[:3] == list(RELEASE_STATUSES) and sum(side["statuses"].values()) == 2
        assert side["questions_with_failed_roles"] == 0 and side["failed_roles"] == {}
        assert side["p95_s"] >= side["p50_s"] > 0
    # ratios are openai ÷ offline; the offline default spends no tokens, so those are undefined
    assert set(out["ratios"]) == set(ENDPOINT_METRICS)
    for key in ("calls_per_question_mean", "critical_path_per_question_mean", "p50_s", "p95_s"):
        assert out["ratios"][key] == pytest.approx(on[key] / off[key]), key
    assert out["ratios"]["tokens_in_per_question_mean"] is None
    assert out["ratios"]["tokens_out_per_question_mean"] is None

    text = format_endpoint(out)
    print("\n" + text)
    assert "openai ÷ offline" in text and "openai:fake-model" in text
    calls_row = next(line for line in text.splitlines() if ENDPOINT_METRICS["calls_per_question_mean"] in line)
    assert f"{off['calls_per_question_mean']:.2f}" in calls_row and f"{out['ratios']['calls_per_question_mean']:.2f}" in calls_row
    tokens_row = next(line for line in text.splitlines() if ENDPOINT_METRICS["tokens_in_per_question_mean"] in line)
    assert tokens_row.rstrip().endswith("n/a")


def test_endpoint_part_without_an_endpoint_says_why(resources) -> None:
    settings = load_settings("offline")
    reason = endpoint_skip_reason(settings)
    assert reason and "LABOURCREW_LLM__BASE_URL" in reason and "LABOURCREW_LLM__MODEL" in reason
    assert format_endpoint({"skipped": reason}).startswith("board openai: skipped")
    with pytest.raises(ConfigError, match="LABOURCREW_LLM__BASE_URL"):
        run_endpoint_bench(settings=settings, resources=resources)
