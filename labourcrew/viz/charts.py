"""Plotly figure builders (pure: data in, ``go.Figure`` out; no streamlit, no I/O).

* :func:`trust_components_figure` -- a claim's five trust-score components as bars (paper §3.5);
* :func:`score_vs_tau_figure` -- a claim's trust score against the gate threshold τ with the α/τ
  provenance of the calibration record (paper §3.6);
* :func:`risk_curve_figure` -- empirical risk and the CRC bound along τ, the α line and τ̂
  (paper B.5);
* :func:`role_timeline_figure` -- the board's role calls: latency, status, retries, tokens.

Every figure uses :data:`labourcrew.viz.style.FONT_FAMILY` so Bangla labels render.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import plotly.graph_objects as go

from labourcrew.audit.trust_score import DEFAULT_WEIGHTS
from labourcrew.ledger.records import TrustComponents
from labourcrew.settings import TrustWeights
from labourcrew.viz.style import base_layout

__all__ = [
    "COMPONENT_LABELS",
    "trust_components_figure",
    "score_vs_tau_figure",
    "risk_curve_figure",
    "role_timeline_figure",
    "fmt_tau",
    "TRUST_FORMULA",
]

# Component field -> (Bangla + English label, weight attribute of TrustWeights).
COMPONENT_LABELS: dict[str, tuple[str, str]] = {
    "citation_validity": ("উদ্ধৃতির বৈধতা · citation validity", "w_citation"),
    "span_fidelity": ("উদ্ধৃতির পূর্ণতা · span fidelity", "w_span"),
    "verdict_score": ("নিরীক্ষকের রায় · auditor verdict", "w_verdict"),
    "provenance": ("উৎস · retrieval provenance", "w_provenance"),
    "confidence": ("আস্থা · confidence", "w_confidence"),
    "relevance": ("প্রাসঙ্গিকতা (প্রেক্ষিতে) · relevance in context", "w_relevance"),
}

_STATUS_COLOURS = {"ok": "#1b7f3b", "retried": "#e37400", "failed": "#d93025"}


TRUST_FORMULA = (
    "S = Σ wᵢ·xᵢ / Σ wᵢ — ওজনযুক্ত গড় (a weighted mean: the learned relevance weighs as much as the other five "
    "together); কোনো উদ্ধৃতি যাচাই না হলে S = 0, একটি ব্যর্থ হলে S ≤ 0.2, নিরীক্ষক REFUTE দিলে S ≤ 0.35. "
    "আস্থা (confidence) = দাবিকারীর নিজের আস্থা (the counsel's own confidence in its quote). "
    "প্রাসঙ্গিকতা = উদ্ধৃত বিধানটি প্রশ্নের উত্তর নির্ধারণ করে তার শিখে-নেওয়া সম্ভাবনা, প্রশ্নের অন্য প্রার্থীদের তুলনায় "
    "(P(the cited unit governs the answer), read against the question's other candidates)."
)
"""The trust score in one paragraph, shown under :func:`trust_components_figure` (labourcrew.audit.trust_score)."""


def fmt_tau(tau: float) -> str:
    """τ for people: three decimals, or ``∞`` when the gate fails closed."""
    return "∞" if math.isinf(tau) else f"{tau:.3f}"


def trust_components_figure(
    components: TrustComponents | Mapping[str, float], weights: TrustWeights = DEFAULT_WEIGHTS
) -> go.Figure:
    """Horizontal bars of the trust components in [0,1], labelled with their weights: the five of
    every score and the learned relevance when the model ran (a missing one has no bar, since it has
    no weight in the score either).

    Args:
        components: a :class:`TrustComponents` or a mapping with the same field names.
        weights: the weights used for the score (shown in the labels).

    Returns:
        A figure with one bar per component, x axis fixed to [0, 1].
    """
    values = components.model_dump() if isinstance(components, TrustComponents) else dict(components)
    names, xs, texts = [], [], []
    for field, (label, weight_attr) in COMPONENT_LABELS.items():
        if field == "relevance" and values.get(field) is None:
            continue
        value = float(values.get(field, float("nan")))
        names.append(f"{label} (w={getattr(weights, weight_attr):.2f})")
        xs.append(value)
        texts.append("—" if math.isnan(value) else f"{value:.2f}")
    fig = go.Figure(
        go.Bar(
            x=xs, y=names, orientation="h", text=texts, textposition="auto",
            marker={"color": ["#1a73e8" if not math.isnan(v) and v >= 0.5 else "#e37400" for v in xs]},
            hovertemplate="%{y}: %{x:.3f}<extra></extra>",
        )
    )
    fig.update_layout(**base_layout("ট্রাস্ট স্কোরের উপাদান · trust components", height=240 + 30 * (len(xs) > 5)))
    fig.update_xaxes(range=[0, 1.0], title=None)
    fig.update_yaxes(autorange="reversed", automargin=True)  # long bilingual labels are never cut
    return fig


def score_vs_tau_figure(
    score: float,
    *,
    tau: float,
    alpha: float,
    n: int,
    mode: str = "calibrated",
    created: str | None = None,
    labels_sha256: str | None = None,
    accepted: bool | None = None,
) -> go.Figure:
    """One claim's trust score on [0,1] against the threshold τ, with the calibration provenance.

    Args:
        score: the claim's trust score S in [0,1].
        tau: threshold in force (``inf``: fail closed, drawn as a note instead of a line).
        alpha: target risk of the calibration.
        n: calibration questions behind τ.
        mode: ``calibrated`` or ``categorical`` (τ unused in categorical mode).
        created: when the calibration record was made, if known.
        labels_sha256: hash of the labels behind τ, if known (first 12 characters shown).
        accepted: the gate's decision, to colour the marker (None: by score vs τ).

    Returns:
        A short horizontal figure: score bar, τ line, provenance in the title.
    """
    passed = accepted if accepted is not None else (not math.isinf(tau) and score >= tau)
    colour = "#1b7f3b" if passed else "#d93025"
    fig = go.Figure(
        go.Bar(
            x=[score], y=["S"], orientation="h", marker={"color": colour},
            text=[f"S = {score:.3f}"], textposition="inside", insidetextanchor="end",
            hovertemplate="S = %{x:.3f}<extra></extra>",
        )
    )
    prov = [f"τ = {fmt_tau(tau)}", f"α = {alpha:.2f}", f"n = {n}"]
    if mode != "calibrated":
        prov = ["categorical mode: the auditor's verdict decides, τ unused"]
    if created:
        prov.append(created[:10])
    if labels_sha256:
        prov.append(f"labels {labels_sha256[:12]}")
    if mode == "calibrated" and not math.isinf(tau):
        fig.add_vline(x=tau, line={"color": "#202124", "dash": "dash", "width": 2},
                      annotation_text=f"τ = {fmt_tau(tau)}", annotation_position="top")
    elif mode == "calibrated":
        fig.add_annotation(x=1.0, y=0, xanchor="right", showarrow=False,
                           text="τ = ∞ — ট্রাস্ট গেট বন্ধ (fails closed)", font={"color": "#d93025"})
    fig.update_layout(**base_layout("স্কোর বনাম τ · score vs τ<br><sup>" + " · ".join(prov) + "</sup>", height=190,
                                    showlegend=False, margin={"l": 10, "r": 10, "t": 70, "b": 10}))
    fig.update_xaxes(range=[0, 1.05])
    return fig


def risk_curve_figure(
    curve: Sequence[tuple[float, float, float]],
    *,
    alpha: float,
    tau: float,
    n: int,
    bound: float | None = None,
    raw_curve: Sequence[tuple[float, float, float]] | None = None,
    selective: bool = False,
) -> go.Figure:
    """Empirical risk R̂(τ) and its bound along τ, the α line and the chosen τ̂ (paper B.5).

    Args:
        curve: ``[(τ, R̂(τ), bound(τ)), ...]`` as :func:`labourcrew.gate.crc.risk_curve` returns
            (monotonised risk).
        alpha: target risk (horizontal line).
        tau: the chosen threshold (vertical line; ``inf`` is written in the title instead).
        n: calibration questions.
        bound: the bound at τ̂, for the title.
        raw_curve: optional non-monotonised curve, drawn dotted.
        selective: the curve is LTT's selective risk (wrong answers among released ones) with its
            Clopper–Pearson bound (:func:`labourcrew.gate.ltt.selective_curve`), not CRC's mean loss.

    Returns:
        A line figure; an empty curve gives an empty figure with an explanatory title.
    """
    fig = go.Figure()
    if curve:
        xs = [t for t, _, _ in curve]
        names = (("selective risk k/n (released answers with an unfaithful claim)", "upper bound (Clopper–Pearson, 1 − δ)")
                 if selective else ("R̂(τ) (monotonised)", "n/(n+1)·R̂ + 1/(n+1)"))
        fig.add_trace(go.Scatter(x=xs, y=[r for _, r, _ in curve], mode="lines+markers", name=names[0],
                                 line={"shape": "hv", "color": "#1a73e8"}))
        fig.add_trace(go.Scatter(x=xs, y=[b for _, _, b in curve], mode="lines", name=names[1],
                                 line={"shape": "hv", "color": "#a142f4"}))
    if raw_curve:
        fig.add_trace(go.Scatter(x=[t for t, _, _ in raw_curve], y=[r for _, r, _ in raw_curve], mode="lines",
                                 name="R̂(τ) raw", line={"shape": "hv", "dash": "dot", "color": "#9aa0a6"}))
    fig.add_hline(y=alpha, line={"color": "#d93025", "dash": "dash"}, annotation_text=f"α = {alpha:.2f}",
                  annotation_position="top left")
    if not math.isinf(tau):
        fig.add_vline(x=tau, line={"color": "#1b7f3b", "width": 2}, annotation_text=f"τ̂ = {tau:.3f}",
                      annotation_position="top right")
    title = (f"{'প্রকাশিত উত্তরে ভুলের হার' if selective else 'ঝুঁকি'} বনাম τ · "
             f"{'selective risk' if selective else 'risk'} vs τ — n = {n}, τ̂ = {fmt_tau(tau)}")
    if bound is not None:
        title += f", bound = {bound:.3f}"
    if not curve:
        title += " — কোনো লেবেল নেই (no labelled claims yet)"
    fig.update_layout(**base_layout(title, height=380, legend={"orientation": "h", "y": -0.2}))
    fig.update_xaxes(title="τ (trust score threshold)", range=[0, 1.02])
    fig.update_yaxes(title="risk", range=[0, 1.02])
    return fig


def role_timeline_figure(calls: Sequence[Mapping[str, Any]]) -> go.Figure:
    """The board's role calls in order as horizontal bars of latency, coloured by status.

    Args:
        calls: ``[{"role", "stage", "status", "attempts", "latency_ms", "tokens_in", "tokens_out"}, ...]``
            in call order (e.g. from ``RoleCall`` records).

    Returns:
        A bar figure; the hover shows retries and tokens.
    """
    ys, xs, colours, texts, hovers = [], [], [], [], []
    for i, c in enumerate(calls):
        retries = max(int(c.get("attempts", 1)) - 1, 0)
        ys.append(f"{i + 1:02d} {c.get('role', '?')} [{c.get('stage', '')}]")
        xs.append(float(c.get("latency_ms", 0.0)))
        colours.append(_STATUS_COLOURS.get(str(c.get("status")), "#9aa0a6"))
        texts.append(f"{c.get('status')}" + (f" · {retries} retr." if retries else ""))
        hovers.append(
            f"status {c.get('status')} · attempts {c.get('attempts', 1)} · "
            f"tokens {c.get('tokens_in', 0)}/{c.get('tokens_out', 0)}"
            + (f" · {c.get('error')}" if c.get("error") else "")
        )
    fig = go.Figure(go.Bar(x=xs, y=ys, orientation="h", marker={"color": colours}, text=texts,
                           textposition="auto", customdata=hovers,
                           hovertemplate="%{y}: %{x:.0f} ms<br>%{customdata}<extra></extra>"))
    fig.update_layout(**base_layout("ভূমিকার সময়রেখা · role timeline (ms)", height=max(220, 26 * len(ys) + 80)))
    fig.update_yaxes(autorange="reversed")
    fig.update_xaxes(title="latency (ms)")
    return fig
