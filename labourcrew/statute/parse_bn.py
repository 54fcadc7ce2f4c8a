"""Deterministic parser of the official Bangla HTML of the Act into citable units (paper §3.2).

Input: a bdlaws page (``data/statute/bn/act-952_bdlaws_*.html``). Structure (PROVENANCE.md): each
section is a ``div.row.lineremoves`` holding an optional ``div.act-chapter-group`` (chapter number
and name), ``div.txt-head`` (section title) and ``div.txt-details`` (body). Paragraphs inside the
body are ``<p>`` elements in the newer page and text runs separated by ``div.clbr``/``div.na`` in
the older one. Amendment notes are ``span.footnote[title]`` followed by the amended text in
``[ ... ]``.

Output: :class:`BanglaParse` -- every paragraph of every section lands in exactly one
:class:`~labourcrew.statute.model.Unit`; provisos and explanations that share a paragraph with
other text are split into their own units. Cross-references are extracted by
:mod:`labourcrew.statute.crossref` and resolved by the graph builder.

Label rules (official English style): section ``২৭ক`` -> ``27A``; sub-section ``(৩ক)`` ->
``(3A)``; clause ``(খ)`` -> ``(b)``; a numbered list inside a clause or proviso ``(১)`` -> item
``(1)`` scoped under it (so it never overwrites sub-section (1)); provisos ``.proviso1``;
explanations ``.explanation1``; unlabelled continuation paragraphs ``.para1``.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from bs4 import BeautifulSoup, Comment, NavigableString, Tag
from pydantic import BaseModel, ConfigDict, Field

from labourcrew.errors import DataError
from labourcrew.statute.model import AmendmentNote, Level, Unit
from labourcrew.statute.normalize import collapse_ws, normalize, to_ascii_digits

__all__ = [
    "BanglaParse",
    "parse_bangla",
    "page_text",
    "classify_note",
    "romanize_suffix",
    "clause_letter",
    "CHAPTER_ORDINALS",
    "PARSER_VERSION",
]

log = logging.getLogger(__name__)

PARSER_VERSION = "bn-1"


def _nfc(s: str) -> str:
    return unicodedata.normalize("NFC", s)


# Bangla consonants in dictionary order. Clause letters follow it: (ক)->(a), (খ)->(b) ...;
# section/sub-section suffixes use the same order upper-cased: ২৭ক -> 27A.
BN_CONSONANTS = _nfc("কখগঘঙচছজঝঞটঠডঢণতথদধনপফবভমযরলশষসহ")

# Chapter ordinals as written in "প্রথম অধ্যায়" ... "একবিংশ অধ্যায়".
CHAPTER_ORDINALS: dict[str, int] = {
    _nfc(w): i
    for i, w in enumerate(
        "প্রথম দ্বিতীয় তৃতীয় চতুর্থ পঞ্চম ষষ্ঠ সপ্তম অষ্টম নবম দশম একাদশ দ্বাদশ ত্রয়োদশ "
        "চতুর্দশ পঞ্চদশ ষোড়শ সপ্তদশ অষ্টাদশ ঊনবিংশ বিংশ একবিংশ".split(),
        start=1,
    )
}
# The official 2018 page spells chapter XIV "চর্তুদশ" (reph misplaced by the font conversion).
CHAPTER_ORDINALS[_nfc("চর্তুদশ")] = 14

_DIGIT = "[০-৯0-9]"
_LETTER = f"[{BN_CONSONANTS}]"

# "২৭। ", "[৬১ক। ", "[ ৩১৮ক । ", "১৬৷ " -- the section number that opens a section body.
_SECTION_NO = re.compile(_nfc(rf"^(\[\s*)?({_DIGIT}+)\s*({_LETTER}?)\s*[৷।]\s*"))

# A paragraph label, optionally inside an amendment bracket: "(১)", "(৩ক)", "(১-ক)", "(ক)",
# "(কক)", "[(ঠ) ...", "[ (২ক) ...".
# The opening parenthesis is optional: section 51 writes "১) রং বা বার্নিশ ...".
_NUM_LABEL = re.compile(_nfc(rf"^\[?\s*\(?({_DIGIT}+)\s*-?\s*({_LETTER}?)\)\s*"))
_LET_LABEL = re.compile(_nfc(rf"^\[?\s*\(({_LETTER})(\1{{0,2}})\)\s*"))

# Proviso openers: "তবে শর্ত থাকে যে" and the further provisos "আরও/আরো/আরোও শর্ত থাকে যে".
_PROVISO = re.compile(_nfc(r"(?:তবে|আরও|আরোও|আরো)\s*শর্ত\s*থাকে\s*যে"))
# Explanation headings: "ব্যাখ্যা।-", "ব্যাখ্যাঃ", "ব্যাখ্যা-১।", "ব্যাখ্যা:-", "ব্যাখ্যা৷- " ...
_EXPLANATION = re.compile(_nfc(rf"ব্যাখ্যা\s*(?:-?\s*{_DIGIT}+\s*)?(?:[৷।:ঃ]\s*[-–—]*|[-–—]+)"))
# Text omitted by an amendment: "[***]", "[বিলুপ্ত]" (possibly followed by ";" or "।").
_OMITTED = re.compile(_nfc(r"^\[\s*(?:\*\s*){3}\]\s*[;।৷]?$|^\[\s*বিলুপ্ত\s*\]\s*[;।৷]?$"))
# Footnotes that name what they omit: "দফা (ঘ) ... বিলুপ্ত", "উপ-ধারা (৩) ... বিলুপ্ত".
_NOTE_TARGET = re.compile(_nfc(rf"^(দফা|উপ-ধারা)\s*\(({_DIGIT}+{_LETTER}?|{_LETTER}+)\)"))

# Amendment verbs (footnote titles) -> AmendmentNote.action.
_NOTE_ACTIONS = [
    ("omitted", _nfc("বিলুপ্ত")),
    ("substituted", _nfc("প্রতিস্থাপিত")),
    ("inserted", _nfc("সন্নিবেশিত")),
    ("added", _nfc("সংযোজিত")),
    ("renumbered", _nfc("পুনঃসংখ্যায়িত")),
]
_INSTRUMENT = re.compile(
    _nfc(rf"((?:বাংলাদেশ\s+)?শ্রম\s*\(সংশোধন\)\s*(?:আইন|অধ্যাদেশ),\s*({_DIGIT}{{4}})(?:\s*\([^)]*\))?)")
)

_NOTE_SENTINEL = "\ue000"  # private-use placeholder for a footnote's position while parsing
_BREAK = object()
_BLOCK_TAGS = {"p", "div", "br", "li", "ul", "ol", "table", "tr", "td", "h1", "h2", "h3", "h4"}


def romanize_suffix(bn_letters: str) -> str:
    """Bangla letter suffix of a section/sub-section number -> ASCII upper case (ক->A, খ->B)."""
    return "".join(chr(ord("A") + BN_CONSONANTS.index(c)) for c in bn_letters)


def clause_letter(bn_letters: str) -> str:
    """Clause letter(s) -> ASCII lower case: (ক)->a, (খ)->b, (কক)->aa; beyond z -> z1, z2 ..."""
    out = []
    for c in bn_letters:
        i = BN_CONSONANTS.index(c)
        out.append(chr(ord("a") + i) if i < 26 else f"z{i - 25}")
    return "".join(out)


def classify_note(title: str) -> AmendmentNote:
    """Classify an amendment footnote's title into an :class:`AmendmentNote`."""
    t = _nfc(collapse_ws(title))
    action = "other"
    # The verb closest to the end of the note is the operative one ("... শব্দগুলির পরিবর্তে ... প্রতিস্থাপিত").
    best = -1
    for name, verb in _NOTE_ACTIONS:
        pos = t.rfind(verb)
        if pos > best:
            best, action = pos, name
    m = _INSTRUMENT.search(t)
    instrument = collapse_ws(m.group(1)) if m else None
    year = int(to_ascii_digits(m.group(2))) if m else None
    return AmendmentNote(note=t, action=action, instrument=instrument, year=year)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------
