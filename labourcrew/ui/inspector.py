"""Run inspector widgets: pick a run, then its role timeline, Hop Trace, claims side by side and a
"why accepted / why rejected" card per claim (trust components, score vs τ with the α/τ
provenance, verdict, category, direction, Citation Checker, EEP rejections); export as JSON.
"""

from __future__ import annotations

import html
import math
from typing import TYPE_CHECKING

import streamlit as st

from labourcrew.gate.opinion_writer import reading_order
from labourcrew.graph.statute_graph import StatuteGraph
from labourcrew.ledger.gate import CalibrationRecord, GatedClaim
from labourcrew.settings import Settings
from labourcrew.ui.ask import render_passage, status_badge
from labourcrew.ui.frame import chart, html_text, link
from labourcrew.viz.charts import (
    TRUST_FORMULA,
    fmt_tau,
    role_timeline_figure,
    score_vs_tau_figure,
    trust_components_figure,
)
from labourcrew.viz.network import LEGEND_PX, hop_trace_neighbourhood, network_html
from labourcrew.viz.run_view import (
    SIDE_TITLES,
    cited_passages,
    claims_by_side,
    run_marks,
    unique_backends,
)

if TYPE_CHECKING:
    from labourcrew.ledger.run import AskResult

__all__ = ["requested_run", "render_run", "calibration_for"]

_SIDES = tuple(SIDE_TITLES.items())


def requested_run() -> str | None:
    """The run id from the query params (``?run=…``), if any."""
    return st.query_params.get("run")


def calibration_for(settings: Settings | None, tau: float) -> CalibrationRecord | None:
    """The record on disk (current or archived) whose τ equals the run's τ, for provenance."""
    if settings is None:
        return None
    from labourcrew.gate.recalibration import history

    for _, rec in history(settings.gate.calibration_path):
        if rec.tau == tau or (math.isinf(rec.tau) and math.isinf(tau)):
            return rec
    return None


def _claim_label(c: GatedClaim) -> str:
    mark = "✓" if c.accepted else "✗"
    return f"{mark} {c.claim_id} · {c.side.value} · retrieval round {c.retrieval_round} · S={c.trust_score:.3f}"


def _timeline(result: AskResult) -> None:
    calls = [{"role": c.status.role, "stage": c.stage, "status": c.status.status, "attempts": c.status.attempts,
              "latency_ms": c.status.latency_ms, "tokens_in": c.status.tokens_in, "tokens_out": c.status.tokens_out,
              "error": c.status.error} for c in result.role_calls]
    chart(role_timeline_figure(calls), key="ri_timeline")
    rows = [{"role": role, "status": v.get("status"), "calls": v.get("calls"), "retries": v.get("retries"),
             "latency_ms": v.get("latency_ms"), "tokens_in": v.get("tokens_in"), "tokens_out": v.get("tokens_out"),
             "backend": v.get("backend"), "error": v.get("error") or ""} for role, v in result.role_status.items()]
    st.dataframe(rows, hide_index=True)


def _hops(result: AskResult, graph: StatuteGraph) -> None:
    trace = result.hop_trace
    st.dataframe([{"source": h.source, "edge": h.edge.value, "target": h.target, "depth": h.depth} for h in trace]
                 or [{"source": "—", "edge": "—", "target": "কোনো hop হয়নি (no hops)", "depth": 0}], hide_index=True)
    marks = run_marks(result)
    nb = hop_trace_neighbourhood(trace, result.evidence_pack.items, graph=graph)
    # Force-directed even with hops: a top-down layout puts every directly retrieved unit (often 20+)
    # in one row, and fitting that row to the frame shrinks the nodes to unlabelled dots.
    st.iframe(network_html(nb, evidence=marks.evidence, cited=marks.cited, height_px=420), height=420 + LEGEND_PX)
    _requests(result)


def _requests(result: AskResult) -> None:
    """Why retrieval ran again: the requests in order (the Supervisor's evidence gaps, found before
    the audit, and the Trust Auditor's own requests, after it).
    """
    st.markdown(f"**পুনরায় অনুসন্ধান (retrieval re-entries):** {result.rounds - 1} · "
                f"অনুরোধ (requests): {len(result.retrieval_requests)}")
    if not result.retrieval_requests:
        st.caption("কোনো অনুরোধ নেই: প্রথম অনুসন্ধানেই উদ্ধৃত বিধানের শর্তাংশ ও প্রতি-উল্লেখ পাওয়া গেছে "
                   "(no requests: the cited provisions' provisos and cross-references were on the pack).")
        return
    st.dataframe([{"#": k, "seeds": ", ".join(r.seeds) or "—", "edges": ", ".join(r.edge_types),
                   "queries": "; ".join(r.queries) or "—", "hops": r.hops, "reason": r.reason}
                  for k, r in enumerate(result.retrieval_requests, start=1)], hide_index=True)


def _side_by_side(result: AskResult) -> None:
    cols = st.columns(3)
    by_side = claims_by_side(result)
    for col, (side, title) in zip(cols, _SIDES, strict=True):
        with col:
            st.markdown(f"**{title}**")
            for c in by_side.get(side, []):
                cls = "lc-accepted" if c.accepted else "lc-rejected"
                challenge = f" ⟶ challenges <b>{html.escape(c.challenge_to)}</b>" if c.challenge_to else ""
                st.markdown(
                    f"<div class='lc-claim {cls}'><div class='lc-claim-head'>{html.escape(c.claim_id)} · round {c.round}"
                    f" · S={c.trust_score:.3f}{challenge}</div>{html.escape(c.text)}</div>",
                    unsafe_allow_html=True,
                )
            if not by_side.get(side):
                st.caption("কোনো দাবি নেই (no claims)")


