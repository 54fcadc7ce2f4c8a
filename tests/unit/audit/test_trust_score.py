"""Composite trust score: bounds, monotonicity, caps, and its components on a real-text pack."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from labourcrew.audit.trust_score import (
    DEFAULT_WEIGHTS,
    compute_components,
    effective_provenance,
    score_claim,
    trust_score,
    verdict_score,
)
from labourcrew.ledger.records import (
    Claim,
    EvidenceItem,
    EvidencePack,
    EvidenceRef,
    TrustComponents,
    TrustFinding,
    Verdict,
)
from labourcrew.settings import TrustWeights
from labourcrew.statute.normalize import normalize

unit = st.floats(0.0, 1.0, allow_nan=False)
FIELDS = ["citation_validity", "span_fidelity", "verdict_score", "provenance", "confidence"]


def _comp(**kw) -> TrustComponents:
    base = dict.fromkeys(FIELDS, 1.0)
    base.update(kw)
    return TrustComponents(**base)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(c=unit, f=unit, v=unit, p=unit, k=unit)
def test_score_is_in_unit_interval(c, f, v, p, k):
    s = trust_score(_comp(citation_validity=c, span_fidelity=f, verdict_score=v, provenance=p, confidence=k))
    assert 0.0 <= s <= 1.0


@settings(max_examples=300, deadline=None, derandomize=True)
@given(values=st.tuples(unit, unit, unit, unit, unit), which=st.sampled_from(FIELDS), bump=unit)
def test_score_is_non_decreasing_in_every_component(values, which, bump):
    low = dict(zip(FIELDS, values, strict=True))
    high = dict(low)
    high[which] = max(low[which], bump)
    assert trust_score(_comp(**high)) >= trust_score(_comp(**low)) - 1e-12


def test_perfect_claim_scores_one_and_no_valid_citation_scores_zero():
    assert trust_score(_comp()) == pytest.approx(1.0)
    assert trust_score(_comp(citation_validity=0.0)) == 0.0


@settings(max_examples=200, deadline=None, derandomize=True)
@given(c=st.floats(0.0, 0.999, allow_nan=False), f=unit, v=unit, p=unit, k=unit)
def test_any_failed_citation_caps_the_score(c, f, v, p, k):
    s = trust_score(_comp(citation_validity=c, span_fidelity=f, verdict_score=v, provenance=p, confidence=k))
    assert s <= DEFAULT_WEIGHTS.invalid_cap


def test_refuted_claim_is_capped():
    assert trust_score(_comp(verdict_score=0.0)) == pytest.approx(DEFAULT_WEIGHTS.refute_cap)


@pytest.mark.parametrize("name", ["w_citation", "w_span", "w_verdict", "w_provenance", "w_confidence"])
def test_single_weight_selects_its_component(name):
    """With one non-zero weight (and no cap active) the score is exactly that component."""
    weights = TrustWeights(**{w: (1.0 if w == name else 0.0) for w in
                              ["w_citation", "w_span", "w_verdict", "w_provenance", "w_confidence"]})
    field = {"w_citation": "citation_validity", "w_span": "span_fidelity", "w_verdict": "verdict_score",
             "w_provenance": "provenance", "w_confidence": "confidence"}[name]
    comp = _comp(**{field: 0.37}) if name != "w_citation" else _comp()
    assert trust_score(comp, weights) == pytest.approx(getattr(comp, field))


def test_weights_are_validated():
    with pytest.raises(ValidationError):
        TrustWeights(w_citation=0, w_span=0, w_verdict=0, w_provenance=0, w_confidence=0)
    with pytest.raises(ValidationError):
        TrustWeights(verdict_nei=0.9, verdict_support=0.5)
    with pytest.raises(ValidationError):
        TrustWeights(invalid_cap=1.5)
    with pytest.raises(ValidationError):
        TrustWeights(w_citation=0.3, bogus=1)


def test_verdict_mapping():
    assert verdict_score(Verdict.SUPPORT) == 1.0
    assert verdict_score(Verdict.NEI) == pytest.approx(0.4)
    assert verdict_score(None) == pytest.approx(0.4)
    assert verdict_score(Verdict.REFUTE) == 0.0
    finding = TrustFinding(claim_id="c", verdict="SUPPORT", category="numeric")
    assert verdict_score(finding) == 1.0


# ------------------------------------------------------------------ components from a real pack


@pytest.fixture(scope="module")
def pack(sections) -> EvidencePack:
    long_section = next(t for t in sections if len(normalize(t)) > 400)
    return EvidencePack(
        items=[
            EvidenceItem(node_id="2025:a", section="a", level="section", text=long_section,
                         channels=["dense", "exact"], score=2.0, provenance=0.9),
            EvidenceItem(node_id="2025:b", section="b", level="subsection", text=sections[40],
                         channels=["hop"], score=0.1, provenance=0.0, hop_depth=1, via="2025:a"),
            EvidenceItem(node_id="2025:c", section="c", level="clause", text=sections[41],
                         channels=["hop"], score=0.1, provenance=0.0, hop_depth=2, via="2025:b"),
        ]
    )


def _claim(refs) -> Claim:
    return Claim(claim_id="w1", side="worker", text="t", confidence=0.9,
                 evidence=[EvidenceRef(node_id=n, span=s) for n, s in refs])


def test_hop_reached_evidence_is_scored_from_its_source(pack):
    items = pack.by_id()
    d = DEFAULT_WEIGHTS.hop_decay
    assert effective_provenance("2025:a", items) == pytest.approx(0.9)
    assert effective_provenance("2025:b", items) == pytest.approx(0.9 * d)
    assert effective_provenance("2025:c", items) == pytest.approx(0.9 * d * d)
    assert effective_provenance("2025:zz", items) == 0.0


def test_invalid_citation_never_passes_a_reasonable_threshold(pack):
    text = pack.items[0].text
    good = text[:120]
    bad = text[:60] + "৯৯৯" + text[60:120]
    for verdict in Verdict:
        score, comp = score_claim(_claim([("2025:a", good), ("2025:a", bad)]), pack, verdict=verdict)
        assert comp.citation_validity == 0.5
        assert score <= 0.2
    score, comp = score_claim(_claim([("2025:a", good)]), pack, verdict=Verdict.SUPPORT)
    assert comp.citation_validity == 1.0 and score > 0.8


def test_longer_verified_quotes_earn_more_span_fidelity(pack):
    text = pack.items[0].text
    cut = [text.index(" ", n) for n in (12, 30, 80)]
    fidelity = [
        compute_components(_claim([("2025:a", text[:c])]), pack, verdict=Verdict.SUPPORT).span_fidelity
        for c in cut
    ]
    assert fidelity[0] < fidelity[1] < fidelity[2] <= 1.0
    assert fidelity[2] == 1.0  # >= 60 normalised characters


def test_components_of_a_hop_citation(pack):
    text_b = pack.items[1].text
    comp = compute_components(_claim([("2025:b", text_b[:80])]), pack, verdict=Verdict.NEI)
    assert comp.citation_validity == 1.0
    assert comp.provenance == pytest.approx(0.9 * DEFAULT_WEIGHTS.hop_decay)
    assert comp.verdict_score == pytest.approx(0.4)
    assert comp.confidence == 0.9


def test_r_is_the_cited_unit_s_trust_relevance_else_its_relevance(pack):
    text = pack.items[0].text
    claim = _claim([("2025:a", text[:120])])
    assert compute_components(claim, pack).relevance is None  # no model ran
    a = pack.items[0]
    only_rel = EvidencePack(items=[a.model_copy(update={"relevance": 0.9}), *pack.items[1:]])
    both = EvidencePack(items=[a.model_copy(update={"relevance": 0.9, "trust_relevance": 0.2}), *pack.items[1:]])
    assert compute_components(claim, only_rel).relevance == 0.9  # a pack scored before the context map
    assert compute_components(claim, both).relevance == 0.2  # the question-context reading decides
    assert score_claim(claim, both, verdict=Verdict.SUPPORT)[0] < score_claim(claim, only_rel, verdict=Verdict.SUPPORT)[0]
