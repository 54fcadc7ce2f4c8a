"""Pure dashboard builders: highlighting, figures with a Bangla font, offline pyvis pages, results parsing."""

from __future__ import annotations

import json
import math
import re

import pytest

from labourcrew.errors import DataError, InputError
from labourcrew.gate.crc import risk_curve
from labourcrew.ledger.records import EvidenceItem, HopTraceEntry, Side, TrustComponents
from labourcrew.statute.model import EdgeType
from labourcrew.viz.charts import (
    risk_curve_figure,
    role_timeline_figure,
    score_vs_tau_figure,
    trust_components_figure,
)
from labourcrew.viz.evaluation import (
    metric_by_category_figure,
    parse_results,
    status_share_figure,
)
from labourcrew.viz.network import (
    assert_offline,
    hop_trace_neighbourhood,
    network_html,
    section_neighbourhood,
)
from labourcrew.viz.passages import highlight
from labourcrew.viz.statute import section_view
from labourcrew.viz.style import FONT_FAMILY

_REMOTE = re.compile(r"<(script|link)\b[^>]*(src|href)\s*=\s*[\"']?(https?:)?//", re.I)


def test_highlight_marks_the_source_characters_of_a_variant_spelling(graph):
    text = graph.get("2025:27(1)").text
    # Bangla digits and a ZWNJ inside the quote must still find the source span.
    quote = "ষাট দিনের লিখিত\u200c নোটিশ"
    hl = highlight(text, [quote, "এই বাক্যটি আইনে নেই"])
    assert len(hl.found) == 1
    start, end = hl.found[0]
    assert "ষাট দিনের লিখিত নোটিশ" in text[start:end]
    assert "<mark class='lc-span'>" in hl.html and hl.missing == ["এই বাক্যটি আইনে নেই"]


def test_highlight_escapes_html_and_merges_overlaps():
    hl = highlight("a <b> c d e", ["<b> c", "c d"])
    assert hl.found == [(2, 9)]
    assert "&lt;b&gt;" in hl.html and "<b>" not in hl.html


def test_figures_use_a_bangla_font():
    comps = TrustComponents(citation_validity=1, span_fidelity=0.5, verdict_score=1, provenance=0.8, confidence=0.7)
    curve = risk_curve([[(0.9, True), (0.4, False)], [(0.8, True)], [(0.3, False), (0.7, True)]])
    figs = [
        trust_components_figure(comps),
        score_vs_tau_figure(0.7, tau=0.6, alpha=0.1, n=30, created="2026-01-01T00:00:00", labels_sha256="ab" * 32),
        score_vs_tau_figure(0.7, tau=math.inf, alpha=0.1, n=0),
        risk_curve_figure(curve, alpha=0.1, tau=0.8, n=3, bound=0.2),
        role_timeline_figure([{"role": "worker_counsel", "stage": "counsel@d0", "status": "retried", "attempts": 2,
                               "latency_ms": 12.0}]),
    ]
    for fig in figs:
        assert fig.layout.font.family == FONT_FAMILY
    assert "τ = ∞" in figs[2].layout.annotations[0].text
    assert "τ = 0.600" in figs[1].layout.title.text and "labels abababababab" in figs[1].layout.title.text


def test_trust_components_show_the_learned_relevance_when_it_ran():
    from labourcrew.audit.trust_score import DEFAULT_WEIGHTS, trust_score

    base = {"citation_validity": 1, "span_fidelity": 1, "verdict_score": 1, "provenance": 0.8, "confidence": 0.2}
    five = trust_components_figure(TrustComponents(**base))
    six = trust_components_figure(TrustComponents(**base, relevance=0.1))
    assert len(five.data[0].y) == 5 and len(six.data[0].y) == 6
    assert "relevance" in six.data[0].y[-1] and six.data[0].x[-1] == 0.1
    # the bars' weights are the score's: S is their weighted mean
    weights = [float(name.rsplit("w=", 1)[1].rstrip(")")) for name in six.data[0].y]
    mean = sum(w * x for w, x in zip(weights, six.data[0].x, strict=True)) / sum(weights)
    assert abs(mean - trust_score(TrustComponents(**base, relevance=0.1), DEFAULT_WEIGHTS)) < 0.01


