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

Layout (the same in the UI, ``ask --json`` and saved runs; fields of :class:`Opinion`):

* ``direct_answer`` -- the answering phrase (number, duration, amount) of a verified quote, in a
  fixed frame with its citation; never words of our own about the law (:func:`direct_answer`);
* the governing rule, quoted (the sentences);
* ``qualifiers`` -- provisos/explanations/conditions attached to the released rules; one that bears
  on the question and was not released makes the answer ``incomplete`` (the gate marks it DEGRADED);
* ``amendments`` -- "২০২৫ সালে সংশোধিত": what a cited section said in 2018 and says in 2025
  (:func:`amendment_changes`, from the StatuteGraph's version diff);
* for UNDECIDED, ``closest`` -- the provisions found, quoted, marked *not verified to answer the
  question*; UNDECIDED never says the law has no provision;
* ``parts``, ``premise_notes``, ``facts`` (assumed), ``clarifications`` (questions back), ``hints``.

English rendering (on request): for each released claim, the English parallel of each cited
section from the StatuteGraph (``en-2018``), labelled *unofficial translation, amended to 2018*
and flagged *outdated* when the Bangla text of the version differs from 2018; a claim already in
English (the ``en-2018`` version) is rendered as itself.
"""

from __future__ import annotations

import difflib
import logging
import re
from collections.abc import Iterable, Sequence

from labourcrew.gate.trust_gate import bangla_part
from labourcrew.graph.statute_graph import StatuteGraph
from labourcrew.ledger.gate import (
    AmendmentChange,
    ClosestClause,
    ClosestProvision,
    DirectAnswer,
    EnglishBlock,
    Fact,
    GatedClaim,
    GateResult,
    Opinion,
    OpinionCheck,
    OpinionSentence,
    Qualifier,
)
from labourcrew.ledger.records import EvidencePack, ReleaseStatus, Side
from labourcrew.statute.ids import citation_label_bn, qualified_rule, rules_first
from labourcrew.statute.model import ENGLISH_VERSION, Level
from labourcrew.statute.normalize import display_form, normalize, shorten, to_ascii_digits, to_bangla_digits

__all__ = [
    "GUARANTEE_HOOK",
    "direct_answer",
    "amendment_changes",
    "closest_provisions",
    "WEAK_CLOSEST",
    "reading_order",
    "render_sentence",
    "check_opinion",
    "write_opinion",
    "fallback_opinion",
    "withheld_reason_bn",
]

logger = logging.getLogger(__name__)

_SIDE_ORDER = {Side.INTERPRETER: 0, Side.WORKER: 1, Side.EMPLOYER: 2}

_BN = re.compile(r"[\u0980-\u09ff]")


def reading_order(claims: Iterable[GatedClaim]) -> list[GatedClaim]:
    """Claims in the order the opinion states them: the governing rule (Legal Interpreter) first,
    then the worker's and the employer's claims, each by trust score (highest first), then id.
    """
    return sorted(claims, key=lambda c: (_SIDE_ORDER[c.side], -c.trust_score, c.claim_id))


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


def _quotes_within(claim: GatedClaim, earlier: GatedClaim) -> bool:
    """Whether every passage ``claim`` quotes is quoted by ``earlier`` too (same unit, span inside)."""
    if not claim.evidence:
        return False
    return all(any(e.node_id == x.node_id and normalize(e.span) in normalize(x.span) for x in earlier.evidence)
               for e in claim.evidence)


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
    from labourcrew.statute.model import ENGLISH_LABEL, ENGLISH_VERSION

    # The English text is never the law: say so wherever it is quoted as the answer.
    v = (to_bangla_digits(version) if version[:1].isdigit()
         else f"{version}, ইংরেজি অনানুষ্ঠানিক অনুবাদ — {ENGLISH_LABEL}" if version == ENGLISH_VERSION else version)
    if gate.status == ReleaseStatus.TGLO:
        return f"বাংলাদেশ শ্রম আইন, ২০০৬ ({v} পাঠ) অনুযায়ী, যাচাইকৃত উদ্ধৃতিসহ:"
    if gate.status == ReleaseStatus.DEGRADED:
        return f"সতর্কতা — উত্তরটি আংশিক বা অসম্পূর্ণ ({bangla_part(gate.status_reason)}); বাংলাদেশ শ্রম আইন, ২০০৬ ({v} পাঠ) থেকে যাচাইকৃত অংশ:"
    # UNDECIDED says that no answer could be VERIFIED and why -- never that the law is silent.
    if gate.premise_errors and not gate.claims:
        why = "প্রশ্নের ভিত্তি ভুল: " + "; ".join(bangla_part(p) for p in gate.premise_errors)
    elif gate.nothing_matched:  # the gate's reason asks to rephrase
        why = bangla_part(gate.status_reason).removeprefix("কোনো উত্তর যাচাই করা যায়নি: ")
    elif gate.fail_closed and gate.claims:
        # Plain words: the badge above carries the statistics (τ, α); a trial found them repeated three times.
        why = ("এই ব্যবস্থার জন্য কোনো ক্যালিব্রেশন নেই, তাই কোনো উদ্ধৃতি উত্তর হিসেবে দেওয়া হচ্ছে না"
               if gate.calibration_n == 0 else
               "উদ্ধৃতিগুলো প্রশ্নের উত্তর দেয় কিনা, এই ব্যবস্থা তা এখনো যথেষ্ট নির্ভরযোগ্যভাবে যাচাই করতে পারে না, "
               "তাই কোনো উদ্ধৃতি উত্তর হিসেবে দেওয়া হচ্ছে না")
    elif not gate.claims and gate.failed_roles:
        why = "বিশ্লেষণের এক বা একাধিক ধাপ ব্যর্থ হয়েছে; আবার চেষ্টা করুন"
    else:  # the gate's own reason: nothing matched, a premise, ...
        why = bangla_part(gate.status_reason).removeprefix("কোনো উত্তর যাচাই করা যায়নি: ").rstrip("।")
    return f"এই প্রশ্নের কোনো উত্তর যাচাই করা যায়নি: {why}।"


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


# ---------------------------------------------------------------- direct answer, qualifiers, amendments

_NUM_WORDS = (
    "এক|দুই|তিন|চার|পাঁচ|ছয়|সাত|আট|নয়|দশ|এগার|এগারো|বার|বারো|তের|চৌদ্দ|পনের|ষোল|সতের|আঠার|উনিশ|বিশ|"
    "পঁচিশ|ত্রিশ|পঁয়ত্রিশ|চল্লিশ|পঁয়তাল্লিশ|পঞ্চাশ|ষাট|সত্তর|আশি|নব্বই|একশত|দুইশত|এক শত|দুই শত"
)
_UNIT = r"(?:দিনের|দিন|সপ্তাহের|সপ্তাহ|মাসের|মাস|বৎসরের|বৎসর|বছরের|বছর|ঘণ্টার|ঘণ্টা|ঘন্টার|ঘন্টা|টাকার|টাকা|শতাংশ|গুণ)"
_NUMBER = (rf"\[?(?:[০-৯0-9][০-৯0-9,.]*(?:\s*\([^()]{{1,24}}\))?|(?:{_NUM_WORDS})(?:\s*\([^()]{{1,24}}\))?)\]?")
_PHRASE = re.compile(rf"(?<![\u0980-\u09ff]){_NUMBER}\s*{_UNIT}\]?(?:\s*(?:মজুরি|মজুরী|মূল মজুরীর|পর্যন্ত|জন্য|কারাদণ্ড|জরিমানা))?"
                     rf"|দ্বিগুণ হারে|দ্বিগুণ|অর্ধেক")
_ASKS_AMOUNT = re.compile(r"কত|কয়|কতদিন|কয়দিন|কত দিন|koto|koy|how many|how much|how long|হার|rate|পরিমাণ|মেয়াদ|meyad")
GUARANTEE_HOOK = "guarantee_text"
"""Name of the function in :mod:`labourcrew.gate` (``(record) -> (bn, en)``) whose text is shown
with released answers, when it exists (:func:`_guarantee`)."""


def _phrase(text: str) -> str | None:
    m = _PHRASE.search(text)
    return m.group(0).strip() if m else None


def _direct_line(phrase: str, citation: str, verified: bool, fact_note: str = "") -> str:
    if verified:
        return f"সংক্ষিপ্ত উত্তর (আইনের হুবহু শব্দে): «{phrase}» — {citation}{fact_note}।"
    return f"আপনার দেওয়া তথ্য অনুযায়ী প্রযোজ্য অংশ (যাচাই করা হয়নি): «{phrase}» — {citation}{fact_note}।"


def direct_answer(
    accepted: Sequence[GatedClaim],
    question: str,
    *,
    graph: StatuteGraph | None = None,
    facts: Sequence[Fact] = (),
) -> DirectAnswer | None:
    """The one-line answer: the answering phrase of a verified quote in a fixed frame.

    The phrase is a verbatim substring of a released quote (a number with its unit, e.g. «দশ
    দিনের», «[৬০ (ষাট) দিন]», or «দ্বিগুণ হারে»). With facts, a band or proviso the facts select
    answers instead (27(4)(b) for ``years_of_service=4``; 115's tea-garden proviso for
    ``establishment=tea_garden``), marked unverified unless a released claim quotes it. Returns None
    when the question does not ask for an amount or no quote states exactly one (46(1) states 60 days
    before and 60 after a birth: no single phrase answers "how many days"): we never phrase the law
    ourselves. A phrase in another unit than the one asked ("কয়দিন" answered in months) is no answer
    (:func:`~labourcrew.audit.skeptic.asked_units`).
    """
    from labourcrew.gate.clarify import band_for, known_facts, ruled_out, service_bands

    known = known_facts(question, facts)
    cited = {e.node_id: (c, e) for c in accepted for e in c.evidence}
    if graph is not None and known:
        by_key = {f.key: f for f in known}
        for nid in cited:
            for q in graph.qualifiers(nid):
                if ruled_out(graph, q, known) is False:  # a fact makes the proviso apply
                    unit = graph.units[q]
                    words = re.sub(r"^তবে শর্ত থাকে যে,?\s*", "", unit.text).rstrip("।৷ ")
                    fact = next((f for f in known if f.key == "establishment"), None)
                    note = f" (ধরে নেওয়া তথ্য: {fact.label_bn})" if fact else ""
                    ok = q in cited
                    cite = citation_label_bn(q.split(":", 1)[-1])
                    return DirectAnswer(text_bn=_direct_line(words, cite, ok, note), phrase=words, quote=unit.text,
                                        node_id=q, citation=cite, claim_id=cited[q][0].claim_id if ok else None, verified=ok)
        years = by_key.get("years_of_service")
        if years is not None:
            try:
                y = float(years.value)
            except ValueError:
                y = None
            for nid in cited:
                bands = service_bands(graph, nid) if y is not None else []
                cid = band_for(bands, y) if bands else None
                if cid is None:
                    continue
                unit = graph.units[cid]
                phrase = _phrase(unit.text.split("তাহা হইলে", 1)[-1]) or _phrase(unit.text)
                if phrase:
                    ok = cid in cited
                    cite = citation_label_bn(cid.split(":", 1)[-1])
                    note = f" (ধরে নেওয়া তথ্য: {years.label_bn})"
                    return DirectAnswer(text_bn=_direct_line(phrase, cite, ok, note), phrase=phrase, quote=unit.text,
                                        node_id=cid, citation=cite, claim_id=cited[cid][0].claim_id if ok else None,
                                        verified=ok)
    if not _ASKS_AMOUNT.search(question.lower()):
        return None
    from labourcrew.audit.skeptic import asked_units, quantities_in, same_units

    # Asked in days, answered in days: a trial's "মাতৃত্বকালীন ছুটি কয়দিন পাবো?" got «ছয় মাস», 46(1)'s
    # proviso on the service the benefit needs, as the short answer (working days count as days).
    asked = same_units(asked_units(question))

    def in_asked_unit(phrase: str) -> bool:
        units = same_units(u for _, u in quantities_in(phrase))
        return not asked or not units or bool(units & asked)

    for claim in accepted:
        for ev in claim.evidence:
            quote = ev.matched_text or ev.span
            # A quote that states two amounts (46(1): 60 days before the birth *and* 60 after) has no
            # one-phrase answer: «৬০ দিন» alone would read as the whole entitlement. The quote is shown.
            phrases = [m.group(0).strip() for m in _PHRASE.finditer(quote)]
            if len(phrases) == 1 and in_asked_unit(phrases[0]):
                phrase = phrases[0]
                cite = citation_label_bn(ev.node_id.split(":", 1)[-1])
                return DirectAnswer(text_bn=_direct_line(phrase, cite, True), phrase=phrase, quote=quote,
                                    node_id=ev.node_id, citation=cite, claim_id=claim.claim_id)
    return None


def _qualifiers(accepted: Sequence[GatedClaim], graph: StatuteGraph | None, facts: Sequence[Fact],
                question: str) -> list[Qualifier]:
    from labourcrew.gate.clarify import bearing_qualifiers

    if graph is None:
        return []
    bearing = bearing_qualifiers(graph, question, facts)
    released = {e.node_id for c in accepted for e in c.evidence}
    out: list[Qualifier] = []
    seen: set[str] = set()
    for nid in dict.fromkeys(e.node_id for c in accepted for e in c.evidence):
        bears = set(bearing(nid))
        for q in graph.qualifiers(nid):
            if q in seen or q not in graph.units:
                continue
            seen.add(q)
            unit = graph.units[q]
            kind = {Level.EXPLANATION: "explanation", Level.PROVISO: "proviso"}.get(unit.level, "exception")
            out.append(Qualifier(node_id=q, citation=citation_label_bn(q.split(":", 1)[-1]), kind=kind, qualifies=nid,
                                 text=display_form(unit.text), released=q in released, bears=q in bears))
    return out


_SPACING = re.compile(r"[\s,;:।৷\-–—]+")


def _word_changes(old: str, new: str) -> list[tuple[str, str]]:
    a, b = display_form(old).split(), display_form(new).split()
    na, nb = [normalize(x) for x in a], [normalize(x) for x in b]
    out: list[tuple[str, str]] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, na, nb, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        before, after = " ".join(a[i1:i2]), " ".join(b[j1:j2])
        if (i2 - i1) == (j2 - j1) == 1 and difflib.SequenceMatcher(None, na[i1], nb[j1]).ratio() >= 0.75 \
                and not re.search(r"[0-9০-৯]", before + after):
            continue  # a spelling/glyph variant of the same word, not a change of the law
        if _SPACING.sub("", normalize(before)) == _SPACING.sub("", normalize(after)):
            continue  # only spacing or punctuation moved («যে ক্ষেত্রে» -> «যেক্ষেত্রে», 27(4)'s lead-in)
        out.append((before, after))
    out.sort(key=lambda ba: _numbers_first(*ba))
    return out


def _numbers_first(before: str, after: str) -> int:
    """Sort key that puts a change of numbers (digits or number words) before any other change."""
    return 0 if re.search(r"[0-9০-৯]|" + _NUM_WORDS, before + after) else 1


def amendment_changes(node_ids: Iterable[str], graph: StatuteGraph | None, *,
                      quoted: bool = True) -> list[AmendmentChange]:
    """"২০২৫ সালে সংশোধিত" notes for the cited (or listed) units whose section changed between 2018 and 2025.

    One note per distinct unit: its 2018 and 2025 words where they differ -- for a **lead-in** also its
    clauses' words (:meth:`~labourcrew.graph.statute_graph.StatuteGraph.clauses`), since a lead-in is shown
    and read with them: 27(4)'s lead-in changed only in spacing while its clauses went from 14/30 to 7/15/30
    days (a new user was told "the listed words did not change") -- up to two changes, numbers first,
    spelling variants skipped, the 2025 text's amendment brackets dropped; else a note that other parts of
    the section were amended. A section omitted or inserted in 2025 gets one note. ``quoted=False`` for the
    closest provisions of an UNDECIDED answer: the note speaks of the listed words, not of a quote.
    """
    if graph is None:
        return []
    out: list[AmendmentChange] = []
    done: set[str] = set()
    whole: set[str] = set()  # sections whose omission/insertion note is out
    for nid in node_ids:
        unit = graph.units.get(nid)
        if unit is None or unit.section is None or unit.version not in ("2025", "2018"):
            continue
        diff = graph.diffs.get(unit.section)
        label = nid.split(":", 1)[-1]
        if diff is None or diff.status == "unchanged" or label in done or unit.section in whole:
            continue
        done.add(label)
        new = graph.units.get(f"2025:{label}")
        old = graph.units.get(f"2018:{label}")
        cite = citation_label_bn(unit.section)
        if diff.status == "omitted":
            whole.add(unit.section)
            out.append(AmendmentChange(section=unit.section, node_id=nid, status="omitted",
                                       text_bn=f"২০২৫ সালে সংশোধিত: {cite} ২০২৫ সালের সংশোধনে বিলুপ্ত হয়েছে।",
                                       text_en=f"Amended in 2025: section {unit.section} was omitted."))
            continue
        if diff.status == "inserted" or old is None:
            if diff.status == "inserted":
                whole.add(unit.section)
            out.append(AmendmentChange(section=unit.section, node_id=nid, status="inserted",
                                       after=display_form(new.text if new else unit.text)[:160],
                                       text_bn=f"২০২৫ সালে সংশোধিত: {citation_label_bn(label)} ২০২৫ সালে নতুন যুক্ত হয়েছে; ২০১৮ সালের পাঠে এটি ছিল না।",
                                       text_en=f"Amended in 2025: {label} was inserted in 2025; the 2018 text did not have it."))
            continue
        changes = _scope_changes(graph, label) if new is not None else []
        what_bn = "উদ্ধৃত" if quoted else "তালিকাভুক্ত"
        what_en = "quoted" if quoted else "listed"
        if not changes:
            out.append(AmendmentChange(section=unit.section, node_id=nid, status="amended",
                                       text_bn=f"২০২৫ সালে সংশোধিত: {cite}-এর অন্য অংশ ২০২৫ সালে বদলেছে; "
                                               f"{what_bn} অংশের ({citation_label_bn(label)}) পাঠ অপরিবর্তিত।",
                                       text_en=f"Amended in 2025: other parts of section {unit.section} changed; "
                                               f"the {what_en} words ({label}) did not."))
            continue
        # a lead-in's note shows one change per clause first (27(4): (ক), (খ) and (গ) each), then fills up
        firsts, rest, seen = [], [], set()
        for c in changes:
            (rest if c[0] in seen else firsts).append(c)
            seen.add(c[0])
        picked = (firsts + rest)[:3 if len(firsts) > 1 else 2]
        shown = [(lab, b.strip("[]").strip(), a.strip("[]").strip()) for lab, b, a in picked]
        bn = "; ".join((f"{citation_label_bn(lab)}: " if lab != label else "") + _change_bn(b, a) for lab, b, a in shown)
        en = "; ".join((f"{lab}: " if lab != label else "") + _change_en(b, a) for lab, b, a in shown)
        out.append(AmendmentChange(section=unit.section, node_id=nid, status="amended", before=shown[0][1],
                                   after=shown[0][2], text_bn=f"২০২৫ সালে সংশোধিত ({citation_label_bn(label)}): {bn}।",
                                   text_en=f"Amended in 2025 ({label}): {en}."))
    return out


def _scope_changes(graph: StatuteGraph, label: str) -> list[tuple[str, str, str]]:
    """``(label, 2018 words, 2025 words)`` of the unit ``label`` and, for a lead-in, of its clauses (a clause
    new in 2025 counts as added words), numbers first, then document order.
    """
    labels = [label] + [c.split(":", 1)[-1] for c in graph.clauses(f"2025:{label}")]
    out: list[tuple[str, str, str]] = []
    for lab in labels:
        new, old = graph.units.get(f"2025:{lab}"), graph.units.get(f"2018:{lab}")
        if new is None:
            continue
        if old is None:
            out.append((lab, "", display_form(new.text)[:160]))
            continue
        out.extend((lab, b, a) for b, a in _word_changes(old.text, new.text))
    out.sort(key=lambda c: _numbers_first(c[1], c[2]))
    return out


def _change_bn(before: str, after: str) -> str:
    # words only added (or only removed) in 2025 say so: «আগে ছিল «—»» read as if the law had said "—"
    if not before:
        return f"২০২৫ সালে যুক্ত হয়েছে «{after}»"
    if not after:
        return f"২০১৮ সালের «{before}» ২০২৫ সালে বাদ দেওয়া হয়েছে"
    return f"আগে (২০১৮) ছিল «{before}», এখন (২০২৫) «{after}»"


def _change_en(before: str, after: str) -> str:
    if not before:
        return f"added in 2025: '{after}'"
    if not after:
        return f"2018's '{before}' removed in 2025"
    return f"2018: '{before}', 2025: '{after}'"


LEAD_IN_LIST_MAX = 8
"""Most clauses a lead-in is listed with (26(1): 3; 23(4), a list of ten kinds of misconduct, lists the
clauses retrieval found and fills up to this many in document order)."""
_CLAUSE_CHARS = 400
_LEAD_IN_CHARS = 160


WEAK_CLOSEST = ("কোনো বিধানই প্রশ্নের সঙ্গে জোরালোভাবে মেলেনি; এগুলো অনুসন্ধানে পাওয়া সবচেয়ে কাছের বিধান — "
                "প্রশ্নটি আরও খুলে লিখলে (কী ঘটেছে, কী জানতে চান) ভালো মিল পাওয়া যেতে পারে। এই সরঞ্জাম শুধু বাংলাদেশ "
                "শ্রম আইন, ২০০৬ থেকে উত্তর খোঁজে; প্রশ্নটি অন্য আইনের (যেমন আয়কর) হলে এগুলো তার উত্তর নয়",
                "weak matches: no provision was rated likely to govern the question; these are the nearest the "
                "search found — saying what happened and what you want to know may find better ones. LabourCrew "
                "searches the Bangladesh Labour Act, 2006 only: for a question about another law (income tax, say) "
                "these are not its answer")
"""Said once under closest provisions that are all ``weak`` (Bangla, English)."""


def closest_provisions(gate: GateResult, pack: EvidencePack | None, *, limit: int = 4,
                       floor: float = 0.0, graph: StatuteGraph | None = None) -> list[ClosestProvision]:
    """For an UNDECIDED answer: the provisions found, quoted and marked not verified.

    In the Evidence Pack's order -- named units, then the governing rule by the learned relevance,
    each rule followed by its provisos (:func:`~labourcrew.retrieval.pipeline.order_pack`) -- so the
    list leads with what the relevance model rates most likely to govern, whether or not a counsel
    quoted it (a new user's maternity question listed 47(4) twice and not 46(1), which the pack
    ranked first). Units rated below ``floor`` (the quoting floor, ``offline.relevance_floor``) are
    left out; when no unit clears it, or no counsel quoted anything, the pack's first units are listed
    anyway, each marked ``weak`` (an income-tax question listed 245 and 224(1) unmarked)
    (a worker's complaint "৩ মাসের বেতন দেয় নাই" rates every unit low and listed nothing). A question
    that matches nothing ("hello") is the caller's to keep out (``GateResult.nothing_matched``). Units
    the question names (the exact channel) are kept whatever their rating, in pack order. A unit a
    withheld claim quoted carries that claim's id and why it was withheld. Without a pack, the
    withheld claims' units, best trust score first. A proviso or explanation is listed only with its
    rule when the rule is on the pack, and right after it (:func:`rules_first`).

    With the ``graph``, a sentence the Act splits into a lead-in and its clauses is listed whole: a
    unit that completes a lead-in of at most :data:`LEAD_IN_LIST_MAX` clauses is listed as that
    lead-in with its clauses (26(1)(b) -> 26(1) «… মালিক-» (ক) একশত বিশ দিনের, (খ) ষাট দিনের, লিখিত
    নোটিশ প্রদান করিয়া …: a new user saw only «… মালিক-» and no notice period), one entry however
    many of its clauses were found; a clause of a longer list is listed with the end of its lead-in
    (``lead_in``); a lead-in found itself brings its clauses.

    Args:
        gate: the Trust Gate's decision.
        pack: the Evidence Pack, or None.
        limit: most provisions (entries) listed.
        floor: least learned relevance of a listed unit (units without one are kept).
        graph: the StatuteGraph (lead-ins and their clauses); None lists units as found.

    Returns:
        At most ``limit`` provisions.
    """
    # No counsel found a unit worth quoting (the reason says "no quote matched closely enough"): every entry
    # is a weak match, as when nothing clears the floor below.
    weak = not gate.claims
    withheld: dict[str, GatedClaim] = {}
    for c in sorted((c for c in gate.claims if not c.accepted), key=lambda c: -c.trust_score):
        for e in c.evidence:
            withheld.setdefault(e.node_id, c)
    if pack is not None and pack.items:
        # Units the question names ("ধারা ২৭", "২৭(৩ক)": the exact channel) are kept whatever the model
        # rates them: a bare label has nothing to match, and "ধারা ২৭" listed nothing of 27.
        found = [] if weak else [(i.node_id, i.text) for i in pack.items if i.text.strip() and (
            "exact" in i.channels or i.relevance is None or i.relevance >= floor)]
        if not found:
            # Every unit rated below the floor: "আমার মালিক ৩ মাসের বেতন দেয় নাই" (a complaint, not a question)
            # listed nothing though the pack held 123 and 132 (wages due, claims for them). The nearest units
            # are listed, marked weak; a question that matches nothing is kept out by the caller (matched_nothing).
            # A weak list is the nearest units whatever clears the floor: with the English-parallel relevance
            # model one unit of that complaint cleared it (123(3), "wages are paid on a working day") and was
            # listed alone, without 123(1)'s seven-day limit or 132's claim.
            weak = True
            found = [(i.node_id, i.text) for i in pack.items if i.text.strip()]
    else:
        quoted = {e.node_id: e.matched_text or e.span for c in withheld.values() for e in c.evidence}
        found = [(n, quoted[n]) for n in withheld]
    texts = dict(found)
    units = graph.units if graph is not None else {}

    def home(node_id: str) -> str:
        # The entry a unit is listed under: the outermost short lead-in it completes, else itself.
        if graph is None or node_id not in units:
            return node_id
        short = [a for a in graph.lead_ins(node_id) if len(graph.clauses(a)) <= LEAD_IN_LIST_MAX]
        return short[-1] if short else node_id

    def tail_of(entry: str, every: list[str]) -> str | None:
        # The closing words: a paragraph that ends the list (26(1)(b).para1 «লিখিত নোটিশ প্রদান করিয়া …»),
        # which the parser hangs under the last clause; bulleted, it read as a third option.
        last = units[every[-1]] if every else None
        return last.node_id if last is not None and last.level == Level.PARAGRAPH and last.parent != entry else None

    def shown(entry: str) -> list[str]:
        # The clauses listed under an entry: all of a short list; of a long one those retrieval found,
        # then the list's start, up to LEAD_IN_LIST_MAX, and the closing words -- in document order.
        every = graph.clauses(entry) if graph is not None and entry in units else []
        keep = set(list(dict.fromkeys([*(c for c in every if c in texts), *every]))[:LEAD_IN_LIST_MAX])
        tail = tail_of(entry, every)
        return [c for c in every if c in keep or c == tail]

    chosen: list[str] = []
    for node_id, _ in found:
        if len(chosen) >= limit:
            break
        entry = home(node_id)
        if any(entry in shown(e) for e in chosen):
            continue  # already listed under its lead-in
        rule = qualified_rule(entry)
        if rule in texts and rule not in chosen:
            if len(chosen) + 2 > limit:
                continue  # a proviso is never listed without the rule it qualifies
            chosen.append(rule)
        if entry not in chosen:
            covered = set(shown(entry))
            chosen = [e for e in chosen if e not in covered]  # a found clause moves under its lead-in
            chosen.append(entry)
    out: list[ClosestProvision] = []
    for node_id in chosen:
        text = texts.get(node_id) or (units[node_id].text if node_id in units else "")
        listed = shown(node_id)
        every = graph.clauses(node_id) if graph is not None and node_id in units else []
        depth = {c: len(graph.ancestors(c)) - len(graph.ancestors(node_id)) for c in listed} if graph is not None else {}
        tail = tail_of(node_id, every)
        clauses = [ClosestClause(node_id=c, citation=citation_label_bn(c.split(":", 1)[-1]),
                                 text=shorten(units[c].text, _CLAUSE_CHARS), found=c in texts,
                                 depth=1 if c == tail else depth.get(c, 1), tail=c == tail) for c in listed]
        lead_in = None
        outer = graph.lead_ins(node_id) if graph is not None and node_id in units else []
        if outer:
            lead = display_form(units[outer[0]].text)
            lead_in = lead if len(lead) <= _LEAD_IN_CHARS else "… " + lead[-_LEAD_IN_CHARS:]
        claim = next((withheld[n] for n in [node_id, *listed] if n in withheld), None)
        out.append(ClosestProvision(
            node_id=node_id, citation=citation_label_bn(node_id.split(":", 1)[-1]),
            text=shorten(text, 400), claim_id=claim.claim_id if claim else None,
            why_withheld=withheld_reason_bn(claim.rejection_reason) if claim else None,
            lead_in=lead_in, clauses=clauses,
            clauses_left_out=len(every) - len(listed), weak=weak))
    by_id = {c.node_id: c for c in out}
    return [by_id[n] for n in rules_first(by_id)]


def withheld_reason_bn(reason: str | None) -> str | None:
    """Why a claim was withheld, Bangla first, the gate's English reason after it (None for no reason)."""
    if not reason:
        return None
    m = re.match(r"trust score ([0-9.]+) < τ (\S+)", reason)
    if m:
        return f"নির্ভরযোগ্যতা স্কোর {m.group(1)} সীমা τ {m.group(2)}-এর কম — {reason}"
    if reason.startswith("citation not verified"):
        return f"উদ্ধৃতিটি আইনের পাঠে মেলেনি — {reason}"
    if reason.startswith("auditor verdict"):
        return f"নিরীক্ষক সমর্থন করেননি — {reason}"
    if reason.startswith("τ = ∞"):
        return f"যাচাই-ধাপ কোনো উদ্ধৃতি প্রকাশ করে না (τ = ∞) — {reason}"
    return reason


def _premise_notes(gate: GateResult, question: str, answer: DirectAnswer | None) -> list[str]:
    notes = list(gate.premise_errors)
    if answer is not None and answer.verified:
        # A wrong number in the question ("৭২ ঘণ্টা") against the quoted one, same unit.
        q = normalize(question)
        a = normalize(answer.phrase)
        for m in re.finditer(r"(\d+)\s*(দিন|সপ্তাহ|মাস|বছর|বৎসর|ঘণ্টা|ঘন্টা|টাকা|din|ghonta|bochor|mash)", q):
            unit = m.group(2)
            got = re.search(r"(\d+)\s*\(?[^\d]*?" + unit[:2], a)
            if got and got.group(1) != m.group(1):
                notes.append(f"প্রশ্নে বলা হয়েছে «{to_bangla_digits(m.group(0))}», কিন্তু {answer.citation} বলে «{answer.phrase}» — "
                             f"the question says '{m.group(0)}' but {answer.citation} says otherwise")
    return notes


_ROMAN = re.compile(r"[A-Za-z]")
_BN_ANY = re.compile(r"[\u0980-\u09ff]")
# A year that names one of the Act's Bangla texts (the 2018 text, the 2025 amendments), in either script.
_TEXT_YEAR = re.compile(r"(?<![0-9০-৯])(2018|2025|২০১৮|২০২৫)(?![0-9০-৯])")


def _version_hint(question: str, version: str) -> str | None:
    """A note when the question names the year of the *other* Bangla text than the one read
    (e.g. "২০১৮ সালের আইনে ..." answered from the 2025 text), with the version to choose instead.

    None when it names no such year, or names the year of the text that was read.
    """
    years = {to_ascii_digits(y) for y in _TEXT_YEAR.findall(question)}
    read = "2025" if version == "2025" else "2018"  # en-2018 translates the 2018 text
    if not years or read in years:
        return None
    other = "2018" if read == "2025" else "2025"
    other_bn, read_bn = to_bangla_digits(other), to_bangla_digits(read)
    return (f"প্রশ্নে {other_bn} সালের উল্লেখ আছে, কিন্তু এই উত্তর আইনের {read_bn} সালের পাঠ থেকে; "
            f"{other_bn} সালের পাঠের জন্য আইনের সংস্করণ ‘{other}’ বেছে নিন — "
            f"the question names {other}, but this answer reads the {read} text; choose statute version {other} for that text")


def _hints(question: str, spotting: object | None, version: str = "2025") -> list[str]:
    out = []
    language = getattr(spotting, "language", None)
    latin = language in ("en", "bn-latn") or (language is None and _ROMAN.search(question) and not _BN_ANY.search(question))
    # The script hint names the text that was searched: Bangla script for the Bangla texts; for the
    # English text, English (a Bangla or romanised Bangla question matched it poorly: 115 was not found).
    if latin and version != ENGLISH_VERSION:
        hint = ("প্রশ্নটি বাংলা অক্ষরে লিখলে সবচেয়ে ভালো উত্তর মেলে (আইনের পাঠ বাংলায়) — "
                "writing the question in Bangla script works best (the Act's text is Bangla)")
        if language == "en":  # an English question can also read the unofficial English text
            hint += ("; ইংরেজিতে প্রশ্ন করলে আইনের ইংরেজি (অনানুষ্ঠানিক) পাঠ বেছে নিতে পারেন — or choose the "
                     "unofficial English text (en-2018) for an English question")
        out.append(hint)
    bangla_script = bool(_BN_ANY.search(question)) and not _ROMAN.search(question)
    if version == ENGLISH_VERSION and (bangla_script or language == "bn-latn"):
        out.append("আইনের ইংরেজি (অনানুষ্ঠানিক) পাঠে খোঁজা হয়েছে: এই পাঠে প্রশ্নটি ইংরেজিতে লিখলে, অথবা বাংলা পাঠ "
                   "(২০২৫) বেছে নিলে ভালো মেলে — the English text was searched: ask in English for it, or choose "
                   "the Bangla 2025 text")
    versioned = _version_hint(question, version)
    if versioned:
        out.append(versioned)
    if getattr(spotting, "injection", None):
        out.append("প্রশ্নের ভেতরের নির্দেশমূলক লেখা (যেমন \"ignore previous instructions\") উপেক্ষা করা হয়েছে; শুধু প্রশ্নটির উত্তর খোঁজা হয়েছে — "
                   "instruction-like text in the question was ignored; only the question was answered")
    from labourcrew.retrieval.pipeline import ENCODER_CHARS

    if len(question) > ENCODER_CHARS:
        out.append(f"প্রশ্নটি দীর্ঘ: অর্থভিত্তিক অনুসন্ধানে প্রথম প্রায় {to_bangla_digits(str(ENCODER_CHARS))} অক্ষর ব্যবহৃত হয়েছে — "
                   f"long question: semantic search read about the first {ENCODER_CHARS} characters")
    return out


def _guarantee(gate: GateResult) -> tuple[str | None, str | None]:
    """Call ``labourcrew.gate.<GUARANTEE_HOOK>(gate)`` for released answers, if it exists."""
    import importlib

    if gate.status == ReleaseStatus.UNDECIDED:
        return None, None
    for mod in ("labourcrew.gate.guarantee", "labourcrew.gate.crc", "labourcrew.gate.validation"):
        try:
            fn = getattr(importlib.import_module(mod), GUARANTEE_HOOK, None)
        except ImportError:
            continue
        if callable(fn):
            try:
                bn, en = fn(gate)
            except Exception as exc:  # a hook under construction must not break an answer
                logger.warning("%s.%s failed: %s", mod, GUARANTEE_HOOK, exc)
                return None, None
            return str(bn), str(en)
    return None, None


def write_opinion(
    gate: GateResult,
    *,
    version: str,
    graph: StatuteGraph | None = None,
    english: bool = False,
    pack: EvidencePack | None = None,
    question: str = "",
    spotting: object | None = None,
    facts: Sequence[Fact] = (),
    clarification_round: int = 0,
    relevance_floor: float = 0.0,
) -> Opinion:
    """Compose the narrative from the gate's released claims and re-check it.

    Args:
        gate: the Trust Gate's decision.
        version: statute version answered from (named in the framing line).
        graph: the StatuteGraph (English parallels, qualifiers, amendments, clarifications).
        english: also render the released claims in English.
        pack: the Evidence Pack (closest provisions of an UNDECIDED answer).
        question: the question (direct answer, stated facts, hints).
        spotting: the Issue Spotter's record (language, injection).
        facts: facts the user gave (assumed by the answer).
        clarification_round: clarification rounds already run (bounded).
        relevance_floor: least learned relevance of a closest provision (see :func:`closest_provisions`).

    Returns:
        The :class:`Opinion`.
    """
    accepted = reading_order(gate.accepted())
    rejected = [c for c in gate.claims if not c.accepted]
    framing = OpinionSentence(text=_framing(gate, version), claim_ids=[], citations=[])
    body: list[OpinionSentence] = []
    by_text: dict[str, int] = {}
    said: list[GatedClaim] = []  # the claim each body sentence renders
    for claim in accepted:
        s = render_sentence(claim)
        key = _content_key(claim)
        # Same statement from two sides, or a quote an earlier sentence already contains (a proviso
        # the rule's quote carries): one sentence, both claim ids.
        i = by_text.get(key)
        if i is None:
            i = next((k for k, earlier in enumerate(said) if _quotes_within(claim, earlier)), None)
        if i is not None:
            body[i] = body[i].model_copy(update={"claim_ids": [*body[i].claim_ids, claim.claim_id]})
            continue
        by_text[key] = len(body)
        body.append(s)
        said.append(claim)
    # Merged sentences render the first claim; the check compares against every released claim.
    kept, check = check_opinion([framing, *body], accepted, rejected)
    answer = direct_answer(accepted, question, graph=graph, facts=facts) if accepted else None
    qualifiers = _qualifiers(accepted, graph, facts, question)
    incomplete = any(q.bears and not q.released for q in qualifiers)
    amendments = amendment_changes((e.node_id for c in accepted for e in c.evidence), graph)
    closest = (closest_provisions(gate, pack, floor=relevance_floor, graph=graph)
               if gate.status == ReleaseStatus.UNDECIDED and not gate.nothing_matched else [])
    if closest:
        amendments = amendment_changes([c.node_id for c in closest], graph, quoted=False)
    from labourcrew.gate.clarify import clarifications, known_facts

    asked = []
    if graph is not None and accepted:
        asked = clarifications(graph, [e.node_id for c in accepted for e in c.evidence],
                               [q.node_id for q in qualifiers], question=question, facts=facts,
                               rounds_done=clarification_round)
    assumed = known_facts(question, facts) if accepted else list(facts)
    lines = [kept[0].text] if kept else []
    if answer is not None:
        lines.append(answer.text_bn)
    lines += [s.text for s in kept[1:]]
    for q in qualifiers:
        if q.bears and not q.released:
            lines.append(f"সতর্কতা: এই নিয়মের একটি শর্ত/ব্যতিক্রম ({q.citation}) যাচাই করা যায়নি; তাই উত্তরটি অসম্পূর্ণ — পাঠটি নিচে দেখুন।")
    lines += [a.text_bn for a in amendments if accepted]
    if assumed:  # given with --fact / the clarifying buttons: said even when nothing is released
        lines.append("ধরে নেওয়া তথ্য: " + "; ".join(f.label_bn for f in assumed) + "।")
    if closest:
        lines.append("নিচের বিধানগুলো পাওয়া গেছে, কিন্তু এগুলো প্রশ্নের উত্তর দেয় কিনা যাচাই করা হয়নি (not verified to answer the question).")
        if any(c.weak for c in closest):
            lines.append(WEAK_CLOSEST[0] + " (" + WEAK_CLOSEST[1] + ")")
    text = "\n".join(lines)
    guarantee_bn, guarantee_en = _guarantee(gate)
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
    return Opinion(
        opinion_bn=text, sentences=kept, opinion_en=opinion_en, english=blocks, check=check,
        status_line_bn=framing.text, direct_answer=answer, qualifiers=qualifiers, incomplete=incomplete,
        amendments=amendments, closest=closest, parts=list(gate.parts),
        premise_notes=_premise_notes(gate, question, answer), facts=assumed, clarifications=asked,
        hints=_hints(question, spotting, version), guarantee_bn=guarantee_bn, guarantee_en=guarantee_en,
    )


def fallback_opinion(reason: str) -> Opinion:
    """The narrative when no opinion could be written: a fixed Bangla notice, no legal content."""
    text = f"এই প্রশ্নের কোনো উত্তর যাচাই করা যায়নি। ({reason})"
    return Opinion(
        opinion_bn=text,
        sentences=[OpinionSentence(text=text, claim_ids=[], citations=[])],
        check=OpinionCheck(ok=True),
    )
