"""Parser of the unofficial English translation of the Bangladesh Labour Act, 2006 (version ``en-2018``).

Source: ``data/statute/en/Bangladesh-Labour-Act-2006_English-Upto-2018.txt``, a pypdf extraction of
the English PDF (pages separated by form feeds; see ``data/statute/PROVENANCE.md``). The Bangla text
is authoritative; this translation is amended only up to 2018.

The parse is deterministic and runs in three passes:

1. **Cleaning** (:func:`clean_text`): drop each page's running header ("Bangladesh Labour Act, 2006")
   and page number, map the PDF's private-use dash glyph (U+F8E7) to ``-``, rejoin compounds split
   at a line break (``sub-`` + ``section`` -> ``sub-section``; a line-final hyphen with no trailing
   space is a compound, ``shall- `` with a space is a lead-in dash), collapse whitespace. The cleaned
   lines joined by single spaces are the *clean text*; every unit's ``text`` is a substring of it.
2. **Events**: chapter headings, section headings (``27. Title.- ...``), sub-unit labels
   (``(1)``, ``(3A)``, ``(b)``, ``(cc)``, ``(ii)``), provisos, explanations and line starts.
3. **Structure**: a small state machine keeps the open path (section > sub-section > clause > item,
   or a proviso/explanation) and decides, from label sequences, what each label continues or opens.

Labels follow the official English style: ``27``, ``27(3A)``, ``2(10)(b)``, ``1(4)(j)(i)``,
``27(1).proviso1``, ``2(10).explanation1``, ``ch10``; chapter XVIA is ``ch16A`` (chapter XVI was
repealed). Everything odd is reported in :attr:`EnglishParse.anomalies`; no text is dropped silently:
the preamble and the Schedules are not parsed into units and are reported as anomalies.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from labourcrew.errors import DataError, InputError
from labourcrew.statute.model import ENGLISH_VERSION, CrossRef, Level, Unit
from labourcrew.statute.normalize import collapse_ws, normalize

__all__ = ["EnglishParse", "parse_english", "clean_text"]

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


# --------------------------------------------------------------------------------------------
# Pass 1: cleaning
# --------------------------------------------------------------------------------------------


@dataclass
class _Line:
    """One cleaned (non-blank) line of the source, with its offset in the clean text."""

    page: int
    text: str
    start: int = 0
    blank_before: bool = False

    @property
    def end(self) -> int:
        return self.start + len(self.text)


# The PDF draws long dashes with a private-use glyph (U+F8E7), sometimes doubled ("wages.\uf8e7\uf8e7(1)").
_PUA_DASH = re.compile("\uf8e7+")
# A compound split at a line break: a letter and a hyphen end the line with no trailing space
# ("sub-" / "section"). A lead-in dash ("shall- ") keeps its trailing space in the extraction.
_LINE_FINAL_HYPHEN = re.compile(r"[A-Za-z]-$")
_PAGE_NUMBER = re.compile(r"\d{1,3}")


def _read(path: Path) -> str:
    p = Path(path)
    if not p.is_file():
        raise InputError(
            f"English statute text not found: {p}",
            help_message="Pass the path of data/statute/en/Bangladesh-Labour-Act-2006_English-Upto-2018.txt.",
        )
    try:
        return p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"Cannot read {p} as UTF-8 text: {exc}") from exc


def _clean_lines(raw: str, anomalies: list[str]) -> list[_Line]:
    """Strip headers/page numbers, rejoin line-break compounds, collapse whitespace.

    Returns the non-blank lines with offsets into the clean text (lines joined by one space).
    """
    pieces: list[tuple[int, str, bool]] = []  # (page, raw line, blank line before it)
    blank = False
    for page_no, page in enumerate(raw.split("\f"), start=1):
        lines = page.split("\n")
        if lines and lines[-1] == "":
            lines.pop()  # the newline that ends the page's last line
        i = 0
        while i < len(lines) and not lines[i].strip():
            i += 1
        if i == len(lines):
            continue  # trailing empty page after the last form feed
        if lines[i].strip() == RUNNING_HEADER:
            i += 1
            # the page number follows the header (page 1 has none)
            j = i
            while j < len(lines) and not lines[j].strip():
                j += 1
            if j < len(lines) and _PAGE_NUMBER.fullmatch(lines[j].strip()):
                if int(lines[j].strip()) != page_no:
                    anomalies.append(
                        f"page {page_no}: printed page number {lines[j].strip()} differs from its position"
                    )
                i = j + 1
            elif page_no > 1:
                anomalies.append(f"page {page_no}: no page number after the running header")
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
            blank = False
            seen_text = True

    out: list[_Line] = []
    joined_hyphen = False
    for page_no, line, blank in pieces:
        text = collapse_ws(line)
        if joined_hyphen and out and text[:1].isalpha():
            out[-1].text += text  # "sub-" + "section": keep the hyphen, no space
        else:
            out.append(_Line(page=page_no, text=text, blank_before=blank))
        joined_hyphen = bool(_LINE_FINAL_HYPHEN.search(line.rstrip("\r")))
    offset = 0
    for ln in out:
        ln.start = offset
        offset += len(ln.text) + 1
    return out


def _join(lines: list[_Line]) -> str:
    return " ".join(ln.text for ln in lines)


def clean_text(path: Path) -> str:
    """Return the cleaned full text of the English translation.

    Page headers and page numbers removed, line-break compounds rejoined, whitespace collapsed to
    single spaces. Every :attr:`Unit.text` of :func:`parse_english` is a substring of it.

    Args:
        path: the pypdf ``.txt`` extraction (pages separated by form feeds).

    Returns:
        One string (no newlines).

    Raises:
        InputError: the file does not exist or is not UTF-8 text.
    """
    return _join(_clean_lines(_read(path), []))


# --------------------------------------------------------------------------------------------
# Pass 2: events
# --------------------------------------------------------------------------------------------

# "CHAPTER XVIA" on a line of its own (roman numeral, optional inserted-chapter letter).
_CHAPTER_RE = re.compile(r"CHAPTER (?P<roman>[IVXL]+)(?P<suffix>[A-Z]?)")
# A section heading opens a line: "27. Title.- body", "263A. Title", "221 Costs of the case.- ..."
# (one heading lacks the dot). The title may run over the next lines; see _TITLE_END.
_SECTION_RE = re.compile(r"(?P<num>\d{1,3})(?P<suffix>[A-Z]?)(?P<dot>\.?) (?=[A-Z“\"‘'])")
# End of a section title: ".-" then a space, a label "(1)" or the end of the line ("wages.-(1)").
_TITLE_END = re.compile(r"\.\s?-(?=\s|\(|$)")
# A sub-unit label in parentheses: "(1)", "(3A)", "(3a)", "(b)", "(cc)", "(iv)"; "(I)" is a typo for (1).
_LABEL_TOKEN = r"\((?P<tok>\d{1,3}[A-Za-z]?|[a-z]{1,4}|I)\)"
# ... at the start of a line (optionally right after a title's ".-").
_LABEL_AT_START = re.compile(_LABEL_TOKEN + r"(?=\s|$)")
# ... in mid-line after "; and " / "; or " / "; " (the PDF sometimes runs a clause on: "obstructions; and (d) an employer").
_LABEL_MIDLINE = re.compile(r"(?<=;) (?:(?:and|or) )?" + _LABEL_TOKEN + r"(?= [A-Za-z“])")
# Proviso openers, anywhere (capitalised): "Provided that", "Provided further that", "Provided also that".
_PROVISO_RE = re.compile(r"Provided (?:(?:further|also) )?that\b")
# Explanation headings: "Explanation.- ...", "Explanation:", "Explanation I.-".
_EXPLANATION_RE = re.compile(r"Explanation(?: [IV]+)?\s?[.:]?\s?-?(?=\s|$)")
# Words after which a line-initial "(2)" is the tail of a reference, not a label ("under sub-section\n(2)").
_REFERENCE_TAIL = re.compile(
    r"(?:\b(?:sub-sections?|sections?|clauses?|Chapters?|rules?|articles?|paragraphs?)|\d)$", re.I
)
# Text ending a lead-in to a list: "namely:-", "shall-", ":", "following".
_LEAD_IN = re.compile(r"(?:[:\-—]|\bnamely|\bfollowing|\bif|\bthat)$")

_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50}


def _roman_to_int(s: str) -> int | None:
    """Value of a lower- or upper-case roman numeral, None if ``s`` is not a canonical one."""
    s = s.lower()
    if not s or any(ch not in _ROMAN_VALUES for ch in s):
        return None
    total = 0
    for i, ch in enumerate(s):
        v = _ROMAN_VALUES[ch]
        if i + 1 < len(s) and _ROMAN_VALUES[s[i + 1]] > v:
            total -= v
        else:
            total += v
    return total if _int_to_roman(total) == s else None


def _int_to_roman(n: int) -> str:
    out = ""
    for v, sym in ((50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")):
        while n >= v:
            out += sym
            n -= v
    return out


@dataclass
class _Event:
    """A place in the clean text where a unit may start."""

    start: int
    kind: str  # chapter | section | label | proviso | explanation | linestart
    line: int  # index into the body lines
    token: str | None = None  # label token / roman chapter number / section number
    marker: str | None = None  # as written
    text_start: int | None = None
    title: str | None = None
    midline: bool = False


def _events(lines: list[_Line], anomalies: list[str]) -> list[_Event]:
    """Find every possible unit start in the body lines, in document order."""
    events: list[_Event] = []
    last_section: tuple[int, str] = (0, "")
    i = 0
    while i < len(lines):
        ln = lines[i]
        text = ln.text
        prev = lines[i - 1].text if i else ""
        m = _CHAPTER_RE.fullmatch(text)
        if m:
            # the chapter name: the upper-case lines that follow
            j = i + 1
            while j < len(lines) and lines[j].text.upper() == lines[j].text and not _SECTION_RE.match(lines[j].text):
                j += 1
            if j == i + 1:
                anomalies.append(f"{text}: no chapter name found")
            name_start = lines[i + 1].start if j > i + 1 else ln.end
            title = " ".join(lines[k].text for k in range(i + 1, j))
            events.append(
                _Event(ln.start, "chapter", i, token=m.group("roman") + m.group("suffix"), marker=text,
                       text_start=name_start, title=title)
            )
            i = j
            continue
        sec = _section_heading(lines, i, last_section, anomalies)
        if sec is not None:
            events.append(sec)
            last_section = _section_key(sec.token or "")
            body = sec.text_start or 0
            # a label may open the body right after the title: "...application.- (1) This Act"
            j = sec.line
            _add_inline_events(events, lines[j], body - lines[j].start, j, at_line_start=True)
            i = j + 1
            continue
        _add_inline_events(events, ln, 0, i, at_line_start=True, prev=prev)
        i += 1
    return events


def _section_key(label: str) -> tuple[int, str]:
    m = re.fullmatch(r"(\d+)([A-Z]?)", label)
    return (int(m.group(1)), m.group(2)) if m else (0, "")


def _section_heading(
    lines: list[_Line], i: int, last: tuple[int, str], anomalies: list[str]
) -> _Event | None:
    """A section heading starting at line ``i``, or None. Checks number order and the title end."""
    ln = lines[i]
    m = _SECTION_RE.match(ln.text)
    if not m:
        return None
    key = (int(m.group("num")), m.group("suffix"))
    label = f"{key[0]}{key[1]}"
    if key <= last or key[0] > last[0] + 12:
        return None  # a number out of order is a wrapped figure ("under section\n20."), not a heading
    if i and not ln.blank_before and _REFERENCE_TAIL.search(lines[i - 1].text):
        return None  # "retrench him under section\n20." is a wrapped figure
    # the title runs until ".-" within this line or the next two
    span_lines = [ln]
    for k in range(i + 1, min(i + 3, len(lines))):
        span_lines.append(lines[k])
    joined = _join(span_lines)
    head = m.end()
    t = _TITLE_END.search(joined, head)
    if t is None or _SECTION_RE.match(joined[head:]) or "\n" in joined[head : t.start()]:
        return None
    title = joined[head : t.start()].strip()
    if re.search(r"\(\d+\)", title) and not re.search(r"section", title):
        return None
    if title.endswith("etc"):
        title += "."  # "Dining Room, etc.-": the title's own full stop doubles as the separator
    if not m.group("dot"):
        anomalies.append(f"section {label}: heading number written without its full stop ('{ln.text[:40]}')")
    # which line the body starts on
    body_off = ln.start + t.end()
    while body_off < len(_join(lines[: i + 3])) and False:
        pass
    end_line = i
    for k, sl in enumerate(span_lines):
        if sl.start <= ln.start + t.end() <= sl.end + 1:
            end_line = i + k
            break
    # skip the single space after ".-"
    text_start = ln.start + t.end()
    rest = joined[t.end():]
    text_start += len(rest) - len(rest.lstrip())
    return _Event(ln.start, "section", end_line, token=label, marker=m.group("num") + m.group("suffix"),
                  text_start=text_start, title=title)


def _add_inline_events(
    events: list[_Event], ln: _Line, offset: int, index: int, *, at_line_start: bool, prev: str = ""
) -> None:
    """Events inside one line from ``offset`` on: a line-initial label, mid-line labels, provisos, explanations."""
    text = ln.text
    found: list[_Event] = []
    m = _LABEL_AT_START.match(text, offset)
    if m and (offset > 0 or not _REFERENCE_TAIL.search(prev)):
        found.append(_Event(ln.start + m.start(), "label", index, token=m.group("tok"), marker=m.group(0)))
    elif offset == 0:
        e = _EXPLANATION_RE.match(text)
        if e:
            found.append(_Event(ln.start, "explanation", index, marker=e.group(0).strip()))
        elif not _PROVISO_RE.match(text):
            found.append(_Event(ln.start, "linestart", index))
    for m in _LABEL_MIDLINE.finditer(text, offset):
        found.append(
            _Event(ln.start + m.start("tok") - 1, "label", index, token=m.group("tok"),
                   marker=f"({m.group('tok')})", midline=True)
        )
    for m in _PROVISO_RE.finditer(text, offset):
        found.append(_Event(ln.start + m.start(), "proviso", index, marker=m.group(0)))
    found.sort(key=lambda e: e.start)
    events.extend(found)


# --------------------------------------------------------------------------------------------
# Pass 3: structure
# --------------------------------------------------------------------------------------------

_CHILD_LEVEL: dict[Level, dict[str, Level]] = {
    # which list kinds a unit may hold, and the level of their members
    Level.SECTION: {"num": Level.SUBSECTION, "let": Level.CLAUSE, "rom": Level.CLAUSE},
    Level.SUBSECTION: {"let": Level.CLAUSE, "rom": Level.CLAUSE, "num": Level.ITEM},
    Level.CLAUSE: {"rom": Level.ITEM, "num": Level.ITEM},
    Level.ITEM: {"let": Level.ITEM},  # s. 351(2)(a)(iii)(a): lettered list inside a roman item
    Level.PROVISO: {"let": Level.CLAUSE, "rom": Level.CLAUSE, "num": Level.ITEM},
    Level.EXPLANATION: {"let": Level.CLAUSE, "rom": Level.CLAUSE, "num": Level.ITEM},
}


@dataclass
class _Chapter:
    number: int
    label: str
    title: str


@dataclass
class _Node:
    level: Level
    label: str
    marker: str
    start: int  # where the unit's span begins (ends the previous unit)
    text_start: int  # where its text begins
    parent: _Node | None
    section: str | None
    chapter: _Chapter
    title: str | None = None
    children: list[_Node] = field(default_factory=list)
    rules: list[_Node] = field(default_factory=list)  # provisos / explanations qualifying it
    lists: dict[str, tuple] = field(default_factory=dict)  # list kind -> key of its last member
    counters: dict[str, int] = field(default_factory=dict)
    text: str = ""


def _interpretations(tok: str) -> list[tuple[str, tuple]]:
    """Possible readings of a label token: ('num', (n, suffix)), ('let', (letter, repeat)), ('rom', (v,))."""
    out: list[tuple[str, tuple]] = []
    m = re.fullmatch(r"(\d+)([A-Za-z]?)", tok)
    if m:
        return [("num", (int(m.group(1)), m.group(2).upper()))]
    if tok == "I":
        return [("num", (1, ""))]
    rv = _roman_to_int(tok)
    if rv is not None:
        out.append(("rom", (rv,)))
    if re.fullmatch(r"([a-z])\1*", tok):  # "(ii)" may also be an inserted clause after (i), s. 323(2)
        out.append(("let", (tok[0], len(tok))))
    return out


def _is_first(kind: str, key: tuple) -> bool:
    return key in {("num"): [(1, "")], "let": [("a", 1)], "rom": [(1,)]}.get(kind, [])


def _is_successor(kind: str, last: tuple, key: tuple) -> bool:
    """Is ``key`` the next member of a list whose last member is ``last``?"""
    if kind == "num":
        (n, s), (m, t) = last, key
        next_suffix = "A" if not s else chr(ord(s) + 1)
        return (m == n + 1 and t == "") or (m == n and t == next_suffix)
    if kind == "let":
        (c, k), (d, j) = last, key
        # (c) -> (d); inserted clauses double the letter: (c) -> (cc) -> (ccc) -> (d); (z) -> (aa)
        return (d == c and j == k + 1) or (j == 1 and ord(d) == ord(c) + 1) or (c == "z" and d == "a" and j == 2)
    return key[0] == last[0] + 1


def _is_gap(kind: str, last: tuple, key: tuple) -> bool:
    """``key`` comes later in the list than ``last`` but skips members."""
    if kind == "let":
        return (key[0], key[1]) > (last[0], last[1]) and key[1] == 1
    return key > last


def _label_part(kind: str, key: tuple, tok: str) -> str:
    if kind == "num":
        return f"{key[0]}{key[1]}"
    return tok.lower()


class _Builder:
    """State machine turning events into a unit tree (see the module docstring)."""

    def __init__(self, text: str, anomalies: list[str]):
        self.s = text
        self.anomalies = anomalies
        self.nodes: list[_Node] = []
        self.by_label: dict[str, _Node] = {}
        self.path: list[_Node] = []
        self.chapter: _Chapter | None = None

    # -- helpers -----------------------------------------------------------------------------
    def _add(self, node: _Node) -> _Node:
        if node.label in self.by_label:
            n = 2
            while f"{node.label}~{n}" in self.by_label:
                n += 1
            self.anomalies.append(
                f"section {node.section}: label {node.label} occurs twice; the second is kept as {node.label}~{n}"
            )
            node.label = f"{node.label}~{n}"
        self.by_label[node.label] = node
        self.nodes.append(node)
        if node.parent is not None:
            node.parent.children.append(node)
        return node

    def _open(self, node: _Node) -> None:
        if node.parent is None:
            self.path = [node]
        else:
            k = self.path.index(node.parent)
            self.path = self.path[: k + 1] + [node]

    def _current_text(self, upto: int) -> str:
        """Text of the deepest open unit so far (up to offset ``upto``)."""
        if not self.path:
            return ""
        return self.s[self.path[-1].text_start : upto].strip()

    # -- events -------------------------------------------------------------------------------
    def chapter_event(self, ev: _Event) -> None:
        roman = (ev.token or "").rstrip("ABCDEFGH") if (ev.token or "")[-1:] not in "IVXL" else ev.token or ""
        suffix = (ev.token or "")[len(roman) :]
        number = _roman_to_int(roman) or 0
        self.chapter = _Chapter(number=number, label=f"ch{number}{suffix}", title=ev.title or "")
        node = _Node(Level.CHAPTER, self.chapter.label, ev.marker or "", ev.start, ev.text_start or ev.start,
                     None, None, self.chapter)
        self._add(node)
        self.path = []

    def section_event(self, ev: _Event) -> None:
        assert self.chapter is not None
        label = ev.token or ""
        node = _Node(Level.SECTION, label, ev.marker or label, ev.start, ev.text_start or ev.start, None,
                     label, self.chapter, title=ev.title)
        self._add(node)
        self.path = [node]

    def label_event(self, ev: _Event) -> bool:
        """Place a label; returns False when it is not taken as a label (the text stays with the open unit)."""
        if not self.path:
            return False
        tok = ev.token or ""
        interps = _interpretations(tok)
        deepest = self.path[-1]
        succ: list[tuple[int, str, tuple]] = []
        first: tuple[int, str, tuple] | None = None
        for depth in range(len(self.path) - 1, -1, -1):
            c = self.path[depth]
            allowed = _CHILD_LEVEL.get(c.level, {})
            for kind, key in interps:
                if kind not in allowed:
                    continue
                last = c.lists.get(kind)
                if last is None:
                    if depth == len(self.path) - 1 and _is_first(kind, key) and first is None:
                        first = (depth, kind, key)
                elif _is_successor(kind, last, key):
                    succ.append((depth, kind, key))
        choice: tuple[int, str, tuple] | None = None
        if first and succ:
            lead_in = bool(_LEAD_IN.search(self._current_text(ev.start)))
            choice = first if lead_in else succ[0]
        elif succ:
            choice = succ[0]
        elif first:
            choice = first
        if choice is None and ev.midline:
            return False
        if choice is None:
            # a skipped member: take it in the deepest list it can continue, and say so
            for depth in range(len(self.path) - 1, -1, -1):
                c = self.path[depth]
                for kind, key in interps:
                    last = c.lists.get(kind)
                    if last is not None and kind in _CHILD_LEVEL.get(c.level, {}) and _is_gap(kind, last, key):
                        choice = (depth, kind, key)
                        break
                if choice:
                    break
            sec = self.path[0].label
            section = self.path[0]
            if choice is None and ("num", (2, "")) in interps and "num" not in section.lists:
                if self.s[section.text_start : ev.start].strip():
                    # s. 157: sub-section (1) is printed without its label; its text stays the section's lead
                    self.anomalies.append(
                        f"section {sec}: sub-section (1) has no label in the source; its text is the section's lead text"
                    )
                    section.lists["num"] = (1, "")
                    choice = (0, "num", (2, ""))
                    interps = []
            if choice is None:
                self.anomalies.append(
                    f"section {sec}: label {ev.marker} fits no open list; kept as text of {deepest.label}"
                )
                return False
            if interps:
                self.anomalies.append(
                    f"section {sec}: label {ev.marker} skips a member of its list (after "
                    f"{self.path[choice[0]].label} last {self.path[choice[0]].lists[choice[1]]})"
                )
        depth, kind, key = choice
        parent = self.path[depth]
        if tok == "I":
            self.anomalies.append(f"section {parent.section}: label '(I)' read as (1)")
        level = _CHILD_LEVEL[parent.level][kind]
        label = f"{parent.label}({_label_part(kind, key, tok)})"
        node = _Node(level, label, ev.marker or f"({tok})", ev.start, ev.start, parent, parent.section,
                     parent.chapter)
        parent.lists[kind] = key
        self._add(node)
        self._open(node)
        return True

    def qualifier_event(self, ev: _Event, level: Level) -> None:
        """A proviso or an explanation: qualifies the enclosing sub-section, else the section."""
        if not self.path:
            return
        rule = next((n for n in reversed(self.path) if n.level == Level.SUBSECTION), self.path[0])
        key = "proviso" if level == Level.PROVISO else "explanation"
        rule.counters[key] = rule.counters.get(key, 0) + 1
        label = f"{rule.label}.{key}{rule.counters[key]}"
        node = _Node(level, label, ev.marker or key, ev.start, ev.start, rule, rule.section, rule.chapter)
        rule.rules.append(node)
        self._add(node)
        self._open(node)

    def paragraph_event(self, ev: _Event, parent: _Node) -> None:
        parent.counters["para"] = parent.counters.get("para", 0) + 1
        label = f"{parent.label}.para{parent.counters['para']}"
        node = _Node(Level.PARAGRAPH, label, "", ev.start, ev.start, parent, parent.section, parent.chapter)
        self._add(node)
        self._open(node)


def _regions(lines: list[_Line], anomalies: list[str]) -> tuple[int, int]:
    """Index of the first body line ("CHAPTER I") and of the first line after the body ("THE SCHEDULES")."""
    first = next((i for i, ln in enumerate(lines) if ln.text == "CHAPTER I"), None)
    if first is None:
        raise DataError("No 'CHAPTER I' heading: this is not the English text of the Labour Act.")
    end = next((i for i, ln in enumerate(lines) if ln.text == "THE SCHEDULES"), len(lines))
    if first:
        anomalies.append(
            f"preamble (title, long title, enacting formula; {len(_join(lines[:first]))} characters) "
            "precedes Chapter I and is not parsed into units"
        )
    if end < len(lines):
        anomalies.append(
            f"the Schedules (pages {lines[end].page}-{lines[-1].page}, "
            f"{len(_join(lines[end:]))} characters) follow section 354 and are not parsed into units"
        )
    return first, end


def parse_english(path: Path) -> EnglishParse:
    """Parse the English translation into citable units, cross-references and anomaly notes.

    Args:
        path: the pypdf ``.txt`` extraction of the English PDF (pages separated by form feeds).

    Returns:
        An :class:`EnglishParse`: units in document order (version ``en-2018``, ids
        ``en-2018:{label}``), cross-references with ``target=None`` (resolved by the graph builder),
        anomalies as readable strings.

    Raises:
        InputError: the file does not exist or is not UTF-8 text.
        DataError: the text has no chapter or section structure of the Labour Act.
    """
    anomalies: list[str] = []
    lines = _clean_lines(_read(path), anomalies)
    full = _join(lines)
    first, end = _regions(lines, anomalies)
    body = lines[first:end]
    body_end = body[-1].end if body else 0
    events = _events(body, anomalies)
    b = _Builder(full, anomalies)
    for ev in events:
        if ev.kind == "chapter":
            b.chapter_event(ev)
        elif ev.kind == "section":
            b.section_event(ev)
        elif ev.kind == "label":
            b.label_event(ev)
        elif ev.kind == "proviso":
            b.qualifier_event(ev, Level.PROVISO)
        elif ev.kind == "explanation":
            b.qualifier_event(ev, Level.EXPLANATION)
        elif ev.kind == "linestart":
            parent = _paragraph_parent(b, ev, body)
            if parent is not None:
                b.paragraph_event(ev, parent)
    if not any(n.level == Level.SECTION for n in b.nodes):
        raise DataError("No section headings found in the English text.")
    units = _to_units(b.nodes, full, body_end, anomalies)
    refs = extract_refs(units)
    logger.info("parsed %s: %d units, %d cross-references, %d anomalies", path, len(units), len(refs), len(anomalies))
    return EnglishParse(units=units, refs=refs, anomalies=anomalies)


def _paragraph_parent(b: _Builder, ev: _Event, body: list[_Line]) -> _Node | None:
    return None


_OMITTED = re.compile(r"(?:\([^)]*\)\s*)?\((?:Repealed|Omitted)\)[.;]?(?: and| or)?")


def _to_units(nodes: list[_Node], full: str, body_end: int, anomalies: list[str]) -> list[Unit]:
    units: list[Unit] = []
    for k, n in enumerate(nodes):
        end = nodes[k + 1].start if k + 1 < len(nodes) else body_end
        n.text = full[n.text_start : end].strip() if end > n.text_start else ""
    for k, n in enumerate(nodes):
        units.append(
            Unit(
                node_id=f"{ENGLISH_VERSION}:{n.label}",
                version=ENGLISH_VERSION,
                level=n.level,
                label=n.label,
                section=n.section,
                chapter=n.chapter.number,
                chapter_title=n.chapter.title,
                title=n.title,
                marker=n.marker,
                text=n.text,
                text_norm=normalize(n.text),
                parent=f"{ENGLISH_VERSION}:{n.parent.label}" if n.parent else None,
                children=[f"{ENGLISH_VERSION}:{c.label}" for c in n.children],
                provisos=[f"{ENGLISH_VERSION}:{r.label}" for r in n.rules],
                omitted=bool(_OMITTED.fullmatch(n.text)),
                order=k,
            )
        )
    return units


def extract_refs(units: list[Unit]) -> list[CrossRef]:
    return []
