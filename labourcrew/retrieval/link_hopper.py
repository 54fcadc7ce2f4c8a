"""Link Hopper (paper §3.3): expand retrieved units along typed StatuteGraph edges.

Breadth-first from the directly retrieved units (depth 0), up to ``hops`` levels:

* ``proviso`` -- always followed from a retrieved rule, whatever the plan allows: a rule read
  without its proviso misstates the law;
* ``cross_ref`` -- the Act's own references ("ধারা ৩৩-এর অধীন"), which often lead to another
  chapter (penalties in chapter XIX point back to the duties they punish);
* ``parent`` -- from a clause or sub-section up to the text that introduces it;
* ``child`` -- only from a directly retrieved *section header* or *lead-in* unit (text ending in
  "যথা:-", ":" ...), so a retrieved section brings its sub-units; at most :data:`MAX_CHILDREN`;
* ``cited_by`` -- the inverse of ``cross_ref``, only when the plan asks for it (a question about a
  penalty), only from a directly retrieved unit and only into the penalty chapter
  (:data:`PENALTY_CHAPTER`): a duty does not name its penalty, the penalty names the duty
  (291(4) cites 196B), and everything else that cites a popular section would swamp the pack.

Every edge that reaches a new unit is written to the Hop Trace as a
:class:`~labourcrew.ledger.records.HopTraceEntry` (source, edge, target, depth). A hop-reached
unit's score and provenance are its source's times ``decay`` per hop (0.8 by default, never 0).
Omitted units ([***]) and chapter units reached by ``parent``/``child`` are never added. The hopper stops
early when a level adds nothing.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field

from labourcrew.graph.statute_graph import StatuteGraph
from labourcrew.ledger.records import HopTraceEntry
from labourcrew.statute.ids import label_within
from labourcrew.statute.model import EdgeType, Level, Unit

__all__ = ["HopSeed", "HopResult", "HopNode", "hop", "DEFAULT_DECAY", "MAX_CHILDREN", "PENALTY_CHAPTER", "penalties_citing", "is_lead_in", "admissible", "LINK_EDGES", "required_links", "link_on_pack"]

logger = logging.getLogger(__name__)

DEFAULT_DECAY = 0.8
PENALTY_CHAPTER = 19  # অপরাধ, দণ্ড এবং পদ্ধতি (offences, penalties and procedure)
MAX_CHILDREN = 12  # section 2 has ~95 children: all of them would swamp any Evidence Pack
_LEAD_IN = re.compile(r"(যথা|নিম্নরূপ|নিম্নবর্ণিত|নিম্নলিখিত|following|namely)\s*[:ঃ\-–—]*\s*$|[:ঃ]\s*[-–—]*\s*$", re.IGNORECASE)
# Edge order inside one unit: provisos first (they qualify the rule), then structure, then refs.
_EDGE_ORDER = (EdgeType.PROVISO, EdgeType.CHILD, EdgeType.PARENT, EdgeType.CROSS_REF, EdgeType.CITED_BY)


def is_lead_in(unit: Unit) -> bool:
    """True when a unit's text introduces a list of sub-units (ends in 'যথা:-', ':' ...)."""
    return bool(_LEAD_IN.search(unit.text.strip().rstrip("[]")))


class HopSeed(BaseModel):
    """A directly retrieved unit the hopper starts from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    node_id: str = Field(description="Node id of the retrieved unit.")
    score: float = Field(description="Its fused retrieval score.")
    provenance: float = Field(default=1.0, ge=0.0, le=1.0, description="Its retrieval provenance.")


class HopNode(BaseModel):
    """A unit the hopper added."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    node_id: str = Field(description="Node id reached.")
    via: str = Field(description="Node id it was reached from.")
    edge: EdgeType = Field(description="Edge type followed.")
    depth: int = Field(ge=1, description="Hops from the nearest seed.")
    score: float = Field(description="Source score x decay.")
    provenance: float = Field(ge=0.0, le=1.0, description="Source provenance x decay (> 0).")


class HopResult(BaseModel):
    """What the hopper added, and the trace of how."""

    model_config = ConfigDict(extra="forbid")

    added: list[HopNode] = Field(default_factory=list, description="New units in the order reached.")
    trace: list[HopTraceEntry] = Field(default_factory=list, description="One entry per added unit.")
    depth_reached: int = Field(default=0, ge=0, description="Deepest level that added a unit.")


def _edges(graph: StatuteGraph, unit: Unit, allowed: set[EdgeType], retrieved: bool) -> list[tuple[EdgeType, str]]:
    # Proviso edges are followed even when the plan did not list them (paper: a rule's provisos
    # always travel with it). Children only from *retrieved* headers / lead-ins: a header reached
    # by a parent hop would otherwise pull in every sibling of the unit that was actually found.
    use = set(allowed) | {EdgeType.PROVISO}
    if EdgeType.CHILD in use and not (retrieved and (unit.level == Level.SECTION or is_lead_in(unit))):
        use.discard(EdgeType.CHILD)
    backwards = EdgeType.CITED_BY in use and retrieved  # a penalty of a hop-reached unit answers nobody
    use.discard(EdgeType.CITED_BY)
    out = graph.neighbours(unit.node_id, use)
    if backwards:
        out += [(EdgeType.CITED_BY, t) for t in penalties_citing(graph, unit.node_id)]
    children = [(e, t) for e, t in out if e == EdgeType.CHILD][:MAX_CHILDREN]
    rest = [(e, t) for e, t in out if e != EdgeType.CHILD]
    return sorted(children + rest, key=lambda et: _EDGE_ORDER.index(et[0]))


