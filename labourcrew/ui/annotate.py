"""Annotate page widgets (Argilla/Langfuse conventions): annotator name kept in the URL, guidelines
pane with the labelling protocol, keyboard shortcuts with a cheat-sheet (1 faithful, 2 unfaithful,
3 unsure, → next, ← previous), blind mode, the disagreement queue, progress, κ/AC1 with bootstrap
CIs, exports. Labels are written one row per click to the SQLite store (atomic, WAL).
"""

from __future__ import annotations

import html
import re
import tempfile
import time
from pathlib import Path

import streamlit as st

from labourcrew.gate.agreement import agreement_report
from labourcrew.gate.annotation_queue import Progress, QueueItem
from labourcrew.gate.labels import Label, LabelStore, is_adjudicator
from labourcrew.statute.ids import citation_label_bn
from labourcrew.ui.frame import html_text, md_text
from labourcrew.viz.passages import highlight

__all__ = ["LABEL_NAMES", "SHORTCUTS", "read_annotator", "read_options", "skipped", "render_progress",
           "render_item", "render_agreement", "render_exports", "flash", "render_guidelines", "render_shortcuts",
           "protocol_text", "pick", "shortcut_js", "render_undo", "too_soon", "MIN_VIEW_S", "claim_name",
           "QUESTION_CHARS", "SHORT", "label_name"]

SHORT = {"faithful": "বিশ্বস্ত (faithful)", "unfaithful": "অবিশ্বস্ত (unfaithful)", "unsure": "নিশ্চিত নই (unsure)"}
"""How a label is named to the annotator: Bangla first, the stored English value in brackets."""
LABEL_NAMES = {
    "faithful": SHORT["faithful"] + " — উদ্ধৃত পাঠ দাবিটি সমর্থন করে এবং প্রশ্নের সঙ্গে প্রাসঙ্গিক",
    "unfaithful": SHORT["unfaithful"] + " — পাঠ দাবিটি সমর্থন করে না বা প্রশ্নের ক্ষেত্রে প্রযোজ্য নয়",
    "unsure": SHORT["unsure"],
}


def label_name(label: str) -> str:
    """A stored label as the annotator reads it (:data:`SHORT`; an unknown value as it is)."""
    return SHORT.get(label, label)

SHORTCUTS: dict[str, str] = {"1": "lc-key-1", "2": "lc-key-2", "3": "lc-key-3", "ArrowRight": "lc-key-next",
                             "ArrowLeft": "lc-key-prev"}
"""Key -> widget key of the button it presses (Streamlit gives the container class ``st-key-<key>``)."""
_KEY_OF = {"faithful": "lc-key-1", "unfaithful": "lc-key-2", "unsure": "lc-key-3"}
_SYMBOL = {"faithful": "✓", "unfaithful": "✗", "unsure": "?"}
"""Leading symbol of each label button: two identical red buttons side by side invited misclicks."""


def shortcut_js() -> str:
    """The keyboard handler: a key press clicks the button of :data:`SHORTCUTS` (not while typing)."""
    table = ", ".join(f'"{k}": "{v}"' for k, v in SHORTCUTS.items())
    return ("<script id='lc-annot-shortcuts'>(function(){"
            "const doc = document; if (doc.__lcAnnotKeys) return; doc.__lcAnnotKeys = true;"
            f"const map = {{{table}}};"
            "doc.addEventListener('keydown', function(e){"
            "const t = e.target; if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.isContentEditable)) return;"
            "if (e.ctrlKey || e.metaKey || e.altKey) return;"
            "const key = map[e.key]; if (!key) return;"
            "const btn = doc.querySelector('.st-key-' + key + ' button');"
            "if (btn && !btn.disabled) { e.preventDefault(); btn.click(); }"
            "});})();</script>")


