"""Statute browser widgets (StatuteGraph explorer, text part). Thin: all logic is in the package."""

from __future__ import annotations

import html

import streamlit as st

from labourcrew.errors import LabourCrewError
from labourcrew.graph.statute_graph import StatuteGraph, load_graph
from labourcrew.statute.model import DEFAULT_VERSION, VERSIONS, Level

_VERSION_NAMES = {
    "2025": "২০২৫ — অধ্যাদেশ ৬৫/২০২৫ পর্যন্ত সংশোধিত (বর্তমানে বলবৎ)",
    "2018": "২০১৮ — আইন ৫৮/২০১৮ পর্যন্ত সংশোধিত",
    "en-2018": "English — unofficial translation, amended to 2018",
}
_DIFF_BN = {"inserted": "২০২৫-এ সন্নিবেশিত", "amended": "২০২৫-এ সংশোধিত", "omitted": "২০২৫-এ বিলুপ্ত",
            "unchanged": "২০১৮ থেকে অপরিবর্তিত"}


@st.cache_resource(show_spinner="StatuteGraph লোড হচ্ছে …")
def cached_graph() -> StatuteGraph:
    """The StatuteGraph, loaded once per server process."""
    return load_graph()


def statute_browser(default_query: str = "27") -> None:
    """Render the section picker and the selected section's units, English parallel and diff."""
    try:
        graph = cached_graph()
    except LabourCrewError as exc:
        st.error(f"আইনের পাঠ লোড করা যায়নি: {exc}. {exc.help_message}")
        return
    c1, c2 = st.columns([1, 2])
    version = c1.selectbox("সংস্করণ (version)", VERSIONS, index=VERSIONS.index(DEFAULT_VERSION),
                           format_func=_VERSION_NAMES.get, key="sb_version")
    query = c2.text_input("ধারা (যেমন ২৭, ২৭(৩ক), 27(3A))", value=default_query, key="sb_query")
    unit = graph.find_section(version, query) if query.strip() else None
    if unit is None:
        st.warning(f"“{query}” — এই সংস্করণে এমন কোনো ধারা/উপ-ধারা পাওয়া যায়নি। একটি ধারা নম্বর লিখুন, যেমন ২৭।")
        return
    sec = graph.section_of(unit.node_id) or unit
    st.subheader(f"ধারা {sec.marker or sec.label} — {sec.title or ''}")
    st.caption(f"অধ্যায় {sec.chapter}: {sec.chapter_title} · node `{unit.node_id}`")
    diff = graph.diffs.get(sec.label)
    if diff and version != "en-2018":
        st.info(f"২০১৮ → ২০২৫: {_DIFF_BN[diff.status]}")
    for u in [unit, *graph.descendants(unit.node_id)]:
        if not u.text:
            continue
        indent = {Level.SUBSECTION: 0, Level.CLAUSE: 1, Level.ITEM: 2, Level.PROVISO: 1,
                  Level.EXPLANATION: 1, Level.PARAGRAPH: 1}.get(u.level, 0)
        style = "color:#888" if u.omitted else ""
        st.markdown(
            f"<div style='margin-left:{indent * 1.5}em;{style}'><code>{html.escape(u.label)}</code> "
            f"{html.escape(u.text)}</div>",
            unsafe_allow_html=True,
        )
    eng = graph.english.get(sec.node_id)
    if eng and st.toggle("English parallel", key="sb_en"):
        (st.warning if eng.outdated else st.caption)(eng.label)
        st.write(eng.text)