def test_section_neighbourhood_has_typed_edges_and_incoming_refs(graph):
    nb = section_neighbourhood(graph, "2025:27(1)")
    kinds = {e.edge for e in nb.edges}
    assert EdgeType.PARENT in kinds and EdgeType.CROSS_REF in kinds
    ids = {n.node_id for n in nb.nodes}
    assert "2025:27" in ids and any(n.focus and n.node_id == "2025:27(1)" for n in nb.nodes)
    # every edge joins drawn nodes
    assert all(e.source in ids and e.target in ids for e in nb.edges)
    with pytest.raises(InputError):
        section_neighbourhood(graph, "2025:9999")


def test_network_html_is_offline_and_carries_bangla_labels(graph):
    page = network_html(section_neighbourhood(graph, "2025:27"), cited=["2025:27(1)"], evidence=["2025:27(2)"])
    assert not _REMOTE.search(page)
    assert "vis.Network" in page or "new vis" in page  # the library is inlined
    label = "২৭(১)"  # pyvis writes node data as JSON, possibly \u-escaped; the browser decodes both
    assert (label in page or json.dumps(label)[1:-1] in page) and "Noto Sans Bengali" in page
    with pytest.raises(InputError):
        assert_offline('<script src="https://cdn.example/x.js"></script>')


def _one_hop(graph, a: str, b: str, edge: EdgeType):
    """A seed ``a`` and the unit ``b`` one ``edge`` hop from it, drawn as a Hop Trace graph."""
    items = [
        EvidenceItem(node_id=a, section=graph.get(a).section, level=graph.get(a).level, text=graph.get(a).text,
                     channels=["dense"], score=1.0, provenance=1.0),
        EvidenceItem(node_id=b, section=graph.get(b).section, level=graph.get(b).level, text=graph.get(b).text,
                     channels=["hop"], score=0.5, provenance=0.8, hop_depth=1, via=a),
    ]
    return hop_trace_neighbourhood([HopTraceEntry(source=a, edge=edge, target=b, depth=1)], items, graph=graph)


def test_hop_trace_graph_draws_seeds_and_hops(graph):
    a, b = "2025:27(1)", "2025:27(3)"
    nb = _one_hop(graph, a, b, EdgeType.CROSS_REF)
    assert {n.node_id for n in nb.nodes} == {a, b}
    assert nb.edges[0].label == "hop 1"


def test_a_penalty_reached_backwards_is_drawn_with_a_label(graph):
    # The Link Hopper's cited_by hop (196B(1) -> 291(4)) must draw like any other edge.
    a, b = "2025:196B(1)", "2025:291(4)"
    nb = _one_hop(graph, a, b, EdgeType.CITED_BY)
    page = network_html(nb, cited=[a], evidence=[b])
    assert "cited_by" in page and [e.edge for e in nb.edges] == [EdgeType.CITED_BY]


def test_section_view_accepts_bangla_and_ascii_numbers(graph):
    bn = section_view(graph, "2025", "২৭(৩ক)")
    en = section_view(graph, "2025", "27(3A)")
    assert bn.node_id == en.node_id == "2025:27(3A)"
    assert bn.section_id == "2025:27" and bn.diff is not None
    assert any(line.focus for line in bn.lines)
    with pytest.raises(InputError):
        section_view(graph, "2025", "৯৯৯")


