"""The benchmark: ``python -m labourcrew bench [--json]``.

Measured in one process, in this order, and printed next to the issue's targets (reported, never
asserted -- wall-clock numbers depend on the machine and its load):

1. **retrieval** (reusing :func:`labourcrew.eval.bench_retrieval.run_benchmark`): index build time
   into a temporary Milvus Lite file -- *cached* (embeddings from the committed cache) and *cold*
   (empty embedding cache; skipped with ``--no-cold``) -- and per-question latency p50/p95 and
   recall on the reporting split of the **flat baseline** (``flat512``: 512-token windows, dense
   search) and of the full pipeline (``rerank``: hybrid + Link Hopper + thesaurus + query adapter
   + learned rerank) on the same questions, overall and for multi-hop and hypothetical questions;
2. **board, offline backend**: the full configuration over the reporting split (``--board-items``
   of it), one item at a time: latency p50/p95, release statuses, and the quality targets
   (Gate-Verified Citation Precision, multi-hop Citation-Based Precision) from the same runs --
   with the categorical decision re-derived from the runs when the calibrated gate fails closed
   (no calibration record: nothing released, nothing to measure);
3. **LLM calls**: the board's own call accounting (``AskResult.usage``) with every language-role
   call counted as one chat call (:class:`~labourcrew.llm.fakes.OneCallPerRole` over the offline
   backend) over the whole reporting split: calls per question (goal <= 6) and on the critical path
   (per question, goal <= 4, and per retrieval round);
   then **the configured endpoint against the offline default**: when ``LABOURCREW_LLM__BASE_URL``
   and ``LABOURCREW_LLM__MODEL`` are set, the same ``llm_limit`` reporting-split questions (default
   3) run through the ``openai`` backend and through the offline default (counted one call per
   role call), one board each, built by :mod:`labourcrew.wiring`; per backend: chat calls and
   sequential calls per question, tokens in/out per question, latency p50/p95, release statuses
   and failed roles, and the ratios openai ÷ offline (also alone: :func:`run_endpoint_bench`,
   ``python -m labourcrew bench llm``); otherwise a skipped reason;
4. **memory**: peak resident memory of this process (which holds everything the app holds: the
   StatuteGraph, the encoder, Milvus Lite, the board) and of it plus its child processes (none with
   the Milvus Lite versions that run in-process; a server subprocess would be counted), sampled
   every 0.2 s with psutil;
5. **eval throughput** with 1 and 2 workers on the same (warm) items;
6. **labelled claims**: the reporting split's exported claims and their measurement-only labels
   (``data/eval/claims_report.jsonl`` / ``labels_report.jsonl``, :mod:`labourcrew.eval.labelled`)
   under the calibration record's τ: trust-score ROC AUC, answerable questions released with a
   faithful gold-section claim, the best-claim share -- reported only when every exported claim
   names the running system (otherwise ``stale``: re-export and label).

Ratios are given against the flat baseline measured in the same run.
"""

from __future__ import annotations

import logging
import math
import resource
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from labourcrew.errors import InputError
from labourcrew.eval.ablations import get_config
from labourcrew.eval.datasets import DEFAULT_DATASET, DevItem, load_dataset
from labourcrew.eval.metrics import EvalRun
from labourcrew.eval.metrics.citation_based_precision import CitationBasedPrecision
from labourcrew.eval.metrics.gate_verified_citation_precision import (
    GateVerifiedCitationPrecision,
)
from labourcrew.eval.splits import select_split
from labourcrew.gate.recalibration import regate_with_checks
from labourcrew.retrieval.thesaurus import load_thesaurus
from labourcrew.settings import Settings, load_settings

__all__ = [
    "TARGETS",
    "ENDPOINT_METRICS",
    "RELEASE_STATUSES",
    "run_bench",
    "run_endpoint_bench",
    "endpoint_skip_reason",
    "compare_backends",
    "format_bench",
    "format_endpoint",
    "MemorySampler",
]

logger = logging.getLogger(__name__)

