"""Trust Gate: calibrated vs categorical acceptance, fail-closed τ = ∞, and the release statuses."""

from __future__ import annotations

import math

import pytest

from labourcrew.gate.crc import load_calibration
from labourcrew.gate.trust_gate import (
    bangla_part,
    decide,
    premise_errors,
    primary_issue,
    release_status,
)
from labourcrew.graph.statute_graph import StatuteGraph
from labourcrew.ledger.gate import CalibrationRecord, PrimaryIssue, SystemFingerprint
from labourcrew.ledger.records import (
    Claim,
    ClaimCategory,
    EvidenceItem,
    EvidencePack,
    EvidenceRef,
    ReleaseStatus,
    RoleStatus,
    TrustFinding,
    Verdict,
)
from labourcrew.retrieval.issue_spotter import spot_issues

RULE = "2025:27(1)"
SPAN = "কোন স্থায়ী শ্রমিক মালিককে ষাট দিনের লিখিত নোটিশ প্রদান করিয়া তাহার চাকুরী হইতে ইস্তফা দিতে পারিবেন"


@pytest.fixture(scope="module")
def pack(graph: StatuteGraph) -> EvidencePack:
    ids = [RULE, "2025:27(2)", "2025:46(1)"]
    return EvidencePack(items=[
        EvidenceItem(node_id=n, section=graph.units[n].section, level=graph.units[n].level, text=graph.units[n].text,
                     channels=["dense"], score=1.0, provenance=1.0) for n in ids
    ])


def ctx(graph: StatuteGraph):
    return lambda n: graph.section_text(graph.section_of(n).node_id) + " " + (graph.section_of(n).title or "")


def claim(cid: str, span: str = SPAN, node: str = RULE, conf: float = 0.9) -> Claim:
    return Claim(claim_id=cid, side="worker", text=f"আইন অনুযায়ী: «{span}»", evidence=[EvidenceRef(node_id=node, span=span)], confidence=conf)


def finding(cid: str, verdict: Verdict = Verdict.SUPPORT) -> TrustFinding:
    return TrustFinding(claim_id=cid, verdict=verdict, category=ClaimCategory.TEMPORAL)


def calib(tau: float) -> CalibrationRecord:
    return CalibrationRecord(tau=tau, alpha=0.1, n=30, empirical_risk=0.0, bound=0.05, labels_sha256="t", created="x", grid_size=3)


OK = {"worker_counsel": RoleStatus(role="worker_counsel", status="ok", attempts=1, latency_ms=1.0, backend="b")}
FAILED = {**OK, "employer_counsel": RoleStatus(role="employer_counsel", status="failed", attempts=3, error="x", latency_ms=1.0, backend="b")}
COVER = PrimaryIssue(description="t", terms=["ইস্তফা", "নোটিশ"])


def run(graph, pack, claims, findings, cal, mode="calibrated", roles=OK, primary=COVER, premise=()):
    return decide(claims, findings, pack, calibration=cal, mode=mode, role_status=roles, primary=primary,
                  context_of=ctx(graph), premise_errors=list(premise))


def test_missing_calibration_fails_closed_and_says_so(graph, pack, tmp_path) -> None:
    cal = load_calibration(tmp_path / "none.json")
    gate = run(graph, pack, [claim("w1")], {"w1": finding("w1")}, cal)
    assert math.isinf(gate.tau) and gate.fail_closed
    assert gate.status == ReleaseStatus.UNDECIDED and gate.accepted_ids == []
    assert "no calibration record" in gate.calibration_note
    assert "fails closed" in gate.claims[0].rejection_reason
    assert '"tau":"inf"' in gate.stable_json()