def test_parse_results_shapes_and_nan():
    data = {"dataset": "dev_v1", "configs": {
        "full": {"kind": "system", "overall": {"citation_based_precision": 0.6, "tglo_rate": 0.5, "n": 10},
                 "by_category": {"multi_hop": {"citation_based_precision": None, "tglo_rate": 0.4, "n": 4}}},
        "single_pass_rag": {"kind": "baseline", "overall": {"citation_based_precision": 0.3}},
        "hop_0": {"kind": "ablation", "group": "hops", "overall": {"citation_based_precision": 0.5}},
    }}
    res = parse_results(data)
    assert res.configs == ["full", "single_pass_rag", "hop_0"] and res.categories == ["multi_hop"]
    assert res.groups == ["hops"]
    assert res.configs_for(None) == ["full", "single_pass_rag"] and res.configs_for("hops") == ["full", "hop_0"]
    mh = next(r for r in res.rows if r.category == "multi_hop")
    assert math.isnan(mh.metrics["citation_based_precision"]) and mh.n == 4
    fig = metric_by_category_figure(res, "citation_based_precision")
    assert fig.data[0].y[0] is None  # NaN is not drawn as 0
    assert status_share_figure(res, "full").layout.barmode == "stack"
    flat = parse_results({"overall": {"tglo_rate": 1.0}})
    assert flat.configs == ["full"]
    rows = parse_results([{"config": "x", "category": "overall", "latency_s": "2.5"}])
    assert rows.rows[0].metrics == {"latency_s": 2.5}
    with pytest.raises(DataError):
        parse_results({"nothing": "here"})


def test_cited_passages_show_a_rule_before_its_proviso(graph):
    """A proviso cited first (by the employer side) is still shown after its rule, as in the Act."""
    from types import SimpleNamespace

    from labourcrew.ledger.records import EvidencePack
    from labourcrew.viz.run_view import cited_passages

    rule, proviso = graph.units["2025:115"], graph.units["2025:115.proviso1"]
    ev = lambda u: SimpleNamespace(node_id=u.node_id, span=u.text[5:40])  # noqa: E731
    claims = [SimpleNamespace(claim_id="e1", side=Side.EMPLOYER, trust_score=0.9, evidence=[ev(proviso)]),
              SimpleNamespace(claim_id="w1", side=Side.WORKER, trust_score=0.5, evidence=[ev(rule)])]
    result = SimpleNamespace(evidence_pack=EvidencePack(items=[]))
    ordered = [p.node_id for p in cited_passages(result, graph, claims=claims)]
    assert ordered == ["2025:115", "2025:115.proviso1"]
    assert [p.node_id for p in cited_passages(result, None, claims=claims)] == ordered  # the label rule, no graph needed


def test_cited_passages_follow_the_opinion_governing_rule_first(graph):
    """The ledger lists parallel claims by node name (employer first); the passages, like the
    opinion, start with the Legal Interpreter's governing rule."""
    from types import SimpleNamespace

    from labourcrew.gate.opinion_writer import reading_order
    from labourcrew.ledger.records import EvidencePack
    from labourcrew.viz.run_view import cited_passages

    ev = lambda n: SimpleNamespace(node_id=n, span=graph.units[n].text[5:40])  # noqa: E731
    claims = [SimpleNamespace(claim_id="e1", side=Side.EMPLOYER, trust_score=0.9, evidence=[ev("2025:26(2)(b)")]),
              SimpleNamespace(claim_id="i1", side=Side.INTERPRETER, trust_score=0.6, evidence=[ev("2025:27(1)")]),
              SimpleNamespace(claim_id="w1", side=Side.WORKER, trust_score=0.7, evidence=[ev("2025:27(2)(b)")])]
    assert [c.claim_id for c in reading_order(claims)] == ["i1", "w1", "e1"]
    result = SimpleNamespace(evidence_pack=EvidencePack(items=[]))
    assert [p.node_id for p in cited_passages(result, graph, claims=claims)] == ["2025:27(1)", "2025:27(2)(b)", "2025:26(2)(b)"]


def test_an_answer_from_a_text_not_in_force_is_flagged():
    from labourcrew.statute.model import VERSIONS
    from labourcrew.viz.statute import IN_FORCE, version_notice

    assert IN_FORCE in VERSIONS and version_notice(IN_FORCE) is None
    for version in VERSIONS:
        if version != IN_FORCE:
            note = version_notice(version)
            assert note and "বলবৎ" in note and "2025" in note, version
