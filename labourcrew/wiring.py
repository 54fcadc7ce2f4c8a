"""The one place that builds things: backends, retrieval, board dependencies and boards.

The CLI, the dashboard, the evaluation harness, the benchmarks and the topology snapshot all build
through these factories, so a setting means the same thing everywhere (style practice 5, 8):

* :func:`make_backend` -- the model backend named by ``settings.board.backend`` (``offline``:
  the extractive engine; ``openai``: an OpenAI-compatible endpoint), wrapped in fault injection
  when ``settings.board.fault_rate > 0``;
* :func:`make_retrieval` -- the retrieval facade over the vector index, or lexical and exact
  channels only (tests, machines without an index);
* :func:`make_deps` / :func:`make_board` -- :class:`~labourcrew.board.deps.BoardDeps` and the
  compiled board;
* :func:`topology_board` -- a board for the topology snapshot (no index needed).

Heavy imports (the encoder, Milvus, langchain-openai) happen inside the factory that needs them.
"""

from __future__ import annotations

import logging

from labourcrew.board.build import Board, build_board
from labourcrew.board.deps import BoardDeps, RetrievalPort
from labourcrew.board.faults import FaultInjectingBackend
from labourcrew.errors import ConfigError
from labourcrew.gate.system import calibration_for
from labourcrew.graph.statute_graph import StatuteGraph, load_graph
from labourcrew.ledger.gate import CalibrationRecord
from labourcrew.ledger.roles import RoleBackend
from labourcrew.settings import Settings, load_settings

__all__ = ["make_backend", "make_scorer", "make_reranker", "make_retrieval", "make_deps", "make_board", "topology_board", "ONLINE_RETRY_S",
           "OFFLINE_RETRY_S"]

logger = logging.getLogger(__name__)

# First back-off of a role retry: a remote endpoint needs time to recover (with jitter, against rate
# limits); the offline backend's only transient faults are injected ones.
ONLINE_RETRY_S = 0.5
OFFLINE_RETRY_S = 0.01


def make_backend(
    settings: Settings, graph: StatuteGraph, *, base: RoleBackend | None = None, chat_model_factory=None
) -> RoleBackend:
    """The model backend named by ``settings.board.backend``, with fault injection when asked.

    Args:
        settings: LabourCrew settings (``board.backend``, ``board.fault_rate``/``fault_seed``,
            ``llm`` group, ``offline`` tuning).
        graph: the StatuteGraph (the extractive engine reads it).
        base: an already built backend to wrap instead of building one (eval reuses one engine).
        chat_model_factory: ``role -> LangChain chat model`` for the ``openai`` backend (tests: a
            scripted fake chat model); default: ``ChatOpenAI`` clients from ``settings.llm``.

    Raises:
        ConfigError: the ``openai`` backend is misconfigured (bad base URL, missing model, OpenAI's
            hosted API without an API key).
    """
    backend = base
    if backend is None:
        name = settings.board.backend
        if name == "offline":
            from labourcrew.deliberation.extractive import OfflineBackend

            backend = OfflineBackend(graph, settings.offline)
        elif name == "openai":
            from labourcrew.llm.openai_backend import OpenAIBackend

            if chat_model_factory is None and settings.llm.hosted_without_key():
                # A missing key is the user's to fix, not a transient failure to retry role by role.
                raise ConfigError(
                    "এপিআই কী (API key) দেওয়া হয়নি: OpenAI-র হোস্ট করা মডেল কী ছাড়া চলে না — the openai backend "
                    "points at OpenAI's hosted API but no API key is set (LABOURCREW_LLM__API_KEY, or a local "
                    "LABOURCREW_LLM__BASE_URL)",
                    help_message="Set LABOURCREW_LLM__API_KEY, or LABOURCREW_LLM__BASE_URL to a local "
                                 "OpenAI-compatible server, or use the offline preset.")

            backend = OpenAIBackend(settings.llm, chat_model_factory=chat_model_factory)
        else:  # pragma: no cover -- settings validation forbids it
            raise ConfigError(f"unknown backend {name!r}")
    if settings.board.fault_rate > 0:
        backend = FaultInjectingBackend(backend, rate=settings.board.fault_rate, seed=settings.board.fault_seed)
    return backend


