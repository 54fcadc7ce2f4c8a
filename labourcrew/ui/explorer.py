"""StatuteGraph explorer widgets: read the section query (or query params), render a SectionView."""

from __future__ import annotations

from dataclasses import dataclass, field

import streamlit as st

from labourcrew.statute.model import DEFAULT_VERSION, VERSIONS
from labourcrew.viz.network import LEGEND_PX
from labourcrew.viz.statute import DIFF_STATUS_BN, VERSION_NAMES, SectionView

__all__ = ["ExplorerQuery", "read_query", "render_section"]


@dataclass(frozen=True)
class ExplorerQuery:
    """What the explorer was asked: a version and a section/node, optionally from a run's claim."""

    version: str
    query: str
    run_id: str | None = None
    claim_id: str | None = None
    marks: dict = field(default_factory=dict)


def read_query() -> ExplorerQuery:
    """Version and section widgets, pre-filled from query params (``?node=2025:27(1)&run=…&claim=…``).

    Arriving from a claim sets the params; the run's marks stay while other sections are browsed.
    """
    params = st.query_params
    node = params.get("node")
    version = DEFAULT_VERSION
    default_query = "27"
    if node and ":" in node:
        version, _, default_query = node.partition(":")
        if version not in VERSIONS:
            version = DEFAULT_VERSION
    if "sg_query" not in st.session_state or st.session_state.get("sg_from_node") != node:
        st.session_state["sg_query"] = default_query
        st.session_state["sg_version"] = version
        st.session_state["sg_from_node"] = node
    c1, c2 = st.columns([1, 2])
    version = c1.selectbox("সংস্করণ (version)", VERSIONS, key="sg_version", format_func=VERSION_NAMES.get)
    query = c2.text_input("ধারা — বাংলা বা ইংরেজি অঙ্কে (যেমন ২৭, ২৭(৩ক), 27(3A))", key="sg_query")
    return ExplorerQuery(version=version, query=query, run_id=params.get("run"), claim_id=params.get("claim"))


def render_section(view: SectionView, *, from_run: str | None = None) -> None:
    """Render a :class:`SectionView`: heading, graph, unit text with highlights, English, diff."""
    st.subheader(view.heading)
    st.caption(f"{view.chapter} · node `{view.node_id}`" + (f" · run `{from_run}`" if from_run else ""))
    st.markdown("**গ্রাফের প্রতিবেশ (neighbourhood)** — ধূসর: অংশ, কমলা: শর্তাংশ, নীল: প্রতি-নির্দেশ; "
                "লাল: উদ্ধৃত, হলুদ: প্রমাণ-প্যাকে")
    st.iframe(view.graph_html, height=view.graph_height_px + LEGEND_PX)
    if view.graph_truncated:
        st.caption(f"চিত্রটি {view.graph_nodes}টি নোডে সীমিত (capped).")
    st.markdown("**আইনের পাঠ (unit text)** — উদ্ধৃত অংশ হলুদে চিহ্নিত")
    for line in view.lines:
        classes = "lc-passage" + (" lc-cited" if line.cited else "")
        style = f"margin-left:{line.indent * 1.4}em;" + ("color:#888;" if line.omitted else "")
        style += "outline:2px solid #202124;" if line.focus else ""
        st.markdown(
            f"<div class='{classes}' style='{style}'><span class='lc-cite'>{line.label_bn} · "
            f"<code>{line.label}</code></span>{line.html}</div>",
            unsafe_allow_html=True,
        )
    if view.missing_spans:
        st.warning("এই উদ্ধৃতিগুলো পাঠে পাওয়া যায়নি (spans not found): " + " | ".join(view.missing_spans))
    if view.english is not None:
        if st.toggle("English parallel (unofficial translation)", key="sg_english"):
            (st.warning if view.english.outdated else st.info)(view.english.label)
            st.markdown(f"<div class='lc-english'>{_esc(view.english.text)}</div>", unsafe_allow_html=True)
    st.markdown("#### ২০১৮ → ২০২৫ পরিবর্তন (diff)")
    if view.diff is None:
        st.caption("ইংরেজি সংস্করণের জন্য পার্থক্য দেখানো হয় না (no diff for en-2018).")
    else:
        st.info(f"২০১৮ → ২০২৫: {DIFF_STATUS_BN[view.diff.status]}")
        for note in view.diff.notes_2025:
            st.caption(f"সংশোধনী: {note.note}")
        if view.diff.diff:
            st.code(view.diff.diff, language="diff", wrap_lines=True)  # a changed phrase at the end of a long line stays in view


def _esc(text: str) -> str:
    import html

    return html.escape(text)
