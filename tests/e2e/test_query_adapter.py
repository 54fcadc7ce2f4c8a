"""The committed query adapter on the real index: it is wired into dense search and the relevance
features, it moves training questions' gold units up, and a relevance model trained with another
adapter is refused."""

from __future__ import annotations

import copy

import pytest

from labourcrew.errors import DataError
from labourcrew.relevance.dataset import load_train
from labourcrew.relevance.model import load_model
from labourcrew.statute.ids import within_any
from labourcrew.wiring import make_scorer


def test_pipeline_searches_with_the_committed_adapter(pipeline, e2e_settings):
    ad = pipeline.adapter
    assert ad is not None and pipeline.statute.adapter is ad
    assert ad.record["cv_hit_at_10_adapted"] > ad.record["cv_hit_at_10_raw"]  # held-out folds of data/train
    assert load_model(e2e_settings.relevance.model_path).record["query_adapter_sha256"] == ad.sha256
    assert pipeline.reranker.adapter is ad


def _first_gold_rank(hits, gold):
    return next((i for i, (n, _) in enumerate(hits) if within_any(n, gold)), len(hits))


def test_adapted_dense_ranks_gold_units_higher(pipeline):
    """A sanity check of the artefact on questions it was trained on (measurement is bench's job)."""
    items = [it for it in load_train() if it.kind == "single"][::50][:16]
    raw, adapted = 0, 0
    ad = pipeline.adapter
    try:
        pipeline.statute.adapter = None
        base = [pipeline.statute.dense(it.question, "2025", 50) for it in items]
    finally:
        pipeline.statute.adapter = ad
    for it, b in zip(items, base):
        gold = [f"2025:{g}" for g in it.gold_labels()]
        raw += _first_gold_rank(b, gold) < 10
        adapted += _first_gold_rank(pipeline.statute.dense(it.question, "2025", 50), gold) < 10
    assert adapted > raw, (raw, adapted)


def test_relevance_model_of_another_adapter_is_stale(pipeline, e2e_settings, graph):
    model = copy.copy(load_model(e2e_settings.relevance.model_path))
    model.record = dict(model.record, query_adapter_sha256="0" * 64)
    with pytest.raises(DataError, match="stale"):
        make_scorer(e2e_settings, graph, pipeline, model)