TARGETS: dict[str, tuple[str, float, str]] = {
    "recall_at_10": (">=", 0.90, "Evidence Pack gold-section recall@10"),
    "multi_hop_recall_at_10": (">=", 0.85, "recall@10, multi-hop questions"),
    "hypothetical_recall_at_10": (">=", 0.85, "recall@10, hypothetical questions"),
    "trust_auc": (">=", 0.90, "trust score ROC AUC vs labels"),
    "faithful_gold_release": (">=", 0.60, "answerable released with a faithful gold claim"),
    "offline_board_p50_s": ("<=", 1.0, "offline board p50 latency per question (s)"),
    "peak_rss_gb": ("<=", 3.0, "peak resident memory of the app process (GB)"),
    "gate_verified_citation_precision": (">=", 0.995, "Gate-Verified Citation Precision"),
    "multi_hop_citation_based_precision": (">=", 0.55, "multi-hop Citation-Based Precision (paper: 0.412)"),
    "calls_per_question_mean": ("<=", 6.0, "LLM calls / question, one call per role (mean)"),
    "critical_path_per_question_mean": ("<=", 4.0, "sequential LLM calls / question (mean)"),
}


class MemorySampler:
    """Samples the RSS of this process and of it plus its children (psutil) in a thread."""

    def __init__(self, interval_s: float = 0.2):
        import psutil

        self.proc = psutil.Process()
        self.interval = interval_s
        self.peak_self = 0
        self.peak_total = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="rss-sampler", daemon=True)

    def sample(self) -> None:
        import psutil

        try:
            own = self.proc.memory_info().rss
            kids = 0
            for c in self.proc.children(recursive=True):
                try:
                    kids += c.memory_info().rss
                except psutil.Error:
                    continue
        except psutil.Error:
            return
        self.peak_self = max(self.peak_self, own)
        self.peak_total = max(self.peak_total, own + kids)

    def _loop(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.interval)

    def __enter__(self) -> MemorySampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        self.sample()


def _pct(values: Sequence[float], q: float) -> float:
    return float(np.percentile(np.asarray(values, dtype=float), q)) if values else math.nan


def _ratio(a: float | None, b: float | None) -> float:
    if a is None or b is None or not math.isfinite(a) or not math.isfinite(b) or b == 0:
        return math.nan
    return a / b


def _spread(items: Sequence[DevItem], n: int | None) -> list[DevItem]:
    """``n`` items spread evenly over ``items`` (all when ``n`` is None or larger)."""
    if n is None or n >= len(items):
        return list(items)
    idx = np.linspace(0, len(items) - 1, n).round().astype(int)
    return [items[i] for i in dict.fromkeys(int(i) for i in idx)]


def _retrieval_part(
    settings: Settings, res: Any, dataset: Path, cold: bool, limit: int | None, progress: Callable[[str], None] | None
) -> dict[str, Any]:
    from labourcrew.eval.bench_retrieval import load_dev, run_benchmark

    out = run_benchmark(
        settings,
        retriever=res.port(),
        items=load_dev([dataset]),
        configs=("flat512", "rerank"),
        split="report",  # measurement only: the targets are stated on the reporting split
        limit=limit,
        cold=cold,
        build_times=True,
        progress=progress,
    )
    flat = out["configs"]["flat512"]["overall"]
    full = out["configs"]["rerank"]["overall"]
    out["ratio_to_flat"] = {
        m: _ratio(full.get(m), flat.get(m)) for m in ("recall@5", "recall@10", "mrr", "p50_ms", "p95_ms")
    }
    out.pop("ratio_to_dense", None)
    return out


def _quality(runs: Sequence[EvalRun]) -> dict[str, float]:
    multi = [r for r in runs if r.category == "multi_hop"]
    return {
        "gate_verified_citation_precision": GateVerifiedCitationPrecision()(runs),
        "multi_hop_citation_based_precision": CitationBasedPrecision()(multi),
        "citation_based_precision": CitationBasedPrecision()(runs),
        "released_runs": float(sum(1 for r in runs if r.released())),
    }


