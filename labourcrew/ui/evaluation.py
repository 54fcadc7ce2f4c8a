"""Evaluation page widgets: find the results file, pick metric/configs, render the charts."""

from __future__ import annotations

import json
import math
from pathlib import Path

import streamlit as st

from labourcrew.errors import DataError
from labourcrew.gate.trust_gate import bilingual
from labourcrew.settings import REPO_ROOT, Settings
from labourcrew.ui.frame import chart
from labourcrew.viz.evaluation import (
    GATE_ONLY_METRICS,
    METRIC_LABELS,
    OVERALL,
    RDI_KEYS,
    EvalResults,
    config_comparison_figure,
    metric_by_category_figure,
    status_share_figure,
)

__all__ = ["EVAL_COMMAND", "RESULTS_DIR", "result_files", "pick_results_file", "read_results", "render_empty", "render_results",
           "stale_note", "rdi_note", "RDI_KEYS", "NO_GATE"]

EVAL_COMMAND = "python -m labourcrew eval --dataset data/eval/dev_v1.jsonl --json"


RESULTS_DIR = REPO_ROOT / "data" / "eval" / "results"
"""Where ``python -m labourcrew eval`` writes its results (``labourcrew.eval.runner.RESULTS_DIR``)."""


def result_files(settings: Settings | None) -> list[Path]:
    """Results files, newest first: ``data/eval/results/*.json`` and ``<runs_dir>/eval/**/*results*.json``."""
    roots: list[tuple[Path, str]] = [(RESULTS_DIR, "*.json")]
    if settings is not None:
        roots.append((settings.runs_dir / "eval", "**/*results*.json"))
    found: dict[Path, float] = {}
    for root, pattern in roots:
        if root.is_dir():
            for p in root.glob(pattern):
                if p.is_file():
                    found[p.resolve()] = p.stat().st_mtime
    return sorted(found, key=lambda p: found[p], reverse=True)


def pick_results_file(files: list[Path]) -> Path:
    """Selectbox over the found results files (newest first)."""
    def name(p: Path) -> str:
        try:
            return str(p.relative_to(REPO_ROOT))
        except ValueError:
            return str(p)

    return st.selectbox("ফলাফলের ফাইল (results file)", files, format_func=name, key="ev_file")


@st.cache_data(max_entries=8, show_spinner=False)
def read_results(path: str, mtime: float) -> object:
    """The JSON value of a results file (cached per path and modification time).

    Raises:
        DataError: unreadable or not JSON.
    """
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DataError(f"cannot read evaluation results {path}: {exc}",
                        help_message=f"Re-run the evaluation: {EVAL_COMMAND}") from exc


def render_empty() -> None:
    """The empty state: no results yet, and the one command that produces them."""
    st.info("এখনো কোনো মূল্যায়নের ফলাফল নেই। (No evaluation results yet.)\n\n"
            "ফলাফল তৈরি করতে রিপোজিটরির মূল ফোল্ডারে এই কমান্ডটি চালান, তারপর পৃষ্ঠাটি আবার খুলুন:", icon=":material/inbox:")
    st.code(EVAL_COMMAND, language="bash")


NO_GATE = "n/a (কোনো গেট নেই · no gate)"
"""Table cell of a gate-only metric (:data:`~labourcrew.viz.evaluation.GATE_ONLY_METRICS`) of a configuration
without a Trust Gate."""


def _fmt(x: float) -> str:
    return "n/a" if math.isnan(x) else f"{x:.3f}"


_INFO_KEYS = ("dataset", "split", "suite", "backend", "gate_mode", "tau", "n_items", "created")


def stale_note(info: dict[str, str], record_created: str | None) -> str | None:
    """A warning when the results predate the current Trust Gate record (ISO times compare as text;
    None when either time is missing or the results are newer).
    """
    made = info.get("created")
    if not made or not record_created or made >= record_created:
        return None
    return (f"এই ফলাফল বর্তমান ক্যালিব্রেশন রেকর্ডের ({record_created[:16]}) আগে তৈরি ({made[:16]}): সংখ্যাগুলো আগের "
            f"ব্যবস্থার হতে পারে — these results predate the current calibration record and may be another system's; "
            f"re-run `python -m labourcrew eval --suite paper --split report`.")


