"""Typed skeptic checks of the Trust Auditor (paper §3.5; LegalHalluLens claim categories).

Deterministic, model-free checks of a claim's *wording* against the verbatim text of the units it
cites. They run on every claim whatever the backend (the board adds them to the auditor's own
reading) and are what the offline auditor decides by:

* ``numbers_match`` -- every number the claim states (digits in either script, or a Bangla number
  word before a unit such as ``ষাট দিন``) occurs in the cited text, by value (``৬০`` matches
  ``ষাট``). Section references (``ধারা ২৭(১)``) are not numbers of the rule and are ignored.
* ``units_match`` / ``time_limits_match`` -- every (value, unit) pair of the claim, e.g. (60, day),
  occurs in the cited text; the temporal units (day, week, month, year, hour, working day) form
  the time-limit check.
* ``modal_preserved`` -- every modal of the claim (may / must / entitled, with its polarity: the
  Bangla negation ``না`` after the verb) occurs in the cited text with the same polarity.
* ``carve_outs_preserved`` -- no exception cue (``ব্যতীত``, ``তবে``, ``যদি না``, ``সাপেক্ষে`` ...)
  of the cited *sentence* is left out of the claim: a claim quoting a rule without the exception
  written in the same sentence omits a condition.

:func:`skeptic_report` turns the checks into a verdict ceiling and a direction:

* a number, unit, time limit or modal the evidence does not have -> ``REFUTE``, direction
  ``extra_condition`` (the claim invents);
* a dropped carve-out -> at most ``NEI``, direction ``missing_condition`` (the claim omits).

:func:`claim_conflicts` finds contradictions *between* claims: two claims citing a common unit
that state a modal with opposite polarity.

Everything here is a pure function of its arguments.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence

from labourcrew.ledger.audit import ClaimConflict, SkepticReport
from labourcrew.ledger.records import ClaimCategory, Direction, Verdict
from labourcrew.statute.normalize import normalize

__all__ = [
    "asked_units",
    "same_units",
    "states_asked_amount",
    "NUMBER_WORDS",
    "UNITS",
    "TEMPORAL_UNITS",
    "EXCEPTION_CUES",
    "strip_section_refs",
    "numbers_in",
    "quantities_in",
    "modals_in",
    "exception_cues_in",
    "sentence_around",
    "classify_claim",
    "skeptic_report",
    "claim_conflicts",
]

logger = logging.getLogger(__name__)


def _n(text: str) -> str:
    return normalize(text)


# Bangla number words (sadhu and colloquial spellings), counted only before a unit of measure:
# several double as ordinary words (নয় = "is not", বার = "times", এক = "a").
NUMBER_WORDS: dict[str, int] = {
    _n(w): v
    for w, v in {
        "এক": 1, "দুই": 2, "তিন": 3, "চার": 4, "পাঁচ": 5, "ছয়": 6, "সাত": 7, "আট": 8,
        "নয়": 9, "দশ": 10, "এগার": 11, "এগারো": 11, "বার": 12, "বারো": 12, "তের": 13, "তেরো": 13,
        "চৌদ্দ": 14, "পনের": 15, "পনেরো": 15, "ষোল": 16, "ষোলো": 16, "সতের": 17, "সতেরো": 17, "আঠার": 18,
        "আঠারো": 18, "উনিশ": 19, "বিশ": 20, "পঁচিশ": 25, "ত্রিশ": 30, "পঁয়ত্রিশ": 35, "চল্লিশ": 40,
        "পঁয়তাল্লিশ": 45, "পঞ্চাশ": 50, "ষাট": 60, "সত্তর": 70, "আশি": 80, "নব্বই": 90, "একশত": 100,
        "একশ": 100, "দুইশত": 200,
        "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
        "nine": 9, "ten": 10, "fourteen": 14, "fifteen": 15, "twenty": 20, "thirty": 30, "forty": 40,
        "forty-five": 45, "fifty": 50, "sixty": 60, "ninety": 90, 
    }.items()
}

# Unit words (normalised prefixes; Bangla inflects by suffix: দিনের, মাসের) -> canonical unit.
UNITS: dict[str, str] = {
    _n(w): u
    for w, u in {
        "কর্মদিবস": "working_day", "কর্ম দিবস": "working_day", "দিন": "day", "সপ্তাহ": "week",
        "মাস": "month", "বছর": "year", "বৎসর": "year", "বত্সর": "year", "ঘণ্টা": "hour", "ঘন্টা": "hour",
        "মিনিট": "minute", "টাকা": "taka", "শতাংশ": "percent", "ভাগ": "percent", "%": "percent",
        "জন": "person", "working day": "working_day", "day": "day", "week": "week", "month": "month",
        "year": "year", "hour": "hour", "minute": "minute", "taka": "taka", "tk": "taka",
        "percent": "percent", "worker": "person",
    }.items()
}
TEMPORAL_UNITS = frozenset({"working_day", "day", "week", "month", "year", "hour", "minute"})

# Exception / carve-out cues (paper §3.5: "every carve-out preserved").
EXCEPTION_CUES: tuple[str, ...] = tuple(
    _n(c)
    for c in (
        "ব্যতীত", "ব্যতিরেকে", "প্রযোজ্য হইবে না", "তবে", "যদি না", "সাপেক্ষে", "শর্ত থাকে যে", "ছাড়া",
        "ছাড়া", "except", "unless", "provided that", "subject to",
    )
)

# Modal families (normalised patterns). Order matters: the first match at a position wins.
_MODALS: tuple[tuple[str, str], ...] = (
    ("entitled", r"অধিকারী\s+(?:হইবেন|হইবে|হবেন|হবে)"),
    ("entitled", r"পাইবার\s+অধিকারী"),
    ("entitled", r"(?:পাইবেন|পাইবে|পাবেন|পাবে|পাইতে\s+পারিবেন)"),
    ("must", r"বাধ্য\s+(?:থাকিবেন|থাকিবে|থাকবেন|থাকবে)"),
    ("must", r"\S+(?:িতে|তে)\s+(?:হইবে|হবে)"),
    ("may", r"(?:পারিবেন|পারিবে|পারবেন|পারবে|পারেন|পারে)"),
    ("must", r"\b(?:shall|must)\b"),
    ("may", r"\bmay\b"),
    ("entitled", r"\bentitled\b"),
)
_MODAL_RE = [(name, re.compile(p)) for name, p in _MODALS]
_NEG_AFTER = re.compile(r"^\s*না(?![\u0980-\u09ff])")
_NEG_EN = re.compile(r"^\s*not\b")

_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")
_WORD = re.compile(r"\d+(?:\.\d+)?|(?:[^\W_]|[\u0981-\u0983\u09bc\u09be-\u09cd\u09d7])+(?:-[a-z]+)?|%")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d)")  # ১০,০০০ and the Indian ১,০০,০০০
_SENTENCE_END = re.compile(r"[।;]|\.(?=\s|$)")


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def strip_section_refs(text: str) -> str:
    """``text`` without its section references (``ধারা ২৭(১)``, ``section 27``, ``২৭(৩ক)``).

    The numbers in a citation are not numbers of the rule, so the numeric checks ignore them.
    """
    from labourcrew.retrieval.exact import (
        section_ref_spans,  # the one parser of section refs; every occurrence, repeats included
    )

    t = _nfc(text)
    spans = section_ref_spans(t)
    if not spans:
        return t
    out: list[str] = []
    pos = 0
    for start, end in spans:
        out.append(t[pos:start])
        pos = max(pos, end)
    out.append(t[pos:])
    # Leftover "ধারা"/"section" words and empty brackets carry no numbers.
    return re.sub(r"\(\s*\)", " ", "".join(out))


def _to_number(digits: str) -> float:
    clean = digits.replace(",", "")
    try:
        value = float(clean)
    except ValueError:
        return float("nan")
    return float(int(value)) if value.is_integer() else value


def _unit_at(words: Sequence[str], i: int) -> str | None:
    """Canonical unit of the word(s) starting at ``words[i]`` (prefix match), else None."""
    if i >= len(words):
        return None
    two = f"{words[i]} {words[i + 1]}" if i + 1 < len(words) else ""
    for cand in (two, words[i]):
        if not cand:
            continue
        for key, unit in UNITS.items():
            if cand.startswith(key) and (len(key) > 2 or cand == key):
                return unit
    return None


# Multipliers written as their own word ("দুই হাজার", "এক শত"): they scale the words before them.
MULTIPLIERS: dict[str, int] = {_n(w): v for w, v in {"শত": 100, "শো": 100, "হাজার": 1000, "লক্ষ": 100000,
                                                     "লাখ": 100000, "hundred": 100, "thousand": 1000}.items()}


def word_number(words: list[str]) -> float:
    """The value of a run of number words: ``['একশত', 'বিশ'] -> 120``, ``['দুই', 'হাজার'] -> 2000``.

    Words of 100 or more (একশত, দুইশত) add as they are; a multiplier word multiplies what precedes it
    since the last multiplier; smaller words add up.
    """
    total, current = 0, 0
    for w in words:
        if w in MULTIPLIERS:
            total += (current or 1) * MULTIPLIERS[w]
            current = 0
        elif NUMBER_WORDS.get(w, 0) >= 100:
            total += NUMBER_WORDS[w]
        else:
            current += NUMBER_WORDS.get(w, 0)
    return float(total + current)


def _scan(text: str) -> tuple[set[float], set[tuple[float, str]]]:
    """Numbers and (number, unit) pairs of normalised ``text``."""
    t = _THOUSANDS.sub("", _n(text))
    words = _WORD.findall(t.replace("(", " ( ").replace(")", " ) "))
    numbers: set[float] = set()
    quantities: set[tuple[float, str]] = set()
    i = 0
    while i < len(words):
        w = words[i]
        value: float | None = None
        if _DIGITS.fullmatch(w):
            value = _to_number(w)
            numbers.add(value)
        elif w in NUMBER_WORDS or w in MULTIPLIERS:
            # A run of number words ("একশত বিশ" = 120, "দুই হাজার" = 2000) counts before a unit only.
            j = i
            while j < len(words) and (words[j] in NUMBER_WORDS or words[j] in MULTIPLIERS):
                j += 1
            unit = _unit_at(words, j)
            if unit:
                value = word_number(words[i:j])
                numbers.add(value)
                quantities.add((value, unit))
            i = max(j, i + 1)
            continue
        if value is not None:
            # "৬০ (ষাট) দিন": the unit may follow a bracketed number word.
            j = i + 1
            while j < len(words) and (words[j] in NUMBER_WORDS):
                j += 1
            unit = _unit_at(words, j)
            if unit:
                quantities.add((value, unit))
        i += 1
    return numbers, quantities


# Words that ask for an amount, and romanised unit words a question may use after them ("koto din"); English
# unit words ("days", "hours") are in UNITS already (prefix match).
_ASK_AMOUNT = tuple(sorted({_n(w) for w in ("কত", "কতো", "কয়", "koto", "koy", "koyek")}, key=len, reverse=True))
_ROMAN_UNITS = {"din": "day", "diner": "day", "mash": "month", "mas": "month", "bochor": "year", "bosor": "year",
                "bochhor": "year", "ghonta": "hour", "ghanta": "hour", "taka": "taka", "saptah": "week"}


def _unit_word(word: str) -> str | None:
    return _unit_at([word], 0) or _ROMAN_UNITS.get(word)


def asked_units(question: str) -> set[str]:
    """Canonical units (:data:`UNITS`) the question asks an amount in: the unit word right after «কত» /
    «কয়» / "how many" ("কত দিনের", "koto din", "how many days"), or fused with it ("কয়দিন", "কতদিন").

    Empty when the question names no unit ("কত হারে", "how long"). The short answer must be in an asked
    unit: "মাতৃত্বকালীন ছুটি কয়দিন?" is not answered by 46(1)'s proviso «ছয় মাস» (the service it needs).
    """
    words = _WORD.findall(_n(question))
    out: set[str] = set()
    for i, w in enumerate(words):
        if w in _ASK_AMOUNT or (w in ("many", "much") and i > 0 and words[i - 1] == "how"):
            unit = _unit_word(words[i + 1]) if i + 1 < len(words) else None
        else:  # fused: "কয়দিন", "kotodin"
            head = next((a for a in _ASK_AMOUNT if w.startswith(a) and len(w) > len(a)), None)
            unit = _unit_word(w[len(head):]) if head is not None else None
        if unit:
            out.add(unit)
    return out


def same_units(units: Iterable[str]) -> set[str]:
    """Units as the asked-amount rules compare them: a working day counts as a day."""
    return {"day" if u == "working_day" else u for u in units}


def states_asked_amount(question: str, quotes: Iterable[str]) -> bool | None:
    """Whether the quotes state an amount of time in a unit the question asks for.

    The question must ask one thing (no :func:`~labourcrew.retrieval.issue_spotter.question_parts`: a quote may
    answer another part of a question that asks several) and ask an amount of time (:func:`asked_units`,
    :data:`TEMPORAL_UNITS`: the Act states notice periods, leave, limitation periods and hours as amounts, while
    "how much money" is often answered by a rate, "half of the basic wage", with no taka in it). Example:
    "অস্থায়ী শ্রমিক চাকরি ছাড়তে কত দিনের নোটিশ দিবে?" is not answered by 27(2)'s closing words «লিখিত নোটিশ
    মালিকের নিকট প্রদান করিয়া ... ইস্তফা দিতে পারিবেন», which state no days (a new user got them released).

    Returns:
        None when the rule does not apply (several parts, or no amount of time asked); else whether some
        quote states an amount in an asked unit (digits or number words, :func:`quantities_in`).
    """
    from labourcrew.retrieval.issue_spotter import question_parts

    asked = same_units(asked_units(question)) & TEMPORAL_UNITS
    if not asked or question_parts(question):
        return None
    stated = same_units(u for quote in quotes for _, u in quantities_in(quote))
    return bool(stated & asked)


def numbers_in(text: str) -> set[float]:
    """Numeric values stated in ``text`` (digits of either script; number words before a unit)."""
    return _scan(text)[0]


def quantities_in(text: str) -> set[tuple[float, str]]:
    """(value, canonical unit) pairs in ``text``, e.g. ``{(60.0, 'day')}`` for ``ষাট দিনের``."""
    return _scan(text)[1]


def modals_in(text: str) -> set[tuple[str, bool]]:
    """Modal families with polarity: ``{('may', False), ('must', True)}`` (True = negated)."""
    t = _n(text)
    found: set[tuple[str, bool]] = set()
    taken: list[tuple[int, int]] = []
    for name, rx in _MODAL_RE:
        for m in rx.finditer(t):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            taken.append((m.start(), m.end()))
            rest = t[m.end():]
            negated = bool(_NEG_AFTER.match(rest) or _NEG_EN.match(rest))
            found.add((name, negated))
    return found


def exception_cues_in(text: str) -> list[str]:
    """Exception cues (normalised) occurring in ``text``, in :data:`EXCEPTION_CUES` order."""
    t = _n(text)
    out = []
    for cue in EXCEPTION_CUES:
        if re.search(rf"(?<![\u0980-\u09ffa-z]){re.escape(cue)}(?![\u0980-\u09ffa-z])", t):
            out.append(cue)
    return out


def sentence_around(text: str, span: str) -> str | None:
    """The sentence of ``text`` (split at ``।``, ``;`` or a full stop) containing ``span``.

    Both are compared normalised; returns the normalised sentence (or several joined, when the span
    crosses a boundary), None when the span does not occur.
    """
    t, s = _n(text), _n(span)
    if not s:
        return None
    start = t.find(s)
    if start < 0:
        return None
    end = start + len(s)
    bounds = [0] + [m.end() for m in _SENTENCE_END.finditer(t)] + [len(t)]
    a = max(b for b in bounds if b <= start)
    z = min(b for b in bounds if b >= end)
    return t[a:z]


def classify_claim(text: str) -> ClaimCategory:
    """LegalHalluLens category of a claim from its wording (section references ignored).

    temporal (a time limit) > numeric (another quantity or number) > obligation (a modal) >
    factual.
    """
    body = strip_section_refs(text)
    quantities = quantities_in(body)
    if any(u in TEMPORAL_UNITS for _, u in quantities):
        return ClaimCategory.TEMPORAL
    if quantities or numbers_in(body):
        return ClaimCategory.NUMERIC
    if modals_in(body):
        return ClaimCategory.OBLIGATION
    return ClaimCategory.FACTUAL


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def skeptic_report(claim_text: str, spans: Iterable[str], cited_texts: Mapping[str, str]) -> SkepticReport:
    """Run every typed check of a claim against the text of the units it cites.

    Args:
        claim_text: the claim as stated (any frame around quotes is fine).
        spans: the claim's cited spans (to find the cited sentences for the carve-out check).
        cited_texts: node id -> verbatim unit text of each cited node.

    Returns:
        A :class:`SkepticReport`; never raises for odd text.
    """
    evidence = " ".join(cited_texts.values())
    body = strip_section_refs(claim_text)
    notes: list[str] = []

    claim_numbers = numbers_in(body)
    # Section references are not quantities on either side: a "২৮" the cited text has only in
    # "২৮ ধারা" does not vouch for a claim that states 28 of something.
    ev_numbers = numbers_in(strip_section_refs(evidence))
    missing_numbers = sorted(n for n in claim_numbers if n not in ev_numbers)
    if missing_numbers:
        notes.append("numbers not in the cited text: " + ", ".join(_fmt(n) for n in missing_numbers))

    claim_q = quantities_in(body)
    ev_q = quantities_in(evidence)
    bad_q = sorted(q for q in claim_q if q not in ev_q and q[0] in ev_numbers)
    bad_time = [q for q in sorted(claim_q - ev_q) if q[1] in TEMPORAL_UNITS]
    if bad_q:
        notes.append("units differ from the cited text: " + ", ".join(f"{_fmt(v)} {u}" for v, u in bad_q))
    if bad_time:
        notes.append("time limits not in the cited text: " + ", ".join(f"{_fmt(v)} {u}" for v, u in bad_time))

    claim_modals = modals_in(body)
    ev_modals = modals_in(evidence)
    bad_modals = sorted(m for m in claim_modals if m not in ev_modals)
    if bad_modals:
        notes.append(
            "modal not in the cited text: "
            + ", ".join(f"{name}{' (negated)' if neg else ''}" for name, neg in bad_modals)
        )

    claim_cues = set(exception_cues_in(body))
    dropped: list[str] = []
    for span in spans:
        for text in cited_texts.values():
            sentence = sentence_around(text, span)
            if sentence is None:
                continue
            in_span = set(exception_cues_in(span))
            for cue in exception_cues_in(sentence):
                if cue not in in_span and cue not in claim_cues and cue not in dropped:
                    dropped.append(cue)
            break
    if dropped:
        notes.append("carve-outs of the cited sentence left out: " + ", ".join(dropped))

    checks = {
        "numbers_match": not missing_numbers,
        "units_match": not bad_q,
        "time_limits_match": not bad_time,
        "modal_preserved": not bad_modals,
        "carve_outs_preserved": not dropped,
    }
    verdict_cap: Verdict | None = None
    direction: Direction | None = None
    if missing_numbers or bad_q or bad_time or bad_modals:
        verdict_cap, direction = Verdict.REFUTE, Direction.EXTRA_CONDITION
    elif dropped:
        verdict_cap, direction = Verdict.NEI, Direction.MISSING_CONDITION
    return SkepticReport(
        category=classify_claim(claim_text),
        checks=checks,
        verdict_cap=verdict_cap,
        direction=direction,
        notes=notes,
    )


def claim_conflicts(claims: Sequence[object]) -> list[ClaimConflict]:
    """Contradictions between claims (paper §3.5): a pair citing a common unit where one states
    a modal (may / must / entitled) and the other its negation.

    Args:
        claims: ledger claims (read by attribute: ``claim_id``, ``text``, ``cited_node_ids()``).

    Returns:
        One :class:`ClaimConflict` per conflicting pair, in ledger order.
    """
    facts = [
        (c, set(c.cited_node_ids()), modals_in(strip_section_refs(c.text)))  # type: ignore[attr-defined]
        for c in claims
    ]
    out: list[ClaimConflict] = []
    for i, (a, nodes_a, modals_a) in enumerate(facts):
        for b, nodes_b, modals_b in facts[i + 1 :]:
            common = sorted(nodes_a & nodes_b)
            if not common:
                continue
            flipped = sorted(m for m, neg in modals_a if (m, not neg) in modals_b and (m, neg) not in modals_b)
            if flipped:
                out.append(
                    ClaimConflict(
                        a=a.claim_id,  # type: ignore[attr-defined]
                        b=b.claim_id,  # type: ignore[attr-defined]
                        node_ids=common,
                        reason=f"opposite polarity of {', '.join(flipped)} on {', '.join(common)}",
                    )
                )
    return out
