"""Calibration page widgets: the record in force, the risk-vs-τ curve from the labels with the α
line and the chosen τ, before/after release status of saved runs, recompute-and-save, history,
and the empirical validation (``validation.json``) when present."""

from __future__ import annotations

import math
from pathlib import Path

import streamlit as st

from labourcrew.gate.crc import risk_curve
from labourcrew.gate.recalibration import (
    Proposal,
    StatusChange,
    history,
    load_validation,
    save_new_record,
    status_changes,
)
from labourcrew.graph.statute_graph import StatuteGraph
from labourcrew.ledger.gate import CalibrationRecord
from labourcrew.settings import REPO_ROOT, Settings
from labourcrew.ui.frame import chart
from labourcrew.viz.charts import fmt_tau, risk_curve_figure

__all__ = ["read_alpha", "render_record", "render_proposal", "changes", "render_changes", "render_save",
           "render_history", "render_validation"]


def _rel(p: Path) -> str:
    try:
        return str(Path(p).resolve().relative_to(REPO_ROOT))
    except ValueError:
        return str(p)


def read_alpha(settings: Settings) -> float:
    """Target risk α (default: the settings' α)."""
    return float(st.slider("লক্ষ্য ঝুঁকি α (target risk)", 0.01, 0.5, float(settings.gate.alpha), 0.01, key="cal_alpha"))


def render_record(record: CalibrationRecord, path: Path, title: str) -> None:
    """τ, α, n, R̂, bound, label hash and date of a record."""
    st.markdown(f"#### {title}")
    c = st.columns(5)
    c[0].metric("τ", fmt_tau(record.tau))
    c[1].metric("α", f"{record.alpha:.2f}")
    c[2].metric("n (প্রশ্ন)", record.n)
    c[3].metric("R̂(τ)", f"{record.empirical_risk:.3f}")
    c[4].metric("bound", f"{record.bound:.3f}")
    if Path(path).is_file():
        st.caption(f"labels sha256 `{record.labels_sha256[:16] or '—'}` · created {record.created} · {_rel(path)}")
    else:
        st.caption(f"কোনো রেকর্ড ফাইল নেই (no record file at {_rel(path)})")
    if record.fail_closed:
        st.warning(f"ট্রাস্ট গেট বন্ধ (fails closed, τ = ∞): {record.note or 'no threshold qualifies'} — কোনো দাবি প্রকাশিত হবে না।")


def render_proposal(proposal: Proposal, alpha: float, labels_count: int) -> None:
    """The risk curve from the current labels, the proposed τ̂ and what went into it."""
    data, rec = proposal.data, proposal.record
    curve = risk_curve(data.questions) if data.questions else []
    raw = risk_curve(data.questions, monotone=False) if data.questions else []
    chart(risk_curve_figure(curve, alpha=alpha, tau=rec.tau, n=rec.n, bound=rec.bound, raw_curve=raw),
                    key="cal_curve")
    st.caption(f"লেবেল {labels_count}টি · ব্যবহৃত দাবি {data.n_claims} · প্রশ্ন (রান) {len(data.questions)} · "
               f"শুধু 'unsure' {data.n_unsure} · রান খুঁজে পাওয়া যায়নি {data.n_orphan} · "
               f"proposed τ̂ = {fmt_tau(rec.tau)}, bound = {rec.bound:.3f} · labels `{rec.labels_sha256[:16]}`")
    if rec.fail_closed:
        need = math.ceil(1 / alpha - 1 - 1e-9)
        st.info(f"α = {alpha:.2f}-এ কোনো τ যোগ্য নয় ({rec.note})। অন্তত {need}টি লেবেলকৃত প্রশ্ন (রান) দরকার, এবং "
                f"সেগুলোর উচ্চ-স্কোরের দাবিগুলো বিশ্বস্ত হতে হবে (B/(n+1) ≤ α needs n ≥ {need}).")


@st.cache_data(max_entries=16, show_spinner="সংরক্ষিত রানগুলো নতুন τ-তে যাচাই হচ্ছে … (re-gating saved runs)")
def _changes(files: tuple[tuple[str, float], ...], before: str, after: str, graph_key: str,
             _results: list, _graph: StatuteGraph) -> list[StatusChange]:
    return status_changes(_results, CalibrationRecord.model_validate_json(before),
                          CalibrationRecord.model_validate_json(after), _graph)


