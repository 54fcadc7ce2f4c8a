"""Retrieval Planner (paper §3.3, ceilings of appendix B.2).

Turns an :class:`~labourcrew.retrieval.issue_spotter.IssueSpotting` into a
:class:`RetrievalPlan`: the sub-queries to run, how many units to keep per sub-query (``k``), how
deep the Link Hopper may go (``hops``) and along which edge types, and the seed units named
exactly in the question. :func:`clamp` applies the per-question-type ceilings of
:class:`~labourcrew.settings.RetrievalSettings`; it only ever narrows a plan, never widens it.
:func:`plan_from_request` does the same for a re-entry request (the Supervisor's evidence gap or the Trust Auditor's request).
"""

from __future__ import annotations

import logging

from labourcrew.graph.statute_graph import StatuteGraph
from labourcrew.ledger.retrieval import (
    IssueSpotting,
    PlannerRequest,
    QuestionType,
    RetrievalPlan,
)
from labourcrew.retrieval.exact import resolve_refs
from labourcrew.retrieval.thesaurus import Thesaurus, load_thesaurus
from labourcrew.settings import Settings
from labourcrew.statute.model import ENGLISH_VERSION, EdgeType

__all__ = [ "EDGES_BY_TYPE", "make_plan", "clamp", "plan_from_request"]

logger = logging.getLogger(__name__)

_P, _C, _UP, _X = EdgeType.PROVISO, EdgeType.CHILD, EdgeType.PARENT, EdgeType.CROSS_REF

# Edge types the Link Hopper may follow, per question type. Provisos always (a rule without its
# proviso misstates the law); cross-references where the answer typically spans sections.
EDGES_BY_TYPE: dict[QuestionType, frozenset[EdgeType]] = {
    QuestionType.DIRECT_FACTUAL: frozenset({_P, _C, _UP}),
    QuestionType.DEFINITIONAL: frozenset({_P, _C, _UP}),
    QuestionType.PROCEDURAL: frozenset({_P, _C, _UP, _X}),
    QuestionType.CONDITIONAL: frozenset({_P, _C, _UP, _X}),
    QuestionType.HYPOTHETICAL: frozenset({_P, _C, _UP, _X}),
    QuestionType.COMPARATIVE: frozenset({_P, _C, _UP}),
    QuestionType.MULTI_HOP: frozenset({_P, _C, _UP, _X}),
}


def make_plan(
    spotting: IssueSpotting, settings: Settings, *, graph: StatuteGraph, version: str, thesaurus: Thesaurus | None = None
) -> RetrievalPlan:
    """Build the plan for a spotted question, at the ceilings of its type.

    Queries: the whole question first, then the sub-questions (comparative, multi-hop), unique.
    Seeds: the sections the question names, resolved in ``version`` (missing ones dropped).
    Edges: those of the type, plus ``cited_by`` when the question asks about a penalty (the Link
    Hopper then reaches the penalty sections that cite a retrieved duty).

    Args:
        thesaurus: the thesaurus to expand with (the board passes its own); None: the settings'
            (``relevance.thesaurus_path``).

    Returns:
        A clamped :class:`RetrievalPlan`.

    Raises:
        DataError: ``thesaurus`` is None and the settings' thesaurus file is unreadable.
    """
    qtype = spotting.question_type
    ceiling = settings.retrieval.ceilings[qtype]
    queries = list(dict.fromkeys([spotting.question, *spotting.sub_questions]))
    seeds = resolve_refs(graph, version, spotting.section_labels)
    # The concept terms are the Bangla Act's wording: useless against the English text.
    terms = [] if version == ENGLISH_VERSION else list(spotting.concept_terms)
    if version != ENGLISH_VERSION and settings.retrieval.thesaurus_expansion:
        # The thesaurus maps what people say (রিজাইন, ম্যাটার্নিটি) to the Act's words (ইস্তফা, প্রসূতি).
        if thesaurus is None:
            thesaurus = load_thesaurus(settings.relevance.thesaurus_path)
        by_id = thesaurus.by_id
        # Only concepts the question names in its own words: when it already uses the Act's term,
        # adding the concept's other Act terms shifts BM25 towards neighbouring sections.
        matches = thesaurus.match(spotting.question)
        act_named = {m.concept_id for m in matches if m.kind == "act"}
        for cid in dict.fromkeys(m.concept_id for m in matches if m.concept_id not in act_named):
            terms += [w for w in by_id[cid].act_terms if w not in terms]
    plan = RetrievalPlan(
        question_type=qtype,
        queries=queries,
        expansion_terms=terms,
        # Measured on the dev set: English questions recall@10 0.49 -> 0.55 with the Act's Bangla
        # terms in the dense query; Bangla questions lose (0.74 -> 0.70), so only non-Bangla ones.
        dense_expansion=spotting.language != "bn" and bool(terms),
        k=ceiling.max_k,
        hops=ceiling.max_hops,
        edge_types=set(EDGES_BY_TYPE[qtype]) | ({EdgeType.CITED_BY} if "penalty" in spotting.concepts else set()),
        seeds=seeds,
    )
    return clamp(plan, qtype, settings)


def clamp(plan: RetrievalPlan, question_type: QuestionType, settings: Settings) -> RetrievalPlan:
    """Apply the ceilings of ``question_type`` (paper B.2): they only narrow, never widen.

    ``queries`` keeps at most ``max_queries`` (in order), ``k`` becomes ``min(k, max_k)`` and
    ``hops`` ``min(hops, max_hops)``; everything else is kept.
    """
    ceiling = settings.retrieval.ceilings[QuestionType(question_type)]
    clamped = plan.model_copy(
        update={
            "queries": list(plan.queries[: ceiling.max_queries]),
            "k": min(plan.k, ceiling.max_k),
            "hops": min(plan.hops, ceiling.max_hops),
        }
    )
    if clamped != plan:
        logger.debug("plan clamped to %s ceilings: %s", question_type, ceiling)
    return clamped


def plan_from_request(request: PlannerRequest, settings: Settings) -> RetrievalPlan:
    """Plan for a re-entry request (Supervisor evidence gap or Trust Auditor) (seeds, edge types, hop budget), clamped like any plan.

    Raises:
        pydantic.ValidationError: the request has neither seeds nor queries.
    """
    plan = RetrievalPlan(
        question_type=request.question_type,
        queries=list(dict.fromkeys(q for q in request.queries if q.strip())),
        k=request.k,
        hops=request.hop_budget,
        edge_types=set(request.edge_types),
        seeds=list(dict.fromkeys(request.seeds)),
    )
    return clamp(plan, request.question_type, settings)
