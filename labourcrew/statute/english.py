"""Parser of the unofficial English translation of the Bangladesh Labour Act, 2006 (``en-2018``).

Source: ``data/statute/en/Bangladesh-Labour-Act-2006_English-Upto-2018.txt``, a pypdf extraction of
the English PDF, pages separated by form feeds (``data/statute/PROVENANCE.md``). The Bangla text is
authoritative; this translation is amended only up to 2018 (paper §3.2, version ``en-2018``).

The parse is deterministic and runs in three passes:

1. **Cleaning** (:func:`clean_text`): drop every page's running header ("Bangladesh Labour Act,
   2006") and page number; map the PDF's private-use dash glyph U+F8E7 to ``-``; rejoin compounds
   split at a line break (a line ending in ``letter-`` with no trailing space is a compound,
   ``sub-`` + ``section``; ``shall- `` with a trailing space is a lead-in dash and keeps its space);
   collapse whitespace. The cleaned lines joined by single spaces are the *clean text*: every
   :attr:`Unit.text` is a substring of it.
2. **Events**: chapter headings, section headings (``27. Title.- body``), sub-unit labels at a line
   start (``(1)``, ``(3A)``, ``(b)``, ``(cc)``, ``(ii)``), clause labels the PDF layout ran on into
   the previous clause's line (s. 72: ``obstructions; and (d) an employer ...``), provisos (even
   mid-line), explanations and line starts.
3. **Structure**: a state machine keeps the open path (section > sub-section > clause > item, or a
   proviso/explanation) and decides from list sequences what each label continues or opens:
   ``(i)`` after ``(h)`` is clause (i), after ``namely:`` it opens a roman list; ``(cc)`` follows
   ``(c)``; a line-initial ``(2)`` after "under sub-section" is a wrapped reference, not a label.

Labels follow the official English style: ``27``, ``27(3A)``, ``2(10)(b)``, ``1(4)(j)(i)`` (roman
items keep their numeral), ``27(1).proviso1``, ``56(2).explanation1``, ``38.para1``, ``ch10``.
Chapter XVIA (inserted after the repealed Chapter XVI) is ``ch16A`` with ``chapter=16``.
Everything odd is reported in :attr:`EnglishParse.anomalies`; the preamble and the Schedules are
not parsed into units and are reported there too, so no text is dropped silently.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from labourcrew.errors import DataError, InputError
from labourcrew.statute.model import ENGLISH_VERSION, CrossRef, Level, Unit
from labourcrew.statute.normalize import collapse_ws, normalize

__all__ = ["RUNNING_HEADER", "EnglishParse", "clean_text", "extract_refs", "parse_english"]

logger = logging.getLogger(__name__)

RUNNING_HEADER = "Bangladesh Labour Act, 2006"


class EnglishParse(BaseModel):
    """Result of :func:`parse_english`."""

    model_config = ConfigDict(extra="forbid")

    units: list[Unit] = Field(description="Citable units in document order (order 0..n-1).")
    refs: list[CrossRef] = Field(
        description="Cross-references found in unit texts and section titles (target=None)."
    )
    anomalies: list[str] = Field(description="Human-readable notes of anything odd in the source.")


# =============================================================================================
# Pass 1: cleaning
# =============================================================================================


@dataclass
class _Line:
    """One cleaned, non-blank line and its offset in the clean text."""

    page: int
    text: str
    blank_before: bool = False  # a blank line separates it from the previous line
    start: int = 0

    @property
    def end(self) -> int:
        return self.start + len(self.text)


# The PDF draws long dashes with a private-use glyph, sometimes doubled ("wages.\uf8e7\uf8e7(1)").
_PUA_DASH = re.compile("\uf8e7+")
# A compound split at a line break: letter + hyphen end the line with no trailing space
# ("sub-" / "section"); a lead-in dash ("shall- ") keeps its trailing space in the extraction.
_LINE_FINAL_HYPHEN = re.compile(r"[A-Za-z]-$")
_PAGE_NUMBER = re.compile(r"\d{1,3}")


def _read(path: Path) -> str:
    p = Path(path)
    if not p.is_file():
        raise InputError(
            f"English statute text not found: {p}",
            help_message="Pass data/statute/en/Bangladesh-Labour-Act-2006_English-Upto-2018.txt.",
        )
    try:
        return p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"Cannot read {p} as UTF-8 text: {exc}") from exc


def _clean_lines(raw: str, anomalies: list[str]) -> list[_Line]:
    """Cleaned non-blank lines with offsets into the clean text (lines joined by one space)."""
    pieces: list[tuple[int, str, bool]] = []  # (page, raw line, blank line before it)
    blank = False
    for page_no, page in enumerate(raw.split("\f"), start=1):
        lines = page.replace("\r\n", "\n").split("\n")
        if lines and lines[-1] == "":
            lines.pop()  # the newline ending the page's last line
        i = 0
        while i < len(lines) and not lines[i].strip():
            i += 1
        if i == len(lines):
            continue
        if lines[i].strip() == RUNNING_HEADER:
            i += 1
            j = i
            while j < len(lines) and not lines[j].strip():
                j += 1
            if j < len(lines) and _PAGE_NUMBER.fullmatch(lines[j].strip()):
                if int(lines[j].strip()) != page_no:
                    anomalies.append(f"page {page_no}: printed page number is {lines[j].strip()}")
                i = j + 1
            elif page_no > 1:
                anomalies.append(f"page {page_no}: no page number under the running header")
        else:
            anomalies.append(f"page {page_no}: running header missing")
        # blank lines between the header and the first text are layout, not paragraph breaks;
        # blank lines at the end of a page carry over to the next page's first line
        seen_text = False
        for line in lines[i:]:
            line = _PUA_DASH.sub("-", line)
            if not line.strip():
                blank = blank or seen_text
                continue
            pieces.append((page_no, line, blank))
            blank, seen_text = False, True

    out: list[_Line] = []
    compound_open = False
    for page_no, line, blank in pieces:
        text = collapse_ws(line)
        if compound_open and out and text[:1].isalpha():
            out[-1].text += text  # "sub-" + "section" -> "sub-section"
        else:
            out.append(_Line(page=page_no, text=text, blank_before=blank))
        compound_open = bool(_LINE_FINAL_HYPHEN.search(line))
    offset = 0
    for ln in out:
        ln.start = offset
        offset += len(ln.text) + 1
    return out


def _join(lines: list[_Line]) -> str:
    return " ".join(ln.text for ln in lines)


def clean_text(path: Path) -> str:
    """Return the cleaned full text of the English translation (preamble, body and Schedules).

    Page headers and page numbers removed, the PUA dash mapped to ``-``, line-break compounds
    rejoined, whitespace collapsed to single spaces. Every :attr:`Unit.text` produced by
    :func:`parse_english` for the same file is a substring of it.

    Args:
        path: the pypdf ``.txt`` extraction (pages separated by form feeds).

    Returns:
        One string without newlines.

    Raises:
        InputError: the file does not exist or is not UTF-8 text.
    """
    return _join(_clean_lines(_read(path), []))


# =============================================================================================
# Pass 2: events
# =============================================================================================

# "CHAPTER XVIA" alone on a line: roman numeral plus an optional inserted-chapter letter.
_CHAPTER_RE = re.compile(r"CHAPTER (?P<roman>[IVXL]+)(?P<suffix>[A-Z]?)")
# A section heading opening a line: "27. Termination ...", "263A. Special ...", "221 Costs ..."
# (one heading lacks its full stop). The title runs to _TITLE_END, possibly over 3 lines.
_SECTION_RE = re.compile(r"(?P<num>\d{1,3})(?P<suffix>[A-Z]?)(?P<dot>\.?) (?=[A-Z“\"‘'])")
# End of a section title: ".-" then a space, a label ("wages.-(1)") or the end of the text.
_TITLE_END = re.compile(r"\.\s?-(?=\s|\(|$)")
# A sub-unit label: "(1)", "(3A)", "(3a)", "(b)", "(cc)", "(iv)"; "(I)" misprints (1) in s. 188.
_LABEL_TOKEN = r"\((?P<tok>\d{1,3}[A-Za-z]?|[a-z]{1,4}|I)\)"
# ... opening a line, followed by a space ("(5)." or "(1)," are wrapped references).
_LABEL_AT_START = re.compile(_LABEL_TOKEN + r"(?=\s|$)")
# ... run on after "; and " / "; or " / "; " (s. 72: "obstructions; and (d) an employer may").
_LABEL_MIDLINE = re.compile(r"(?<=;) (?:(?:and|or) )?" + _LABEL_TOKEN + r"(?= [A-Za-z“])")
# Proviso openers, anywhere: "Provided that", "Provided further that", "Provided also that".
_PROVISO_RE = re.compile(r"Provided (?:(?:further|also) )?that\b")
# Explanation headings at a line start: "Explanation.- ...", "Explanation:", "Explanation I.-".
_EXPLANATION_RE = re.compile(r"Explanation(?: [IV]+)?\s?(?:\.\s?-|[.:—-])(?=\s|$)")
# ... and mid-line only in the unambiguous heading form "Explanation.-".
_EXPLANATION_MIDLINE = re.compile(r"(?<=[.;:] )Explanation(?: [IV]+)?\.\s?-(?=\s)")
# A line ending like this continues a reference, so a line-initial "(2)" is not a label
# ("under sub-section\n(2) due to ambiguity", "under section 210\n(11), give").
_REFERENCE_TAIL = re.compile(
    r"(?:\b(?:sub-sections?|sections?|clauses?|Chapters?|rules?|articles?|paragraphs?)|\d)$", re.I
)
# Text that introduces a list: "namely:-", "shall-", "following:", "if-".
_LEAD_IN = re.compile(r"(?:[:\-—]|\bnamely|\bfollowing)$")


@dataclass
class _Event:
    """A place in the clean text where a unit may start."""

    start: int
    kind: str  # chapter | section | label | proviso | explanation | linestart
    line: int  # index into the body lines
    token: str = ""  # label token, section label, or chapter roman numeral + suffix
    marker: str | None = None  # as written
    text_start: int | None = None  # where the unit's text begins (chapters, sections)
    title: str | None = None
    midline: bool = False


def _section_key(label: str) -> tuple[int, str]:
    m = re.fullmatch(r"(\d+)([A-Z]?)", label)
    return (int(m.group(1)), m.group(2)) if m else (0, "")


def _events(lines: list[_Line], anomalies: list[str]) -> list[_Event]:
    """Every possible unit start in the body lines, in document order."""
    events: list[_Event] = []
    last_section = (0, "")
    i = 0
    while i < len(lines):
        ln = lines[i]
        m = _CHAPTER_RE.fullmatch(ln.text)
        if m:
            j = i + 1  # the chapter name: the upper-case lines that follow
            while (
                j < len(lines)
                and lines[j].text.upper() == lines[j].text
                and not _SECTION_RE.match(lines[j].text)
            ):
                j += 1
            if j == i + 1:
                anomalies.append(f"{ln.text}: no chapter name found")
            name = _join(lines[i + 1 : j])
            events.append(
                _Event(
                    ln.start,
                    "chapter",
                    i,
                    token=m.group("roman") + m.group("suffix"),
                    marker=ln.text,
                    text_start=lines[i + 1].start if j > i + 1 else ln.end,
                    title=name,
                )
            )
            i = j
            continue
        sec = _section_heading(lines, i, last_section, anomalies)
        if sec is not None:
            events.append(sec)
            last_section = _section_key(sec.token)
            body_line = lines[sec.line]
            # the body may open on the heading's last line: "...application.- (1) This Act"
            _inline_events(events, body_line, (sec.text_start or 0) - body_line.start, sec.line, "")
            i = sec.line + 1
            continue
        _inline_events(events, ln, 0, i, lines[i - 1].text if i else "")
        i += 1
    return events


def _section_heading(
    lines: list[_Line], i: int, last: tuple[int, str], anomalies: list[str]
) -> _Event | None:
    """The section heading opening line ``i``, or None; checks number order and title end."""
    ln = lines[i]
    m = _SECTION_RE.match(ln.text)
    if not m:
        return None
    key = (int(m.group("num")), m.group("suffix"))
    label = f"{key[0]}{key[1]}"
    if key <= last or key[0] > last[0] + 12:
        return None  # out of order: a figure at a line start, not a heading
    if i and not ln.blank_before and _REFERENCE_TAIL.search(lines[i - 1].text):
        return None  # "retrench him under section\n20." (s. 16(7)) is a wrapped reference
    span = lines[i : i + 3]
    joined = _join(span)
    t = _TITLE_END.search(joined, m.end())
    if t is None or _SECTION_RE.match(joined, m.end()):
        return None
    title = joined[m.end() : t.start()].strip()
    if title.endswith("etc"):
        title += "."  # "Dining Room, etc.-": the title's full stop doubles as the separator
    if not m.group("dot"):
        anomalies.append(
            f"section {label}: heading number printed without its full stop ('{ln.text[:30]}')"
        )
    body = t.end() + len(joined[t.end() :]) - len(joined[t.end() :].lstrip())
    body_line = i
    for k, sl in enumerate(span):
        if sl.start - ln.start <= body:
            body_line = i + k
    return _Event(
        ln.start,
        "section",
        body_line,
        token=label,
        marker=label,
        text_start=ln.start + body,
        title=title,
    )


def _inline_events(events: list[_Event], ln: _Line, offset: int, index: int, prev: str) -> None:
    """Events in a line from ``offset`` on: opening label, run-on labels, provisos, explanations."""
    text = ln.text
    found: list[_Event] = []
    m = _LABEL_AT_START.match(text, offset)
    e = _EXPLANATION_RE.match(text, offset)
    if m and (offset > 0 or not _REFERENCE_TAIL.search(prev)):
        found.append(
            _Event(ln.start + m.start(), "label", index, token=m.group("tok"), marker=m.group(0))
        )
    elif e:
        found.append(_Event(ln.start + offset, "explanation", index, marker=e.group(0).strip()))
    elif offset == 0 and not _PROVISO_RE.match(text):
        found.append(_Event(ln.start, "linestart", index))
    for m in _LABEL_MIDLINE.finditer(text, offset):
        found.append(
            _Event(
                ln.start + m.start("tok") - 1,
                "label",
                index,
                token=m.group("tok"),
                marker=f"({m.group('tok')})",
                midline=True,
            )
        )
    for m in _PROVISO_RE.finditer(text, offset):
        found.append(_Event(ln.start + m.start(), "proviso", index, marker=m.group(0)))
    for m in _EXPLANATION_MIDLINE.finditer(text, offset):
        found.append(_Event(ln.start + m.start(), "explanation", index, marker=m.group(0)))
    events.extend(sorted(found, key=lambda ev: ev.start))


# =============================================================================================
# Pass 3: structure
# =============================================================================================

# Which lists a unit may hold, and the level of their members. List kinds: "num" (1), (2), (3A);
# "let" (a), (b), (cc); "rom" (i), (ii).
_CHILD_LEVEL: dict[Level, dict[str, Level]] = {
    Level.SECTION: {"num": Level.SUBSECTION, "let": Level.CLAUSE, "rom": Level.CLAUSE},
    Level.SUBSECTION: {"let": Level.CLAUSE, "rom": Level.CLAUSE, "num": Level.ITEM},
    Level.CLAUSE: {"rom": Level.ITEM, "num": Level.ITEM},
    Level.ITEM: {"let": Level.ITEM},  # s. 351(2)(a)(iii)(a): a lettered list inside a roman item
    Level.PROVISO: {"let": Level.CLAUSE, "rom": Level.CLAUSE, "num": Level.ITEM},
    Level.EXPLANATION: {"let": Level.CLAUSE, "rom": Level.CLAUSE, "num": Level.ITEM},
}
_FIRST = {"num": (1, ""), "let": ("a", 1), "rom": (1,)}
_ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50}


def _roman_to_int(s: str) -> int | None:
    """Value of a roman numeral (any case), None unless ``s`` is written canonically."""
    s = s.lower()
    if not s or any(ch not in _ROMAN for ch in s):
        return None
    total = (
        sum(-_ROMAN[a] if _ROMAN[a] < _ROMAN[b] else _ROMAN[a] for a, b in pairwise(s))
        + _ROMAN[s[-1]]
    )
    return total if _int_to_roman(total) == s else None


def _int_to_roman(n: int) -> str:
    out = ""
    for v, sym in ((50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")):
        while n >= v:
            out, n = out + sym, n - v
    return out


def _interpretations(tok: str) -> list[tuple[str, tuple]]:
    """Readings of a label token: ("num", (2, "A")), ("let", ("c", 2)) for (cc), ("rom", (4,))."""
    m = re.fullmatch(r"(\d+)([A-Za-z]?)", tok)
    if m:
        return [("num", (int(m.group(1)), m.group(2).upper()))]
    if tok == "I":
        return [("num", (1, ""))]
    out: list[tuple[str, tuple]] = []
    value = _roman_to_int(tok)
    if value is not None:
        out.append(("rom", (value,)))
    if re.fullmatch(r"([a-z])\1*", tok):  # "(ii)" may be a clause inserted after (i), s. 323(2)
        out.append(("let", (tok[0], len(tok))))
    return out


def _is_successor(kind: str, last: tuple, key: tuple) -> bool:
    """Is ``key`` the next member of a list whose last member is ``last``?"""
    if kind == "num":
        (n, s), (m, t) = last, key
        return (m == n + 1 and t == "") or (m == n and t == ("A" if not s else chr(ord(s) + 1)))
    if kind == "let":
        (c, k), (d, j) = last, key
        # (c) -> (d); an inserted clause doubles the letter: (c), (cc), (ccc), (d); (z) -> (aa)
        return (
            (d == c and j == k + 1)
            or (j == 1 and ord(d) == ord(c) + 1)
            or (c == "z" and d == "a" and j == 2)
        )
    return key[0] == last[0] + 1


def _is_later(kind: str, last: tuple, key: tuple) -> bool:
    """``key`` comes after ``last`` in its list, skipping members."""
    return key > last and (kind != "let" or key[1] == 1)


@dataclass
class _Chapter:
    number: int
    label: str
    title: str


@dataclass
class _Node:
    level: Level
    label: str
    marker: str | None
    start: int  # where the unit's span begins (and the previous unit's text ends)
    text_start: int  # where its text begins (after a section's number and title)
    parent: _Node | None
    section: str | None
    chapter: _Chapter
    title: str | None = None
    children: list[_Node] = field(default_factory=list)
    qualifiers: list[_Node] = field(default_factory=list)  # its provisos and explanations
    lists: dict[str, tuple] = field(default_factory=dict)  # list kind -> key of its last member
    counters: dict[str, int] = field(default_factory=dict)  # proviso / explanation / para numbering


class _Builder:
    """Turns events into the unit tree (the state machine of pass 3)."""

    def __init__(self, text: str, anomalies: list[str]):
        self.s = text
        self.anomalies = anomalies
        self.nodes: list[_Node] = []
        self.labels: set[str] = set()
        self.path: list[_Node] = []  # open units, section first
        self.chapter: _Chapter | None = None
        self.last_section = (0, "")

    def _add(self, node: _Node) -> None:
        if node.label in self.labels:  # never overwrite: keep both and say so
            n = 2
            while f"{node.label}~{n}" in self.labels:
                n += 1
            self.anomalies.append(
                f"section {node.section}: label {node.label} repeats; "
                f"the repeat is {node.label}~{n}"
            )
            node.label = f"{node.label}~{n}"
        self.labels.add(node.label)
        self.nodes.append(node)
        if node.parent is not None:
            node.parent.children.append(node)
            self.path = [*self.path[: self.path.index(node.parent) + 1], node]
        else:
            self.path = [node] if node.level == Level.SECTION else []

    def _text_so_far(self, node: _Node, upto: int) -> str:
        return self.s[node.text_start : upto].strip()

    def on_chapter(self, ev: _Event) -> None:
        m = re.fullmatch(r"([IVXL]+)([A-Z]?)", ev.token)  # "XVIA" -> XVI + A
        assert m is not None
        number = _roman_to_int(m.group(1)) or 0
        self.chapter = _Chapter(number, f"ch{number}{m.group(2)}", ev.title or "")
        self._add(
            _Node(
                Level.CHAPTER,
                self.chapter.label,
                ev.marker,
                ev.start,
                ev.text_start or ev.start,
                None,
                None,
                self.chapter,
            )
        )

    def on_section(self, ev: _Event) -> None:
        if self.chapter is None:
            raise DataError(f"Section {ev.token} precedes the first chapter heading.")
        key = _section_key(ev.token)
        if key[0] > self.last_section[0] + 1:
            self.anomalies.append(
                f"sections {self.last_section[0] + 1}-{key[0] - (0 if key[1] else 1)} are absent: "
                f"section {ev.token} follows section {self.last_section[0]}{self.last_section[1]}"
            )
        self.last_section = key
        self._add(
            _Node(
                Level.SECTION,
                ev.token,
                ev.marker,
                ev.start,
                ev.text_start or ev.start,
                None,
                ev.token,
                self.chapter,
                title=ev.title,
            )
        )

    def on_label(self, ev: _Event) -> None:
        """Place a label in the open path; if it fits nowhere its text stays with the open unit."""
        if not self.path:
            return
        interps = _interpretations(ev.token)
        deepest = len(self.path) - 1
        successors: list[tuple[int, str, tuple]] = []  # deepest first
        opener: tuple[int, str, tuple] | None = None  # a new list under the deepest unit
        for depth in range(deepest, -1, -1):
            allowed = _CHILD_LEVEL.get(self.path[depth].level, {})
            for kind, key in interps:
                last = self.path[depth].lists.get(kind)
                if kind not in allowed:
                    continue
                if last is None and depth == deepest and key == _FIRST[kind] and opener is None:
                    opener = (depth, kind, key)
                elif last is not None and _is_successor(kind, last, key):
                    successors.append((depth, kind, key))
        if opener and successors:
            # "(h) ... namely:" + "(i)" opens a roman list; "(h) ...;" + "(i)" continues the letters
            lead_in = _LEAD_IN.search(self._text_so_far(self.path[-1], ev.start))
            choice = opener if lead_in else successors[0]
        else:
            choice = successors[0] if successors else opener
        section = self.path[0]
        if ev.midline and choice not in successors:
            return  # only the next member of an open list runs on mid-line; else it is plain text
        unlabelled_first = ("num", (2, "")) in interps and "num" not in section.lists
        if choice is None and unlabelled_first and self._text_so_far(section, ev.start):
            # s. 157: sub-section (1) is printed without its label
            self.anomalies.append(
                f"section {section.label}: sub-section (1) is printed without its label; "
                "its text stays the section's lead text"
            )
            section.lists["num"] = (1, "")
            choice = (0, "num", (2, ""))
        if choice is None:
            choice = next(
                (
                    (d, kind, key)
                    for d in range(deepest, -1, -1)
                    for kind, key in interps
                    if kind in _CHILD_LEVEL.get(self.path[d].level, {})
                    and kind in self.path[d].lists
                    and _is_later(kind, self.path[d].lists[kind], key)
                ),
                None,
            )
            if choice is None:
                self.anomalies.append(
                    f"section {section.label}: label {ev.marker} fits no open list; "
                    f"kept as text of {self.path[-1].label}"
                )
                return
            self.anomalies.append(
                f"section {section.label}: label {ev.marker} skips members of its list "
                f"in {self.path[choice[0]].label}"
            )
        depth, kind, key = choice
        parent = self.path[depth]
        if ev.token == "I":
            self.anomalies.append(f"section {section.label}: label '(I)' read as (1)")
        elif kind == "num" and key[1] and not ev.token[-1].isupper():
            self.anomalies.append(
                f"section {section.label}: label {ev.marker} written in lower case, "
                f"labelled ({key[0]}{key[1]})"
            )
        if ev.midline:
            self.anomalies.append(
                f"section {section.label}: label {ev.marker} runs on in the line of the "
                "previous clause "
                "(PDF layout); a new unit starts there"
            )
        part = f"{key[0]}{key[1]}" if kind == "num" else ev.token.lower()
        parent.lists[kind] = key
        self._add(
            _Node(
                _CHILD_LEVEL[parent.level][kind],
                f"{parent.label}({part})",
                ev.marker,
                ev.start,
                ev.start,
                parent,
                parent.section,
                parent.chapter,
            )
        )

    def on_qualifier(self, ev: _Event, level: Level) -> None:
        """A proviso or an explanation: qualifies the enclosing sub-section, else the section."""
        if not self.path:
            return
        rule = next((n for n in reversed(self.path) if n.level == Level.SUBSECTION), self.path[0])
        kind = "proviso" if level == Level.PROVISO else "explanation"
        rule.counters[kind] = rule.counters.get(kind, 0) + 1
        node = _Node(
            level,
            f"{rule.label}.{kind}{rule.counters[kind]}",
            ev.marker,
            ev.start,
            ev.start,
            rule,
            rule.section,
            rule.chapter,
        )
        rule.qualifiers.append(node)
        self._add(node)

    def on_line_start(self, ev: _Event, line: str, prev: str) -> None:
        """An unlabelled line may resume the text that introduced a list (a paragraph unit)."""
        if len(self.path) < 2 or self.path[-1].level not in (Level.CLAUSE, Level.ITEM):
            return
        # the main sentence resumes after the last clause: "certificate;\nhe may, by a" (s. 38)
        resumes = (
            bool(re.search(r"[;.:]$", prev))
            and line[:1].islower()
            and not re.match(r"(?:and|or)\b", line)
        )
        # ... or its verb does: "any of the parties,\nmay, within 15 (fifteen) days" (s. 210(4))
        resumes = resumes or (prev.endswith(",") and re.match(r"(?:may|shall),", line) is not None)
        if not resumes:
            return
        parent = self.path[-2]
        parent.counters["para"] = parent.counters.get("para", 0) + 1
        self._add(
            _Node(
                Level.PARAGRAPH,
                f"{parent.label}.para{parent.counters['para']}",
                None,
                ev.start,
                ev.start,
                parent,
                parent.section,
                parent.chapter,
            )
        )


# =============================================================================================
# Driver
# =============================================================================================

# A unit whose whole text says it was repealed: "(m) (Repealed);", "(22) (Repealed)."
_OMITTED = re.compile(r"(?:\([^)]*\)\s*)?\((?:Repealed|Omitted)\)[.;]?(?: and| or)?")


def _regions(lines: list[_Line], anomalies: list[str]) -> tuple[int, int]:
    """Indices of the first body line ("CHAPTER I") and of the line ending it ("THE SCHEDULES")."""
    first = next((i for i, ln in enumerate(lines) if ln.text == "CHAPTER I"), None)
    if first is None:
        raise DataError("No 'CHAPTER I' heading: this is not the English text of the Labour Act.")
    end = next(
        (i for i, ln in enumerate(lines) if i > first and ln.text == "THE SCHEDULES"), len(lines)
    )
    if first:
        anomalies.append(
            f"the preamble (title, long title, enacting formula: "
            f"{len(_join(lines[:first]))} characters "
            "before Chapter I) is not parsed into units"
        )
    if end < len(lines):
        anomalies.append(
            f"the Schedules (pages {lines[end].page}-{lines[-1].page}, "
            f"{len(_join(lines[end:]))} characters "
            "after section 354) are not parsed into units"
        )
    return first, end


def parse_english(path: Path) -> EnglishParse:
    """Parse the English translation into citable units, cross-references and anomaly notes.

    Args:
        path: the pypdf ``.txt`` extraction of the English PDF (pages separated by form feeds),
            normally ``data/statute/en/Bangladesh-Labour-Act-2006_English-Upto-2018.txt``.

    Returns:
        An :class:`EnglishParse`: units in document order (version ``en-2018``, ids
        ``en-2018:{label}``, ``order`` 0..n-1, each ``text`` a substring of :func:`clean_text`),
        cross-references with ``target=None`` (the graph builder resolves them), anomalies.

    Raises:
        InputError: the file does not exist or is not UTF-8 text.
        DataError: the text lacks the chapter/section structure of the Labour Act.
    """
    anomalies: list[str] = []
    lines = _clean_lines(_read(path), anomalies)
    first, end = _regions(lines, anomalies)
    body = lines[first:end]
    builder = _Builder(_join(lines), anomalies)
    for ev in _events(body, anomalies):
        if ev.kind == "chapter":
            builder.on_chapter(ev)
        elif ev.kind == "section":
            builder.on_section(ev)
        elif ev.kind == "label":
            builder.on_label(ev)
        elif ev.kind == "proviso":
            builder.on_qualifier(ev, Level.PROVISO)
        elif ev.kind == "explanation":
            builder.on_qualifier(ev, Level.EXPLANATION)
        else:
            builder.on_line_start(ev, body[ev.line].text, body[ev.line - 1].text if ev.line else "")
    if not any(n.level == Level.SECTION for n in builder.nodes):
        raise DataError("No section headings found in the English text.")
    units = _to_units(builder.nodes, builder.s, body[-1].end)
    refs = extract_refs(units)
    logger.info(
        "parsed %s: %d units, %d cross-references, %d anomalies",
        path,
        len(units),
        len(refs),
        len(anomalies),
    )
    return EnglishParse(units=units, refs=refs, anomalies=anomalies)


def _nid(node: _Node) -> str:
    return f"{ENGLISH_VERSION}:{node.label}"


def _to_units(nodes: list[_Node], full: str, body_end: int) -> list[Unit]:
    """Units in document order; a unit's text runs from its text start to the next unit's start."""
    units: list[Unit] = []
    for k, n in enumerate(nodes):
        end = nodes[k + 1].start if k + 1 < len(nodes) else body_end
        text = full[n.text_start : end].strip() if end > n.text_start else ""
        units.append(
            Unit(
                node_id=_nid(n),
                version=ENGLISH_VERSION,
                level=n.level,
                label=n.label,
                section=n.section,
                chapter=n.chapter.number,
                chapter_title=n.chapter.title,
                title=n.title,
                marker=n.marker,
                text=text,
                text_norm=normalize(text),
                parent=_nid(n.parent) if n.parent else None,
                children=[_nid(c) for c in n.children],
                provisos=[_nid(q) for q in n.qualifiers],
                omitted=bool(_OMITTED.fullmatch(text)),
                order=k,
            )
        )
    return units


# =============================================================================================
# Cross-references
# =============================================================================================

_N = r"\d{1,3}[A-Z]?"  # a section number: "27", "263A", "120B"
_P = r"\(\s?(?:\d{1,3}[A-Za-z]?|[a-z]{1,4})\s?\)"  # one label in parentheses: "(3)", "(3A)", "(b)"
_CHAIN = rf"{_P}(?:\s?{_P})*"  # "(1)", "(1)(a)", "(2) (j)"
_CHAIN_RE = re.compile(_CHAIN)
# A figure followed by its spelling is an amount, not a reference: "2 (two) years".
_SPELLED = (
    r"\s?\((?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\w+teen|twenty|thirty|"
    r"forty|fifty|sixty|seventy|eighty|ninety|hundred)\b"
)
# "section 27", "section 27(3)", "section 125(2)(b)", "section 125 (2) (j)".
_SECTION_ITEM = re.compile(rf"(?P<num>{_N})\b(?P<chain>(?:\s?{_P})*)(?!{_SPELLED})")
# A sub-section/clause designation: "(3)", "(1)(a)", "(1) (b)"; or a bare figure ("sub-section 2").
_LABEL_ITEM = re.compile(rf"(?P<chain>{_CHAIN})|(?P<bare>\d{{1,3}}[A-Z]?)\b(?!{_SPELLED})")
# The next member of a list: "sections 19, 20 or 23", "(1), (3) or (4)", "(4)(b) and (g)".
_LIST_SEP = re.compile(r"\s*,\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+")
# A range of sections: "sections 19 to 23".
_RANGE_SEP = re.compile(r"\s+to\s+")
# The head of a reference inside this Act: "this section", "this sub-section", "this Chapter",
# "sub-section(s) ...", "section(s) ...", "clause(s) ...", "Chapter(s) XII ...". "insub-section"
# (a typo in s. 210(4)) is matched too, hence no word boundary before "sub-".
_REF_HEAD = re.compile(
    r"\b(?P<this>this (?:sub-section|section|Chapter))\b"
    r"|(?P<head>sub-sections?|(?<![-\w])[Ss]ections?|\b[Cc]lauses?|\bChapters?) ?"
)
# "of" tying a sub-section or clause to the unit that contains it:
# "clause (v) of clause (a) of sub-section (2) of section 178", "clause (b) of this sub-section".
_OF_OUTER = re.compile(r",? of (?=(?:this )?(?:sub-sections?|sections?|clauses?)\b)")
# Chapters by roman numeral: "Chapter X", "Chapters XII, XIII and XIV", "Chapter XVIA".
_CHAPTER_ITEM = re.compile(r"(?P<roman>[IVXL]+)(?P<suffix>A?)\b")
# Another statute named with its year: "Penal Code, 1860", "Code of Criminal Procedure, 1898",
# "Imports and Exports (Control) Act, 1950", "Income-tax Ordinance, 1984".
_ACT_WORD = r"(?:[A-Z][\w’'&.-]*|\([A-Z][\w’'&., -]*\)|of|and)"
_NAMED_ACT = rf"[A-Z][\w’'&-]*(?: {_ACT_WORD})*? (?:Act|Code|Ordinance|Order), ?\d{{4}}"
# Well-known statutes cited without a year.
_KNOWN_ACT = (
    r"\b(?:Penal Code|Code of Criminal Procedure|Code of Civil Procedure|Limitation Act"
    r"|Evidence Act)\b(?:, ?\d{4})?"
)
# "article 62, 79, 113 or 133 of the Constitution", "the Constitution"
# (not the title "Constitution of Safety Committee").
_CONSTITUTION = r"(?:\barticles? \d+(?:(?:, | and | or )\d+)*,? of )?\bthe Constitution\b(?! of)"
_EXTERNAL = re.compile(rf"{_CONSTITUTION}|{_NAMED_ACT}|{_KNOWN_ACT}")
# A unit reference belongs to another statute when "of the <statute>" follows it:
# "section 120B(2) of the Penal Code, 1860", "Chapter XXXV of the Code of Criminal Procedure".
_OF_EXTERNAL = re.compile(rf",? of (?:the )?(?=(?:{_NAMED_ACT}|{_KNOWN_ACT}))")
_SELF = re.compile(r"Bangladesh Labour Act, ?2006")  # this Act, named in s. 1(1)
_THE = re.compile(r"^(?:[Tt]he )")


@dataclass
class _RefPart:
    """One unit designation of a reference, e.g. "sub-sections (1) and (2)"."""

    # section | subsection | clause | chapter | this-section | this-subsection | this-chapter
    kind: str
    # label parts per member: ["125", "2", "j"]; a range of sections as ["19", "..", "23"]
    items: list[list[str]]
    end: int  # offset just after the designation


@dataclass
class _RefContext:
    """Where a reference is read: the source unit's section, sub-section and chapter."""

    section: str
    subsection: str | None
    chapter: str
    sections: list[str]  # every section label, for range expansion


