"""Ledger records: shape rules, field descriptions, canonical JSON round-trips."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel, ValidationError

from labourcrew.errors import EvidenceError
from labourcrew.ledger import records as R
from labourcrew.ledger.records import (
    Claim,
    ClaimCategory,
    Direction,
    EvidenceItem,
    EvidencePack,
    EvidenceRef,
    HopTraceEntry,
    RejectedClaim,
    ReleaseStatus,
    RoleStatus,
    Side,
    TrustComponents,
    TrustFinding,
    Verdict,
    ledger_context,
)

BN_TEXT = "কোন শ্রমিক ষাট দিনের লিখিত নোটিশ দিয়া চাকুরি হইতে ইস্তফা দিতে পারিবেন৷"


def _item(node_id: str = "2025:27(1)", **kw) -> EvidenceItem:
    base = dict(
        node_id=node_id, section="27", level="subsection", text=BN_TEXT,
        channels=["dense", "lexical"], score=0.71, provenance=0.9,
    )
    base.update(kw)
    return EvidenceItem(**base)


def _claim(**kw) -> Claim:
    base = dict(
        claim_id="w1", side="worker", text="৬০ দিনের নোটিশ", confidence=0.7,
        evidence=[EvidenceRef(node_id="2025:27(1)", span="ষাট দিনের লিখিত নোটিশ")],
    )
    base.update(kw)
    return Claim(**base)


def _all_records() -> list[BaseModel]:
    pack = EvidencePack(
        items=[_item(), _item("2025:27(2)", hop_depth=1, via="2025:27(1)", channels=["hop"], provenance=0.2)],
        hop_trace=[HopTraceEntry(source="2025:27(1)", edge="parent", target="2025:27(2)", depth=1)],
    )
    return [
        pack,
        _claim(),
        RejectedClaim(attempted={"claim_id": "x", "evidence": []}, code="empty_evidence", reason="no evidence"),
        TrustFinding(
            claim_id="w1", verdict="NEI", category="temporal", direction="missing_condition",
            checks={"citations_valid": True, "numbers_match": False}, notes="ধারা ২৭ এর শর্ত বাদ",
        ),
        TrustComponents(citation_validity=1, span_fidelity=0.5, verdict_score=0.4, provenance=0.8, confidence=0.6),
        RoleStatus(role="worker_advocate", status="retried", attempts=2, error="timeout", latency_ms=1234.5,
                   tokens_in=800, tokens_out=120, backend="stub"),
    ]


@pytest.mark.parametrize("record", _all_records(), ids=lambda r: type(r).__name__)
def test_stable_json_round_trips_and_is_canonical(record):
    text = record.stable_json()
    again = type(record).from_json(text)
    assert again == record
    assert again.stable_json() == text
    # canonical: sorted keys, compact, Bangla not escaped
    assert text == json.dumps(json.loads(text), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    assert "\\u09" not in text


def test_stable_json_independent_of_construction_order():
    a = TrustComponents(citation_validity=1, span_fidelity=0.5, verdict_score=0.4, provenance=0.8, confidence=0.6)
    b = TrustComponents(confidence=0.6, provenance=0.8, verdict_score=0.4, span_fidelity=0.5, citation_validity=1)
    assert a.stable_json() == b.stable_json()


def test_every_field_of_every_record_is_described():
    classes = [
        getattr(R, name) for name in R.__all__
        if isinstance(getattr(R, name), type) and issubclass(getattr(R, name), BaseModel)
    ]
    assert {EvidenceItem, EvidencePack, HopTraceEntry, EvidenceRef, Claim, RejectedClaim, TrustFinding,
            TrustComponents, RoleStatus} <= set(classes)
    for cls in classes:
        for name, field in cls.model_fields.items():
            assert field.description, f"{cls.__name__}.{name} has no description"


@pytest.mark.parametrize("record", _all_records(), ids=lambda r: type(r).__name__)
def test_unknown_fields_are_forbidden(record):
    data = record.model_dump()
    data["surprise"] = 1
    with pytest.raises(ValidationError):
        type(record).model_validate(data)


def test_enums_have_the_specified_values():
    assert [s.value for s in Side] == ["worker", "employer", "interpreter"]
    assert {c.value for c in ClaimCategory} == {"numeric", "temporal", "obligation", "factual"}
    assert {v.value for v in Verdict} == {"SUPPORT", "REFUTE", "NEI"}
    assert {d.value for d in Direction} == {"missing_condition", "extra_condition"}
    assert {s.value for s in ReleaseStatus} == {"TGLO", "DEGRADED", "UNDECIDED"}


@pytest.mark.parametrize("bad", [{"provenance": 1.5}, {"provenance": -0.1}, {"hop_depth": -1}, {"channels": []}])
def test_evidence_item_ranges(bad):
    with pytest.raises(ValidationError):
        _item(**bad)


def test_evidence_item_hop_fields_must_agree():
    with pytest.raises(ValidationError, match="via must be set"):
        _item(hop_depth=2)
    with pytest.raises(ValidationError, match="via must be set"):
        _item(via="2025:26")
    with pytest.raises(ValidationError, match="itself"):
        _item(hop_depth=1, via="2025:27(1)")
    assert _item(hop_depth=1, via="2025:26").via == "2025:26"


def test_pack_rejects_duplicate_nodes_and_looks_up():
    with pytest.raises(ValidationError, match="duplicate"):
        EvidencePack(items=[_item(), _item()])
    pack = EvidencePack(items=[_item(), _item("2025:28")])
    assert pack.node_ids() == {"2025:27(1)", "2025:28"}
    assert pack.get("2025:28").node_id == "2025:28"
    assert pack.get("2025:99") is None


@pytest.mark.parametrize(
    "bad",
    [
        {"evidence": []},
        {"evidence": [{"node_id": "2025:27(1)", "span": "   "}]},
        {"confidence": 1.01},
        {"confidence": -0.01},
        {"text": " "},
        {"side": "judge"},
        {"round": -1},
        {"challenge_to": "w1"},  # itself
    ],
)
def test_claim_shape_rules(bad):
    with pytest.raises(ValidationError):
        _claim(**bad)


def test_claim_enforces_ledger_only_with_context():
    data = _claim(evidence=[{"node_id": "2025:99", "span": "ষাট দিনের"}]).model_dump()  # no context: shape only
    with pytest.raises(EvidenceError, match="2025:99"):
        Claim.model_validate(data, context=ledger_context({"2025:27(1)"}))
    ok = Claim.model_validate(data, context=ledger_context({"2025:99"}))
    assert ok.cited_node_ids() == ["2025:99"]


def test_claim_is_immutable():
    claim = _claim()
    with pytest.raises(ValidationError):
        claim.confidence = 0.1  # type: ignore[misc]


def test_trust_components_are_bounded():
    with pytest.raises(ValidationError):
        TrustComponents(citation_validity=1.2, span_fidelity=0, verdict_score=0, provenance=0, confidence=0)


def test_role_status_values():
    with pytest.raises(ValidationError):
        RoleStatus(role="x", status="crashed", attempts=1, latency_ms=1, backend="stub")
    with pytest.raises(ValidationError):
        RoleStatus(role="x", status="ok", attempts=1, latency_ms=-1, backend="stub")
