"""Calibration page widgets: the record in force beside the settings' α and its guarantee in words,
the risk-vs-τ curve, before/after release status of saved runs, recompute-and-save (a record at
another α than the settings' needs an explicit confirmation: it would switch the gate off), the
history with rollback to any earlier record, and the split validation (``validation.json``).
"""

from __future__ import annotations

import math
from pathlib import Path

import streamlit as st

from labourcrew.gate.crc import (
    HELD_OUT_SHARE,
    POPULATION_SHARE,
    REFUTE_Z,
    excess_z,
    load_validation,
    risk_curve,
    validation_share,
)
from labourcrew.gate.guarantee import guarantee_text
from labourcrew.gate.ltt import evidence_need_text, evidence_needed, selective_curve
from labourcrew.gate.recalibration import (
    Proposal,
    StatusChange,
    history,
    restore_record,
    save_new_record,
    status_changes,
)
from labourcrew.gate.trust_gate import bilingual
from labourcrew.graph.statute_graph import StatuteGraph
from labourcrew.ledger.gate import CalibrationRecord
from labourcrew.retrieval.thesaurus import Thesaurus, load_thesaurus
from labourcrew.settings import REPO_ROOT, Settings
from labourcrew.ui.frame import chart
from labourcrew.viz.charts import fmt_tau, risk_curve_figure

__all__ = ["read_alpha", "read_method", "render_record", "render_proposal", "changes", "render_changes",
           "render_save", "render_history", "render_validation", "render_guarantee", "exceedance_notes"]


def _rel(p: Path) -> str:
    try:
        return str(Path(p).resolve().relative_to(REPO_ROOT))
    except ValueError:
        return str(p)


def read_alpha(settings: Settings) -> float:
    """Target risk α (default: the settings' α)."""
    return float(st.slider("লক্ষ্য ঝুঁকি α (target risk)", 0.01, 0.5, float(settings.gate.alpha), 0.01, key="cal_alpha"))


def read_method(settings: Settings) -> tuple[str, float]:
    """Calibration method (default the settings') and δ (LTT)."""
    c1, c2 = st.columns(2)
    methods = ["ltt", "crc"]
    method = c1.selectbox("পদ্ধতি (method)", methods, index=methods.index(settings.gate.method), key="cal_method",
                          format_func={"ltt": "LTT — selective risk (প্রকাশিত উত্তরের মধ্যে ভুলের হার)",
                                       "crc": "CRC — mean loss over questions"}.get)
    delta = float(c2.slider("δ (LTT)", 0.01, 0.5, float(settings.gate.delta), 0.01, key="cal_delta",
                            disabled=method != "ltt"))
    return str(method), delta


def _opt(x: float | None, fmt: str = "{:.3f}") -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else fmt.format(x)


def render_record(record: CalibrationRecord, path: Path, title: str, settings: Settings | None = None) -> None:
    """The record in force: τ (3 decimals), α beside the settings' α, δ, n, release rate, selective risk, p."""
    st.markdown(f"#### {title}")
    c = st.columns(4)
    c[0].metric("τ", fmt_tau(record.tau))
    c[1].metric("α (রেকর্ড · record)", f"{record.alpha:.2f}")
    if settings is not None:
        c[2].metric("α (সেটিংস · settings)", f"{settings.gate.alpha:.2f}",
                    delta=None if math.isclose(settings.gate.alpha, record.alpha) else "≠ record", delta_color="inverse")
    c[3].metric("পদ্ধতি (method)", record.method.upper())
    d = st.columns(5)
    d[0].metric("δ", _opt(record.delta, "{:.2f}"))
    d[1].metric("n (প্রশ্ন)", record.n)
    d[2].metric("প্রকাশের হার (release rate)", _opt(record.release_rate))
    d[3].metric("selective risk", _opt(record.selective_risk))
    d[4].metric("p-value", _opt(record.p_value))
    sysinfo = (f" · system {record.system.backend}/{record.system.model or 'extractive'}, scoring "
               f"`{record.system.scoring_sha256[:8]}`, relevance `{(record.system.relevance_model_sha256 or 'none')[:8]}`"
               if record.system else " · system: not recorded")
    if Path(path).is_file():
        st.caption(f"labels sha256 `{record.labels_sha256[:16] or '—'}` · created {record.created} · {_rel(path)}{sysinfo}")
    else:
        st.caption(f"কোনো রেকর্ড ফাইল নেই (no record file at {_rel(path)})")
    if record.fail_closed:
        st.warning(f"ট্রাস্ট গেট বন্ধ (fails closed, τ = ∞): {record.note or 'no threshold qualifies'} — কোনো দাবি প্রকাশিত হবে না।")