def test_the_fail_closed_reason_says_plainly_why_for_a_record_of_this_system(graph, pack, tmp_path) -> None:
    # A new user read "no threshold ... or the calibration is not for this system" when the record WAS for it.
    claims, findings = [claim("w1")], {"w1": finding("w1")}
    fitted = run(graph, pack, claims, findings, calib(math.inf))  # this system's calibration found no τ
    assert fitted.status == ReleaseStatus.UNDECIDED
    bn, en = fitted.status_reason.split(" — ", 1)
    assert "এই ব্যবস্থার ক্যালিব্রেশনে এমন কোনো সীমা (τ) পাওয়া যায়নি" in bn and "α = ০.১০" in bn
    assert en == fitted.status_reason_en and "calibration for this system found no threshold" in en
    assert "α = 0.10" in en and "another system" not in en and "অথবা" not in bn and "can use" not in en
    # Only a record that is not for this system (or none) is said to be one, with the check that failed.
    system = SystemFingerprint(backend="offline", scoring_sha256="a" * 64)
    path = calib(math.inf).model_copy(update={"system": system}).save(tmp_path / "other.json")
    other = load_calibration(path, 0.1, system=system.model_copy(update={"scoring_sha256": "b" * 64}))
    missing = load_calibration(tmp_path / "none.json", 0.1)
    for cal, cause_bn, cause_en in ((other, "অন্য সিস্টেমের জন্য", "the calibration record is for another system"),
                                    (missing, "", "no calibration record")):
        gate = run(graph, pack, claims, findings, cal)
        bn, en = gate.status_reason.split(" — ", 1)
        assert "এই ব্যবস্থার জন্য ব্যবহারযোগ্য কোনো ক্যালিব্রেশন রেকর্ড নেই" in bn and cause_bn in bn
        assert "no calibration record this system can use: " + cause_en in en
        assert "found no threshold" not in en


def test_calibrated_mode_thresholds_the_trust_score_at_tau(graph, pack) -> None:
    strong, weak = claim("w1", conf=1.0), claim("w2", SPAN[:40], conf=0.0)
    findings = {"w1": finding("w1"), "w2": finding("w2", Verdict.NEI)}
    scores = {c.claim_id: c.trust_score for c in run(graph, pack, [strong, weak], findings, calib(0.0)).claims}
    tau = (scores["w1"] + scores["w2"]) / 2
    gate = run(graph, pack, [strong, weak], findings, calib(tau))
    assert gate.accepted_ids == ["w1"]
    assert gate.claims[1].rejection_reason.startswith("trust score")
    assert gate.status == ReleaseStatus.TGLO


def test_an_unverified_citation_is_never_released(graph, pack) -> None:
    bad = claim("w1", SPAN.replace("ষাট", "নব্বই"))
    for mode in ("calibrated", "categorical"):
        gate = run(graph, pack, [bad], {"w1": finding("w1")}, calib(0.0), mode=mode)
        assert gate.accepted_ids == [] and "citation not verified" in gate.claims[0].rejection_reason


def test_categorical_mode_lets_the_auditor_label_decide(graph, pack) -> None:
    claims = [claim("w1"), claim("w2", SPAN[:50])]
    gate = run(graph, pack, claims, {"w1": finding("w1"), "w2": finding("w2", Verdict.NEI)}, calib(math.inf), mode="categorical")
    assert gate.accepted_ids == ["w1"] and "NEI" in gate.claims[1].rejection_reason
    # Its release says first that no risk bound stands behind it (the CLI status line read "verified").
    assert gate.status != ReleaseStatus.UNDECIDED and gate.status_reason.startswith("অক্যালিব্রেটেড গেট")
    calibrated = run(graph, pack, claims, {"w1": finding("w1"), "w2": finding("w2", Verdict.NEI)}, calib(0.0))
    assert calibrated.status != ReleaseStatus.UNDECIDED and "অক্যালিব্রেটেড" not in calibrated.status_reason


def test_a_release_without_a_risk_bound_does_not_say_it_answers_the_question(graph, pack) -> None:
    # The categorical release read "a quoted provision may not answer the question; ... covers the
    # question's main issue": the caveat and the reason contradicted each other.
    claims, findings = [claim("w1")], {"w1": finding("w1")}
    calibrated = run(graph, pack, claims, findings, calib(0.0))
    assert calibrated.status == ReleaseStatus.TGLO and "covers the question's main issue" in calibrated.status_reason_en
    categorical = run(graph, pack, claims, findings, calib(math.inf), mode="categorical")
    fallback = run(graph, pack, claims, findings,
                   calib(math.inf).model_copy(update={"fallback": "categorical", "note": "অন্য সিস্টেম — another system"}))
    assert categorical.status == ReleaseStatus.TGLO and fallback.status == ReleaseStatus.DEGRADED
    for gate in (categorical, fallback):
        bn, en = bangla_part(gate.status_reason), gate.status_reason_en
        assert "covers" not in en and "উত্তর দেয়" not in bn
        assert en.endswith("every released quote is verified verbatim against the statute, and the cited sections are "
                           "the ones the question names or share the words of its main issue")
        assert bn.endswith("উদ্ধৃত ধারাগুলো হয় প্রশ্নে উল্লিখিত, নয়তো তাতে প্রশ্নের মূল বিষয়ের শব্দগুলো আছে")
    assert categorical.status_reason.startswith("অক্যালিব্রেটেড গেট: ভুলের হারের কোনো পরিমাপিত সীমা নেই")
    assert categorical.status_reason_en.startswith("uncalibrated categorical gate: no measured bound on the error rate")
    # the fallback's note is split into its halves: Bangla with Bangla, English with English
    assert bangla_part(fallback.status_reason).startswith("অক্যালিব্রেটেড গেট: অন্য সিস্টেম; ")
    assert fallback.status_reason_en.startswith("uncalibrated (categorical gate): another system; ")


