"""Evidence Exchange Protocol: no claim that survives cites an off-ledger node."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labourcrew.deliberation.eep import (
    LedgerView,
    claim_on_ledger,
    make_claim,
    make_claims,
)
from labourcrew.errors import EvidenceError
from labourcrew.ledger.records import (
    Claim,
    EvidenceItem,
    EvidencePack,
    EvidenceRef,
    RejectedClaim,
    Side,
)

NODE_POOL = [f"2025:{n}" for n in ("1", "2(10)", "27", "27(1)", "27(1).proviso1", "28", "ch10", "348A")] + [
    "2018:27",
    "en-2018:27",
]


def _pack(node_ids) -> EvidencePack:
    return EvidencePack(
        items=[
            EvidenceItem(node_id=n, section=None, level="section", text=f"text of {n}", channels=["dense"],
                         score=1.0, provenance=0.5)
            for n in node_ids
        ]
    )


def _fields(claim_id="w1", nodes=("2025:27",), **kw):
    base = dict(
        claim_id=claim_id, side="worker", text="notice is sixty days",
        evidence=[{"node_id": n, "span": "sixty days notice"} for n in nodes], confidence=0.6,
    )
    base.update(kw)
    return base


def test_on_ledger_claim_is_constructed():
    view = LedgerView(_pack(["2025:27", "2025:28"]))
    result = make_claim(view, **_fields(nodes=("2025:27", "2025:28")))
    assert isinstance(result, Claim)
    assert result.cited_node_ids() == ["2025:27", "2025:28"]


def test_off_ledger_citation_is_rejected_with_reason():
    view = LedgerView(_pack(["2025:27"]))
    result = make_claim(view, **_fields(nodes=("2025:27", "2025:99")))
    assert isinstance(result, RejectedClaim)
    assert result.code == "off_ledger"
    assert "2025:99" in result.reason and "2025:27" not in result.reason
    assert result.side is Side.WORKER
    assert result.attempted["evidence"][1]["node_id"] == "2025:99"


def test_public_strict_path_raises_evidence_error():
    view = LedgerView(_pack(["2025:27"]))
    with pytest.raises(EvidenceError):
        claim_on_ledger(view, **_fields(nodes=("2025:28",)))


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        (_fields(nodes=()), "empty_evidence"),
        (_fields(evidence=[{"node_id": "2025:27", "span": ""}]), "empty_span"),
        (_fields(evidence=[{"node_id": "2025:27", "span": " \n"}]), "empty_span"),
        (_fields(text=""), "empty_text"),
        (_fields(side="judge"), "invalid_shape"),
        (_fields(confidence=1.5), "invalid_shape"),
        (_fields(colour="red"), "invalid_shape"),
        (_fields(challenge_to="w1"), "self_challenge"),
        (_fields(challenge_to="e7"), "unknown_challenge"),
    ],
)
def test_shape_violations_are_rejected(fields, code):
    result = make_claim(LedgerView(_pack(["2025:27"])), **fields)
    assert isinstance(result, RejectedClaim)
    assert result.code == code
    assert result.reason
    assert RejectedClaim.from_json(result.stable_json()) == result


def test_batch_allows_challenges_to_earlier_claims_and_refuses_duplicates():
    view = LedgerView(_pack(["2025:27", "2025:28"]))
    attempts = [
        _fields("w1"),
        _fields("e1", side="employer", challenge_to="w1", nodes=("2025:28",)),
        _fields("w1"),  # duplicate id
        _fields("i1", side="interpreter", challenge_to="x9"),
    ]
    claims, rejected, after = make_claims(view, attempts)
    assert [c.claim_id for c in claims] == ["w1", "e1"]
    assert [r.code for r in rejected] == ["duplicate_claim_id", "unknown_challenge"]
    assert after.claim_ids == {"w1", "e1"}
    assert view.claim_ids == frozenset()  # the original view is unchanged


def test_check_rechecks_a_claim_built_without_ledger_context():
    stray = Claim(**_fields(nodes=("2025:99",)))  # reloading path: shape only
    with pytest.raises(EvidenceError, match="2025:99"):
        LedgerView(_pack(["2025:27"])).check(stray)
    LedgerView(_pack(["2025:99"])).check(stray)
    LedgerView(_pack(["2025:99"]), claims=[stray]).check(stray)  # re-checking an admitted claim
    challenger = Claim(**_fields("e1", nodes=("2025:99",), challenge_to="w9"))
    with pytest.raises(EvidenceError, match="w9"):
        LedgerView(_pack(["2025:99"]), claims=[stray]).check(challenger)


def test_attempt_with_unserialisable_objects_is_recorded_safely():
    result = make_claim(LedgerView(_pack(["2025:27"])), **_fields(nodes=(), extra=object()))
    assert isinstance(result, RejectedClaim)
    assert "object" in result.attempted["extra"]
    assert RejectedClaim.from_json(result.stable_json()) == result


def test_evidence_refs_as_objects_are_accepted():
    view = LedgerView(_pack(["2025:27"]))
    result = make_claim(view, **_fields(evidence=[EvidenceRef(node_id="2025:27", span="sixty days")]))
    assert isinstance(result, Claim)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    pack_nodes=st.sets(st.sampled_from(NODE_POOL), max_size=6),
    attempts=st.lists(
        st.fixed_dictionaries(
            {
                "cites": st.lists(st.sampled_from(NODE_POOL + ["2025:999", ""]), max_size=4),
                "span": st.sampled_from(["sixty days", "", "  ", "ষাট দিন"]),
                "confidence": st.floats(-0.5, 1.5, allow_nan=False),
                "side": st.sampled_from(["worker", "employer", "interpreter", "court"]),
            }
        ),
        min_size=1,
        max_size=6,
    ),
)
def test_no_surviving_claim_cites_off_ledger(pack_nodes, attempts):
    view = LedgerView(_pack(sorted(pack_nodes)))
    for i, a in enumerate(attempts):
        fields = dict(
            claim_id=f"c{i}", side=a["side"], text="t", confidence=a["confidence"],
            evidence=[{"node_id": n, "span": a["span"]} for n in a["cites"]],
        )
        result = make_claim(view, **fields)
        off = [n for n in a["cites"] if n not in pack_nodes]
        well_formed = (
            a["cites"] and "" not in a["cites"] and a["span"].strip() and 0 <= a["confidence"] <= 1
            and a["side"] != "court"
        )
        if isinstance(result, Claim):
            assert all(r.node_id in pack_nodes for r in result.evidence)
            assert not off and well_formed
        else:
            assert result.reason.strip()
            assert result.attempted["claim_id"] == f"c{i}"
            if well_formed and off:
                assert result.code == "off_ledger"
                assert all(n in result.reason for n in off)
            # completeness: a well-formed on-ledger claim is never refused
            assert not (well_formed and not off)