def render_guarantee(record: CalibrationRecord) -> None:
    """What the record in force guarantees, in Bangla and English (:func:`guarantee_text`)."""
    bn, en = guarantee_text(record)
    st.markdown(f"<div class='lc-guarantee'><b>নিশ্চয়তা (guarantee):</b> {bn}<br><span lang='en'>{en}</span></div>",
                unsafe_allow_html=True)


def render_proposal(proposal: Proposal, alpha: float, labels_count: int) -> None:
    """The risk curve from the current labels, the proposed τ̂ and what went into it."""
    data, rec = proposal.data, proposal.record
    if rec.method == "ltt":  # plot what LTT tests: the wrong-answer rate among released answers
        curve = selective_curve(data.questions, rec.delta or 0.10) if data.questions else []
        fig = risk_curve_figure(curve, alpha=alpha, tau=rec.tau, n=rec.n, bound=None, selective=True)
    else:
        curve = risk_curve(data.questions) if data.questions else []
        raw = risk_curve(data.questions, monotone=False) if data.questions else []
        fig = risk_curve_figure(curve, alpha=alpha, tau=rec.tau, n=rec.n, bound=rec.bound, raw_curve=raw)
    chart(fig, key="cal_curve")
    n, own = len(data.questions), proposal.n_own_runs
    st.caption(bilingual(
        f"প্রস্তাবিত τ̂-এর প্রশ্ন n = {n}: কমিট করা ক্যালিব্রেশন সেট থেকে {proposal.n_from_set}টি, আপনার নিজের লেবেল "
        f"করা রান থেকে {own}টি",
        f"the proposed τ̂ uses n = {n} questions: {proposal.n_from_set} from the committed calibration set, {own} "
        f"from your own labelled runs"))
    st.caption(f"লেবেল {labels_count}টি · ব্যবহৃত দাবি {data.n_claims} · প্রশ্ন (রান) {len(data.questions)} · "
               f"শুধু 'unsure' {data.n_unsure} · এই ব্যবস্থা আর যে দাবি করে না তার লেবেল {data.n_orphan} (labels of claims "
               f"neither the calibration set nor a saved run holds: earlier systems' claims, kept, not used) · "
               f"{rec.method.upper()} proposed τ̂ = {fmt_tau(rec.tau)}, release rate {_opt(rec.release_rate)}, "
               f"selective risk {_opt(rec.selective_risk)}, p = {_opt(rec.p_value)} · labels `{rec.labels_sha256[:16]}`")
    if rec.fail_closed:
        st.info(f"α = {alpha:.2f}-এ কোনো τ যোগ্য নয়: {rec.note}")
        if rec.method == "ltt" and data.questions:
            # Lack of evidence or a risk above α? The extrapolation tells them apart (ltt.evidence_needed).
            need = evidence_needed(data.questions, rec.alpha, rec.delta or 0.10)
            st.caption("আরও লেবেলে কি গেট খুলবে? (would more labels open the gate?) "
                       + bilingual(*evidence_need_text(need, rec.alpha)))


@st.cache_data(max_entries=16, show_spinner="সংরক্ষিত রানগুলো নতুন τ-তে যাচাই হচ্ছে … (re-gating saved runs)")
def _changes(files: tuple[tuple[str, float], ...], before: str, after: str, graph_key: str, thesaurus_sha256: str,
             _results: list, _graph: StatuteGraph, _thesaurus: Thesaurus) -> list[StatusChange]:
    return status_changes(_results, CalibrationRecord.model_validate_json(before),
                          CalibrationRecord.model_validate_json(after), _graph, thesaurus=_thesaurus)


def changes(files: tuple[tuple[str, float], ...], results: list, before: CalibrationRecord,
            after: CalibrationRecord, graph: StatuteGraph, settings: Settings) -> list[StatusChange]:
    """:func:`~labourcrew.gate.recalibration.status_changes`, cached per (run files, records, graph, thesaurus):
    re-gating costs about 10 ms per run and record, so it is not repeated on every rerun. The gate reads
    the questions with the settings' thesaurus (``relevance.thesaurus_path``), as the board does.
    """
    def key(r: CalibrationRecord) -> str:  # the creation time does not change a decision
        return r.model_copy(update={"created": ""}).model_dump_json()

    thesaurus = load_thesaurus(settings.relevance.thesaurus_path)
    return _changes(files, key(before), key(after), graph.key, thesaurus.sha256, results, graph, thesaurus)


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


