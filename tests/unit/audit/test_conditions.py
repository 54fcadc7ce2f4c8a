"""Conditions left in sub-clauses (labourcrew.audit.conditions) on the real 2025 text."""

from __future__ import annotations

from labourcrew.audit.conditions import hands_over_conditions, omitted_conditions
from labourcrew.graph.statute_graph import StatuteGraph


def test_a_conditional_hand_over_needs_one_of_its_sub_clauses(graph: StatuteGraph) -> None:
    # 23(1): dismissal without notice "…, যদি তিনি-" (a) convicted, (b) guilty of misconduct
    assert hands_over_conditions(graph.units["2025:23(1)"].text)
    assert omitted_conditions(graph, ["2025:23(1)"]) == ["2025:23(1)"]
    assert omitted_conditions(graph, ["2025:23(1)", "2025:23(1)(b)"]) == []
    # "যে ক্ষেত্রে … সে ক্ষেত্রে-" and "যদি না-" hand over too
    assert omitted_conditions(graph, ["2025:106"]) == ["2025:106"]
    assert omitted_conditions(graph, ["2025:24(1)"]) == ["2025:24(1)"]


def test_list_lead_ins_and_plain_rules_are_not_conditional_hand_overs(graph: StatuteGraph) -> None:
    # 117(1) "at the following rates" and 20(2) "in the case of retrenchment the employer shall-"
    # list what follows; 27(1) is a whole rule; a proviso-only colon is no hand-over either.
    for node in ("2025:117(1)", "2025:20(2)", "2025:27(1)", "2025:99(3)"):
        assert omitted_conditions(graph, [node]) == [], node
    assert omitted_conditions(graph, ["2025:no-such-unit"]) == []