def render_shortcuts() -> None:
    """The cheat-sheet and the keyboard handler."""
    st.html(shortcut_js(), unsafe_allow_javascript=True)
    keys = " · ".join(f"<kbd>{n}</kbd> {label_name(v)}" for n, v in ((1, "faithful"), (2, "unfaithful"), (3, "unsure")))
    st.markdown(f"<div class='lc-shortcuts'>কি-বোর্ড (keys): {keys} · <kbd>→</kbd> পরের (next) · "
                "<kbd>←</kbd> আগের লেবেল-বাকি (previous still to label; to change a label: ↶ undo)</div>", unsafe_allow_html=True)


def protocol_text(readme: Path) -> str:
    """The "Labelling protocol" section of ``data/calibration/README.md`` ('' when missing)."""
    try:
        text = Path(readme).read_text(encoding="utf-8")
    except OSError:
        return ""
    m = re.search(r"^## Labelling protocol\n(.*?)(?=^## )", text, flags=re.S | re.M)
    return m.group(1).strip() if m else ""


def render_guidelines(text: str) -> None:
    """The guidelines pane (the labelling protocol annotators follow)."""
    with st.expander("নির্দেশিকা (guidelines: labelling protocol)", expanded=False):
        st.markdown(text or "data/calibration/README.md-এ প্রোটোকল পাওয়া যায়নি (protocol not found).")


_NAME_KEPT = "ann_annotator"
"""Session key holding the name typed: not a widget key, because Streamlit deletes a widget's key on a
run that does not render it (any other page), and a sidebar link drops ``?annotator=`` too."""


def read_annotator() -> str:
    """The annotator's name, kept across pages in the session and across reloads in the URL
    (``?annotator=NAME``); '' until one is typed.
    """
    if "ann_name" not in st.session_state:  # first run, or back from another page
        st.session_state["ann_name"] = st.session_state.get(_NAME_KEPT) or st.query_params.get("annotator", "")
    raw = st.text_input("আপনার নাম (annotator name)", key="ann_name", placeholder="যেমন: rahim")
    st.session_state[_NAME_KEPT] = raw
    name = raw.strip()
    if name and st.query_params.get("annotator") != name:
        st.query_params["annotator"] = name
    return name


def read_options() -> tuple[bool, bool]:
    """``(blind, disputed_only)``: blind mode (default on) and the disagreement queue."""
    c1, c2 = st.columns(2)
    blind = c1.toggle("অন্ধ মোড: অন্যদের লেবেল লুকান (blind mode)", value=True, key="ann_blind")
    queue = c2.radio("সারি (queue)", ["todo", "disputed"], horizontal=True, key="ann_queue",
                     format_func={"todo": "লেবেল বাকি (to label)", "disputed": "মতভেদ (disagreements)"}.get)
    return blind, queue == "disputed"


def skipped() -> list[str]:
    """Claim keys this session skipped (they go to the end of the queue)."""
    return list(st.session_state.setdefault("ann_skipped", []))


def pick(todo: list[QueueItem]) -> QueueItem | None:
    """The item at the session's position in the queue (→/← move it)."""
    if not todo:
        return None
    pos = int(st.session_state.get("ann_pos", 0)) % len(todo)
    st.session_state["ann_pos"] = pos
    return todo[pos]


def render_progress(p: Progress) -> None:
    """Progress bar and counts."""
    share = p.mine / p.total if p.total else 0.0
    st.progress(share, text=f"আপনি লেবেল করেছেন {p.mine}/{p.total} · মোট লেবেলকৃত {p.labelled}/{p.total} · "
                            f"দ্বৈত লেবেল {p.double} · বাকি {p.remaining}")


MIN_VIEW_S = 0.8
"""A label click on a claim shown for less than this (seconds) is ignored: two quick clicks labelled the
next claim in the queue, which the annotator never saw (a new user's trial)."""


def too_soon(shown_at: float | None, now: float, min_view_s: float | None = None) -> bool:
    """True when a claim first shown at ``shown_at`` (monotonic seconds; None: never shown) cannot have
    been read by ``now`` (``min_view_s`` default :data:`MIN_VIEW_S`).
    """
    return shown_at is None or now - shown_at < (MIN_VIEW_S if min_view_s is None else min_view_s)


