"""Link Hopper on the real StatuteGraph: depth limit, Hop Trace, cross-chapter refs, provisos."""

from __future__ import annotations

import pytest

from labourcrew.retrieval.link_hopper import DEFAULT_DECAY, HopSeed, hop
from labourcrew.statute.model import EdgeType, Level

ALL = set(EdgeType)


def _check_trace(graph, seeds, res, hops):
    seed_ids = {s.node_id for s in seeds}
    reached = dict.fromkeys(seed_ids, 0)
    assert len(res.trace) == len(res.added)
    for node, entry in zip(res.added, res.trace):
        assert (entry.source, entry.edge, entry.target, entry.depth) == (node.via, node.edge, node.node_id, node.depth)
        assert 1 <= entry.depth <= hops
        assert entry.source in reached and reached[entry.source] == entry.depth - 1  # BFS order
        # The edge really exists in the graph.
        allowed = {EdgeType.CHILD} if entry.edge == EdgeType.CHILD else {entry.edge}
        assert (entry.edge, entry.target) in graph.neighbours(entry.source, allowed)
        assert entry.target not in reached  # each unit reached once
        reached[entry.target] = entry.depth
    assert res.depth_reached == max((n.depth for n in res.added), default=0)


@pytest.mark.parametrize("hops", [0, 1, 2, 3])
def test_hopper_stops_at_h_and_records_every_hop(graph, hops):
    seeds = [HopSeed(node_id="2025:27(3)", score=1.0), HopSeed(node_id="2025:286(1)", score=0.5)]
    res = hop(graph, seeds, hops=hops, edge_types=ALL)
    _check_trace(graph, seeds, res, hops)
    if hops == 0:
        assert res.added == [] and res.trace == []
    else:
        assert res.added and res.depth_reached <= hops
    deeper = hop(graph, seeds, hops=hops + 1, edge_types=ALL)
    assert [n.node_id for n in res.added] == [n.node_id for n in deeper.added if n.depth <= hops]


def test_hopper_halts_early_when_nothing_is_added(graph):
    # A lone sub-section with no proviso, no cross-reference, hopping only along cross_ref.
    leaf = next(
        u for u in graph.version_units("2025")
        if u.level == Level.SUBSECTION and not u.cross_refs and not u.provisos
    )
    res = hop(graph, [HopSeed(node_id=leaf.node_id, score=1.0)], hops=3, edge_types={EdgeType.CROSS_REF})
    assert res.added == [] and res.depth_reached == 0


def _cross_chapter_ref(graph):
    # A unit of chapter XIX (penalties) referring to a section unit in another chapter.
    for u in graph.version_units("2025"):
        if u.chapter != 19:
            continue
        for t in u.cross_refs:
            tu = graph.units[t]
            if tu.chapter not in (None, 19) and tu.level != Level.CHAPTER and not tu.omitted:
                return u, tu
    pytest.fail("no cross-chapter reference from chapter XIX found")


def test_cross_chapter_reference_is_reached_by_hopping(graph):
    src, target = _cross_chapter_ref(graph)
    res = hop(graph, [HopSeed(node_id=src.node_id, score=0.9)], hops=1, edge_types={EdgeType.CROSS_REF})
    entry = next(e for e in res.trace if e.target == target.node_id)
    assert entry.edge == EdgeType.CROSS_REF and entry.source == src.node_id and entry.depth == 1
    assert graph.units[entry.target].chapter != graph.units[entry.source].chapter
    # Without cross_ref in the allowed edges it is not reached.
    res = hop(graph, [HopSeed(node_id=src.node_id, score=0.9)], hops=1, edge_types={EdgeType.PARENT})
    assert target.node_id not in {n.node_id for n in res.added}


def test_provisos_are_always_followed(graph):
    rule = next(u for u in graph.version_units("2025") if u.provisos and not u.omitted)
    res = hop(graph, [HopSeed(node_id=rule.node_id, score=1.0)], hops=1, edge_types=set())
    added = {n.node_id: n for n in res.added}
    assert set(rule.provisos) <= set(added)
    assert all(added[p].edge == EdgeType.PROVISO for p in rule.provisos)


def test_provenance_decays_per_hop_and_never_reaches_zero(graph):
    # A unit whose cross-reference target has its own references or provisos: reaches depth 2.
    start = next(
        u for u in graph.version_units("2025")
        if any(not graph.units[t].omitted and (graph.units[t].cross_refs or graph.units[t].provisos) for t in u.cross_refs)
    )
    seed = HopSeed(node_id=start.node_id, score=0.5, provenance=1.0)
    res = hop(graph, [seed], hops=3, edge_types=ALL)
    by_id = {n.node_id: n for n in res.added}
    for n in res.added:
        src_score, src_prov = (seed.score, seed.provenance) if n.via == seed.node_id else (by_id[n.via].score, by_id[n.via].provenance)
        assert n.score == pytest.approx(src_score * DEFAULT_DECAY)
        assert n.provenance == pytest.approx(src_prov * DEFAULT_DECAY)
        assert 0 < n.provenance < 1
    assert any(n.depth >= 2 for n in res.added)


