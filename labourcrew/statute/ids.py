"""Node-id and label rules: the one place that says how a unit label is read and written.

A node id is ``"{version}:{label}"``; a label is the ASCII section label in the official English
style (``27``, ``27(3A)``, ``2(10)(b)``, ``46(1).proviso1``, ``2(10).explanation1``, ``ch10`` for
chapters). These helpers are pure string functions: they never look a unit up in the graph.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from labourcrew.statute.normalize import to_bangla_digits
from labourcrew.statute.parse_bn import BN_CONSONANTS

__all__ = ["rules_first", "qualified_rule", "section_of_label", "is_section_label", "label_within", "within_any", "citation_label_bn",
           "split_node_id", "BN_TAILS"]

BN_TAILS: dict[str, str] = {"proviso": "শর্তাংশ", "explanation": "ব্যাখ্যা", "para": "পরের অনুচ্ছেদ"}
"""What :func:`citation_label_bn` writes after "-এর " for a unit's proviso / explanation / following
paragraph (``46(1).proviso1`` -> ``ধারা ৪৬(১)-এর শর্তাংশ``); the StatuteGraph search reads them back."""


_QUALIFIER = re.compile(r"^(?P<rule>.+)\.(?:proviso|explanation)\d+$")


def rules_first(node_ids: Iterable[str]) -> list[str]:
    """``node_ids`` reordered so that a proviso or explanation comes right after its rule when the rule
    is in the list too (otherwise everything keeps its place): ``[46(1).proviso1, 47(1), 46(1)]`` ->
    ``[47(1), 46(1), 46(1).proviso1]``. A reader meets the rule before what qualifies it.
    """
    ids = list(dict.fromkeys(node_ids))
    present = set(ids)

    def rule(n: str) -> str | None:
        r = qualified_rule(n)
        return r if r in present else None

    out: list[str] = []

    def emit(n: str) -> None:
        out.append(n)
        for q in ids:
            if rule(q) == n:
                emit(q)

    for n in ids:
        if rule(n) is None:
            emit(n)
    return out


def qualified_rule(node_id: str) -> str | None:
    """The rule a proviso or explanation qualifies, by id (``2025:46(1).proviso1`` -> ``2025:46(1)``);
    None for any other unit.
    """
    m = _QUALIFIER.match(node_id)
    return m.group("rule") if m else None


def split_node_id(node_id: str) -> tuple[str, str]:
    """``'2025:27(4)' -> ('2025', '27(4)')``; a bare label gets version ``''``."""
    version, sep, label = node_id.partition(":")
    return (version, label) if sep else ("", node_id)


def section_of_label(label: str) -> str:
    """The section part of a label: ``'27(3A)' -> '27'``, ``'2(10).explanation1' -> '2'``.

    Works on node ids too (``'2025:27(1)' -> '2025:27'``).
    """
    return label.split("(")[0].split(".")[0]


def is_section_label(label: str) -> bool:
    """True for a whole-section label (``'27'``, ``'2025:27A'``), False for any sub-unit."""
    return "(" not in label and "." not in label


def label_within(label: str, container: str) -> bool:
    """Whether the unit ``label`` lies inside (or is) the unit ``container``.

    ``label_within('27(3A)(a)', '27(3A)')`` and ``label_within('27.proviso1', '27')`` are True;
    ``label_within('27A', '27')`` and ``label_within('27(3)', '27(3A)')`` are False. Node ids of one
    version compare the same way.
    """
    return label == container or label.startswith(container + "(") or label.startswith(container + ".")


def within_any(label: str, containers: Iterable[str]) -> bool:
    """Whether ``label`` lies inside any of ``containers`` (see :func:`label_within`)."""
    return any(label_within(label, c) for c in containers)


def _bn_label_part(part: str) -> str:
    # "27" -> "২৭", "3A" -> "৩ক", "b" -> "খ", "aa" -> "কক"
    m = re.fullmatch(r"(\d+)([A-Z]*)", part)
    if m:
        return to_bangla_digits(m.group(1)) + "".join(BN_CONSONANTS[ord(c) - ord("A")] for c in m.group(2))
    if re.fullmatch(r"[a-z]+", part):
        return "".join(BN_CONSONANTS[ord(c) - ord("a")] for c in part if ord(c) - ord("a") < len(BN_CONSONANTS))
    return to_bangla_digits(part)


def citation_label_bn(label: str) -> str:
    """Bangla citation of an ASCII unit label (the Act's own way of writing it).

    ``27(1)`` -> ``ধারা ২৭(১)``; ``2(10)(b)`` -> ``ধারা ২(১০)(খ)``; ``46(1).proviso1`` ->
    ``ধারা ৪৬(১)-এর শর্তাংশ``; ``2(10).explanation1`` -> ``ধারা ২(১০)-এর ব্যাখ্যা``;
    ``ch10`` -> ``অধ্যায় ১০``; an unlabelled paragraph after a unit, such as the closing words after a
    list of clauses, ``26(2)(b).para1`` -> ``ধারা ২৬(২)(খ)-এর পরের অনুচ্ছেদ`` (it is not clause (খ) itself,
    which must not share its citation).
    """
    if label.startswith("ch"):
        return f"অধ্যায় {to_bangla_digits(label[2:])}"
    tail = ""
    base = label
    m = re.search(r"\.(proviso|explanation|para)(\d+)$", label)
    if m:
        base = label[: m.start()]
        # No paragraph number: a digit in a claim's framing would read as a number the quote must contain.
        tail = f"-এর {BN_TAILS[m.group(1)]}"
    head = re.match(r"^([0-9]+[A-Z]*)", base)
    if not head:
        return f"ধারা {to_bangla_digits(base)}{tail}"
    out = _bn_label_part(head.group(1))
    for part in re.findall(r"\(([^)]*)\)", base[head.end():]):
        out += f"({_bn_label_part(part)})"
    return f"ধারা {out}{tail}"