def _save(item: QueueItem, store: LabelStore, annotator: str, label: str) -> None:
    if too_soon(st.session_state.get("ann_shown", {}).get(item.key), time.monotonic()):
        st.session_state["ann_ignored"] = ("উপেক্ষিত: দাবিটি পড়ার আগেই ক্লিক এসেছে, কিছু সংরক্ষণ হয়নি "
                                           "(ignored: the click came before this claim was on screen; nothing saved)")
        return
    previous = store.get(item.key, annotator)
    store.add(item.key, annotator, label, run_id=item.run_id, note=st.session_state.get(f"ann_note_{item.key}", ""))
    st.session_state["ann_last"] = (item.key, annotator, previous, claim_name(item))
    st.session_state["ann_saved"] = f"সংরক্ষিত (saved): {claim_name(item)} → {label_name(label)}"


QUESTION_CHARS = 40
"""Characters of the question that name a claim on the undo button and in the saved/undone notes."""


def claim_name(item: QueueItem) -> str:
    """How an annotator recognises a claim: its question (at most :data:`QUESTION_CHARS` characters,
    then "…") and its citations, e.g. ``«একজন স্থায়ী শ্রমিক চাকরি ছাড়তে চাইলে…» · ধারা ২৭(১)``. The
    per-run claim id ("c3") means nothing to them.

    Returns:
        The name, markdown-escaped: button labels and alerts render markdown, and the question is
        the user's text (no live link or image).
    """
    q = " ".join(item.question.split())
    q = q if len(q) <= QUESTION_CHARS else q[:QUESTION_CHARS - 1].rstrip() + "…"
    cites = ", ".join(dict.fromkeys(citation_label_bn(ev.node_id.partition(":")[2]) for ev in item.evidence))
    return md_text(f"«{q}»" + (f" · {cites}" if cites else ""))


def _undo(store: LabelStore) -> None:
    last = st.session_state.pop("ann_last", None)
    if last is None:
        return
    key, annotator, previous, name = last
    store.restore(key, annotator, previous)
    was = label_name(previous.label) if previous is not None else "লেবেল নেই (no label)"
    st.session_state["ann_saved"] = f"ফেরত নেওয়া হয়েছে (undone): {name} → {was}"


def render_undo(store: LabelStore) -> None:
    """Undo the session's last label (its previous label, if any, comes back); the button names the
    claim by :func:`claim_name`.
    """
    last = st.session_state.get("ann_last")
    if last is not None:
        st.button(f"↶ শেষ লেবেল ফেরত নিন: {last[3]} (undo last label)", key="lc-key-undo", on_click=_undo,
                  args=(store,))


def _move(step: int) -> None:
    st.session_state["ann_pos"] = int(st.session_state.get("ann_pos", 0)) + step


