"""Each metric's arithmetic on small hand-built runs, including the undefined (NaN) cases, and the
support-weighted category-average identity of the results rows."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labourcrew.eval.metrics import (
    METRIC_NAMES,
    METRICS,
    EvalCitation,
    EvalClaim,
    EvalRun,
    PackEntry,
    Ratio,
    bootstrap_ci,
    gold_matches,
    identity_errors,
    summarise,
    weighted_average,
)
from labourcrew.eval.metrics.abstention_correctness import AbstentionCorrectness
from labourcrew.eval.metrics.citation_based_precision import CitationBasedPrecision
from labourcrew.eval.metrics.citation_checker_pass_rate import CitationCheckerPassRate
from labourcrew.eval.metrics.claim_acceptance_rate import ClaimAcceptanceRate
from labourcrew.eval.metrics.contradiction_residual import ContradictionResidual
from labourcrew.eval.metrics.evidence_coverage import EvidenceCoverage
from labourcrew.eval.metrics.false_accept_rate import FalseAcceptRate
from labourcrew.eval.metrics.gate_verified_citation_precision import (
    GateVerifiedCitationPrecision,
)
from labourcrew.eval.metrics.gold_section_hit import GoldSectionHit
from labourcrew.eval.metrics.gold_section_recall import GoldSectionRecall
from labourcrew.eval.metrics.latency import LatencyS, latency_percentiles
from labourcrew.eval.metrics.llm_calls import LLMCalls, SequentialLLMCalls
from labourcrew.eval.metrics.path_completeness import PathCompleteness
from labourcrew.eval.metrics.risk_direction_index import RiskDirectionIndex
from labourcrew.eval.metrics.rounds import DeliberationRounds, RetrievalRounds
from labourcrew.eval.metrics.tglo_rate import (
    DegradedRate,
    FailedRunRate,
    RoleFailureRate,
    TGLORate,
    UndecidedRate,
)
from labourcrew.eval.metrics.unsupported_claim_rate import UnsupportedClaimRate


def cit(
    node: str, *, sections=None, on_pack=True, checker_ok=True, statute_ok=True, linked=(), label=None, container=False
) -> EvalCitation:
    lab = label if label is not None else node.split(":", 1)[1]
    secs = sections if sections is not None else [lab.split("(")[0].split(".")[0]]
    return EvalCitation(
        node_id=node,
        label=lab,
        sections=secs,
        container=container,
        on_pack=on_pack,
        checker_ok=checker_ok,
        statute_ok=statute_ok,
        linked=list(linked),
    )


def claim(
    cid: str,
    *cits: EvalCitation,
    accepted=True,
    verdict="SUPPORT",
    direction=None,
    challenge_to=None,
    side="worker",
    human_label=None,
) -> EvalClaim:
    return EvalClaim(
        claim_id=cid,
        side=side,
        accepted=accepted,
        verdict=verdict,
        direction=direction,
        challenge_to=challenge_to,
        citations=list(cits),
        human_label=human_label,
    )


def run(
    item="x1",
    category="direct_factual",
    *,
    tier=1,
    gold=("27",),
    claims=(),
    pack=(),
    status="TGLO",
    has_gate=True,
    halted=False,
    latency=1.0,
    coverage=None,
    failed=(),
    rounds=1,
    drounds=2,
    llm=0,
    seq=0,
) -> EvalRun:
    return EvalRun(
        item_id=item,
        category=category,
        tier=tier,
        gold_sections=list(gold),
        answerable=category != "unanswerable",
        config="t",
        has_gate=has_gate,
        status=None if (halted or not has_gate) else status,
        halted=halted,
        failed_roles=list(failed),
        latency_s=latency,
        retrieval_rounds=rounds,
        deliberation_rounds=drounds,
        llm_calls=llm,
        sequential_llm_calls=seq,
        pack=[
            PackEntry(node_id=n, label=n.split(":", 1)[1], sections=[n.split(":", 1)[1].split("(")[0]]) for n in pack
        ],
        claims=list(claims),
        coverage_share=coverage,
    )


def nan(x: float) -> bool:
    return isinstance(x, float) and math.isnan(x)


# ---------------------------------------------------------------- Ratio


def test_ratio_value_sum_and_undefined():
    assert nan(Ratio().value)
    assert Ratio.of(None) == Ratio()
    assert Ratio.of(math.nan) == Ratio()
    assert Ratio.of(0.25) == Ratio(num=0.25, den=1)
    assert (Ratio(num=1, den=2) + Ratio(num=3, den=4)).value == pytest.approx(4 / 6)
    assert Ratio.total([Ratio(num=1, den=1), Ratio()]).value == 1.0


# ---------------------------------------------------------------- per-question metrics


def test_latency_mean_and_percentiles():
    runs = [run(latency=1.0), run(latency=3.0), run(latency=None)]
    assert LatencyS()(runs) == pytest.approx(2.0)
    assert LatencyS().aggregate(runs).den == 2
    assert latency_percentiles(runs)["p50_s"] == pytest.approx(2.0)
    assert nan(LatencyS()([run(latency=None)]))
    assert nan(latency_percentiles([])["p95_s"])


def test_rounds_and_llm_calls():
    runs = [run(rounds=1, drounds=2, llm=10, seq=6), run(rounds=3, drounds=1, llm=4, seq=4)]
    assert RetrievalRounds()(runs) == 2.0
    assert DeliberationRounds()(runs) == 1.5
    assert LLMCalls()(runs) == 7.0
    assert SequentialLLMCalls()(runs) == 5.0


def test_status_shares_add_up_and_baselines_are_undefined():
    runs = [
        run(status="TGLO"),
        run(status="DEGRADED", failed=["worker_counsel"]),
        run(status="UNDECIDED"),
        run(halted=True, failed=["trust_gate"]),
    ]
    shares = [m(runs) for m in (TGLORate(), DegradedRate(), UndecidedRate(), FailedRunRate())]
    assert shares == [0.25, 0.25, 0.25, 0.25]
    assert RoleFailureRate()(runs) == 0.5
    baseline = [run(has_gate=False)]
    assert nan(TGLORate()(baseline)) and nan(UndecidedRate()(baseline))
    assert FailedRunRate()(baseline) == 0.0


def test_evidence_coverage():
    answered = run(claims=[claim("w1", cit("2025:27(1)"))], coverage=0.5)
    nothing = run(claims=[claim("w1", cit("2025:27(1)"), accepted=False)], coverage=0.0, status="UNDECIDED")
    halted = run(claims=[claim("w1", cit("2025:27(1)"))], coverage=1.0, halted=True)
    unanswerable = run(category="unanswerable", gold=(), coverage=0.0)
    assert EvidenceCoverage()([answered, nothing, halted]) == pytest.approx(0.5 / 3)
    assert nan(EvidenceCoverage()([unanswerable]))


def test_gold_section_recall_rules():
    # gold '27(3A)': found by the unit itself, a descendant or the section header, not by 27(1)
    assert gold_matches("27(3A)", "27(3A)(a)", ["27"], False)
    assert gold_matches("27(3A)", "27", ["27"], False)
    assert not gold_matches("27(3A)", "27(1)", ["27"], False)
    assert gold_matches("27(3A)", "ch2", ["26", "27"], True)  # a chapter chunk covering section 27
    assert gold_matches("27", "27(1).proviso1", ["27"], False)
    r = run(gold=("27(3A)", "26", "115"), pack=["2025:27(3A)", "2025:26(1)", "2025:33"])
    assert GoldSectionRecall()([r]) == pytest.approx(2 / 3)
    assert GoldSectionRecall()([run(gold=("27",), pack=[])]) == 0.0
    assert nan(GoldSectionRecall()([run(gold=())]))


def test_gold_section_hit():
    hit = run(gold=("27(3A)",), claims=[claim("w1", cit("2025:27(1)"))])
    miss = run(gold=("27",), claims=[claim("w1", cit("2025:26(1)"))])
    withheld = run(gold=("27",), claims=[claim("w1", cit("2025:27(1)"), accepted=False)], status="UNDECIDED")
    assert GoldSectionHit()([hit, miss, withheld]) == pytest.approx(1 / 3)
    assert nan(GoldSectionHit()([run(gold=())]))


def test_abstention_correctness():
    m = AbstentionCorrectness()
    abstained = run(
        category="unanswerable", gold=(), claims=[claim("w1", cit("2025:1"), accepted=False)], status="UNDECIDED"
    )
    answered = run(category="unanswerable", gold=(), claims=[claim("w1", cit("2025:1"))])
    adv_led_astray = run(category="adversarial", gold=("46(1)",), claims=[claim("w1", cit("2025:47(1)"))])
    adv_governing = run(category="adversarial", gold=("46(1)",), claims=[claim("w1", cit("2025:46(1)"))])
    adv_abstained = run(category="adversarial", gold=("46(1)",), claims=[], status="UNDECIDED")
    assert m([abstained, answered]) == 0.5
    assert m([adv_led_astray, adv_governing, adv_abstained]) == pytest.approx(2 / 3)
    assert nan(m([run(category="procedural")]))


# ---------------------------------------------------------------- citation and claim metrics


def test_gate_verified_citation_precision_counts_released_citations_only():
    r = run(
        claims=[
            claim("w1", cit("2025:27(1)"), cit("2025:27(2)", statute_ok=False)),
            claim("e1", cit("2025:26(1)", statute_ok=False), accepted=False),
        ]
    )
    assert GateVerifiedCitationPrecision()([r]) == 0.5
    assert nan(GateVerifiedCitationPrecision()([run(claims=[claim("w1", cit("2025:1"), accepted=False)])]))


def test_citation_based_precision():
    r = run(
        gold=("27(3A)", "26"),
        claims=[
            claim("w1", cit("2025:27(1)"), cit("2025:33(1)")),
            claim("e1", cit("2025:26(2)")),
            claim("i1", cit("2025:99"), accepted=False),
        ],
    )
    assert CitationBasedPrecision()([r]) == pytest.approx(2 / 3)
    assert CitationBasedPrecision().aggregate([r]).den == 3
    assert nan(CitationBasedPrecision()([run(gold=(), claims=[claim("w1", cit("2025:1"))])]))


def test_claim_acceptance_and_checker_pass_rate():
    r = run(
        claims=[
            claim("w1", cit("2025:27(1)")),
            claim("e1", cit("2025:26(1)", checker_ok=False), cit("2025:26(2)"), accepted=False),
            claim("i1", cit("2025:27(2)", checker_ok=None)),
        ]
    )
    assert ClaimAcceptanceRate()([r]) == pytest.approx(2 / 3)
    assert CitationCheckerPassRate()([r]) == pytest.approx(2 / 3)  # the None result is not counted
    assert nan(ClaimAcceptanceRate()([run(claims=[])]))
    assert nan(ClaimAcceptanceRate()([run(has_gate=False, claims=[claim("w1", cit("2025:1"))])]))
    assert nan(CitationCheckerPassRate()([run(claims=[])]))


def test_contradiction_residual():
    r = run(
        claims=[
            claim("w1", cit("2025:27(1)")),
            claim("e1", cit("2025:27(2)"), challenge_to="w1", side="employer"),  # both released: residual
            claim("e2", cit("2025:27(3)"), challenge_to="w1", accepted=False, side="employer"),
            claim("e3", cit("2025:27(4)"), challenge_to="gone", side="employer"),  # unknown target: no pair
        ]
    )
    assert ContradictionResidual()([r]) == 0.5
    assert nan(ContradictionResidual()([run(claims=[claim("w1", cit("2025:27(1)"))])]))


def test_unsupported_claim_rate():
    r = run(
        claims=[
            claim("w1", cit("2025:27(1)")),
            claim("w2", cit("2025:27(2)", on_pack=False)),  # off the ledger
            claim("w3", cit("2025:27(3)", statute_ok=False)),  # not verbatim
            claim("w4", cit("2025:27(4)", on_pack=False), accepted=False),  # not in the answer
        ]
    )
    assert UnsupportedClaimRate()([r]) == pytest.approx(2 / 3)
    assert nan(UnsupportedClaimRate()([run(claims=[])]))
    assert nan(UnsupportedClaimRate()([run(claims=[claim("w1", cit("2025:1"))], halted=True)]))


def test_path_completeness():
    r = run(
        pack=["2025:27(1)", "2025:27(1).proviso1"],
        claims=[
            claim("w1", cit("2025:27(1)", linked=["2025:27(1).proviso1", "2025:28"])),
            claim("w2", cit("2025:27(1)", linked=["2025:27(1).proviso1", "2025:28"])),  # same unit: counted once
            claim("e1", cit("2025:30", linked=["2025:31"]), accepted=False),  # not released
        ],
    )
    assert PathCompleteness().aggregate([r]) == Ratio(num=1, den=2)
    assert nan(PathCompleteness()([run(claims=[claim("w1", cit("2025:27(1)"))])]))


def test_risk_direction_index_and_bootstrap():
    runs = [
        run(
            claims=[
                claim("w1", cit("2025:1"), verdict="NEI", direction="missing_condition"),
                claim("w2", cit("2025:1"), verdict="REFUTE", direction="missing_condition"),
            ]
        ),
        run(claims=[claim("w1", cit("2025:1"), verdict="REFUTE", direction="extra_condition")]),
        run(claims=[claim("w1", cit("2025:1"))]),
    ]
    rdi = RiskDirectionIndex()
    assert rdi(runs) == pytest.approx((2 - 1) / 3)
    assert nan(rdi([run(claims=[claim("w1", cit("2025:1"))])]))
    lo, hi = bootstrap_ci(rdi, runs, n_boot=500, seed=3)
    assert -1.0 <= lo <= rdi(runs) <= hi <= 1.0
    assert bootstrap_ci(rdi, runs, n_boot=500, seed=3) == (lo, hi)  # seeded: reproducible
    assert all(nan(x) for x in bootstrap_ci(rdi, [run()], n_boot=50))


def test_false_accept_rate_needs_labels():
    r = run(
        claims=[
            claim("w1", cit("2025:1"), human_label="faithful"),
            claim("w2", cit("2025:1"), human_label="unfaithful"),
            claim("w3", cit("2025:1"), human_label="unsure"),
            claim("w4", cit("2025:1"), human_label="unfaithful", accepted=False),
        ]
    )
    assert FalseAcceptRate()([r]) == 0.5
    assert nan(FalseAcceptRate()([run(claims=[claim("w1", cit("2025:1"))])]))


# ---------------------------------------------------------------- rows and the identity


def _sample_runs() -> list[EvalRun]:
    return [
        run(
            "a1",
            "direct_factual",
            tier=1,
            gold=("27",),
            pack=["2025:27"],
            claims=[claim("w1", cit("2025:27(1)"))],
            latency=0.5,
        ),
        run("a2", "direct_factual", tier=2, gold=("115",), pack=[], claims=[], status="UNDECIDED", latency=1.5),
        run(
            "b1",
            "multi_hop",
            tier=3,
            gold=("26", "27"),
            pack=["2025:26(1)"],
            claims=[
                claim("w1", cit("2025:26(1)"), cit("2025:40")),
                claim(
                    "e1",
                    cit("2025:27(1)", checker_ok=False),
                    accepted=False,
                    verdict="NEI",
                    direction="missing_condition",
                    challenge_to="w1",
                ),
            ],
            status="DEGRADED",
        ),
        run("u1", "unanswerable", tier=1, gold=(), claims=[], status="UNDECIDED", latency=None),
        run(
            "v1",
            "adversarial",
            tier=2,
            gold=("46(1)",),
            pack=["2025:46(1)"],
            claims=[claim("w1", cit("2025:47(1)"))],
            halted=True,
            failed=["trust_gate"],
        ),
    ]


def test_summarise_rows_and_identity():
    block = summarise(_sample_runs(), n_boot=200)
    overall = block["overall"]
    assert overall["n"] == 5 and set(block["by_category"]) == {
        "direct_factual",
        "multi_hop",
        "unanswerable",
        "adversarial",
    }
    assert set(block["by_tier"]) == {"1", "2", "3"}
    assert list(overall["support"]) == list(METRIC_NAMES)
    assert overall["support"]["tglo_rate"] == 5  # per-question column defined everywhere: support = n
    assert nan(overall["false_accept_rate"])  # no labels: undefined, not 0
    assert nan(block["by_category"]["unanswerable"]["citation_based_precision"])
    assert identity_errors(block) == {}
    assert identity_errors(block, by="by_tier") == {}
    for m in METRIC_NAMES:
        want, got = overall[m], weighted_average(block["by_category"], m)
        assert (nan(want) and nan(got)) or want == pytest.approx(got)


def test_identity_check_catches_a_wrong_overall():
    block = summarise(_sample_runs(), n_boot=50)
    block["overall"]["tglo_rate"] += 0.1
    assert "tglo_rate" in identity_errors(block)


_cats = st.sampled_from(["direct_factual", "multi_hop", "unanswerable", "adversarial"])
_cit = st.builds(
    lambda sec, ok, onp, st_ok: cit(f"2025:{sec}(1)", checker_ok=ok, on_pack=onp, statute_ok=st_ok),
    st.sampled_from(["26", "27", "115"]),
    st.sampled_from([True, False, None]),
    st.booleans(),
    st.booleans(),
)
_claim = st.builds(
    lambda i, cits, acc, d: claim(f"c{i}", *cits, accepted=acc, direction=d, verdict=None if d is None else "NEI"),
    st.integers(0, 5),
    st.lists(_cit, min_size=1, max_size=3),
    st.booleans(),
    st.sampled_from([None, "missing_condition", "extra_condition"]),
)


@st.composite
def _runs(draw):
    n = draw(st.integers(1, 12))
    out = []
    for i in range(n):
        cat = draw(_cats)
        claims = draw(st.lists(_claim, max_size=4, unique_by=lambda c: c.claim_id))
        out.append(
            run(
                f"i{i}",
                cat,
                tier=draw(st.integers(1, 3)),
                gold=()
                if cat == "unanswerable"
                else tuple(draw(st.lists(st.sampled_from(["26", "27(1)", "115"]), min_size=1, max_size=2))),
                pack=draw(st.lists(st.sampled_from(["2025:26(1)", "2025:27(1)", "2025:115"]), unique=True)),
                claims=claims,
                status=draw(st.sampled_from(["TGLO", "DEGRADED", "UNDECIDED"])),
                halted=draw(st.booleans()),
                latency=draw(st.one_of(st.none(), st.floats(0, 20))),
                coverage=draw(st.floats(0, 1)),
            )
        )
    return out


@settings(max_examples=60, deadline=None)
@given(_runs())
def test_identity_holds_for_any_runs(runs):
    block = summarise(runs, METRICS, n_boot=20)
    assert identity_errors(block) == {}
    assert identity_errors(block, by="by_tier") == {}
