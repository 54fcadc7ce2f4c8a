"""Graph pictures with pyvis (vis-network), fully offline.

* :func:`section_neighbourhood` -- the part of the StatuteGraph around one unit: its section's
  units, the section's parent chapter, provisos, outgoing cross-references and the units that
  refer to it (paper §3.2), as a typed :class:`Neighbourhood`;
* :func:`hop_trace_neighbourhood` -- the Link Hopper's Hop Trace of a run as a graph (paper §3.3);
* :func:`network_html` -- either of them as a standalone HTML page, edges coloured by type,
  the run's evidence and cited nodes marked.

The vis-network JavaScript and CSS are **inlined** (pyvis ``cdn_resources="in_line"``); pyvis's
template also links Bootstrap from a CDN, which we strip, and :func:`assert_offline` checks that no
``http(s)`` script or stylesheet is left, so the page renders with no network at all.
"""

from __future__ import annotations

import html
import json
import logging
import re
from collections.abc import Iterable, Sequence

from pydantic import BaseModel, ConfigDict, Field

from labourcrew.errors import InputError
from labourcrew.graph.statute_graph import StatuteGraph
from labourcrew.ledger.records import EvidenceItem, HopTraceEntry
from labourcrew.statute.ids import citation_label_bn
from labourcrew.statute.model import ENGLISH_VERSION, EdgeType, Level
from labourcrew.statute.normalize import shorten
from labourcrew.viz.style import EDGE_COLOURS, EDGE_LABELS_BN, FONT_FAMILY, MARK_COLOURS

__all__ = [
    "GraphNode",
    "GraphEdge",
    "Neighbourhood",
    "node_label",
    "section_neighbourhood",
    "hop_trace_neighbourhood",
    "network_html",
    "assert_offline",
    "LEGEND_PX",
]

logger = logging.getLogger(__name__)

_TIP_CHARS = 280
LEGEND_PX = 56
"""Height of the legend above the canvas; an iframe showing the page needs height_px + this."""


class GraphNode(BaseModel):
    """One node of a drawn graph."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    node_id: str = Field(description="StatuteGraph node id.")
    label: str = Field(description="Short label drawn on the node (Bangla citation form).")
    tooltip: str = Field(description="Plain text shown on hover (start of the unit text).")
    level: str = Field(description="Structural level of the unit ('unknown' when not in the graph).")
    focus: bool = Field(default=False, description="True for the unit the picture is centred on.")


class GraphEdge(BaseModel):
    """One typed edge of a drawn graph."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    source: str = Field(description="Node id the edge starts from.")
    target: str = Field(description="Node id the edge points to.")
    edge: EdgeType = Field(description="Edge type: parent (structure), proviso or cross_ref.")
    label: str = Field(default="", description="Optional text on the edge (e.g. hop depth).")


class Neighbourhood(BaseModel):
    """Nodes and typed edges to draw."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    focus: str | None = Field(description="Node id the picture is centred on (None for a Hop Trace).")
    nodes: list[GraphNode] = Field(description="Nodes, unique by node id, in a deterministic order.")
    edges: list[GraphEdge] = Field(description="Edges, unique by (source, target, type).")
    truncated: bool = Field(default=False, description="True when max_nodes cut the picture short.")


def node_label(node_id: str) -> str:
    """Drawn label of a node id: the Act's Bangla citation (English style for ``en-2018``)."""
    version, _, label = node_id.partition(":")
    if version == ENGLISH_VERSION:
        return f"s. {label}"
    return citation_label_bn(label).removeprefix("ধারা ")


def _tooltip(graph: StatuteGraph | None, node_id: str, fallback: str = "") -> tuple[str, str]:
    unit = graph.units.get(node_id) if graph is not None else None
    if unit is None:
        return (fallback or node_id)[:_TIP_CHARS], "unknown"
    head = f"{node_id}" + (f" — {unit.title}" if unit.title else "")
    text = shorten(unit.text, _TIP_CHARS)
    return f"{head}\n{text}", unit.level.value


