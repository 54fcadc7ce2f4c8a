"""Evaluation test fixtures: lexical retrieval over the real Act (no vector index), runs in a
temporary folder, a few real dev items."""

from __future__ import annotations

import os

import pytest

from labourcrew.board.deps import CachedRetrieval
from labourcrew.eval.datasets import DevItem, load_dataset
from labourcrew.eval.runner import EvalOptions, EvalResources
from labourcrew.graph.statute_graph import StatuteGraph
from labourcrew.retrieval.pipeline import Retriever
from labourcrew.settings import load_settings


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests see no LABOURCREW_* variables from the developer's shell."""
    for name in list(os.environ):
        if name.upper().startswith("LABOURCREW_"):
            monkeypatch.delenv(name)


@pytest.fixture(scope="session")
def dev_items() -> list[DevItem]:
    return load_dataset()


@pytest.fixture(scope="session")
def three_items(dev_items: list[DevItem]) -> list[DevItem]:
    """A direct question, a multi-hop one and an unanswerable one (real dev items)."""
    by_id = {i.id: i for i in dev_items}
    return [by_id["devA-021"], by_id["devA-041"], by_id["devA-071"]]


@pytest.fixture(scope="session")
def lexical_port(graph: StatuteGraph) -> CachedRetrieval:
    return CachedRetrieval(Retriever.lexical_only(load_settings("offline"), graph))


@pytest.fixture
def resources(graph: StatuteGraph, lexical_port: CachedRetrieval) -> EvalResources:
    return EvalResources(load_settings("offline"), graph=graph, port=lexical_port)


@pytest.fixture
def opts(tmp_path) -> EvalOptions:
    """Categorical gate (no calibration record needed), runs under a temporary folder."""
    return EvalOptions(
        gate_mode="categorical", runs_dir=tmp_path / "runs", workers=2, labels_path=tmp_path / "none.sqlite"
    )
