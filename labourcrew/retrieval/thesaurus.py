"""The Bangla labour-law thesaurus: what people say -> the words the Act uses.

Workers ask about "রিজাইন", "স্যালারি", "ওভারটাইম" or "ম্যাটার্নিটি লিভ", in Bangla, in romanised Bangla
("amar salary 3 mash dey nai") or in English; the Act (2025 bdlaws text) says ইস্তফা, মজুরী, অধিকাল,
প্রসূতি কল্যাণ. ``data/thesaurus/labour_terms_bn.json`` is a hand-reviewed list of :class:`Concept` s, each
with the Act's own terms (``act_terms``, spelled as in the Act and verified against it), the user
vocabulary in three registers and the governing sections. This module loads it and matches text:

* :meth:`Thesaurus.match` -- which concepts a question mentions, and by which term;
* :meth:`Thesaurus.expand` -- the question followed by the Act's terms (query expansion);
* :meth:`Thesaurus.sections_for` -- the sections of the concepts a question mentions.

Matching works on :func:`~labourcrew.statute.normalize.normalize` d text (NFC, legacy-glyph fixes,
ASCII digits, casefold). Bangla terms match where a word *starts* with them, so suffixes are allowed
("স্যালারির" matches "স্যালারি", "রিজাইন দিলে" matches "রিজাইন") but a term is not found inside another
word ("বেতন" does not match "সবেতন"); in Bangla terms a hyphen may be written as a space or left out
and a space as a hyphen ("পীড়া ছুটি" = "পীড়া-ছুটি"). Latin terms (romanised Bangla, English, and the
few English act terms) match on word boundaries only ("ot" matches "ot koto" but not "hot"), with the
same hyphen/space tolerance.

:func:`verify_thesaurus` checks the data against the StatuteGraph (every act term occurs in the
Act's text and in one of its concept's sections; every section exists and is not omitted).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections import Counter
from functools import cached_property, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from labourcrew.errors import DataError
from labourcrew.graph.statute_graph import REPO_ROOT
from labourcrew.statute.model import Level
from labourcrew.statute.normalize import normalize

if TYPE_CHECKING:
    from labourcrew.graph.statute_graph import StatuteGraph

__all__ = [
    "DEFAULT_PATH",
    "Kind",
    "KINDS",
    "Concept",
    "ConceptMatch",
    "Thesaurus",
    "load_thesaurus",
    "verify_thesaurus",
]

log = logging.getLogger(__name__)

DEFAULT_PATH = REPO_ROOT / "data" / "thesaurus" / "labour_terms_bn.json"

Kind = Literal["act", "bn", "roman", "en"]
#: Kinds in priority order; a term listed under several kinds of one concept counts as the first.
KINDS: tuple[Kind, ...] = ("act", "bn", "roman", "en")
_KIND_FIELD: dict[str, str] = {
    "act": "act_terms",
    "bn": "user_terms_bn",
    "roman": "user_terms_roman",
    "en": "user_terms_en",
}

_BENGALI = re.compile("[\u0980-\u09ff]")
# A Bangla term must not continue a word: no Bangla letter/sign or ASCII letter/digit right before it.
_BN_LEFT = r"(?<![\u0980-\u09ffa-z0-9])"
_LATIN_LEFT = r"(?<![a-z0-9])"
_LATIN_RIGHT = r"(?![a-z0-9])"
_SECTION_LABEL = re.compile(r"^[0-9]+[A-Z]*$")
_CONCEPT_ID = re.compile(r"^[a-z][a-z0-9_]*$")


def _term_pattern(term_norm: str) -> str:
    """Regex source for one normalised term (see the module docstring for the rules)."""
    parts: list[str] = []
    for ch in term_norm:
        if ch == "-":
            parts.append(r"[-\s]?")
        elif ch == " ":
            parts.append(r"[-\s]")
        else:
            parts.append(re.escape(ch))
    body = "".join(parts)
    if _BENGALI.search(term_norm):
        return _BN_LEFT + body
    return _LATIN_LEFT + body + _LATIN_RIGHT


@lru_cache(maxsize=4096)
def _term_regex(term_norm: str) -> re.Pattern[str]:
    """Compiled :func:`_term_pattern` (cached: the same few thousand terms are reused)."""
    return re.compile(_term_pattern(term_norm))


class Concept(BaseModel):
    """One labour-law concept: the Act's words for it, what people say, and where the Act rules on it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(description="Stable snake_case id, e.g. 'resignation'.")
    act_terms: list[str] = Field(
        min_length=1, description="The Act's own words, spelled as in the 2025 text (e.g. 'ইস্তফা', 'মজুরী')."
    )
    user_terms_bn: list[str] = Field(default_factory=list, description="What people write in Bangla script.")
    user_terms_roman: list[str] = Field(
        default_factory=list, description="Romanised Bangla as people type it ('beton', 'chakri chara'), lower case."
    )
    user_terms_en: list[str] = Field(default_factory=list, description="English words people use, lower case.")
    sections: list[str] = Field(
        min_length=1, description="ASCII labels of the governing sections of the 2025 version, most relevant first."
    )
    note: str = Field(default="", description="Reviewer's note: what the sections say, pitfalls, spelling.")

    @field_validator("id")
    @classmethod
    def _check_id(cls, v: str) -> str:
        if not _CONCEPT_ID.match(v):
            raise ValueError(f"concept id {v!r} must be snake_case ascii ([a-z][a-z0-9_]*)")
        return v

    @field_validator("act_terms", "user_terms_bn", "user_terms_roman", "user_terms_en")
    @classmethod
    def _check_terms(cls, v: list[str]) -> list[str]:
        for t in v:
            if not normalize(t):
                raise ValueError(f"empty term {t!r}")
        return v

    @field_validator("sections")
    @classmethod
    def _check_sections(cls, v: list[str]) -> list[str]:
        for s in v:
            if not _SECTION_LABEL.match(s):
                raise ValueError(f"section label {s!r} is not an ASCII section label like '27' or '3A'")
        if len(set(v)) != len(v):
            raise ValueError(f"repeated section label in {v}")
        return v

    def terms(self) -> list[tuple[str, Kind]]:
        """Every term with its kind, in priority order (act, bn, roman, en), without normalised repeats.

        Returns:
            ``(term as written in the data, kind)`` pairs.
        """
        out: list[tuple[str, Kind]] = []
        seen: set[str] = set()
        for kind in KINDS:
            for t in getattr(self, _KIND_FIELD[kind]):
                n = normalize(t)
                if n not in seen:
                    seen.add(n)
                    out.append((t, kind))
        return out


