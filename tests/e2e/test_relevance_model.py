"""The committed relevance model loads, ranks real questions' gold units first, and a missing or
stale artefact is a clear error."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from labourcrew.errors import DataError
from labourcrew.eval.train_relevance import candidates
from labourcrew.relevance.dataset import load_train
from labourcrew.relevance.model import load_model
from labourcrew.statute.ids import within_any
from labourcrew.wiring import make_reranker


@pytest.fixture(scope="module")
def reranker(e2e_settings, graph, pipeline):
    return make_reranker(e2e_settings, graph, pipeline)


def test_artefact_has_its_training_record(e2e_settings):
    model = load_model(e2e_settings.relevance.model_path)
    rec = model.record
    assert rec["items"] >= 800 and rec["cv_folds"] == 5
    assert rec["cv_roc_auc"] > rec["baseline_cv_roc_auc_fused_score"]  # better than the fused score alone
    assert len(model.sha256) == 64


def test_gold_units_rank_first_on_a_sample(e2e_settings, graph, pipeline, reranker):
    items = [it for it in load_train() if it.kind == "single"][::40][:20]
    hits = 0
    for it in items:
        cands = candidates(pipeline, it.question, "2025", e2e_settings.relevance.rerank_depth)
        gold = [f"2025:{g}" for g in it.gold_labels()]
        if not any(within_any(c.node_id, gold) for c in cands):
            continue  # retrieval never reached it: not the model's fault
        ranked = reranker.rerank(it.question, cands, "2025")
        assert all(0.0 <= r.relevance <= 1.0 for r in ranked)
        hits += any(within_any(r.node_id, gold) for r in ranked[:5])
    assert hits >= 12, hits


def test_missing_or_stale_artefact_is_a_clear_error(tmp_path, e2e_settings):
    with pytest.raises(DataError, match="missing"):
        load_model(tmp_path / "none.json")
    stale = tmp_path / "stale.json"
    payload = json.loads(e2e_settings.relevance.model_path.read_text(encoding="utf-8"))
    payload["features"] = payload["features"][:-1]
    stale.write_text(json.dumps(payload), encoding="utf-8")
    with pytest.raises(DataError, match="stale"):
        load_model(stale)


def test_relative_features_compare_a_candidate_with_the_question_s_others(e2e_settings, pipeline, reranker):
    from labourcrew.relevance.features import FEATURES, RELATIVE

    q = "চাকরি ছাড়ার আগে শ্রমিককে কত দিনের নোটিশ দিতে হয়?"
    cands = candidates(pipeline, q, "2025", e2e_settings.relevance.rerank_depth)
    x = reranker.features(q, cands, "2025")
    col = {f: k for k, f in enumerate(FEATURES)}
    assert len(cands) > 10
    for f in RELATIVE:
        v, rank = x[:, col[f]], x[:, col[f"{f}_rank"]]
        assert not any(map(math.isnan, v)), f  # every candidate has every base value here
        assert rank[int(np.argmax(v))] == 0.0, f  # the best candidate (first of ties) ranks first
        order = np.argsort(rank, kind="stable")
        assert np.all(np.diff(v[order]) <= 1e-12), f  # rank follows the value
        if f"{f}_gap" in col:
            assert np.allclose(x[:, col[f"{f}_gap"]], v - v.max()), f


def test_probabilities_are_the_platt_map_of_the_ranking_scores(e2e_settings, pipeline, reranker):
    model = load_model(e2e_settings.relevance.model_path)
    a, b = model.platt
    assert a > 0  # a higher ranking score is a higher P(governs)
    q = "মাতৃত্বকালীন ছুটি কত দিন?"
    x = reranker.features(q, candidates(pipeline, q, "2025", e2e_settings.relevance.rerank_depth), "2025")
    raw = model.booster.predict(x, num_threads=1)
    p = model.predict(x)
    assert np.all((p > 0) & (p < 1))
    assert np.array_equal(np.argsort(-raw, kind="stable"), np.argsort(-p, kind="stable"))


def test_an_artefact_without_its_probability_map_is_stale(tmp_path, e2e_settings):
    payload = json.loads(e2e_settings.relevance.model_path.read_text(encoding="utf-8"))
    del payload["record"]["platt"]
    stale = tmp_path / "noplatt.json"
    stale.write_text(json.dumps(payload), encoding="utf-8")
    with pytest.raises(DataError, match="stale"):
        load_model(stale)