def render_item(item: QueueItem, store: LabelStore, annotator: str, labels: list[Label], *, blind: bool) -> None:
    """The claim to label, its cited spans in the unit text, label buttons (1/2/3), ←/→, others' labels."""
    st.markdown(f"<div class='lc-annot-question'>প্রশ্ন: {html_text(item.question)}</div>", unsafe_allow_html=True)
    st.caption(f"run `{item.run_id}` · claim `{item.claim_id}` · {item.side} · version {item.statute_version} · "
               f"key `{item.key}`")
    st.markdown(f"<div class='lc-claim'><div class='lc-claim-head'>দাবি (claim)</div>{html_text(item.text)}</div>",
                unsafe_allow_html=True)
    for ev in item.evidence:
        label = citation_label_bn(ev.node_id.partition(":")[2])
        hl = highlight(ev.unit_text, [ev.span]) if ev.unit_text else None
        body = hl.html if hl is not None else html.escape(ev.span)
        flag = "" if ev.verified else " · উদ্ধৃতি যাচাই হয়নি (not verified)"
        st.markdown(f"<div class='lc-passage lc-cited'><span class='lc-cite'>{label} · <code>{html.escape(ev.node_id)}"
                    f"</code>{flag}</span>{body}</div>", unsafe_allow_html=True)
    st.session_state.setdefault("ann_shown", {}).setdefault(item.key, time.monotonic())
    st.text_input("নোট (ঐচ্ছিক) — কেন? (note, optional)", key=f"ann_note_{item.key}")
    cols = st.columns([1, 1.5, 1.5, 1.5, 1])  # the label buttons wide enough for «✗ 2 · অবিশ্বস্ত (unfaithful)»
    # ← walks the claims still to label: a labelled claim has left the queue, so the way back to it is
    # the undo button (a new user pressed ← to fix a mis-click and got another run's claim).
    cols[0].button("← আগের", key="lc-key-prev", on_click=_move, args=(-1,), use_container_width=True,
                   help="আগের লেবেল-বাকি দাবি; লেবেল দেওয়া দাবি সারি থেকে চলে যায় — শেষ লেবেল বদলাতে "
                        "«↶ শেষ লেবেল ফেরত নিন» চাপুন (the previous claim still to label; a labelled claim leaves "
                        "the queue: to change your last label, use undo)")
    for col, (value, n) in zip(cols[1:4], (("faithful", 1), ("unfaithful", 2), ("unsure", 3)), strict=True):
        # One neutral type for all three (no colour suggests an answer); the symbol tells them apart.
        col.button(f"{_SYMBOL[value]} {n} · {label_name(value)}", key=_KEY_OF[value], on_click=_save,
                   args=(item, store, annotator, value), type="secondary", use_container_width=True)
    cols[4].button("পরের →", key="lc-key-next", on_click=_move, args=(1,), use_container_width=True)
    others = [lab for lab in labels if lab.claim_id == item.key and lab.annotator != annotator]
    if blind:
        st.caption(f"অন্ধ মোড: অন্য {len({o.annotator for o in others})} জনের লেবেল লুকানো (blind mode: other labels hidden).")
    elif others:
        st.dataframe([{"annotator": o.annotator, "role": "adjudicator" if is_adjudicator(o.annotator) else "annotator",
                       "label": label_name(o.label), "rationale": o.rationale or o.note} for o in others],
                     hide_index=True, key="ann_others")


def flash() -> None:
    """Show (once) what the last save did."""
    msg = st.session_state.pop("ann_saved", None)
    ignored = st.session_state.pop("ann_ignored", None)
    if ignored:
        st.warning(ignored)
    if msg:
        st.success(msg)


@st.cache_data(max_entries=8, show_spinner=False)
def _agreement_rows(sha: str, _labels: list[Label]) -> list[dict[str, str]]:
    names = sorted({lab.annotator for lab in _labels if not is_adjudicator(lab.annotator)})
    rows = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            r = agreement_report(_labels, a, b, n_boot=500, seed=0)

            def fmt(v: float | None, ci: list[float] | None) -> str:
                return "n/a" if v is None else f"{v:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else f"{v:.3f}"

            rows.append({"A": a, "B": b, "shared claims": str(r["n"]), "κ [95% CI]": fmt(r["kappa"], r["kappa_ci95"]),
                         "AC1 [95% CI]": fmt(r["ac1"], r["ac1_ci95"])})
    return rows


def render_agreement(labels: list[Label], sha: str) -> None:
    """Cohen's κ and Gwet's AC1 per annotator pair with bootstrap CIs (every column text: no mixed types)."""
    st.markdown("#### সম্মতি (agreement: Cohen's κ, Gwet's AC1)")
    rows = _agreement_rows(sha, labels)
    if not rows:
        st.caption("κ-এর জন্য অন্তত দুজন টীকাকারের লেবেল দরকার (needs two annotators).")
        return
    st.dataframe(rows, hide_index=True, key="ann_kappa")


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