# HTML -> raw sections (chapter, title, paragraphs with footnote positions)


@dataclass
class _Para:
    text: str  # collapsed, may contain _NOTE_SENTINEL markers
    notes: list[str]  # footnote titles, in order of the sentinels


@dataclass
class _RawSection:
    chapter_no_text: str | None
    chapter_name: str | None
    title: str
    title_notes: list[str]
    paras: list[_Para]


def _walk(node: Tag, out: list) -> None:
    for child in node.children:
        if isinstance(child, Comment):
            continue
        if isinstance(child, NavigableString):
            out.append(str(child))
        elif isinstance(child, Tag):
            classes = child.get("class") or []
            if child.name == "span" and "footnote" in classes:
                out.append(("note", child.get("title", "")))
            elif child.name in _BLOCK_TAGS:
                out.append(_BREAK)
                _walk(child, out)
                out.append(_BREAK)
            else:
                _walk(child, out)


def _paragraphs(node: Tag) -> list[_Para]:
    tokens: list = []
    _walk(node, tokens)
    paras: list[_Para] = []
    buf: list[str] = []
    notes: list[str] = []

    def flush() -> None:
        text = collapse_ws("".join(buf))
        if text.replace(_NOTE_SENTINEL, "").strip():
            paras.append(_Para(text=text, notes=list(notes)))
        elif notes and paras:  # a note alone on a line belongs to the previous paragraph
            paras[-1].notes.extend(notes)
            paras[-1].text += _NOTE_SENTINEL * len(notes)
        buf.clear()
        notes.clear()

    for tok in tokens:
        if tok is _BREAK:
            flush()
        elif isinstance(tok, tuple):
            buf.append(f" {_NOTE_SENTINEL} ")
            notes.append(tok[1])
        else:
            buf.append(tok)
    flush()
    return paras