def render_save(proposal: Proposal, current_path: Path, settings: Settings) -> bool:
    """The recompute button; writes a new record and keeps the old one. Returns True when saved.

    A record at another α than the settings' would make every answer UNDECIDED (the gate loads a
    record only at the settings' α): saving it needs the confirmation checkbox.
    """
    rec = proposal.record
    blocked = rec.fail_closed
    confirmed = True
    if not math.isclose(rec.alpha, settings.gate.alpha, abs_tol=1e-9):
        st.warning(f"এই রেকর্ডের α = {rec.alpha:.2f}, কিন্তু সেটিংসে α = {settings.gate.alpha:.2f}। সংরক্ষণ করলে ট্রাস্ট "
                   "গেট বন্ধ হয়ে যাবে: প্রতিটি উত্তর UNDECIDED হবে, যতক্ষণ না LABOURCREW_GATE__ALPHA বদলান বা আগের রেকর্ড "
                   f"ফিরিয়ে আনেন। (Saving a record at α = {rec.alpha:.2f} while the settings ask α = "
                   f"{settings.gate.alpha:.2f} switches the gate off: every answer becomes UNDECIDED until the settings' "
                   "α changes or an earlier record is restored.)")
        confirmed = st.checkbox("আমি বুঝেছি, তবুও সংরক্ষণ করুন (I understand; save anyway)", key="cal_confirm")
    if st.button("τ পুনর্গণনা করে নতুন রেকর্ড সংরক্ষণ করুন (recompute τ, save a new record)", type="primary",
                 key="cal_save", disabled=blocked or not confirmed,
                 help="τ = ∞ হলে সংরক্ষণ বন্ধ: তাতে কোনো দাবি প্রকাশিত হবে না (a fail-closed record is not saved)."
                 if blocked else "নতুন রেকর্ড লেখা হয়; আগেরটি সময়-চিহ্নিত ফাইলে থেকে যায়।"):
        stamped, archived = save_new_record(rec, current_path)
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


def render_history(current_path: Path, settings: Settings | None = None) -> None:
    """Every calibration record on disk, newest first, and the rollback to any earlier one."""
    records = history(current_path)
    st.markdown("#### রেকর্ডের ইতিহাস ও ফিরিয়ে আনা (record history, rollback)")
    if not records:
        st.caption("কোনো রেকর্ড নেই — ট্রাস্ট গেট বন্ধ থাকে (no record: the gate fails closed).")
        return
    st.dataframe([{"file": _rel(p), "method": r.method, "τ": fmt_tau(r.tau), "α": f"{r.alpha:.2f}",
                   "δ": _opt(r.delta, "{:.2f}"), "n": str(r.n), "release rate": _opt(r.release_rate),
                   "labels": r.labels_sha256[:12], "created": r.created}
                  for p, r in records], hide_index=True, key="cal_history")
    earlier = [(p, r) for p, r in records if Path(p) != Path(current_path)]
    if not earlier:
        return
    names = [_rel(p) for p, _ in earlier]
    choice = st.selectbox("আগের রেকর্ড ফিরিয়ে আনুন (restore an earlier record)", names, key="cal_restore_pick")
    path, rec = earlier[names.index(choice)]
    if settings is not None and not math.isclose(rec.alpha, settings.gate.alpha, abs_tol=1e-9):
        st.caption(f"সতর্কতা: এই রেকর্ডের α = {rec.alpha:.2f} ≠ সেটিংসের α = {settings.gate.alpha:.2f} — ফিরিয়ে আনলে "
                   "গেট বন্ধ থাকবে (the gate would fail closed).")
    if st.button("ফিরিয়ে আনুন (restore)", key="cal_restore"):
        archived = restore_record(path, current_path)
        st.session_state["cal_restored"] = f"ফিরিয়ে আনা হয়েছে: {_rel(path)} → {_rel(current_path)}" + (
            f" · আগেরটি রাখা হয়েছে: {_rel(archived)}" if archived else "")
        st.rerun()
    msg = st.session_state.pop("cal_restored", None)
    if msg:
        st.success(msg)