class _Builder:
    def __init__(self, graph: StatuteGraph | None, max_nodes: int) -> None:
        self.graph = graph
        self.max_nodes = max_nodes
        self.nodes: dict[str, GraphNode] = {}
        self.edges: dict[tuple[str, str, str], GraphEdge] = {}
        self.truncated = False

    def node(self, node_id: str, *, focus: bool = False, fallback: str = "") -> bool:
        if node_id in self.nodes:
            return True
        if len(self.nodes) >= self.max_nodes:
            self.truncated = True
            return False
        tip, level = _tooltip(self.graph, node_id, fallback)
        self.nodes[node_id] = GraphNode(node_id=node_id, label=node_label(node_id), tooltip=tip,
                                        level=level, focus=focus)
        return True

    def edge(self, source: str, target: str, edge: EdgeType, label: str = "") -> None:
        if source in self.nodes and target in self.nodes:
            edge = EdgeType.PARENT if edge == EdgeType.CHILD else edge
            self.edges.setdefault((source, target, edge.value),
                                  GraphEdge(source=source, target=target, edge=edge, label=label))

    def done(self, focus: str | None) -> Neighbourhood:
        return Neighbourhood(focus=focus, nodes=list(self.nodes.values()), edges=list(self.edges.values()),
                             truncated=self.truncated)


def section_neighbourhood(
    graph: StatuteGraph,
    node_id: str,
    *,
    extra_nodes: Iterable[str] = (),
    max_nodes: int = 80,
) -> Neighbourhood:
    """The StatuteGraph around a unit, for the explorer (paper §3.2).

    Contains the unit's section with all its units (parent edges), the chapter, every proviso
    edge inside the section, cross-references going out of the section and those coming in from
    other sections (each drawn to the referring/referred unit), plus those ``extra_nodes`` (e.g.
    the run's evidence) of the same version that share an edge with a drawn node.

    Args:
        graph: the StatuteGraph.
        node_id: the unit to centre on (any level).
        extra_nodes: more node ids to include when they exist and connect to the picture.
        max_nodes: cap on the number of nodes (``truncated`` says when it bit).

    Returns:
        :class:`Neighbourhood` with ``focus = node_id``.

    Raises:
        InputError: unknown node id.
    """
    focus = graph.get(node_id)  # raises InputError
    section = graph.section_of(node_id) or focus
    b = _Builder(graph, max_nodes)
    b.node(focus.node_id, focus=True)
    b.node(section.node_id)
    members = [section, *graph.descendants(section.node_id)]
    for u in members:
        b.node(u.node_id)
    if section.parent:
        b.node(section.parent)
    member_ids = {u.node_id for u in members}
    # Structure and provisos inside the section, outgoing references.
    for u in [*members]:
        for etype, target in graph.neighbours(u.node_id, {EdgeType.PARENT, EdgeType.PROVISO, EdgeType.CROSS_REF}):
            if etype == EdgeType.CROSS_REF and target not in member_ids:
                b.node(target)
            if etype == EdgeType.PARENT:
                b.edge(target, u.node_id, EdgeType.PARENT)
            else:
                b.edge(u.node_id, target, etype)
    # Incoming references from other sections.
    for ref in graph.cross_refs:
        if ref.target in member_ids and ref.source not in member_ids and ref.source in graph.units:
            if b.node(ref.source):
                b.edge(ref.source, ref.target, EdgeType.CROSS_REF)
    version = focus.version
    for extra in extra_nodes:
        if extra not in graph.units or not extra.startswith(f"{version}:") or extra in b.nodes:
            continue
        # Only extras joined to the picture by an edge: floating nodes would shrink the drawing.
        out = [(e, t) for e, t in graph.neighbours(extra) if t in b.nodes and e != EdgeType.CHILD]
        incoming = [n for n in list(b.nodes) if extra in graph.units[n].cross_refs]
        if (out or incoming) and b.node(extra):
            for etype, target in out:
                if etype == EdgeType.PARENT:
                    b.edge(target, extra, etype)
                else:
                    b.edge(extra, target, etype)
            for other in incoming:
                b.edge(other, extra, EdgeType.CROSS_REF)
    return b.done(node_id)


