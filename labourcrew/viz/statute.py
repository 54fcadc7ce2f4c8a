"""Everything the StatuteGraph explorer shows for one section, built in one call (paper §3.2).

:func:`section_view` resolves a Bangla or ASCII section reference (or a node id), collects the
section's units in document order with the run's cited spans highlighted, the aligned English
parallel (marked unofficial, and outdated when the 2025 text changed), the 2018 -> 2025 diff of
the section, and the pyvis neighbourhood page with the run's evidence and cited nodes marked.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from labourcrew.errors import InputError
from labourcrew.graph.statute_graph import (
    StatuteGraph,
    check_version,
    parse_section_query,
)
from labourcrew.statute.ids import citation_label_bn
from labourcrew.statute.model import (
    ENGLISH_VERSION,
    EnglishParallel,
    Level,
    SectionDiff,
)
from labourcrew.statute.normalize import to_bangla_digits
from labourcrew.viz.network import network_html, section_neighbourhood
from labourcrew.viz.passages import highlight

__all__ = ["UnitLine", "SectionView", "section_view", "DIFF_STATUS_BN", "VERSION_NAMES"]

VERSION_NAMES: dict[str, str] = {
    "2025": "২০২৫ — অধ্যাদেশ ৬৫/২০২৫ পর্যন্ত সংশোধিত (বর্তমানে বলবৎ)",
    "2018": "২০১৮ — আইন ৫৮/২০১৮ পর্যন্ত সংশোধিত",
    ENGLISH_VERSION: "English — unofficial translation, amended to 2018",
}
IN_FORCE = "2025"
"""The statute version in force (the newest Bangla text)."""


def version_notice(version: str) -> str | None:
    """A warning for an answer from a text that is not the law in force (Bangla first), else None."""
    if version == IN_FORCE:
        return None
    if version == ENGLISH_VERSION:
        return ("ইংরেজি পাঠটি অনানুষ্ঠানিক অনুবাদ, ২০১৮ পর্যন্ত সংশোধিত; বর্তমানে বলবৎ আইন ২০২৫ সালের বাংলা পাঠ — "
                "the English text is an unofficial translation amended to 2018; the law in force is the 2025 Bangla text")
    return (f"{VERSION_NAMES.get(version, version)}: ২০২৫ সালের সংশোধনের আগের পাঠ; বর্তমানে বলবৎ আইন ২০২৫ সালের পাঠ — "
            f"the {version} text predates the 2025 amendments; the law in force is the 2025 text")


DIFF_STATUS_BN: dict[str, str] = {
    "inserted": "২০২৫-এ সন্নিবেশিত (inserted)",
    "amended": "২০২৫-এ সংশোধিত (amended)",
    "omitted": "২০২৫-এ বিলুপ্ত (omitted)",
    "unchanged": "২০১৮ থেকে অপরিবর্তিত (unchanged)",
}
_INDENT = {Level.SUBSECTION: 0, Level.CLAUSE: 1, Level.ITEM: 2, Level.PROVISO: 1, Level.EXPLANATION: 1,
           Level.PARAGRAPH: 1}


class UnitLine(BaseModel):
    """One unit of the section as shown: label, indentation, text HTML with highlights."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    node_id: str = Field(description="Node id of the unit.")
    label: str = Field(description="ASCII label, e.g. '27(1)'.")
    label_bn: str = Field(description="Bangla citation, e.g. 'ধারা ২৭(১)'.")
    indent: int = Field(ge=0, description="Indentation level (0 = sub-section).")
    html: str = Field(description="Escaped unit text, cited spans wrapped in <mark>.")
    omitted: bool = Field(description="True when the unit's text is omitted in this version.")
    cited: bool = Field(description="True when the run cites this unit.")
    evidence: bool = Field(description="True when the unit is on the run's Evidence Pack.")
    focus: bool = Field(description="True for the unit the explorer was asked about.")


