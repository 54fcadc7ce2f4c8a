"""Runs -> :class:`~labourcrew.eval.metrics.base.EvalRun`: the one place that reads run records.

A board run (:class:`~labourcrew.board.run.AskResult`) or a baseline's output
(:class:`~labourcrew.eval.baselines.BaselineResult`) is reduced to the facts the metrics read:
pack entries with their sections, claims with every citation checked twice -- as the run's
Citation Checker recorded it, and independently against the statute text -- and the links each
cited unit needs (its provisos and resolved cross-references). Unit facts come from a
:class:`UnitResolver`: the StatuteGraph, overlaid with the chunks of a chunking ablation (whose
ids are not graph units, or whose text is a whole section or chapter).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from labourcrew.audit.citation_checker import MIN_SPAN_CHARS
from labourcrew.eval.datasets import DevItem
from labourcrew.eval.metrics.base import EvalCitation, EvalClaim, EvalRun, PackEntry
from labourcrew.graph.statute_graph import StatuteGraph
from labourcrew.retrieval.link_hopper import required_links
from labourcrew.statute.normalize import normalize

if TYPE_CHECKING:
    from labourcrew.eval.baselines import BaselineResult
    from labourcrew.ledger.run import AskResult

__all__ = ["UnitFacts", "UnitResolver", "verbatim", "from_ask_result", "from_baseline", "LabelMap"]

logger = logging.getLogger(__name__)

LabelMap = Mapping[tuple[str, str], str]
"""(run_id, claim_id) -> 'faithful' | 'unfaithful' | 'unsure'."""


@dataclass(frozen=True)
class UnitFacts:
    """What the metrics need to know about one citable unit."""

    label: str
    sections: tuple[str, ...]
    container: bool
    text: str
    linked: tuple[str, ...]


def verbatim(span: str, text: str) -> bool:
    """The Citation Checker's rule: the normalised span occurs in the normalised text and is at
    least :data:`~labourcrew.audit.citation_checker.MIN_SPAN_CHARS` long (or the whole text).
    """
    s, t = normalize(span), normalize(text)
    if not s or s not in t:
        return False
    return len(s) >= MIN_SPAN_CHARS or s == t


class UnitResolver:
    """Unit facts from the StatuteGraph, overlaid with registered chunks.

    Args:
        graph: the StatuteGraph.
        chunks: node id -> facts of chunks that replace or extend graph units (chunking ablations).
    """

    def __init__(self, graph: StatuteGraph, chunks: Mapping[str, UnitFacts] | None = None):
        self.graph = graph
        self.chunks = dict(chunks or {})
        self._cache: dict[str, UnitFacts | None] = {}

    def facts(self, node_id: str) -> UnitFacts | None:
        """Facts of ``node_id``; None when it is neither a chunk nor a graph unit."""
        if node_id in self.chunks:
            return self.chunks[node_id]
        if node_id in self._cache:
            return self._cache[node_id]
        u = self.graph.units.get(node_id)
        facts = None
        if u is not None:
            linked = required_links(self.graph, node_id)
            facts = UnitFacts(
                label=u.label,
                sections=(u.section,) if u.section else (),
                container=False,
                text=u.text,
                linked=tuple(dict.fromkeys(linked)),
            )
        self._cache[node_id] = facts
        return facts

    def pack_entry(self, node_id: str, hop_depth: int = 0) -> PackEntry:
        f = self.facts(node_id)
        if f is None:
            return PackEntry(node_id=node_id, label=node_id.split(":", 1)[-1], sections=[], hop_depth=hop_depth)
        return PackEntry(
            node_id=node_id, label=f.label, sections=list(f.sections), container=f.container, hop_depth=hop_depth
        )

    def citation(self, node_id: str, span: str, *, on_pack: bool, checker_ok: bool | None) -> EvalCitation:
        f = self.facts(node_id)
        return EvalCitation(
            node_id=node_id,
            label=f.label if f else "",
            sections=list(f.sections) if f else [],
            container=f.container if f else False,
            on_pack=on_pack,
            checker_ok=checker_ok,
            statute_ok=bool(f and verbatim(span, f.text)),
            linked=list(f.linked) if f else [],
        )


def _item_fields(item: DevItem) -> dict:
    return {
        "item_id": item.id,
        "category": item.category,
        "tier": item.difficulty,
        "gold_sections": list(item.gold_sections),
        "answerable": item.category != "unanswerable",
    }


def from_ask_result(
    result: AskResult,
    item: DevItem,
    config: str,
    resolver: UnitResolver,
    *,
    halt_on_failure: bool = False,
    accepted: Mapping[str, bool] | None = None,
    status: str | None = None,
    coverage_share: float | None = None,
    labels: LabelMap | None = None,
) -> EvalRun:
    """Reduce a board run to an :class:`EvalRun`.

    Args:
        result: the board's result.
        item: the dev item it answered.
        config: configuration name.
        resolver: unit facts (graph + chunks).
        halt_on_failure: the *no supervision* ablation: any irrecoverable role failure halts the
            run (no answer).
        accepted / status / coverage_share: a post-hoc gate decision replacing the run's own
            (gate ablations); None keeps the run's.
        labels: human labels by (run id, claim id).
    """
    pack_ids = {i.node_id for i in result.evidence_pack.items}
    failed = sorted(r for r, s in result.role_status.items() if s.get("status") == "failed")
    halted = result.error is not None or "trust_gate" in failed or (halt_on_failure and bool(failed))
    claims = []
    for c in result.claims:
        ok = accepted.get(c.claim_id, c.accepted) if accepted is not None else c.accepted
        label = None
        if labels:
            label = labels.get((result.run_id, c.claim_id)) or labels.get(
                (result.run_id, f"{result.run_id}:{c.claim_id}")
            )
        claims.append(
            EvalClaim(
                claim_id=c.claim_id,
                side=c.side.value,
                challenge_to=c.challenge_to,
                accepted=ok,
                verdict=c.verdict.value if c.verdict else None,
                direction=c.direction.value if c.direction else None,
                trust_score=c.trust_score,
                citations=[
                    resolver.citation(e.node_id, e.span, on_pack=e.node_id in pack_ids, checker_ok=e.verified)
                    for e in c.evidence
                ],
                human_label=label,
            )
        )
    run_status = status if status is not None else result.status.value
    return EvalRun(
        **_item_fields(item),
        config=config,
        run_id=result.run_id,
        has_gate=True,
        status=None if halted else run_status,  # type: ignore[arg-type]
        halted=halted,
        failed_roles=failed,
        retried_roles=sum(1 for call in result.role_calls if call.status.status == "retried"),
        latency_s=result.latency_s,
        retrieval_rounds=result.rounds,
        deliberation_rounds=result.deliberation_rounds,
        llm_calls=sum(u.llm_calls for u in result.usage),
        sequential_llm_calls=sum(u.sequential_llm_calls for u in result.usage),
        pack=[resolver.pack_entry(i.node_id, i.hop_depth) for i in result.evidence_pack.items],
        claims=claims,
        coverage_share=coverage_share if coverage_share is not None else result.coverage.share,
        premise_errors=list(result.premise_errors),
    )


def from_baseline(result: BaselineResult, item: DevItem, config: str, resolver: UnitResolver) -> EvalRun:
    """Reduce a baseline's output to an :class:`EvalRun` (no gate: every stated claim is in the
    answer; the Citation Checker's verdict is computed against the baseline's ledger pack).
    """
    ledger = {i.node_id: i for i in result.pack.items}
    claims = []
    for c in result.claims:
        cits = []
        for r in c.evidence:
            item_on_pack = ledger.get(r.node_id)
            checker_ok = bool(item_on_pack and verbatim(r.span, item_on_pack.text))
            cits.append(resolver.citation(r.node_id, r.span, on_pack=item_on_pack is not None, checker_ok=checker_ok))
        claims.append(
            EvalClaim(
                claim_id=c.claim_id,
                side=c.side.value,
                challenge_to=c.challenge_to,
                accepted=True,
                citations=cits,
            )
        )
    return EvalRun(
        **_item_fields(item),
        config=config,
        run_id=result.run_id,
        has_gate=False,
        status=None,
        halted=result.error is not None,
        latency_s=result.latency_s,
        retrieval_rounds=result.retrieval_rounds,
        deliberation_rounds=result.deliberation_rounds,
        llm_calls=result.llm_calls,
        sequential_llm_calls=result.sequential_llm_calls,
        pack=[resolver.pack_entry(i.node_id, i.hop_depth) for i in result.pack.items],
        claims=claims,
        coverage_share=result.coverage_share,
        premise_errors=list(result.premise_errors),
    )
