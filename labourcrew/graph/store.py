"""Vector store of citable units over Milvus (paper §3.3): Milvus Lite file or Milvus server.

One collection per (statute version, encoder): ``units_{version}_{encoder}`` sanitised to
``[a-z0-9_]`` (``units_en_2018_bge_m3``). Each row is one :class:`~labourcrew.statute.model.Unit`
with its dense vector (``FLOAT_VECTOR``, ``FLAT`` index, ``COSINE`` metric: exact and
deterministic, ample for ~3,000 units) and, for encoders with lexical weights, a sparse vector
(``SPARSE_FLOAT_VECTOR``, ``SPARSE_INVERTED_INDEX``, ``IP``). A small ``labourcrew_meta``
collection keeps, per units collection, a JSON record (content hash of what was indexed, encoder
backend info) so an index build can skip work that is already done.

The same code serves a local file (``data/index/labourcrew.db``) and a server
(``http://host:19530``): :class:`pymilvus.MilvusClient` picks Milvus Lite for paths ending ``.db``.

Milvus Lite 3.2 quirks handled here (server limits respected so both paths behave alike):

* A collection in an existing database is *released* after reopening: every first use per client
  calls ``load_collection`` (otherwise search/query fail with "call load() before search").
* Lite accepts collection names with ``-`` and ``VARCHAR`` ``max_length`` above 65,535 and does not
  enforce ``max_length``; a server rejects all three. Names are sanitised, ``max_length`` is capped
  at 65,535 and over-long UTF-8 text is cut (Bangla is 3 bytes/char; the longest *section* of the Act,
  section 2, is 63,594 bytes; the graph, not this store, is the source of verbatim text).
* A stored sparse vector must have at least one non-zero weight: an empty one gets a single
  negligible weight on an id no tokenizer uses (:data:`EMPTY_SPARSE_ID`).
* Sparse ids must be < 2**32 - 1; weights finite and >= 0.
* ``output_fields=[]`` returns *every* field, vectors included: ask for ``["node_id"]`` only.
* One process per Lite database (file lock); several clients inside one process share one
  in-process server. ``MilvusClient.close()`` does *not* stop that server, so the lock is held
  until the process exits. :meth:`MilvusStore.close` therefore stops it (milvus_lite's
  ``server_manager_instance.release_server``) when the last open store of this process on that
  file closes and a store of this module started the server; ``close(release=True)`` forces it.
  Restarting the server on the next open costs ~15 ms.
* Opening a file another process holds makes milvus_lite log a full traceback (logger
  ``milvus_lite.server_manager``) before pymilvus raises a bare "Open local milvus failed": the
  record is caught during the connect attempt and its message goes into one clean ConfigError.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import re
import threading
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from labourcrew.errors import ConfigError, IndexNotBuiltError, InputError
from labourcrew.statute.model import Unit

__all__ = [
    "UnitRecord",
    "MilvusStore",
    "collection_name",
    "build_filter",
    "VARCHAR_MAX",
    "EMPTY_SPARSE_ID",
    "META_COLLECTION",
]

logger = logging.getLogger(__name__)

VARCHAR_MAX = 65_535  # Milvus VARCHAR limit in bytes (server-enforced)
EMPTY_SPARSE_ID = 2**32 - 2  # largest id Milvus accepts; no tokenizer has this many tokens
_EMPTY_SPARSE_WEIGHT = 1e-9
META_COLLECTION = "labourcrew_meta"
_UPSERT_BATCH_BYTES = 8 * 1024 * 1024  # well under gRPC's 64 MB message cap
_NO_CHAPTER = -1  # INT64 stand-in for "no chapter" (avoids nullable-field differences across Milvus versions)

try:  # pymilvus is a hard requirement; import errors surface when a store is opened
    from pymilvus import DataType, MilvusClient, MilvusException
except ImportError:  # pragma: no cover
    MilvusClient = None  # type: ignore[assignment,misc]

_LITE_LOGGER = "milvus_lite.server_manager"
# Open MilvusStore objects per Milvus Lite file in this process, and the files whose in-process
# server one of them started (only those are stopped automatically on the last close).
_lite_lock = threading.Lock()
_lite_open: dict[str, int] = {}
_lite_owned: set[str] = set()


def _lite_manager() -> Any | None:
    try:
        from milvus_lite.server_manager import server_manager_instance
    except ImportError:  # pragma: no cover - milvus-lite is in requirements.txt
        return None
    return server_manager_instance


def _lite_running(path: str) -> bool | None:
    """Whether milvus_lite runs a server for ``path`` in this process (None: cannot tell)."""
    servers = getattr(_lite_manager(), "_servers", None)
    return os.path.abspath(path) in servers if isinstance(servers, dict) else None


def _release_lite(path: str) -> None:
    manager = _lite_manager()
    if manager is not None:
        manager.release_server(path)
        logger.info("released the Milvus Lite server (and file lock) of %s", path)


class _Catch(logging.Filter):
    """Swallows milvus_lite's start-up log records, keeping them for the error message."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def filter(self, record: logging.LogRecord) -> bool:
        self.records.append(record)
        return False

    def reason(self) -> str | None:
        """The innermost exception message milvus_lite logged, if any."""
        for rec in reversed(self.records):
            if rec.exc_info and rec.exc_info[1] is not None:
                return str(rec.exc_info[1])
        return None


