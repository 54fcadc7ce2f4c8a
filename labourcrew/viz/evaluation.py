"""Evaluation results -> tidy rows -> plotly figures (Evaluation page; metrics).

:func:`parse_results` accepts the results JSON of ``python -m labourcrew eval ... --json`` in any of
these shapes (the first is the documented one; the others keep the page working while the
harness evolves):

1. ``{"configs": {NAME: {"kind": "system|baseline|ablation", "overall": {METRIC: x},
   "by_category": {CATEGORY: {METRIC: x, "n": N}}}}, ...}``
2. one configuration at top level: ``{"overall": {...}, "by_category": {...}}`` (named ``full``);
3. ``{"rows": [{"config": NAME, "category": CAT|"overall", METRIC: x, ...}, ...]}`` or a bare list
   of such rows.

Values that are not finite numbers (``null``, ``"NaN"``) become NaN -- undefined, never 0.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import plotly.graph_objects as go
from pydantic import BaseModel, ConfigDict, Field

from labourcrew.errors import DataError
from labourcrew.viz.style import STATUS_STYLE, base_layout

__all__ = [
    "EvalRow",
    "EvalResults",
    "METRIC_LABELS",
    "GATE_ONLY_METRICS",
    "STATUS_SHARE_KEYS",
    "parse_results",
    "metric_by_category_figure",
    "status_share_figure",
    "config_comparison_figure",
]

OVERALL = "overall"

# Known metric keys -> label; other numeric keys are shown under their own name.
METRIC_LABELS: dict[str, str] = {
    "gold_section_recall": "gold-section recall (whole Evidence Pack; `bench retrieval` gives recall@10)",
    "recall_at_k": "recall@k",
    "gold_section_hit": "gold-section hit of accepted claims",
    "citation_precision": "citation precision",
    "gate_verified_citation_precision": "Gate-Verified Citation Precision",
    "citation_based_precision": "Citation-Based Precision",
    "cbp": "Citation-Based Precision",
    "tglo_rate": "TGLO share",
    "degraded_rate": "DEGRADED share",
    "undecided_rate": "UNDECIDED share",
    "latency_s": "latency (s)",
    "latency_p50_s": "latency p50 (s)",
    "false_accept_rate": "false-accept rate",
    "risk_direction_index": "Risk Direction Index (all audited claims)",
    "rdi": "Risk Direction Index (all audited claims)",
    "unsupported_claim_rate": "unsupported-claim rate",
    "abstention_correct": "abstention correctness",
    "evidence_coverage": "Evidence Coverage",
    "path_completeness": "Path Completeness",
    "claim_acceptance_rate": "claim acceptance rate",
    "citation_checker_pass_rate": "Citation-Checker pass rate",
}
GATE_ONLY_METRICS: frozenset[str] = frozenset({"gate_verified_citation_precision"})
"""Metrics of what a Trust Gate let through: not applicable to a configuration without a gate. The harness
scores a baseline's every stated claim as released, so its Gate-Verified Citation Precision (1.0 when its
quotes are verbatim) would read as a gate's result; the view shows it as n/a (:meth:`EvalRow.value`)."""
STATUS_SHARE_KEYS: tuple[tuple[str, str], ...] = (
    ("TGLO", "tglo_rate"),
    ("DEGRADED", "degraded_rate"),
    ("UNDECIDED", "undecided_rate"),
)


class EvalRow(BaseModel):
    """Metrics of one configuration on one category (or ``overall``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    config: str = Field(description="Configuration name, e.g. 'full', 'single_pass_rag'.")
    kind: str = Field(default="system", description="system, baseline or ablation.")
    group: str = Field(default="", description="Ablation group (retrieval, chunking, hops, gate, orchestration...).")
    category: str = Field(description="Question category, or 'overall'.")
    n: float = Field(default=math.nan, description="Items behind the row (NaN when not given).")
    metrics: dict[str, float] = Field(description="Metric name -> value; NaN when undefined.")

    @property
    def released_nothing(self) -> bool:
        """True when the row's answers went through a gate that released none of them: TGLO and
        DEGRADED shares both defined and 0 (a baseline has no gate: its shares are NaN, so False).
        """
        shares = [self.metrics.get(key, math.nan) for status, key in STATUS_SHARE_KEYS if status != "UNDECIDED"]
        return not any(math.isnan(x) for x in shares) and sum(shares) == 0

    @property
    def has_gate(self) -> bool:
        """False for a baseline: the harness runs baselines without a Trust Gate
        (``labourcrew.eval.adapter.from_baseline``); every system and ablation configuration has one.
        """
        return self.kind != "baseline"

    def value(self, metric: str) -> float:
        """The metric's value; NaN when undefined, or not applicable (:data:`GATE_ONLY_METRICS` without a gate)."""
        if metric in GATE_ONLY_METRICS and not self.has_gate:
            return math.nan
        return self.metrics.get(metric, math.nan)