def changes(files: tuple[tuple[str, float], ...], results: list, before: CalibrationRecord,
            after: CalibrationRecord, graph: StatuteGraph) -> list[StatusChange]:
    """:func:`~labourcrew.gate.recalibration.status_changes`, cached per (run files, records, graph):
    re-gating costs about 10 ms per run and record, so it is not repeated on every rerun."""
    def key(r: CalibrationRecord) -> str:  # the creation time does not change a decision
        return r.model_copy(update={"created": ""}).model_dump_json()

    return _changes(files, key(before), key(after), graph.key, results, graph)


def render_changes(changes: list[StatusChange]) -> None:
    """Before/after release status of every saved run."""
    st.markdown("#### আগে / পরে (before / after): সংরক্ষিত রানের অবস্থা")
    if not changes:
        st.caption("কোনো সংরক্ষিত রান নেই (no saved runs).")
        return
    changed = [c for c in changes if c.changed]
    st.caption(f"{len(changed)} of {len(changes)} saved runs would change (status or number of released claims).")
    rows = [{"run": c.run_id, "question": c.question[:80], "saved": c.saved_status, "before": c.before,
             "after": c.after, "released before": c.released_before, "released after": c.released_after,
             "changes": "changes" if c.changed else ""} for c in sorted(changes, key=lambda c: not c.changed)]
    st.dataframe(rows, hide_index=True)


def render_save(proposal: Proposal, current_path: Path) -> bool:
    """The recompute button; writes a new record and keeps the old one. Returns True when saved."""
    blocked = proposal.record.fail_closed
    if st.button("τ পুনর্গণনা করে নতুন রেকর্ড সংরক্ষণ করুন (recompute τ, save a new record)", type="primary",
                 key="cal_save", disabled=blocked,
                 help="τ = ∞ হলে সংরক্ষণ বন্ধ: তাতে কোনো দাবি প্রকাশিত হবে না (a fail-closed record is not saved)."
                 if blocked else "নতুন রেকর্ড লেখা হয়; আগেরটি সময়-চিহ্নিত ফাইলে থেকে যায়।"):
        stamped, archived = save_new_record(proposal.record, current_path)
        msg = f"নতুন রেকর্ড সংরক্ষিত: {_rel(stamped)} (current: {_rel(current_path)})"
        if archived:
            msg += f" · আগের রেকর্ড রাখা হয়েছে: {_rel(archived)}"
        st.session_state["cal_saved"] = msg
        st.rerun()
    msg = st.session_state.pop("cal_saved", None)
    if msg:
        st.success(msg)
        return True
    return False


def render_history(current_path: Path) -> None:
    """Every calibration record on disk, newest first."""
    records = history(current_path)
    st.markdown("#### রেকর্ডের ইতিহাস (record history)")
    if not records:
        st.caption("কোনো রেকর্ড নেই — ট্রাস্ট গেট বন্ধ থাকে (no record: the gate fails closed).")
        return
    st.dataframe([{"file": _rel(p), "τ": fmt_tau(r.tau), "α": r.alpha, "n": r.n, "R̂": round(r.empirical_risk, 4),
                   "bound": round(r.bound, 4), "labels": r.labels_sha256[:12], "created": r.created}
                  for p, r in records], hide_index=True)


def render_validation(path: Path) -> None:
    """``validation.json`` (issue 6) when present."""
    data = load_validation(path)
    st.markdown("#### অভিজ্ঞতামূলক যাচাই (empirical validation)")
    if data is None:
        st.caption(f"{_rel(path)} এখনো নেই (not produced yet).")
        return
    c = st.columns(3)
    c[0].metric("splits", data.get("splits", "—"))
    far_c, far_k = data.get("mean_far_calibrated"), data.get("mean_far_categorical")
    c[1].metric("FAR calibrated (mean ± sd)",
                f"{far_c:.3f} ± {data.get('sd_far_calibrated') or 0:.3f}" if isinstance(far_c, (int, float)) else "—")
    c[2].metric("FAR categorical (mean ± sd)",
                f"{far_k:.3f} ± {data.get('sd_far_categorical') or 0:.3f}" if isinstance(far_k, (int, float)) else "—")
    st.json(data, expanded=False)
