"""ask()/stream(), the JSON contract, saved runs (stable, reloadable), batch, bad input."""

from __future__ import annotations

import json

import pytest

from labourcrew.board.run import (
    ask,
    ask_batch,
    list_runs,
    load_run,
    run_filename,
    stream,
    usage_by_round,
)
from labourcrew.errors import DataError, InputError
from labourcrew.ledger.records import ReleaseStatus, RoleStatus
from labourcrew.ledger.run import RoleCall
from labourcrew.llm.fakes import OneCallPerRole

Q = "স্থায়ী শ্রমিক কত দিনের নোটিশ দিয়ে চাকরি থেকে ইস্তফা দিতে পারেন?"
CONTRACT = {
    "status", "statute_version", "backends", "question_type", "evidence_pack", "hop_trace", "claims", "rejected_by_eep",
    "tau", "alpha", "opinion_bn", "role_status", "rounds", "latency_s", "settings_hash", "prompt_hashes", "run_id",
}
CLAIM_KEYS = {"claim_id", "side", "text", "category", "evidence", "verdict", "trust_score", "trust_components", "accepted",
              "rejection_reason"}


def test_result_carries_the_cli_contract(offline_board) -> None:
    r = ask(Q, board=offline_board, save=False)
    data = json.loads(r.to_json())
    assert CONTRACT <= set(data)
    assert data["claims"] and CLAIM_KEYS <= set(data["claims"][0])
    assert {"node_id", "section", "span"} <= set(data["claims"][0]["evidence"][0])
    assert data["backends"]["worker_counsel"] == "offline-extractive"
    assert data["backends"]["statute_retriever"] == "deterministic"
    assert data["role_status"]["issue_spotter"]["status"] == "ok"
    assert r.status == ReleaseStatus.TGLO and r.statute_version == "2025"
    assert any(e.section == "27" for c in r.accepted() for e in c.evidence)


def test_saved_runs_are_stable_and_reload(offline_board, tmp_path) -> None:
    r = ask(Q, board=offline_board, save=True, runs_dir=tmp_path)
    path = tmp_path / run_filename(r)
    assert path.is_file()
    again = load_run(path)
    assert again == r
    assert path.read_text(encoding="utf-8") == again.to_json() + "\n"  # byte-stable serialisation
    assert load_run(r.run_id, tmp_path) == r
    listed = list_runs(tmp_path)
    assert [s.run_id for s in listed] == [r.run_id] and listed[0].status == r.status.value
    with pytest.raises(DataError):
        load_run("no-such-run", tmp_path)


def test_fail_closed_without_calibration_says_so(make_board, offline, tmp_path) -> None:
    from labourcrew.gate.crc import load_calibration

    board = make_board(offline, calibration=load_calibration(tmp_path / "missing.json"), gate={"mode": "calibrated"})
    r = ask(Q, board=board, save=False)
    assert r.status == ReleaseStatus.UNDECIDED and r.tau == float("inf")
    assert json.loads(r.to_json())["tau"] == "inf"
    # the opinion says it in plain words; the status reason (the badge) carries τ = ∞
    assert "no calibration record" in r.calibration_note and "τ = ∞" in r.status_reason
    assert "কোনো ক্যালিব্রেশন নেই" in r.opinion_bn
    assert r.claims and not r.accepted()


def test_stream_yields_each_role_then_the_result(offline_board) -> None:
    events = list(stream(Q, board=offline_board, save=False))
    nodes = [n for n, _ in events[:-1]]
    assert nodes[0] == "issue_spotter" and "trust_gate" in nodes
    assert {"worker_counsel", "employer_counsel", "supervisor", "trust_auditor"} <= set(nodes)
    assert events[-1][0] == "result" and events[-1][1].status == ReleaseStatus.TGLO


@pytest.mark.parametrize("bad", ["", "   ", "???!!!", "ক" * 5000, None])
def test_bad_input_is_a_clear_error(offline_board, bad) -> None:
    with pytest.raises(InputError):
        ask(bad, board=offline_board, save=False)  # type: ignore[arg-type]


def test_unknown_version_is_a_clear_error(offline_board) -> None:
    with pytest.raises(InputError):
        ask(Q, version="1999", board=offline_board, save=False)


def test_batch_passes_fields_through_and_survives_bad_lines(offline_board) -> None:
    lines = [{"id": "a", "question_bn": Q, "category": "direct"}, {"id": "b", "question_bn": ""}, {"id": "c"}]
    out = list(ask_batch(lines, board=offline_board, save=False))
    assert out[0]["id"] == "a" and out[0]["category"] == "direct" and out[0]["status"] == "TGLO"
    assert out[1]["status"] is None and "empty" in out[1]["error"]
    assert out[2]["status"] is None and "question_bn" in out[2]["error"]


def test_usage_counts_sequential_calls_per_round() -> None:
    def call(role, stage, n, r=0):
        return RoleCall(status=RoleStatus(role=role, status="ok", attempts=1, latency_ms=1, backend="x"), stage=stage,
                        retrieval_round=r, llm_calls=n)

    calls = [call("issue_spotter", "s", 1), call("worker_counsel", "c", 1), call("employer_counsel", "c", 2),
             call("trust_auditor", "a", 1), call("trust_auditor", "a", 1), call("trust_auditor", "a", 1), call("x", "c", 1, r=1)]
    u = usage_by_round(calls)
    assert [(x.round, x.llm_calls, x.sequential_llm_calls) for x in u] == [(0, 7, 4), (1, 1, 1)]


def test_an_llm_shaped_backend_needs_at_most_six_sequential_calls_per_round(make_board, offline) -> None:
    r = ask(Q, board=make_board(OneCallPerRole(offline)), save=False)
    assert r.usage and all(u.sequential_llm_calls <= 6 for u in r.usage)
    assert r.usage[0].llm_calls > r.usage[0].sequential_llm_calls  # counsels and audits ran in parallel
