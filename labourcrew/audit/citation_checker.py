"""Citation Checker (paper §3.5): deterministic verification of every citation of a claim.

For each :class:`~labourcrew.ledger.records.EvidenceRef` of a claim:

1. the cited node must be on the Evidence Pack (``unknown_node`` otherwise);
2. the span, normalised with :func:`labourcrew.statute.normalize.normalize`, must have at least
   ``min_span_chars`` characters (``span_too_short``) -- a few characters occur almost anywhere
   and prove nothing -- unless it is the whole (short) unit text;
3. the normalised span must occur in the normalised unit text (``span_not_found``).

Normalising both sides makes Unicode-equivalent spellings match (ZWJ/ZWNJ, ``৷``/``।``,
Bangla/ASCII digits, ``ৰ``/``ক্ষ``, nukta forms, whitespace) while any change of a letter or digit
is caught. Passing citations carry the matching source offsets and substring (from
:func:`labourcrew.audit.spans.locate_span`) so the UI can highlight the verbatim statute text.

No model is involved; the same inputs always give the same results.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping

from labourcrew.audit.spans import locate_normalized
from labourcrew.ledger.audit import CheckCode, ClaimCheck, EvidenceCheck
from labourcrew.ledger.records import (
    Claim,
    EvidenceItem,
    EvidencePack,
    EvidenceRef,
)
from labourcrew.statute.normalize import normalize

__all__ = [
    "MIN_SPAN_CHARS",
    "check_ref",
    "check_claim",
    "check_claims",
]

logger = logging.getLogger(__name__)

MIN_SPAN_CHARS = 8
"""Shortest verifiable span, in characters of its normalised form."""


def _items(pack: EvidencePack | Mapping[str, EvidenceItem]) -> Mapping[str, EvidenceItem]:
    return pack.by_id() if isinstance(pack, EvidencePack) else pack


def check_ref(
    ref: EvidenceRef,
    pack: EvidencePack | Mapping[str, EvidenceItem],
    *,
    min_span_chars: int = MIN_SPAN_CHARS,
) -> EvidenceCheck:
    """Check one citation against the Evidence Pack.

    Args:
        ref: the citation.
        pack: the Evidence Pack (or its items keyed by node id).
        min_span_chars: shortest acceptable normalised span (a span equal to the whole unit text
            is accepted whatever its length).

    Returns:
        The :class:`EvidenceCheck`; never raises for bad citations.
    """
    item = _items(pack).get(ref.node_id)
    if item is None:
        return EvidenceCheck(
            node_id=ref.node_id,
            span=ref.span,
            ok=False,
            code="unknown_node",
            reason=f"{ref.node_id} is not on the Evidence Pack",
        )
    span_norm = normalize(ref.span)
    text_norm = normalize(item.text)

    def result(ok: bool, code: CheckCode, reason: str, loc: tuple[int, int] | None = None) -> EvidenceCheck:
        return EvidenceCheck(
            node_id=ref.node_id,
            span=ref.span,
            ok=ok,
            code=code,
            reason=reason,
            start=loc[0] if loc else None,
            end=loc[1] if loc else None,
            matched_text=item.text[loc[0] : loc[1]] if loc else None,
            span_norm_chars=len(span_norm),
            node_norm_chars=len(text_norm),
        )

    if len(span_norm) < min_span_chars and not (span_norm and span_norm == text_norm):
        return result(
            False,
            "span_too_short",
            f"span has {len(span_norm)} normalised characters; at least {min_span_chars} "
            "are needed to verify a citation",
        )
    loc = locate_normalized(item.text, span_norm)
    if loc is not None:
        return result(True, "ok", f"span found in {ref.node_id} at [{loc[0]}, {loc[1]})", loc)
    if span_norm in text_norm:  # offset map failed (should not happen): still a valid quote
        logger.warning("span of %s verified but could not be located", ref.node_id)
        return result(True, "ok", f"span found in {ref.node_id} (not located)")
    return result(False, "span_not_found", f"span does not occur in the text of {ref.node_id}")


def check_claim(
    claim: Claim,
    pack: EvidencePack | Mapping[str, EvidenceItem],
    *,
    min_span_chars: int = MIN_SPAN_CHARS,
) -> ClaimCheck:
    """Check every citation of ``claim`` (see :func:`check_ref`)."""
    items = _items(pack)
    return ClaimCheck(
        claim_id=claim.claim_id,
        results=[check_ref(r, items, min_span_chars=min_span_chars) for r in claim.evidence],
    )


def check_claims(
    claims: Iterable[Claim],
    pack: EvidencePack,
    *,
    min_span_chars: int = MIN_SPAN_CHARS,
) -> list[ClaimCheck]:
    """Check many claims against one pack, in order."""
    items = pack.by_id()
    return [check_claim(c, items, min_span_chars=min_span_chars) for c in claims]