@contextlib.contextmanager
def _quiet_lite_start() -> Iterator[_Catch]:
    # milvus_lite logs a whole traceback (e.g. DataDirLockedError) to stderr when it cannot start
    # its server; the caller turns the failure into one ConfigError instead.
    catch = _Catch()
    lite_logger = logging.getLogger(_LITE_LOGGER)
    lite_logger.addFilter(catch)
    try:
        yield catch
    finally:
        lite_logger.removeFilter(catch)


class UnitRecord(BaseModel):
    """One row of a units collection: a unit's fields plus its vectors."""

    model_config = ConfigDict(extra="forbid")

    node_id: str = Field(description="Unit id '{version}:{label}' (primary key).")
    version: str = Field(description="Statute version: '2025', '2018' or 'en-2018'.")
    level: str = Field(description="Structural level (labourcrew.statute.model.Level value).")
    section: str = Field(default="", description="ASCII section label; '' for chapters.")
    chapter: int = Field(default=_NO_CHAPTER, description="Chapter number 1-21; -1 when none.")
    label: str = Field(description="ASCII label, e.g. '27(3A)'.")
    text: str = Field(description="Verbatim unit text (cut to 65,535 UTF-8 bytes when stored).")
    text_norm: str = Field(description="normalize(text) (cut to 65,535 UTF-8 bytes when stored).")
    edges: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Typed neighbours: parent/children/provisos/cross_refs -> node ids; stored as JSON.",
    )
    dense: list[float] = Field(description="Dense vector, L2-normalised, length = collection dim.")
    sparse: dict[int, float] | None = Field(
        default=None, description="Lexical weights {token id: weight >= 0}; only for sparse encoders."
    )

    @classmethod
    def from_unit(cls, unit: Unit, dense: Sequence[float] | np.ndarray, sparse: dict[int, float] | None = None) -> UnitRecord:
        """Build a record from a :class:`Unit` and its vectors."""
        edges = {
            "parent": [unit.parent] if unit.parent else [],
            "children": list(unit.children),
            "provisos": list(unit.provisos),
            "cross_refs": list(unit.cross_refs),
        }
        return cls(
            node_id=unit.node_id,
            version=unit.version,
            level=str(unit.level),
            section=unit.section or "",
            chapter=unit.chapter if unit.chapter is not None else _NO_CHAPTER,
            label=unit.label,
            text=unit.text,
            text_norm=unit.text_norm,
            edges=edges,
            dense=np.asarray(dense, dtype=np.float32).tolist(),
            sparse=sparse,
        )


