"""Role nodes with scripted fake backends: malformed output, refusals, retries, fallbacks, skeptic caps."""

from __future__ import annotations

import pytest

from labourcrew.board.run import ask
from labourcrew.errors import TransientRoleError
from labourcrew.ledger.records import ClaimCategory, ReleaseStatus, Side, Verdict
from labourcrew.ledger.roles import (
    AuditOutput,
    CounselOutput,
    ProposedCitation,
    ProposedClaim,
)
from labourcrew.llm.fakes import MALFORMED, REFUSAL, Malformed, ScriptedBackend

Q = "স্থায়ী শ্রমিক কত দিনের নোটিশ দিয়ে চাকরি থেকে ইস্তফা দিতে পারেন?"
SPAN = "কোন স্থায়ী শ্রমিক মালিককে ষাট দিনের লিখিত নোটিশ প্রদান করিয়া তাহার চাকুরী হইতে ইস্তফা দিতে পারিবেন"


def run(board, question: str = Q):
    return ask(question, board=board, save=False)


def test_malformed_output_is_retried_then_succeeds(make_board, offline) -> None:
    fake = ScriptedBackend({"counsel:worker": [MALFORMED]}, fallback=offline)
    r = run(make_board(fake))
    s = r.role_status["worker_counsel"]
    assert s["status"] == "retried" and s["retries"] == 1
    assert any(c.side == Side.WORKER for c in r.claims)
    assert r.status == ReleaseStatus.TGLO


def test_malformed_every_time_fails_the_role_and_degrades_the_run(make_board, offline) -> None:
    fake = ScriptedBackend({"counsel:worker": [MALFORMED, Malformed("{}x"), {"claims": "nope"}]}, fallback=offline)
    r = run(make_board(fake))
    s = r.role_status["worker_counsel"]
    assert s["status"] == "failed" and "malformed output" in s["error"]
    (failed,) = [c for c in r.role_calls if c.status.role == "worker_counsel" and c.status.status == "failed"]
    assert failed.status.attempts == 3  # role_retries = 2: three attempts, then the Supervisor records it
    assert r.role_status["legal_interpreter"]["status"] == "ok"  # the interpreter still ran, one-sided
    assert not any(c.side == Side.WORKER for c in r.claims)
    assert r.status in (ReleaseStatus.DEGRADED, ReleaseStatus.UNDECIDED)
    assert r.error is None


def test_a_refusal_is_not_retried(make_board, offline) -> None:
    fake = ScriptedBackend({"counsel:employer": [REFUSAL]}, fallback=offline)
    r = run(make_board(fake))
    s = r.role_status["employer_counsel"]
    assert s["status"] == "failed" and "PermanentRoleError" in s["error"]
    (failed,) = [c for c in r.role_calls if c.status.role == "employer_counsel" and c.status.status == "failed"]
    assert failed.status.attempts == 1
    assert r.status == ReleaseStatus.DEGRADED  # worker claims released, but a role failed


def test_a_bug_in_a_role_is_not_retried_and_the_run_goes_on(make_board, offline) -> None:
    fake = ScriptedBackend({"interpret": [ValueError("bug")]}, fallback=offline)
    r = run(make_board(fake))
    assert r.role_status["legal_interpreter"]["status"] == "failed"
    (failed,) = [c for c in r.role_calls if c.status.role == "legal_interpreter" and c.status.status == "failed"]
    assert failed.status.attempts == 1 and "ValueError: bug" in failed.status.error
    assert failed.stage == "counsel@r0d0"  # it ran beside the opening counsels, in their stage
    assert r.role_status["trust_gate"]["status"] == "ok"
    # A retrieval re-entry runs the interpreter again; that call succeeds.
    assert r.role_status["legal_interpreter"]["calls"] == r.rounds


def test_spotter_failure_falls_back_to_the_rule_based_spotter(make_board, offline) -> None:
    fake = ScriptedBackend({"spot_issues": [TransientRoleError("t1"), TransientRoleError("t2"), TransientRoleError("t3")]}, fallback=offline)
    r = run(make_board(fake))
    assert r.role_status["issue_spotter"]["status"] == "failed"
    call = next(c for c in r.role_calls if c.status.role == "issue_spotter")
    assert call.fallback == "rule-based issue spotter"
    assert r.question_type is not None and r.claims  # the board went on with the fallback spotting


def test_auditor_failure_counts_every_claim_of_the_round_as_unaudited(make_board, offline) -> None:
    fake = ScriptedBackend({"audit_batch": [REFUSAL] * 5}, fallback=offline)
    r = run(make_board(fake))
    failed = [c for c in r.role_calls if c.status.role == "trust_auditor" and c.status.status == "failed"]
    # One audit task covers the claims of every retrieval round (the evidence gap is closed first).
    assert failed and [c.claim_id for c in failed] == [c.claim_id for c in r.claims]
    assert len({c.retrieval_round for c in failed}) == 1 and sum(c.llm_calls for c in failed) <= 1
    assert all(c.fallback == "claim counts as NEI" for c in failed)
    assert not r.findings
    assert all(c.verdict is None and not c.accepted for c in r.claims)
    assert r.role_status["trust_auditor"]["status"] == "failed"
    assert r.status == ReleaseStatus.UNDECIDED


def test_skeptic_checks_overrule_a_backend_that_supports_a_wrong_number(make_board, offline) -> None:
    def wrong_days(inp):
        span_node = "2025:27(1)"
        return CounselOutput(claims=[ProposedClaim(
            text="স্থায়ী শ্রমিক ৩০ দিনের লিখিত নোটিশ দিয়ে ইস্তফা দিতে পারিবেন (ধারা ২৭(১))",
            citations=[ProposedCitation(node_id=span_node, span=SPAN)], confidence=0.99)])

    support = AuditOutput(verdict=Verdict.SUPPORT, category=ClaimCategory.TEMPORAL)
    fake = ScriptedBackend({"counsel:worker": [wrong_days], "audit": [support] * 20}, fallback=offline)
    r = run(make_board(fake))
    w1 = next(c for c in r.claims if c.claim_id == "w1")
    assert w1.verdict == Verdict.REFUTE and not w1.accepted
    assert r.findings["w1"].checks["skeptic.numbers_match"] is False
    assert "৩০ দিনের" not in r.opinion_bn


def test_gate_failure_releases_nothing(make_board, offline, monkeypatch: pytest.MonkeyPatch) -> None:
    import labourcrew.board.roles as roles

    def boom(*a, **k):
        raise RuntimeError("gate bug")

    monkeypatch.setattr(roles, "decide", boom)
    r = run(make_board(offline))
    assert r.status == ReleaseStatus.UNDECIDED and "Trust Gate failed" in r.status_reason
    assert r.role_status["trust_gate"]["status"] == "failed" and r.error is None
    assert "«" not in r.opinion_bn