def penalties_citing(graph: StatuteGraph, node_id: str) -> list[str]:
    """The penalty-chapter units (:data:`PENALTY_CHAPTER`) whose reference covers ``node_id``
    (:meth:`StatuteGraph.cited_by`), document order: 196B(1) -> [291(4)]; 332A(1) -> [307A].

    The one rule behind the Link Hopper's ``cited_by`` edge and the pack order that puts a duty's
    penalty after it.
    """
    return [c for c in graph.cited_by(node_id) if graph.units[c].chapter == PENALTY_CHAPTER]


def admissible(graph: StatuteGraph, target: str, edge: EdgeType, version: str) -> bool:
    """True when the hopper may add ``target`` reached by ``edge``: a unit of ``version``, not
    omitted, with text (or a titled section), and not a chapter reached structurally.
    """
    unit = graph.units.get(target)
    if unit is None or unit.omitted or unit.version != version:
        return False
    if not unit.text.strip() and not (unit.level == Level.SECTION and unit.title):
        return False
    # A chapter unit is only its title: never worth a pack slot when reached structurally.
    return not (unit.level == Level.CHAPTER and edge in (EdgeType.CHILD, EdgeType.PARENT))


LINK_EDGES = (EdgeType.PROVISO, EdgeType.CROSS_REF)
"""The edges whose targets a cited unit needs beside it: its provisos qualify it, its
cross-references say what it refers to (paper §3.5, B.6)."""


def required_links(graph: StatuteGraph, node_id: str, edges: Iterable[EdgeType] = LINK_EDGES) -> list[str]:
    """The units a cited unit needs on the Evidence Pack: the targets of its ``edges`` (provisos and
    cross-references by default) that the hopper would add (:func:`admissible`), chapter units
    excluded -- a cross-reference to a whole chapter ("এই অধ্যায়ের অধীন") names a title, no text
    a claim could quote. Graph order, each once; [] for an unknown node.

    The one definition behind the Supervisor's evidence-gap check and the Path Completeness metric.
    """
    unit = graph.units.get(node_id)
    if unit is None:
        return []
    out = [
        t for e, t in graph.neighbours(node_id, set(edges))
        if t != node_id and admissible(graph, t, e, unit.version) and graph.units[t].level != Level.CHAPTER
    ]
    return list(dict.fromkeys(out))


def link_on_pack(target: str, on_pack: Iterable[str]) -> bool:
    """Whether a required link is served by the pack: the target itself, or a unit inside it, is on
    it -- a reference to "ধারা ১০৮" is served by 108(1)-(3) already on the pack, so it is no gap
    (:func:`~labourcrew.statute.ids.label_within`). A proviso is served only by itself.
    """
    return any(label_within(n, target) for n in on_pack)


def hop(
    graph: StatuteGraph,
    seeds: Iterable[HopSeed],
    *,
    hops: int,
    edge_types: Iterable[EdgeType],
    decay: float = DEFAULT_DECAY,
    max_new: int | None = None,
) -> HopResult:
    """Expand ``seeds`` breadth-first along typed edges, at most ``hops`` levels deep.

    Args:
        graph: the StatuteGraph.
        seeds: directly retrieved units (their order sets the expansion order).
        hops: maximum depth (0 returns nothing).
        edge_types: edge types allowed by the plan (``proviso`` is always added).
        decay: score/provenance factor per hop, in (0, 1].
        max_new: stop after this many added units (None: no limit).

    Returns:
        A :class:`HopResult`; every added unit has exactly one trace entry with its depth.

    Raises:
        ValueError: ``decay`` outside (0, 1] or negative ``hops``.
    """
    if not 0 < decay <= 1:
        raise ValueError(f"decay must be in (0, 1], got {decay}")
    if hops < 0:
        raise ValueError(f"hops must be >= 0, got {hops}")
    allowed = set(edge_types)
    seed_list = [s for s in seeds if s.node_id in graph.units]
    known: dict[str, tuple[float, float]] = {s.node_id: (s.score, s.provenance) for s in seed_list}
    frontier = [s.node_id for s in seed_list]
    result = HopResult()
    for depth in range(1, hops + 1):
        nxt: list[str] = []
        for source in frontier:
            unit = graph.units[source]
            score, prov = known[source]
            for edge, target in _edges(graph, unit, allowed, retrieved=depth == 1):
                if target in known or not admissible(graph, target, edge, unit.version):
                    continue
                node = HopNode(
                    node_id=target, via=source, edge=edge, depth=depth,
                    score=score * decay, provenance=max(prov * decay, 1e-6),
                )
                known[target] = (node.score, node.provenance)
                result.added.append(node)
                result.trace.append(HopTraceEntry(source=source, edge=edge, target=target, depth=depth))
                nxt.append(target)
                if max_new is not None and len(result.added) >= max_new:
                    result.depth_reached = depth
                    return result
        if not nxt:  # this level added nothing: deeper levels cannot either
            logger.debug("link hopper halted at depth %d (no new units)", depth)
            break
        result.depth_reached = depth
        frontier = nxt
    return result
