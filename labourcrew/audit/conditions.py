"""Conditions a quote leaves behind in sub-clauses (paper §3.5; the labelling protocol's "bare
conditional clause whose operative part is cut off").

Some units state their rule only under conditions listed in their own sub-clauses, and say so by
handing over with a conditional: 23(1) "… বিনা নোটিশে … বরখাস্ত করা যাইবে, যদি তিনি-" (dismissal
without notice *if* the worker (a) is convicted or (b) is guilty of misconduct); "…, যদি না-";
"যে ক্ষেত্রে … সে ক্ষেত্রে-". A claim that cites such a unit but none of its sub-clauses states the
rule without the conditions it depends on -- to a worker, "may be dismissed without notice". The
Trust Auditor counts such a claim as NEI with direction ``missing_condition``, whichever backend
made it. A list lead-in ("যথাঃ-", "at the following rates") is not a conditional hand-over: the
protocol counts such a quote as true but partial.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from labourcrew.graph.statute_graph import StatuteGraph
from labourcrew.statute.ids import label_within
from labourcrew.statute.model import EdgeType
from labourcrew.statute.normalize import normalize

__all__ = ["hands_over_conditions", "omitted_conditions"]

# The last clause of the unit's text (after its last comma or danda) holds a conditional -- "যদি"
# (if), "যদি না" (unless), "যে/সে ক্ষেত্রে" (where / in that case), not "X-এর ক্ষেত্রে" (in the
# case of X) -- and the text ends with a dash that hands over to the sub-clauses. A colon ends a
# rule before its provisos instead, which is no hand-over.
_LAST_CLAUSE = re.compile(r"[^,;।]*$")
_CONDITIONAL = re.compile(
    r"(?<![\u0980-\u09ff])(?:যদি|[যস]ে\s*ক্ষেত্রে)(?![\u0980-\u09ff])|\b(?:if|unless|where)\b"
)
_HANDOVER_END = re.compile(r"[-–—]\s*$")


def hands_over_conditions(text: str) -> bool:
    """True when ``text`` ends by handing its conditions over to sub-clauses ("…, যদি তিনি-")."""
    t = normalize(text).strip().rstrip("[]").strip()
    if not t or not _HANDOVER_END.search(t):
        return False
    tail = _LAST_CLAUSE.search(_HANDOVER_END.sub("", t))
    return bool(tail and _CONDITIONAL.search(tail.group(0)))


def omitted_conditions(graph: StatuteGraph, cited: Iterable[str]) -> list[str]:
    """Cited units whose conditions sit in sub-clauses the same claim does not cite.

    Args:
        graph: the StatuteGraph.
        cited: the claim's cited node ids.

    Returns:
        Node ids, in citation order (each once); [] when every conditional hand-over is followed by
        at least one of its sub-clauses, or for unknown ids.
    """
    nodes = list(dict.fromkeys(cited))
    out: list[str] = []
    for n in nodes:
        unit = graph.units.get(n)
        if unit is None or not graph.neighbours(n, {EdgeType.CHILD}) or not hands_over_conditions(unit.text):
            continue
        if not any(m != n and label_within(m, n) for m in nodes):
            out.append(n)
    return out
