"""Shared fixtures: the real StatuteGraph, built once per test session."""

from __future__ import annotations

import pytest

from labourcrew.graph.statute_graph import StatuteGraph, load_graph


@pytest.fixture(scope="session")
def graph() -> StatuteGraph:
    """The StatuteGraph of the real Act (all versions), from the on-disk cache when current."""
    return load_graph()
