"""Typed records of the StatuteGraph (paper §3.2): citable units, typed edges, amendment notes.

A *citable unit* is the smallest piece of the Act an answer may cite: a chapter, a section, a
sub-section, a clause, a numbered item inside a clause, a proviso, an explanation, or an
unlabelled paragraph that continues one of those. Units are grouped per *statute version*:

* ``2025`` -- bdlaws text amended by Ordinance 65 of 2025 (the law in force, the default);
* ``2018`` -- bdlaws text amended up to Act 58 of 2018;
* ``en-2018`` -- the unofficial English translation, amended up to 2018.

Ids are ``"{version}:{label}"`` where ``label`` is the ASCII section label in the official English
style (``27``, ``27(3A)``, ``2(10)(b)``, ``27(1).proviso1``, ``2(10).explanation1``,
``ch10`` for chapter X). Ids are deterministic: the same input text always yields the same ids.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "Level",
    "EdgeType",
    "VERSIONS",
    "DEFAULT_VERSION",
    "ENGLISH_VERSION",
    "AmendmentNote",
    "CrossRef",
    "Unit",
    "SectionDiff",
    "EnglishParallel",
]

VERSIONS: tuple[str, ...] = ("2025", "2018", "en-2018")
DEFAULT_VERSION = "2025"
ENGLISH_VERSION = "en-2018"
ENGLISH_LABEL = "unofficial translation, amended to 2018"


class Level(StrEnum):
    """Structural level of a citable unit."""

    CHAPTER = "chapter"
    SECTION = "section"
    SUBSECTION = "subsection"
    CLAUSE = "clause"
    ITEM = "item"  # numbered list (১), (২) ... inside a clause or proviso
    PROVISO = "proviso"
    EXPLANATION = "explanation"
    PARAGRAPH = "paragraph"  # unlabelled continuation or omitted-text marker ([***])


class EdgeType(StrEnum):
    """Typed StatuteGraph edges (paper §3.2). ``child`` is the inverse of ``parent``,
    ``cited_by`` the inverse of ``cross_ref``.
    """

    PARENT = "parent"
    CHILD = "child"
    PROVISO = "proviso"  # rule -> each of its provisos (and explanations)
    CROSS_REF = "cross_ref"
    # unit -> each unit whose reference covers it ("ধারা ১৯৬খ" covers 196B(1)): how a duty
    # finds the penalty that punishes it (291(4) cites 196B).
    CITED_BY = "cited_by"


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)


class AmendmentNote(_Record):
    """An amendment footnote of the official text (``span.footnote`` title)."""

    note: str = Field(description="The note text verbatim, e.g. '... এর ৩(ক) ধারাবলে বিলুপ্ত।'")
    action: Literal["inserted", "substituted", "omitted", "added", "renumbered", "other"] = Field(
        description="What the amending instrument did, classified from the note's verb."
    )
    instrument: str | None = Field(
        default=None, description="The amending Act or Ordinance named in the note, if any."
    )
    year: int | None = Field(default=None, description="Year of the amending instrument, if found.")


class CrossRef(_Record):
    """A reference found in a unit's text and its resolution.

    ``target`` is a node id when resolved; otherwise ``reason`` says why not. External references
    (to other Acts, e.g. the Penal Code) are kept with ``external=True`` and never resolved.
    """

    source: str = Field(description="Node id of the unit whose text contains the reference.")
    surface: str = Field(description="The reference as written in the text, e.g. 'ধারা ২৭'.")
    target_label: str | None = Field(
        default=None, description="The label the reference asks for, e.g. '27(3)'."
    )
    target: str | None = Field(
        default=None, description="Resolved node id (the most specific existing unit)."
    )
    exact: bool = Field(
        default=True,
        description="False when resolved to an ancestor because the exact unit does not exist.",
    )
    external: bool = Field(default=False, description="True for references to another statute.")
    reason: str | None = Field(default=None, description="Why unresolved (None when resolved).")


class EnglishParallel(_Record):
    """English text aligned to a Bangla section (section-level alignment)."""

    node_id: str = Field(description="Id of the English section unit (version en-2018).")
    text: str = Field(description="The English section text (all its units, in order).")
    label: str = Field(default=ENGLISH_LABEL, description="Status label shown with the English.")
    outdated: bool = Field(
        default=False,
        description="True when the Bangla text of this version differs from 2018 for this section.",
    )


class Unit(_Record):
    """One citable unit of one statute version (paper §3.2)."""

    node_id: str = Field(description="Stable id '{version}:{label}'.")
    version: str = Field(description="Statute version: '2025', '2018' or 'en-2018'.")
    level: Level = Field(description="Structural level.")
    label: str = Field(description="ASCII label in the official English style, e.g. '27(3A)'.")
    section: str | None = Field(
        default=None, description="ASCII section label this unit belongs to (None for chapters)."
    )
    chapter: int | None = Field(default=None, description="Chapter number (1-21).")
    chapter_title: str | None = Field(default=None, description="Chapter name as in the source.")
    title: str | None = Field(default=None, description="Section title (sections only).")
    marker: str | None = Field(
        default=None, description="The label as written in the source, e.g. '(৩ক)', '২৭ক'."
    )
    text: str = Field(description="Verbatim source text (whitespace collapsed, notes removed).")
    text_norm: str = Field(description="normalize(text): for search and matching only.")
    parent: str | None = Field(default=None, description="Node id of the parent unit.")
    children: list[str] = Field(default_factory=list, description="Child node ids, in order.")
    provisos: list[str] = Field(
        default_factory=list, description="Proviso/explanation node ids qualifying this rule."
    )
    cross_refs: list[str] = Field(
        default_factory=list, description="Resolved cross-reference target node ids."
    )
    notes: list[AmendmentNote] = Field(
        default_factory=list, description="Amendment notes attached to this unit's text."
    )
    omitted: bool = Field(default=False, description="True when the unit's text is omitted.")
    order: int = Field(description="Document order within its version (0-based).")


class SectionDiff(_Record):
    """How one section changed from version ``2018`` to ``2025``."""

    section: str = Field(description="ASCII section label.")
    status: Literal["inserted", "amended", "omitted", "unchanged"] = Field(
        description="inserted: only in 2025; omitted: gone or emptied in 2025; amended: text differs."
    )
    diff: str = Field(default="", description="Readable unified diff of the section text.")
    notes_2025: list[AmendmentNote] = Field(
        default_factory=list, description="2025 Ordinance notes found in this section."
    )