def _board_part(
    settings: Settings, res: Any, items: Sequence[DevItem], workdir: Path, progress: Callable[[str], None] | None
) -> tuple[dict[str, Any], list[EvalRun]]:
    from labourcrew.eval.adapter import UnitResolver, from_ask_result
    from labourcrew.eval.runner import EvalOptions, run_config

    opts = EvalOptions(workers=1, resume=False, runs_dir=workdir)
    if progress:
        progress(f"board (offline): {len(items)} questions, one at a time")
    cr = run_config(get_config("full"), items, opts=opts, res=res)
    lat = [r.latency_s for r in cr.runs if r.latency_s is not None]
    statuses: dict[str, int] = {}
    for r in cr.runs:
        key = r.status or "halted"
        statuses[key] = statuses.get(key, 0) + 1
    fail_closed = cr.calibration is not None and cr.calibration.fail_closed and cr.settings.gate.mode == "calibrated"
    runs = cr.runs
    decision = cr.settings.gate.mode
    if fail_closed:  # nothing is released: measure quality on the categorical decision of the same runs
        resolver = UnitResolver(res.graph)
        by_id = {it.id: it for it in items}
        runs = []
        thesaurus = load_thesaurus(cr.settings.relevance.thesaurus_path)
        for run, record in zip(cr.runs, cr.records, strict=True):
            accepted, status, share = regate_with_checks(record, res.graph, thesaurus=thesaurus)
            runs.append(
                from_ask_result(
                    record, by_id[run.item_id], "full", resolver, accepted=accepted, status=status, coverage_share=share
                )
            )
        decision = "categorical (re-derived from the same runs: the calibrated gate fails closed)"
    out = {
        "backend": "offline",
        "n": len(cr.runs),
        "p50_s": _pct(lat, 50),
        "p95_s": _pct(lat, 95),
        "mean_s": float(np.mean(lat)) if lat else math.nan,
        "statuses": statuses,
        "gate_mode": cr.settings.gate.mode,
        "tau": "inf" if cr.calibration is None or math.isinf(cr.calibration.tau) else cr.calibration.tau,
        "quality_decision": decision,
        "quality": _quality(runs),
    }
    return out, runs


def _llm_calls_part(settings: Settings, res: Any, items: Sequence[DevItem]) -> dict[str, Any]:
    from labourcrew.board.bench import bench_board
    from labourcrew.llm.fakes import OneCallPerRole
    from labourcrew.wiring import make_board

    board = make_board(settings, graph=res.graph, retrieval=res.port(), backend=OneCallPerRole(res.offline_backend()))
    b = bench_board(board, [(it.question_bn, it.statute_version) for it in items])
    return {
        "method": "one chat call per language-role call (OneCallPerRole over the offline backend)",
        "n": b.n,
        "calls_per_question_mean": b.calls_per_question_mean,
        "calls_per_question_max": b.calls_per_question_max,
        "critical_path_per_question_mean": b.critical_path_per_question_mean,
        "critical_path_per_question_max": b.critical_path_per_question_max,
        "critical_path_per_round_mean": b.mean_sequential_llm_calls_per_round if b.n else math.nan,
        "critical_path_per_round_max": b.max_sequential_llm_calls_per_round,
        "retrieval_rounds_mean": b.retrieval_rounds_mean,
    }


# ---------------------------------------------------------------- the endpoint against the offline default

ENDPOINT_METRICS: dict[str, str] = {
    "calls_per_question_mean": "chat calls / question (mean)",
    "critical_path_per_question_mean": "sequential calls / question (mean)",
    "tokens_in_per_question_mean": "tokens in / question (mean)",
    "tokens_out_per_question_mean": "tokens out / question (mean)",
    "p50_s": "latency / question p50 (s)",
    "p95_s": "latency / question p95 (s)",
}
"""Per-backend numbers of the endpoint comparison that get an openai ÷ offline ratio, with labels."""

RELEASE_STATUSES = ("TGLO", "DEGRADED", "UNDECIDED")


def endpoint_skip_reason(settings: Settings) -> str | None:
    """Why the endpoint comparison cannot run with ``settings`` (None when it can).

    Both ``llm.base_url`` and ``llm.model`` must be set: the default OpenAI endpoint is never
    benchmarked by accident (it costs money).
    """
    if settings.llm.base_url and settings.llm.model:
        return None
    return (
        "কোনো OpenAI-সামঞ্জস্যপূর্ণ endpoint দেওয়া নেই — no OpenAI-compatible endpoint configured: "
        "set LABOURCREW_LLM__BASE_URL and LABOURCREW_LLM__MODEL (and LABOURCREW_LLM__API_KEY)"
    )