def _parts(chain: str) -> list[str]:
    return [p.strip() for p in re.findall(r"\(([^()]*)\)", chain)]


def _merge_sibling(prev: list[str], sib: list[str], keep: int) -> list[str]:
    """Attach a bare sibling to its list: "(4)(b) and (g)" -> ["4", "g"]; "(1) or (2)" -> ["2"]."""

    def kind(p: str) -> bool:
        return p[:1].isdigit()

    for i in range(len(prev) - 1, keep - 1, -1):
        if kind(prev[i]) == kind(sib[0]):
            return prev[:i] + sib
    return prev + sib


def _parse_part(text: str, pos: int) -> _RefPart | None:
    """One reference head and its list at ``pos`` (see _REF_HEAD)."""
    m = _REF_HEAD.match(text, pos)
    if not m:
        return None
    if m.group("this"):
        kind = {"this section": "this-section", "this sub-section": "this-subsection"}.get(
            m.group("this"), "this-chapter"
        )
        return _RefPart(kind, [[]], m.end())
    head = m.group("head").lower()
    p = m.end()
    if head.startswith("chapter"):
        items: list[list[str]] = []
        while (c := _CHAPTER_ITEM.match(text, p)) is not None and (
            number := _roman_to_int(c.group("roman"))
        ):
            items.append([f"ch{number}{c.group('suffix')}"])
            p = c.end()
            sep = _LIST_SEP.match(text, p)
            if not (sep and _CHAPTER_ITEM.match(text, sep.end())):
                break
            p = sep.end()
        return _RefPart("chapter", items, p) if items else None
    is_section = head.startswith("section")
    item_re = _SECTION_ITEM if is_section else _LABEL_ITEM
    first = item_re.match(text, p)
    if not first:
        return None
    items = [_item_parts(first, is_section)]
    p = first.end()
    while True:
        sep = _LIST_SEP.match(text, p)
        if sep and (c := _CHAIN_RE.match(text, sep.end())):
            # a sibling: "section 125 (2) (j), (k) and (l)", "sub-section (1)(a) and (1)(b)"
            items.append(_merge_sibling(items[-1], _parts(c.group()), 1 if is_section else 0))
            p = c.end()
            continue
        if sep and is_section and (n := _SECTION_ITEM.match(text, sep.end())):
            items.append(_item_parts(n, True))  # "sections 19, 20 or 23"
            p = n.end()
            continue
        rng = _RANGE_SEP.match(text, p)
        if (
            rng
            and is_section
            and (n := _SECTION_ITEM.match(text, rng.end()))
            and not n.group("chain")
        ):
            items[-1] = [items[-1][0], "..", n.group("num")]  # "sections 19 to 23"
            p = n.end()
            continue
        break
    kind = "section" if is_section else ("subsection" if head.startswith("sub") else "clause")
    return _RefPart(kind, items, p)


