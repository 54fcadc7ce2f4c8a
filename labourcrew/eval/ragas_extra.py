"""Optional RAGAS metrics (answer relevancy, context precision/recall, noise sensitivity).

Computed only when a judge endpoint is configured **and** the ``ragas`` package is installed
(an optional extra: ``pip install ragas``; not in requirements.txt). The judge is any
OpenAI-compatible endpoint, named by environment variables (kept apart from the board's own model
so a run is never judged by the model that produced it):

* ``LABOURCREW_EVAL_JUDGE_URL`` -- base URL, e.g. ``http://localhost:8000/v1``;
* ``LABOURCREW_EVAL_JUDGE_MODEL`` -- chat model name;
* ``LABOURCREW_EVAL_JUDGE_KEY`` -- API key (optional; never logged or saved);
* ``LABOURCREW_EVAL_JUDGE_EMBEDDINGS`` -- embeddings model for answer relevancy (optional; that
  metric is skipped without it).

Otherwise :func:`ragas_metrics` returns ``{"skipped": reason}`` and the harness runs as usual.
A sample is one board run: the question, the answer (the Bangla opinion built from released
claims), the contexts (texts of the cited units) and the reference (the item's gold answer).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from typing import Any

from labourcrew.settings import environ

__all__ = ["judge_config", "ragas_metrics"]

logger = logging.getLogger(__name__)


def judge_config() -> dict[str, str] | None:
    """The judge endpoint from the environment, or None when it is not configured."""
    url = environ("LABOURCREW_EVAL_JUDGE_URL")
    model = environ("LABOURCREW_EVAL_JUDGE_MODEL")
    if not url or not model:
        return None
    return {
        "base_url": url,
        "model": model,
        "api_key": environ("LABOURCREW_EVAL_JUDGE_KEY") or "not-needed",
        "embeddings": environ("LABOURCREW_EVAL_JUDGE_EMBEDDINGS"),
    }


def _samples(records: Sequence[Any], items: Sequence[Any]) -> list[dict[str, Any]]:
    out = []
    for record, item in zip(records, items, strict=True):
        if not hasattr(record, "opinion_bn"):  # baselines have no narrative answer
            continue
        pack = {i.node_id: i.text for i in record.evidence_pack.items}
        contexts = list(
            dict.fromkeys(pack[e.node_id] for c in record.claims if c.accepted for e in c.evidence if e.node_id in pack)
        )
        out.append(
            {
                "user_input": item.question_bn,
                "response": record.opinion_bn,
                "retrieved_contexts": contexts or [""],
                "reference": item.gold_answer_bn,
            }
        )
    return out


def ragas_metrics(records: Sequence[Any], items: Sequence[Any]) -> dict[str, Any]:
    """RAGAS scores (means over samples) of a board configuration's runs, or ``{"skipped": why}``.

    Never raises: any failure of the optional stack is reported as skipped with its reason.
    """
    cfg = judge_config()
    if cfg is None:
        return {"skipped": "no judge endpoint (set LABOURCREW_EVAL_JUDGE_URL and LABOURCREW_EVAL_JUDGE_MODEL)"}
    try:
        from langchain_openai import ChatOpenAI, OpenAIEmbeddings
        from ragas import EvaluationDataset, evaluate
        from ragas.embeddings import LangchainEmbeddingsWrapper
        from ragas.llms import LangchainLLMWrapper
        from ragas.metrics import (
            LLMContextPrecisionWithReference,
            LLMContextRecall,
            NoiseSensitivity,
            ResponseRelevancy,
        )
    except ImportError as exc:
        return {"skipped": f"ragas is not installed (optional extra: pip install ragas): {exc}"}
    samples = _samples(records, items)
    if not samples:
        return {"skipped": "no board runs to judge"}
    try:
        llm = LangchainLLMWrapper(
            ChatOpenAI(base_url=cfg["base_url"], model=cfg["model"], api_key=cfg["api_key"], temperature=0.0)
        )
        metrics: list[Any] = [LLMContextPrecisionWithReference(), LLMContextRecall(), NoiseSensitivity()]
        embeddings = None
        if cfg["embeddings"]:
            embeddings = LangchainEmbeddingsWrapper(
                OpenAIEmbeddings(base_url=cfg["base_url"], model=cfg["embeddings"], api_key=cfg["api_key"])
            )
            metrics.insert(0, ResponseRelevancy())
        result = evaluate(
            EvaluationDataset.from_list(samples), metrics=metrics, llm=llm, embeddings=embeddings, show_progress=False
        )
        frame = result.to_pandas()
    except Exception as exc:  # noqa: BLE001 -- an optional judge must never break the harness
        logger.warning("RAGAS evaluation failed: %s", exc)
        return {"skipped": f"RAGAS evaluation failed: {type(exc).__name__}: {exc}"}
    out: dict[str, Any] = {"judge_model": cfg["model"], "n": len(samples)}
    for col in frame.columns:
        if col in ("user_input", "response", "retrieved_contexts", "reference"):
            continue
        vals = [float(v) for v in frame[col] if isinstance(v, (int, float)) and math.isfinite(float(v))]
        out[str(col)] = sum(vals) / len(vals) if vals else math.nan
    return out
