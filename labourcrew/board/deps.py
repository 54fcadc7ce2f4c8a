"""What the deliberation board needs from outside, injected (style practice 8).

:class:`BoardDeps` carries the StatuteGraph, the retrieval stages (:class:`RetrievalPort`), the
model backend, the Trust Gate calibration record, the thesaurus and a clock. They are built from settings in one
place, :mod:`labourcrew.wiring`; the board itself never builds a dependency.

Retrieval is split the way the board's roles are (paper §3.3): the Statute Retriever's fused
search (direct hits) and the Link Hopper's expansion plus pack ordering, both implemented by the
retrieval facade (:class:`~labourcrew.retrieval.pipeline.Retriever`), so the board's Evidence Pack
is the one ``retrieve`` prints. :class:`CachedRetrieval` memoises a port (benchmarks and the
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

from labourcrew.graph.statute_graph import StatuteGraph
from labourcrew.ledger.gate import CalibrationRecord
from labourcrew.ledger.records import EvidenceItem, EvidencePack
from labourcrew.ledger.retrieval import RetrievalPlan
from labourcrew.ledger.roles import RoleBackend
from labourcrew.retrieval.issue_spotter import spot_issues
from labourcrew.retrieval.thesaurus import Thesaurus

__all__ = ["RetrievalPort", "CachedRetrieval", "BoardDeps"]

logger = logging.getLogger(__name__)


@runtime_checkable
class RetrievalPort(Protocol):
    """The retrieval stages the board runs as separate roles (implemented by
    :class:`~labourcrew.retrieval.pipeline.Retriever`, the one Evidence Pack assembly).
    """

    graph: StatuteGraph

    def check_version(self, version: str) -> str:
        """Return ``version`` when it can be searched, else raise InputError/IndexNotBuiltError."""
        ...

    def search(
        self, plan: RetrievalPlan, version: str, *, channels: tuple[str, ...] | None = None
    ) -> list[EvidenceItem]:
        """Statute Retriever: the plan's fused direct hits (hop depth 0), best first."""
        ...

    def expand(self, direct: list[EvidenceItem], plan: RetrievalPlan, version: str) -> EvidencePack:
        """Link Hopper: hop from ``direct`` along the plan's edges; order, cap and trace the pack."""
        ...


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

    def search(
        self, plan: RetrievalPlan, version: str, *, channels: tuple[str, ...] | None = None
    ) -> list[EvidenceItem]:
        key = self._key(plan, version, ",".join(channels or ()))
        with self._lock:
            if key in self._search:
                self.hits += 1
                return list(self._search[key])
        out = self.inner.search(plan, version, channels=channels)
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
        thesaurus: the user-term thesaurus the Retrieval Planner expands questions with and the Trust
            Gate reads them with; None: the settings' (``relevance.thesaurus_path``), loaded once by
            :func:`~labourcrew.board.build.build_board`. One given here should be the one the
            retrieval port's relevance model was built with.
        fallback_spotter: deterministic Issue Spotter used when the backend's spotter fails.
        clock: wall-clock seconds (for latency); ``now_iso``: timestamps of runs.
        new_run_id: run id factory.
        retry_interval_s: first back-off of a role retry (seconds; doubles per retry, no jitter
            offline).
        retry_jitter: add LangGraph's random jitter to back-offs (useful against rate limits).
    """

    graph: StatuteGraph
    retrieval: RetrievalPort
    backend: RoleBackend
    calibration: CalibrationRecord
    thesaurus: Thesaurus | None = None
    fallback_spotter: Callable[[str], object] | None = None
    clock: Callable[[], float] = time.time
    now_iso: Callable[[], str] = _now_iso
    new_run_id: Callable[[], str] = field(default=lambda: uuid.uuid4().hex[:12])
    retry_interval_s: float = 0.01
    retry_jitter: bool = False

    def __post_init__(self) -> None:
        if self.fallback_spotter is None:
            self.fallback_spotter = spot_issues

    @property
    def prompt_hashes(self) -> dict[str, str]:
        """Role -> prompt sha256 of the backend (empty for the extractive backend)."""
        return dict(self.backend.prompt_hashes)
