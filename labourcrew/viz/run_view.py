"""Views of a saved run (:class:`~labourcrew.board.run.AskResult`) for the Ask page, the Run
inspector and the explorer: cited passages with highlights, graph marks, claim columns.

Pure functions of the run (and the StatuteGraph for titles and English parallels).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from labourcrew.gate.opinion_writer import reading_order
from labourcrew.graph.statute_graph import StatuteGraph
from labourcrew.ledger.gate import GatedClaim
from labourcrew.statute.ids import citation_label_bn, rules_first
from labourcrew.statute.model import ENGLISH_VERSION, EnglishParallel
from labourcrew.viz.passages import highlight

if TYPE_CHECKING:
    from labourcrew.ledger.run import AskResult

__all__ = ["Passage", "Marks", "cited_passages", "run_marks", "claims_by_side", "unique_backends", "PHASES",
           "phase_of", "ERROR_HANDLER", "SIDE_TITLES"]

SIDE_TITLES: dict[str, str] = {"worker": "শ্রমিক পক্ষ · Worker", "employer": "মালিক পক্ষ · Employer",
                               "interpreter": "ব্যাখ্যাকারী · Interpreter"}
"""Board side (``Side`` value) -> its display title, Bangla first: the Run inspector's columns, the Ask page's
withheld claims (a new user read «e1 (employer)»)."""


class Passage(BaseModel):
    """One cited statute unit: full verbatim text with the claims' spans highlighted."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    node_id: str = Field(description="Cited node id.")
    citation: str = Field(description="Bangla citation, e.g. 'ধারা ২৭(১)'.")
    section_title: str = Field(description="Title of the unit's section ('' if unknown).")
    html: str = Field(description="Escaped full unit text with <mark> around every cited span.")
    spans: list[str] = Field(description="The spans cited in this unit.")
    missing: list[str] = Field(description="Cited spans not found in the text (should be empty for released claims).")
    claim_ids: list[str] = Field(description="Claims citing this unit.")
    english: EnglishParallel | None = Field(description="Aligned English section (unofficial), if any.")


class Marks(BaseModel):
    """What the StatuteGraph explorer marks for a run (or one of its claims)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    evidence: list[str] = Field(default_factory=list, description="Node ids on the Evidence Pack.")
    cited: list[str] = Field(default_factory=list, description="Node ids cited by the (selected) claims.")
    spans: dict[str, list[str]] = Field(default_factory=dict, description="Node id -> cited spans.")


# Board node -> (phase key, Bangla label) for live progress (issue spotting -> planning ->
# retrieval/hops -> counsels -> interpreter -> audit -> gate).
PHASES: dict[str, tuple[str, str]] = {
    "issue_spotter": ("spotting", "বিষয় চিহ্নিতকরণ (issue spotting)"),
    "retrieval_planner": ("planning", "অনুসন্ধান পরিকল্পনা (planning)"),
    "statute_retriever": ("retrieval", "আইন অনুসন্ধান (retrieval)"),
    "link_hopper": ("retrieval", "সংযোগ অনুসরণ (hops)"),
    "worker_counsel": ("counsels", "শ্রমিক পক্ষের যুক্তি (worker counsel)"),
    "employer_counsel": ("counsels", "মালিক পক্ষের যুক্তি (employer counsel)"),
    "supervisor": ("supervisor", "তত্ত্বাবধায়ক (supervisor)"),
    "legal_interpreter": ("interpreter", "আইনের ব্যাখ্যা (interpreter)"),
    "citation_checker": ("audit", "উদ্ধৃতি যাচাই (citation checker)"),
    "trust_auditor": ("audit", "নিরীক্ষা (trust auditor)"),
    "trust_gate": ("gate", "ট্রাস্ট গেট ও মতামত (gate)"),
}


ERROR_HANDLER = "__error_handler__"
"""Prefix of the board node that records a role's failure (labourcrew.board.topology)."""


