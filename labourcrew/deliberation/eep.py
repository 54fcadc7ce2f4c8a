"""Evidence Exchange Protocol (paper §3.4), enforced in code.

Rule: a side may only cite units that are already on the Formal Case Ledger's Evidence Pack. A
claim citing anything else is never constructed; the attempt is recorded as a
:class:`~labourcrew.ledger.records.RejectedClaim` with its reason, so the board (and the audit
trail) can see what was refused and why.

The EEP checks *membership and shape* only:

* every cited ``node_id`` is on the pack (code ``off_ledger``);
* at least one citation (``empty_evidence``), no blank span (``empty_span``), non-blank text
  (``empty_text``), a valid side, confidence in [0,1], no unknown fields (``invalid_shape``);
* ``challenge_to`` names a claim already on the ledger (``unknown_challenge``) and is not the
  claim itself (``self_challenge``); claim ids are unique (``duplicate_claim_id``).

Whether a span really occurs in the cited text is the Citation Checker's job
(:mod:`labourcrew.audit.citation_checker`), not the EEP's.

Usage::

    view = LedgerView(pack)
    result = make_claim(view, claim_id="w1", side="worker", text=..., evidence=[...],
                        confidence=0.8)
    if isinstance(result, Claim):
        view = view.with_claims([result])
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import ValidationError
from pydantic_core import to_jsonable_python

from labourcrew.errors import EvidenceError
from labourcrew.ledger.records import (
    Claim,
    EvidencePack,
    RejectedClaim,
    RejectionCode,
    Side,
    ledger_context,
)

__all__ = ["LedgerView", "make_claim", "make_claims", "claim_on_ledger"]

logger = logging.getLogger(__name__)

# pydantic error types raised by the Claim/EvidenceRef validators -> rejection codes.
_CODES: dict[str, RejectionCode] = {
    "empty_evidence": "empty_evidence",
    "empty_span": "empty_span",
    "empty_text": "empty_text",
    "self_challenge": "self_challenge",
}


class LedgerView:
    """Read-only view of what a claim may reference: pack node ids and claim ids on the ledger.

    Args:
        pack: the Evidence Pack on the ledger.
        claims: claims already on the ledger (for ``challenge_to`` and duplicate-id checks).

    The sets are frozen; :meth:`with_claims` returns a new view.
    """

    __slots__ = ("_pack", "_node_ids", "_claim_ids")

    def __init__(self, pack: EvidencePack, claims: Iterable[Claim] = ()) -> None:
        self._pack = pack
        self._node_ids: frozenset[str] = pack.node_ids()
        self._claim_ids: frozenset[str] = frozenset(c.claim_id for c in claims)

    @property
    def pack(self) -> EvidencePack:
        """The Evidence Pack this view guards."""
        return self._pack

    @property
    def node_ids(self) -> frozenset[str]:
        """Node ids a claim may cite."""
        return self._node_ids

    @property
    def claim_ids(self) -> frozenset[str]:
        """Claim ids already on the ledger."""
        return self._claim_ids

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._node_ids

    def with_claims(self, claims: Iterable[Claim]) -> LedgerView:
        """A new view that also knows ``claims`` (same pack)."""
        view = LedgerView(self._pack)
        view._claim_ids = self._claim_ids | {c.claim_id for c in claims}
        return view

    def context(self) -> dict[str, Any]:
        """The pydantic validation context that makes :class:`Claim` enforce this ledger."""
        return ledger_context(self._node_ids, self._claim_ids)

    def check(self, claim: Claim) -> None:
        """Re-check a claim built without ledger context (e.g. reloaded) against this ledger.

        Checks citation membership and the ``challenge_to`` target; not id uniqueness, so a
        claim already on the view can be re-checked.

        Raises:
            EvidenceError: a citation is off the ledger, or the challenged claim is unknown.
        """
        ctx = ledger_context(self._node_ids, self._claim_ids - {claim.claim_id})
        Claim.model_validate(claim.model_dump(), context=ctx)


def claim_on_ledger(view: LedgerView, **fields: Any) -> Claim:
    """Construct a claim on ``view``'s ledger, raising on any violation.

    Args:
        view: the ledger the claim is made on.
        **fields: :class:`Claim` fields (``evidence`` as EvidenceRef objects or dicts).

    Returns:
        The validated claim.

    Raises:
        EvidenceError: off-ledger citation, unknown challenge target or duplicate claim id.
        pydantic.ValidationError: bad shape (empty evidence or span, unknown field, ...).
    """
    return Claim.model_validate(fields, context=view.context())


def _jsonable(fields: Mapping[str, Any]) -> dict[str, Any]:
    return to_jsonable_python(dict(fields), fallback=repr)


def _side_of(fields: Mapping[str, Any]) -> Side | None:
    side = fields.get("side")
    return Side(side) if isinstance(side, str) and side in Side._value2member_map_ else None


def _code_for_error(exc: EvidenceError) -> RejectionCode:
    return getattr(exc, "code", "off_ledger")


def _code_for_validation(exc: ValidationError) -> tuple[RejectionCode, str]:
    errors = exc.errors(include_url=False)
    code: RejectionCode = next((_CODES[e["type"]] for e in errors if e["type"] in _CODES), "invalid_shape")
    parts = []
    for err in errors[:5]:
        loc = ".".join(str(p) for p in err["loc"]) or "claim"
        parts.append(f"{loc}: {err['msg']}")
    more = f" (+{len(errors) - 5} more)" if len(errors) > 5 else ""
    return code, "invalid claim: " + "; ".join(parts) + more


def make_claim(view: LedgerView, **fields: Any) -> Claim | RejectedClaim:
    """Public construction path of a claim under the EEP (paper §3.4).

    Args:
        view: the ledger view (Evidence Pack node ids and known claim ids).
        **fields: the attempted :class:`Claim` fields.

    Returns:
        The :class:`Claim` when it passes, else a :class:`RejectedClaim` carrying the attempted
        fields, a machine code and a reason. Never raises for bad claim content.
    """
    try:
        return claim_on_ledger(view, **fields)
    except EvidenceError as exc:
        code, reason = _code_for_error(exc), str(exc)
    except ValidationError as exc:
        code, reason = _code_for_validation(exc)
    logger.info("EEP rejected claim %r: %s (%s)", fields.get("claim_id"), reason, code)
    return RejectedClaim(
        attempted=_jsonable(fields), code=code, reason=reason, side=_side_of(fields)
    )


def make_claims(
    view: LedgerView, attempts: Iterable[Mapping[str, Any]]
) -> tuple[list[Claim], list[RejectedClaim], LedgerView]:
    """Admit a batch of attempted claims in order (later ones may challenge earlier ones).

    Args:
        view: the ledger before the batch.
        attempts: attempted claim field mappings.

    Returns:
        ``(claims, rejected, view_after)`` where ``view_after`` knows the admitted claim ids.
    """
    claims: list[Claim] = []
    rejected: list[RejectedClaim] = []
    for fields in attempts:
        result = make_claim(view, **dict(fields))
        if isinstance(result, Claim):
            claims.append(result)
            view = view.with_claims([result])
        else:
            rejected.append(result)
    return claims, rejected, view