def hop_trace_neighbourhood(
    hop_trace: Sequence[HopTraceEntry],
    items: Sequence[EvidenceItem] = (),
    *,
    graph: StatuteGraph | None = None,
    max_nodes: int = 120,
) -> Neighbourhood:
    """The Link Hopper's Hop Trace as a graph: seeds (directly retrieved) and the hops taken.

    Args:
        hop_trace: the edges followed, in order.
        items: the Evidence Pack items (every pack unit becomes a node, so seeds show too).
        graph: the StatuteGraph for tooltips (optional; the pack text is used otherwise).
        max_nodes: cap on the number of nodes.

    Returns:
        :class:`Neighbourhood` without a focus; each edge is labelled with its hop depth.
    """
    b = _Builder(graph, max_nodes)
    texts = {i.node_id: i.text for i in items}
    for item in items:
        b.node(item.node_id, fallback=f"{item.node_id}\n{item.text}")
    for hop in hop_trace:
        b.node(hop.source, fallback=f"{hop.source}\n{texts.get(hop.source, '')}")
        b.node(hop.target, fallback=f"{hop.target}\n{texts.get(hop.target, '')}")
        b.edge(hop.source, hop.target, hop.edge, label=f"hop {hop.depth}")
    return b.done(None)


def _node_style(node: GraphNode, evidence: set[str], cited: set[str]) -> dict:
    if node.node_id in cited:
        mark = "cited"
    elif node.node_id in evidence:
        mark = "evidence"
    else:
        mark = "plain"
    colour = MARK_COLOURS[mark]
    border = MARK_COLOURS["focus"] if node.focus else colour
    size = {Level.CHAPTER.value: 24, Level.SECTION.value: 20}.get(node.level, 13)
    suffix = {"cited": "  [উদ্ধৃত · cited]", "evidence": "  [প্রমাণ · evidence]"}.get(mark, "")
    return {
        "label": node.label,
        "title": node.tooltip + suffix,
        "color": {"background": colour, "border": border,
                  "highlight": {"background": colour, "border": MARK_COLOURS["focus"]}},
        "borderWidth": 4 if node.focus else 1,
        "size": size + (6 if node.focus else 0),
        "shape": "dot",
        "font": {"face": FONT_FAMILY, "size": 32 if node.focus else 26, "strokeWidth": 4, "strokeColor": "#ffffff"},
    }


_CDN_TAG = re.compile(
    r"<(?:script|link)\b[^>]*\b(?:src|href)\s*=\s*[\"']?(?:https?:)?//[^>]*>(?:\s*</script>)?",
    re.IGNORECASE,
)


# pyvis's template keeps a commented-out <script src="../node_modules/..."> block: drop it too.
_DEAD_COMMENT = re.compile(r"<!--(?:(?!-->).)*node_modules(?:(?!-->).)*-->", re.DOTALL)


def assert_offline(page: str) -> str:
    """Raise if ``page`` loads any script or stylesheet over the network; return it unchanged.

    Raises:
        InputError: a ``<script src=http(s)://…>`` or ``<link href=http(s)://…>`` is present.
    """
    hit = _CDN_TAG.search(page)
    if hit:
        raise InputError(f"graph HTML would load a remote resource: {hit.group(0)[:120]}")
    return page


