r"""Content-hashed embedding cache, committed to git so index builds need no re-embedding.

Key of one entry: ``sha256(encoder name + "\\0" + kind + "\\0" + text)`` with ``kind`` ``"query"``
or ``"passage"``. Storage: one ``.npz`` per (encoder, kind) under the cache directory
(``{encoder}.passage.npz``, ``{encoder}.query.npz``); splitting by kind keeps the file rewritten at
query time small. Each file holds ``keys`` (``uint8`` ``(n, 32)``, raw digests, sorted), ``dense``
(``float16``, ``(n, dim)``), for sparse encoders a CSR triple ``sp_indptr``/``sp_idx``/``sp_val``,
and a JSON ``meta`` (encoder name, kind, dim, backend fingerprint). Archive members carry a fixed
timestamp, so the same content always gives the same bytes (no git noise).

Keys are raw bytes, not numpy ``S32`` strings: numpy strips trailing ``\\x00`` from ``S`` values on
read, so a digest ending in a zero byte (1 in 256) came back 31 bytes long and never matched again.
Files of that older ``S32`` layout are still read (each key padded back to 32 bytes, which is
exact: the stored buffer holds all 32 bytes) and are rewritten in the ``uint8`` layout on the next
:meth:`CachedEncoder.save`.

Vectors are stored as float16 and returned as float32 re-normalised. Fresh embeddings go through
the same rounding, so a result never depends on whether it came from the cache.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import re
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from labourcrew.errors import DataError
from labourcrew.fileio import atomic_open
from labourcrew.retrieval.encoders import Encoder, Kind, check_texts, l2_normalise

__all__ = ["cache_key", "CachedEncoder", "KINDS"]

logger = logging.getLogger(__name__)

KINDS: tuple[Kind, ...] = ("query", "passage")
_FIXED_DATE = (1980, 1, 1, 0, 0, 0)
_KEY_BYTES = 32  # sha256 digest length


def cache_key(encoder_name: str, kind: str, text: str) -> bytes:
    r"""Raw 32-byte sha256 of ``encoder_name + "\\0" + kind + "\\0" + text`` (UTF-8)."""
    return hashlib.sha256(f"{encoder_name}\0{kind}\0{text}".encode("utf-8")).digest()


def _keys_from_array(keys: np.ndarray, path: Path) -> tuple[list[bytes], bool]:
    """Raw 32-byte keys of a cache file's ``keys`` array, and whether it was the old ``S32`` layout.

    Raises:
        DataError: the array is neither ``uint8`` ``(n, 32)`` nor ``S32`` ``(n,)``.
    """
    if keys.dtype == np.uint8 and keys.ndim == 2 and keys.shape[1] == _KEY_BYTES:
        return [row.tobytes() for row in keys], False
    if keys.dtype.kind == "S" and keys.dtype.itemsize == _KEY_BYTES and keys.ndim == 1:
        # numpy drops trailing NULs of S values; the digest is the full 32-byte buffer.
        return [bytes(k).ljust(_KEY_BYTES, b"\0") for k in keys], True
    raise DataError(f"embedding cache {path} has keys of dtype {keys.dtype} and shape {keys.shape}; expected uint8 (n, 32)")


def _keys_to_array(keys: Sequence[bytes]) -> np.ndarray:
    if not keys:
        return np.zeros((0, _KEY_BYTES), dtype=np.uint8)
    return np.frombuffer(b"".join(keys), dtype=np.uint8).reshape(len(keys), _KEY_BYTES)


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)


def _to16(dense: np.ndarray) -> np.ndarray:
    return np.asarray(dense, dtype=np.float32).astype(np.float16)


def _sparse16(weights: dict[int, float]) -> tuple[np.ndarray, np.ndarray]:
    items = sorted((int(k), float(v)) for k, v in weights.items())
    idx = np.fromiter((k for k, _ in items), dtype=np.uint32, count=len(items))
    val = np.fromiter((v for _, v in items), dtype=np.float32, count=len(items)).astype(np.float16)
    return idx, val


class _Shelf:
    """Entries of one (encoder, kind) file: key -> (dense float16 row, optional sparse arrays)."""

    def __init__(self, path: Path, meta: dict[str, Any], sparse: bool):
        self.path = path
        self.meta = meta
        self.sparse = sparse
        self.dense: dict[bytes, np.ndarray] = {}
        self.sp: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}
        self.dirty = False
        self._stamp: tuple[int, int] | None = None
        self._load_into_self()

    def _stat(self) -> tuple[int, int] | None:
        try:
            st = self.path.stat()
        except FileNotFoundError:
            return None
        return (st.st_mtime_ns, st.st_size)

    def _read(self) -> tuple[dict[bytes, np.ndarray], dict[bytes, tuple[np.ndarray, np.ndarray]]] | None:
        """Entries of the file on disk, or None when absent or made by another backend/shape."""
        if not self.path.exists():
            return None
        try:
            with np.load(self.path, allow_pickle=False) as z:
                meta = json.loads(str(z["meta"]))
                keys = z["keys"]
                dense = z["dense"]
                sp_parts = (z["sp_indptr"], z["sp_idx"], z["sp_val"]) if "sp_indptr" in z.files else None
        except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
            raise DataError(f"embedding cache {self.path} is unreadable: {exc}") from exc
        if any(meta.get(k) != self.meta.get(k) for k in ("encoder", "kind", "dim", "fingerprint")):
            logger.warning(
                "embedding cache %s was made by %s, not %s: ignoring it (it is rewritten on save)",
                self.path, meta.get("fingerprint"), self.meta.get("fingerprint"),
            )
            return None
        raw_keys, old_layout = _keys_from_array(keys, self.path)
        if len(raw_keys) != len(dense):
            raise DataError(f"embedding cache {self.path} has {len(raw_keys)} keys but {len(dense)} vectors")
        if old_layout:
            # Migrate: rewrite in the uint8 layout on the next save (an S32 file may also hold a
            # digest twice, 31- and 32-byte forms of one key; they collapse to one entry here).
            logger.info("embedding cache %s uses the old S32 key layout: it is rewritten on save", self.path)
            self.dirty = True
        d = {k: dense[i] for i, k in enumerate(raw_keys)}
        s: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}
        if sp_parts is not None:
            indptr, idx, val = sp_parts
            for i, k in enumerate(raw_keys):
                s[k] = (idx[indptr[i] : indptr[i + 1]], val[indptr[i] : indptr[i + 1]])
        if self.sparse and len(s) != len(d):
            logger.warning("embedding cache %s lacks sparse weights: ignoring it", self.path)
            return None
        return d, s

    def _load_into_self(self) -> None:
        stamp = self._stat()
        got = self._read()
        if got is not None:
            self.dense, self.sp = got
            logger.info("embedding cache %s: %d entries", self.path, len(self.dense))
        self._stamp = stamp

    def save(self) -> None:
        """Write atomically (temp file in the same folder + os.replace); merge concurrent writes."""
        if not self.dirty:
            return
        if self._stat() not in (None, self._stamp):
            # Someone else saved since we loaded: keep their entries too.
            got = self._read()
            if got is not None:
                for k, v in got[0].items():
                    if k not in self.dense:
                        self.dense[k] = v
                        if k in got[1]:
                            self.sp[k] = got[1][k]
        keys = sorted(self.dense)
        dim = int(self.meta["dim"])
        arrays: dict[str, np.ndarray] = {
            "meta": np.array(json.dumps(self.meta, sort_keys=True)),
            "keys": _keys_to_array(keys),
            "dense": np.stack([self.dense[k] for k in keys]).astype(np.float16) if keys else np.zeros((0, dim), np.float16),
        }
        if self.sparse:
            lens = [len(self.sp[k][0]) for k in keys]
            arrays["sp_indptr"] = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
            arrays["sp_idx"] = np.concatenate([self.sp[k][0] for k in keys] or [np.zeros(0, np.uint32)]).astype(np.uint32)
            arrays["sp_val"] = np.concatenate([self.sp[k][1] for k in keys] or [np.zeros(0, np.float16)]).astype(np.float16)
        with atomic_open(self.path, binary=True) as fh:
            with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_DEFLATED) as zf:
                for name, arr in arrays.items():
                    buf = io.BytesIO()
                    np.lib.format.write_array(buf, arr, allow_pickle=False)
                    info = zipfile.ZipInfo(name + ".npy", date_time=_FIXED_DATE)
                    info.compress_type = zipfile.ZIP_DEFLATED
                    zf.writestr(info, buf.getvalue())
        self._stamp = self._stat()
        self.dirty = False
        logger.info("embedding cache %s saved: %d entries", self.path, len(keys))


class CachedEncoder:
    """An :class:`~labourcrew.retrieval.encoders.Encoder` that embeds only texts not cached yet.

    Same interface as the wrapped encoder (``name``, ``dim``, ``sparse``, ``encode_*``,
    ``backend_info``). Missing texts are embedded in chunks of ``chunk_size`` and, with
    ``autosave``, the cache is saved after each chunk, so an interrupted index build resumes where
    it stopped. Not thread-safe. Concurrent *processes* are tolerated: a save first merges entries
    another process wrote since this one read the file, so no entry is lost.

    Args:
        inner: the encoder doing the work.
        cache_dir: folder of the cache files (created on first save); the project default is
            ``data/index/embed_cache/`` (``index.embed_cache_dir``).
        chunk_size: texts embedded per inner call.
        autosave: save after every chunk that added entries; else call :meth:`save`.

    Attributes:
        hits, misses: texts served from the cache / embedded, since construction.
    """

    def __init__(self, inner: Encoder, cache_dir: str | os.PathLike[str], *, chunk_size: int = 256, autosave: bool = True):
        self.inner = inner
        self.name = inner.name
        self.dim = int(inner.dim)
        self.sparse = bool(getattr(inner, "sparse", False))
        self.cache_dir = Path(cache_dir)
        self.chunk_size = max(1, int(chunk_size))
        self.autosave = autosave
        self.hits = 0
        self.misses = 0
        self._fingerprint = str(inner.backend_info().get("fingerprint", inner.name))
        self._shelves: dict[str, _Shelf] = {}

    def _shelf(self, kind: Kind) -> _Shelf:
        if kind not in self._shelves:
            meta = {"encoder": self.name, "kind": kind, "dim": self.dim, "fingerprint": self._fingerprint}
            path = self.cache_dir / f"{_safe(self.name)}.{kind}.npz"
            self._shelves[kind] = _Shelf(path, meta, self.sparse)
        return self._shelves[kind]

    def _fill(self, items: list[str], kind: Kind) -> tuple[_Shelf, list[bytes]]:
        shelf = self._shelf(kind)
        keys = [cache_key(self.name, kind, t) for t in items]
        todo: dict[bytes, str] = {}
        for k, t in zip(keys, items):
            if k not in shelf.dense and k not in todo:
                todo[k] = t
        self.misses += len(todo)
        self.hits += len(items) - sum(1 for k in keys if k in todo)
        pending = list(todo.items())
        for start in range(0, len(pending), self.chunk_size):
            chunk = pending[start : start + self.chunk_size]
            texts = [t for _, t in chunk]
            dense = (self.inner.encode_queries if kind == "query" else self.inner.encode_passages)(texts)
            sp = None
            if self.sparse:
                sp_call = self.inner.encode_queries_sparse if kind == "query" else self.inner.encode_passages_sparse  # type: ignore[attr-defined]
                sp = sp_call(texts)
            for i, (k, _) in enumerate(chunk):
                shelf.dense[k] = _to16(dense[i])
                if sp is not None:
                    shelf.sp[k] = _sparse16(sp[i])
            shelf.dirty = True
            if self.autosave:
                shelf.save()
            logger.debug("embedded %d/%d new %s texts", min(start + len(chunk), len(pending)), len(pending), kind)
        return shelf, keys

    def _dense(self, texts: Sequence[str], kind: Kind) -> np.ndarray:
        items = check_texts(texts)
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        shelf, keys = self._fill(items, kind)
        return l2_normalise(np.stack([shelf.dense[k] for k in keys]).astype(np.float32))

    def _sparse(self, texts: Sequence[str], kind: Kind) -> list[dict[int, float]]:
        if not self.sparse:
            raise AttributeError(f"encoder {self.name!r} has no sparse weights")
        items = check_texts(texts)
        shelf, keys = self._fill(items, kind)
        return [{int(i): float(v) for i, v in zip(*shelf.sp[k])} for k in keys]

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        """Cached :meth:`Encoder.encode_queries`: ``(n, dim)`` float32, unit rows."""
        return self._dense(texts, "query")

    def encode_passages(self, texts: list[str]) -> np.ndarray:
        """Cached :meth:`Encoder.encode_passages`: ``(n, dim)`` float32, unit rows."""
        return self._dense(texts, "passage")

    def encode_queries_sparse(self, texts: list[str]) -> list[dict[int, float]]:
        """Cached sparse query weights (sparse encoders only; else AttributeError)."""
        return self._sparse(texts, "query")

    def encode_passages_sparse(self, texts: list[str]) -> list[dict[int, float]]:
        """Cached sparse passage weights (sparse encoders only; else AttributeError)."""
        return self._sparse(texts, "passage")

    def save(self) -> None:
        """Write every changed cache file (atomic)."""
        for shelf in self._shelves.values():
            shelf.save()

    def backend_info(self) -> dict[str, Any]:
        """The wrapped encoder's record plus the cache folder and hit/miss counts."""
        info = dict(self.inner.backend_info())
        info.update({"cache_dir": str(self.cache_dir), "cache_hits": self.hits, "cache_misses": self.misses})
        return info

    def __enter__(self) -> CachedEncoder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.save()
