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
from dataclasses import dataclass

from labourcrew.audit.citation_checker import check_claim
from labourcrew.audit.trust_score import DEFAULT_WEIGHTS, score_claim
from labourcrew.graph.statute_graph import StatuteGraph
from labourcrew.ledger.audit import ClaimCheck
from labourcrew.ledger.gate import (
    CalibrationRecord,
    CitedEvidence,
    Coverage,
    Fact,
    GatedClaim,
    GateMode,
    GateResult,
    PrimaryIssue,
    QuestionPart,
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
from labourcrew.retrieval.exact import premise_by_label, premise_errors
from labourcrew.retrieval.issue_spotter import fold as _fold
from labourcrew.retrieval.issue_spotter import has_trigger
from labourcrew.retrieval.thesaurus import Thesaurus
from labourcrew.settings import TrustWeights
from labourcrew.statute.ids import within_any
from labourcrew.statute.normalize import to_bangla_digits

__all__ = [
    "QUESTION_COVERAGE",
    "primary_issue",
    "premise_errors",
    "premise_by_label",
    "GateInputs",
    "gate_inputs",
    "settle",
    "premise_blocks",
    "matched_nothing",
    "coverage",
    "release_status",
    "withheld_qualifiers",
    "decide",
    "undecided_result",
    "bilingual",
    "english_part",
    "bangla_part",
    "question_parts",
]

logger = logging.getLogger(__name__)

QUESTION_COVERAGE = 0.5
"""Share of the question's content words the cited sections must contain (no concept, no section)."""

_WORD = re.compile(r"(?:[^\W_]|[\u0981-\u0983\u09bc\u09be-\u09cd\u09d7])+")


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
        asked = _fold(question)
        used = [t for t in main.triggers if has_trigger(asked, t)]
        return PrimaryIssue(description=f"concept: {main.key}", terms=list(dict.fromkeys(words)), min_share=0.5,
                            question_terms=list(dict.fromkeys(used)))
    words = [w for w in _WORD.findall(_fold(question)) if len(w) > 2 and w not in QUESTION_STOPWORDS]
    return PrimaryIssue(
        description="question words", terms=list(dict.fromkeys(words)), min_share=QUESTION_COVERAGE
    )


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
    # A concept's Act wording lists alternatives (termination: «চাকুরীর অবসান ছাঁটাই ডিসচার্জ বরখাস্ত»), so
    # half of it need not co-occur: the question's own word for the concept in the cited text covers it too.
    own = [t for t in primary.question_terms if has_trigger(context, t)]
    detail = f"{len(found)}/{len(terms)} issue words in the cited sections: {', '.join(found) or 'none'}"
    if own:
        detail += f"; the question's word for the concept is there: {', '.join(own)}"
    return Coverage(covered=share >= primary.min_share or bool(own), method="terms", share=share, detail=detail)


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
        return ReleaseStatus.UNDECIDED, bilingual(*NOT_VERIFIED_THRESHOLD)
    unverified = [c.claim_id for c in accepted if not all(e.verified for e in c.evidence)]
    if unverified:  # cannot happen through decide(); kept so the definition is checked, not assumed
        return ReleaseStatus.DEGRADED, bilingual(
            f"কিছু প্রকাশিত উদ্ধৃতি যাচাই হয়নি ({', '.join(unverified)})",
            f"released claims with unverified citations: {', '.join(unverified)}",
        )
    problems = []
    if failed_roles:
        problems.append((f"বিশ্লেষণের এক বা একাধিক ধাপ ব্যর্থ হয়েছে ({', '.join(failed_roles)})",
                         f"role(s) failed: {', '.join(failed_roles)}"))
    if not covered:
        problems.append(("প্রকাশিত উদ্ধৃতিগুলো প্রশ্নের মূল বিষয়ের পুরো উত্তর দেয় না",
                         "the released claims do not cover the question's primary issue"))
    if problems:
        return ReleaseStatus.DEGRADED, bilingual("; ".join(p[0] for p in problems), "; ".join(p[1] for p in problems))
    return ReleaseStatus.TGLO, bilingual(*TGLO_REASON)


def bilingual(bn: str, en: str) -> str:
    """A user-facing message: Bangla first, English second (``"বাংলা — English"``)."""
    return f"{bn} — {en}" if en else bn


def english_part(message: str) -> str:
    """The English half of a :func:`bilingual` message ('' when it has none)."""
    return message.split(" — ", 1)[1] if " — " in message else ""


def bangla_part(message: str) -> str:
    """The Bangla half of a :func:`bilingual` message (the whole message when it has no English half)."""
    return message.split(" — ", 1)[0]


TGLO_REASON = (
    "প্রকাশিত প্রতিটি উদ্ধৃতি আইনের পাঠে হুবহু যাচাই করা হয়েছে এবং প্রশ্নের মূল বিষয়ের উত্তর দেয়",
    "every released quote is verified verbatim against the statute and covers the question's main issue",
)
CATEGORICAL_CAVEAT = (
    "অক্যালিব্রেটেড গেট: ভুলের হারের কোনো পরিমাপিত সীমা নেই, উদ্ধৃত বিধানটি প্রশ্নের উত্তর নাও হতে পারে; ",
    "uncalibrated categorical gate: no measured bound on the error rate, a quoted provision may not answer the question; ",
)
"""Put before both halves of the status reason of a release by the opt-in categorical gate."""
CATEGORICAL_TGLO_REASON = (
    "প্রকাশিত প্রতিটি উদ্ধৃতি আইনের পাঠে হুবহু যাচাই করা হয়েছে, এবং উদ্ধৃত ধারাগুলো হয় প্রশ্নে উল্লিখিত, নয়তো তাতে "
    "প্রশ্নের মূল বিষয়ের শব্দগুলো আছে",
    "every released quote is verified verbatim against the statute, and the cited sections are the ones the question "
    "names or share the words of its main issue",
)
"""TGLO's reason after :data:`CATEGORICAL_CAVEAT`: what the checks found, not that the quotes answer the question
(:data:`TGLO_REASON` says "covers the question's main issue", which the caveat says is not assured)."""
NOT_MATCHED = (
    "কোনো উত্তর যাচাই করা যায়নি: প্রশ্নের কোনো শব্দ আইনের পাঠে নেই এবং কোনো আইনি বিষয় চেনা যায়নি; প্রশ্নটি অন্যভাবে "
    "লিখে দেখুন",
    "no answer could be verified: no word of the question occurs in the Act and no legal subject was recognised; "
    "try rephrasing the question",
)
NOT_VERIFIED_THRESHOLD = (
    "কোনো উত্তর যাচাই করা যায়নি: খুঁজে পাওয়া বিধানগুলোর কোনো উদ্ধৃতি নির্ভরযোগ্যতার সীমা (τ) পার হয়নি; "
    "এর মানে এই নয় যে আইনে এ বিষয়ে কিছু নেই",
    "no answer could be verified: no quote from the provisions found reached the trust threshold (τ); "
    "this does not mean the law is silent",
)
NOT_VERIFIED_NO_CLAIM = (
    "কোনো উত্তর যাচাই করা যায়নি: অনুসন্ধানে প্রশ্নের সঙ্গে যথেষ্ট মেলে এমন কোনো উদ্ধৃতি বাছাই করা যায়নি; "
    "এর মানে এই নয় যে আইনে এ বিষয়ে কিছু নেই",
    "no answer could be verified: the search found no quote matching the question closely enough; "
    "this does not mean the law is silent",
)


def question_parts(spotting: object, blocking: Mapping[str, str]) -> list[QuestionPart]:
    """The parts the gate answers separately: the Issue Spotter's parts (or the whole question),
    each with the false premise it rests on, plus the instruction-like text, marked ``injection``
    (never answered, never blocking).

    Args:
        spotting: the Issue Spotter's record (``parts``, ``question``, ``injection``).
        blocking: named label -> premise error, for the labels that resolve to nothing in the
            version (a sub-unit the Act lacks, which resolves to its nearest ancestor, is reported
            but blocks no part: the part is answered from that ancestor).
    """
    from labourcrew.retrieval.exact import find_section_refs

    texts = list(getattr(spotting, "parts", []) or []) or [getattr(spotting, "question", "")]
    injected = list(getattr(spotting, "injection", []) or [])
    if injected and not getattr(spotting, "parts", None):
        from labourcrew.retrieval.issue_spotter import split_injection

        texts = [split_injection(getattr(spotting, "question", ""))[0] or texts[0]]
    out = []
    for i, text in enumerate(texts, 1):
        named = [r.label for r in find_section_refs(text)]
        bad = [blocking[lb] for lb in named if lb in blocking]
        out.append(QuestionPart(index=i, text=text, answered=False, premise_error="; ".join(bad) or None))
    for j, text in enumerate(injected, len(out) + 1):
        out.append(QuestionPart(index=j, text=text, answered=False, injection=True))
    return out


@dataclass(frozen=True)
class GateInputs:
    """What the gate reads from the question besides the claims: its primary issue, its parts (each
    with the false premise it rests on), the premise errors and which qualifiers bear on it.
    """

    primary: PrimaryIssue
    parts: list[QuestionPart]
    premise_errors: list[str]
    qualifiers_of: Callable[[str], list[str]]
    nothing_matched: bool = False


def gate_inputs(graph: StatuteGraph, spotting: object, question: str, version: str,
                facts: Sequence[Fact] = (), *, thesaurus: Thesaurus) -> GateInputs:
    """The one reading of a question for the gate, used by the board's Trust Gate and by the
    re-gating of a saved run (:mod:`labourcrew.gate.recalibration`), so both decide alike.

    Args:
        graph: the StatuteGraph.
        spotting: the Issue Spotter's record (``section_labels``, ``parts``, ...), or None.
        question: the question as asked.
        version: the statute version answered.
        facts: facts the user gave (:func:`~labourcrew.gate.clarify.known_facts`).
        thesaurus: the thesaurus the settings configure (``load_thesaurus(settings.relevance.thesaurus_path)``),
            for :func:`matched_nothing`.
    """
    from labourcrew.gate.clarify import bearing_qualifiers
    from labourcrew.retrieval.exact import resolve_label

    labels = list(dict.fromkeys(getattr(spotting, "section_labels", None) or []))
    resolved = {lb: resolve_label(graph, version, lb) for lb in labels}
    by_label = premise_by_label(labels, resolved, version, graph)
    section_ids = list(dict.fromkeys(n for n in resolved.values() if n))
    blocking = {lb: msg for lb, msg in by_label.items() if resolved.get(lb) is None}
    return GateInputs(
        primary=primary_issue(spotting, section_ids, question),
        parts=question_parts(spotting, blocking) if spotting is not None else [],
        premise_errors=list(by_label.values()),
        qualifiers_of=bearing_qualifiers(graph, question, facts),
        nothing_matched=matched_nothing(question, graph, spotting, version, thesaurus=thesaurus),
    )


def settle(
    released: Sequence[GatedClaim],
    claims: Sequence[Claim],
    *,
    role_status: Mapping[str, RoleStatus],
    primary: PrimaryIssue,
    context_of: Callable[[str], str],
    parts: Sequence[QuestionPart] = (),
    premise_errors: Sequence[str] = (),
    qualifiers_of: Callable[[str], Sequence[str]] | None = None,
    uncalibrated_note: str | None = None,
) -> tuple[ReleaseStatus, str, Coverage, list[str], list[QuestionPart], list[str]]:
    """The release status of a set of released claims: every rule that sets or lowers it, in one place.

    Used by :func:`decide` and by the ablations' re-gating with checks switched off
    (:func:`~labourcrew.gate.recalibration.regate_with_checks`), so they cannot drift apart.

    Args:
        released: the released claims (gated; their citations' ``verified`` flags are read).
        claims: the same claims as ledger claims (coverage and parts read their citations).
        role_status: role -> aggregated status (``failed`` ones degrade).
        primary: the question's primary issue (coverage).
        context_of: node id -> section text (coverage).
        parts: the question's parts (:func:`question_parts`).
        premise_errors: the question's premise errors.
        qualifiers_of: node id -> bearing qualifiers (withheld ones make the answer incomplete).
        uncalibrated_note: set when a calibrated run fell back to the categorical gate: the
            answer is then DEGRADED at best, with this note.

    Returns:
        ``(status, reason, coverage, failed roles, parts with answered flags, withheld qualifiers)``.
    """
    cov = coverage(primary, list(claims), context_of)
    failed = sorted(r for r, s in role_status.items() if s.status == "failed")
    status, why = release_status(released, failed, cov.covered)
    if uncalibrated_note is not None and status != ReleaseStatus.UNDECIDED:
        why = _uncalibrated_reason(status, why)
        status = ReleaseStatus.DEGRADED
        why = bilingual(f"অক্যালিব্রেটেড গেট: {bangla_part(uncalibrated_note)}; {bangla_part(why)}",
                        f"uncalibrated (categorical gate): {english_part(uncalibrated_note) or uncalibrated_note}; "
                        f"{english_part(why) or why}")
    status, why, gated_parts, withheld_q = _qualify_status(
        status, why, released, claims, parts, premise_errors, qualifiers_of, context_of, cov.covered
    )
    return status, why, cov, failed, gated_parts, withheld_q


def _uncalibrated_reason(status: ReleaseStatus, why: str) -> str:
    """The reason of a release no risk bound stands behind: TGLO's "covers the question's main issue" would
    contradict "the quoted provision may not answer", so it says what the checks found instead.
    """
    return bilingual(*CATEGORICAL_TGLO_REASON) if status == ReleaseStatus.TGLO else why


def matched_nothing(question: str | None, graph: StatuteGraph | None, spotting: object | None = None,
                    version: str = "2025", *, thesaurus: Thesaurus) -> bool:
    """Whether nothing in the question matched the Act: then nothing is released in any gate mode and no
    closest provision is listed (:attr:`GateResult.nothing_matched`).

    True when the question shares no content word with any text of the Act
    (:func:`~labourcrew.relevance.features.act_words`), names no section that ``version`` has (of
    "ধারা ২৭(৯)" the section 27 counts), and has no concept of ``thesaurus`` (the one the settings
    configure, ``relevance.thesaurus_path``, as retrieval uses) or of the Issue Spotter: the dense
    encoder always returns *something*; "asdf qwer ;;;;" listed 136(1), 27(4), 151(1) and 129 and the
    categorical gate released 151(1)(d); "ধারা ৯৯৯ কী বলে?" listed 2(49A) ("month") and 162(4).
    "ধারা ৪০০ অনুযায়ী ওভারটাইমের হার কত?" still lists the overtime rule, "ধারা ২৬ কী বলে?" section 26.
    No dev or ``cal_v2`` question matches nothing; 1 of 2,247 hand-written questions does (a romanised one).
    False without a question or a graph.
    """
    if not question or graph is None:
        return False
    from labourcrew.relevance.features import act_words
    from labourcrew.statute.ids import section_of_label

    named = any(f"{version}:{section_of_label(label)}" in graph.units
                for label in getattr(spotting, "section_labels", None) or [])
    return not (named or act_words(question, graph) or getattr(spotting, "concepts", None)
                or thesaurus.match(question))


def premise_blocks(parts: Sequence[QuestionPart], premise_errors: Sequence[str]) -> bool:
    """Whether false premises block the whole question: there are some and no part is free of one
    (a part with content, not an injected instruction). Then nothing is released.
    """
    free = [p for p in parts if p.premise_error is None and not p.injection and _part_has_content(p)]
    return bool(premise_errors) and not free


def _part_has_content(part: QuestionPart) -> bool:
    from labourcrew.retrieval.exact import find_section_refs
    from labourcrew.retrieval.issue_spotter import match_concepts

    text = part.text
    for ref in find_section_refs(text):
        text = text.replace(ref.surface, " ")
    return bool(match_concepts(text))


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
    parts: Sequence[QuestionPart] = (),
    qualifiers_of: Callable[[str], Sequence[str]] | None = None,
    nothing_matched: bool = False,
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
            they block only the parts that rest on them: nothing is released when no part of the
            question is free of a false premise, otherwise the other parts are answered and the
            status is at best DEGRADED, naming the premise.
        weights: trust-score weights.
        parts: the question's parts (:func:`question_parts`); each is reported answered or not.
        qualifiers_of: node id -> provisos/explanations of that unit that bear on the question
            (not ruled out by the facts). A released rule with one that is not released makes
            the answer incomplete: DEGRADED, never TGLO.

    Returns:
        The :class:`GateResult`.
    """
    tau = calibration.tau
    # A record for another system (gate.system) never gives TGLO: by default it fails closed (τ = ∞);
    # opted in, the categorical gate decides and the answer is marked uncalibrated (DEGRADED at best).
    uncalibrated = mode == "calibrated" and calibration.fallback == "categorical"
    if uncalibrated:
        mode = "categorical"
    blocked = premise_blocks(parts, premise_errors)
    gated: list[GatedClaim] = []
    for claim in claims:
        check = check_claim(claim, pack)
        finding = findings.get(claim.claim_id)
        score, components = score_claim(claim, pack, verdict=finding, check=check, weights=weights)
        verdict = finding.verdict if finding else None
        reason: str | None = None
        if nothing_matched:
            reason = "nothing in the question matched the Act (matched_nothing)"
        elif blocked:
            reason = "প্রশ্নের ভিত্তি ভুল (premise): " + "; ".join(premise_errors)
        elif not check.all_ok:
            bad = [f"{r.node_id}: {r.code}" for r in check.results if not r.ok]
            reason = "citation not verified (" + ", ".join(bad) + ")"
        elif mode == "categorical":
            if verdict != Verdict.SUPPORT:
                reason = f"auditor verdict {verdict.value if verdict else 'none (not audited)'}, not SUPPORT"
        elif math.isinf(tau):
            # The statistical detail is in the run's calibration_note, not repeated under every quote.
            reason = "τ = ∞: the Trust Gate fails closed"
        elif score < tau:
            reason = f"trust score {score:.3f} < τ {_fmt(tau)}"
        gated.append(
            GatedClaim(
                claim_id=claim.claim_id,
                side=claim.side,
                round=claim.round,
                retrieval_round=claim.retrieval_round,
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
    released = [g for g in gated if g.accepted]
    status, why, cov, failed, gated_parts, withheld_q = settle(
        released, accepted_claims, role_status=role_status, primary=primary, context_of=context_of, parts=parts,
        premise_errors=premise_errors, qualifiers_of=qualifiers_of,
        uncalibrated_note=calibration.note if uncalibrated else None,
    )
    if status == ReleaseStatus.UNDECIDED and nothing_matched and not premise_errors:
        why = bilingual(*NOT_MATCHED)
    elif status == ReleaseStatus.UNDECIDED:
        why = _undecided_reason(blocked, premise_errors, claims, failed, mode, tau, calibration)
    elif mode == "categorical" and not uncalibrated:
        # The opt-in categorical gate: "verified" means verbatim and SUPPORTed, not bounded risk (a trial's
        # CLI line called a temporary worker's rule, quoted to a permanent worker, verified).
        why = _uncalibrated_reason(status, why)
        bn, en = bangla_part(why), english_part(why)
        why = bilingual(CATEGORICAL_CAVEAT[0] + bn, CATEGORICAL_CAVEAT[1] + en) if en else CATEGORICAL_CAVEAT[0] + bn
    note = calibration.note if uncalibrated else None
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
        nothing_matched=nothing_matched,
        status_reason_en=english_part(why),
        parts=gated_parts,
        withheld_qualifiers=withheld_q,
    )


def withheld_qualifiers(cited: Sequence[str], qualifiers_of: Callable[[str], Sequence[str]] | None) -> list[str]:
    """The qualifiers of released citations that no released claim cites, in citation order, each once.

    Args:
        cited: node ids cited by the released claims, in order.
        qualifiers_of: node id -> the qualifiers bearing on the question
            (:func:`~labourcrew.gate.clarify.bearing_qualifiers`); None: none.

    Returns:
        Node ids; non-empty lowers TGLO to DEGRADED ("the answer is incomplete").
    """
    if qualifiers_of is None:
        return []
    ok = set(cited)
    out: list[str] = []
    for nid in dict.fromkeys(cited):
        out.extend(q for q in qualifiers_of(nid) if q not in ok and q not in out)
    return out


def _qualify_status(
    status: ReleaseStatus,
    why: str,
    released: Sequence[GatedClaim],
    accepted_claims: Sequence[Claim],
    parts: Sequence[QuestionPart],
    premise_errors: Sequence[str],
    qualifiers_of: Callable[[str], Sequence[str]] | None,
    context_of: Callable[[str], str],
    covered: bool,
) -> tuple[ReleaseStatus, str, list[QuestionPart], list[str]]:
    """Parts answered, withheld qualifiers, premise: each can only lower TGLO to DEGRADED."""
    from labourcrew.statute.ids import citation_label_bn
    from labourcrew.statute.normalize import to_bangla_digits

    gated_parts = _answer_parts(parts, accepted_claims, context_of, covered)
    withheld_q = withheld_qualifiers([e.node_id for g in released for e in g.evidence], qualifiers_of)
    if status == ReleaseStatus.UNDECIDED:
        return status, why, gated_parts, withheld_q
    extra: list[tuple[str, str]] = []
    if withheld_q:
        names = ", ".join(citation_label_bn(q.split(":", 1)[-1]) for q in withheld_q)
        extra.append((f"উত্তরটি অসম্পূর্ণ: নিয়মটির শর্ত/ব্যতিক্রম ({names}) যাচাই করা যায়নি",
                      f"the answer is incomplete: a condition/exception of the rule ({', '.join(withheld_q)}) was not verified"))
    if premise_errors:
        extra.append(("প্রশ্নের একটি অংশের ভিত্তি ভুল: " + "; ".join(bangla_part(p) for p in premise_errors),
                      "part of the question rests on a false premise"))
    open_parts = [p for p in gated_parts if not p.injection and p.premise_error is None and not p.answered]
    if len(gated_parts) > 1 and open_parts and any(p.answered for p in gated_parts):
        idx = ", ".join(to_bangla_digits(str(p.index)) for p in open_parts)
        extra.append((f"প্রশ্নের অংশ {idx}-এর উত্তর যাচাই করা যায়নি",
                      f"part(s) {', '.join(str(p.index) for p in open_parts)} could not be answered"))
    if not extra:
        return status, why, gated_parts, withheld_q
    bn = "; ".join(e[0] for e in extra)
    en = "; ".join(e[1] for e in extra)
    if status == ReleaseStatus.TGLO:
        return ReleaseStatus.DEGRADED, bilingual(bn, en), gated_parts, withheld_q
    return status, bilingual(bangla_part(why) + "; " + bn, (english_part(why) or why) + "; " + en), gated_parts, withheld_q


def _undecided_reason(
    premise_blocks: bool,
    premise_errors: Sequence[str],
    claims: Sequence[Claim],
    failed: Sequence[str],
    mode: str,
    tau: float,
    calibration: CalibrationRecord,
) -> str:
    """Why nothing was released: no answer could be VERIFIED, and why -- never "the law is silent"."""
    if premise_blocks:
        return bilingual("কোনো উত্তর যাচাই করা যায়নি, কারণ প্রশ্নের ভিত্তি ভুল: "
                         + "; ".join(bangla_part(p) for p in premise_errors),
                         "no answer could be verified: the question rests on a false premise: "
                         + "; ".join(english_part(p) or p for p in premise_errors))
    if not claims and failed:
        return bilingual(f"কোনো উত্তর যাচাই করা যায়নি: বিশ্লেষণের এক বা একাধিক ধাপ ব্যর্থ হয়েছে ({', '.join(failed)}); আবার চেষ্টা করুন",
                         f"no answer could be verified: role(s) failed: {', '.join(failed)} (see role_status)")
    if not claims:
        return bilingual(*NOT_VERIFIED_NO_CLAIM)
    if mode == "calibrated" and math.isinf(tau):
        return _fail_closed_reason(calibration)
    if mode == "categorical":
        return bilingual("কোনো উত্তর যাচাই করা যায়নি: কোনো উদ্ধৃতি নিরীক্ষকের সমর্থন পায়নি",
                         "no answer could be verified: no quote was SUPPORTed by the auditor")
    return bilingual(*NOT_VERIFIED_THRESHOLD)


def _fail_closed_reason(calibration: CalibrationRecord) -> str:
    """Why a calibrated gate at τ = ∞ released nothing: no usable record for this system (the
    stand-in's note says which check failed), or this system's own calibration found no τ.
    """
    from labourcrew.gate.crc import is_stand_in

    if is_stand_in(calibration):
        note = calibration.note or "no calibration record"
        bn_cause = f" ({note.split(' — ')[0]})" if english_part(note) else ""
        return bilingual(f"কোনো উত্তর যাচাই করা যায়নি: এই ব্যবস্থার জন্য ব্যবহারযোগ্য কোনো ক্যালিব্রেশন রেকর্ড নেই{bn_cause}, "
                         "তাই নির্ভরযোগ্যতা-যাচাই (Trust Gate) কিছুই প্রকাশ করে না (τ = ∞); Calibration পৃষ্ঠায় এই "
                         "ব্যবস্থার জন্য τ নির্ণয় করুন",
                         "no answer could be verified: the Trust Gate releases nothing (τ = ∞) because there is no "
                         f"calibration record this system can use: {english_part(note) or note}")
    alpha = f"{calibration.alpha:.2f}"
    return bilingual(f"কোনো উত্তর যাচাই করা যায়নি: এই ব্যবস্থার ক্যালিব্রেশনে এমন কোনো সীমা (τ) পাওয়া যায়নি যাতে "
                     f"ভুলের হার α = {to_bangla_digits(alpha)}-এর নিচে থাকে, তাই নির্ভরযোগ্যতা-যাচাই "
                     "(Trust Gate) কিছুই প্রকাশ করে না (τ = ∞)",
                     f"no answer could be verified: calibration for this system found no threshold that keeps the "
                     f"error rate under α = {alpha}, so the Trust Gate releases nothing (τ = ∞)")


def _answer_parts(
    parts: Sequence[QuestionPart], accepted: Sequence[Claim], context_of: Callable[[str], str], covered: bool
) -> list[QuestionPart]:
    from labourcrew.retrieval.issue_spotter import spot_issues

    out = []
    for p in parts:
        if p.injection or p.premise_error is not None or not accepted:
            out.append(p)
            continue
        if len(parts) == 1 or sum(1 for x in parts if not x.injection) == 1:
            ids = [c.claim_id for c in accepted]
            out.append(p.model_copy(update={"answered": covered, "claim_ids": ids if covered else []}))
            continue
        primary = primary_issue(spot_issues(p.text), [], p.text)
        ids = [c.claim_id for c in accepted if coverage(primary, [c], context_of).covered]
        out.append(p.model_copy(update={"answered": bool(ids), "claim_ids": ids}))
    return out


def undecided_result(reason: str, calibration: CalibrationRecord, mode: GateMode) -> GateResult:
    """An UNDECIDED decision releasing nothing (used when the gate itself could not run)."""
    return GateResult(
        status=ReleaseStatus.UNDECIDED,
        status_reason=reason,
        status_reason_en=english_part(reason),
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
