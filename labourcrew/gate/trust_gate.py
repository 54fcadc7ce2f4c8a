r"""Trust Gate (paper §3.6, B.5): which claims are released, and the run's release status.

For every claim on the ledger the gate

1. re-runs the Citation Checker (:func:`labourcrew.audit.citation_checker.check_claim`) -- the
   gate trusts no earlier role;
2. computes the composite trust score (:func:`labourcrew.audit.trust_score.score_claim`) from the
   check, the Trust Auditor's finding (none counts as NEI) and the pack's provenance;
3. decides acceptance:

   * ``calibrated`` mode (default): ``accepted  <=>  every citation verified  and  score >= τ``
     where ``τ`` comes from the persisted calibration record
     (:func:`labourcrew.gate.crc.load_calibration`, conformal risk control at α). Without a record
     ``τ = ∞``: the gate **fails closed**, releases nothing, and :attr:`GateResult.calibration_note`
     says so;
   * ``categorical`` mode (ablation): ``accepted  <=>  every citation verified  and  verdict ==
     SUPPORT`` -- the auditor's label decides, no threshold.

   A question that names a section the statute version does not have (a *premise error*, e.g.
   ``ধারা ৪০০``) gets no released claim at all: answering it from other sections would put words in
   the law's mouth.

Release status (:func:`release_status`), with ``A`` = accepted claims:

* ``UNDECIDED`` -- ``A`` is empty.
* ``TGLO`` (trust-gated, ledger-only) -- ``A`` is non-empty **and** every citation of every claim in
  ``A`` is verified **and** no role failed irrecoverably (no :class:`RoleStatus` with status
  ``failed``) **and** ``A`` covers the question's primary issue (:func:`coverage`).
* ``DEGRADED`` -- ``A`` is non-empty but a role failed irrecoverably or ``A`` does not cover the
  primary issue.

Coverage of the primary issue (:func:`coverage`): if the question names sections, some accepted
claim cites a unit inside one of them; otherwise, if the Issue Spotter found legal concepts, the
Act's wording of the primary (first specific) concept occurs, by at least half of its words, in the
sections an accepted claim cites; otherwise at least :data:`QUESTION_COVERAGE` of the question's
content words do.

Everything here is pure: the same ledger gives the same decision.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Callable, Mapping, Sequence

from labourcrew.audit.citation_checker import check_claim
from labourcrew.audit.trust_score import DEFAULT_WEIGHTS, score_claim
from labourcrew.ledger.audit import ClaimCheck
from labourcrew.ledger.gate import (
    CalibrationRecord,
    CitedEvidence,
    Coverage,
    GatedClaim,
    GateMode,
    GateResult,
    PrimaryIssue,
)
from labourcrew.ledger.records import (
    Claim,
    ClaimCategory,
    EvidencePack,
    ReleaseStatus,
    RoleStatus,
    TrustFinding,
    Verdict,
)
from labourcrew.settings import TrustWeights
from labourcrew.statute.ids import within_any
from labourcrew.statute.normalize import normalize

__all__ = [
    "QUESTION_COVERAGE",
    "primary_issue",
    "premise_errors",
    "coverage",
    "release_status",
    "decide",
    "undecided_result",
]

logger = logging.getLogger(__name__)

QUESTION_COVERAGE = 0.5
"""Share of the question's content words the cited sections must contain (no concept, no section)."""

_FOLD = str.maketrans({"\u09c0": "\u09bf", "\u09c2": "\u09c1"})  # ী->ি, ূ->ু (spelling variants)
_WORD = re.compile(r"(?:[^\W_]|[\u0981-\u0983\u09bc\u09be-\u09cd\u09d7])+")


def _fold(text: str) -> str:
    return normalize(text).translate(_FOLD)


# ---------------------------------------------------------------- coverage and status


def primary_issue(spotting: object, section_ids: Sequence[str], question: str) -> PrimaryIssue:
    """The primary issue of a question from its Issue Spotter record.

    Args:
        spotting: an :class:`~labourcrew.retrieval.issue_spotter.IssueSpotting` (read by attribute:
            ``concepts``).
        section_ids: node ids of the sections the question names that exist in the version.
        question: the question (content words are the fallback terms).

    Returns:
        Named sections if any; else the Act's wording of the first specific concept (the first
        concept if all are generic); else the question's content words.
    """
    from labourcrew.retrieval.issue_spotter import CONCEPTS
    from labourcrew.retrieval.lexical import QUESTION_STOPWORDS

    if section_ids:
        return PrimaryIssue(description="sections named: " + ", ".join(section_ids), section_ids=list(section_ids))
    keys = list(getattr(spotting, "concepts", []) or [])
    table = {c.key: c for c in CONCEPTS}
    concepts = [table[k] for k in keys if k in table]
    if concepts:
        main = next((c for c in concepts if not c.generic), concepts[0])
        words = [w for w in _WORD.findall(_fold(main.act_terms)) if len(w) > 1 and w not in QUESTION_STOPWORDS]
        return PrimaryIssue(description=f"concept: {main.key}", terms=list(dict.fromkeys(words)), min_share=0.5)
    words = [w for w in _WORD.findall(_fold(question)) if len(w) > 2 and w not in QUESTION_STOPWORDS]
    return PrimaryIssue(
        description="question words", terms=list(dict.fromkeys(words)), min_share=QUESTION_COVERAGE
    )