def _validation_note(ltt: dict, splits: object, delta: object) -> str:
    """How to read LTT's row: which share checks the promise, and why the held-out one runs high."""
    closed, releasing = ltt.get("fail_closed_splits"), ltt.get("splits_releasing")
    held = ltt.get(HELD_OUT_SHARE)
    pop = ltt.get(POPULATION_SHARE)
    above = round(held * splits) if isinstance(held, float) and isinstance(splits, int) else None
    text = ("প্রতিটি ভাগে অর্ধেক প্রশ্নে τ বাছাই হয়। LTT-র প্রতিশ্রুতি যাচাই হয় সেই τ সব লেবেলযুক্ত প্রশ্নে প্রয়োগ করে "
            "(যে অর্ধেকে τ বাছাই হয়েছে সেটিসহ; এরা-ই এখানে “জনসংখ্যা”): α-র ওপরে থাকা ভাগের হার ≤ δ হওয়ার কথা; যে ভাগে কিছুই প্রকাশ হয় না (fail-closed), "
            "সেটি “α-র ওপরে নয়” হিসেবে গোনা হয়। বাকি অর্ধেকের হার বেশি দেখায়, কারণ দুই "
            "অর্ধেক পরিপূরক: ভাগ্যবান অর্ধেক পাস করলে পুলের ভুলগুলো অন্য অর্ধেকে পড়ে। "
            f"(Each split picks τ on half the questions. LTT's promise is checked by applying that τ to all labelled "
            f"questions, the half it was picked on included -- they are the population here, as the real population "
            f"includes the calibration questions: the share of splits above α should be ≤ δ = {delta}, up to sampling "
            f"error; a split that releases nothing counts as not above α. The held-out half runs high because the "
            f"halves are complementary: a lucky half that passes "
            f"leaves the pool's errors to the other half. Here LTT fails closed in {closed} of {splits} splits; of "
            f"the {releasing} that release, {above} are above α on the held-out half")
    if isinstance(pop, (int, float)):
        text += f"; on all labelled questions the share of splits above α is {pop:.3f}"
        boot = ltt.get("bootstrap") or {}
        if isinstance(boot.get("share_population_risk_above_alpha"), (int, float)):
            text += (f"; refitted at the full size on {boot.get('resamples')} resamples with replacement, "
                     f"{boot['share_population_risk_above_alpha']:.3f}")
        text += ".)"
    else:
        text += "; this file predates the population share, so the held-out share is read instead (conservative).)"
    return text


_NO_SHARE_PROMISE = {
    "crc": ("CRC এই হারের কোনো প্রতিশ্রুতি দেয় না: সে সব প্রশ্নের ওপর গড় ক্ষতি সীমিত রাখে (এখানে গড় CRC ক্ষতি {loss} বনাম "
            "α = {alpha}), প্রকাশিত উত্তরের মধ্যে ভুলের হার নয়",
            "CRC makes no promise about this share: it bounds the mean loss over all questions (here mean CRC loss "
            "{loss} vs α = {alpha}), not the wrong-answer rate among released answers"),
    "categorical": ("শ্রেণিগত গেটের কোনো ক্যালিব্রেট করা ঝুঁকি-সীমা নেই, তাই এই হারের প্রতিশ্রুতিও নেই",
                    "The categorical gate has no calibrated risk bound, so nothing promised this share"),
}
"""Why a method other than LTT may exceed δ without breaking a promise (Bangla, English; no " — " inside)."""
_METHOD_NAMES = {"ltt": "LTT", "crc": "CRC", "categorical": "categorical"}


