"""The Trust Auditor audits all claims of a round in one call; a malformed batch reply (bad ids,
raw text) falls back to one call per claim with the same findings; the extractive engine's batch
is its per-claim audit looped."""

from __future__ import annotations

import pytest

from labourcrew.board.run import ask
from labourcrew.ledger.records import ClaimCategory, Verdict
from labourcrew.ledger.roles import AuditBatchInput, AuditBatchOutput, AuditVerdict, batch_problems
from labourcrew.llm.fakes import MALFORMED, OneCallPerRole, ScriptedBackend

Q = "নৈমিত্তিক ছুটি বছরে কত দিন পাওয়া যায়?"


def _audits(r):
    return [c for c in r.role_calls if c.status.role == "trust_auditor"]


def test_one_auditor_call_per_round(make_board, offline) -> None:
    r = ask(Q, board=make_board(OneCallPerRole(offline)), save=False)
    audits = _audits(r)
    assert len(r.claims) >= 2 and len(audits) == r.rounds == len({c.retrieval_round for c in audits})
    assert all(c.llm_calls == 1 and c.claim_id is None and c.fallback is None for c in audits)
    assert set(r.findings) == {c.claim_id for c in r.claims}


def _drop_last(offline):
    def step(inp: AuditBatchInput) -> AuditBatchOutput:
        out, _ = offline.audit_batch(inp)
        return AuditBatchOutput(verdicts=out.verdicts[:-1])
    return step


def _duplicate(offline):
    def step(inp: AuditBatchInput) -> AuditBatchOutput:
        out, _ = offline.audit_batch(inp)
        return AuditBatchOutput(verdicts=[*out.verdicts, out.verdicts[0]])
    return step


def _extra(offline):
    def step(inp: AuditBatchInput) -> AuditBatchOutput:
        out, _ = offline.audit_batch(inp)
        ghost = AuditVerdict(claim_id="x9", verdict=Verdict.SUPPORT, category=ClaimCategory.FACTUAL)
        return AuditBatchOutput(verdicts=[*out.verdicts, ghost])
    return step


@pytest.mark.parametrize("bad", ["missing", "duplicate", "extra", "raw text"])
def test_a_malformed_batch_falls_back_to_per_claim_audits(make_board, offline, offline_board, bad) -> None:
    step = {"missing": _drop_last, "duplicate": _duplicate, "extra": _extra}.get(bad, lambda _: MALFORMED)(offline)
    fake = ScriptedBackend({"audit_batch": [step] * 5}, fallback=offline, llm_calls={"audit": 1, "audit_batch": 1})
    r = ask(Q, board=make_board(fake), save=False)
    want = ask(Q, board=offline_board, save=False)
    assert {k: f.verdict for k, f in r.findings.items()} == {k: f.verdict for k, f in want.findings.items()}
    first = _audits(r)[0]
    assert first.status.status == "ok" and first.fallback and "batch reply malformed" in first.fallback
    round0 = [c for c in r.claims if c.claim_id in r.findings]
    assert len(fake.records("audit")) >= min(len(round0), 1)  # the per-claim fallback ran, one call per claim


def test_batch_problems_name_missing_extra_and_duplicate_ids(offline, offline_board) -> None:
    r = ask(Q, board=offline_board, save=False)
    claims = [c for c in r.claims][:2]
    from labourcrew.ledger.records import Claim

    ledger = [Claim(claim_id=c.claim_id, side=c.side, text=c.text, evidence=[{"node_id": e.node_id, "span": e.span} for e in c.evidence], confidence=0.5) for c in claims]
    inp = AuditBatchInput(question=Q, claims=ledger, cited_texts={})
    v = lambda cid: AuditVerdict(claim_id=cid, verdict=Verdict.NEI, category=ClaimCategory.FACTUAL)  # noqa: E731
    a, b = (c.claim_id for c in ledger)
    assert batch_problems(inp, AuditBatchOutput(verdicts=[v(b), v(a)])) == []
    assert batch_problems(inp, AuditBatchOutput(verdicts=[v(a), v(a), v("z1")])) == [
        f"missing claim id(s) ['{b}']", "extra claim id(s) ['z1']", f"duplicate claim id(s) ['{a}']"]


def test_the_extractive_batch_is_its_per_claim_audit(offline, offline_board) -> None:
    r = ask(Q, board=offline_board, save=False)
    from labourcrew.ledger.records import Claim

    ledger = [Claim(claim_id=c.claim_id, side=c.side, text=c.text, evidence=[{"node_id": e.node_id, "span": e.span} for e in c.evidence], confidence=0.5) for c in r.claims]
    texts = {i.node_id: i.text for i in r.evidence_pack.items}
    inp = AuditBatchInput(question=Q, claims=ledger, cited_texts=texts)
    batch, _ = offline.audit_batch(inp)
    assert [v.claim_id for v in batch.verdicts] == [c.claim_id for c in ledger]
    assert [v.output() for v in batch.verdicts] == [offline.audit(inp.single(c))[0] for c in ledger]