def _why(result: AskResult, claim: GatedClaim, graph: StatuteGraph, record: CalibrationRecord | None) -> None:
    title = "কেন প্রকাশিত (why accepted)" if claim.accepted else "কেন প্রকাশিত নয় (why rejected)"
    st.markdown(f"#### {title}: {claim.claim_id}")
    if claim.accepted:
        st.success("প্রকাশিত: সব উদ্ধৃতি যাচাইকৃত এবং স্কোর ≥ τ" if result.gate_mode == "calibrated"
                   else "প্রকাশিত: সব উদ্ধৃতি যাচাইকৃত এবং নিরীক্ষকের রায় SUPPORT")
    else:
        # Not released is an outcome of the gate, not a failure of the page: a warning, not an error.
        st.warning(f"প্রকাশিত নয় (rejected): {claim.rejection_reason}")
    c1, c2 = st.columns(2)
    with c1:
        chart(trust_components_figure(claim.trust_components), key=f"ri_comp_{claim.claim_id}")
        st.caption(f"{TRUST_FORMULA} S = {claim.trust_score:.3f}")
    with c2:
        chart(score_vs_tau_figure(
            claim.trust_score, tau=result.tau, alpha=result.alpha, n=record.n if record else 0, mode=result.gate_mode,
            created=record.created if record else None, labels_sha256=record.labels_sha256 if record else None,
            accepted=claim.accepted), key=f"ri_tau_{claim.claim_id}")
        if record is None:
            st.caption(f"τ = {fmt_tau(result.tau)}, α = {result.alpha:.2f} (from the run; no matching record on disk)")
    finding = result.findings.get(claim.claim_id)
    st.markdown(
        f"- নিরীক্ষকের রায় (auditor verdict): **{claim.verdict.value if claim.verdict else 'not audited (NEI)'}**\n"
        f"- শ্রেণি (category): **{claim.category.value}** · দিক (direction): **{claim.direction.value if claim.direction else '—'}**\n"
        + (f"- নোট (notes): {html.escape(finding.notes)}\n" if finding and finding.notes else "")
        + (f"- checks: {', '.join(f'{k}={v}' for k, v in finding.checks.items())}\n" if finding and finding.checks else "")
    )
    st.markdown("**উদ্ধৃতি যাচাই (Citation Checker)**")
    st.dataframe([{"node": e.node_id, "verified": e.verified, "code": e.code, "span": e.span} for e in claim.evidence],
                 hide_index=True)
    for p in cited_passages(result, graph, claims=[claim]):
        render_passage(p)
        link("pages/2_StatuteGraph.py", f"{p.citation} — গ্রাফে দেখুন (StatuteGraph)",
             {"node": p.node_id, "run": result.run_id, "claim": claim.claim_id})


def render_run(result: AskResult, graph: StatuteGraph, settings: Settings | None) -> None:
    """The whole inspector for one run."""
    st.markdown(f"<p class='lc-question'><b>প্রশ্ন (question):</b> {html_text(result.question)}</p>", unsafe_allow_html=True)
    status_badge(result.status.value, result.status_reason)
    st.caption(f"run `{result.run_id}` · {result.created} · version {result.statute_version} · backends: "
               f"{', '.join(unique_backends(result))} · mode {result.gate_mode}, τ = {fmt_tau(result.tau)}, "
               f"α = {result.alpha:.2f} · rounds {result.rounds} · {result.latency_s:.2f} s · "
               f"settings {result.settings_hash[:12]}")
    st.download_button("রান JSON হিসেবে নামান (export run JSON)", result.to_json(),
                       file_name=f"labourcrew_run_{result.run_id}.json", mime="application/json", key="ri_export")
    tabs = st.tabs(["দাবি ও কারণ (claims)", "ভূমিকার সময়রেখা (roles)", "Hop Trace", "EEP প্রত্যাখ্যান"])
    with tabs[0]:
        _side_by_side(result)
        if result.claims:
            ids = [c.claim_id for c in result.claims]
            labels = {c.claim_id: _claim_label(c) for c in result.claims}
            # Open on the claim the opinion states first (its reading order; released claims first).
            lead = reading_order([c for c in result.claims if c.accepted] or result.claims)[0]
            chosen = st.selectbox("দাবি বেছে নিন (claim)", ids, index=ids.index(lead.claim_id),
                                  format_func=labels.get, key="ri_claim")
            claim = next(c for c in result.claims if c.claim_id == chosen)
            _why(result, claim, graph, calibration_for(settings, result.tau))
    with tabs[1]:
        _timeline(result)
    with tabs[2]:
        _hops(result, graph)
    with tabs[3]:
        if result.rejected_by_eep:
            st.dataframe([{"code": r.code, "reason": r.reason, "side": r.side.value if r.side else "",
                           "attempted": str(r.attempted.get("text", r.attempted))[:200]} for r in result.rejected_by_eep],
                         hide_index=True)
        else:
            st.caption("Evidence Exchange Protocol কোনো দাবি প্রত্যাখ্যান করেনি (no EEP rejections).")
