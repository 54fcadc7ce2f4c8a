"""Cross-reference extraction from the Bangla text (paper §3.2: typed ``cross_ref`` edges).

Patterns handled (each regex below names the statute pattern it matches):

* ``ধারা ২৭``, ``ধারা ১৯৫(১)``, ``ধারা ১৯, ২০ অথবা ২৩``, ``ধারা ১৩৯, ১৪০ ও ১৪২``, ``ধারা ১৯ হইতে ২৩``
* ``২৮ ধারা``, ``১৫৫ (৫) ধারা`` (number before the word)
* ``ধারা ২৭ এর উপ-ধারা (৩)``, ``উপ-ধারা (৩)``, ``উপ-ধারা (১) বা (২)``, ``উপ-ধারা (১৫) (ঙ)``
* ``দফা (খ)``, ``দফা [(খ), (গ) ও (ছ)]``, ``উপ-ধারা (২) এর দফা (ক)``
* ``এই অধ্যায়``, ``দ্বাদশ, ত্রয়োদশ এবং চতুর্দশ অধ্যায়``

References to another statute (``দণ্ডবিধি``, ``ফৌজদারী কার্যবিধি``, ``... আইন, ১৯০৮ ... এর ৫ ধারা``,
``সংবিধানের অনুচ্ছেদ``) are returned with ``external=True`` and never resolved inside this Act.

Extraction turns each reference into a *target label* (``27(3)``, ``ch12``); resolution to a node
id (the most specific existing unit) is done by the graph builder, which also records every
reference that cannot be resolved, with its reason.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from labourcrew.statute.model import CrossRef, Level, Unit
from labourcrew.statute.normalize import to_ascii_digits
from labourcrew.statute.parse_bn import (
    BN_CONSONANTS,
    CHAPTER_ORDINALS,
    clause_letter,
    romanize_suffix,
)

__all__ = ["extract_bangla_refs"]


def _nfc(s: str) -> str:
    return unicodedata.normalize("NFC", s)


_D = "[০-৯0-9]"
_L = f"[{BN_CONSONANTS}]"
# A section number, optionally lettered (২৭, ১২৪ক, ৩৪৮ ক); the letter must end the word, so
# "১৩২ বা" is 132 followed by "বা" (or), not section 132W.
_NUM = f"{_D}+(?:\\s*{_L}(?![\u0981-\u09ff]))?"
_SUB = rf"\(\s*{_D}+\s*-?\s*{_L}?\s*\)"  # (৩), (৩ক), (১-ক)
# One letter repeated: (খ), (কক), (চচচ) -- never a number word such as "(দশ)".
_CL = r"\(\s*(?:" + "|".join(f"{c}{{1,3}}" for c in BN_CONSONANTS) + r")\s*\)"
_PATH = rf"(?:\s*{_SUB})?(?:\s*{_CL})?"  # optional sub-section and clause after a number
_JOIN = _nfc(r"\s*(?:,|ও|এবং|অথবা|বা|কিংবা)\s*")
_EL = _nfc(r"(?:\s*(?:এর|এ|-এর|এর\s+অধীন))?\s*")

# "ধারা ২৭ এর উপ-ধারা (৩) এর দফা (খ)" -- section + sub-section (+ clause) spelled out.
_SEC_SUB = re.compile(_nfc(rf"ধারা\s*({_NUM}){_EL}উপ-?\s*ধারা\s*({_SUB})(?:{_EL}দফা\s*({_CL}))?"))
# "ধারা ১৯, ২০ অথবা ২৩", "ধারা ১৯৫(১)", "ধারা ১৯ হইতে ২৩" -- word first, then one or more numbers.
_SEC_LIST = re.compile(
    _nfc(rf"ধারা(?:সমূহ|গুলি|গুলো|র|য়)?\s*((?:{_NUM}{_PATH})(?:(?:{_JOIN}|\s*হইতে\s*|\s*-\s*)(?:{_NUM}{_PATH}))*)")
)
# "২৮ ধারা", "১৫৫ (৫) ধারা" -- number first (not "৩(ক) ধারাবলে", an amendment formula).
_NUM_SEC = re.compile(_nfc(rf"(?<![০-৯0-9])({_NUM}{_PATH})\s*(?:নং\s*)?ধারা(?!বলে)"))
# "উপ-ধারা (৩)", "উপ-ধারা (১) বা (২)", "উপ-ধারা (১৫) (ঙ)", "উপ-ধারা (২) এর দফা (ক)".
_SUBSEC = re.compile(
    _nfc(rf"উপ-?\s*ধারা(?:সমূহ|গুলি|র|য়)?\s*((?:{_SUB}(?:\s*{_CL})?)(?:{_JOIN}{_SUB}(?:\s*{_CL})?)*)(?:{_EL}দফা\s*({_CL}))?")
)
# "দফা (খ)", "দফা [(খ), (গ), (ঙ), (চ) ও (ছ)]".
_CLAUSE = re.compile(_nfc(rf"দফা(?:সমূহ|গুলি|র|য়)?\s*\[?\s*((?:{_CL})(?:{_JOIN}{_CL})*)"))
# "এই অধ্যায়", "দ্বাদশ, ত্রয়োদশ এবং চতুর্দশ অধ্যায়".
_ORD = "|".join(sorted(CHAPTER_ORDINALS, key=len, reverse=True))
_CHAPTER = re.compile(_nfc(rf"(এই|((?:{_ORD})(?:{_JOIN}(?:{_ORD}))*))\s*অধ্যায়"))

# Another statute named just before a reference makes it external.
_EXTERNAL_BEFORE = re.compile(
    _nfc(
        rf"(দণ্ড\s*বিধি|দন্ড\s*বিধি|কার্য\s*বিধি|Penal Code|Code|Act|Ordinance|অধ্যাদেশ|সংবিধান|"
        rf"আইন,?\s*{_D}{{4}}(?:\s*\([^)]*\))?|নং আইন\)?|আইনের\s+(?!অধীন))[^।;]{{0,12}}$"
    )
)
_THIS_ACT_BEFORE = re.compile(_nfc(r"এই\s+(?:আইন|আইনের)[^।;]{0,12}$"))


def _sec_label(raw: str) -> str:
    raw = re.sub(r"\s+", "", raw)
    m = re.match(f"({_D}+)({_L}*)", raw)
    assert m is not None
    return f"{int(to_ascii_digits(m.group(1)))}{romanize_suffix(m.group(2))}"


def _sub_label(raw: str) -> str:
    inner = re.sub(r"[\s()\-]", "", raw)
    m = re.match(f"({_D}+)({_L}*)", inner)
    assert m is not None
    return f"({int(to_ascii_digits(m.group(1)))}{romanize_suffix(m.group(2))})"


def _cl_label(raw: str) -> str:
    letters = re.sub(r"[\s()]", "", raw)
    return f"({clause_letter(letters)})"


def _path_label(raw: str) -> str:
    """"২৭(৩)(ক)" -> "27(3)(a)"."""
    m = re.match(f"\\s*({_NUM})\\s*({_SUB})?\\s*({_CL})?", raw)
    assert m is not None
    label = _sec_label(m.group(1))
    if m.group(2):
        label += _sub_label(m.group(2))
    if m.group(3):
        label += _cl_label(m.group(3))
    return label


def _is_external(text: str, start: int) -> bool:
    before = text[max(0, start - 90) : start]
    if _THIS_ACT_BEFORE.search(before):
        return False
    return bool(_EXTERNAL_BEFORE.search(before))


def extract_bangla_refs(unit: Unit, exists: Callable[[str], bool]) -> list[CrossRef]:
    """Extract the cross-references in one Bangla unit's text.

    Args:
        unit: the unit (its ``section``, ``label`` and ``chapter`` give relative references
            such as "উপ-ধারা (৩)" or "এই অধ্যায়" their meaning).
        exists: predicate on labels of the same version; picks between candidate readings of a
            relative clause reference ("দফা (খ)" = clause of this sub-section, else of this section).

    Returns:
        CrossRef records with ``target_label`` set (``target`` is filled by the resolver) or
        ``external=True``. Self-references to the unit's own label are dropped.
    """
    text = _nfc(unit.text)
    refs: list[CrossRef] = []
    taken: list[tuple[int, int]] = []

    def free(a: int, b: int) -> bool:
        return all(b <= x or a >= y for x, y in taken)

    def add(surface: str, label: str | None, start: int, *, external: bool = False) -> None:
        if label == unit.label:
            return
        refs.append(CrossRef(source=unit.node_id, surface=surface, target_label=None if external else label,
                             external=external, reason="reference to another statute" if external else None))

    sec = unit.section or ""
    # The sub-section this unit sits in (for "দফা (খ)" relative references).
    m_sub = re.match(r"^([0-9]+[A-Z]*\([0-9]+[A-Z]*\))", unit.label)
    own_sub = m_sub.group(1) if m_sub else None

    for m in _SEC_SUB.finditer(text):
        label = _sec_label(m.group(1)) + _sub_label(m.group(2)) + (_cl_label(m.group(3)) if m.group(3) else "")
        add(m.group(0), label, m.start(), external=_is_external(text, m.start()))
        taken.append(m.span())

    for m in _SEC_LIST.finditer(text):
        if not free(*m.span()):
            continue
        ext = _is_external(text, m.start())
        body = m.group(1)
        parts = re.split(_JOIN, body)
        labels: list[str] = []
        for part in parts:
            rng = re.split(_nfc(r"\s*হইতে\s*|\s*-\s*"), part)
            if len(rng) == 2 and rng[0].strip() and rng[1].strip():
                a, b = _path_label(rng[0]), _path_label(rng[1])
                if a.isdigit() and b.isdigit() and 0 < int(b) - int(a) <= 30:
                    labels.extend(str(n) for n in range(int(a), int(b) + 1))
                    continue
                labels.extend([a, b])
            elif part.strip():
                labels.append(_path_label(part))
        for label in labels:
            add(m.group(0), label, m.start(), external=ext)
        taken.append(m.span())

    for m in _NUM_SEC.finditer(text):
        if not free(*m.span()):
            continue
        add(m.group(0), _path_label(m.group(1)), m.start(), external=_is_external(text, m.start()))
        taken.append(m.span())

    for m in _SUBSEC.finditer(text):
        if not free(*m.span()) or not sec:
            continue
        items = re.findall(f"({_SUB})(?:\\s*({_CL}))?", m.group(1))
        for sub_raw, cl_raw in items:
            label = sec + _sub_label(sub_raw) + (_cl_label(cl_raw) if cl_raw else "")
            if m.group(2) and len(items) == 1:
                label += _cl_label(m.group(2))
            add(m.group(0), label, m.start())
        taken.append(m.span())

    for m in _CLAUSE.finditer(text):
        if not free(*m.span()) or not sec:
            continue
        for cl_raw in re.findall(_CL, m.group(1)):
            cl = _cl_label(cl_raw)
            candidates = [c for c in ((own_sub + cl) if own_sub else None, sec + cl) if c]
            label = next((c for c in candidates if exists(c)), candidates[0])
            add(m.group(0), label, m.start())
        taken.append(m.span())

    for m in _CHAPTER.finditer(text):
        if m.group(1) == _nfc("এই"):
            if unit.chapter is not None and unit.level != Level.CHAPTER:
                add(m.group(0), f"ch{unit.chapter}", m.start())
            continue
        for word in re.split(_JOIN, m.group(2)):
            n = CHAPTER_ORDINALS.get(_nfc(word.strip()))
            if n:
                add(m.group(0), f"ch{n}", m.start())
    return refs