def _item_parts(m: re.Match[str], is_section: bool) -> list[str]:
    if is_section:
        return [m.group("num"), *_parts(m.group("chain") or "")]
    return _parts(m.group("chain")) if m.group("chain") else [m.group("bare")]


def _label(base: str, parts: list[str]) -> str:
    return base + "".join(f"({p})" for p in parts)


def _expand_sections(items: list[list[str]], ctx: _RefContext) -> list[str]:
    out: list[str] = []
    for it in items:
        if len(it) == 3 and it[1] == "..":
            lo, hi = _section_key(it[0]), _section_key(it[2])
            # a range covers the sections inserted inside it ("sections 28 to 29" covers 28A) and,
            # when the Act's sections are known, only those that exist
            span = [s for s in ctx.sections if lo <= _section_key(s) <= hi]
            out += span or [str(n) for n in range(lo[0], hi[0] + 1)]
        else:
            out.append(_label(it[0], _norm_parts(it[1:])))
    return out


def _norm_parts(parts: list[str]) -> list[str]:
    """Label parts in the official style: "3a" (as printed in s. 62) becomes "3A"."""
    return [p.upper() if p[:1].isdigit() else p for p in parts]


def _resolve(chain: list[_RefPart], ctx: _RefContext) -> list[str]:
    """Target labels of a chain, innermost part first ("clause (a) of sub-section (2) of ...")."""
    outer = chain[-1]
    if outer.kind == "section":
        bases = _expand_sections(outer.items, ctx)
    elif outer.kind == "chapter":
        bases = [it[0] for it in outer.items]
    elif outer.kind == "this-section":
        bases = [ctx.section]
    elif outer.kind == "this-subsection":
        bases = [ctx.subsection or ctx.section]
    elif outer.kind == "this-chapter":
        bases = [ctx.chapter]
    elif outer.kind == "subsection":  # sub-section of the same section
        bases = [_label(ctx.section, _norm_parts(it)) for it in outer.items]
    else:  # a clause of the same sub-section (or section)
        bases = [_label(ctx.subsection or ctx.section, _norm_parts(it)) for it in outer.items]
    for part in reversed(chain[:-1]):
        bases = [_label(b, _norm_parts(it)) for b in bases for it in part.items]
    return bases


