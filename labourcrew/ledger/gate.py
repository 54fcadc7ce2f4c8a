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
    "Tau", "LOSS_BOUND", "CalibrationRecord", "GateMode", "PrimaryIssue", "Coverage", "CitedEvidence",
    "GatedClaim", "GateResult", "OpinionSentence", "EnglishBlock", "OpinionCheck", "Opinion",
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


class CalibrationRecord(BaseModel):
    """A persisted Trust Gate calibration (``τ`` and what it was computed from).

    ``tau`` may be ``inf`` (fail closed); it is written to JSON as the string ``"inf"`` and read
    back from ``"inf"``, ``"Infinity"`` or ``null``.
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
    method: Literal["crc"] = Field(default="crc", description="Calibration method.")
    grid_size: int = Field(ge=0, description="Number of candidate thresholds scanned.")
    loss_bound: float = Field(default=LOSS_BOUND, gt=0.0, description="B, the upper bound of the loss.")
    note: str | None = Field(default=None, description="Why the gate fails closed, if it does.")

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

    @property
    def fail_closed(self) -> bool:
        """True when τ is infinite in calibrated mode (nothing can be released)."""
        return self.mode == "calibrated" and math.isinf(self.tau)

    def accepted(self) -> list[GatedClaim]:
        """The released claims."""
        return [c for c in self.claims if c.accepted]


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


GateMode = Literal["calibrated", "categorical"]
