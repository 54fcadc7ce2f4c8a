"""Board test fixtures: the real StatuteGraph, lexical retrieval over the real Act (no vector index),
the offline backend, and a factory for boards with injected (fake) backends."""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest

from labourcrew.board.build import Board, build_board
from labourcrew.board.deps import BoardDeps, CachedRetrieval
from labourcrew.deliberation.extractive import OfflineBackend
from labourcrew.graph.statute_graph import StatuteGraph
from labourcrew.ledger.gate import CalibrationRecord
from labourcrew.ledger.roles import RoleBackend
from labourcrew.retrieval.pipeline import Retriever
from labourcrew.settings import Settings, load_settings


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests see no LABOURCREW_* variables from the developer's shell."""
    for name in list(os.environ):
        if name.upper().startswith("LABOURCREW_"):
            monkeypatch.delenv(name)


def finite_calibration(tau: float = 0.75) -> CalibrationRecord:
    """A calibration record with a finite τ (a test input; real records come from CRC)."""
    return CalibrationRecord(
        tau=tau, alpha=0.10, n=40, empirical_risk=0.05, bound=0.07, labels_sha256="test",
        created="2026-01-01T00:00:00+00:00", grid_size=40,
    )


@pytest.fixture(scope="session")
def calibration() -> CalibrationRecord:
    return finite_calibration()


@pytest.fixture(scope="session")
def base_settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """Offline settings, categorical gate, runs saved to a temporary folder."""
    runs = tmp_path_factory.mktemp("runs")
    return load_settings("offline", gate={"mode": "categorical"}, runs_dir=str(runs))


@pytest.fixture(scope="session")
def lexical(graph: StatuteGraph, base_settings: Settings) -> CachedRetrieval:
    """Lexical + exact retrieval over the real Act, memoised (deterministic, so caching is exact)."""
    return CachedRetrieval(Retriever.lexical_only(base_settings, graph))


@pytest.fixture(scope="session")
def offline(graph: StatuteGraph) -> OfflineBackend:
    return OfflineBackend(graph)


@pytest.fixture(scope="session")
def offline_board(graph: StatuteGraph, base_settings: Settings, lexical: CachedRetrieval, offline: OfflineBackend) -> Board:
    """The offline board (categorical gate) over lexical retrieval; built once."""
    return build_board(base_settings, BoardDeps(graph=graph, retrieval=lexical, backend=offline, calibration=finite_calibration()))


@pytest.fixture
def make_board(graph: StatuteGraph, base_settings: Settings, lexical: CachedRetrieval) -> Callable[..., Board]:
    """Build a board with an injected backend; keyword overrides go to the settings."""

    def make(backend: RoleBackend, *, calibration: CalibrationRecord | None = None, **overrides) -> Board:
        settings = base_settings
        if overrides:
            settings = load_settings(
                "offline", runs_dir=str(base_settings.runs_dir), **{"gate": {"mode": "categorical"}, **overrides}
            )
        deps = BoardDeps(graph=graph, retrieval=lexical, backend=backend, calibration=calibration or finite_calibration())
        return build_board(settings, deps)

    return make