def _refs_in(text: str, source: str, ctx: _RefContext) -> list[CrossRef]:
    """Cross-references in one text (see the regexes above for the patterns handled)."""
    refs: list[CrossRef] = []
    taken: list[tuple[int, int]] = []
    for m in _REF_HEAD.finditer(text):
        if any(a <= m.start() < b for a, b in taken):
            continue
        chain: list[_RefPart] = []
        pos = m.start()
        while (part := _parse_part(text, pos)) is not None:
            chain.append(part)
            pos = part.end
            if part.kind not in ("subsection", "clause") or not (of := _OF_OUTER.match(text, pos)):
                break
            pos = of.end()
        if not chain:
            continue
        end = chain[-1].end
        ext = _OF_EXTERNAL.match(text, end)
        if ext and (act := _EXTERNAL.match(text, ext.end())) and not _SELF.fullmatch(act.group()):
            refs.append(CrossRef(source=source, surface=text[m.start() : act.end()], external=True))
            taken.append((m.start(), act.end()))
            continue
        surface = text[m.start() : end].rstrip(" ,")
        for label in _resolve(chain, ctx):
            refs.append(CrossRef(source=source, surface=surface, target_label=label))
        taken.append((m.start(), end))
    for m in _EXTERNAL.finditer(text):
        if any(a <= m.start() < b for a, b in taken) or _SELF.fullmatch(m.group()):
            continue
        refs.append(CrossRef(source=source, surface=_THE.sub("", m.group()), external=True))
    return refs


