"""Formal Case Ledger reducers: every key written by more than one node merges deterministically."""

from __future__ import annotations

import typing

from hypothesis import given
from hypothesis import strategies as st

from labourcrew.board.state import (
    CaseLedger,
    add_claims,
    add_rejected,
    add_requests,
    add_role_calls,
    aggregate_status,
    merge_by_claim,
    merge_packs,
    summarise_roles,
)
from labourcrew.ledger.audit import ClaimCheck
from labourcrew.ledger.records import (
    Claim,
    ClaimCategory,
    EvidenceItem,
    EvidencePack,
    EvidenceRef,
    HopTraceEntry,
    RejectedClaim,
    RoleStatus,
    TrustFinding,
    Verdict,
)
from labourcrew.ledger.roles import RetrievalRequest
from labourcrew.ledger.run import RoleCall
from labourcrew.statute.model import EdgeType, Level


def item(node: str, *, hop: int = 0, prov: float = 1.0, score: float = 1.0, channels=("dense",)) -> EvidenceItem:
    return EvidenceItem(
        node_id=node, section=node.split(":")[1].split("(")[0], level=Level.SUBSECTION, text=f"text of {node}",
        channels=list(channels), score=score, provenance=prov, hop_depth=hop, via="2025:1" if hop else None,
    )


def claim(cid: str, side: str = "worker") -> Claim:
    return Claim(claim_id=cid, side=side, text=f"claim {cid}", evidence=[EvidenceRef(node_id="2025:27(1)", span="some span")], confidence=0.5)


def call(role: str, status: str, attempts: int, *, llm: int = 0, stage: str = "s", r: int = 0) -> RoleCall:
    return RoleCall(
        status=RoleStatus(role=role, status=status, attempts=attempts, error="boom" if status == "failed" else None,
                          latency_ms=10.0, backend="offline-extractive"),
        stage=stage, retrieval_round=r, llm_calls=llm,
    )


def test_every_parallel_key_has_a_named_reducer() -> None:
    hints = typing.get_type_hints(CaseLedger, include_extras=True)
    reducers = {k: v.__metadata__[0].__name__ for k, v in hints.items() if typing.get_origin(v) is typing.Annotated}
    assert reducers == {
        "pack": "merge_packs",
        "claims": "add_claims",
        "rejected_by_eep": "add_rejected",
        "citation_checks": "merge_by_claim",
        "findings": "merge_by_claim",
        "retrieval_requests": "add_requests",
        "role_calls": "add_role_calls",
    }


def test_merge_packs_unions_by_node_keeping_the_more_direct_item() -> None:
    left = EvidencePack(items=[item("2025:27(1)"), item("2025:27(2)", hop=1, prov=0.8, channels=("hop",))],
                        hop_trace=[HopTraceEntry(source="2025:1", edge=EdgeType.CROSS_REF, target="2025:27(2)", depth=1)])
    right = EvidencePack(items=[item("2025:27(2)", channels=("lexical",)), item("2025:28")],
                         hop_trace=[HopTraceEntry(source="2025:1", edge=EdgeType.CROSS_REF, target="2025:27(2)", depth=1)])
    merged = merge_packs(left, right)
    assert [i.node_id for i in merged.items] == ["2025:27(1)", "2025:27(2)", "2025:28"]
    direct = merged.get("2025:27(2)")
    assert direct.hop_depth == 0 and direct.channels == ["lexical", "hop"]
    assert len(merged.hop_trace) == 1
    assert merge_packs(None, right) == right and merge_packs(left, None) == left


@given(st.lists(st.sampled_from(["2025:1", "2025:2", "2025:3", "2025:4"]), max_size=4, unique=True),
       st.lists(st.sampled_from(["2025:1", "2025:2", "2025:3", "2025:4"]), max_size=4, unique=True))
def test_merge_packs_is_a_union_and_idempotent(a: list[str], b: list[str]) -> None:
    pa, pb = EvidencePack(items=[item(n) for n in a]), EvidencePack(items=[item(n, score=0.5) for n in b])
    merged = merge_packs(pa, pb)
    assert merged.node_ids() == pa.node_ids() | pb.node_ids()
    assert merge_packs(merged, pb) == merged


def test_add_claims_appends_and_keeps_the_first_of_a_repeated_id() -> None:
    w1, e1 = claim("w1"), claim("e1", "employer")
    other_w1 = Claim(claim_id="w1", side="worker", text="different", evidence=w1.evidence, confidence=0.1)
    assert add_claims([w1], [e1, other_w1]) == [w1, e1]
    assert add_claims(None, [w1]) == [w1]


def test_add_rejected_and_requests_drop_exact_repeats() -> None:
    r = RejectedClaim(attempted={"claim_id": "w9"}, code="off_ledger", reason="cites 2025:999")
    assert add_rejected([r], [r]) == [r]
    q = RetrievalRequest(seeds=["2025:27(1)"])
    assert add_requests([q], [q, RetrievalRequest(seeds=["2025:46(1)"])]) == [q, RetrievalRequest(seeds=["2025:46(1)"])]


def test_merge_by_claim_parallel_keys_union_and_newer_replaces() -> None:
    f = lambda cid, v: TrustFinding(claim_id=cid, verdict=v, category=ClaimCategory.FACTUAL)  # noqa: E731
    out = merge_by_claim({"w1": f("w1", Verdict.NEI)}, {"w2": f("w2", Verdict.SUPPORT)})
    assert set(out) == {"w1", "w2"}
    assert merge_by_claim(out, {"w1": f("w1", Verdict.SUPPORT)})["w1"].verdict == Verdict.SUPPORT
    check = ClaimCheck(claim_id="w1", results=[])
    assert merge_by_claim({}, {"w1": check}) == {"w1": check}


def test_role_calls_summarise_to_the_worst_status_with_retries_counted() -> None:
    calls = add_role_calls([call("worker_counsel", "ok", 1)], [call("worker_counsel", "retried", 3), call("trust_auditor", "failed", 3)])
    summary = summarise_roles(calls)
    assert summary["worker_counsel"]["status"] == "retried"
    assert summary["worker_counsel"]["calls"] == 2 and summary["worker_counsel"]["attempts"] == 4
    assert summary["worker_counsel"]["retries"] == 2
    assert summary["trust_auditor"]["status"] == "failed" and summary["trust_auditor"]["error"] == "boom"
    status = aggregate_status(calls)
    assert status["trust_auditor"].status == "failed" and status["worker_counsel"].attempts == 4


def test_merge_packs_keeps_the_learned_scores_of_either_side() -> None:
    scored = item("2025:27(2)", hop=1, prov=0.8, channels=("hop",)).model_copy(
        update={"relevance": 0.4, "trust_relevance": 0.3})
    merged = merge_packs(EvidencePack(items=[scored]), EvidencePack(items=[item("2025:27(2)")]))
    kept = merged.get("2025:27(2)")
    assert kept.hop_depth == 0  # the more direct item wins ...
    assert (kept.relevance, kept.trust_relevance) == (0.4, 0.3)  # ... and keeps both learned scores
