"""Exact section channel: section references written in a question (paper §3.3).

Finds references such as ``ধারা ২৭``, ``২৭ ধারা``, ``২৭ নং ধারা``, ``ধারা ১৯, ২০ অথবা ২৩``,
``ধারা ২৭ এর উপ-ধারা (৩)``, ``২৭(৩ক)``, ``27(3ক)``, ``section 27``, ``sec 27(1)``, ``s. 27``,
``sections 19 and 20``, ``sub-section (3) of section 27``, ``dhara 27`` (romanised) and turns each
into an ASCII label with :func:`labourcrew.graph.statute_graph.parse_section_query` (which owns the
Bangla-letter -> ASCII tables of :mod:`labourcrew.statute.parse_bn`).

A bare number is never a section: ``৩ মাসের বেতন`` or ``120 days`` yield nothing. A number counts
only after/before a section word (ধারা, section, sec, s., dhara) or in the sub-section shape
``27(3)`` / ``২৭(৩ক)`` / ``2(10)(b)``. Inside a list after a section word, a number followed by a
unit of measure (days, মাস, টাকা ...) ends the list.

A reference the chosen version does not have (``ধারা ৯৯৯``, an omitted section, ``27(9)``) is a
*premise error* (:func:`premise_errors`): retrieval reports it, and the Trust Gate releases nothing
that rests on it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from labourcrew.graph.statute_graph import StatuteGraph, parse_section_query
from labourcrew.statute.model import EdgeType
from labourcrew.statute.parse_bn import BN_CONSONANTS

__all__ = ["SectionRef", "find_section_refs", "section_labels", "resolve_label", "resolve_refs", "premise_errors",
           "premise_by_label"]


def _nfc(s: str) -> str:
    return unicodedata.normalize("NFC", s)


_D = "[০-৯0-9]"
_BL = f"[{BN_CONSONANTS}]"
# Section number with an optional letter suffix (২৭ক, 27A, 345C). A Bangla suffix letter must end
# the word (else "২৭ বা ২৮" would read as 27W); a Latin one must not start an English word.
_NUM = rf"{_D}{{1,3}}(?![০-৯0-9])(?:\s?{_BL}(?![\u0981-\u09ff])|[A-Za-z](?![A-Za-z]))?"
_SUB = rf"\(\s*{_D}{{1,3}}(?![০-৯0-9])\s*-?\s*(?:{_BL}|[A-Za-z])?\s*\)"  # (৩), (৩ক), (3A), (১-ক)
# A Bangla clause label repeats ONE letter ((খ), (কক), (চচচ)); "(দশ)" in "১০ (দশ) হাজার" is a number word.
_BL_REPEAT = "(?:" + "|".join(f"{c}{{1,3}}" for c in BN_CONSONANTS) + ")"
_CL = rf"\(\s*(?:{_BL_REPEAT}|[a-z]{{1,3}})\s*\)"  # (খ), (কক), (b)
_PATH = rf"(?:\s?{_SUB})?(?:\s?{_CL})?"
_REF = rf"{_NUM}{_PATH}"
# Units of measure: a number followed by one of these is an amount, not a section.
_MEASURE = _nfc(
    r"(?:মাস|দিন|বছর|বৎসর|সপ্তাহ|ঘণ্টা|ঘন্টা|মিনিট|টাকা|জন|শতাংশ|গুণ|বার|তারিখ|কর্মদিবস|%|"
    r"days?\b|months?\b|years?\b|weeks?\b|hours?\b|minutes?\b|taka\b|tk\b|workers?\b|times\b|percent\b)"
)
_NOT_AMOUNT = rf"(?!\s*{_MEASURE})"
_JOIN = _nfc(r"\s*(?:,|ও|এবং|অথবা|বা|কিংবা|and|or|&)\s*")
_LIST = rf"{_REF}{_NOT_AMOUNT}(?:{_JOIN}{_REF}{_NOT_AMOUNT})*"
_BN_EL = _nfc(r"(?:\s*-?\s*(?:এর|এ|এর\s+অধীন))?\s*")

# "ধারা ২৭ এর উপ-ধারা (৩) এর দফা (খ)" / "dhara 27 er upo-dhara (3)".
_SEC_SUB = re.compile(
    _nfc(rf"(?:ধারা|dhara)(?:র|য়|r|y)?\s*[-:]?\s*(?:নং\s*)?({_NUM}){_BN_EL}(?:উপ-?\s*ধারা|upo-?\s*dhara)\s*({_SUB})"
         rf"(?:{_BN_EL}(?:দফা|dofa)\s*({_CL}))?"),
    re.IGNORECASE,
)
# "sub-section (3) of section 27", "clause (b) of section 2(10)".
_EN_SUB_OF = re.compile(
    rf"\bsub-?\s*section\s*({_SUB})\s*of\s*(?:section|sec\.?|s\.)\s*({_NUM})", re.IGNORECASE
)
# Section word first: "ধারা ২৭", "ধারা-২৭(৩ক)", "ধারা নং ২৭", "ধারা ১৯, ২০ অথবা ২৩", "section 27",
# "sec. 27(1)", "s. 27", "sections 19 and 20", "u/s 27", "dhara 27".
_WORD_FIRST = re.compile(
    _nfc(
        rf"(?:(?<!উপ-)(?<!উপ)ধারা(?:সমূহ|গুলি|গুলো|র|য়)?|\bsections?|\bsecs?\.?|(?<![A-Za-z])ss?\.|\bu/s|\bdhara[ry]?)"
        rf"\s*[-:]?\s*(?:নং|no\.?|number)?\s*({_LIST})"
    ),
    re.IGNORECASE,
)
# Number first: "২৭ ধারা", "২৭ নং ধারা", "২৭(৩ক) ধারায়", "১৯, ২০ ও ২৩ ধারা", "27 no dhara".
# Not "৩(ক) ধারাবলে" (an amendment formula in the Act's own text).
_NUM_FIRST = re.compile(
    _nfc(rf"(?<![০-৯0-9A-Za-z(])({_LIST})\s*(?:নং|নম্বর|no\.?|number)?\s*(?:ধারা(?!বলে)|dhara)"),
    re.IGNORECASE,
)
# Sub-section shape without a section word: "২৭(৩ক)", "27(3ক)", "2(10)(b)", "২(খ)".
_SHAPE = re.compile(
    rf"(?<![০-৯0-9A-Za-z(\u0980-\u09ff])({_NUM}\s?(?:{_SUB}(?:\s?{_CL})?|{_CL}))"
)
_ITEM = re.compile(_REF)
# A question that is nothing but a label ("২৭", "27A", "৪৬(১)?"): a look-up, the way the StatuteGraph page
# is searched. Inside a sentence a bare number stays an amount ("২৭ দিন", "৪৫ জন").
_WHOLE = re.compile(rf"^\s*({_REF})\s*[?？।.]?\s*$")


class SectionRef(BaseModel):
    """One section reference found in a question."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    surface: str = Field(description="The reference as written, e.g. '২৭(৩ক)' or 'section 27'.")
    label: str = Field(description="ASCII label in the Act's English style, e.g. '27(3A)'.")
    start: int = Field(ge=0, description="Character offset of the reference in the NFC question.")