def collection_name(version: str, encoder_name: str) -> str:
    """``units_{version}_{encoder}`` lower-cased with every run of other characters -> ``_``.

    Raises:
        InputError: version or encoder name is empty.
    """
    if not version or not encoder_name:
        raise InputError("version and encoder name are required")
    raw = f"units_{version}_{encoder_name}".lower()
    return re.sub(r"[^a-z0-9_]+", "_", raw)[:255]


def _quote(value: str) -> str:
    # Milvus string literals accept JSON-style double-quoted escapes.
    return json.dumps(value, ensure_ascii=False)


def build_filter(
    *,
    level: str | Iterable[str] | None = None,
    section: str | Iterable[str] | None = None,
    chapter: int | Iterable[int] | None = None,
    version: str | None = None,
) -> str | None:
    """Build a Milvus boolean filter from optional equality/membership constraints.

    Example: ``build_filter(level=["section", "subsection"], chapter=10)`` ->
    ``'level in ["section", "subsection"] and chapter == 10'``. Returns None when no constraint.
    """
    parts: list[str] = []

    def add(field: str, value: Any, num: bool) -> None:
        if value is None:
            return
        if isinstance(value, (str, int)) and not isinstance(value, bool):
            values = [value]
        else:
            values = list(value)
        lit = [str(int(v)) if num else _quote(str(v)) for v in values]
        if not lit:
            raise InputError(f"empty list for filter field {field!r}")
        parts.append(f"{field} == {lit[0]}" if len(lit) == 1 else f"{field} in [{', '.join(lit)}]")

    add("version", version, False)
    add("level", level, False)
    add("section", section, False)
    add("chapter", chapter, True)
    return " and ".join(parts) or None


def _cut_utf8(text: str, limit: int = VARCHAR_MAX) -> str:
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    return data[:limit].decode("utf-8", errors="ignore")


def _check_sparse(weights: dict[int, float]) -> dict[int, float]:
    out: dict[int, float] = {}
    for k, v in weights.items():
        k, v = int(k), float(v)
        if not 0 <= k < 2**32 - 1:
            raise InputError(f"sparse id {k} out of range [0, 2**32-2]")
        if not math.isfinite(v) or v < 0:
            raise InputError(f"sparse weight {v} for id {k} must be finite and >= 0")
        if v > 0:
            out[k] = v
    return out


