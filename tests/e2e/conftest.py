"""End-to-end fixtures: a Milvus Lite index built in a temporary folder from a *copy* of the
committed embedding cache (the committed cache is never written), and offline boards over it."""

from __future__ import annotations

import os
import shutil

import pytest

from labourcrew.board.build import Board, build_board
from labourcrew.board.deps import BoardDeps
from labourcrew.deliberation.extractive import OfflineBackend
from labourcrew.graph.statute_graph import REPO_ROOT, StatuteGraph
from labourcrew.ledger.gate import CalibrationRecord
from labourcrew.retrieval.pipeline import Retriever
from labourcrew.settings import Settings, load_settings


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.upper().startswith("LABOURCREW_"):
            monkeypatch.delenv(name)


@pytest.fixture(scope="session")
def index_env(tmp_path_factory: pytest.TempPathFactory, graph: StatuteGraph) -> dict[str, str]:
    """LABOURCREW_* variables pointing at a freshly built tmp index (2025 text) and a tmp runs folder."""
    from labourcrew.retrieval.index_build import build_index

    root = tmp_path_factory.mktemp("index")
    cache = root / "embed_cache"
    cache.mkdir()
    for f in (REPO_ROOT / "data" / "index" / "embed_cache").glob("*"):
        shutil.copy(f, cache / f.name)
    env = {
        "LABOURCREW_INDEX__URI": str(root / "test.db"),
        "LABOURCREW_INDEX__EMBED_CACHE_DIR": str(cache),
        "LABOURCREW_RUNS_DIR": str(root / "runs"),
    }
    settings = load_settings("offline", index={"uri": env["LABOURCREW_INDEX__URI"], "embed_cache_dir": str(cache)})
    build_index(settings, versions=("2025",), graph=graph)
    return env


@pytest.fixture(scope="session")
def e2e_settings(index_env: dict[str, str]) -> Settings:
    return load_settings(
        "offline",
        index={"uri": index_env["LABOURCREW_INDEX__URI"], "embed_cache_dir": index_env["LABOURCREW_INDEX__EMBED_CACHE_DIR"]},
        runs_dir=index_env["LABOURCREW_RUNS_DIR"],
    )


@pytest.fixture(scope="session")
def pipeline(e2e_settings: Settings, graph: StatuteGraph) -> Retriever:
    from labourcrew.wiring import make_retrieval

    port = make_retrieval(e2e_settings, graph)  # the real facade: hybrid + thesaurus + learned rerank
    yield port
    port.close()


@pytest.fixture(scope="session")
def calibrated_board(e2e_settings: Settings, graph: StatuteGraph, pipeline: Retriever) -> Board:
    """The offline board in calibrated mode with a finite test τ (the real record comes from CRC)."""
    cal = CalibrationRecord(tau=0.70, alpha=0.10, n=40, empirical_risk=0.05, bound=0.07, labels_sha256="test",
                            created="2026-01-01T00:00:00+00:00", grid_size=40)
    return build_board(e2e_settings, BoardDeps(graph=graph, retrieval=pipeline, backend=OfflineBackend(graph), calibration=cal))