def premise_errors(named_labels: Sequence[str], resolved: Mapping[str, str | None], version: str) -> list[str]:
    """Premise errors: sections the question names that the statute version does not have.

    Args:
        named_labels: ASCII labels the question names (``['400']``).
        resolved: label -> node id in ``version`` (None when it does not exist).
        version: the statute version.

    Returns:
        One Bangla-and-English message per missing section, e.g.
        ``"ধারা ৪০০ (section 400) does not exist in, or was omitted from, the 2025 text"``
        (omitted sections such as 184 in 2025 resolve to nothing as well).
    """
    from labourcrew.statute.ids import citation_label_bn

    return [
        f"{citation_label_bn(label)} (section {label}) does not exist in, or was omitted from, the {version} text"
        for label in named_labels
        if resolved.get(label) is None
    ]


def coverage(
    primary: PrimaryIssue,
    accepted: Sequence[Claim],
    context_of: Callable[[str], str],
) -> Coverage:
    """Whether the accepted claims cover the primary issue (module docstring).

    Args:
        primary: the primary issue.
        accepted: released claims.
        context_of: node id -> text of the section it belongs to (title and body), for term checks.
    """
    if not accepted:
        return Coverage(covered=False, method="none", share=0.0, detail="no claim was released")
    cited = [n for c in accepted for n in c.cited_node_ids()]
    if primary.section_ids:
        hit = [s for s in primary.section_ids if any(within_any(n, [s]) for n in cited)]
        share = len(hit) / len(primary.section_ids)
        return Coverage(
            covered=bool(hit),
            method="sections",
            share=share,
            detail=f"named sections cited: {', '.join(hit) or 'none'} of {', '.join(primary.section_ids)}",
        )
    terms = [t for t in dict.fromkeys(_fold(t) for t in primary.terms) if t]
    if not terms:
        return Coverage(covered=True, method="terms", share=1.0, detail="no content words to check")
    context = _fold(" ".join(context_of(n) for n in dict.fromkeys(cited)))
    found = [t for t in terms if t in context]
    share = len(found) / len(terms)
    return Coverage(
        covered=share >= primary.min_share,
        method="terms",
        share=share,
        detail=f"{len(found)}/{len(terms)} issue words in the cited sections: {', '.join(found) or 'none'}",
    )


def release_status(
    accepted: Sequence[GatedClaim],
    failed_roles: Sequence[str],
    covered: bool,
) -> tuple[ReleaseStatus, str]:
    """The release status and its reason (definitions in the module docstring).

    Args:
        accepted: released claims.
        failed_roles: roles whose :class:`RoleStatus` is ``failed``.
        covered: whether the released claims cover the primary issue.
    """
    if not accepted:
        return ReleaseStatus.UNDECIDED, "no claim passed the Trust Gate"
    unverified = [c.claim_id for c in accepted if not all(e.verified for e in c.evidence)]
    if unverified:  # cannot happen through decide(); kept so the definition is checked, not assumed
        return ReleaseStatus.DEGRADED, f"released claims with unverified citations: {', '.join(unverified)}"
    problems = []
    if failed_roles:
        problems.append(f"role(s) failed: {', '.join(failed_roles)}")
    if not covered:
        problems.append("the released claims do not cover the question's primary issue")
    if problems:
        return ReleaseStatus.DEGRADED, "; ".join(problems)
    return ReleaseStatus.TGLO, "every released claim is verified, no role failed, the primary issue is covered"


def _evidence(check: ClaimCheck, pack: EvidencePack) -> list[CitedEvidence]:
    items = pack.by_id()
    out = []
    for r in check.results:
        item = items.get(r.node_id)
        out.append(
            CitedEvidence(
                node_id=r.node_id,
                section=item.section if item else None,
                span=r.span,
                verified=r.ok,
                code=r.code,
                matched_text=r.matched_text,
            )
        )
    return out


def _fmt(x: float) -> str:
    return "∞" if math.isinf(x) else f"{x:.3f}"


