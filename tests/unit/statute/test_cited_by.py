"""``cited_by`` (the inverse of ``cross_ref``) and ``qualifiers`` on the real 2025 text."""

from __future__ import annotations

from labourcrew.graph.statute_graph import StatuteGraph
from labourcrew.statute.model import EdgeType, Level


def test_a_duty_is_cited_by_the_penalty_that_names_its_section(graph: StatuteGraph) -> None:
    # 291(4) punishes a breach of "ধারা ১৯৬খ"; 307A of "ধারা ৩৩২ক": the reference to a section covers
    # its sub-sections.
    assert "2025:291(4)" in graph.cited_by("2025:196B(1)")
    assert graph.cited_by("2025:332A(1)") == ["2025:307A"]
    assert "2025:291(4)" in graph.cited_by("2025:196B")


def test_cited_by_inverts_every_resolved_reference(graph: StatuteGraph) -> None:
    for u in graph.version_units("2025"):
        for t in u.cross_refs:
            if t == u.node_id or t not in graph.units or t.startswith(u.node_id):
                continue
            if graph.units[t].level == Level.CHAPTER:  # a chapter reference names a title: not inverted
                assert graph.cited_by(t) == []
            else:
                assert u.node_id in graph.cited_by(t), (u.node_id, t)
    assert graph.cited_by("2025:999") == []


def test_cited_by_is_followed_only_when_asked(graph: StatuteGraph) -> None:
    assert all(e != EdgeType.CITED_BY for e, _ in graph.neighbours("2025:196B(1)"))
    assert (EdgeType.CITED_BY, "2025:291(4)") in graph.neighbours("2025:196B(1)", {EdgeType.CITED_BY})


def test_qualifiers_reach_up_to_the_section_and_never_the_unit_itself(graph: StatuteGraph) -> None:
    assert graph.qualifiers("2025:115") == ["2025:115.proviso1"]
    assert graph.qualifiers("2025:115.proviso1") == []
    # 136(1)(b)'s paragraph is qualified by its ancestor 136(1)'s proviso.
    assert "2025:136(1).proviso1" in graph.qualifiers("2025:136(1)(b).para1")
    # Nearest first: a sub-section's own provisos come before its section's.
    q = graph.qualifiers("2025:46(1)")
    assert q and q[0].startswith("2025:46(1).proviso")
    assert graph.qualifiers("2025:no-such-unit") == []


def test_a_sub_section_that_carves_out_another_qualifies_it(graph: StatuteGraph) -> None:
    # The Act states exceptions as provisos *and* as sub-sections naming the rule they cut back.
    assert graph.qualifiers("2025:20(2)(a)") == ["2025:20(3)"]  # "উপ-ধারা (২) এ যাহা কিছুই থাকুক না কেন"
    assert graph.qualifiers("2025:132(5)") == ["2025:132(6)"]  # "... কোন নির্দেশ দেওয়া যাইবে না, যদি"
    assert graph.qualifiers("2025:108(1)") == ["2025:108(2)"]  # "উপ-ধারা (১) এর বিধান প্রযোজ্য হইবে না"
    # A sub-section that only *uses* another (132(4): an order under (3) ...) is no exception to it,
    # and "notwithstanding any other law" (170(2)) reinforces 170(1) rather than cutting it back.
    assert "2025:132(4)" not in graph.qualifiers("2025:132(3)")
    assert "2025:170(2)" not in graph.qualifiers("2025:170(1)")
    # Never across sections: 134(1) refers to 132(5) but is a different rule.
    assert "2025:134(1)" not in graph.qualifiers("2025:132(5)")
    # The carve-out itself is not qualified by the rule it carves out.
    assert "2025:20(2)" not in graph.qualifiers("2025:20(3)")