def _compact(ref: str) -> str:
    # parse_section_query reads "27(3A)(b)"; drop spaces and hyphens inside "(১-ক)".
    return re.sub(r"[\s-]+", "", ref)


def _label(surface: str) -> str | None:
    return parse_section_query(_compact(surface))


def find_section_refs(question: str) -> list[SectionRef]:
    """Every section reference in ``question``, in text order, without repeats.

    Args:
        question: Bangla, English or romanised text (Bangla or ASCII digits).

    Returns:
        :class:`SectionRef` items; the same label appears once (first occurrence).
    """
    out: list[SectionRef] = []
    seen: set[str] = set()
    for s, _e, surface, label in _ref_matches(_nfc(question or "")):
        if label not in seen:
            seen.add(label)
            out.append(SectionRef(surface=surface, label=label, start=s))
    return out


def section_ref_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of *every* section reference in NFC ``text``, repeats included.

    Returns:
        Character offsets in text order: the matches :func:`find_section_refs` reads its
        references from (it keeps the first of each label). The skeptic strips them all.
    """
    return [(s, e) for s, e, _surface, _label in _ref_matches(_nfc(text or ""))]


def _ref_matches(text: str) -> list[tuple[int, int, str, str]]:
    """All reference matches of NFC ``text`` as ``(start, end, surface, label)``, sorted."""
    found: list[tuple[int, int, str, str]] = []  # (start, end, surface, label)
    taken: list[tuple[int, int]] = []

    def free(s: int, e: int) -> bool:
        return all(e <= a or s >= b for a, b in taken)

    def add(s: int, e: int, surface: str, label: str | None) -> None:
        if label and free(s, e):
            found.append((s, e, surface.strip(), label))

    for m in _SEC_SUB.finditer(text):
        sec, sub, cl = m.group(1), m.group(2), m.group(3) or ""
        add(m.start(), m.end(), m.group(0), _label(sec + sub + cl))
        taken.append(m.span())
    for m in _EN_SUB_OF.finditer(text):
        add(m.start(), m.end(), m.group(0), _label(m.group(2) + m.group(1)))
        taken.append(m.span())
    for pattern in (_WORD_FIRST, _NUM_FIRST):
        for m in pattern.finditer(text):
            if not free(*m.span()):
                continue
            base = m.start(1)
            for item in _ITEM.finditer(m.group(1)):
                s = base + item.start()
                add(s, base + item.end(), item.group(0), _label(item.group(0)))
            taken.append(m.span())
    for m in _SHAPE.finditer(text):
        add(m.start(1), m.end(1), m.group(1), _label(m.group(1)))
        taken.append(m.span(1))
    whole = _WHOLE.match(text) if not found else None
    if whole:
        add(whole.start(1), whole.end(1), whole.group(1), _label(whole.group(1)))
    found.sort()
    return found


def section_labels(question: str) -> list[str]:
    """ASCII labels of :func:`find_section_refs` (text order, unique)."""
    return [r.label for r in find_section_refs(question)]


_TAIL = re.compile(r"(\([^)]*\)|\.[a-z]+\d+)$")


def resolve_label(graph: StatuteGraph, version: str, label: str) -> str | None:
    """Node id of ``label`` in ``version``, else of its nearest existing ancestor, else None.

    ``27(3)(b)`` falls back to ``27(3)`` then ``27`` (the same rule the graph uses for the Act's
    own cross-references). Omitted units resolve to None.
    """
    cur = label
    while cur:
        unit = graph.units.get(f"{version}:{cur}")
        if unit is not None:
            return None if unit.omitted else unit.node_id
        m = _TAIL.search(cur)
        if not m:
            return None
        cur = cur[: m.start()]
    return None


def resolve_refs(graph: StatuteGraph, version: str, labels: Iterable[str]) -> list[str]:
    """Node ids for ``labels`` in ``version`` (unresolvable ones dropped, order kept, unique)."""
    out: list[str] = []
    for label in labels:
        node = resolve_label(graph, version, label)
        if node and node not in out:
            out.append(node)
    return out


def premise_errors(
    named_labels: Sequence[str], resolved: Mapping[str, str | None], version: str, graph: StatuteGraph | None = None
) -> list[str]:
    """Premise errors: sections the question names that the statute version does not have.

    Args:
        named_labels: ASCII labels the question names (``['400']``).
        resolved: label -> node id in ``version`` (None when it does not exist).
        version: the statute version.
        graph: the StatuteGraph (to tell an omitted section from one that never existed).

    Returns:
        One message per missing section, Bangla first, naming and correcting the premise where the
        text allows: an omitted section (184 in 2025) says so and since when; a section number
        beyond the Act says where the Act ends, e.g. ``"প্রশ্নে উল্লিখিত ধারা ৪০০ আইনে নেই (আইনের
        ধারা ১ থেকে ৩৫৪) — section 400 does not exist in the 2025 text (the Act has sections 1-354)"``.
    """
    return list(premise_by_label(named_labels, resolved, version, graph).values())


def premise_by_label(
    named_labels: Sequence[str], resolved: Mapping[str, str | None], version: str, graph: StatuteGraph | None = None
) -> dict[str, str]:
    """Named label -> its premise error (see :func:`premise_errors`), for the labels that have one,
    in the order named, each label once (so a message can never be paired with another label).
    """
    from labourcrew.statute.ids import citation_label_bn
    from labourcrew.statute.normalize import to_bangla_digits

    out: dict[str, str] = {}
    units = graph.units if graph is not None else {}
    for label in dict.fromkeys(named_labels):
        node = resolved.get(label)
        if node is not None:
            if graph is not None and node != f"{version}:{label}":  # resolved to an ancestor: no such sub-unit
                out[label] = _missing_subunit(label, node, graph)
            continue
        cite = citation_label_bn(label)
        base = re.match(r"\d+[A-Z]*", label)
        sec = base.group(0) if base else label
        old = units.get(f"2018:{sec}")
        if version == "2025" and old is not None:
            out[label] = (f"প্রশ্নে উল্লিখিত {cite} ২০২৫ সালের সংশোধনে বিলুপ্ত হয়েছে; এটি এখন আর বলবৎ নয় — "
                          f"section {label} was omitted by the 2025 Ordinance and is no longer in force")
            continue
        last = max((int(m.group(0)) for u in units.values() if u.version == version and u.level == "section"
                    for m in [re.match(r"\d+", u.label or "")] if m), default=0)
        if last and base and int(re.match(r"\d+", sec).group(0)) > last:
            out[label] = (f"প্রশ্নে উল্লিখিত {cite} আইনে নেই (আইনের ধারা ১ থেকে {to_bangla_digits(str(last))} পর্যন্ত) — "
                          f"section {label} does not exist in the {version} text (the Act has sections 1-{last})")
        else:
            out[label] = (f"প্রশ্নে উল্লিখিত {cite} এই পাঠে নেই অথবা বিলুপ্ত — "
                          f"section {label} does not exist in, or was omitted from, the {version} text")
    return out


def _missing_subunit(label: str, nearest: str, graph: StatuteGraph) -> str:
    """A named sub-unit that the version does not have, with the nearest unit that exists and its
    sub-units ("27(9)": section 27 has sub-sections (1)-(4)).
    """
    from labourcrew.statute.ids import citation_label_bn

    unit = graph.units[nearest]
    kids = [graph.units[t].label for _, t in graph.neighbours(nearest, {EdgeType.CHILD})]
    more = ", …" if len(kids) > 8 else ""
    have_bn = f" (এতে আছে: {', '.join(citation_label_bn(k) for k in kids[:8])}{more})" if kids else ""
    have_en = f" (it has {', '.join(kids[:8])}{more})" if kids else ""
    return (f"প্রশ্নে উল্লিখিত {citation_label_bn(label)} আইনের এই পাঠে নেই; নিকটতম বিধান "
            f"{citation_label_bn(unit.label)}{have_bn} — {label} does not exist in the {unit.version} text; "
            f"the nearest provision is section {unit.label}{have_en}")
