r"""Composite trust score of a claim (paper §3.5), the quantity the Trust Gate thresholds.

Components (each in [0,1], recorded as :class:`~labourcrew.ledger.records.TrustComponents`):

* ``c`` citation validity -- fraction of the claim's citations that pass the Citation Checker
  (0 when the claim has none);
* ``f`` span fidelity -- mean over the *passing* citations of
  ``q = min(1, |norm(span)| / min(L, |norm(unit text)|))`` with ``L = full_credit_chars`` (60):
  a quote earns full credit once it is ``L`` normalised characters long or covers the whole
  (shorter) unit; 0 when nothing passes;
* ``v`` verdict score -- the Trust Auditor's verdict: SUPPORT 1.0, NEI 0.4, REFUTE 0.0 (no verdict
  counts as NEI);
* ``p`` provenance -- mean over the citations of the cited unit's *effective* retrieval
  provenance: a directly retrieved unit keeps its own provenance; a unit the Link Hopper reached
  is scored from its source, ``eff(x) = max(prov(x), hop_decay * eff(via(x)))`` (``hop_decay``
  0.8 per hop), so hop-reached evidence is never scored 0 just for being hop-reached; a citation
  off the pack counts 0;
* ``k`` confidence -- the claim's self-reported confidence.

Score::

    S0 = (w_c*c + w_f*f + w_v*v + w_p*p + w_k*k [+ w_r*r]) / (w_c + w_f + w_v + w_p + w_k [+ w_r])

    S  = 0                         if c == 0          (no evidence, or no citation verifies)
         min(S0, invalid_cap)      if 0 < c < 1       (any failed citation; invalid_cap = 0.2)
         min(S0, refute_cap)       if v <= v_REFUTE   (auditor refutes;     refute_cap  = 0.35)
         S0                        otherwise

* ``r`` relevance -- when the learned relevance model ran (:mod:`labourcrew.relevance`): the
  highest P(governs the answer) among the cited units, as the model's *context map* gives it
  (``EvidenceItem.trust_relevance``: the unit's score read against the question's other candidates
  -- its gap to the best, its softmax share and its section's, the margin over the best rival
  section -- so that one τ means the same in every question; a pack scored before the map existed
  falls back to ``relevance``); it enters the weighted mean with ``w_r`` (otherwise the mean is over
  the five components above).

Default weights: ``w_c = 0.30, w_v = 0.30, w_f = 0.15, w_k = 0.15, w_p = 0.10, w_r = 1.0``.
Verbatim quotes make ``c``, ``f`` and ``v`` near 1 for almost every offline claim, so ``r`` is the
component that separates a quote that governs the question from one that shares its words. The caps make a
claim with an invalid citation unable to pass any threshold above 0.2 whatever the other
components say. ``S`` is non-decreasing in every component and lies in [0,1].

*A claim-level model on top* (2026-12-02, measured, not adopted): on the 1,028 labelled calibration claims, a
model of the run's own features -- the five components and r, the cited unit's raw relevance, its rank and
gap to the pack's best, the claim's rank and gap among its question's claims, which counsel made it, how many
counsels cite the same section, the unit's level, whether it was hop-reached -- *trained on those very labels*
with 5-fold cross-validation grouped by question reaches ROC AUC 0.79 (gradient boosting) and 0.82 (logistic
regression) against ``S``'s 0.822; adding the question-intent cues (time limit, forum, penalty ... asked and
present in the quote) 0.80. The run holds no signal ``S`` does not already use: what separates a governing quote
from a neighbouring one is in the relevance model's ``r``, and improving ``r`` is the lever.

Everything here is a pure function of its arguments.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from labourcrew.audit.citation_checker import check_claim
from labourcrew.ledger.audit import ClaimCheck, EvidenceCheck
from labourcrew.ledger.records import (
    Claim,
    EvidenceItem,
    EvidencePack,
    TrustComponents,
    TrustFinding,
    Verdict,
)
from labourcrew.settings import TrustWeights

__all__ = [

    "DEFAULT_WEIGHTS",
    "trust_score",
    "verdict_score",
    "span_quality",
    "effective_provenance",
    "compute_components",
    "score_claim",
]

logger = logging.getLogger(__name__)


DEFAULT_WEIGHTS = TrustWeights()


def trust_score(components: TrustComponents, weights: TrustWeights = DEFAULT_WEIGHTS) -> float:
    """Composite trust score in [0,1] (formula in the module docstring).

    Args:
        components: the five components of one claim.
        weights: weights and caps.

    Returns:
        The score ``S``.
    """
    c, f, v = components.citation_validity, components.span_fidelity, components.verdict_score
    p, k = components.provenance, components.confidence
    if c <= 0.0:
        return 0.0
    w = weights
    total = w.w_citation + w.w_span + w.w_verdict + w.w_provenance + w.w_confidence
    s = w.w_citation * c + w.w_span * f + w.w_verdict * v + w.w_provenance * p + w.w_confidence * k
    if components.relevance is not None:  # the learned model ran: does the cited unit govern?
        s += w.w_relevance * components.relevance
        total += w.w_relevance
    s /= total
    if c < 1.0:
        s = min(s, w.invalid_cap)
    if v <= w.verdict_refute:
        s = min(s, w.refute_cap)
    return min(1.0, max(0.0, s))


def verdict_score(
    verdict: Verdict | TrustFinding | None, weights: TrustWeights = DEFAULT_WEIGHTS
) -> float:
    """Map a verdict (or a finding's verdict) to v; None (no audit) counts as NEI."""
    if isinstance(verdict, TrustFinding):
        verdict = verdict.verdict
    if verdict is None or verdict == Verdict.NEI:
        return weights.verdict_nei
    return weights.verdict_support if verdict == Verdict.SUPPORT else weights.verdict_refute


def span_quality(check: EvidenceCheck, weights: TrustWeights = DEFAULT_WEIGHTS) -> float:
    """Quality q in [0,1] of one citation: 0 if it failed, else length/coverage credit."""
    if not check.ok:
        return 0.0
    full = min(weights.full_credit_chars, max(check.node_norm_chars, 1))
    return min(1.0, check.span_norm_chars / full)


def effective_provenance(
    node_id: str, items: Mapping[str, EvidenceItem], weights: TrustWeights = DEFAULT_WEIGHTS
) -> float:
    """Retrieval provenance of a cited unit, hop-reached units scored from their source.

    Args:
        node_id: the cited node.
        items: Evidence Pack items by node id.
        weights: gives ``hop_decay``.

    Returns:
        ``eff(x) = prov(x)`` for a direct unit, ``max(prov(x), hop_decay * eff(via(x)))`` for a
        hop-reached one (the chain is followed while ``via`` is on the pack, without cycles);
        0.0 for a node not on the pack.
    """
    item = items.get(node_id)
    if item is None:
        return 0.0
    chain: list[EvidenceItem] = [item]
    seen = {item.node_id}
    while chain[-1].via is not None and chain[-1].via in items and chain[-1].via not in seen:
        nxt = items[chain[-1].via]
        chain.append(nxt)
        seen.add(nxt.node_id)
    value = chain[-1].provenance
    for link in reversed(chain[:-1]):
        value = max(link.provenance, weights.hop_decay * value)
    return value


def _learned(item: EvidenceItem) -> float | None:
    """The unit's r: its question-context relevance, or its relevance from a pack scored before it existed."""
    return item.trust_relevance if item.trust_relevance is not None else item.relevance


def compute_components(
    claim: Claim,
    pack: EvidencePack,
    *,
    verdict: Verdict | TrustFinding | None = None,
    check: ClaimCheck | None = None,
    weights: TrustWeights = DEFAULT_WEIGHTS,
) -> TrustComponents:
    """The five trust-score components of one claim.

    Args:
        claim: the claim.
        pack: the Evidence Pack it cites.
        verdict: the Trust Auditor's verdict or finding (None counts as NEI).
        check: the Citation Checker's result; computed here when None.
        weights: constants used by the components.
    """
    items = pack.by_id()
    if check is None:
        check = check_claim(claim, items)
    passed = [r for r in check.results if r.ok]
    fidelity = sum(span_quality(r, weights) for r in passed) / len(passed) if passed else 0.0
    refs = claim.evidence
    provenance = (
        sum(effective_provenance(r.node_id, items, weights) for r in refs) / len(refs) if refs else 0.0
    )
    learned = [x for x in (_learned(items[r.node_id]) for r in refs if r.node_id in items) if x is not None]
    return TrustComponents(
        citation_validity=check.validity,
        span_fidelity=fidelity,
        verdict_score=verdict_score(verdict, weights),
        provenance=provenance,
        confidence=claim.confidence,
        relevance=max(learned) if learned else None,
    )


def score_claim(
    claim: Claim,
    pack: EvidencePack,
    *,
    verdict: Verdict | TrustFinding | None = None,
    check: ClaimCheck | None = None,
    weights: TrustWeights = DEFAULT_WEIGHTS,
) -> tuple[float, TrustComponents]:
    """Components and composite score of one claim: ``(score, components)``."""
    components = compute_components(claim, pack, verdict=verdict, check=check, weights=weights)
    return trust_score(components, weights), components
