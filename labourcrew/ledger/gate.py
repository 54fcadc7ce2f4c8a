"""Records of the release phase: the calibration record, the Trust Gate's result, the opinion.

:class:`CalibrationRecord` is the persisted τ (and what it was computed from; ``tau = inf`` fails
closed); :class:`GateResult` is what the Trust Gate decided per claim (:class:`GatedClaim`) and
for the answer (status, coverage of the primary issue); :class:`Opinion` is the released text.
"""

from __future__ import annotations

import logging
import math
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    ValidationError,
)

from labourcrew.errors import DataError
from labourcrew.fileio import write_json_atomic
from labourcrew.ledger.records import (
    ClaimCategory,
    Direction,
    LedgerRecord,
    ReleaseStatus,
    Side,
    TrustComponents,
    Verdict,
)

__all__ = [
    "Tau", "LOSS_BOUND", "SystemFingerprint", "CalibrationRecord", "GateMode", "PrimaryIssue", "Coverage", "CitedEvidence",
    "GatedClaim", "GateResult", "OpinionSentence", "EnglishBlock", "OpinionCheck", "Opinion",
    "Fact", "QuestionPart", "DirectAnswer", "Qualifier", "AmendmentChange", "ClosestClause", "ClosestProvision",
    "ClarificationChoice", "Clarification",
]

logger = logging.getLogger(__name__)


LOSS_BOUND = 1.0  # B: the fraction loss lies in [0, 1]


def _parse_tau(value: Any) -> Any:
    # JSON has no infinity: a fail-closed threshold is written "inf" (null and "Infinity" read too).
    if value is None or (isinstance(value, str) and value.strip().lower() in {"inf", "+inf", "infinity"}):
        return math.inf
    return value


def _check_tau(value: float) -> float:
    if math.isnan(value) or value == -math.inf:
        raise ValueError("tau must be a number or +inf")
    return value


Tau = Annotated[
    float,
    BeforeValidator(_parse_tau),
    AfterValidator(_check_tau),
    PlainSerializer(lambda v: "inf" if math.isinf(v) else v, return_type=Any, when_used="json"),
]
"""A Trust Gate threshold in [-inf excluded, +inf]; +inf (fail closed) round-trips through JSON as "inf"."""


