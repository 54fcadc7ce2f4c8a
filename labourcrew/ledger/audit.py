"""Records of the audit phase: Citation Checker results and skeptic findings (paper §3.5).

:class:`EvidenceCheck` / :class:`ClaimCheck` say whether each quoted span occurs verbatim in its
cited unit; :class:`SkepticReport` holds the typed skeptic checks of one claim and
:class:`ClaimConflict` a conflict between two claims found after the audits.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from labourcrew.ledger.records import ClaimCategory, Direction, LedgerRecord, Verdict

__all__ = ["CheckCode", "EvidenceCheck", "ClaimCheck", "SkepticReport", "ClaimConflict"]


class EvidenceCheck(LedgerRecord):
    """The Citation Checker's result for one citation."""

    node_id: str = Field(description="Cited node id.")
    span: str = Field(description="The span as cited.")
    ok: bool = Field(description="True when the node is on the pack and the span occurs in it.")
    code: CheckCode = Field(description="Outcome kind: ok, unknown_node, span_too_short, span_not_found.")
    reason: str = Field(description="Human-readable outcome.")
    start: int | None = Field(
        default=None, description="Start offset of the match in the unit's original text."
    )
    end: int | None = Field(
        default=None, description="End offset (exclusive) of the match in the unit's original text."
    )
    matched_text: str | None = Field(
        default=None, description="text[start:end]: the verbatim source substring to highlight."
    )
    span_norm_chars: int = Field(default=0, ge=0, description="Length of normalize(span).")
    node_norm_chars: int = Field(
        default=0, ge=0, description="Length of normalize(unit text); 0 for an unknown node."
    )


class ClaimCheck(LedgerRecord):
    """The Citation Checker's results for every citation of one claim, in citation order."""

    claim_id: str = Field(description="The checked claim.")
    results: list[EvidenceCheck] = Field(description="One result per EvidenceRef, in order.")

    @property
    def n_ok(self) -> int:
        """Number of passing citations."""
        return sum(r.ok for r in self.results)

    @property
    def validity(self) -> float:
        """Fraction of citations that pass, in [0,1]; 0.0 for a claim without citations."""
        return self.n_ok / len(self.results) if self.results else 0.0

    @property
    def all_ok(self) -> bool:
        """True when there is at least one citation and all pass."""
        return bool(self.results) and all(r.ok for r in self.results)


class SkepticReport(LedgerRecord):
    """Outcome of the typed skeptic checks on one claim."""

    category: ClaimCategory = Field(description="Claim category from its wording.")
    checks: dict[str, bool] = Field(description="Check name -> passed.")
    verdict_cap: Verdict | None = Field(
        description="Best verdict the checks allow (REFUTE or NEI), None when all checks pass."
    )
    direction: Direction | None = Field(
        description="extra_condition when the claim states what the evidence lacks; "
        "missing_condition when it drops a carve-out; None otherwise."
    )
    notes: list[str] = Field(default_factory=list, description="One line per failed check.")


class ClaimConflict(LedgerRecord):
    """Two claims that cite the same unit but state a modal with opposite polarity."""

    a: str = Field(description="claim_id of the first claim (ledger order).")
    b: str = Field(description="claim_id of the second claim.")
    node_ids: list[str] = Field(description="Units both claims cite.")
    reason: str = Field(description="What conflicts, for people.")


CheckCode = Literal["ok", "unknown_node", "span_too_short", "span_not_found"]