def _summary(b: Any) -> dict[str, Any]:
    """The comparison's numbers of one :class:`~labourcrew.board.bench.BoardBench`."""
    statuses = {k: b.statuses.get(k, 0) for k in RELEASE_STATUSES}
    statuses.update({k: v for k, v in b.statuses.items() if k not in statuses})
    return {
        "backend": b.backend,
        "n": b.n,
        "calls_per_question_mean": b.calls_per_question_mean,
        "calls_per_question_max": b.calls_per_question_max,
        "critical_path_per_question_mean": b.critical_path_per_question_mean,
        "critical_path_per_question_max": b.critical_path_per_question_max,
        "tokens_in_per_question_mean": b.tokens_in_per_question_mean,
        "tokens_out_per_question_mean": b.tokens_out_per_question_mean,
        "p50_s": b.p50_latency_s,
        "p95_s": b.p95_latency_s,
        "llm_calls_total": b.llm_calls_total,
        "tokens_in_total": b.tokens_in_total,
        "tokens_out_total": b.tokens_out_total,
        "statuses": statuses,
        "failed_roles": dict(sorted(b.failed_roles.items())),
        "questions_with_failed_roles": b.questions_with_failed_roles,
    }


def compare_backends(offline: Any, openai: Any) -> dict[str, Any]:
    """The endpoint comparison from two :class:`~labourcrew.board.bench.BoardBench` reports.

    Returns:
        ``{"offline": {...}, "openai": {...}, "ratios": {metric: openai ÷ offline}}``: per backend
        the numbers of :data:`ENDPOINT_METRICS` plus maxima, totals, statuses (every one of
        :data:`RELEASE_STATUSES`, 0 when absent) and failed roles (role -> questions); a ratio is
        NaN when either side is undefined or the offline side is 0 (the offline default spends no
        tokens).
    """
    off, on = _summary(offline), _summary(openai)
    return {"offline": off, "openai": on, "ratios": {m: _ratio(on[m], off[m]) for m in ENDPOINT_METRICS}}


def _with_backend(settings: Settings, backend: str) -> Settings:
    return settings.model_copy(update={"board": settings.board.model_copy(update={"backend": backend})})


def _endpoint_name(url: str) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(url)  # drop any user:password@ before printing
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{parts.hostname or ''}{port}{parts.path}"


def _endpoint_part(
    settings: Settings, res: Any, items: Sequence[DevItem], progress: Callable[[str], None] | None
) -> dict[str, Any]:
    from labourcrew.board.bench import bench_board
    from labourcrew.llm.fakes import OneCallPerRole
    from labourcrew.wiring import make_backend, make_board

    reason = endpoint_skip_reason(settings)
    if reason is not None:
        return {"skipped": reason}
    offline_settings, openai_settings = _with_backend(settings, "offline"), _with_backend(settings, "openai")
    questions = [(it.question_bn, it.statute_version) for it in items]
    port = res.port()
    offline_board = make_board(
        offline_settings, graph=res.graph, retrieval=port, backend=OneCallPerRole(res.offline_backend())
    )
    backend = make_backend(openai_settings, res.graph, chat_model_factory=res.chat_model_factory)
    openai_board = make_board(openai_settings, graph=res.graph, retrieval=port, backend=backend)
    if progress:
        progress(f"endpoint vs offline: {len(items)} questions, offline first")
    offline = bench_board(offline_board, questions)
    if progress:
        progress(f"endpoint vs offline: {len(items)} questions through {backend.name}")
    openai = bench_board(openai_board, questions)
    out = compare_backends(offline, openai)
    out.update(
        n=len(items),
        items=[it.id for it in items],
        endpoint=_endpoint_name(str(settings.llm.base_url)),
        model=settings.llm.model,
        method="the same report-split questions through each backend, one at a time; offline counted "
        "one chat call per language-role call (OneCallPerRole); openai: every chat request sent, "
        "failed and retried ones included",
    )
    return out