class ConceptMatch(BaseModel):
    """One concept found in a text: its id, the thesaurus term that matched and where."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    concept_id: str = Field(description="Id of the matched concept.")
    term: str = Field(description="The matched surface term, as written in the thesaurus.")
    kind: Kind = Field(description="Which list the term comes from: act, bn, roman or en.")
    start: int = Field(ge=0, description="Start offset of the match in normalize(text).")
    end: int = Field(ge=0, description="End offset (exclusive) of the match in normalize(text).")


class Thesaurus(BaseModel):
    """The reviewed thesaurus file plus its matcher.

    Build it with :func:`load_thesaurus`; constructing it directly (e.g. in a test) works too, with
    ``sha256`` left empty.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: int = Field(ge=1, description="Format version of the file.")
    reviewed_by: str = Field(min_length=1, description="Who reviewed the data.")
    notes: str = Field(default="", description="Conventions of the file.")
    concepts: list[Concept] = Field(min_length=1, description="The concepts, in file order.")
    sha256: str = Field(default="", description="sha256 hex digest of the file bytes ('' if not from a file).")

    @model_validator(mode="after")
    def _unique_ids(self) -> Thesaurus:
        dups = sorted(i for i, n in Counter(c.id for c in self.concepts).items() if n > 1)
        if dups:
            raise ValueError(f"duplicate concept id(s): {', '.join(dups)}")
        return self

    # -- look-ups --------------------------------------------------------------------------
    @cached_property
    def by_id(self) -> dict[str, Concept]:
        """Concept id -> concept."""
        return {c.id: c for c in self.concepts}

    @cached_property
    def _matchers(self) -> list[tuple[Concept, re.Pattern[str], list[tuple[str, Kind]]]]:
        """Per concept: one compiled alternation of all its terms (longest first) and group -> term."""
        out = []
        for c in self.concepts:
            terms = sorted(c.terms(), key=lambda tk: -len(normalize(tk[0])))
            alts = "|".join(f"({_term_pattern(normalize(t))})" for t, _ in terms)
            out.append((c, re.compile(alts), terms))
        return out

    # -- matching --------------------------------------------------------------------------
    def match(self, text: str) -> list[ConceptMatch]:
        """Find the concepts a text mentions.

        Args:
            text: a question or any Bangla/English text (it is normalised first).

        Returns:
            One :class:`ConceptMatch` per matched concept -- its earliest match, the longest term at
            that position -- ordered by position in ``normalize(text)``, longer matches first at the
            same position, then file order. Empty when nothing matches (also for an empty text).
        """
        norm = normalize(text or "")
        if not norm:
            return []
        found: list[tuple[int, int, int, ConceptMatch]] = []
        for order, (c, rx, terms) in enumerate(self._matchers):
            m = rx.search(norm)
            if m is None:
                continue
            term, kind = terms[m.lastindex - 1]
            found.append(
                (m.start(), -(m.end() - m.start()), order,
                 ConceptMatch(concept_id=c.id, term=term, kind=kind, start=m.start(), end=m.end()))
            )
        found.sort(key=lambda f: f[:3])
        return [f[3] for f in found]

    def concept_ids(self, text: str) -> set[str]:
        """Ids of the concepts :meth:`match` finds in ``text``."""
        return {m.concept_id for m in self.match(text)}

    def expand(self, text: str) -> str:
        """Query expansion: ``text`` followed by the Act terms of its concepts that it lacks.

        Args:
            text: the user's question.

        Returns:
            ``text`` unchanged when no concept matches or every act term is already present
            (by the same matching rules, so "পীড়া ছুটি" counts as containing "পীড়া-ছুটি"); otherwise ``text + " " + terms`` with the missing act terms,
            space-joined, in match order and without repeats.
        """
        norm = normalize(text or "")
        extra: list[str] = []
        seen: set[str] = set()
        for m in self.match(text):
            for t in self.by_id[m.concept_id].act_terms:
                n = normalize(t)
                if n in seen or _term_regex(n).search(norm):
                    continue
                seen.add(n)
                extra.append(t)
        if not extra:
            return text
        return f"{text} {' '.join(extra)}"

    def sections_for(self, text: str) -> list[str]:
        """Section labels of the concepts in ``text``: in match order, each concept's own order, unique.

        Returns:
            ASCII section labels of the 2025 version, e.g. ``["27"]`` for "রিজাইন দিলে কি পাবো".
        """
        out: list[str] = []
        for m in self.match(text):
            for s in self.by_id[m.concept_id].sections:
                if s not in out:
                    out.append(s)
        return out