def network_html(
    nb: Neighbourhood,
    *,
    evidence: Iterable[str] = (),
    cited: Iterable[str] = (),
    height_px: int = 560,
    hierarchical: bool = False,
) -> str:
    """A standalone offline HTML page drawing ``nb`` with vis-network.

    Edges are coloured by type (:data:`~labourcrew.viz.style.EDGE_COLOURS`: parent grey, proviso
    orange, cross-reference blue); cited nodes red, other evidence yellow, the focus ringed.

    Args:
        nb: what to draw.
        evidence: node ids on the run's Evidence Pack.
        cited: node ids cited by the run's claims.
        height_px: canvas height in pixels (the page is about :data:`LEGEND_PX` taller).
        hierarchical: top-down layout (good for Hop Traces) instead of force-directed.

    Returns:
        The HTML page (UTF-8 text), with vis-network inlined and no remote resource.
    """
    from pyvis.network import (
        Network,  # pyvis pulls jinja2; only pay for it when drawing
    )

    ev, ci = set(evidence), set(cited)
    net = Network(height=f"{height_px}px", width="100%", directed=True, cdn_resources="in_line",
                  bgcolor="#ffffff", font_color="#202124")
    for node in nb.nodes:
        style = _node_style(node, ev, ci)
        net.add_node(node.node_id, **style)
    for e in nb.edges:
        net.add_edge(e.source, e.target, color=EDGE_COLOURS[e.edge.value],
                     title=EDGE_LABELS_BN[e.edge.value] + (f" · {e.label}" if e.label else ""),
                     label=e.label or None, dashes=e.edge == EdgeType.CROSS_REF,
                     width=2 if e.edge != EdgeType.PARENT else 1)
    options: dict = {
        "nodes": {"font": {"face": FONT_FAMILY}},
        "edges": {"font": {"face": FONT_FAMILY, "size": 10}, "arrows": {"to": {"enabled": True, "scaleFactor": 0.5}},
                  "smooth": {"type": "dynamic"}},
        "interaction": {"hover": True, "navigationButtons": False},
        "physics": {"stabilization": {"iterations": 200, "fit": True},
                    "barnesHut": {"springLength": 80, "gravitationalConstant": -2500, "centralGravity": 0.6,
                                  "avoidOverlap": 0.3}},
    }
    if hierarchical:
        options["layout"] = {"hierarchical": {"enabled": True, "direction": "UD", "sortMethod": "directed"}}
        options["physics"] = {"enabled": False}
    net.set_options(json.dumps(options))
    page = net.generate_html(notebook=False)
    page = _CDN_TAG.sub("", page)
    page = _DEAD_COMMENT.sub("", page)
    legend = _legend_html()
    page = page.replace("<body>", "<body>" + legend, 1)
    # Drawn inside a hidden tab (the Run inspector's Hop Trace), the canvas starts 0 px wide and
    # stays blank: redraw and fit whenever the container gets (a new) width.
    page = page.replace("</body>", _REFIT_JS.replace("HEIGHT", str(height_px)) + "</body>", 1)
    page = page.replace("<head>", "<head><meta charset='utf-8'>"
                        f"<style>*{{box-sizing:border-box}}html,body{{font-family:{FONT_FAMILY};margin:0;"
                        "overflow:hidden}h1{display:none}.card{border:0}#mynetwork{border:1px solid #dadce0;"
                        "float:none}</style>", 1)
    return assert_offline(page)


_REFIT_JS = (
    "<script>(function(){var last=0;function fix(){var el=document.getElementById('mynetwork');"
    "if(!el||typeof network==='undefined'||!network)return;var w=el.getBoundingClientRect().width;"
    "if(w>0&&w!==last){last=w;network.setSize('100%','HEIGHTpx');network.redraw();network.fit();}}"
    "setInterval(fix,300);window.addEventListener('resize',fix);})();</script>"
)


def _legend_html() -> str:
    parts = []
    for etype in (EdgeType.PARENT, EdgeType.PROVISO, EdgeType.CROSS_REF):
        parts.append(f"<span style='color:{EDGE_COLOURS[etype.value]};font-weight:600'>━ "
                     f"{html.escape(EDGE_LABELS_BN[etype.value])}</span>")
    for mark, text in (("cited", "উদ্ধৃত · cited"), ("evidence", "প্রমাণ · evidence")):
        parts.append(f"<span><span style='color:{MARK_COLOURS[mark]}'>●</span> {html.escape(text)}</span>")
    return ("<div style='font-size:12px;line-height:1.4;padding:2px 4px;display:flex;gap:10px;flex-wrap:wrap'>"
            + "".join(parts) + "</div>")
