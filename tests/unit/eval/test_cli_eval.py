"""The eval/bench command line: listing, bad input (exit code 2), bench wiring."""

from __future__ import annotations

import json

from labourcrew.cli import _load_extensions, build_parser, main


def test_list_configs_json(capsys):
    assert main(["eval", "--list-configs", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert "full" in {c["name"] for c in out["configs"]}
    assert set(out["suite"]) == {"baselines", "retrieval", "chunking", "hop_depth", "gate", "orchestration"}


def test_bad_input_exits_2(capsys):
    assert main(["eval", "--config", "nope", "--no-write", "--json"]) == 2
    assert main(["eval", "--suite", "tiny"]) == 2
    assert main(["eval", "--group", "gate"]) == 2
    assert main(["eval", "--split", "report", "--limit", "0", "--no-write"]) == 2
    assert "error:" in capsys.readouterr().err


def test_eval_on_a_training_schema_file_names_the_retrieval_benchmark(capsys):
    from labourcrew.relevance.dataset import RELEVANCE_DEV_DIR

    part = str(RELEVANCE_DEV_DIR / "part_G.jsonl")
    assert main(["eval", "--dataset", part, "--no-write", "--json"]) == 2
    err = capsys.readouterr().err
    assert f"bench retrieval --dataset {part}" in err and "Traceback" not in err
    assert err.index("প্রশিক্ষণ") < err.index("training-schema")
    assert main(["eval", "--dataset", str(RELEVANCE_DEV_DIR), "--no-write"]) == 2  # a folder: a message, no crash


def test_bench_keeps_retrieval_and_adds_board():
    _load_extensions()
    p = build_parser()
    assert p.parse_args(["bench", "--json"]).func.__name__ == "cmd_bench"
    assert p.parse_args(["bench", "board", "--board-items", "3"]).bench_part == "board"
    assert p.parse_args(["bench", "retrieval"]).func.__name__ == "cmd_bench_retrieval"
    assert p.parse_args(["bench", "--json"]).llm_limit == 3
    args = p.parse_args(["bench", "llm", "--llm-limit", "2", "--json"])
    assert (args.func.__name__, args.bench_part, args.llm_limit) == ("cmd_bench", "llm", 2)


def test_bench_llm_without_an_endpoint_or_with_a_bad_limit_exits_2(capsys):
    assert main(["bench", "llm", "--llm-limit", "0"]) == 2
    assert "--llm-limit must be >= 1" in capsys.readouterr().err
    assert main(["bench", "llm", "--json"]) == 2  # nothing configured: says what to set, opens nothing
    err = capsys.readouterr().err
    assert "LABOURCREW_LLM__BASE_URL" in err and "LABOURCREW_LLM__MODEL" in err and "Traceback" not in err


def test_ragas_is_skipped_cleanly(monkeypatch):
    from labourcrew.eval.ragas_extra import judge_config, ragas_metrics

    assert judge_config() is None
    assert "no judge endpoint" in ragas_metrics([], [])["skipped"]
    monkeypatch.setenv("LABOURCREW_EVAL_JUDGE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("LABOURCREW_EVAL_JUDGE_MODEL", "judge")
    assert judge_config()["model"] == "judge"
    out = ragas_metrics([], [])
    assert set(out) == {"skipped"}  # ragas missing, or nothing to judge: never an exception


def test_calibrate_fit_dry_run_says_how_much_evidence_the_closed_gate_lacks(capsys):
    # The committed calibration set and labels: the record fails closed, and the fit says whether more
    # labels of the same kind would open it (and how far) or the score must improve.
    assert main(["calibrate", "fit", "--dry-run", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    rec = out["record"]
    if rec["tau"] is not None and rec["tau"] != float("inf") and rec.get("note") is None:
        assert "evidence_needed" not in out  # a passing record needs no extrapolation
        return
    need = out["evidence_needed"]
    assert need["text"]
    if need.get("factor") is not None:
        assert need["factor"] >= 1.0 and need["n_questions"] == out["questions"]
        assert need["n_questions_needed"] >= need["n_questions"] and 0 < need["n_release"] <= need["n_questions"]


def test_calibrate_fit_leads_with_a_summary_a_person_reads(capsys):
    assert main(["calibrate", "fit", "--dry-run"]) == 0
    text = capsys.readouterr().out
    head, _, record = text.partition("\n\nthe record:\n")
    assert head.startswith("τ̂ = ") and "questions" in head and head.rstrip().endswith("dry run: nothing written")
    out = json.loads(record)  # the whole record follows, unchanged
    if out["record"]["note"]:
        assert "why: " + out["record"]["note"] in head
    if "evidence_needed" in out:
        assert out["evidence_needed"]["text"] in head