def exceedance_notes(data: dict) -> list[tuple[str, str]]:
    """For every method of ``validation.json`` whose share of splits above α exceeds δ: ``(method, message)``,
    the message (:func:`bilingual`) saying by how much, and how to read it.

    For LTT, which promises that share ≤ δ, the excess is set against the binomial standard error of a
    share over ``splits`` splits, √(p(1−p)/splits): the share counts every split (a split that releases
    nothing counts as not above α), so its denominator is the number of splits, not of releasing ones.
    Within two standard errors the excess is sampling error of the split estimate; beyond, a real failure.
    """
    alpha, delta, splits = data.get("alpha"), data.get("delta"), data.get("splits")
    if not isinstance(delta, (int, float)):
        return []
    notes = []
    for method, m in sorted((data.get("methods") or {}).items(), key=lambda kv: kv[0] != "ltt"):  # LTT first
        try:
            share, _ = validation_share(m)
        except (KeyError, TypeError, ValueError):
            continue
        if share <= delta:
            continue
        excess, name = share - delta, _METHOD_NAMES.get(method, method)
        if isinstance(splits, int):
            above = round(share * splits)
            bn = f"{name} এই ভাগগুলোতে δ ছাড়িয়েছে: {splits}টির মধ্যে {above}টি ভাগ ({share:.3f}) α-র ওপরে"
            en = f"{name} exceeded δ in these splits: {above} of {splits} splits ({share:.3f}) were above α"
        else:
            bn = f"{name} এই ভাগগুলোতে δ ছাড়িয়েছে: α-র ওপরে থাকা ভাগের হার {share:.3f}"
            en = f"{name} exceeded δ in these splits: a share of {share:.3f} of the splits was above α"
        bn += f", δ = {delta}-এর চেয়ে {excess:.3f} বেশি"
        en += f", {excess:.3f} more than δ = {delta}"
        if method == "ltt" and isinstance(splits, int) and splits > 0:
            se = math.sqrt(share * (1 - share) / splits)
            z = excess_z(share, delta, splits)
            n_q = data.get("n_questions", "?")
            bn += (f"। {splits}টি ভাগের ওপর এই হারের দ্বিপদী মানক ত্রুটি √(p(1−p)/{splits}) = {se:.3f}, অর্থাৎ আধিক্যটি "
                   f"{z:.1f} মানক ত্রুটি: ")
            en += (f". The binomial standard error of that share over {splits} splits is √(p(1−p)/{splits}) = "
                   f"{se:.3f}, so the excess is {z:.1f} standard errors: ")
            if z <= REFUTE_Z:
                bn += ("ভাগ-অনুমানের নমুনা-ত্রুটির মধ্যে; এটি প্রকৃত ব্যর্থতার প্রমাণ নয়, আবার প্রতিশ্রুতি টিকে আছে তারও "
                       "প্রমাণ নয়")
                en += ("within the sampling error of the split estimate; not evidence of a real failure, nor proof "
                       "that the promise holds")
            else:
                bn += "নমুনা-ত্রুটিতে এর ব্যাখ্যা হয় না; এই তথ্যে প্রতিশ্রুতিটি সত্যিই ভেঙেছে"
                en += "more than sampling error of the split estimate explains; on this data the promise really fails"
            bn += (f"। ভাগগুলো একই {n_q}টি প্রশ্ন বারবার ব্যবহার করে, তাই এই ত্রুটি কেবল ভাগ করার এলোমেলোতা ধরে, "
                   "প্রশ্ন বাছাইয়ের নয়")
            en += (f". The splits reuse the same {n_q} questions, so this error covers the random splitting only, "
                   "not the choice of questions")
        elif method in _NO_SHARE_PROMISE:
            fill = {"loss": _opt(m.get("mean_crc_loss")), "alpha": alpha}
            bn += "। " + _NO_SHARE_PROMISE[method][0].format(**fill)
            en += ". " + _NO_SHARE_PROMISE[method][1].format(**fill)
        notes.append((method, bilingual(bn + "।", en + ".")))
    return notes


def render_validation(path: Path) -> None:
    """``validation.json``: LTT vs CRC vs categorical over random splits, per category; each method whose
    share of splits above α exceeds δ said so plainly (:func:`exceedance_notes`).
    """
    data = load_validation(path)
    st.markdown("#### অভিজ্ঞতামূলক যাচাই (empirical validation)")
    if data is None:
        st.caption(f"{_rel(path)} এখনো নেই (not produced yet).")
        return
    methods = data.get("methods") or {}
    delta = data.get("delta")
    if methods:
        st.caption(f"{data.get('splits')} random splits · α = {data.get('alpha')} · δ = {delta} · risk: "
                   f"{data.get('risk', '')}")

        def share(m: dict, key: str) -> str:
            x = m.get(key)
            above = isinstance(x, (int, float)) and isinstance(delta, (int, float)) and x > delta
            return _opt(x) + (" (> δ)" if above else "")

        st.dataframe([{"gate": g, "risk on held-out half (mean)": _opt(m.get("mean_selective_risk")),
                       "splits > α, all questions (LTT's check)": share(m, POPULATION_SHARE),
                       "splits > α, held-out half": share(m, HELD_OUT_SHARE),
                       "release rate": _opt(m.get("mean_release_rate")),
                       "fail-closed": str(m.get("fail_closed_splits"))} for g, m in methods.items()],
                      hide_index=True, key="cal_validation")
        ltt = methods.get("ltt") or {}
        st.caption(_validation_note(ltt, data.get("splits"), delta))
        for method, note in exceedance_notes(data):
            # LTT promised this share ≤ δ; the other methods did not, so theirs is information, not a failure.
            (st.warning if method == "ltt" else st.info)(note)
    with st.expander(f"যাচাইয়ের পুরো ফলাফল, JSON (full validation results: `{_rel(path)}`)"):
        st.json(data)
