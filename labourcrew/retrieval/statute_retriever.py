"""Statute Retriever (paper §3.3): dense + lexical + exact channels fused by weighted RRF.

Each sub-query of a :class:`~labourcrew.retrieval.planner.RetrievalPlan` runs separately against

* **dense** -- the query embedding (the encoder adds e5's ``"query: "`` prefix) searched in the
  version's Milvus collection (cosine); for a non-Bangla question the plan's Bangla concept terms
  are appended (``plan.dense_expansion``);
* **lexical** -- BM25 (:class:`~labourcrew.retrieval.lexical.LexicalIndex`) over each unit's
  :meth:`~labourcrew.graph.statute_graph.StatuteGraph.context_text` (section title + ancestors'
  lead text + unit text), the question plus the plan's Bangla concept terms;
* **exact** -- the seed units named in the question (``ধারা ২৭``), each followed by its sub-units
  in document order.

Per sub-query the channels' ranked lists are fused by weighted reciprocal rank fusion,
``score(d) = sum_c w_c / (rrf_k + rank_c(d))`` (weights and ``rrf_k`` from
:class:`~labourcrew.settings.RetrievalSettings`), the top ``k`` kept, then the sub-queries merged
(a unit keeps its best score; channels and best per-channel ranks are unioned).

Why context text for BM25: measured on the dev set (data/eval/dev_v1.jsonl, 150 answerable
questions, full pipeline): context text gives recall@5 0.56 / MRR 0.54 against 0.50 / 0.52 for
bare ``text_norm``, at equal recall@10 (0.65 vs 0.65). The title and lead text carry the topic
words a clause itself often lacks. See :mod:`labourcrew.eval.bench_retrieval`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from labourcrew.errors import IndexNotBuiltError
from labourcrew.graph.statute_graph import StatuteGraph
from labourcrew.graph.store import MilvusStore
from labourcrew.ledger.retrieval import RetrievalPlan
from labourcrew.retrieval.encoders import Encoder
from labourcrew.retrieval.lexical import LexicalIndex
from labourcrew.retrieval.query_adapter import QueryAdapter
from labourcrew.settings import RetrievalSettings
from labourcrew.statute.model import Level, Unit

__all__ = [
    "CHANNELS",
    "RankedHit",
    "StatuteRetriever",
    "rrf_fuse",
    "lexical_corpus",
    "build_lexical_index",
    "indexable_units",
]

logger = logging.getLogger(__name__)

CHANNELS: tuple[str, ...] = ("dense", "lexical", "exact")
# Candidates taken from each channel before fusion: deeper lists let agreement between channels
# lift a unit that no single channel ranks first. Measured on the dev set (hybrid + Link Hopper,
# 150 answerable questions): with rrf_k 60, depth 20/40/100 give recall@10 0.662/0.711/0.708;
# with rrf_k 10, depth 25/40/60/80/120 give 0.721/0.741/0.759/0.764/0.758.
CANDIDATE_DEPTH = 80
LEXICAL_FIELDS = ("context", "text")


class RankedHit(BaseModel):
    """One fused hit: a unit, its fused score and how each channel ranked it."""

    model_config = ConfigDict(extra="forbid")

    node_id: str = Field(description="StatuteGraph node id.")
    score: float = Field(description="Weighted RRF score (sum over channels; best over sub-queries).")
    channels: list[str] = Field(description="Channels that returned this unit (CHANNELS order).")
    ranks: dict[str, int] = Field(description="Best 1-based rank per channel over the sub-queries.")
    queries: list[int] = Field(description="Indices of the sub-queries whose top k held this unit.")


def indexable_units(graph: StatuteGraph, version: str) -> list[Unit]:
    """Units of ``version`` that may be retrieved, in document order.

    Every unit except omitted ones ([***]), empty ones and chapters (a chapter unit is only its
    title: it would take a pack slot without any rule text). A section header whose body lives in
    its sub-sections (empty ``text``) is kept for its title, which often names the topic best.
    """
    return [
        u for u in graph.version_units(version)
        if not u.omitted and u.level != Level.CHAPTER
        and (u.text.strip() or (u.level == Level.SECTION and (u.title or "").strip()))
    ]


def lexical_corpus(graph: StatuteGraph, version: str, field: str = "context") -> tuple[list[str], list[str]]:
    """Ids and texts for the BM25 index of a version.

    Args:
        field: ``"context"`` (section title + ancestors' lead + unit text; the default, better on the
            dev set) or ``"text"`` (the unit's ``text_norm`` only).
    """
    units = indexable_units(graph, version)
    if field == "context":
        texts = [graph.context_text(u.node_id) for u in units]
    elif field == "text":
        texts = [u.text_norm for u in units]
    else:
        raise ValueError(f"unknown lexical field {field!r}; use one of {LEXICAL_FIELDS}")
    return [u.node_id for u in units], texts


def build_lexical_index(graph: StatuteGraph, version: str, settings: RetrievalSettings, field: str = "context") -> LexicalIndex:
    """BM25 index of a version's retrievable units (k1, b from settings). About 0.5 s."""
    ids, texts = lexical_corpus(graph, version, field)
    return LexicalIndex.build(ids, texts, k1=settings.bm25_k1, b=settings.bm25_b)


def rrf_fuse(
    ranked: Mapping[str, Sequence[str]], weights: Mapping[str, float], rrf_k: int
) -> list[tuple[str, float, dict[str, int]]]:
    """Weighted reciprocal rank fusion of ranked id lists.

    Args:
        ranked: channel -> node ids best first (duplicates after the first are ignored).
        weights: channel -> weight (missing = 0: the channel is ignored).
        rrf_k: the RRF constant.

    Returns:
        ``(node_id, score, {channel: 1-based rank})`` best first; ties by best single rank, then id.
    """
    scores: dict[str, float] = {}
    ranks: dict[str, dict[str, int]] = {}
    for channel, ids in ranked.items():
        w = float(weights.get(channel, 0.0))
        if w <= 0:
            continue
        seen: set[str] = set()
        rank = 0
        for node in ids:
            if node in seen:
                continue
            seen.add(node)
            rank += 1
            scores[node] = scores.get(node, 0.0) + w / (rrf_k + rank)
            ranks.setdefault(node, {})[channel] = rank
    return sorted(
        ((n, s, ranks[n]) for n, s in scores.items()),
        key=lambda t: (-t[1], min(t[2].values()), t[0]),
    )


class StatuteRetriever:
    """Runs a plan's sub-queries over the three channels of one index.

    Args:
        graph: the StatuteGraph.
        encoder: query encoder (its ``name`` names the Milvus collection).
        store: the Milvus store holding ``units_{version}_{encoder}`` collections.
        lexical: version -> BM25 index (built lazily with :func:`build_lexical_index` if missing).
        settings: retrieval settings (fusion weights, ``rrf_k``, BM25 parameters).
        depth: candidates per channel before fusion.
        adapter: the learned query adapter applied to question vectors, or None.
    """

    def __init__(
        self,
        graph: StatuteGraph,
        encoder: Encoder,
        store: MilvusStore | None,
        settings: RetrievalSettings,
        lexical: Mapping[str, LexicalIndex] | None = None,
        *,
        depth: int = CANDIDATE_DEPTH,
        adapter: QueryAdapter | None = None,
    ):
        self.graph = graph
        self.adapter = adapter
        self.encoder = encoder
        self.store = store
        self.settings = settings
        self.lexical: dict[str, LexicalIndex] = dict(lexical or {})
        self.depth = depth

    # -- channels -------------------------------------------------------------------------
    def lexical_index(self, version: str) -> LexicalIndex:
        """The BM25 index of ``version`` (built on first use)."""
        if version not in self.lexical:
            self.lexical[version] = build_lexical_index(self.graph, version, self.settings)
        return self.lexical[version]

    def dense(self, query: str, version: str, n: int | None = None) -> list[tuple[str, float]]:
        """Top-``n`` units by cosine to the query embedding.

        Raises:
            IndexNotBuiltError: no collection for (version, encoder) in the store.
        """
        if self.store is None:
            raise IndexNotBuiltError("no vector store configured for dense retrieval")
        vec = self.encoder.encode_queries([query])[0]
        if self.adapter is not None:
            vec = self.adapter.apply(vec, version)
        return self.store.search_dense(version, self.encoder.name, vec, n or self.depth)

    def lexical_search(self, query: str, version: str, n: int | None = None, expansion: Sequence[str] = ()) -> list[tuple[str, float]]:
        """Top-``n`` units by BM25 for the query plus expansion terms (empty list if no token matches)."""
        text = " ".join([query, *expansion]).strip()
        if not text:
            return []
        from labourcrew.retrieval.lexical import tokenize

        if not tokenize(text):  # e.g. only punctuation left in a sub-query
            return []
        return self.lexical_index(version).search(text, n or self.depth)

    def exact(self, seeds: Sequence[str]) -> list[str]:
        """Seed units, each followed by its non-omitted descendants in document order."""
        out: list[str] = []
        for seed in seeds:
            unit = self.graph.units.get(seed)
            if unit is None or unit.omitted:
                continue
            out.append(seed)
            out.extend(d.node_id for d in self.graph.descendants(seed) if not d.omitted and d.text.strip())
        return list(dict.fromkeys(out))

    # -- search ---------------------------------------------------------------------------
    def search(
        self,
        plan: RetrievalPlan,
        version: str,
        *,
        channels: Sequence[str] = CHANNELS,
        timings: dict[str, float] | None = None,
    ) -> list[RankedHit]:
        """Run every sub-query of ``plan`` and fuse (see module docstring).

        Args:
            plan: the (clamped) plan; ``plan.k`` units are kept per sub-query.
            version: statute version whose collection and BM25 index are searched.
            channels: subset of :data:`CHANNELS` to use (benchmark ablations).
            timings: if given, receives ``dense_ms``, ``lexical_ms``, ``fuse_ms`` (summed).

        Returns:
            Hits best first, unique node ids.
        """
        t = timings if timings is not None else {}
        for key in ("dense_ms", "lexical_ms", "fuse_ms"):
            t.setdefault(key, 0.0)
        weights = self.settings.fusion_weights
        exact_ids = self.exact(plan.seeds) if "exact" in channels else []
        queries = list(plan.queries) or [""]  # a seed-only plan still fuses the exact channel
        merged: dict[str, RankedHit] = {}
        for qi, query in enumerate(queries):
            ranked: dict[str, list[str]] = {}
            if query and "dense" in channels:
                t0 = time.perf_counter()
                dq = " ".join([query, *plan.expansion_terms]) if plan.dense_expansion else query
                ranked["dense"] = [n for n, _ in self.dense(dq, version)]
                t["dense_ms"] += (time.perf_counter() - t0) * 1000
            if query and "lexical" in channels:
                t0 = time.perf_counter()
                ranked["lexical"] = [n for n, _ in self.lexical_search(query, version, expansion=plan.expansion_terms)]
                t["lexical_ms"] += (time.perf_counter() - t0) * 1000
            if exact_ids:
                ranked["exact"] = exact_ids
            t0 = time.perf_counter()
            fused = rrf_fuse(ranked, weights, self.settings.rrf_k)[: plan.k]
            for node, score, ranks in fused:
                hit = merged.get(node)
                if hit is None:
                    merged[node] = RankedHit(node_id=node, score=score, channels=[], ranks=dict(ranks), queries=[qi])
                else:
                    hit.score = max(hit.score, score)
                    hit.queries.append(qi)
                    for c, r in ranks.items():
                        hit.ranks[c] = min(r, hit.ranks.get(c, r))
            t["fuse_ms"] += (time.perf_counter() - t0) * 1000
        for hit in merged.values():
            hit.channels = [c for c in CHANNELS if c in hit.ranks]
        return sorted(merged.values(), key=lambda h: (-h.score, min(h.ranks.values()), h.node_id))