class MilvusStore:
    """Units collections in Milvus Lite (file) or a Milvus server (URI), one code path.

    Args:
        uri: a path ending in ``.db`` (Milvus Lite; parent folders are created) or a server URI
            ``http(s)://host:port``.
        token: server token (``"user:password"``); ignored by Milvus Lite.

    Raises:
        ConfigError: the URI is neither a ``.db`` path nor a server URI, or Milvus cannot be opened.
    """

    def __init__(self, uri: str | Path, token: str | None = None):
        uri = str(uri).strip()
        if "://" not in uri:
            if not uri.endswith(".db"):
                raise ConfigError(
                    f"index uri {uri!r} is neither a Milvus server URI nor a path ending in .db",
                    help_message="Use e.g. data/index/labourcrew.db or http://localhost:19530.",
                )
            Path(uri).expanduser().resolve().parent.mkdir(parents=True, exist_ok=True)
            uri = str(Path(uri).expanduser().resolve())
        self.uri = uri
        self.is_lite = "://" not in uri
        self._closed = False
        running_before = _lite_running(uri) if self.is_lite else None
        with _quiet_lite_start() as catch:
            try:
                self._client = MilvusClient(uri=uri, token=token or "")
            except Exception as exc:  # pymilvus raises several types (MilvusException, ConnectionConfigException, grpc errors)
                hint = (
                    "অন্য একটি প্রক্রিয়া (যেমন ড্যাশবোর্ড) সম্ভবত এই ইনডেক্স ফাইলটি খুলে রেখেছে; সেটি বন্ধ করুন, অথবা একটি "
                    "নিজস্ব কপি বানিয়ে ব্যবহার করুন — another process (e.g. the dashboard or an index build) may hold "
                    "this Milvus Lite file: stop it, or build a private copy and point this command at it: "
                    "python -m labourcrew index build --uri /tmp/copy.db, then LABOURCREW_INDEX__URI=/tmp/copy.db"
                    if self.is_lite
                    else "Milvus সার্ভার চালু আছে কি না এবং URI/token ঠিক কি না দেখুন — check that the Milvus server is "
                         "running and the URI/token are right."
                )
                reason = catch.reason() or str(exc)
                raise ConfigError(f"ইনডেক্স খোলা যায়নি — cannot open Milvus at {uri}: {reason}", help_message=hint,
                                  retryable=True) from exc
        for rec in catch.records:  # started after all: keep milvus_lite's messages, below warning level
            logger.debug("milvus_lite: %s", rec.getMessage())
        if self.is_lite:
            with _lite_lock:
                _lite_open[uri] = _lite_open.get(uri, 0) + 1
                if running_before is False and _lite_running(uri):
                    _lite_owned.add(uri)
        self._loaded: set[str] = set()
        self._schemas: dict[str, tuple[int, bool]] = {}

    # --- collections -----------------------------------------------------------------------------

    def has_collection(self, version: str, encoder_name: str) -> bool:
        """True when the units collection for (version, encoder) exists."""
        return bool(self._client.has_collection(collection_name(version, encoder_name)))

    def ensure_collection(self, version: str, encoder_name: str, dim: int, sparse: bool) -> str:
        """Create the units collection if missing (else check it matches); load it; return its name.

        Args:
            dim: dense dimension of the encoder.
            sparse: whether rows carry a sparse vector.

        Raises:
            ConfigError: an existing collection has another dim or sparse setting (drop and rebuild).
        """
        if dim < 2:
            raise InputError(f"dense dim must be >= 2, got {dim}")
        name = collection_name(version, encoder_name)
        if self._client.has_collection(name):
            have = self._schema(name)
            if have != (dim, sparse):
                raise ConfigError(
                    f"collection {name} has (dim, sparse) = {have}, expected {(dim, sparse)}",
                    help_message="Drop and rebuild the index: python -m labourcrew index build --force",
                )
        else:
            schema = MilvusClient.create_schema(auto_id=False, enable_dynamic_field=False)
            schema.add_field("node_id", DataType.VARCHAR, is_primary=True, max_length=256)
            schema.add_field("version", DataType.VARCHAR, max_length=16)
            schema.add_field("level", DataType.VARCHAR, max_length=32)
            schema.add_field("section", DataType.VARCHAR, max_length=64)
            schema.add_field("chapter", DataType.INT64)
            schema.add_field("label", DataType.VARCHAR, max_length=256)
            schema.add_field("text", DataType.VARCHAR, max_length=VARCHAR_MAX)
            schema.add_field("text_norm", DataType.VARCHAR, max_length=VARCHAR_MAX)
            schema.add_field("edges", DataType.VARCHAR, max_length=VARCHAR_MAX)
            schema.add_field("dense", DataType.FLOAT_VECTOR, dim=dim)
            index = self._client.prepare_index_params()
            index.add_index("dense", index_type="FLAT", metric_type="COSINE")
            if sparse:
                schema.add_field("sparse", DataType.SPARSE_FLOAT_VECTOR)
                index.add_index("sparse", index_type="SPARSE_INVERTED_INDEX", metric_type="IP")
            self._client.create_collection(name, schema=schema, index_params=index, consistency_level="Strong")
            logger.info("created collection %s (dim=%d, sparse=%s) at %s", name, dim, sparse, self.uri)
            self._schemas[name] = (dim, sparse)
        self._load(name)
        return name

    def _schema(self, name: str) -> tuple[int, bool]:
        if name not in self._schemas:
            desc = self._client.describe_collection(name)
            dim, sparse = 0, False
            for f in desc["fields"]:
                if f["name"] == "dense":
                    dim = int(f["params"]["dim"])
                elif f["name"] == "sparse":
                    sparse = True
            self._schemas[name] = (dim, sparse)
        return self._schemas[name]

    def _load(self, name: str) -> None:
        # Collections of a reopened database start released; loading is idempotent and cheap.
        if name not in self._loaded:
            self._client.load_collection(name)
            self._loaded.add(name)

    def _existing(self, version: str, encoder_name: str) -> str:
        name = collection_name(version, encoder_name)
        if not self._client.has_collection(name):
            raise IndexNotBuiltError(f"no index for version {version!r} and encoder {encoder_name!r} at {self.uri}")
        self._load(name)
        return name

    def drop(self, version: str, encoder_name: str) -> None:
        """Drop the units collection and its meta record (no error when absent)."""
        name = collection_name(version, encoder_name)
        if self._client.has_collection(name):
            self._client.drop_collection(name)
        self._loaded.discard(name)
        self._schemas.pop(name, None)
        if self._client.has_collection(META_COLLECTION):
            self._load(META_COLLECTION)
            self._client.delete(META_COLLECTION, ids=[name])

    # --- writing ---------------------------------------------------------------------------------

    def upsert(self, version: str, encoder_name: str, records: Iterable[UnitRecord]) -> int:
        """Insert or replace rows by node_id; returns the number of rows written.

        Raises:
            IndexNotBuiltError: the collection does not exist (call :meth:`ensure_collection`).
            InputError: a record of another version, a vector of the wrong length, or a sparse
                vector missing (sparse collection) / present (dense-only collection).
        """
        name = self._existing(version, encoder_name)
        dim, sparse = self._schema(name)
        batch: list[dict[str, Any]] = []
        size = 0
        written = 0
        for rec in records:
            if rec.version != version:
                raise InputError(f"record {rec.node_id} is version {rec.version}, collection is {version}")
            if len(rec.dense) != dim:
                raise InputError(f"record {rec.node_id}: dense length {len(rec.dense)} != dim {dim}")
            if sparse and rec.sparse is None:
                raise InputError(f"record {rec.node_id}: sparse collection needs a sparse vector")
            if not sparse and rec.sparse is not None:
                raise InputError(f"record {rec.node_id}: collection {name} has no sparse field")
            text, text_norm = _cut_utf8(rec.text), _cut_utf8(rec.text_norm)
            if len(text) != len(rec.text) or len(text_norm) != len(rec.text_norm):
                logger.warning("%s: text longer than %d UTF-8 bytes, stored cut", rec.node_id, VARCHAR_MAX)
            edges = json.dumps(rec.edges, ensure_ascii=False, sort_keys=True)
            if len(edges.encode()) > VARCHAR_MAX:
                raise InputError(f"record {rec.node_id}: edges JSON exceeds {VARCHAR_MAX} bytes")
            row: dict[str, Any] = {
                "node_id": rec.node_id,
                "version": rec.version,
                "level": rec.level,
                "section": rec.section,
                "chapter": int(rec.chapter),
                "label": rec.label,
                "text": text,
                "text_norm": text_norm,
                "edges": edges,
                "dense": rec.dense,
            }
            if sparse:
                sp = _check_sparse(rec.sparse or {})
                row["sparse"] = sp or {EMPTY_SPARSE_ID: _EMPTY_SPARSE_WEIGHT}
            batch.append(row)
            size += len(text.encode()) + len(text_norm.encode()) + len(edges) + 8 * dim + 16 * len(row.get("sparse", {}))
            if size >= _UPSERT_BATCH_BYTES:
                written += self._flush(name, batch)
                batch, size = [], 0
        if batch:
            written += self._flush(name, batch)
        return written

    def _flush(self, name: str, rows: list[dict[str, Any]]) -> int:
        res = self._client.upsert(name, rows)
        return int(res.get("upsert_count", len(rows)))

    # --- reading ---------------------------------------------------------------------------------

    def count(self, version: str, encoder_name: str, filter: str | None = None) -> int:
        """Number of rows (optionally matching ``filter``).

        Raises:
            IndexNotBuiltError: the collection does not exist.
        """
        name = self._existing(version, encoder_name)
        res = self._run(self._client.query, name, filter=filter or "", output_fields=["count(*)"])
        return int(res[0]["count(*)"])

    def fetch(self, version: str, encoder_name: str, node_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Scalar fields of the given rows (no vectors), by node_id; unknown ids are left out."""
        name = self._existing(version, encoder_name)
        if not node_ids:
            return {}
        fields = ["node_id", "version", "level", "section", "chapter", "label", "text", "text_norm", "edges"]
        rows = self._client.get(name, ids=list(node_ids), output_fields=fields)
        out: dict[str, dict[str, Any]] = {}
        for r in rows:
            row = {f: r.get(f) for f in fields}
            row["edges"] = json.loads(row["edges"] or "{}")
            row["chapter"] = None if row["chapter"] == _NO_CHAPTER else row["chapter"]
            out[row["node_id"]] = row
        return out

    def search_dense(
        self,
        version: str,
        encoder_name: str,
        vector: Sequence[float] | np.ndarray,
        k: int,
        filter: str | None = None,
    ) -> list[tuple[str, float]]:
        """Top-``k`` units by cosine similarity to ``vector``.

        Args:
            vector: query vector of the collection's dim (shape ``(dim,)`` or ``(1, dim)``).
            k: number of hits wanted (1..16384).
            filter: Milvus boolean expression, e.g. ``build_filter(level="section")``.

        Returns:
            ``[(node_id, cosine), ...]`` best first; ties broken by node_id.

        Raises:
            IndexNotBuiltError: the collection does not exist.
            InputError: wrong vector length, bad ``k`` or a filter Milvus rejects.
        """
        name = self._existing(version, encoder_name)
        dim, _ = self._schema(name)
        vec = np.asarray(vector, dtype=np.float32).reshape(-1)
        if vec.shape[0] != dim or not np.all(np.isfinite(vec)):
            raise InputError(f"query vector must be {dim} finite floats, got shape {np.shape(vector)}")
        return self._search(name, [vec.tolist()], "dense", k, filter)

    def search_sparse(
        self,
        version: str,
        encoder_name: str,
        weights: dict[int, float],
        k: int,
        filter: str | None = None,
    ) -> list[tuple[str, float]]:
        """Top-``k`` units by sparse inner product with ``weights`` (sparse collections only).

        Returns:
            ``[(node_id, score), ...]`` best first, only hits sharing a token (score > 0).

        Raises:
            IndexNotBuiltError: the collection does not exist.
            InputError: the collection has no sparse field, bad weights, bad ``k`` or filter.
        """
        name = self._existing(version, encoder_name)
        if not self._schema(name)[1]:
            raise InputError(f"collection {name} has no sparse vectors (dense-only encoder)")
        query = _check_sparse(weights)
        if not query:
            return []
        hits = self._search(name, [query], "sparse", k, filter)
        return [(n, s) for n, s in hits if s > _EMPTY_SPARSE_WEIGHT]

    def _search(self, name: str, data: list[Any], field: str, k: int, filter: str | None) -> list[tuple[str, float]]:
        if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= 16384:
            raise InputError(f"k must be an int in 1..16384, got {k!r}")
        res = self._run(
            self._client.search,
            name,
            data=data,
            anns_field=field,
            limit=k,
            filter=filter or "",
            output_fields=["node_id"],  # [] would return every field, vectors included
        )
        hits = [(str(h.get("node_id", h.get("id"))), float(h["distance"])) for h in res[0]]
        hits.sort(key=lambda x: (-x[1], x[0]))
        return hits

    def _run(self, fn: Any, name: str, **kwargs: Any) -> Any:
        try:
            return fn(name, **kwargs)
        except MilvusException as exc:
            if kwargs.get("filter"):
                raise InputError(f"Milvus rejected the request (filter {kwargs['filter']!r}): {exc.message}") from exc
            raise

    # --- meta ------------------------------------------------------------------------------------

    def _meta_collection(self) -> None:
        if not self._client.has_collection(META_COLLECTION):
            schema = MilvusClient.create_schema(auto_id=False, enable_dynamic_field=False)
            schema.add_field("key", DataType.VARCHAR, is_primary=True, max_length=512)
            schema.add_field("value", DataType.VARCHAR, max_length=VARCHAR_MAX)
            schema.add_field("vec", DataType.FLOAT_VECTOR, dim=2)  # Milvus requires a vector field
            index = self._client.prepare_index_params()
            index.add_index("vec", index_type="FLAT", metric_type="IP")
            self._client.create_collection(META_COLLECTION, schema=schema, index_params=index, consistency_level="Strong")
        self._load(META_COLLECTION)

    def write_meta(self, version: str, encoder_name: str, meta: dict[str, Any]) -> None:
        """Store a JSON-serialisable record about the units collection (e.g. ``content_hash``).

        Raises:
            InputError: ``meta`` is not JSON-serialisable or exceeds 65,535 bytes.
        """
        try:
            value = json.dumps(meta, ensure_ascii=False, sort_keys=True)
        except (TypeError, ValueError) as exc:
            raise InputError(f"index meta is not JSON-serialisable: {exc}") from exc
        if len(value.encode()) > VARCHAR_MAX:
            raise InputError("index meta exceeds 65,535 bytes")
        self._meta_collection()
        self._client.upsert(
            META_COLLECTION, [{"key": collection_name(version, encoder_name), "value": value, "vec": [1.0, 0.0]}]
        )

    def read_meta(self, version: str, encoder_name: str) -> dict[str, Any] | None:
        """The record stored by :meth:`write_meta`, or None."""
        if not self._client.has_collection(META_COLLECTION):
            return None
        self._load(META_COLLECTION)
        rows = self._client.get(META_COLLECTION, ids=[collection_name(version, encoder_name)], output_fields=["value"])
        return json.loads(rows[0]["value"]) if rows else None

    # --- lifecycle -------------------------------------------------------------------------------

    def close(self, release: bool | None = None) -> None:
        """Close the client; for Milvus Lite, stop the in-process server when this store owns it.

        Args:
            release: Milvus Lite only. ``None`` (default): stop this process's embedded server for
                the file, freeing its lock for other processes, when this is the last open
                :class:`MilvusStore` on the file and one of them started the server. ``True``:
                stop it now (other open stores on the file in this process stop working).
                ``False``: keep it running. Ignored for a server URI.
        """
        if self._closed:
            if release and self.is_lite:
                _release_lite(self.uri)
            return
        self._closed = True
        try:
            self._client.close()
        finally:
            self._loaded.clear()
            if self.is_lite:
                with _lite_lock:
                    left = _lite_open.get(self.uri, 1) - 1
                    if left > 0:
                        _lite_open[self.uri] = left
                    else:
                        _lite_open.pop(self.uri, None)
                    owned = self.uri in _lite_owned
                    stop = bool(release) or (release is None and left <= 0 and owned)
                    if stop:
                        _lite_owned.discard(self.uri)
                if stop:
                    _release_lite(self.uri)

    def __enter__(self) -> MilvusStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
