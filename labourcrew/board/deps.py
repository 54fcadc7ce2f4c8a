"""What the deliberation board needs from outside, injected with defaults (style practice 8).

:class:`BoardDeps` carries the StatuteGraph, the retrieval stages, the model backend, the Trust
Gate calibration record and a clock; :func:`default_deps` builds each from
:class:`~labourcrew.settings.Settings` (heavy imports happen inside the factories).

Retrieval is split the way the board's roles are (paper §3.3): the Statute Retriever's fused
search (direct hits) and the Link Hopper's expansion plus pack ordering. :class:`PipelineRetrieval`
adapts the retrieval facade (:class:`~labourcrew.retrieval.pipeline.Retriever`) to that split,
reproducing its pack exactly; :class:`CachedRetrieval` memoises a port (benchmarks and the
fault-injection test reuse retrieval results while the board itself runs every time).
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol, runtime_checkable

from labourcrew.errors import ConfigError
from labourcrew.gate.crc import CalibrationRecord, load_calibration
from labourcrew.graph.statute_graph import StatuteGraph, check_version
from labourcrew.ledger.records import EvidenceItem, EvidencePack
from labourcrew.llm.backend import RoleBackend
from labourcrew.retrieval.link_hopper import DEFAULT_DECAY, HopSeed, hop
from labourcrew.retrieval.planner import RetrievalPlan
from labourcrew.settings import Settings

__all__ = [
    "RetrievalPort",
    "PipelineRetrieval",
    "LexicalRetrieval",
    "CachedRetrieval",
    "expand_pack",
    "BoardDeps",
    "make_backend",
    "default_deps",
]

logger = logging.getLogger(__name__)


@runtime_checkable
class RetrievalPort(Protocol):
    """The retrieval stages the board runs as separate roles."""

    graph: StatuteGraph

    def check_version(self, version: str) -> str:
        """Return ``version`` when it can be searched, else raise InputError/IndexNotBuiltError."""
        ...

    def search(self, plan: RetrievalPlan, version: str) -> list[EvidenceItem]:
        """Statute Retriever: the plan's fused direct hits (provenance 1, hop depth 0), best first."""
        ...

    def expand(self, direct: list[EvidenceItem], plan: RetrievalPlan, version: str) -> EvidencePack:
        """Link Hopper: hop from ``direct`` along the plan's edges; order, cap and trace the pack."""
        ...


def _items_from_hits(graph: StatuteGraph, hits) -> list[EvidenceItem]:
    out = []
    for h in hits:
        u = graph.units[h.node_id]
        out.append(
            EvidenceItem(
                node_id=h.node_id, section=u.section, level=u.level, text=u.text,
                channels=list(h.channels), score=h.score, provenance=1.0,
            )
        )
    return out


def expand_pack(
    graph: StatuteGraph,
    direct: list[EvidenceItem],
    plan: RetrievalPlan,
    *,
    pack_cap: int,
    decay: float = DEFAULT_DECAY,
) -> EvidencePack:
    """Link Hopper + pack ordering, exactly as :meth:`Retriever.retrieve` assembles its pack."""
    from labourcrew.retrieval.pipeline import order_pack

    items: dict[str, EvidenceItem] = {i.node_id: i for i in direct}
    trace = []
    if plan.hops > 0 and direct:
        seeds = [HopSeed(node_id=i.node_id, score=i.score, provenance=i.provenance) for i in direct]
        res = hop(graph, seeds, hops=plan.hops, edge_types=plan.edge_types, decay=decay)
        for node in res.added:
            u = graph.units[node.node_id]
            items[node.node_id] = EvidenceItem(
                node_id=node.node_id, section=u.section, level=u.level, text=u.text, channels=["hop"],
                score=node.score, provenance=node.provenance, hop_depth=node.depth, via=node.via,
            )
        trace = res.trace
    ordered = order_pack(list(items.values()), graph, pack_cap)
    kept = {i.node_id for i in ordered}
    return EvidencePack(items=ordered, hop_trace=[e for e in trace if e.target in kept])