def decide(
    claims: Sequence[Claim],
    findings: Mapping[str, TrustFinding],
    pack: EvidencePack,
    *,
    calibration: CalibrationRecord,
    mode: GateMode,
    role_status: Mapping[str, RoleStatus],
    primary: PrimaryIssue,
    context_of: Callable[[str], str],
    premise_errors: Sequence[str] = (),
    weights: TrustWeights = DEFAULT_WEIGHTS,
) -> GateResult:
    """Gate every claim and set the release status (paper §3.6).

    Args:
        claims: claims on the ledger, in ledger order.
        findings: claim id -> Trust Auditor finding.
        pack: the Evidence Pack.
        calibration: the calibration record (``tau = inf`` fails closed).
        mode: ``calibrated`` or ``categorical``.
        role_status: role name -> aggregated status (``failed`` ones degrade the run).
        primary: the question's primary issue.
        context_of: node id -> section text, for the coverage check.
        premise_errors: problems with the question (e.g. a named section that does not exist);
            when any, nothing is released.
        weights: trust-score weights.

    Returns:
        The :class:`GateResult`.
    """
    tau = calibration.tau
    gated: list[GatedClaim] = []
    for claim in claims:
        check = check_claim(claim, pack)
        finding = findings.get(claim.claim_id)
        score, components = score_claim(claim, pack, verdict=finding, check=check, weights=weights)
        verdict = finding.verdict if finding else None
        reason: str | None = None
        if premise_errors:
            reason = "premise: " + "; ".join(premise_errors)
        elif not check.all_ok:
            bad = [f"{r.node_id}: {r.code}" for r in check.results if not r.ok]
            reason = "citation not verified (" + ", ".join(bad) + ")"
        elif mode == "categorical":
            if verdict != Verdict.SUPPORT:
                reason = f"auditor verdict {verdict.value if verdict else 'none (not audited)'}, not SUPPORT"
        elif math.isinf(tau):
            reason = "τ = ∞: the Trust Gate fails closed" + (f" ({calibration.note})" if calibration.note else "")
        elif score < tau:
            reason = f"trust score {score:.3f} < τ {_fmt(tau)}"
        gated.append(
            GatedClaim(
                claim_id=claim.claim_id,
                side=claim.side,
                round=claim.round,
                challenge_to=claim.challenge_to,
                text=claim.text,
                category=finding.category if finding else ClaimCategory.FACTUAL,
                evidence=_evidence(check, pack),
                verdict=verdict,
                direction=finding.direction if finding else None,
                trust_score=score,
                trust_components=components,
                accepted=reason is None,
                rejection_reason=reason,
            )
        )
    accepted_ids = [g.claim_id for g in gated if g.accepted]
    accepted_claims = [c for c in claims if c.claim_id in set(accepted_ids)]
    cov = coverage(primary, accepted_claims, context_of)
    failed = sorted(r for r, s in role_status.items() if s.status == "failed")
    status, why = release_status([g for g in gated if g.accepted], failed, cov.covered)
    if status == ReleaseStatus.UNDECIDED:
        if premise_errors:
            why = "premise: " + "; ".join(premise_errors)
        elif not claims and failed:
            why = f"no claim was made: role(s) failed: {', '.join(failed)} (see role_status)"
        elif not claims:
            why = "no claim was made: no evidence on the pack is relevant enough"
        elif mode == "calibrated" and math.isinf(tau):
            why = "the Trust Gate fails closed (τ = ∞)" + (f": {calibration.note}" if calibration.note else "")
    note = None
    if mode == "calibrated" and math.isinf(tau):
        note = calibration.note or "τ = ∞: no threshold qualified at this α"
    logger.info("trust gate: %s (%d/%d released, mode=%s, tau=%s)", status.value, len(accepted_ids), len(gated), mode, _fmt(tau))
    return GateResult(
        status=status,
        status_reason=why,
        mode=mode,
        tau=tau,
        alpha=calibration.alpha,
        calibration_n=calibration.n,
        calibration_note=note,
        claims=gated,
        accepted_ids=accepted_ids,
        coverage=cov,
        failed_roles=failed,
        premise_errors=list(premise_errors),
    )


def undecided_result(reason: str, calibration: CalibrationRecord, mode: GateMode) -> GateResult:
    """An UNDECIDED decision releasing nothing (used when the gate itself could not run)."""
    return GateResult(
        status=ReleaseStatus.UNDECIDED,
        status_reason=reason,
        mode=mode,
        tau=calibration.tau,
        alpha=calibration.alpha,
        calibration_n=calibration.n,
        calibration_note=calibration.note if math.isinf(calibration.tau) else None,
        claims=[],
        accepted_ids=[],
        coverage=Coverage(covered=False, method="none", share=0.0, detail=reason),
        failed_roles=[],
        premise_errors=[],
    )
