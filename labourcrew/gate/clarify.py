"""Deciding facts: qualifiers of released rules, facts given or stated, and questions back.

A released rule is often qualified by a proviso or explanation (``115.proviso1``: not for
tea-garden workers) or split into conditional bands (``27(4)(a)-(c)``: 7 / 15 / 30 days' wages by
years of service). Which one applies depends on facts the question may not state. This module is
the bounded clarification loop of LGAgent, made deterministic for the offline board:

* the provisos/explanations attached to a cited unit or to its ancestors up to the section are
  :meth:`~labourcrew.graph.statute_graph.StatuteGraph.qualifiers` (one rule with the quotes);
* :data:`CONDITIONS` -- a small readable table of deciding facts: the key, how the Act words it
  (a pattern on the unit text), how a question states it, the Bangla/English question to ask and
  how a fact value decides a qualifier or a band;
* :func:`stated_facts` -- facts the question itself states ("ফ্যাক্টরিতে কাজ করি", "৫ বছর");
* :func:`clarifications` -- at most :data:`MAX_QUESTIONS` questions for conditions of the released
  rules that neither the question nor the given facts decide, with choices drawn from the
  provisions' own wording; none after :data:`MAX_ROUNDS` rounds (the seed trigger of LGAgent --
  NEI share > 0.5 or confidence < 0.6 -- is subsumed: we ask only when a released rule has an
  undecided condition, which is when the answer can change).

Pure functions of the StatuteGraph and the facts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from labourcrew.graph.statute_graph import StatuteGraph
from labourcrew.ledger.gate import Clarification, ClarificationChoice, Fact
from labourcrew.statute.model import Level
from labourcrew.statute.normalize import normalize, to_ascii_digits, to_bangla_digits

__all__ = [
    "MAX_QUESTIONS",
    "MAX_ROUNDS",
    "Condition",
    "CONDITIONS",
    "parse_facts",
    "stated_facts",
    "bearing_qualifiers",
    "known_facts",
    "ruled_out",
    "service_bands",
    "band_for",
    "clarifications",
]

MAX_QUESTIONS = 2
"""At most this many clarifying questions per answer."""
MAX_ROUNDS = 2
"""At most this many clarification rounds (LGAgent's bound)."""


@dataclass(frozen=True)
class Condition:
    """One deciding fact (a row of :data:`CONDITIONS`).

    Attributes:
        key: fact key (``--fact key=value``).
        act: pattern on the normalised unit text that shows a unit depends on this fact.
        stated: ``(pattern on the normalised question, value)`` pairs: the question states the fact.
        question_bn / question_en: what to ask.
        choices: ``(value, Bangla label)``; the labels repeat the Act's words where it has them.
        applies: ``value -> True`` when a qualifier matching ``act`` applies under that value.
    """

    key: str
    act: str
    stated: tuple[tuple[str, str], ...]
    question_bn: str
    question_en: str
    choices: tuple[tuple[str, str], ...]
    applies: tuple[str, ...]


CONDITIONS: tuple[Condition, ...] = (
    Condition(
        key="establishment",
        act=r"চা-বাগান",
        stated=(
            (r"চা-?বাগান|cha ?bagan|tea[- ]garden|tea estate", "tea_garden"),
            (r"ফ্যাক্টরি|কারখানা|গার্মেন্টস|দোকান|অফিস|কোম্পানি|factory|garments?|shop|office|company", "other"),
        ),
        question_bn="আপনি কি চা-বাগানে নিযুক্ত শ্রমিক?",
        question_en="Are you employed in a tea garden?",
        choices=(("tea_garden", "হ্যাঁ, চা-বাগানে নিযুক্ত"), ("other", "না, অন্য প্রতিষ্ঠানে (কারখানা, দোকান ইত্যাদি)")),
        applies=("tea_garden",),
    ),
    Condition(
        key="years_of_service",
        act=r"যদি .*\d+ \(\S+\) (?:বৎসর|বছর)",
        stated=((r"(\d+)\s*(?:বছর|বৎসর|bochor|bosor|years?)", r"\1"),),
        question_bn="আপনি কত বছর ধরে এই মালিকের অধীনে অবিচ্ছিন্নভাবে চাকরি করছেন?",
        question_en="For how many years have you worked for this employer without a break?",
        choices=(),  # drawn from the bands of the provision (service_bands)
        applies=(),
    ),
)
_BY_KEY = {c.key: c for c in CONDITIONS}
_FACT = re.compile(r"^\s*([a-z_][a-z0-9_]*)\s*=\s*(.+?)\s*$")


def parse_facts(items: Iterable[str]) -> list[Fact]:
    """``["years_of_service=4"]`` -> facts (a later value of a key replaces an earlier one).

    Raises:
        ValueError: an item is not ``key=value``, names an unknown fact, or gives a value the fact
            cannot take (message Bangla first).
    """
    out: dict[str, Fact] = {}
    for item in items:
        m = _FACT.match(item or "")
        if not m:
            raise ValueError(f"তথ্যটি key=value আকারে দিন, যেমন years_of_service=4 — a fact must be key=value, got {item!r}")
        key, value = m.group(1), to_ascii_digits(m.group(2))
        cond = _BY_KEY.get(key)
        if cond is None:
            raise ValueError(f"অজানা তথ্য {key!r}; জানা তথ্য: {', '.join(_BY_KEY)} — unknown fact {key!r}; "
                             f"known: {', '.join(_BY_KEY)}")
        if key == "years_of_service":
            try:
                years = float(value)
            except ValueError:
                years = -1.0
            if not 0 <= years <= 60:
                raise ValueError(f"চাকরির মেয়াদ বছরে একটি সংখ্যা দিন (০–৬০), যেমন years_of_service=4 — "
                                 f"years_of_service must be a number of years (0-60), got {value!r}")
        elif cond.choices and value not in {v for v, _ in cond.choices}:
            raise ValueError(f"তথ্য {key!r}-এর মান হতে পারে: {', '.join(v for v, _ in cond.choices)} — "
                             f"{key} must be one of {', '.join(v for v, _ in cond.choices)}, got {value!r}")
        out[key] = Fact(key=key, value=value, label_bn=_fact_label(key, value))
    return list(out.values())


def _fact_label(key: str, value: str) -> str:
    cond = _BY_KEY.get(key)
    if cond is not None:
        for v, label in cond.choices:
            if v == value:
                return label
    if key == "years_of_service":
        return f"চাকরির মেয়াদ {to_bangla_digits(value)} বছর"  # Bangla text, Bangla digits (a trial saw "10 বছর")
    return f"{key} = {value}"


def bearing_qualifiers(graph: StatuteGraph, question: str, facts: Sequence[Fact] = ()) -> Callable[[str], list[str]]:
    """A function from a node id to its qualifiers (:meth:`StatuteGraph.qualifiers`) that neither the
    given facts nor the facts the question states (:func:`stated_facts`) rule out (:func:`ruled_out`).

    The one definition of "a qualifier that bears on this question": the board's Trust Gate and the
    post-hoc re-gating of a saved run (:mod:`labourcrew.gate.recalibration`) both use it.
    """
    known = known_facts(question, facts)
    return lambda node_id: [q for q in graph.qualifiers(node_id) if ruled_out(graph, q, known) is not True]


def known_facts(question: str, given: Sequence[Fact] = ()) -> list[Fact]:
    """The facts an answer may assume: those the user gave, then those the question states
    (:func:`stated_facts`) on keys the user did not give -- what the user answered wins over what we read.
    """
    keys = {f.key for f in given}
    return [*given, *(f for f in stated_facts(question) if f.key not in keys)]


def stated_facts(question: str) -> list[Fact]:
    """Facts the question states itself (table :data:`CONDITIONS`)."""
    text = to_ascii_digits(normalize(question))
    out: list[Fact] = []
    for cond in CONDITIONS:
        for pattern, value in cond.stated:
            m = re.search(pattern, text, re.IGNORECASE)
            if m:
                v = m.expand(value) if "\\" in value else value
                out.append(Fact(key=cond.key, value=v, label_bn="প্রশ্ন থেকে: " + _fact_label(cond.key, v)))
                break
    return out


def ruled_out(graph: StatuteGraph, qualifier_id: str, facts: Sequence[Fact]) -> bool | None:
    """Whether the facts rule a qualifier out (True), make it apply (False), or do not say (None)."""
    unit = graph.units.get(qualifier_id)
    if unit is None:
        return None
    text = normalize(unit.text)
    by_key = {f.key: f for f in facts}
    for cond in CONDITIONS:
        if not cond.applies or not re.search(cond.act, text):
            continue
        fact = by_key.get(cond.key)
        if fact is None:
            return None
        return fact.value not in cond.applies
    return None


_BAND_NUM = re.compile(r"(\d+) \(\S+\) (?:বৎসর|বছর)")


def service_bands(graph: StatuteGraph, node_id: str) -> list[tuple[str, float, float, str]]:
    """Years-of-service bands among the clauses of ``node_id`` (or of its parent).

    Returns:
        ``[(clause node id, low, high, condition words), ...]``: a band covers ``low < years <= high``
        ("পর্যন্ত"), ``low < years < high`` ("বেশি কিন্তু ... কম") or ``years >= low`` ("বা তদূর্ধ্ব").
        Example on 27(4): ``(27(4)(a), 0, 3, ...), (27(4)(b), 3, 10, ...), (27(4)(c), 10, inf, ...)``.
    """
    unit = graph.units.get(node_id)
    if unit is None:
        return []
    holder = node_id if any(graph.units[c].level == Level.CLAUSE for c in unit.children if c in graph.units) else unit.parent
    if holder is None or holder not in graph.units:
        return []
    bands = []
    for cid in graph.units[holder].children:
        c = graph.units.get(cid)
        if c is None or c.level != Level.CLAUSE:
            continue
        text = to_ascii_digits(normalize(c.text))
        nums = [int(n) for n in _BAND_NUM.findall(text)]
        if not nums or "যদি" not in text:
            continue
        m = re.search(r"যদি (.*?(?:বৎসর|বছর)[^,;]*?)(?: মালিকের| অবিচ্ছিন্ন| চাকুরি|,)", c.text)
        words = (m.group(1) if m else c.text[:60]).strip().removeprefix("তিনি ")
        if "তদূর্ধ্ব" in text or "বা তার বেশি" in text:
            bands.append((cid, float(nums[0]), float("inf"), words))
        elif len(nums) >= 2:
            bands.append((cid, float(nums[0]), float(nums[1]), words))
        else:
            bands.append((cid, 0.0, float(nums[0]), words))
    return bands if len(bands) >= 2 else []


def band_for(bands: Sequence[tuple[str, float, float, str]], years: float) -> str | None:
    """The clause node id whose band holds ``years`` (None if none)."""
    for cid, low, high, words in bands:
        inclusive_high = "পর্যন্ত" in words
        if low == 0.0 and (years <= high if inclusive_high else years < high):
            return cid
        if high == float("inf") and years >= low:
            return cid
        if low < years < high or (inclusive_high and years == high and low < years):
            return cid
    return None


def _band_value(low: float, high: float) -> str:
    if high == float("inf"):
        return str(int(low))
    if low == 0.0:
        return str(int(high))
    return str(int(low) + 1)


def clarifications(
    graph: StatuteGraph,
    rule_ids: Sequence[str],
    qualifier_ids: Sequence[str],
    *,
    question: str,
    facts: Sequence[Fact],
    rounds_done: int = 0,
) -> list[Clarification]:
    """Questions back for the facts that decide the released rules (module docstring).

    Args:
        graph: the StatuteGraph.
        rule_ids: units cited by released claims.
        qualifier_ids: provisos/explanations of those rules.
        question: the question (facts it states are not asked again).
        facts: facts the user already gave.
        rounds_done: clarification rounds already run (none are asked after :data:`MAX_ROUNDS`).

    Returns:
        At most :data:`MAX_QUESTIONS` clarifications, choices drawn from the provisions' wording.
    """
    if rounds_done >= MAX_ROUNDS:
        return []
    known = {f.key: f for f in known_facts(question, facts)}
    out: list[Clarification] = []
    for qid in qualifier_ids:
        unit = graph.units.get(qid)
        if unit is None:
            continue
        text = normalize(unit.text)
        for cond in CONDITIONS:
            if not cond.choices or cond.key in known or any(c.key == cond.key for c in out):
                continue
            if re.search(cond.act, text):
                choices = [ClarificationChoice(value=v, label_bn=lb, node_id=qid) for v, lb in cond.choices]
                out.append(Clarification(key=cond.key, question_bn=cond.question_bn, question_en=cond.question_en,
                                         choices=choices, source=qid))
    if "years_of_service" not in known and not any(c.key == "years_of_service" for c in out):
        for rid in rule_ids:
            bands = service_bands(graph, rid)
            if bands:
                cond = _BY_KEY["years_of_service"]
                choices = [ClarificationChoice(value=_band_value(lo, hi), label_bn=words, node_id=cid)
                           for cid, lo, hi, words in bands]
                out.append(Clarification(key=cond.key, question_bn=cond.question_bn, question_en=cond.question_en,
                                         choices=choices, source=rid))
                break
    return out[:MAX_QUESTIONS]