def make_scorer(settings: Settings, graph: StatuteGraph, retriever, model):
    """A :class:`~labourcrew.relevance.model.RelevanceScorer` over ``retriever``'s encoder and query
    adapter (the one way run time and ``train relevance`` build the relevance features).

    Args:
        settings: LabourCrew settings (index and relevance groups).
        graph: the StatuteGraph.
        retriever: the retrieval facade (its raw ``encoder`` and ``adapter``; no encoder: lexical only).
        model: the loaded relevance model, or None (features only, for training).

    Raises:
        DataError: ``model`` was trained with another query adapter (stale).
    """
    from labourcrew.relevance.model import RelevanceScorer
    from labourcrew.retrieval.embed_cache import CachedEncoder
    from labourcrew.retrieval.thesaurus import load_thesaurus

    encoder = getattr(retriever, "encoder", None)
    # A private, never-saved view of the committed cache: a miss stays in memory.
    passages = CachedEncoder(encoder, settings.index.embed_cache_dir, autosave=False) if encoder is not None else None
    return RelevanceScorer(model, graph, load_thesaurus(settings.relevance.thesaurus_path), passages,
                           adapter=getattr(retriever, "adapter", None))


def make_reranker(settings: Settings, graph: StatuteGraph, retriever):
    """The learned relevance model as the facade's reranker (None when ``relevance.enabled`` is off).

    Args:
        settings: LabourCrew settings (relevance group).
        graph: the StatuteGraph.
        retriever: the retrieval facade it will rerank for (gives the encoder and query adapter).

    Raises:
        DataError: the artefact is missing or stale (``python -m labourcrew train relevance``).
    """
    if not settings.relevance.enabled:
        return None
    from labourcrew.relevance.model import load_model

    return make_scorer(settings, graph, retriever, load_model(settings.relevance.model_path))


def make_retrieval(settings: Settings, graph: StatuteGraph, *, lexical_only: bool = False,
                   rerank: bool = True) -> RetrievalPort:
    """The retrieval facade: over the vector index, or (``lexical_only``) BM25 + exact only, with the
    learned reranker attached unless ``rerank`` is False or the settings disable it.

    Raises:
        IndexNotBuiltError: no vector index (build it: ``python -m labourcrew index build``).
        DataError: the relevance artefact is missing or stale.
    """
    from labourcrew.retrieval.pipeline import Retriever

    if lexical_only:
        retriever = Retriever.lexical_only(settings, graph)
    else:
        retriever = Retriever.from_settings(settings, graph=graph)
    if rerank:
        try:
            retriever.reranker = make_reranker(settings, graph, retriever)
        except BaseException:
            retriever.close()
            raise
    return retriever


def make_deps(
    settings: Settings,
    *,
    graph: StatuteGraph | None = None,
    retrieval: RetrievalPort | None = None,
    backend: RoleBackend | None = None,
    calibration: CalibrationRecord | None = None,
) -> BoardDeps:
    """Build :class:`~labourcrew.board.deps.BoardDeps` from settings; any argument given is used as is.

    Raises:
        IndexNotBuiltError: no vector index and no ``retrieval`` given.
        ConfigError: the backend cannot be created.
        DataError: the calibration record is unreadable.
    """
    graph = graph or load_graph()
    retrieval = retrieval or make_retrieval(settings, graph)
    backend = backend or make_backend(settings, graph)
    if calibration is None:
        calibration = calibration_for(settings)  # checks α and that the record is for this system
    online = settings.board.backend == "openai"
    return BoardDeps(
        graph=graph,
        retrieval=retrieval,
        backend=backend,
        calibration=calibration,
        retry_interval_s=ONLINE_RETRY_S if online else OFFLINE_RETRY_S,
        retry_jitter=online,
    )


def make_board(settings: Settings | None = None, deps: BoardDeps | None = None, **deps_args) -> Board:
    """The compiled deliberation board for ``settings`` (default :func:`load_settings`).

    Args:
        settings: LabourCrew settings.
        deps: ready dependencies; otherwise :func:`make_deps` is called with ``deps_args``.

    Raises:
        As :func:`make_deps`.
    """
    settings = settings or load_settings()
    return build_board(settings, deps or make_deps(settings, **deps_args))


def topology_board() -> Board:
    """A board for the topology snapshot: the topology depends on neither the index nor the backend."""
    settings = load_settings()
    graph = load_graph()
    return make_board(settings, graph=graph, retrieval=make_retrieval(settings, graph, lexical_only=True, rerank=False))