def extract_refs(units: list[Unit]) -> list[CrossRef]:
    """Cross-references in every unit's text and every section title, in document order.

    Internal references get ``target_label`` (``"27"``, ``"27(3)"``, ``"5(1)(b)"``, ``"ch10"``):
    "sub-section (3)" is read in the unit's own section, "clause (b)" in its own sub-section (else
    section), "this Chapter" / "this section" / "this sub-section" in the unit's own; ranges
    ("sections 19 to 23") are expanded. References to other statutes (Penal Code, Code of
    Criminal Procedure, "... Act, 1908", Ordinances, the Constitution and its articles) get
    ``external=True`` and ``target_label=None``. ``target`` is always None: the graph builder
    resolves labels to node ids.

    Args:
        units: the units of one English parse (any order; contexts come from ``parent``).

    Returns:
        CrossRef records; identical (source, surface, target_label) triples are kept once.
    """
    by_id = {u.node_id: u for u in units}
    chapters = {u.chapter: u.label for u in units if u.level == Level.CHAPTER}
    sections = [u.label for u in units if u.level == Level.SECTION]
    out: list[CrossRef] = []
    seen: set[tuple[str, str, str | None]] = set()
    for u in units:
        if u.level == Level.CHAPTER or u.section is None:
            continue
        sub = u
        while sub.level != Level.SUBSECTION and sub.parent is not None:
            sub = by_id[sub.parent]
        ctx = _RefContext(
            section=u.section,
            subsection=sub.label if sub.level == Level.SUBSECTION else None,
            chapter=chapters.get(u.chapter or 0, f"ch{u.chapter}"),
            sections=sections,
        )
        texts = [u.text] + ([u.title] if u.level == Level.SECTION and u.title else [])
        for text in texts:
            for ref in _refs_in(text, u.node_id, ctx):
                key = (ref.source, ref.surface, ref.target_label)
                if key not in seen:
                    seen.add(key)
                    out.append(ref)
    return out