class SystemFingerprint(BaseModel):
    """The system a τ was fitted for: what produced the claims and shaped their trust scores.

    A τ holds only for the scores of the system whose labelled claims it was fitted on; the Trust
    Gate compares this fingerprint with the running system's (``labourcrew.gate.system``).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    backend: str = Field(description="Model backend of the language roles ('offline' or 'openai').")
    model: str | None = Field(default=None, description="Chat model name (None for the offline extractive engine).")
    role_models: dict[str, str] = Field(default_factory=dict, description="Per-role model overrides.")
    scoring_sha256: str = Field(
        description="sha256 of the settings that shape trust scores (trust, offline, relevance, retrieval)."
    )
    relevance_model_sha256: str | None = Field(
        default=None, description="sha256 of the relevance model artefact's bytes (None: no artefact)."
    )


class CalibrationRecord(BaseModel):
    """A persisted Trust Gate calibration (``τ`` and what it was computed from).

    ``tau`` may be ``inf`` (fail closed); it is written to JSON as the string ``"inf"`` and read
    back from ``"inf"``, ``"Infinity"`` or ``null``. ``method`` says which guarantee ``tau``
    carries: ``"ltt"`` (Learn-then-Test: selective risk <= α with probability >= 1 - δ) or
    ``"crc"`` (conformal risk control: mean per-question loss <= α in expectation).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    tau: Tau = Field(description="Release threshold: claims with trust score >= tau are released.")
    alpha: float = Field(gt=0.0, lt=1.0, description="Target risk level α.")
    n: int = Field(ge=0, description="Number of calibration questions.")
    empirical_risk: float = Field(
        ge=0.0, le=1.0, description="Monotonised empirical risk R̂(τ̂) on the calibration set."
    )
    bound: float = Field(
        ge=0.0, le=1.0, description="n/(n+1)·R̂(τ̂) + B/(n+1) (1.0 when n == 0)."
    )
    labels_sha256: str = Field(description="sha256 of the labels the calibration used.")
    created: str = Field(description="Creation time, ISO 8601 UTC.")
    method: Literal["crc", "ltt"] = Field(default="crc", description="Calibration method.")
    grid_size: int = Field(ge=0, description="Number of candidate thresholds scanned.")
    loss_bound: float = Field(default=LOSS_BOUND, gt=0.0, description="B, the upper bound of the loss.")
    note: str | None = Field(default=None, description="Why the gate fails closed, if it does.")
    delta: float | None = Field(
        default=None, gt=0.0, lt=1.0, description="LTT: the guarantee holds with probability >= 1 - delta."
    )
    n_releasing: int | None = Field(
        default=None, ge=0, description="Calibration questions releasing at least one claim at tau."
    )
    release_rate: float | None = Field(default=None, ge=0.0, le=1.0, description="n_releasing / n.")
    selective_risk: float | None = Field(
        default=None, ge=0.0, le=1.0,
        description="Share of releasing calibration questions whose released claims include >= 1 unfaithful one.",
    )
    p_value: float | None = Field(
        default=None, ge=0.0, le=1.0,
        description="LTT: Hoeffding-Bentkus p-value of 'selective risk > α' at tau (at the first failing "
                    "threshold when the gate fails closed).",
    )
    system: SystemFingerprint | None = Field(
        default=None, description="The system the labelled claims came from (None: not recorded)."
    )
    fallback: Literal["none", "categorical"] = Field(
        default="none",
        description="Only on a record synthesised for a run whose system differs from the stored one: "
                    "'categorical' lets the categorical gate run, uncalibrated (DEGRADED at best).",
    )

    @property
    def fail_closed(self) -> bool:
        """True when the gate releases nothing (``tau`` is infinite)."""
        return math.isinf(self.tau)

    def releases(self, score: float) -> bool:
        """Whether a claim with this trust score is released (``score >= tau``)."""
        return not math.isnan(score) and score >= self.tau

    def save(self, path: str | Path) -> Path:
        """Write the record as JSON atomically (temp file in the same folder, then rename).

        Returns:
            The path written.
        """
        path = write_json_atomic(path, self.model_dump(mode="json"))
        logger.info("saved calibration record tau=%s n=%d to %s", self.tau, self.n, path)
        return path

    @classmethod
    def load(cls, path: str | Path) -> CalibrationRecord:
        """Read a record written by :meth:`save`.

        Raises:
            DataError: the file is missing, not JSON, or not a valid record.
        """
        path = Path(path)
        try:
            return cls.model_validate_json(path.read_bytes())
        except FileNotFoundError as exc:
            raise DataError(f"no calibration record at {path}") from exc
        except (ValidationError, ValueError, OSError) as exc:
            raise DataError(
                f"calibration record {path} is unreadable: {exc}",
                help_message="Re-run calibration to rewrite the record.",
            ) from exc


class PrimaryIssue(LedgerRecord):
    """The question's primary issue, as the gate checks coverage of it."""

    description: str = Field(description="Human-readable statement, e.g. 'concept: maternity'.")
    section_ids: list[str] = Field(
        default_factory=list, description="Node ids of the sections the question names (resolved)."
    )
    terms: list[str] = Field(
        default_factory=list,
        description="Words whose presence in the cited sections shows coverage (normalised).",
    )
    min_share: float = Field(
        default=0.5, ge=0.0, le=1.0, description="Share of ``terms`` that must occur."
    )
    question_terms: list[str] = Field(
        default_factory=list,
        description="The concept's trigger words as the question uses them; any one of them in the cited "
        "sections also shows coverage (the Act's wording in ``terms`` lists alternatives).",
    )


class Coverage(LedgerRecord):
    """Whether the accepted claims cover the primary issue."""

    covered: bool = Field(description="True when the accepted claims cover the primary issue.")
    method: Literal["sections", "terms", "none"] = Field(
        description="sections: named sections cited; terms: words found; none: nothing accepted."
    )
    share: float = Field(ge=0.0, le=1.0, description="Share of sections/terms covered.")
    detail: str = Field(description="What was found, for people.")


