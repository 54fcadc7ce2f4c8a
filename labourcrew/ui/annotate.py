"""Annotate page widgets: annotator name, the current claim with its cited spans highlighted in the
unit text, faithful / unfaithful / unsure with a note, skip, progress, agreement (κ), exports."""

from __future__ import annotations

import html
import math
import tempfile
from pathlib import Path

import streamlit as st

from labourcrew.gate.annotation_queue import PairAgreement, Progress, QueueItem
from labourcrew.gate.labels import LabelStore
from labourcrew.statute.ids import citation_label_bn
from labourcrew.viz.passages import highlight

__all__ = ["LABEL_NAMES", "read_annotator", "skipped", "render_progress", "render_item", "render_agreement",
           "render_exports", "flash"]

LABEL_NAMES = {
    "faithful": "বিশ্বস্ত — উদ্ধৃত পাঠ দাবিটি সমর্থন করে এবং প্রশ্নের সঙ্গে প্রাসঙ্গিক (faithful)",
    "unfaithful": "অবিশ্বস্ত — পাঠ দাবিটি সমর্থন করে না বা প্রশ্নের ক্ষেত্রে প্রযোজ্য নয় (unfaithful)",
    "unsure": "নিশ্চিত নই (unsure)",
}


def read_annotator() -> str:
    """The annotator's name (kept for the browser session)."""
    return st.text_input("আপনার নাম (annotator name)", key="ann_name", placeholder="যেমন: rahim").strip()


def skipped() -> list[str]:
    """Claim keys this session skipped (they go to the end of the queue)."""
    return list(st.session_state.setdefault("ann_skipped", []))


def render_progress(p: Progress) -> None:
    """Progress bar and counts."""
    share = p.mine / p.total if p.total else 0.0
    st.progress(share, text=f"আপনি লেবেল করেছেন {p.mine}/{p.total} · মোট লেবেলকৃত {p.labelled} · "
                            f"দ্বৈত লেবেল {p.double} · বাকি {p.remaining}")


def render_item(item: QueueItem, store: LabelStore, annotator: str) -> None:
    """The claim to label and the label widgets; saving writes one row to the label store."""
    st.markdown(f"<div class='lc-annot-question'>প্রশ্ন: {html.escape(item.question)}</div>", unsafe_allow_html=True)
    st.caption(f"run `{item.run_id}` · claim `{item.claim_id}` · {item.side} · version {item.statute_version}")
    st.markdown(f"<div class='lc-claim'><div class='lc-claim-head'>দাবি (claim)</div>{html.escape(item.text)}</div>",
                unsafe_allow_html=True)
    for ev in item.evidence:
        label = citation_label_bn(ev.node_id.partition(":")[2])
        hl = highlight(ev.unit_text, [ev.span]) if ev.unit_text else None
        body = hl.html if hl is not None else html.escape(ev.span)
        flag = "" if ev.verified else " · উদ্ধৃতি যাচাই হয়নি (not verified)"
        st.markdown(f"<div class='lc-passage lc-cited'><span class='lc-cite'>{label} · <code>{html.escape(ev.node_id)}"
                    f"</code>{flag}</span>{body}</div>", unsafe_allow_html=True)
    choice = st.radio("লেবেল (label)", list(LABEL_NAMES), index=None, format_func=LABEL_NAMES.get,
                      key=f"ann_label_{item.key}")
    note = st.text_input("নোট (ঐচ্ছিক) — কেন? (note, optional)", key=f"ann_note_{item.key}")
    c1, c2 = st.columns(2)
    if c1.button("সংরক্ষণ (save label)", type="primary", disabled=choice is None, key="ann_save",
                 use_container_width=True):
        store.add(item.key, annotator, choice, run_id=item.run_id, note=note)
        st.session_state["ann_saved"] = f"সংরক্ষিত: {item.key} → {choice}"
        st.rerun()
    if c2.button("এড়িয়ে যান (skip)", key="ann_skip", use_container_width=True):
        st.session_state.setdefault("ann_skipped", []).append(item.key)
        st.rerun()


def flash() -> None:
    """Show (once) what the last save did."""
    msg = st.session_state.pop("ann_saved", None)
    if msg:
        st.success(msg)


def render_agreement(pairs: list[PairAgreement]) -> None:
    """Cohen's κ per annotator pair (NaN = no shared claims yet)."""
    st.markdown("#### সম্মতি (agreement, Cohen's κ)")
    if not pairs:
        st.caption("κ-এর জন্য অন্তত দুজন টীকাকারের লেবেল দরকার (needs two annotators).")
        return
    st.dataframe([{"A": p.first, "B": p.second, "shared claims": p.shared,
                   "κ": "n/a" if math.isnan(p.kappa) else round(p.kappa, 3)} for p in pairs], hide_index=True)


def render_exports(store: LabelStore) -> None:
    """Download the labels as CSV and JSONL (the store's canonical exports)."""
    with tempfile.TemporaryDirectory() as tmp:
        csv_text = store.export_csv(Path(tmp) / "labels.csv").read_text(encoding="utf-8")
        jsonl_text = store.export_jsonl(Path(tmp) / "labels.jsonl").read_text(encoding="utf-8")
    c1, c2 = st.columns(2)
    c1.download_button("লেবেল CSV নামান (export CSV)", csv_text, file_name="labourcrew_labels.csv", mime="text/csv",
                       key="ann_csv")
    c2.download_button("লেবেল JSONL নামান (export JSONL)", jsonl_text, file_name="labourcrew_labels.jsonl",
                       mime="application/jsonl", key="ann_jsonl")
