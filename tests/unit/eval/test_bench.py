"""The benchmark's board part end to end on a few items (lexical retrieval, no index): every
section present, targets listed with their measured values, nothing asserted on time."""

from __future__ import annotations

from labourcrew.eval.bench import TARGETS, format_bench, run_bench
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
