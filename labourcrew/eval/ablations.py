"""Evaluation configurations: the system, the baselines and the paper's ablations (paper B.3-B.4).

Every configuration is an :class:`EvalConfig` -- plain data, run by the same runner
(:mod:`labourcrew.eval.runner`) over the same questions into the same run folder. An ablation is
realised without touching the board's code, in one of three ways:

1. **settings** (``overrides``): gate mode, role retries, fault rate; ``reentry=False`` sets
   ``board.max_retrieval_rounds`` to 0 (no Supervisor re-entry);
2. **injected dependencies**: the board takes its retrieval port and model backend as arguments
   (:class:`~labourcrew.board.deps.BoardDeps`), so :class:`VariantRetrieval` (channels, hop depth,
   no planner) and :class:`ChunkRetrieval` (other chunkings) wrap the real ones;
3. **post-hoc, over the same runs** (pure functions of a saved run): :func:`labourcrew.gate.recalibration.regate_with_checks` re-decides the
   Trust Gate without the Citation Checker and/or the Trust Auditor; ``halt_on_failure`` turns any
   irrecoverable role failure into a halted run (*no supervision*). Such configurations share the
   board runs of the configuration with the same run signature (:meth:`EvalConfig.signature`).

Groups of the paper suite (:data:`SUITE`):

* ``baselines`` -- single-pass RAG, unconstrained debate, against ``full``;
* ``retrieval`` -- dense only; dense + lexical; dense + hops without the planner; full (dense +
  lexical + exact, planner, hops);
* ``chunking`` -- fixed 512-token windows; whole chapters; sections only; structure-preserving
  (the StatuteGraph's units = ``full``). Chunks are retrieved by the same dense + BM25 fusion
  (their embeddings are cached under ``<runs_dir>/eval/embed_cache``); they have no typed edges,
  so no hopping;
* ``hop_depth`` -- the Link Hopper at depth 0, 1, 2, 3 for every question type (the default uses
  the per-type ceilings of B.2);
* ``gate`` -- categorical gate with both checks, without the Citation Checker, without the Trust
  Auditor, without either (post-hoc over the categorical runs); and the calibrated gate at α = 0.10;
* ``orchestration`` -- with injected faults (``LABOURCREW_FAULT_RATE``, default
  :data:`DEFAULT_FAULT_RATE`): no supervision (a failure halts the run), Supervisor without retry
  (fallbacks only), Supervisor with retry (no retrieval re-entry), full Supervisor (retry +
  re-entry).

Every configuration except the orchestration group runs with fault rate 0.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from labourcrew.board.deps import RetrievalPort
from labourcrew.errors import InputError
from labourcrew.eval.adapter import UnitFacts
from labourcrew.graph.statute_graph import StatuteGraph, check_version
from labourcrew.ledger.records import (
    EvidenceItem,
    EvidencePack,
)
from labourcrew.ledger.retrieval import RetrievalPlan
from labourcrew.retrieval.link_hopper import DEFAULT_DECAY
from labourcrew.retrieval.pipeline import assemble_pack
from labourcrew.settings import XREF_FOLLOW_MAX, XREF_FOLLOW_TOP, Settings
from labourcrew.statute.model import EdgeType, Level

__all__ = [
    "EvalConfig",
    "CONFIGS",
    "SUITE",
    "DEFAULT_FAULT_RATE",
    "NO_PLANNER_K",
    "NO_PLANNER_HOPS",
    "get_config",
    "suite_configs",
    "VariantRetrieval",
    "ChunkRetrieval",
    "Chunk",
]

logger = logging.getLogger(__name__)

DEFAULT_FAULT_RATE = 0.02
"""Fault rate of the orchestration group when ``LABOURCREW_FAULT_RATE`` is not set."""
NO_PLANNER_K = 10
"""Units kept by the fixed plan of the no-planner ablation."""
NO_PLANNER_HOPS = 2
"""Hop depth of the fixed plan of the no-planner ablation."""

Chunking = Literal["structure", "sections", "chapters", "fixed512"]


class EvalConfig(BaseModel):
    """One evaluated configuration (module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(description="Configuration name (results key, run sub-folder).")
    kind: Literal["system", "baseline", "ablation"] = Field(description="system, baseline or ablation.")
    group: str = Field(
        description="Suite group: system, baselines, retrieval, chunking, hop_depth, gate, orchestration."
    )
    description: str = Field(description="What differs from the full system, for people.")
    runner: Literal["board", "single_pass_rag", "unconstrained_debate"] = Field(
        default="board", description="What answers: the board or a baseline."
    )
    overrides: dict[str, Any] = Field(default_factory=dict, description="Settings overrides (nested groups).")
    channels: list[Literal["dense", "lexical", "exact"]] | None = Field(
        default=None, description="Retrieval channels (None: all)."
    )
    hops: int | None = Field(
        default=None, ge=0, le=3, description="Link Hopper depth for every question (None: per-type ceilings)."
    )
    planner: bool = Field(
        default=True, description="False: a fixed plan (the whole question, k=10, 2 hops) replaces the planner's."
    )
    chunking: Chunking = Field(default="structure", description="Citable units: the StatuteGraph's, or other chunks.")
    reentry: bool = Field(
        default=True, description="False: board.max_retrieval_rounds = 0 (the Supervisor never re-enters retrieval)."
    )
    faults: bool = Field(default=False, description="Run with the suite's fault rate (orchestration group).")
    halt_on_failure: bool = Field(default=False, description="Post-hoc: any irrecoverable role failure halts the run.")
    gate_checker: bool = Field(default=True, description="Post-hoc gate: the Citation Checker's verdict counts.")
    gate_auditor: bool = Field(default=True, description="Post-hoc gate: the Trust Auditor's verdict counts.")

    @property
    def regate(self) -> bool:
        """Whether the gate is re-decided post hoc (a check is switched off)."""
        return not (self.gate_checker and self.gate_auditor)

    def signature(self) -> dict[str, Any]:
        """What determines the runs besides the settings (post-hoc fields and the overrides, which
        the settings hash covers, excluded): configurations with equal signatures and equal
        effective settings share their runs.
        """
        return self.model_dump(
            mode="json",
            include={"runner", "channels", "hops", "planner", "chunking", "reentry", "faults"},
        )


def _c(name: str, kind: str, group: str, description: str, **kw: Any) -> EvalConfig:
    return EvalConfig(name=name, kind=kind, group=group, description=description, **kw)  # type: ignore[arg-type]


CONFIGS: dict[str, EvalConfig] = {
    c.name: c
    for c in [
        _c("full", "system", "system", "the full system: hybrid retrieval, planner, Link Hopper, board, audit, gate"),
        _c(
            "single_pass_rag",
            "baseline",
            "baselines",
            "retrieve once, top 3 pack units as the answer; no deliberation, audit or gate",
            runner="single_pass_rag",
        ),
        _c(
            "unconstrained_debate",
            "baseline",
            "baselines",
            "counsels retrieve directly (dense / BM25) and cite without the EEP; no audit or gate",
            runner="unconstrained_debate",
        ),
        _c("ret_dense", "ablation", "retrieval", "dense channel only, no hops", channels=["dense"], hops=0),
        _c(
            "ret_dense_lexical",
            "ablation",
            "retrieval",
            "dense + BM25, no exact match, no hops",
            channels=["dense", "lexical"],
            hops=0,
        ),
        _c(
            "ret_dense_hops_no_planner",
            "ablation",
            "retrieval",
            "dense channel, Link Hopper, fixed plan instead of the planner (whole question, k=10, 2 hops)",
            channels=["dense"],
            planner=False,
        ),
        _c(
            "chunk_fixed512",
            "ablation",
            "chunking",
            "fixed 512-token windows over the text (no structure)",
            chunking="fixed512",
        ),
        _c("chunk_chapters", "ablation", "chunking", "whole chapters as citable units", chunking="chapters"),
        _c(
            "chunk_sections",
            "ablation",
            "chunking",
            "whole sections as citable units (no sub-units)",
            chunking="sections",
        ),
        *[
            _c(f"hop_{d}", "ablation", "hop_depth", f"Link Hopper depth {d} for every question type", hops=d)
            for d in range(4)
        ],
        _c(
            "gate_categorical",
            "ablation",
            "gate",
            "categorical gate: citations verified and auditor SUPPORT",
            overrides={"gate": {"mode": "categorical"}},
        ),
        _c(
            "gate_no_checker",
            "ablation",
            "gate",
            "categorical gate without the Citation Checker (auditor SUPPORT only)",
            overrides={"gate": {"mode": "categorical"}},
            gate_checker=False,
        ),
        _c(
            "gate_no_auditor",
            "ablation",
            "gate",
            "categorical gate without the Trust Auditor (citations verified only)",
            overrides={"gate": {"mode": "categorical"}},
            gate_auditor=False,
        ),
        _c(
            "gate_neither",
            "ablation",
            "gate",
            "no gate checks: every claim released",
            overrides={"gate": {"mode": "categorical"}},
            gate_checker=False,
            gate_auditor=False,
        ),
        _c(
            "gate_calibrated",
            "ablation",
            "gate",
            "calibrated gate (conformal risk control) at alpha = 0.10",
            overrides={"gate": {"mode": "calibrated", "alpha": 0.10}},
        ),
        _c(
            "orch_no_supervision",
            "ablation",
            "orchestration",
            "faults injected; no supervision: no retry, and any role failure halts the run",
            overrides={"board": {"role_retries": 0}},
            faults=True,
            reentry=False,
            halt_on_failure=True,
        ),
        _c(
            "orch_no_retry",
            "ablation",
            "orchestration",
            "faults injected; Supervisor fallbacks, no retry, no re-entry",
            overrides={"board": {"role_retries": 0}},
            faults=True,
            reentry=False,
        ),
        _c(
            "orch_retry",
            "ablation",
            "orchestration",
            "faults injected; Supervisor fallbacks + retries (2), no re-entry",
            overrides={"board": {"role_retries": 2}},
            faults=True,
            reentry=False,
        ),
        _c(
            "orch_full",
            "ablation",
            "orchestration",
            "faults injected; full Supervisor: fallbacks + retries (2) + retrieval re-entry",
            overrides={"board": {"role_retries": 2}},
            faults=True,
        ),
    ]
}

SUITE: dict[str, list[str]] = {
    "baselines": ["single_pass_rag", "unconstrained_debate", "full"],
    "retrieval": ["ret_dense", "ret_dense_lexical", "ret_dense_hops_no_planner", "full"],
    "chunking": ["chunk_fixed512", "chunk_chapters", "chunk_sections", "full"],
    "hop_depth": ["hop_0", "hop_1", "hop_2", "hop_3"],
    "gate": ["gate_categorical", "gate_no_checker", "gate_no_auditor", "gate_neither", "gate_calibrated"],
    "orchestration": ["orch_no_supervision", "orch_no_retry", "orch_retry", "orch_full"],
}
"""The paper suite: group -> configurations (``full`` is the reference row of three groups)."""


def get_config(name: str) -> EvalConfig:
    """The configuration called ``name``.

    Raises:
        InputError: unknown name (the message lists the known ones).
    """
    try:
        return CONFIGS[name]
    except KeyError:
        raise InputError(f"unknown configuration {name!r}; known: {', '.join(CONFIGS)}") from None


def suite_configs(groups: Sequence[str] | None = None) -> list[EvalConfig]:
    """Configurations of the paper suite (selected groups), each once, in suite order.

    Raises:
        InputError: unknown group.
    """
    names: list[str] = []
    for g in groups or list(SUITE):
        if g not in SUITE:
            raise InputError(f"unknown suite group {g!r}; known: {', '.join(SUITE)}")
        names += [n for n in SUITE[g] if n not in names]
    return [CONFIGS[n] for n in names]


# ---------------------------------------------------------------- retrieval variants


class VariantRetrieval:
    """A :class:`~labourcrew.board.deps.RetrievalPort` with fewer channels, a fixed hop depth or no
    planner, over the real retrieval port.

    Args:
        inner: the full port (pipeline, or lexical in tests).
        channels: channels to search (None: the inner port's own search).
        hops: Link Hopper depth applied to every plan (None: the plan's own).
        planner: False replaces a plan with queries by the fixed plan: the first query (the whole
            question) only, no expansion terms, no seeds, ``k = NO_PLANNER_K``, ``NO_PLANNER_HOPS``
            hops along provisos and cross-references. Seed-only plans (Supervisor re-entries) pass.
        pack_cap: Evidence Pack cap.
    """

    def __init__(
        self,
        inner: RetrievalPort,
        *,
        channels: Sequence[str] | None = None,
        hops: int | None = None,
        planner: bool = True,
        pack_cap: int = 24,
    ):
        self.inner = inner
        self.graph = inner.graph
        self.channels = tuple(channels) if channels is not None else None
        self.hops = hops
        self.planner = planner
        self.pack_cap = pack_cap
        self.decay = getattr(inner, "decay", DEFAULT_DECAY)
        retrieval = getattr(getattr(inner, "settings", None), "retrieval", None)
        self.xref_follow = ((retrieval.xref_follow_top, retrieval.xref_follow_max) if retrieval is not None
                            else (XREF_FOLLOW_TOP, XREF_FOLLOW_MAX))

    def check_version(self, version: str) -> str:
        return self.inner.check_version(version)

    def _plan(self, plan: RetrievalPlan) -> RetrievalPlan:
        if not self.planner and plan.queries:
            plan = RetrievalPlan(
                question_type=plan.question_type,
                queries=[plan.queries[0]],
                expansion_terms=[],
                k=NO_PLANNER_K,
                hops=NO_PLANNER_HOPS,
                edge_types={EdgeType.PROVISO, EdgeType.CROSS_REF},
                seeds=[],
            )
        if self.hops is not None:
            plan = plan.model_copy(update={"hops": self.hops})
        return plan

    def search(
        self, plan: RetrievalPlan, version: str, *, channels: tuple[str, ...] | None = None
    ) -> list[EvidenceItem]:
        # The facade drops channels it does not have (no dense channel without a vector index).
        return self.inner.search(self._plan(plan), version, channels=self.channels or channels)

    def expand(self, direct: list[EvidenceItem], plan: RetrievalPlan, version: str) -> EvidencePack:
        return assemble_pack(self.graph, direct, self._plan(plan), pack_cap=self.pack_cap, decay=self.decay,
                             xref_follow=self.xref_follow)


class Chunk(BaseModel):
    """A citable chunk of a chunking ablation."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    node_id: str = Field(description="Chunk id: a section/chapter node id, or '{version}:w{n}' for a window.")
    label: str = Field(description="Label shown and matched (section label, chapter id, window id).")
    level: Level = Field(description="Level recorded on the pack (section, chapter, paragraph for windows).")
    section: str | None = Field(description="First section the chunk covers.")
    sections: list[str] = Field(description="Every section the chunk covers, in order.")
    text: str = Field(description="Verbatim statute text of the chunk (what claims quote).")
    search_text: str = Field(description="Text embedded and BM25-indexed (title + text for sections).")


def make_chunks(graph: StatuteGraph, version: str, chunking: Chunking, token_count: Any = None) -> list[Chunk]:
    """The chunks of one version under a chunking (``structure`` has none: the graph's units).

    Raises:
        InputError: unknown chunking.
    """
    units = [u for u in graph.version_units(version) if not u.omitted]
    sections = [u for u in units if u.level == Level.SECTION]
    if chunking == "sections":
        out = []
        for s in sections:
            text = graph.section_text(s.node_id)
            if text.strip():
                out.append(
                    Chunk(
                        node_id=s.node_id,
                        label=s.label,
                        level=Level.SECTION,
                        section=s.label,
                        sections=[s.label],
                        text=text,
                        search_text=f"{s.title or ''} {text}".strip(),
                    )
                )
        return out
    if chunking == "chapters":
        out = []
        for ch in (u for u in units if u.level == Level.CHAPTER):
            secs = [s for s in sections if s.chapter == ch.chapter]
            text = " ".join(t for t in (graph.section_text(s.node_id) for s in secs) if t)
            if text.strip():
                out.append(
                    Chunk(
                        node_id=ch.node_id,
                        label=ch.label,
                        level=Level.CHAPTER,
                        section=None,
                        sections=[s.label for s in secs],
                        text=text,
                        search_text=f"{ch.text} {text}".strip(),
                    )
                )
        return out
    if chunking == "fixed512":
        from labourcrew.eval.bench_retrieval import build_flat_windows

        counter = token_count or (lambda t: max(1, len(t) // 3))
        fw = build_flat_windows(graph, version, counter)
        return [
            Chunk(
                node_id=f"{version}:w{i:03d}",
                label=f"w{i:03d}",
                level=Level.PARAGRAPH,
                section=secs[0] if secs else None,
                sections=list(secs),
                text=text,
                search_text=text,
            )
            for i, (text, secs) in enumerate(zip(fw.texts, fw.sections, strict=True))
        ]
    raise InputError(f"unknown chunking {chunking!r}")


class ChunkRetrieval:
    """A :class:`~labourcrew.board.deps.RetrievalPort` over other chunks (chunking ablation).

    Per sub-query: dense (cosine over chunk embeddings, when an encoder is given) and BM25 over the
    chunk texts, fused by the same weighted RRF as the Statute Retriever (exact matches map a named
    section to the chunk covering it); top ``plan.k`` per query, merged, capped at ``pack_cap``.
    No hopping: chunks have no typed edges.

    Args:
        graph: the StatuteGraph.
        chunking: ``sections``, ``chapters`` or ``fixed512``.
        settings: retrieval settings (weights, rrf_k, BM25, pack cap).
        encoder: query/passage encoder (None: BM25 only).
        cache_dir: embedding cache for chunk passages (kept out of the committed cache).
    """

    def __init__(
        self,
        graph: StatuteGraph,
        chunking: Chunking,
        settings: Settings,
        *,
        encoder: Any = None,
        cache_dir: Path | None = None,
    ):
        self.graph = graph
        self.chunking = chunking
        self.settings = settings
        self.encoder = encoder
        self.cache_dir = cache_dir
        self.pack_cap = settings.retrieval.pack_cap
        self._lock = threading.Lock()
        self._built: dict[str, tuple[list[Chunk], Any, np.ndarray | None, dict[str, str]]] = {}

    def check_version(self, version: str) -> str:
        return check_version(version)

    def _build(self, version: str) -> tuple[list[Chunk], Any, np.ndarray | None, dict[str, str]]:
        with self._lock:
            if version in self._built:
                return self._built[version]
            from labourcrew.retrieval.lexical import LexicalIndex

            counter = getattr(self.encoder, "token_count", None)
            chunks = make_chunks(self.graph, version, self.chunking, counter)
            lex = LexicalIndex.build(
                [c.node_id for c in chunks],
                [c.search_text for c in chunks],
                k1=self.settings.retrieval.bm25_k1,
                b=self.settings.retrieval.bm25_b,
            )
            vectors = None
            if self.encoder is not None:
                from labourcrew.retrieval.embed_cache import CachedEncoder

                enc = CachedEncoder(self.encoder, self.cache_dir) if self.cache_dir else self.encoder
                vectors = np.asarray(enc.encode_passages([c.search_text for c in chunks]), dtype=np.float32)
                if self.cache_dir:
                    enc.save()
            section_to_chunk = {}
            for c in chunks:
                for s in c.sections:
                    section_to_chunk.setdefault(s, c.node_id)
            self._built[version] = (chunks, lex, vectors, section_to_chunk)
            logger.info("chunking %s/%s: %d chunks", self.chunking, version, len(chunks))
            return self._built[version]

    def prepare(self, versions: Sequence[str]) -> None:
        """Build the chunk indexes (and embeddings) of ``versions`` now, outside any timed run."""
        for v in versions:
            self._build(v)

    def facts(self, version: str) -> dict[str, UnitFacts]:
        """Unit facts of every chunk of ``version`` (for :class:`~labourcrew.eval.adapter.UnitResolver`)."""
        chunks = self._build(version)[0]
        return {
            c.node_id: UnitFacts(label=c.label, sections=tuple(c.sections), container=True, text=c.text, linked=())
            for c in chunks
        }

    def search(self, plan: RetrievalPlan, version: str) -> list[EvidenceItem]:
        from labourcrew.retrieval.lexical import tokenize
        from labourcrew.retrieval.statute_retriever import CANDIDATE_DEPTH, rrf_fuse

        chunks, lex, vectors, sec_map = self._build(version)
        by_id = {c.node_id: c for c in chunks}
        exact = []
        for seed in plan.seeds:
            u = self.graph.units.get(seed)
            if u is not None and u.section and u.section in sec_map:
                exact.append(sec_map[u.section])
        merged: dict[str, tuple[float, set[str]]] = {}
        for query in list(plan.queries) or [""]:
            ranked: dict[str, list[str]] = {}
            if query and vectors is not None:
                qv = np.asarray(self.encoder.encode_queries([query])[0], dtype=np.float32)
                order = np.argsort(-(vectors @ qv), kind="stable")[:CANDIDATE_DEPTH]
                ranked["dense"] = [chunks[int(i)].node_id for i in order]
            text = " ".join([query, *plan.expansion_terms]).strip()
            if text and tokenize(text):
                ranked["lexical"] = [n for n, _ in lex.search(text, CANDIDATE_DEPTH)]
            if exact:
                ranked["exact"] = list(dict.fromkeys(exact))
            for node, score, ranks in rrf_fuse(
                ranked, self.settings.retrieval.fusion_weights, self.settings.retrieval.rrf_k
            )[: plan.k]:
                best, chans = merged.get(node, (0.0, set()))
                merged[node] = (max(best, score), chans | set(ranks))
        items = []
        for node, (score, chans) in sorted(merged.items(), key=lambda kv: (-kv[1][0], kv[0])):
            c = by_id[node]
            items.append(
                EvidenceItem(
                    node_id=node,
                    section=c.section,
                    level=c.level,
                    text=c.text,
                    channels=sorted(chans),
                    score=score,
                    provenance=1.0,
                )
            )
        return items

    def expand(self, direct: list[EvidenceItem], plan: RetrievalPlan, version: str) -> EvidencePack:
        return EvidencePack(items=sorted(direct, key=lambda i: -i.score)[: self.pack_cap])


# ---------------------------------------------------------------- backend wrapper


# ---------------------------------------------------------------- post-hoc gate


def config_hash(config: EvalConfig) -> str:
    """sha256 of a configuration's run signature (short, for folder and key use)."""
    blob = json.dumps(config.signature(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


def finite(x: float | None) -> float | None:
    """``x`` when finite, else None (JSON output)."""
    return x if x is not None and math.isfinite(x) else None


def merged_overrides(*parts: Mapping[str, Any]) -> dict[str, Any]:
    """Deep-merge nested override dicts, later parts winning."""
    out: dict[str, Any] = {}
    for part in parts:
        for k, v in part.items():
            if isinstance(v, Mapping) and isinstance(out.get(k), dict):
                out[k] = merged_overrides(out[k], v)
            else:
                out[k] = dict(v) if isinstance(v, Mapping) else v
    return out