# -- loading -------------------------------------------------------------------------------
def _schema_message(err: ValidationError, limit: int = 8) -> str:
    parts = []
    for e in err.errors()[:limit]:
        loc = ".".join(str(x) for x in e["loc"]) or "<root>"
        parts.append(f"{loc}: {e['msg']}")
    more = err.error_count() - limit
    if more > 0:
        parts.append(f"... and {more} more")
    return "; ".join(parts)


@lru_cache(maxsize=16)
def _load_cached(path: Path) -> Thesaurus:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise DataError(f"thesaurus file not found: {path}") from None
    except OSError as e:
        raise DataError(f"cannot read thesaurus file {path}: {e}") from e
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise DataError(f"thesaurus file {path} is not UTF-8: {e}") from e
    except json.JSONDecodeError as e:
        raise DataError(f"thesaurus file {path} is not valid JSON: line {e.lineno} column {e.colno}: {e.msg}") from e
    if not isinstance(data, dict):
        raise DataError(f"thesaurus file {path} must hold a JSON object, not {type(data).__name__}")
    digest = hashlib.sha256(raw).hexdigest()
    try:
        th = Thesaurus.model_validate({**data, "sha256": digest})
    except ValidationError as e:
        raise DataError(f"thesaurus file {path} does not match the schema: {_schema_message(e)}") from e
    log.debug("loaded thesaurus %s: %d concepts, sha256 %s", path, len(th.concepts), digest[:12])
    return th


def load_thesaurus(path: str | Path = DEFAULT_PATH) -> Thesaurus:
    """Load and validate the thesaurus file, cached by (resolved) path.

    Args:
        path: the JSON file; ``data/thesaurus/labour_terms_bn.json`` by default.

    Returns:
        The :class:`Thesaurus`, with ``sha256`` of the file bytes. The same object is returned for the
        same path until ``load_thesaurus.cache_clear()`` (failures are not cached).

    Raises:
        DataError: the file is missing or unreadable, is not UTF-8 JSON, is not an object, does not
            match the schema (unknown or missing fields, empty term lists, bad section labels) or
            repeats a concept id.
    """
    return _load_cached(Path(path).resolve())


load_thesaurus.cache_clear = _load_cached.cache_clear  # type: ignore[attr-defined]


# -- verification against the Act ----------------------------------------------------------
def verify_thesaurus(thesaurus: Thesaurus, graph: StatuteGraph, version: str = "2025") -> list[str]:
    """Check the data against the Act's text.

    Rules: every listed section exists in ``version`` and is not omitted; every act term occurs,
    after :func:`~labourcrew.statute.normalize.normalize`, in the text of the version (unit texts,
    not headings) and in the text of at least one of its concept's listed sections (the section unit
    and its descendants).

    Args:
        thesaurus: the loaded thesaurus.
        graph: the StatuteGraph.
        version: statute version the section labels refer to.

    Returns:
        Human-readable problems, one per line; empty when the data is consistent.

    Raises:
        InputError: ``version`` is unknown (from the graph).
    """
    units = graph.version_units(version)
    sections = {u.label: u for u in units if u.level == Level.SECTION}
    act_text = " ".join(u.text_norm for u in units if not u.omitted)
    sec_text: dict[str, str] = {}
    problems: list[str] = []
    for c in thesaurus.concepts:
        for s in c.sections:
            u = sections.get(s)
            if u is None:
                problems.append(f"{c.id}: section {s} does not exist in version {version}")
            elif u.omitted:
                problems.append(f"{c.id}: section {s} is omitted in version {version}")
            else:
                sec_text.setdefault(s, normalize(graph.section_text(u.node_id)))
        for t in c.act_terms:
            n = normalize(t)
            if n not in act_text:
                problems.append(f"{c.id}: act term {t!r} does not occur in the {version} text")
            elif not any(n in sec_text.get(s, "") for s in c.sections):
                problems.append(f"{c.id}: act term {t!r} occurs in none of its sections {c.sections}")
    return problems