def _throughput_part(
    res: Any, items: Sequence[DevItem], workdir: Path, progress: Callable[[str], None] | None
) -> dict[str, Any]:
    from labourcrew.eval.runner import EvalOptions, run_config

    out: dict[str, Any] = {"n": len(items)}
    for workers in (1, 2):
        if progress:
            progress(f"eval throughput: {len(items)} items with {workers} worker(s)")
        opts = EvalOptions(workers=workers, resume=False, runs_dir=workdir / f"w{workers}")
        t0 = time.perf_counter()
        run_config(get_config("full"), items, opts=opts, res=res)
        secs = time.perf_counter() - t0
        out[f"workers_{workers}"] = {
            "seconds": round(secs, 2),
            "items_per_s": len(items) / secs if secs > 0 else math.nan,
        }
    out["speedup_2_vs_1"] = _ratio(out["workers_2"]["items_per_s"], out["workers_1"]["items_per_s"])
    return out


def _labelled_part(settings: Settings) -> dict[str, Any]:
    """Trust AUC and calibrated release on the labelled reporting-split export (module docstring, 6)."""
    from labourcrew.errors import DataError
    from labourcrew.eval.labelled import REPORT_CLAIMS, REPORT_LABELS, load_claims, load_labels_by_key, measure
    from labourcrew.gate.recalibration import claims_system, load_calibration_set
    from labourcrew.gate.system import calibration_for, differences, system_of

    if not (REPORT_CLAIMS.is_file() and REPORT_LABELS.is_file()):
        return {"skipped": f"no {REPORT_CLAIMS} / {REPORT_LABELS}"}
    try:  # the same "which system made these claims" rule as calibration
        made_by = claims_system(load_calibration_set(REPORT_CLAIMS))
        why = ["the claims do not name their system"] if made_by is None else differences(made_by, system_of(settings))[1]
    except DataError as exc:  # claims of several systems
        why = [str(exc)]
    if why:
        return {"stale": True, "skipped": f"{REPORT_CLAIMS.name} was exported from another system ({'; '.join(why)}): "
                "re-export (eval --config full --split report --export-claims) and label its new keys"}
    tau = calibration_for(settings).tau
    out = measure(load_claims(REPORT_CLAIMS), load_labels_by_key(REPORT_LABELS), tau=tau)
    return {"stale": False, "tau": tau if math.isfinite(tau) else "inf", "claims": out["claims"],
            "labelled": out["labelled"], "trust_auc": out["trust_auc"], "calibrated": out["overall"]}


def _targets(result: dict[str, Any]) -> list[dict[str, Any]]:
    rerank = result.get("retrieval", {}).get("configs", {}).get("rerank", {})
    cats = rerank.get("by_category", {})
    labelled = result.get("labelled", {})
    measured = {
        "recall_at_10": rerank.get("overall", {}).get("recall@10"),
        "multi_hop_recall_at_10": cats.get("multi_hop", {}).get("recall@10"),
        "hypothetical_recall_at_10": cats.get("hypothetical", {}).get("recall@10"),
        "trust_auc": labelled.get("trust_auc"),
        "faithful_gold_release": labelled.get("calibrated", {}).get("faithful_gold_release"),
        "offline_board_p50_s": result.get("board", {}).get("offline", {}).get("p50_s"),
        "peak_rss_gb": (result.get("memory", {}).get("peak_rss_total_mb") or math.nan) / 1024,
        "gate_verified_citation_precision": result.get("board", {})
        .get("offline", {})
        .get("quality", {})
        .get("gate_verified_citation_precision"),
        "multi_hop_citation_based_precision": result.get("board", {})
        .get("offline", {})
        .get("quality", {})
        .get("multi_hop_citation_based_precision"),
        "calls_per_question_mean": result.get("llm_calls", {}).get("calls_per_question_mean"),
        "critical_path_per_question_mean": result.get("llm_calls", {}).get("critical_path_per_question_mean"),
    }
    rows = []
    for key, (op, target, label) in TARGETS.items():
        v = measured.get(key)
        ok = None
        if v is not None and math.isfinite(v):
            ok = v <= target if op == "<=" else v >= target
        rows.append({"target": key, "label": label, "op": op, "value": target, "measured": v, "met": ok})
    return rows


