"""Shared look of every figure and HTML fragment: Bangla-capable fonts, colours, status texts.

Bangla glyphs need a font that has them; the browser picks the first family in the list that is
installed (Debian: ``fonts-noto-core`` ships *Noto Sans Bengali*), so every plotly layout and the
vis-network graph use :data:`FONT_FAMILY`.
"""

from __future__ import annotations

from typing import Any

from labourcrew.ledger.records import ReleaseStatus
from labourcrew.statute.model import EdgeType

__all__ = [
    "FONT_FAMILY",
    "STATUS_STYLE",
    "EDGE_COLOURS",
    "EDGE_LABELS_BN",
    "MARK_COLOURS",
    "base_layout",
]

FONT_FAMILY = "Noto Sans Bengali, Noto Sans, sans-serif"
"""CSS font stack: Bangla first, then a Latin companion of the same design."""

# Release status -> (colour, Bangla headline, plain-Bangla explanation) (Ask page).
STATUS_STYLE: dict[str, dict[str, str]] = {
    ReleaseStatus.TGLO.value: {
        "colour": "#1b7f3b",
        "background": "#e6f4ea",
        "headline": "যাচাইকৃত উত্তর",
        "explanation": "নিচের প্রতিটি বক্তব্য উদ্ধৃত আইনের পাঠ দ্বারা সমর্থিত।",
    },
    ReleaseStatus.DEGRADED.value: {
        "colour": "#a15c00",
        "background": "#fff4e0",
        "headline": "আংশিক উত্তর",
        "explanation": "উত্তরটি আংশিক — সতর্কতার সঙ্গে পড়ুন।",
    },
    ReleaseStatus.UNDECIDED.value: {
        "colour": "#5f6368",
        "background": "#f1f3f4",
        "headline": "অমীমাংসিত",
        "explanation": "কোনো উত্তর যাচাই করা যায়নি — এর মানে এই নয় যে আইনে বিধান নেই। কাছাকাছি কোনো বিধান পাওয়া গেলে তা নিচে যাচাই ছাড়া দেখানো হলো; প্রয়োজনে আইনজীবীর পরামর্শ নিন।",
    },
}

# Edge type -> colour (structure grey, provisos orange, cross-references blue).
EDGE_COLOURS: dict[str, str] = {
    EdgeType.PARENT.value: "#9aa0a6",
    EdgeType.CHILD.value: "#9aa0a6",
    EdgeType.PROVISO.value: "#e37400",
    EdgeType.CROSS_REF.value: "#1a73e8",
    EdgeType.CITED_BY.value: "#1a73e8",  # a cross-reference read backwards
}
EDGE_LABELS_BN: dict[str, str] = {
    EdgeType.PARENT.value: "অংশ (parent)",
    EdgeType.CHILD.value: "অংশ (parent)",
    EdgeType.PROVISO.value: "শর্তাংশ (proviso)",
    EdgeType.CROSS_REF.value: "প্রতি-নির্দেশ (cross_ref)",
    EdgeType.CITED_BY.value: "যে ধারা এটি উল্লেখ করে (cited_by)",
}

# Node marks of the StatuteGraph and Hop Trace graphs.
MARK_COLOURS: dict[str, str] = {
    "focus": "#202124",
    "cited": "#d93025",
    "evidence": "#fbbc04",
    "plain": "#dadce0",
}


def base_layout(title: str | None = None, **extra: Any) -> dict[str, Any]:
    """Layout keywords shared by every plotly figure (Bangla font, compact margins).

    Args:
        title: figure title (Bangla allowed) or None.
        **extra: more ``fig.update_layout`` keywords; they win over the defaults.

    Returns:
        A dict for ``fig.update_layout(**...)``.
    """
    layout: dict[str, Any] = {
        "font": {"family": FONT_FAMILY, "size": 13},
        "margin": {"l": 10, "r": 10, "t": 48 if title else 16, "b": 10},
        "hoverlabel": {"font": {"family": FONT_FAMILY}},
        "legend": {"font": {"family": FONT_FAMILY}},
        "template": "plotly_white",
    }
    if title:
        layout["title"] = {"text": title, "font": {"family": FONT_FAMILY, "size": 15}}
    layout.update(extra)
    return layout