def _strip_notes(text: str) -> str:
    return collapse_ws(text.replace(_NOTE_SENTINEL, " "))


def _read_sections(html: str) -> list[_RawSection]:
    soup = BeautifulSoup(_nfc(html), "lxml")
    rows = soup.select("div.row.lineremoves")
    if not rows:
        raise DataError("no section blocks (div.row.lineremoves) found in the statute HTML")
    out: list[_RawSection] = []
    for row in rows:
        no = row.select_one("p.act-chapter-no")
        name = row.select_one("p.act-chapter-name")
        head = row.select_one("div.txt-head")
        body = row.select_one("div.txt-details")
        if body is None:
            continue
        title_paras = _paragraphs(head) if head is not None else []
        title = " ".join(_strip_notes(p.text) for p in title_paras)
        title_notes = [n for p in title_paras for n in p.notes]
        out.append(
            _RawSection(
                chapter_no_text=" ".join(_strip_notes(p.text) for p in _paragraphs(no)) if no else None,
                chapter_name=" ".join(_strip_notes(p.text) for p in _paragraphs(name)) if name else None,
                title=title,
                title_notes=title_notes,
                paras=_paragraphs(body),
            )
        )
    return out


def page_text(html: str) -> str:
    """The page's visible text with footnote markers removed and whitespace collapsed.

    Every unit's ``text`` is a substring of this string (tested), which is what "verbatim" means.
    """
    soup = BeautifulSoup(_nfc(html), "lxml")
    for fn in soup.select("span.footnote"):
        fn.replace_with(" ")
    for tag in soup.find_all(list(_BLOCK_TAGS)):
        tag.insert_before(" ")
        tag.insert_after(" ")
    return collapse_ws(soup.get_text(""))


# --------------------------------------------------------------------------------------------
# raw sections -> units


class BanglaParse(BaseModel):
    """Result of parsing one Bangla version."""

    model_config = ConfigDict(extra="forbid")

    version: str = Field(description="Statute version tag ('2018' or '2025').")
    units: list[Unit] = Field(description="All units in document order.")
    anomalies: list[str] = Field(default_factory=list, description="Odd things seen; never fatal.")


@dataclass
class _Node:
    """An open unit on the parser's path, with the labelled list its children form."""

    unit: Unit
    kind: str | None = None  # "num" or "let": the kind of labels of its child list
    last: tuple | None = None  # key of the last child label in that list