def test_omitted_units_and_chapters_are_never_added(graph):
    # Seeds whose edges lead to omitted units ([***]).
    seeds = [
        HopSeed(node_id=u.node_id, score=1.0)
        for u in graph.version_units("2025")
        if not u.omitted and any(graph.units[t].omitted for _, t in graph.neighbours(u.node_id))
    ]
    assert seeds
    res = hop(graph, seeds, hops=2, edge_types=ALL)
    for n in res.added:
        unit = graph.units[n.node_id]
        assert not unit.omitted
        if unit.level == Level.CHAPTER:
            assert n.edge == EdgeType.CROSS_REF  # only an explicit reference names a chapter


def test_children_only_from_retrieved_headers(graph):
    # From a sub-section, the parent header is reached, but its other sub-sections are not
    # (that would pull every sibling of the unit that was actually found).
    header = hop(graph, [HopSeed(node_id="2025:27", score=1.0)], hops=1, edge_types={EdgeType.CHILD})
    assert {n.node_id for n in header.added} >= {"2025:27(1)", "2025:27(2)"}
    sub = hop(graph, [HopSeed(node_id="2025:27(1)", score=1.0)], hops=2, edge_types={EdgeType.PARENT, EdgeType.CHILD})
    ids = {n.node_id for n in sub.added}
    assert "2025:27" in ids and "2025:27(4)" not in ids


def test_bad_arguments(graph):
    with pytest.raises(ValueError):
        hop(graph, [HopSeed(node_id="2025:27", score=1.0)], hops=1, edge_types=ALL, decay=0)
    with pytest.raises(ValueError):
        hop(graph, [HopSeed(node_id="2025:27", score=1.0)], hops=-1, edge_types=ALL)
    # Unknown seeds are ignored rather than crashing the pipeline.
    assert hop(graph, [HopSeed(node_id="2025:9999", score=1.0)], hops=2, edge_types=ALL).added == []


def test_cited_by_reaches_the_penalty_of_a_retrieved_duty_only_when_asked(graph):
    seeds = [HopSeed(node_id="2025:196B(1)", score=1.0)]
    asked = hop(graph, seeds, hops=1, edge_types={EdgeType.CITED_BY})
    assert [(n.node_id, n.edge) for n in asked.added if n.edge == EdgeType.CITED_BY] == [("2025:291(4)", EdgeType.CITED_BY)]
    _check_trace(graph, seeds, asked, 1)
    plain = hop(graph, seeds, hops=1, edge_types={EdgeType.CROSS_REF})
    assert "2025:291(4)" not in {n.node_id for n in plain.added}


def test_cited_by_enters_only_the_penalty_chapter_and_only_from_a_seed(graph):
    # 132(5) is cited by 132(6) and 134(1) (chapter 10): not penalties, so not followed backwards.
    res = hop(graph, [HopSeed(node_id="2025:132(5)", score=1.0)], hops=1, edge_types={EdgeType.CITED_BY})
    assert all(n.edge != EdgeType.CITED_BY for n in res.added)
    # From a hop-reached unit it is not followed either: 28(3) -> 26(4) by cross_ref, and nothing
    # citing 26(4) is added at depth 2.
    res = hop(graph, [HopSeed(node_id="2025:28(3)", score=1.0)], hops=2, edge_types={EdgeType.CROSS_REF, EdgeType.CITED_BY})
    assert all(n.depth == 1 for n in res.added if n.edge == EdgeType.CITED_BY)
    for n in res.added:
        if n.edge == EdgeType.CITED_BY:
            assert graph.units[n.node_id].chapter == 19


def test_a_penalty_question_plans_the_cited_by_edge(graph):
    from labourcrew.retrieval.issue_spotter import spot_issues
    from labourcrew.retrieval.planner import make_plan
    from labourcrew.settings import load_settings

    settings = load_settings()
    fine = make_plan(spot_issues("অভিযোগ কমিটি না থাকলে মালিকের কি জরিমানা হবে?"), settings, graph=graph, version="2025")
    leave = make_plan(spot_issues("নৈমিত্তিক ছুটি কত দিন?"), settings, graph=graph, version="2025")
    assert EdgeType.CITED_BY in fine.edge_types and EdgeType.CITED_BY not in leave.edge_types