def _clean(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def run_bench(
    *,
    settings: Settings | None = None,
    retrieval: bool = True,
    cold: bool = True,
    board_items: int | None = None,
    throughput_items: int = 24,
    llm_items: int | None = None,
    llm_limit: int = 3,
    dataset: Path | None = None,
    limit: int | None = None,
    progress: Callable[[str], None] | None = None,
    resources: Any = None,
) -> dict[str, Any]:
    """Run the benchmark (module docstring).

    Args:
        settings: settings (default :func:`~labourcrew.settings.load_settings`).
        retrieval: run the retrieval part (index build, flat baseline).
        cold: include the cold index build.
        board_items: reporting-split items for the board part (None: all of them).
        throughput_items: items for the 1 vs 2 worker throughput.
        llm_items: reporting-split items for the LLM call count (None: all of them).
        llm_limit: reporting-split questions for the endpoint against the offline default (>= 1;
            run only when an endpoint is configured, see :func:`endpoint_skip_reason`).
        dataset: dev JSONL (default data/eval/dev_v1.jsonl).
        limit: first N questions of the retrieval part.
        resources: shared :class:`~labourcrew.eval.runner.EvalResources` (default: opened here and
            closed at the end; tests inject lexical retrieval and skip the retrieval part).

    Returns:
        A JSON-ready dict: ``retrieval``, ``board`` (``offline``; ``openai``: the endpoint against
        the offline default, see :func:`compare_backends`, or ``{"skipped": reason}``),
        ``llm_calls``, ``memory``, ``throughput``, ``ratios_to_flat``, ``targets``; NaN written as
        None.

    Raises:
        IndexNotBuiltError: no vector index.
        InputError: ``llm_limit`` < 1.
        ConfigError: the endpoint is configured but the ``openai`` backend cannot be built.
    """
    from labourcrew.eval.runner import EvalResources

    if llm_limit < 1:
        raise InputError(f"--llm-limit must be >= 1, got {llm_limit}")
    settings = settings or load_settings()
    dataset = dataset or DEFAULT_DATASET
    report = select_split(load_dataset(dataset), "report")
    own = resources is None
    res = resources or EvalResources(settings)
    result: dict[str, Any] = {"dataset": str(dataset), "machine_note": "2 cores, numbers reported not asserted"}
    t_all = time.perf_counter()
    try:
        with MemorySampler() as mem, tempfile.TemporaryDirectory(prefix="lc-bench-eval-") as tmp:
            workdir = Path(tmp)
            res.port()
            if retrieval:
                if progress:
                    progress("retrieval: index build (cached" + (", cold" if cold else "")
                             + "), flat512 vs the full pipeline (rerank)")
                result["retrieval"] = _retrieval_part(settings, res, dataset, cold, limit, progress)
            board, _ = _board_part(settings, res, _spread(report, board_items), workdir / "board", progress)
            result["board"] = {"offline": board}
            if progress:
                progress(f"LLM call structure: {llm_items or len(report)} questions")
            result["llm_calls"] = _llm_calls_part(settings, res, _spread(report, llm_items))
            result["board"]["openai"] = _endpoint_part(settings, res, _spread(report, llm_limit), progress)
            result["throughput"] = _throughput_part(res, _spread(report, throughput_items), workdir / "tp", progress)
            result["labelled"] = _labelled_part(settings)
        result["memory"] = {
            "peak_rss_self_mb": round(mem.peak_self / 2**20, 1),
            "peak_rss_total_mb": round(mem.peak_total / 2**20, 1),
            "ru_maxrss_self_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "note": "this process holds what the app holds (graph, encoder, Milvus Lite, board); "
            "total adds its child processes, if any",
        }
    finally:
        if own:
            res.close()
    ratios: dict[str, Any] = {}
    if "retrieval" in result:
        flat = result["retrieval"]["configs"]["flat512"]["overall"]
        ratios["retrieval_rerank"] = result["retrieval"]["ratio_to_flat"]
        ratios["board_p50_vs_flat_retrieval_p50"] = _ratio(
            result["board"]["offline"]["p50_s"] * 1000, flat.get("p50_ms")
        )
        ratios["board_p95_vs_flat_retrieval_p95"] = _ratio(
            result["board"]["offline"]["p95_s"] * 1000, flat.get("p95_ms")
        )
    result["ratios_to_flat"] = ratios
    result["targets"] = _targets(result)
    result["seconds"] = round(time.perf_counter() - t_all, 1)
    return _clean(result)


def _f(v: Any, nd: int = 3) -> str:
    if v is None:
        return "n/a"
    if isinstance(v, float):
        return f"{v:.{nd}f}"
    return str(v)


def format_bench(result: dict[str, Any]) -> str:
    """A readable report of :func:`run_bench`'s result."""
    lines = ["LabourCrew benchmark (reported, not asserted)", ""]
    r = result.get("retrieval")
    if r:
        lines.append(f"index build: {r.get('index_build')}")
        for name in ("flat512", "rerank"):
            o = r["configs"][name]["overall"]
            lines.append(
                f"retrieval {name:<11} R@5 {_f(o.get('recall@5'))}  R@10 {_f(o.get('recall@10'))}  "
                f"MRR {_f(o.get('mrr'))}  p50 {_f(o.get('p50_ms'), 1)} ms  p95 {_f(o.get('p95_ms'), 1)} ms"
            )
        lines.append("rerank / flat512: " + ", ".join(f"{k} {_f(v, 2)}" for k, v in r["ratio_to_flat"].items()))
    b = result["board"]["offline"]
    lines += [
        "",
        f"board offline: n={b['n']}  p50 {_f(b['p50_s'])} s  p95 {_f(b['p95_s'])} s  statuses {b['statuses']}",
        f"  gate {b['gate_mode']} (τ {b['tau']}); quality from: {b['quality_decision']}",
        "  quality: " + ", ".join(f"{k.replace('_', ' ')} {_f(v)}" for k, v in b["quality"].items()),
    ]
    c = result["llm_calls"]
    lines.append(
        f"LLM calls/question (n={c['n']}, one call per role): mean {_f(c['calls_per_question_mean'], 2)} "
        f"(max {c['calls_per_question_max']}; goal <= 6); critical path/question mean "
        f"{_f(c['critical_path_per_question_mean'], 2)} (max {c['critical_path_per_question_max']}; goal <= 4), "
        f"per round mean {_f(c['critical_path_per_round_mean'], 2)} max {c['critical_path_per_round_max']}; "
        f"retrieval rounds mean {_f(c['retrieval_rounds_mean'], 3)}"
    )
    lines += ["", format_endpoint(result["board"]["openai"]), ""]
    m = result["memory"]
    lines.append(f"peak RSS: self {m['peak_rss_self_mb']} MB, with children {m['peak_rss_total_mb']} MB")
    t = result["throughput"]
    lines.append(
        f"eval throughput ({t['n']} items): 1 worker {_f(t['workers_1']['items_per_s'], 2)} items/s, "
        f"2 workers {_f(t['workers_2']['items_per_s'], 2)} items/s (x{_f(t['speedup_2_vs_1'], 2)})"
    )
    lab = result.get("labelled", {})
    if "calibrated" in lab:
        cal = lab["calibrated"]
        lines.append(
            f"labelled reporting-split claims ({lab['labelled']}/{lab['claims']}): trust ROC AUC {_f(lab['trust_auc'])}; "
            f"at τ {lab['tau']}: {cal['releasing']} of {cal['questions']} questions release, {cal['unsafe_releasing']} "
            f"with an unfaithful claim; faithful gold release {_f(cal['faithful_gold_release'])}; "
            f"best claim faithful {_f(cal['top_claim_faithful'])}"
        )
    elif lab:
        lines.append(f"labelled claims: {lab.get('skipped')}")
    if result.get("ratios_to_flat"):
        lines.append(f"ratios to the flat baseline: {result['ratios_to_flat']}")
    lines += ["", f"{'target':<48}{'goal':>12}{'measured':>12}  met"]
    for row in result["targets"]:
        lines.append(
            f"{row['label']:<48}{row['op'] + ' ' + str(row['value']):>12}{_f(row['measured']):>12}  "
            f"{'yes' if row['met'] else ('no' if row['met'] is False else 'n/a')}"
        )
    return "\n".join(lines)


def _failed_text(failed: dict[str, int]) -> str:
    return ", ".join(f"{role} {n}" for role, n in failed.items()) or "none"


def format_endpoint(part: dict[str, Any]) -> str:
    """The endpoint comparison (``result["board"]["openai"]`` of :func:`run_bench`, or
    :func:`run_endpoint_bench`'s result) as a table: offline, openai, openai ÷ offline.
    """
    if "skipped" in part:
        return f"board openai: skipped — {part['skipped']}"
    off, on, ratios = part["offline"], part["openai"], part["ratios"]

    def row(label: str, a: Any, b: Any, ratio: str = "") -> str:
        return f"  {label:<38}{a:>12}{b:>12}{ratio:>18}".rstrip()

    def statuses(side: dict[str, Any]) -> str:
        return "/".join(str(side["statuses"].get(k, 0)) for k in RELEASE_STATUSES)

    lines = [
        f"board openai vs offline default: the same {part['n']} report-split question(s) "
        f"({', '.join(part.get('items') or [])})",
        f"  openai: {on['backend']} at {part.get('endpoint')}; offline: counted one chat call per role call",
        row("per question", "offline", "openai", "openai ÷ offline"),
    ]
    lines += [row(label, _f(off[k], 2), _f(on[k], 2), _f(ratios.get(k), 2)) for k, label in ENDPOINT_METRICS.items()]
    lines += [
        row("chat calls / question (max)", off["calls_per_question_max"], on["calls_per_question_max"]),
        row("sequential calls / question (max)", off["critical_path_per_question_max"], on["critical_path_per_question_max"]),
        row("chat calls (total)", off["llm_calls_total"], on["llm_calls_total"]),
        row("tokens in / out (total)", f"{off['tokens_in_total']}/{off['tokens_out_total']}",
            f"{on['tokens_in_total']}/{on['tokens_out_total']}"),
        row(" / ".join(RELEASE_STATUSES), statuses(off), statuses(on)),
        row("questions with a failed role", off["questions_with_failed_roles"], on["questions_with_failed_roles"]),
        f"  failed roles (questions): offline {_failed_text(off['failed_roles'])}; "
        f"openai {_failed_text(on['failed_roles'])}",
    ]
    return "\n".join(lines)


def run_endpoint_bench(
    *,
    settings: Settings | None = None,
    llm_limit: int = 3,
    dataset: Path | None = None,
    progress: Callable[[str], None] | None = None,
    resources: Any = None,
) -> dict[str, Any]:
    """The endpoint against the offline default alone (``python -m labourcrew bench llm``).

    Args:
        settings: settings with ``llm.base_url`` and ``llm.model`` set (default
            :func:`~labourcrew.settings.load_settings`); the ``board.backend`` setting is ignored:
            each side gets its own.
        llm_limit: reporting-split questions, spread over the split (>= 1).
        dataset: dev JSONL (default data/eval/dev_v1.jsonl).
        progress: called with one line per step.
        resources: shared :class:`~labourcrew.eval.runner.EvalResources` (default: opened here and
            closed at the end; tests inject lexical retrieval and a fake chat model).

    Returns:
        :func:`compare_backends`'s dict plus ``n``, ``items`` (dev ids), ``endpoint`` (base URL
        without credentials), ``model``, ``method``, ``dataset`` and ``seconds``; NaN written as
        None.

    Raises:
        ConfigError: no endpoint configured (the message is :func:`endpoint_skip_reason`'s), or
            the ``openai`` backend cannot be built.
        InputError: ``llm_limit`` < 1.
        IndexNotBuiltError: no vector index.
    """
    from labourcrew.errors import ConfigError
    from labourcrew.eval.runner import EvalResources

    if llm_limit < 1:
        raise InputError(f"--llm-limit must be >= 1, got {llm_limit}")
    settings = settings or load_settings()
    reason = endpoint_skip_reason(settings)
    if reason is not None:
        raise ConfigError(reason)
    dataset = dataset or DEFAULT_DATASET
    items = _spread(select_split(load_dataset(dataset), "report"), llm_limit)
    own = resources is None
    res = resources or EvalResources(settings)
    t0 = time.perf_counter()
    try:
        out = _endpoint_part(settings, res, items, progress)
    finally:
        if own:
            res.close()
    out.update(dataset=str(dataset), seconds=round(time.perf_counter() - t0, 1))
    return _clean(out)