class CitedEvidence(LedgerRecord):
    """One citation of a gated claim with the Citation Checker's result."""

    node_id: str = Field(description="Cited node id.")
    section: str | None = Field(description="ASCII section label of the cited unit (None if off the pack).")
    span: str = Field(description="The span as cited.")
    verified: bool = Field(description="True when the span occurs in the unit (normalised comparison).")
    code: str = Field(description="Citation Checker outcome: ok, unknown_node, span_too_short, span_not_found.")
    matched_text: str | None = Field(default=None, description="Verbatim source substring matched (for highlighting).")


class GatedClaim(LedgerRecord):
    """A claim with everything the gate used to decide on it."""

    claim_id: str = Field(description="Claim id.")
    side: Side = Field(description="Side that made it.")
    round: int = Field(ge=0, description="Deliberation round it was made in.")
    retrieval_round: int = Field(default=0, ge=0, description="Retrieval round it was made in (0: before any re-entry).")
    challenge_to: str | None = Field(description="Claim it challenges, if any.")
    text: str = Field(description="The claim text.")
    category: ClaimCategory = Field(description="LegalHalluLens category (from the auditor's finding; factual without one).")
    evidence: list[CitedEvidence] = Field(description="Its citations, checked.")
    verdict: Verdict | None = Field(description="Trust Auditor verdict (None: never audited, scored as NEI).")
    direction: Direction | None = Field(default=None, description="Direction of a departure, if any.")
    trust_score: float = Field(ge=0.0, le=1.0, description="Composite trust score S in [0,1].")
    trust_components: TrustComponents = Field(description="The score's components.")
    accepted: bool = Field(description="True when the gate releases the claim.")
    rejection_reason: str | None = Field(description="Why it was not released (None when accepted).")


class GateResult(LedgerRecord):
    """The Trust Gate's decision for one run."""

    status: ReleaseStatus = Field(description="TGLO, DEGRADED or UNDECIDED (module docstring).")
    status_reason: str = Field(description="Why this status, for people.")
    mode: GateMode = Field(description="calibrated (τ from CRC) or categorical (auditor label decides).")
    tau: Tau = Field(description="Threshold used (inf = fail closed); meaningless in categorical mode.")
    alpha: float = Field(description="Target risk α of the calibration.")
    calibration_n: int = Field(ge=0, description="Calibration questions behind τ (0 without a record).")
    calibration_note: str | None = Field(description="Why τ is infinite, when it is.")
    claims: list[GatedClaim] = Field(description="Every claim, in ledger order, with its decision.")
    accepted_ids: list[str] = Field(description="Ids of released claims, in ledger order.")
    coverage: Coverage = Field(description="Coverage of the primary issue by the released claims.")
    failed_roles: list[str] = Field(description="Roles that failed irrecoverably.")
    premise_errors: list[str] = Field(description="Problems with the question's premise (missing sections).")
    nothing_matched: bool = Field(
        default=False, description="No word of the question occurs in the Act, it names no existing section and no "
                                   "concept: nothing is released and no closest provision is listed.")
    status_reason_en: str = Field(default="", description="The status reason in English (status_reason is Bangla first).")
    parts: list[QuestionPart] = Field(
        default_factory=list, description="Each part of a multi-part question and whether it was answered."
    )
    withheld_qualifiers: list[str] = Field(
        default_factory=list,
        description="Node ids of provisos/explanations that qualify a released rule, bear on the question, "
        "and were not released (the answer is then incomplete: DEGRADED, never TGLO).",
    )

    @property
    def fail_closed(self) -> bool:
        """True when τ is infinite in calibrated mode (nothing can be released)."""
        return self.mode == "calibrated" and math.isinf(self.tau)

    def accepted(self) -> list[GatedClaim]:
        """The released claims."""
        return [c for c in self.claims if c.accepted]


class Fact(LedgerRecord):
    """A fact the user supplied in answer to a clarifying question (``ask --fact key=value``)."""

    key: str = Field(description="Fact key, e.g. 'years_of_service', 'establishment'.")
    value: str = Field(description="The value given, e.g. '4' or 'tea_garden'.")
    label_bn: str = Field(default="", description="How the opinion states the assumed fact, in Bangla.")