class PipelineRetrieval:
    """:class:`RetrievalPort` over the retrieval facade (dense + BM25 + exact, Milvus Lite).

    Args:
        retriever: an open :class:`~labourcrew.retrieval.pipeline.Retriever`.
    """

    def __init__(self, retriever) -> None:
        self.retriever = retriever
        self.graph: StatuteGraph = retriever.graph
        self.pack_cap: int = retriever.settings.retrieval.pack_cap
        self.decay: float = retriever.decay

    def check_version(self, version: str) -> str:
        return self.retriever._check_version(version)  # noqa: SLF001 -- the facade's own check

    def search(self, plan: RetrievalPlan, version: str) -> list[EvidenceItem]:
        return _items_from_hits(self.graph, self.retriever.statute.search(plan, version))

    def expand(self, direct: list[EvidenceItem], plan: RetrievalPlan, version: str) -> EvidencePack:
        return expand_pack(self.graph, direct, plan, pack_cap=self.pack_cap, decay=self.decay)

    def close(self) -> None:
        self.retriever.close()


class LexicalRetrieval:
    """:class:`RetrievalPort` with the lexical and exact channels only (no vector index).

    For tests and for machines without a built index; same fusion and hopping as the pipeline.
    """

    def __init__(self, graph: StatuteGraph, settings: Settings) -> None:
        from labourcrew.retrieval.statute_retriever import StatuteRetriever

        self.graph = graph
        self.settings = settings
        self.statute = StatuteRetriever(graph, encoder=None, store=None, settings=settings.retrieval)  # type: ignore[arg-type]
        self.pack_cap = settings.retrieval.pack_cap

    def check_version(self, version: str) -> str:
        return check_version(version)

    def search(self, plan: RetrievalPlan, version: str) -> list[EvidenceItem]:
        return _items_from_hits(self.graph, self.statute.search(plan, version, channels=("lexical", "exact")))

    def expand(self, direct: list[EvidenceItem], plan: RetrievalPlan, version: str) -> EvidencePack:
        return expand_pack(self.graph, direct, plan, pack_cap=self.pack_cap)


class CachedRetrieval:
    """Memoises another port's results by (plan, version); thread-safe.

    Used where many board runs repeat the same questions (benchmarks, the fault-injection test):
    retrieval is deterministic, so a cached pack equals a fresh one.
    """

    def __init__(self, inner: RetrievalPort) -> None:
        self.inner = inner
        self.graph = inner.graph
        self._search: dict[str, list[EvidenceItem]] = {}
        self._expand: dict[str, EvidencePack] = {}
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    @staticmethod
    def _key(plan: RetrievalPlan, version: str, extra: str = "") -> str:
        blob = plan.model_dump_json() + "|" + version + "|" + extra
        return hashlib.sha256(blob.encode()).hexdigest()

    def check_version(self, version: str) -> str:
        return self.inner.check_version(version)

    def search(self, plan: RetrievalPlan, version: str) -> list[EvidenceItem]:
        key = self._key(plan, version)
        with self._lock:
            if key in self._search:
                self.hits += 1
                return list(self._search[key])
        out = self.inner.search(plan, version)
        with self._lock:
            self.misses += 1
            self._search[key] = list(out)
        return out

    def expand(self, direct: list[EvidenceItem], plan: RetrievalPlan, version: str) -> EvidencePack:
        key = self._key(plan, version, "".join(i.node_id + "," for i in direct))
        with self._lock:
            if key in self._expand:
                self.hits += 1
                return self._expand[key]
        out = self.inner.expand(direct, plan, version)
        with self._lock:
            self.misses += 1
            self._expand[key] = out
        return out


def _now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