def phase_of(node: str) -> tuple[str, str]:
    """``(phase key, Bangla label)`` of a board node (unknown nodes are their own phase). A role's
    error handler belongs to the role's phase and says the role failed.
    """
    if node.startswith(ERROR_HANDLER):
        key, label = phase_of(node.removeprefix(ERROR_HANDLER))
        return key, f"{label} — ব্যর্থ, বাকি বোর্ড চলছে (failed; the board goes on)"
    return PHASES.get(node, (node, node))


def _section_title(graph: StatuteGraph | None, node_id: str) -> str:
    if graph is None or node_id not in graph.units:
        return ""
    sec = graph.section_of(node_id)
    return (sec.title or "") if sec else ""


def _citation(node_id: str) -> str:
    version, _, label = node_id.partition(":")
    return f"section {label}" if version == ENGLISH_VERSION else citation_label_bn(label)


def cited_passages(result: AskResult, graph: StatuteGraph | None = None, *,
                   claims: Iterable[GatedClaim] | None = None) -> list[Passage]:
    """The units cited by ``claims`` (default: the released claims), in first-citation order over the
    claims in the opinion's reading order (:func:`~labourcrew.gate.opinion_writer.reading_order`:
    the governing rule first), except that a proviso or explanation follows its rule when both are
    cited (:func:`rules_first`).

    Each passage is the full verbatim unit text from the run's Evidence Pack with every span the
    claims cite in it highlighted (located after Bangla-safe normalisation; the source characters
    are marked).
    """
    texts = {i.node_id: i.text for i in result.evidence_pack.items}
    chosen = reading_order(claims if claims is not None else result.accepted())
    spans: dict[str, list[str]] = {}
    who: dict[str, list[str]] = {}
    for c in chosen:
        for e in c.evidence:
            spans.setdefault(e.node_id, [])
            if e.span not in spans[e.node_id]:
                spans[e.node_id].append(e.span)
            who.setdefault(e.node_id, [])
            if c.claim_id not in who[e.node_id]:
                who[e.node_id].append(c.claim_id)
    out = []
    for node_id in rules_first(spans):
        node_spans = spans[node_id]
        text = texts.get(node_id) or (graph.units[node_id].text if graph is not None and node_id in graph.units else "")
        hl = highlight(text, node_spans)
        english = None
        if graph is not None and node_id in graph.units:
            sec = graph.section_of(node_id)
            english = graph.english.get(sec.node_id) if sec else None
        out.append(Passage(node_id=node_id, citation=_citation(node_id), section_title=_section_title(graph, node_id),
                           html=hl.html, spans=node_spans, missing=hl.missing, claim_ids=who[node_id],
                           english=english))
    return out


def run_marks(result: AskResult, claim_id: str | None = None) -> Marks:
    """Evidence and cited nodes of a run (or only of ``claim_id``) with their spans."""
    claims = [c for c in result.claims if claim_id is None or c.claim_id == claim_id]
    spans: dict[str, list[str]] = {}
    for c in claims:
        for e in c.evidence:
            spans.setdefault(e.node_id, [])
            if e.span not in spans[e.node_id]:
                spans[e.node_id].append(e.span)
    return Marks(evidence=[i.node_id for i in result.evidence_pack.items], cited=list(spans), spans=spans)


def claims_by_side(result: AskResult) -> dict[str, list[GatedClaim]]:
    """Claims grouped ``{"worker": [...], "employer": [...], "interpreter": [...]}`` in ledger order."""
    out: dict[str, list[GatedClaim]] = {"worker": [], "employer": [], "interpreter": []}
    for c in result.claims:
        out.setdefault(c.side.value, []).append(c)
    return out


def unique_backends(result: AskResult) -> list[str]:
    """Distinct backends that answered any role (e.g. ``['deterministic', 'offline']``)."""
    names: list[str] = []
    for value in result.backends.values():
        for name in (v.strip() for v in value.split(",")):
            if name and name not in names:
                names.append(name)
    return names