class QuestionPart(LedgerRecord):
    """One part of a (multi-part) question and what the gate released for it."""

    index: int = Field(ge=1, description="1-based position in the question.")
    text: str = Field(description="The part as the Issue Spotter split it.")
    answered: bool = Field(description="True when a released claim's sections cover this part.")
    claim_ids: list[str] = Field(default_factory=list, description="Released claims that cover it.")
    premise_error: str | None = Field(default=None, description="The false premise this part rests on, if any.")
    injection: bool = Field(default=False, description="True for instruction-like text that is not a question (ignored).")


class DirectAnswer(LedgerRecord):
    """The one-line answer: the answering words of a verified quote, in a fixed frame (no own words)."""

    text_bn: str = Field(description="The line as printed: fixed frame + «phrase» + citation.")
    phrase: str = Field(description="The answering phrase, a verbatim substring of the quote.")
    quote: str = Field(description="The verified quote (span) the phrase was taken from.")
    node_id: str = Field(description="Unit the quote cites.")
    citation: str = Field(description="Bangla citation, e.g. 'ধারা ১১৫'.")
    claim_id: str | None = Field(default=None, description="Released claim it comes from (None: a qualifier picked by a fact).")
    verified: bool = Field(default=True, description="False when the phrase is from an unreleased qualifier chosen by a fact.")


class Qualifier(LedgerRecord):
    """A proviso / explanation / exception attached to a released rule (``exception``: a sub-section
    of the same section that carves the rule out, e.g. 108(2) for 108(1)).
    """

    node_id: str = Field(description="The qualifying unit.")
    citation: str = Field(description="Its Bangla citation, e.g. 'ধারা ১১৫-এর শর্তাংশ'.")
    kind: Literal["proviso", "explanation", "exception", "condition"] = Field(description="What kind of qualifier it is.")
    qualifies: str = Field(description="Node id of the released rule it qualifies.")
    text: str = Field(description="Its verbatim text (display-normalised).")
    released: bool = Field(description="True when a released claim quotes it (verified).")
    bears: bool = Field(description="True when it bears on the question (not ruled out by the facts given).")


class AmendmentChange(LedgerRecord):
    """What a cited section said in 2018 and says in 2025 (from the StatuteGraph's version diff)."""

    section: str = Field(description="ASCII section label.")
    node_id: str = Field(description="The cited 2025 unit.")
    status: Literal["amended", "inserted", "omitted"] = Field(description="Kind of change of the section.")
    before: str = Field(default="", description="The 2018 words (empty for an inserted unit).")
    after: str = Field(default="", description="The 2025 words.")
    text_bn: str = Field(description="One or two Bangla lines for the reader.")
    text_en: str = Field(default="", description="The same in English.")


class ClosestClause(LedgerRecord):
    """One clause (or paragraph) that completes a closest provision's lead-in («… মালিক-»)."""

    node_id: str = Field(description="Unit id.")
    citation: str = Field(description="Bangla citation.")
    text: str = Field(description="Its verbatim text (display-normalised), possibly shortened with '…'.")
    found: bool = Field(default=False, description="True when retrieval found this clause itself (on the pack, above the floor).")
    depth: int = Field(default=1, ge=1, description="Nesting under the lead-in: 1 for its clauses, 2 for their sub-clauses ...")
    tail: bool = Field(
        default=False, description="The closing words after the last clause («লিখিত নোটিশ প্রদান করিয়া …»), not a clause.")


class ClosestProvision(LedgerRecord):
    """A provision found on the pack, shown when nothing could be verified -- not an answer.

    A lead-in (StatuteGraph.clauses: 26(1) «… মালিক-») is shown with the clauses that complete it;
    a clause of a long list (23(4)(d)) with the end of the lead-in it completes as ``lead_in``.
    """

    node_id: str = Field(description="Unit id.")
    citation: str = Field(description="Bangla citation.")
    text: str = Field(description="Its verbatim text (display-normalised), possibly shortened with '…'.")
    claim_id: str | None = Field(default=None, description="The withheld claim that quoted it, if any.")
    why_withheld: str | None = Field(default=None, description="Why that claim was withheld (Bangla first).")
    lead_in: str | None = Field(
        default=None, description="For a clause shown alone: the end of the lead-in it completes ('… যথাঃ-'), verbatim.")
    clauses: list[ClosestClause] = Field(
        default_factory=list, description="For a lead-in: the clauses that complete it, document order (at most a few).")
    clauses_left_out: int = Field(default=0, ge=0, description="Clauses of the lead-in not listed (a long list).")
    weak: bool = Field(
        default=False, description="Listed although rated below the quoting floor: no unit on the pack cleared it.")

    def node_ids(self) -> list[str]:
        """The units this entry shows: itself, then its clauses."""
        return [self.node_id, *(c.node_id for c in self.clauses)]


