"""Opinion Writer (paper §3.6): the Bangla narrative, built only from released claims.

Rules:

* one sentence per released claim, carrying its citation(s) (``(ধারা ২৭(১))``); claims with the
  same text collapse into one sentence; order: the Legal Interpreter's governing rule, then the
  Worker Counsel's claims, then the Employer Counsel's (a rule before its exceptions), each by
  trust score;
* a fixed framing line states the release status (and, for DEGRADED/UNDECIDED, why) -- it carries
  no legal content;
* after composing, :func:`check_opinion` re-checks the prose: every sentence but the framing line
  must be the rendering of a released claim, and no rejected claim's text or span may occur in it
  unless that same text is part of a released claim. Offending sentences are dropped and the check
  repeated, so no rejected content survives.

English rendering (on request): for each released claim, the English parallel of each cited
section from the StatuteGraph (``en-2018``), labelled *unofficial translation, amended to 2018*
and flagged *outdated* when the Bangla text of the version differs from 2018; a claim already in
English (the ``en-2018`` version) is rendered as itself.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence

from labourcrew.graph.statute_graph import StatuteGraph
from labourcrew.ledger.gate import (
    EnglishBlock,
    GatedClaim,
    GateResult,
    Opinion,
    OpinionCheck,
    OpinionSentence,
)
from labourcrew.ledger.records import ReleaseStatus, Side
from labourcrew.statute.ids import citation_label_bn
from labourcrew.statute.normalize import normalize, to_bangla_digits

__all__ = [
    "render_sentence",
    "check_opinion",
    "write_opinion",
    "fallback_opinion",
]

logger = logging.getLogger(__name__)

_SIDE_ORDER = {Side.INTERPRETER: 0, Side.WORKER: 1, Side.EMPLOYER: 2}
_BN = re.compile(r"[\u0980-\u09ff]")


def _citations(claim: GatedClaim) -> list[str]:
    out = []
    for ev in claim.evidence:
        label = ev.node_id.split(":", 1)[-1]
        out.append(citation_label_bn(label))
    return list(dict.fromkeys(out))


def _has_citation(text: str, cite: str) -> bool:
    return normalize(cite) in normalize(text)


_QUOTE = re.compile(r"«([^»]*)»")


def _content_key(claim: GatedClaim) -> str:
    """What a claim states: its quotes when it is a framed quotation, else its normalised text.

    Two sides quoting the same statute words state the same thing; the narrative says it once.
    """
    quotes = _QUOTE.findall(claim.text)
    if quotes:
        return "«»".join(normalize(q) for q in quotes)
    return normalize(claim.text)


def render_sentence(claim: GatedClaim) -> OpinionSentence:
    """The sentence for one released claim: its text, with any missing citation appended."""
    cites = _citations(claim)
    body = claim.text.strip().rstrip("।৷.")
    missing = [c for c in cites if not _has_citation(body, c)]
    if missing:
        body = f"{body} ({'; '.join(missing)})"
    end = "।" if _BN.search(body) else "."
    return OpinionSentence(text=body + end, claim_ids=[claim.claim_id], citations=cites)


def _framing(gate: GateResult, version: str) -> str:
    v = to_bangla_digits(version) if version[:1].isdigit() else version
    if gate.status == ReleaseStatus.TGLO:
        return f"বাংলাদেশ শ্রম আইন, ২০০৬ ({v} পাঠ) অনুযায়ী, যাচাইকৃত উদ্ধৃতিসহ:"
    if gate.status == ReleaseStatus.DEGRADED:
        return f"সতর্কতা — উত্তরটি আংশিক ({gate.status_reason}); বাংলাদেশ শ্রম আইন, ২০০৬ ({v} পাঠ) থেকে যাচাইকৃত অংশ:"
    if gate.premise_errors:
        why = "প্রশ্নে উল্লিখিত ধারাটি এই পাঠে নেই অথবা বিলুপ্ত হয়েছে"
    elif gate.fail_closed:
        why = "ট্রাস্ট গেট ক্যালিব্রেট করা নেই (τ = ∞), তাই কোনো দাবি প্রকাশ করা হয়নি"
    elif not gate.claims and gate.failed_roles:
        # Never tell a worker "the law has no provision" when the board itself failed.
        why = "বোর্ডের এক বা একাধিক ভূমিকা ব্যর্থ হয়েছে, তাই কোনো দাবি যাচাই করা যায়নি; আবার চেষ্টা করুন"
    elif not gate.claims:
        why = "আইনে প্রশ্নটির প্রাসঙ্গিক কোনো বিধান পাওয়া যায়নি"
    else:
        why = "কোনো দাবি ট্রাস্ট গেট অতিক্রম করেনি"
    return f"এই প্রশ্নের নির্ভরযোগ্য উত্তর দেওয়া গেল না: {why}। ({gate.status_reason})"


def check_opinion(
    sentences: Sequence[OpinionSentence], accepted: Sequence[GatedClaim], rejected: Sequence[GatedClaim]
) -> tuple[list[OpinionSentence], OpinionCheck]:
    """Re-check a composed narrative; drop what is not released content (module docstring).

    Returns:
        ``(kept sentences, check)``; the framing line (no claim ids) is always kept.
    """
    allowed = {render_sentence(c).text: c.claim_id for c in accepted}
    accepted_norm = [normalize(c.text) for c in accepted] + [
        normalize(e.span) for c in accepted for e in c.evidence
    ]
    dropped: list[str] = []
    leaked: list[str] = []
    kept = list(sentences)
    for _ in range(3):  # dropping can only remove text; converges at once, bounded anyway
        prose = normalize(" ".join(s.text for s in kept))
        bad: set[int] = set()
        for i, s in enumerate(kept):
            if s.claim_ids and s.text not in allowed:
                bad.add(i)
        for r in rejected:
            pieces = [normalize(r.text)] + [normalize(e.span) for e in r.evidence]
            for p in pieces:
                if not p or p not in prose or any(p in a for a in accepted_norm):
                    continue
                leaked.append(r.claim_id)
                bad.update(i for i, s in enumerate(kept) if p in normalize(s.text))
        if not bad:
            break
        dropped.extend(kept[i].text for i in sorted(bad))
        kept = [s for i, s in enumerate(kept) if i not in bad]
    check = OpinionCheck(
        ok=not dropped and not leaked,
        dropped_sentences=dropped,
        leaked_claim_ids=sorted(set(leaked)),
    )
    if not check.ok:
        logger.warning("opinion check dropped %d sentence(s); leaked: %s", len(dropped), check.leaked_claim_ids)
    return kept, check


def _english(claim: GatedClaim, graph: StatuteGraph | None, version: str) -> list[EnglishBlock]:
    from labourcrew.statute.model import ENGLISH_LABEL

    if not _BN.search(claim.text):
        return [EnglishBlock(claim_id=claim.claim_id, section=None, text=claim.text, label=f"claim text ({version})", outdated=False)]
    if graph is None:
        return []
    out: list[EnglishBlock] = []
    seen: set[str] = set()
    for ev in claim.evidence:
        unit = graph.units.get(ev.node_id)
        if unit is None or unit.section is None:
            continue
        sec_id = f"{unit.version}:{unit.section}"
        if sec_id in seen:
            continue
        seen.add(sec_id)
        par = graph.english.get(sec_id)
        if par is None:
            out.append(EnglishBlock(claim_id=claim.claim_id, section=unit.section,
                                    text="(no English parallel of this section)", label=ENGLISH_LABEL, outdated=True))
            continue
        out.append(EnglishBlock(claim_id=claim.claim_id, section=unit.section, text=par.text, label=par.label, outdated=par.outdated))
    return out


def write_opinion(
    gate: GateResult,
    *,
    version: str,
    graph: StatuteGraph | None = None,
    english: bool = False,
) -> Opinion:
    """Compose the narrative from the gate's released claims and re-check it.

    Args:
        gate: the Trust Gate's decision.
        version: statute version answered from (named in the framing line).
        graph: the StatuteGraph (needed only for ``english=True``).
        english: also render the released claims in English.

    Returns:
        The :class:`Opinion`.
    """
    accepted = sorted(
        gate.accepted(), key=lambda c: (_SIDE_ORDER[c.side], -c.trust_score, c.claim_id)
    )
    rejected = [c for c in gate.claims if not c.accepted]
    framing = OpinionSentence(text=_framing(gate, version), claim_ids=[], citations=[])
    body: list[OpinionSentence] = []
    by_text: dict[str, int] = {}
    for claim in accepted:
        s = render_sentence(claim)
        key = _content_key(claim)
        if key in by_text:  # same statement from two sides: one sentence, both claim ids
            i = by_text[key]
            body[i] = body[i].model_copy(update={"claim_ids": [*body[i].claim_ids, claim.claim_id]})
            continue
        by_text[key] = len(body)
        body.append(s)
    # Merged sentences render the first claim; the check compares against every released claim.
    kept, check = check_opinion([framing, *body], accepted, rejected)
    text = "\n".join(s.text for s in kept)
    blocks: list[EnglishBlock] = []
    opinion_en = None
    if english:
        for claim in accepted:
            blocks.extend(_english(claim, graph, version))
        lines = []
        for b in blocks:
            head = f"[{b.claim_id}] Section {b.section} ({b.label}{'; OUTDATED: the Bangla text changed after 2018' if b.outdated else ''}): " if b.section else f"[{b.claim_id}] "
            lines.append(head + b.text)
        opinion_en = "\n".join(lines) if lines else "No claim was released."
    return Opinion(opinion_bn=text, sentences=kept, opinion_en=opinion_en, english=blocks, check=check)


def fallback_opinion(reason: str) -> Opinion:
    """The narrative when no opinion could be written: a fixed Bangla notice, no legal content."""
    text = f"এই প্রশ্নের নির্ভরযোগ্য উত্তর দেওয়া গেল না। ({reason})"
    return Opinion(
        opinion_bn=text,
        sentences=[OpinionSentence(text=text, claim_ids=[], citations=[])],
        check=OpinionCheck(ok=True),
    )