class EvalResults(BaseModel):
    """Parsed results: tidy rows plus whatever run information the file carried."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rows: list[EvalRow] = Field(description="One row per (config, category).")
    info: dict[str, str] = Field(default_factory=dict, description="Top-level scalar fields (dataset, created, backend...).")

    @property
    def configs(self) -> list[str]:
        """Configuration names in file order."""
        return list(dict.fromkeys(r.config for r in self.rows))

    @property
    def categories(self) -> list[str]:
        """Categories in file order, without ``overall``."""
        return list(dict.fromkeys(r.category for r in self.rows if r.category != OVERALL))

    @property
    def groups(self) -> list[str]:
        """Ablation groups in file order (empty names left out)."""
        return list(dict.fromkeys(r.group for r in self.rows if r.group))

    def configs_for(self, group: str | None) -> list[str]:
        """The system and baseline configurations (``group`` None), or the system plus one group."""
        kinds = {r.config: r.kind for r in self.rows}
        system = [c for c in self.configs if kinds[c] == "system"]
        if group is None:
            return system + [c for c in self.configs if kinds[c] == "baseline"]
        members = list(dict.fromkeys(r.config for r in self.rows if r.group == group))
        return system + [c for c in members if c not in system]

    @property
    def metrics(self) -> list[str]:
        """Metric names present in any row, known ones first."""
        names = list(dict.fromkeys(m for r in self.rows for m in r.metrics))
        known = [m for m in METRIC_LABELS if m in names]
        return known + [m for m in names if m not in METRIC_LABELS]


def _num(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    if value is None or (isinstance(value, str) and value.strip().lower() in {"nan", "null", ""}):
        return math.nan
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def _metrics(block: Mapping[str, Any]) -> tuple[dict[str, float], float]:
    out: dict[str, float] = {}
    n = math.nan
    for key, value in block.items():
        x = _num(value)
        if x is None:
            continue
        if key in ("n", "N", "count", "n_items"):
            n = x
        else:
            out[key] = x
    return out, n


def _rows_of_config(name: str, block: Mapping[str, Any]) -> list[EvalRow]:
    kind = str(block.get("kind", "system"))
    group = str(block.get("group") or "")
    rows = []
    if isinstance(block.get(OVERALL), Mapping):
        m, n = _metrics(block[OVERALL])
        rows.append(EvalRow(config=name, kind=kind, group=group, category=OVERALL, n=n, metrics=m))
    cats = block.get("by_category") or block.get("categories") or {}
    if isinstance(cats, Mapping):
        for cat, cb in cats.items():
            if isinstance(cb, Mapping):
                m, n = _metrics(cb)
                rows.append(EvalRow(config=name, kind=kind, group=group, category=str(cat), n=n, metrics=m))
    return rows


def parse_results(data: Any) -> EvalResults:
    """Turn a results JSON value into :class:`EvalResults` (shapes in the module docstring).

    Raises:
        DataError: the value matches none of the shapes, or holds no row.
    """
    rows: list[EvalRow] = []
    info: dict[str, str] = {}
    if isinstance(data, Mapping):
        info = {k: str(v) for k, v in data.items() if isinstance(v, (str, int, float)) and not isinstance(v, bool)}
        if isinstance(data.get("configs"), Mapping):
            for name, block in data["configs"].items():
                if isinstance(block, Mapping):
                    rows.extend(_rows_of_config(str(name), block))
        elif OVERALL in data or "by_category" in data:
            rows.extend(_rows_of_config(str(data.get("config", "full")), data))
        elif isinstance(data.get("rows"), list):
            data = data["rows"]
    if isinstance(data, list):
        for r in data:
            if not isinstance(r, Mapping):
                continue
            rest = {k: v for k, v in r.items() if k not in ("config", "kind", "group", "category")}
            m, n = _metrics(rest)
            rows.append(EvalRow(config=str(r.get("config", "full")), kind=str(r.get("kind", "system")),
                                group=str(r.get("group") or ""), category=str(r.get("category", OVERALL)), n=n,
                                metrics=m))
    if not rows:
        raise DataError(
            "the evaluation results file holds no metrics",
            help_message="Re-run: python -m labourcrew eval --dataset data/eval/dev_v1.jsonl --json",
        )
    return EvalResults(rows=rows, info=info)


def _label(metric: str) -> str:
    return METRIC_LABELS.get(metric, metric)


def metric_by_category_figure(results: EvalResults, metric: str, configs: Sequence[str] | None = None) -> go.Figure:
    """Grouped bars: one metric per category (and overall), one bar per configuration.

    NaN (undefined) values are left out of the bars and listed as ``n/a`` in the hover text.
    """
    configs = list(configs or results.configs)
    cats = [*results.categories, OVERALL]
    fig = go.Figure()
    for cfg in configs:
        by_cat = {r.category: r for r in results.rows if r.config == cfg}
        ys, texts = [], []
        for c in cats:
            v = by_cat[c].value(metric) if c in by_cat else math.nan
            ys.append(None if math.isnan(v) else v)
            texts.append("n/a" if math.isnan(v) else f"{v:.3g}")
        fig.add_trace(go.Bar(name=cfg, x=cats, y=ys, text=texts, textposition="outside",
                             hovertemplate="%{x}: %{text}<extra>" + cfg + "</extra>"))
    fig.update_layout(**base_layout(f"{_label(metric)} · বিভাগ অনুযায়ী (per category)", barmode="group",
                                    height=380, legend={"orientation": "h", "y": -0.25}))
    return fig


def status_share_figure(results: EvalResults, config: str) -> go.Figure:
    """Stacked bars of the TGLO / DEGRADED / UNDECIDED shares per category for one configuration."""
    cats = [*results.categories, OVERALL]
    by_cat = {r.category: r for r in results.rows if r.config == config}
    fig = go.Figure()
    for status, key in STATUS_SHARE_KEYS:
        ys = []
        for c in cats:
            v = by_cat[c].metrics.get(key, math.nan) if c in by_cat else math.nan
            ys.append(None if math.isnan(v) else v)
        fig.add_trace(go.Bar(name=f"{status} · {STATUS_STYLE[status]['headline']}", x=cats, y=ys,
                             marker={"color": STATUS_STYLE[status]["colour"]}))
    fig.update_layout(**base_layout(f"মুক্তির অবস্থা · release status shares — {config}", barmode="stack",
                                    height=360, legend={"orientation": "h", "y": -0.25}))
    fig.update_yaxes(range=[0, 1])
    return fig


RDI_KEYS = ("risk_direction_index", "rdi")
"""Names of the Risk Direction Index in results files: computed over every audited claim, released or not."""


def config_comparison_figure(results: EvalResults, metrics: Sequence[str],
                             configs: Sequence[str] | None = None) -> go.Figure:
    """Overall value of several metrics side by side per configuration (baselines, ablations). A
    configuration that released nothing gets no Risk Direction Index bar: it is not a result there (a demo
    audience saw 'full' with one bar, RDI 1.0, and nothing else).
    """
    fig = go.Figure()
    overall = {r.config: r for r in results.rows if r.category == OVERALL}
    for metric in metrics:
        xs, ys = [], []
        for cfg in configs or results.configs:
            v = overall[cfg].value(metric) if cfg in overall else math.nan
            if metric in RDI_KEYS and cfg in overall and overall[cfg].released_nothing:
                v = math.nan
            xs.append(cfg)
            ys.append(None if math.isnan(v) else v)
        fig.add_trace(go.Bar(name=_label(metric), x=xs, y=ys))
    fig.update_layout(**base_layout("কনফিগারেশন তুলনা · baselines and ablations (overall)", barmode="group",
                                    height=380, legend={"orientation": "h", "y": -0.3}))
    return fig