class ClarificationChoice(LedgerRecord):
    """One answer button of a clarifying question."""

    value: str = Field(description="Fact value sent back with --fact key=value.")
    label_bn: str = Field(description="Button label in Bangla, drawn from the provision's wording.")
    node_id: str | None = Field(default=None, description="The provision the choice comes from.")


class Clarification(LedgerRecord):
    """A short clarifying question about a fact that decides which released rule applies."""

    key: str = Field(description="Fact key the answer sets.")
    question_bn: str = Field(description="The question, in Bangla.")
    question_en: str = Field(description="The question, in English.")
    choices: list[ClarificationChoice] = Field(description="The answers offered (from the retrieved provisions).")
    source: str = Field(description="Node id of the provision whose condition the question decides.")


class OpinionSentence(LedgerRecord):
    """One sentence of the narrative and the released claims it renders."""

    text: str = Field(description="The sentence as printed.")
    claim_ids: list[str] = Field(description="Released claims this sentence renders (empty for the framing line).")
    citations: list[str] = Field(description="Bangla citations it carries, e.g. ['ধারা ২৭(১)'].")


class EnglishBlock(LedgerRecord):
    """English rendering of one released claim."""

    claim_id: str = Field(description="The released claim.")
    section: str | None = Field(description="ASCII section label of the English parallel (None: claim text itself).")
    text: str = Field(description="English text: the section's unofficial translation, or the English claim.")
    label: str = Field(description="Status label, e.g. 'unofficial translation, amended to 2018'.")
    outdated: bool = Field(description="True when the Bangla text of this section changed after 2018.")


class OpinionCheck(LedgerRecord):
    """Result of the post-composition check of the narrative."""

    ok: bool = Field(description="True when every sentence is a released claim and nothing rejected leaked.")
    dropped_sentences: list[str] = Field(default_factory=list, description="Sentences removed by the check.")
    leaked_claim_ids: list[str] = Field(default_factory=list, description="Rejected claims whose content was found (before dropping).")


class Opinion(LedgerRecord):
    """The narrative released to the user."""

    opinion_bn: str = Field(description="The Bangla narrative.")
    sentences: list[OpinionSentence] = Field(description="Its sentences, in order (framing line first).")
    opinion_en: str | None = Field(default=None, description="English rendering (None unless requested).")
    english: list[EnglishBlock] = Field(default_factory=list, description="English blocks per released claim.")
    check: OpinionCheck = Field(description="The post-composition check.")
    status_line_bn: str = Field(default="", description="The status line (Bangla), as in the framing sentence.")
    direct_answer: DirectAnswer | None = Field(default=None, description="The one-line answer, when a quote has one.")
    qualifiers: list[Qualifier] = Field(default_factory=list, description="Provisos/explanations/conditions of the released rules.")
    incomplete: bool = Field(default=False, description="True when a qualifier bearing on the question was withheld.")
    amendments: list[AmendmentChange] = Field(default_factory=list, description="২০২৫ সালে সংশোধিত: changes of cited sections.")
    closest: list[ClosestProvision] = Field(
        default_factory=list, description="Closest provisions found, NOT verified to answer (shown when nothing was released)."
    )
    parts: list[QuestionPart] = Field(default_factory=list, description="Parts of the question and which were answered.")
    premise_notes: list[str] = Field(default_factory=list, description="False premises named and corrected (Bangla first).")
    facts: list[Fact] = Field(default_factory=list, description="Facts the answer assumed (given by the user).")
    clarifications: list[Clarification] = Field(default_factory=list, description="Questions back for deciding facts (at most two).")
    hints: list[str] = Field(default_factory=list, description="Hints to the user (Bangla first), e.g. write in Bangla script.")
    guarantee_bn: str | None = Field(default=None, description="What the release guarantees (gate.guarantee_text), Bangla.")
    guarantee_en: str | None = Field(default=None, description="The same in English.")


GateMode = Literal["calibrated", "categorical"]
GateResult.model_rebuild()