def test_status_definitions(graph, pack) -> None:
    claims, findings = [claim("w1")], {"w1": finding("w1")}
    assert run(graph, pack, claims, findings, calib(0.0)).status == ReleaseStatus.TGLO
    degraded = run(graph, pack, claims, findings, calib(0.0), roles=FAILED)
    assert degraded.status == ReleaseStatus.DEGRADED and "employer_counsel" in degraded.status_reason
    uncovered = run(graph, pack, claims, findings, calib(0.0), primary=PrimaryIssue(description="t", terms=["প্রসূতি", "গ্রাচুইটি"]))
    assert uncovered.status == ReleaseStatus.DEGRADED and not uncovered.coverage.covered
    assert run(graph, pack, [], {}, calib(0.0)).status == ReleaseStatus.UNDECIDED
    assert release_status([], [], True)[0] == ReleaseStatus.UNDECIDED


def test_a_premise_error_releases_nothing(graph, pack) -> None:
    errs = premise_errors(["400"], {"400": None}, "2025")
    assert errs and "৪০০" in errs[0]
    gate = run(graph, pack, [claim("w1")], {"w1": finding("w1")}, calib(0.0), premise=errs)
    assert gate.status == ReleaseStatus.UNDECIDED and gate.accepted_ids == []


def test_primary_issue_from_spotting() -> None:
    named = primary_issue(spot_issues("ধারা ২৭ অনুযায়ী নোটিশ কত দিন?"), ["2025:27"], "q")
    assert named.section_ids == ["2025:27"]
    maternity = primary_issue(spot_issues("প্রসূতি কল্যাণ সুবিধা কত দিন?"), [], "q")
    assert maternity.description == "concept: maternity" and maternity.terms
    plain = primary_issue(spot_issues("ক্রিকেট খেলার নিয়ম কী?"), [], "ক্রিকেট খেলার নিয়ম কী?")
    assert plain.description == "question words" and "ক্রিকেট" in plain.terms


def test_the_question_s_own_word_for_the_concept_covers_it(graph: StatuteGraph) -> None:
    """16(7) answers «লে-অফ ৪৫ দিনের বেশি চললে মালিক কি শ্রমিককে ছাঁটাই করতে পারে?»: the primary concept is
    termination, whose Act wording lists alternatives («চাকুরীর অবসান ছাঁটাই ডিসচার্জ বরখাস্ত»), of which 16
    has only ছাঁটাই (1 of 5 words). The question's own word, ছাঁটাই, is in the cited section: covered (it was
    DEGRADED, 'does not cover the primary issue', when the gate first released it)."""
    from labourcrew.gate.trust_gate import coverage

    q = "লে-অফ ৪৫ দিনের বেশি চললে মালিক কি শ্রমিককে ছাঁটাই করতে পারে?"
    primary = primary_issue(spot_issues(q), [], q)
    assert primary.description == "concept: termination" and "ছাঁটাই" in primary.question_terms
    ctx = graph.section_context("2025:16(7)")
    share_only = primary.model_copy(update={"question_terms": []})
    assert not coverage(share_only, [claim("w1", node="2025:16(7)")], graph.section_context).covered  # the old rule
    cov = coverage(primary, [claim("w1", node="2025:16(7)")], graph.section_context)
    assert cov.covered and cov.share < 0.5 and "ছাঁটাই" in cov.detail and "ছাঁটাই" in ctx
    # the word must really be in the cited section: 115 (casual leave) says nothing of retrenchment
    assert not coverage(primary, [claim("w1", node="2025:115")], graph.section_context).covered