def rdi_note(results: EvalResults, configs: list[str]) -> str:
    """What the Risk Direction Index is computed over (every audited claim with a direction, released or not:
    ``labourcrew.eval.metrics.risk_direction_index``), and which of ``configs`` released nothing overall.
    """
    silent = [r.config for r in results.rows if r.config in configs and r.category == OVERALL and r.released_nothing]
    bn = ("ঝুঁকির দিক সূচক (RDI) গোনা হয় সব নিরীক্ষিত দাবির ওপর, প্রকাশিত হোক বা না হোক: (শর্ত বাদ − শর্ত যোগ) / "
          "দিক-চিহ্নিত দাবি; এটি বলে নিরীক্ষকের পাওয়া ভুলগুলো কোন দিকে ঝোঁকে (+1: সবই শর্ত বাদ দেওয়া), প্রকাশিত "
          "উত্তরের মান নয়")
    en = ("the Risk Direction Index (RDI) is computed over all audited claims with a direction, released or not: "
          "(missing_condition − extra_condition) / directed claims; it says which way the errors the Trust Auditor "
          "found lean (+1: all omissions), not how good the released answers are")
    if silent:
        names = ", ".join(silent)
        bn += f"। এই কনফিগারেশনগুলো কিছুই প্রকাশ করেনি (TGLO ও DEGRADED ভাগ 0), তাই এদের RDI কোনো ফলাফল নয়: {names}"
        en += (f". These configurations released nothing (TGLO and DEGRADED shares 0), so their RDI is not a "
               f"result: {names}")
    return bilingual(bn, en)


def render_results(results: EvalResults, record_created: str | None = None) -> None:
    """Per-category charts, status shares, configuration comparison and the full table (with a
    warning when the results predate the Trust Gate record created at ``record_created``).
    """
    info = [f"{k}: {results.info[k]}" for k in _INFO_KEYS if k in results.info]
    if info:
        st.caption(" · ".join(info))
    note = stale_note(results.info, record_created)
    if note:
        st.warning(note)
    metrics = results.metrics
    c1, c2 = st.columns([1, 2])
    default_metric = next((m for m in ("citation_based_precision", "cbp", "gold_section_recall", "recall_at_k")
                           if m in metrics), metrics[0] if metrics else None)
    metric = c1.selectbox("মেট্রিক (metric)", metrics, index=metrics.index(default_metric) if default_metric else 0,
                          format_func=lambda m: METRIC_LABELS.get(m, m), key="ev_metric")
    groups: list[str | None] = [None, *results.groups]
    group = c2.selectbox("তুলনা (compare)", groups, key="ev_group",
                         format_func=lambda g: "সিস্টেম ও বেসলাইন (system + baselines)" if g is None
                         else f"অ্যাবলেশন (ablation): {g}")
    configs = results.configs_for(group) or results.configs
    if metric:
        chart(metric_by_category_figure(results, metric, configs), key="ev_cat")
        gated_na = any(r.kind == "system" and r.category == OVERALL and math.isnan(r.metrics.get(metric, math.nan))
                       for r in results.rows if r.config in configs)
        if gated_na and str(results.info.get("tau")) in ("inf", "∞") \
                and results.info.get("gate_mode", "calibrated") == "calibrated":
            # Precision of released claims is undefined when the gate released nothing: not a score of 0.
            st.caption("n/a: গেট কিছুই প্রকাশ করেনি (τ = ∞, ব্যর্থ-বন্ধ), তাই প্রকাশিত দাবির মেট্রিক অসংজ্ঞায়িত; বেসলাইনগুলোর "
                       "কোনো গেট নেই, তারা সবকিছু প্রকাশ করে — n/a: the gate released nothing (τ = ∞, fails closed), so "
                       "metrics of released claims are undefined; the baselines have no gate and release everything.")
    c3, c4 = st.columns(2)
    with c3:
        cfg = st.selectbox("অবস্থার ভাগ — কনফিগারেশন (status shares of)", results.configs, key="ev_status_cfg",
                           index=results.configs.index("full") if "full" in results.configs else 0)
        chart(status_share_figure(results, cfg), key="ev_status")
    with c4:
        compare = [m for m in ("citation_based_precision", "gate_verified_citation_precision", "false_accept_rate",
                               "tglo_rate", "risk_direction_index") if m in metrics] or metrics[:3]
        chart(config_comparison_figure(results, compare, configs), key="ev_compare")
    if any(m in RDI_KEYS for m in metrics):
        st.caption(rdi_note(results, configs))
    st.markdown("#### সারণি (table) — n/a = undefined (NaN)")
    table = []
    for r in results.rows:
        if r.config not in configs:
            continue
        row = {"config": r.config, "kind": r.kind, "category": r.category,
               "n": "n/a" if math.isnan(r.n) else f"{r.n:g}"}
        row.update({METRIC_LABELS.get(m, m): _fmt(r.metrics.get(m, math.nan)) for m in metrics})
        for m in GATE_ONLY_METRICS:  # a baseline has no gate: not "1.000", not a plain undefined either
            if m in metrics and not r.has_gate:
                row[METRIC_LABELS.get(m, m)] = NO_GATE
        for m in RDI_KEYS:  # not a result when nothing was released: say so in the cell
            if m in metrics and r.released_nothing and not math.isnan(r.metrics.get(m, math.nan)):
                row[METRIC_LABELS.get(m, m)] += " (কিছুই প্রকাশিত হয়নি · released nothing)"
        table.append(row)
    table.sort(key=lambda r: (r["config"], r["category"] == OVERALL, r["category"]))
    st.dataframe(table, hide_index=True)