class _Builder:
    def __init__(self, version: str) -> None:
        self.version = version
        self.units: list[Unit] = []
        self.by_id: dict[str, Unit] = {}
        self.anomalies: list[str] = []

    # -- unit creation ------------------------------------------------------------------
    def add(
        self,
        *,
        level: Level,
        label: str,
        text: str,
        parent: Unit | None,
        notes: list[str],
        section: str | None,
        chapter: int | None,
        chapter_title: str | None,
        marker: str | None = None,
        title: str | None = None,
        omitted: bool = False,
    ) -> Unit:
        node_id = f"{self.version}:{label}"
        if node_id in self.by_id:
            n = 2
            while f"{node_id}~{n}" in self.by_id:
                n += 1
            self.anomalies.append(f"duplicate label {label!r}; kept as {label}~{n}")
            label, node_id = f"{label}~{n}", f"{node_id}~{n}"
        unit = Unit(
            node_id=node_id,
            version=self.version,
            level=level,
            label=label,
            section=section,
            chapter=chapter,
            chapter_title=chapter_title,
            title=title,
            marker=marker,
            text=text,
            text_norm=normalize(text),
            parent=parent.node_id if parent else None,
            notes=[classify_note(n) for n in notes],
            omitted=omitted,
            order=len(self.units),
        )
        if parent is not None:
            parent.children.append(node_id)
            if level in (Level.PROVISO, Level.EXPLANATION):
                parent.provisos.append(node_id)
        self.units.append(unit)
        self.by_id[node_id] = unit
        return unit


    def move(self, unit: Unit, new_parent: Unit, new_label: str) -> None:
        """Re-attach ``unit`` (and relabel its subtree) under ``new_parent`` as ``new_label``."""
        old_parent = self.by_id[unit.parent] if unit.parent else None
        if old_parent is not None:
            old_parent.children.remove(unit.node_id)
            if unit.node_id in old_parent.provisos:
                old_parent.provisos.remove(unit.node_id)
        old_label = unit.label
        subtree = [unit]
        i = 0
        while i < len(subtree):
            subtree.extend(self.by_id[c] for c in subtree[i].children)
            i += 1
        for u in subtree:
            del self.by_id[u.node_id]
            u.label = new_label + u.label[len(old_label):]
            u.node_id = f"{self.version}:{u.label}"
            self.by_id[u.node_id] = u
        for u in subtree:
            u.children = [f"{self.version}:{new_label}{self._strip(c, old_label)}" for c in u.children]
            u.provisos = [f"{self.version}:{new_label}{self._strip(c, old_label)}" for c in u.provisos]
            if u is not unit and u.parent:
                u.parent = f"{self.version}:{new_label}{self._strip(u.parent, old_label)}"
        unit.parent = new_parent.node_id
        new_parent.children.append(unit.node_id)
        if unit.level in (Level.PROVISO, Level.EXPLANATION):
            new_parent.provisos.append(unit.node_id)

    def _strip(self, node_id: str, old_label: str) -> str:
        label = node_id.split(":", 1)[1]
        assert label.startswith(old_label)
        return label[len(old_label):]


def _segments(para: _Para) -> list[tuple[str, list[str]]]:
    """Split a paragraph at every proviso opener and explanation heading after its start.

    Returns ``(text, notes)`` pairs; ``text`` has sentinels removed. An opening bracket right
    before an opener travels with it ("... । [তবে শর্ত থাকে যে ...").
    """
    text = para.text
    cuts: list[int] = []
    for rx in (_PROVISO, _EXPLANATION):
        for m in rx.finditer(text):
            start = m.start()
            j = start
            while j > 0 and text[j - 1] in f" {_NOTE_SENTINEL}":
                j -= 1
            if j > 0 and text[j - 1] == "[":
                start = j - 1
                while start > 0 and text[start - 1] in f" {_NOTE_SENTINEL}":
                    start -= 1
            if text[:start].replace(_NOTE_SENTINEL, "").strip(" ["):
                cuts.append(start)
    bounds = [0, *sorted(set(cuts)), len(text)]
    out: list[tuple[str, list[str]]] = []
    note_iter = iter(para.notes)
    for a, b in zip(bounds, bounds[1:]):
        piece = text[a:b]
        notes = [next(note_iter) for _ in range(piece.count(_NOTE_SENTINEL))]
        clean = _strip_notes(piece)
        if clean:
            out.append((clean, notes))
        elif notes and out:
            out[-1][1].extend(notes)
    return out


def _drop_prefix(text: str, n_clean: int) -> str:
    """Remove the first ``n_clean`` characters of ``_strip_notes(text)`` from ``text``.

    Sentinels inside the removed prefix are kept (moved to the front) so notes stay attached.
    """
    clean_seen = 0
    sentinels = 0
    i = 0
    prev_space = True
    # Walk text, counting characters the collapsed form keeps, until n_clean are consumed.
    while i < len(text) and clean_seen < n_clean:
        ch = text[i]
        if ch == _NOTE_SENTINEL:
            sentinels += 1
        elif ch == " ":
            if not prev_space:
                clean_seen += 1
            prev_space = True
        else:
            clean_seen += 1
            prev_space = False
        i += 1
    return _NOTE_SENTINEL * sentinels + text[i:]


def _num_key(digits: str, suffix: str) -> tuple[int, str]:
    return int(to_ascii_digits(digits)), suffix


