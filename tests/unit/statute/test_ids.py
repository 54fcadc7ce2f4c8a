"""Label rules of statute/ids.py."""

from __future__ import annotations


def test_rules_first_puts_a_qualifier_after_its_rule():
    from labourcrew.statute.ids import rules_first

    assert rules_first(["2025:46(1).proviso1", "2025:47(1)", "2025:46(1)"]) == [
        "2025:47(1)", "2025:46(1)", "2025:46(1).proviso1"]
    # a qualifier whose rule is absent keeps its place; explanations too; nested rule labels
    assert rules_first(["2025:115.proviso1", "2025:2(1A).proviso1", "2025:126(2).explanation1", "2025:126(2)"]) == [
        "2025:115.proviso1", "2025:2(1A).proviso1", "2025:126(2)", "2025:126(2).explanation1"]
    assert rules_first([]) == []