@dataclass
class BoardDeps:
    """Everything the board calls out to.

    Attributes:
        graph: the StatuteGraph.
        retrieval: the retrieval stages.
        backend: the model backend of the language roles (possibly wrapped in fault injection).
        calibration: the Trust Gate calibration record (``tau = inf`` fails closed).
        fallback_spotter: deterministic Issue Spotter used when the backend's spotter fails.
        clock: wall-clock seconds (for latency); ``now_iso``: timestamps of runs.
        new_run_id: run id factory.
        prompt_hashes: role -> prompt sha256 (empty for the offline backend).
        retry_interval_s: first back-off of a role retry (seconds; doubles per retry, no jitter
            offline).
        retry_jitter: add LangGraph's random jitter to back-offs (useful against rate limits).
    """

    graph: StatuteGraph
    retrieval: RetrievalPort
    backend: RoleBackend
    calibration: CalibrationRecord
    fallback_spotter: Callable[[str], object] | None = None
    clock: Callable[[], float] = time.time
    now_iso: Callable[[], str] = _now_iso
    new_run_id: Callable[[], str] = field(default=lambda: uuid.uuid4().hex[:12])
    prompt_hashes: dict[str, str] = field(default_factory=dict)
    retry_interval_s: float = 0.01
    retry_jitter: bool = False

    def __post_init__(self) -> None:
        if self.fallback_spotter is None:
            from labourcrew.retrieval.issue_spotter import spot_issues

            self.fallback_spotter = spot_issues


def make_backend(settings: Settings, graph: StatuteGraph) -> RoleBackend:
    """The model backend named by ``settings.board.backend``, wrapped in fault injection when
    ``settings.board.fault_rate > 0``.

    Raises:
        ConfigError: the ``openai`` backend is not available or misconfigured.
    """
    name = settings.board.backend
    if name == "offline":
        from labourcrew.llm.offline import OfflineBackend

        backend: RoleBackend = OfflineBackend(graph)
    elif name == "openai":
        try:
            from labourcrew.llm import openai_backend
        except ModuleNotFoundError as exc:
            raise ConfigError(
                "the openai backend is not installed in this tree",
                help_message="Use --backend offline, or add labourcrew/llm/openai_backend.py.",
            ) from exc
        backend = openai_backend.OpenAIBackend(settings.llm)
    else:  # pragma: no cover -- settings validation forbids it
        raise ConfigError(f"unknown backend {name!r}")
    if settings.board.fault_rate > 0:
        from labourcrew.llm.faults import FaultInjectingBackend

        backend = FaultInjectingBackend(backend, rate=settings.board.fault_rate, seed=settings.board.fault_seed)
    return backend


def backend_prompt_hashes(backend: object) -> dict[str, str]:
    """Role -> prompt sha256 of a backend (through wrappers such as fault injection); {} when none.

    ``OpenAIBackend.prompt_hashes`` is a method; a plain mapping attribute is accepted too.
    """
    for obj in (backend, getattr(backend, "inner", None)):
        hashes = getattr(obj, "prompt_hashes", None)
        if callable(hashes):
            hashes = hashes()
        if hashes:
            return dict(hashes)
    return {}


def default_deps(
    settings: Settings,
    *,
    graph: StatuteGraph | None = None,
    retrieval: RetrievalPort | None = None,
    backend: RoleBackend | None = None,
    calibration: CalibrationRecord | None = None,
) -> BoardDeps:
    """Build :class:`BoardDeps` from settings; any argument given is used as is.

    Raises:
        IndexNotBuiltError: no vector index (build it: ``python -m labourcrew index build``).
        ConfigError: the backend cannot be created.
    """
    from labourcrew.graph.statute_graph import load_graph

    graph = graph or load_graph()
    if retrieval is None:
        from labourcrew.retrieval.pipeline import Retriever

        retrieval = PipelineRetrieval(Retriever.from_settings(settings, graph=graph))
    backend = backend or make_backend(settings, graph)
    if calibration is None:
        calibration = load_calibration(settings.gate.calibration_path, settings.gate.alpha)
    prompt_hashes = backend_prompt_hashes(backend)
    online = settings.board.backend == "openai"
    return BoardDeps(
        graph=graph,
        retrieval=retrieval,
        backend=backend,
        calibration=calibration,
        prompt_hashes=prompt_hashes,
        retry_interval_s=0.5 if online else 0.01,
        retry_jitter=online,
    )