def parse_bangla(path: Path, version: str) -> BanglaParse:
    """Parse one Bangla HTML page into units.

    Args:
        path: the bdlaws HTML file.
        version: the version tag to stamp on every unit ('2018' or '2025').

    Returns:
        A :class:`BanglaParse` whose ``units`` are in document order.

    Raises:
        DataError: the file is missing or has no section blocks.
    """
    try:
        html = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise DataError(f"cannot read statute HTML {path}: {exc}") from exc
    b = _Builder(version)
    chapter_no: int | None = None
    chapter_title: str | None = None
    chapter_unit: Unit | None = None
    prev_section_num = 0

    for raw in _read_sections(html):
        if raw.chapter_no_text:
            # "ষোড়শ-ক অধ্যায়" (the omitted dock-workers chapter, in place of XVI) counts as 16.
            ordinal = _nfc(raw.chapter_no_text.lstrip("[ ").split()[0]).split("-")[0]
            if ordinal not in CHAPTER_ORDINALS:
                raise DataError(f"unknown chapter ordinal {raw.chapter_no_text!r}")
            chapter_no = CHAPTER_ORDINALS[ordinal]
            chapter_title = raw.chapter_name or ""
            chapter_unit = b.add(
                level=Level.CHAPTER,
                label=f"ch{chapter_no}",
                text=chapter_title,
                parent=None,
                notes=[],
                section=None,
                chapter=chapter_no,
                chapter_title=chapter_title,
                marker=raw.chapter_no_text,
            )
        if not raw.paras:
            b.anomalies.append(f"empty section block after section {prev_section_num}")
            continue

        first = raw.paras[0]
        m = _SECTION_NO.match(_strip_notes(first.text))
        omitted_block = False
        if m:
            num, suffix_bn = int(to_ascii_digits(m.group(2))), m.group(3)
            label = f"{num}{romanize_suffix(suffix_bn)}"
            marker = f"{m.group(2)}{suffix_bn}"
            # Drop the number from the first paragraph (its footnote sentinels move to the front).
            paras = [_Para(_drop_prefix(first.text, m.end()), first.notes), *raw.paras[1:]]
        else:
            # An unnumbered block is an omitted section kept in place (2025: section 184).
            num, label, marker = prev_section_num + 1, str(prev_section_num + 1), None
            omitted_block = True
            paras = raw.paras
            b.anomalies.append(f"unnumbered section block taken as omitted section {label}")
        prev_section_num = num

        sec = b.add(
            level=Level.SECTION,
            label=label,
            text="",
            parent=chapter_unit,
            notes=raw.title_notes,
            section=label,
            chapter=chapter_no,
            chapter_title=chapter_title,
            marker=marker,
            title=raw.title,
            omitted=omitted_block,
        )
        _parse_body(b, sec, paras, chapter_no, chapter_title)

    return BanglaParse(version=version, units=b.units, anomalies=b.anomalies)


def _label_key(kind: str, raw: str) -> tuple:
    """Sort key of a label: num "৩ক" -> (3, "A"); let "কক" -> (0, 2) (index, repetitions)."""
    if kind == "num":
        m = re.match(f"({_DIGIT}+)({_LETTER}?)", raw)
        assert m is not None
        return int(to_ascii_digits(m.group(1))), romanize_suffix(m.group(2))
    return BN_CONSONANTS.index(raw[0]), len(raw)


def _is_next(node: _Node, kind: str, key: tuple) -> bool:
    """Whether ``key`` continues ``node``'s child list of ``kind`` (see module docstring)."""
    if node.kind != kind or node.last is None:
        return False
    if node.unit.level == Level.SECTION or kind == "let":
        return key > node.last  # sub-sections and clauses may skip omitted labels
    # Nested numbered lists continue only with the next number or a lettered insertion (২ক).
    return key == (node.last[0] + 1, "") or (key[0] == node.last[0] and key[1] > node.last[1])


def _is_first(kind: str, key: tuple) -> bool:
    return key == ((1, "") if kind == "num" else (0, 1))