class SectionView(BaseModel):
    """A section of one version, ready to render."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: str = Field(description="Statute version.")
    node_id: str = Field(description="The unit asked about.")
    section_id: str = Field(description="Node id of its section.")
    heading: str = Field(description="'ধারা ২৭ — title' (English style for en-2018).")
    chapter: str = Field(description="Chapter line, e.g. 'অধ্যায় ২: ...'.")
    lines: list[UnitLine] = Field(description="The section's units in document order.")
    english: EnglishParallel | None = Field(description="Aligned English section (unofficial), if any.")
    diff: SectionDiff | None = Field(description="2018 -> 2025 change of the section (Bangla versions).")
    graph_html: str = Field(description="Offline pyvis page of the neighbourhood.")
    graph_height_px: int = Field(ge=100, description="Height of the graph canvas in pixels.")
    graph_nodes: int = Field(ge=0, description="Nodes drawn.")
    graph_truncated: bool = Field(description="True when the drawing was capped.")
    missing_spans: list[str] = Field(description="Cited spans not found in the section text.")


def _resolve(graph: StatuteGraph, version: str, query: str) -> str:
    query = (query or "").strip()
    if not query:
        raise InputError("কোনো ধারা লেখা হয়নি — no section given", help_message="একটি ধারা নম্বর লিখুন, যেমন ২৭ বা 27(3A)।")
    if ":" in query:
        if query not in graph.units:
            raise InputError(f"অজানা নোড — unknown node id {query!r}", help_message="একটি ধারা নম্বর লিখুন, যেমন ২৭।")
        return query
    check_version(version)
    unit = graph.find_section(version, query)
    if unit is None:
        label = parse_section_query(query)
        raise InputError(
            f"“{query}” — এই সংস্করণে ({version}) এমন কোনো ধারা/উপ-ধারা পাওয়া যায়নি"
            + (f" (label {label})" if label else ""),
            help_message="একটি বিদ্যমান ধারা নম্বর লিখুন, যেমন ২৭, ২৭(৩ক) বা 27(3A)।",
        )
    return unit.node_id


def section_view(
    graph: StatuteGraph,
    version: str,
    query: str,
    *,
    evidence: Iterable[str] = (),
    cited: Iterable[str] = (),
    spans: Mapping[str, Sequence[str]] | None = None,
    graph_height_px: int = 520,
) -> SectionView:
    """Build the explorer's view of one section.

    Args:
        graph: the StatuteGraph.
        version: statute version the query refers to ('2025', '2018', 'en-2018'); ignored when
            ``query`` is a node id.
        query: '27', '২৭', '27(3A)', '২৭(৩ক)', 'ধারা ২৭' or a node id like '2025:27(1)'.
        evidence: node ids on a run's Evidence Pack (marked yellow in the graph).
        cited: node ids cited by a run's claims (marked red; their lines are flagged).
        spans: node id -> cited spans to highlight in that unit's text.
        graph_height_px: height of the graph canvas.

    Returns:
        :class:`SectionView`.

    Raises:
        InputError: empty query, unknown version, or no such section/unit in the version.
    """
    node_id = _resolve(graph, version, query)
    unit = graph.get(node_id)
    section = graph.section_of(node_id) or unit
    ev, ci = set(evidence), set(cited)
    spans = spans or {}
    lines: list[UnitLine] = []
    missing: list[str] = []
    members = [section, *graph.descendants(section.node_id)] if section.level != Level.CHAPTER else [section]
    for u in members:
        if not u.text and u.level == Level.SECTION:
            continue
        hl = highlight(u.text, spans.get(u.node_id, ()))
        missing.extend(hl.missing)
        lines.append(UnitLine(
            node_id=u.node_id, label=u.label,
            label_bn=u.label if u.version == ENGLISH_VERSION else citation_label_bn(u.label),
            indent=_INDENT.get(u.level, 0), html=hl.html or html.escape(u.text), omitted=u.omitted,
            cited=u.node_id in ci, evidence=u.node_id in ev, focus=u.node_id == node_id,
        ))
    if unit.version == ENGLISH_VERSION:
        heading = f"Section {section.label}" + (f" — {section.title}" if section.title else "")
    else:
        heading = f"{citation_label_bn(section.label)}" + (f" — {section.title}" if section.title else "")
    chapter = f"অধ্যায় {to_bangla_digits(str(section.chapter))}: {section.chapter_title}" if section.chapter else ""
    nb = section_neighbourhood(graph, node_id, extra_nodes=[n for n in ev | ci if n.startswith(unit.version + ":")])
    return SectionView(
        version=unit.version,
        node_id=node_id,
        section_id=section.node_id,
        heading=heading,
        chapter=chapter,
        lines=lines,
        english=graph.english.get(section.node_id),
        diff=graph.diffs.get(section.label) if unit.version != ENGLISH_VERSION else None,
        graph_html=network_html(nb, evidence=ev, cited=ci, height_px=graph_height_px),
        graph_height_px=graph_height_px,
        graph_nodes=len(nb.nodes),
        graph_truncated=nb.truncated,
        missing_spans=missing,
    )