def _parse_body(
    b: _Builder, sec: Unit, paras: list[_Para], chapter_no: int | None, chapter_title: str | None
) -> None:
    """Turn one section's paragraphs into units, tracking the open path of labelled lists.

    A label continues the innermost open list it fits (numbers: next number; letters: any later
    letter), closing deeper lists; otherwise a first label ((১) or (ক)) starts a new list under
    the innermost open unit. Provisos and explanations attach to the enclosing sub-section (else
    the section); lists that follow a proviso nest under it unless they continue an outer list.
    """
    S = sec.label
    common = {"section": S, "chapter": chapter_no, "chapter_title": chapter_title}
    path: list[_Node] = [_Node(sec)]
    counters: dict[str, int] = {}
    first_segment = True

    def next_count(parent: Unit, kind: str) -> int:
        key = f"{parent.node_id}#{kind}"
        counters[key] = counters.get(key, 0) + 1
        return counters[key]

    def rule_depth() -> int:
        return 1 if len(path) > 1 and path[1].unit.level == Level.SUBSECTION else 0

    # Provisos attached to a rule while its clause list was open: (proviso, rule, clause before it).
    # If the list then continues, the proviso sat *inside* the list and qualifies that clause
    # (24(1)(d): "...দোষী সাব্যস্ত করা হয়: তবে শর্ত থাকে যে, উক্ত তদন্ত ষাট দিনের মধ্যে ..." then "(ঙ)").
    pending: list[tuple[Unit, Unit, Unit]] = []

    def settle_pending(owner: Unit) -> None:
        for item in [p for p in pending if p[1] is owner]:
            proviso, rule, before = item
            pending.remove(item)
            kind = proviso.level.value
            counters[f"{rule.node_id}#{kind}"] -= 1
            b.move(proviso, before, f"{before.label}.{kind}{next_count(before, kind)}")

    def add_labelled(kind: str, raw: str, text: str, notes: list[str], omitted: bool = False) -> None:
        nonlocal path
        key = _label_key(kind, raw)
        depth = next((d for d in range(len(path) - 1, -1, -1) if _is_next(path[d], kind, key)), None)
        if depth is None:
            if _is_first(kind, key):
                depth = len(path) - 1
            else:
                depth = 0 if kind == "num" else rule_depth()
                b.anomalies.append(f"{S}: label ({raw}) continues no open list; attached to {path[depth].unit.label}")
        parent_node = path[depth]
        parent = parent_node.unit
        if parent_node.kind == kind:
            settle_pending(parent)
        if kind == "num":
            tag = f"({key[0]}{key[1]})"
            level = Level.SUBSECTION if parent.level == Level.SECTION else Level.ITEM
        else:
            tag = f"({clause_letter(raw)})"
            level = Level.CLAUSE
        u = b.add(level=level, label=f"{parent.label}{tag}", text=text, parent=parent, notes=notes,
                  marker=f"({raw})", omitted=omitted, **common)
        parent_node.kind, parent_node.last = kind, key
        path = [*path[: depth + 1], _Node(u)]

    for para in paras:
        for text, notes in _segments(para):
            is_first, first_segment = first_segment, False
            opener = text.lstrip("[ ")
            if _PROVISO.match(opener) or _EXPLANATION.match(opener):
                level = Level.PROVISO if _PROVISO.match(opener) else Level.EXPLANATION
                d = rule_depth()
                parent = path[d].unit
                n = next_count(parent, level.value)
                u = b.add(level=level, label=f"{parent.label}.{level.value}{n}", text=text,
                          parent=parent, notes=notes, **common)
                if level == Level.PROVISO and path[d].kind == "let" and len(path) > d + 1:
                    pending.append((u, parent, path[d + 1].unit))
                path = [*path[: d + 1], _Node(u)]
                continue
            if _OMITTED.match(text):
                named = None
                for note in notes:
                    named = _NOTE_TARGET.match(_nfc(collapse_ws(note))) or named
                if named:
                    kind = "let" if named.group(1) == _nfc("দফা") else "num"
                    raw = named.group(2)
                    if (kind == "let") == bool(re.fullmatch(f"{_LETTER}+", raw)):
                        add_labelled(kind, raw, text, notes, omitted=True)
                        continue
            mnum = _NUM_LABEL.match(text)
            mlet = None if mnum else _LET_LABEL.match(text)
            if mnum:
                add_labelled("num", mnum.group(1) + mnum.group(2), text, notes)
                continue
            if mlet:
                add_labelled("let", mlet.group(1) + mlet.group(2), text, notes)
                continue
            if is_first:
                # Lead text of the section (before any labelled sub-unit).
                sec.text = text
                sec.text_norm = normalize(text)
                sec.notes.extend(classify_note(n) for n in notes)
                sec.omitted = sec.omitted or bool(_OMITTED.match(text))
                continue
            # Unlabelled continuation: belongs to the innermost open unit.
            container = path[-1].unit
            n = next_count(container, "para")
            b.add(level=Level.PARAGRAPH, label=f"{container.label}.para{n}", text=text,
                  parent=container, notes=notes, omitted=bool(_OMITTED.match(text)), **common)
