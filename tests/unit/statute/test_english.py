"""Tests of the English-translation parser (labourcrew.statute.english) on the real Act text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from labourcrew.errors import DataError, InputError
from labourcrew.statute.english import (
    RUNNING_HEADER,
    EnglishParse,
    clean_text,
    extract_refs,
    parse_english,
)
from labourcrew.statute.model import ENGLISH_VERSION, Level, Unit
from labourcrew.statute.normalize import collapse_ws, normalize

ROOT = Path(__file__).resolve().parents[3]
EN_TXT = ROOT / "data" / "statute" / "en" / "Bangladesh-Labour-Act-2006_English-Upto-2018.txt"

LETTERED = set("3A 28A 78A 90A 94A 124A 140A 185A 196A 202A 263A 348A".split())
PROVISO_OPENER = re.compile(r"Provided (?:(?:further|also) )?that\b")


@pytest.fixture(scope="module")
def parsed() -> EnglishParse:
    return parse_english(EN_TXT)


@pytest.fixture(scope="module")
def clean() -> str:
    return clean_text(EN_TXT)


@pytest.fixture(scope="module")
def by_label(parsed: EnglishParse) -> dict[str, Unit]:
    return {u.label: u for u in parsed.units}


@pytest.fixture(scope="module")
def body(clean: str) -> str:
    """The Act's body in the clean text: from Chapter I to the Schedules."""
    return clean[clean.index("CHAPTER I PRELIMINARY") : clean.index("THE SCHEDULES")]


def _of_level(parsed: EnglishParse, level: Level) -> list[Unit]:
    return [u for u in parsed.units if u.level == level]


# --- structure ------------------------------------------------------------------------------


def test_21_chapters_with_names(parsed: EnglishParse) -> None:
    chapters = _of_level(parsed, Level.CHAPTER)
    assert [c.label for c in chapters] == [f"ch{n}" for n in range(1, 16)] + ["ch16A"] + [
        f"ch{n}" for n in range(17, 22)
    ]
    assert chapters[0].text == "PRELIMINARY" and chapters[0].marker == "CHAPTER I"
    assert chapters[15].chapter == 16 and "DOCK WORKERS MANAGEMENT BOARD" in chapters[15].text
    for c in chapters:
        assert c.text and c.text == c.chapter_title and c.text.upper() == c.text


def test_section_numbers(parsed: EnglishParse) -> None:
    labels = [u.label for u in _of_level(parsed, Level.SECTION)]
    assert len(labels) >= 340
    assert len(labels) == len(set(labels))
    plain = {s for s in labels if s.isdigit()}
    lettered = set(labels) - plain
    assert lettered == LETTERED
    # Chapter XVI (sections 253-263) was repealed; 263A of the new Chapter XVIA survives.
    assert plain == {str(n) for n in range(1, 355)} - {str(n) for n in range(253, 264)}
    numbers = {int(re.match(r"\d+", s).group()) for s in labels}  # type: ignore[union-attr]
    assert numbers == set(range(1, 355)) - set(range(253, 263))
    keys = [(int(re.match(r"\d+", s).group()), s) for s in labels]  # type: ignore[union-attr]
    assert keys == sorted(keys), "sections must come in document (= numeric) order"


def test_section_titles_and_lead_text(by_label: dict[str, Unit]) -> None:
    assert by_label["27"].title == "Termination of employment by workers"
    assert by_label["27"].text == ""  # everything is in sub-sections
    assert (
        by_label["2"].text
        == "In this Act, unless there is anything repugnant in the subject or context,-"
    )
    assert by_label["263A"].title.endswith(
        "of the Dockworkers Management Board"
    )  # title over two lines
    assert by_label["93"].title == "Dining Room, etc."
    assert by_label["221"].title == "Costs of the case"  # heading printed without the full stop


def test_provisos_count_and_attachment(
    parsed: EnglishParse, by_label: dict[str, Unit], body: str, clean: str
) -> None:
    provisos = _of_level(parsed, Level.PROVISO)
    # 103 openers in the whole text; the 103rd is in the Fourth Schedule, which is not parsed.
    assert len(PROVISO_OPENER.findall(clean)) == 103
    assert len(provisos) == len(PROVISO_OPENER.findall(body)) == 102
    for p in provisos:
        assert PROVISO_OPENER.match(p.text), p.label
        rule = by_label[p.parent.split(":", 1)[1]]  # type: ignore[union-attr]
        assert rule.level in (Level.SECTION, Level.SUBSECTION)
        assert p.node_id in rule.provisos and p.node_id in rule.children
        assert re.fullmatch(re.escape(rule.label) + r"\.proviso\d+", p.label)
    assert by_label["102(2).proviso3"].text.startswith("Provided further that the Government may")
    assert by_label["2(1A).proviso1"].parent == f"{ENGLISH_VERSION}:2(1A)"


def test_explanations(parsed: EnglishParse, by_label: dict[str, Unit]) -> None:
    explanations = _of_level(parsed, Level.EXPLANATION)
    assert len(explanations) == 12
    assert all(e.text.startswith("Explanation") and ".explanation" in e.label for e in explanations)
    assert "en-2018:56(2).explanation1" in by_label["56(2)"].provisos


def test_ids_order_and_links(parsed: EnglishParse, by_label: dict[str, Unit]) -> None:
    units = parsed.units
    assert [u.order for u in units] == list(range(len(units)))
    assert len({u.node_id for u in units}) == len(units)
    ids = {u.node_id for u in units}
    for u in units:
        assert u.version == ENGLISH_VERSION and u.node_id == f"{ENGLISH_VERSION}:{u.label}"
        assert "~" not in u.label, f"duplicate label {u.label}"
        assert u.text_norm == normalize(u.text)
        assert u.chapter is not None and u.chapter_title
        if u.level != Level.CHAPTER:
            assert u.section is not None and u.label.startswith(u.section)
            assert u.parent in ids or u.level == Level.SECTION
        if u.parent:
            parent = by_label[u.parent.split(":", 1)[1]]
            assert u.node_id in parent.children
        for c in u.children:
            assert by_label[c.split(":", 1)[1]].parent == u.node_id
    assert by_label["1(4)(m)"].omitted and not by_label["1(4)(l)"].omitted


def test_sub_units_keep_their_labels(by_label: dict[str, Unit]) -> None:
    assert by_label["27(1)"].text.startswith("(1) A permanent worker may resign")
    assert by_label["27(3A)"].marker == "(3A)" and by_label["27(3A)"].level == Level.SUBSECTION
    assert by_label["2(10)"].text.startswith("(10)")
    assert by_label["9(2)(cc)"].text == "(cc) designation;"  # inserted clauses double the letter
    assert by_label["62(3A)"].marker == "(3a)"  # lower-case insertion, labelled in official style
    assert by_label["188(1)"].marker == "(I)"  # misprint of (1)


def test_roman_items_vs_letter_i(by_label: dict[str, Unit]) -> None:
    # "(j) ... namely:" then "(i) railway department": a list inside clause (j)
    item = by_label["1(4)(j)(i)"]
    assert item.level == Level.ITEM and item.parent == "en-2018:1(4)(j)"
    assert item.text == "(i) railway department;"
    # "(h) ...;" then "(i) in the case of ...": clause (i) of the same sub-section
    assert (
        by_label["1(4)(i)"].level == Level.CLAUSE and by_label["1(4)(i)"].parent == "en-2018:1(4)"
    )
    # a lettered list inside a roman item inside a clause (s. 351(2)(a)(iii))
    assert by_label["351(2)(a)(iii)(a)"].text.startswith(
        "(a) prescribing standard of humidification"
    )
    assert by_label["351(2)(a)(iv)"].parent == "en-2018:351(2)(a)"
    # "(ii)" after clause (i) and its proviso is the inserted clause (ii), not a roman item
    assert by_label["323(2)(ii)"].parent == "en-2018:323(2)"


def test_continuation_paragraphs(by_label: dict[str, Unit]) -> None:
    para = by_label["38.para1"]
    assert para.level == Level.PARAGRAPH and para.parent == "en-2018:38"
    assert para.text.startswith("he may, by a notice, require the employer")
    assert by_label["210(4).para1"].text.startswith("may, within 15 (fifteen) days")


# --- cleaning and layout repairs -------------------------------------------------------------


def test_every_unit_text_is_a_substring_of_clean_text(parsed: EnglishParse, clean: str) -> None:
    assert "\n" not in clean and "  " not in clean and "\f" not in clean
    missing = [u.label for u in parsed.units if u.text not in clean]
    assert not missing


def test_no_running_header_or_page_number_left(parsed: EnglishParse, clean: str) -> None:
    raw = EN_TXT.read_text(encoding="utf-8")
    pages = raw.split("\f")
    # the header string survives only where the Act names itself (s. 1(1))
    assert raw.count(RUNNING_HEADER) - clean.count(RUNNING_HEADER) == len(pages)
    assert [u.label for u in parsed.units if RUNNING_HEADER in u.text] == ["1(1)"]
    # across every page break, the last words of a page run straight into the next page's text
    for k in range(1, len(pages)):
        prev_lines = [ln for ln in pages[k - 1].split("\n") if ln.strip()]
        next_lines = [ln for ln in pages[k].split("\n") if ln.strip()]
        assert next_lines[0].strip() == RUNNING_HEADER and next_lines[1].strip() == str(k + 1)
        tail = collapse_ws(re.sub("\uf8e7+", "-", prev_lines[-1]))  # the PDF's glyph dash
        head = collapse_ws(next_lines[2])
        assert f"{tail} {head}" in clean or f"{tail}{head}" in clean, f"page break {k}/{k + 1}"
    assert not [
        u.label for u in parsed.units if re.search(rf"{re.escape(RUNNING_HEADER)} \d", u.text)
    ]


def test_line_break_compounds_rejoined_but_lead_in_dashes_kept(
    clean: str, by_label: dict[str, Unit]
) -> None:
    assert "sub- section" not in clean and "sub-section" in clean
    assert "under sub-section (3), unless-" in by_label["185A(5)"].text
    assert by_label["27(2)"].text.endswith("in writing, of")
    assert by_label["20(2)"].text.endswith(
        "of such worker, shall-"
    )  # a lead-in dash (PDF glyph) stays a dash
    assert "\uf8e7" not in clean


def test_body_text_is_fully_covered(parsed: EnglishParse, body: str) -> None:
    """Walking the body, the only text outside units is chapter headings and section headings."""
    heading = re.compile(r"CHAPTER [IVXL]+A?|\d{1,3}[A-Z]?\.? .+?\.\s?-")
    cursor = 0
    for u in parsed.units:
        if not u.text:
            continue
        at = body.find(u.text, cursor)
        assert at >= 0, u.label
        gap = body[cursor:at].strip()
        assert not gap or heading.fullmatch(gap), (
            f"text before {u.label} not in any unit: {gap[:80]!r}"
        )
        cursor = at + len(u.text)
    assert not body[cursor:].strip()


def test_displaced_clause_label_section_72(by_label: dict[str, Unit], parsed: EnglishParse) -> None:
    # The PDF runs "(d)" on in the line of clause (c): "obstructions; and (d) an employer may, ..."
    assert by_label["72(c)"].text.endswith("clear of all obstructions; and")
    assert by_label["72(d)"].text.startswith("(d) an employer may, for overall safety")
    assert by_label["72(d)"].parent == "en-2018:72"
    assert any("section 72" in a and "(d)" in a for a in parsed.anomalies)


def test_labels_split_from_their_heading_line(by_label: dict[str, Unit]) -> None:
    # "152. Method of calculating wages.<PUA><PUA>(1) For the purposes ..." (glyph dashes)
    assert by_label["152"].title == "Method of calculating wages"
    assert by_label["152(1)"].text.startswith("(1) For the purposes of this Chapter")
    # "18. ... cases.- (1)" ends the heading line; its text starts on the next line
    assert by_label["18(1)"].text.startswith("(1) Notwithstanding anything contained elsewhere")


def test_wrapped_references_are_not_labels(by_label: dict[str, Unit]) -> None:
    # "retrench him under section\n20." is not a heading of section 20
    assert by_label["16(7)"].text.endswith("retrench him under section 20.")
    # "sub-section\n(2) due to ambiguity" is not a sub-section (2)
    assert "provisions of sub-section (2) due to ambiguity" in by_label["263A(3)"].text
    # section 157 prints sub-section (1) without its label: the text stays the section's lead
    assert by_label["157"].text.startswith("No claim for compensation")
    assert "157(1)" not in by_label and "157(2)" in by_label


def test_deterministic(parsed: EnglishParse) -> None:
    again = parse_english(EN_TXT)
    assert [(u.node_id, u.text) for u in again.units] == [(u.node_id, u.text) for u in parsed.units]
    assert again.refs == parsed.refs and again.anomalies == parsed.anomalies


def test_anomalies_are_reported(parsed: EnglishParse) -> None:
    notes = "\n".join(parsed.anomalies)
    assert "section 157: sub-section (1)" in notes
    assert "section 188: label '(I)'" in notes
    assert "section 221" in notes
    assert "sections 253-263 are absent" in notes
    assert "Schedules" in notes and "preamble" in notes


# --- cross-references ------------------------------------------------------------------------


def _refs_from(parsed: EnglishParse, label: str) -> list[tuple[str, str | None, bool]]:
    return [
        (r.surface, r.target_label, r.external)
        for r in parsed.refs
        if r.source == f"en-2018:{label}"
    ]


def test_cross_refs_internal(parsed: EnglishParse) -> None:
    assert ("sub-section (3)", "27(3)", False) in _refs_from(parsed, "27(3A)")
    lay_off = _refs_from(parsed, "14(3)")
    assert [t for s, t, _ in lay_off if s == "section 19, 20 or 23"] == ["19", "20", "23"]
    assert ("section 20", "20", False) in _refs_from(parsed, "16(7)")
    assert ("section 16(7)", "16(7)", False) in _refs_from(parsed, "20(3)")
    assert ("clause (a) of sub-section (5)", "235(5)(a)", False) in _refs_from(parsed, "235(8)")
    nested = "clause (v) of clause (a) of sub-section (2) of section 178"
    assert (nested, "178(2)(a)(v)", False) in _refs_from(parsed, "179(2A)")
    assert ("clause (a)", "263A(2)(a)", False) in _refs_from(parsed, "263A(2)(b)")
    assert ("this Chapter", "ch2", False) in _refs_from(parsed, "3(1)")
    assert [t for s, t, _ in _refs_from(parsed, "1(4)(j)") if s.startswith("Chapters")] == [
        "ch12",
        "ch13",
        "ch14",
    ]
    siblings = [t for s, t, _ in _refs_from(parsed, "130")]
    assert siblings == ["125(2)(j)", "125(2)(k)", "125(2)(l)"]
    assert ("section 67", "67", False) in _refs_from(parsed, "288")  # from the section title
    assert all(r.target is None for r in parsed.refs)


def test_cross_refs_mostly_name_existing_units(parsed: EnglishParse) -> None:
    labels = {u.label for u in parsed.units}
    internal = [r for r in parsed.refs if not r.external]
    assert len(internal) > 500
    unknown = [r for r in internal if r.target_label not in labels]
    assert len(unknown) <= 0.01 * len(internal), unknown
    assert any(r.target_label == "ch16" for r in unknown)  # "the repealed Chapter XVI"


def test_cross_refs_external(parsed: EnglishParse) -> None:
    penal = [r for r in parsed.refs if r.source == "en-2018:197" and "Penal Code" in r.surface]
    assert len(penal) == 1 and penal[0].external and penal[0].target_label is None
    assert penal[0].surface == "section 120B(2) of the Penal Code, 1860"
    assert ("article 62, 79, 113 or 133 of the Constitution", None, True) in _refs_from(
        parsed, "1(4)(j)"
    )
    assert ("section 5 of the Limitation Act, 1908", None, True) in _refs_from(parsed, "135(5)")
    assert ("Chapter XXXV of the Code of Criminal Procedure", None, True) in _refs_from(
        parsed, "214(12)"
    )
    externals = [r for r in parsed.refs if r.external]
    assert all(r.target_label is None for r in externals)
    assert not any(
        "Bangladesh Labour Act, 2006" in r.surface for r in parsed.refs
    )  # the Act itself


def test_range_expansion_and_same_section_defaults() -> None:
    unit = Unit(
        node_id="en-2018:5(2)",
        version="en-2018",
        level=Level.SUBSECTION,
        label="5(2)",
        section="5",
        chapter=1,
        chapter_title="X",
        text="(2) Subject to sections 19 to 23 and clause (b), sub-section (1) applies.",
        text_norm="",
        order=0,
    )
    refs = extract_refs([unit])
    assert [r.target_label for r in refs if r.surface == "sections 19 to 23"] == [
        "19",
        "20",
        "21",
        "22",
        "23",
    ]
    assert [r.target_label for r in refs if r.surface == "clause (b)"] == ["5(2)(b)"]
    assert [r.target_label for r in refs if r.surface == "sub-section (1)"] == ["5(1)"]


# --- bad input -------------------------------------------------------------------------------


def test_missing_file_is_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError):
        parse_english(tmp_path / "nope.txt")
    with pytest.raises(InputError):
        clean_text(tmp_path)


def test_text_without_the_act_structure_is_data_error(tmp_path: Path) -> None:
    path = tmp_path / "other.txt"
    path.write_text("Some Other Act\n1. Short title.- This is not it.\n", encoding="utf-8")
    with pytest.raises(DataError):
        parse_english(path)


def test_synthetic_pages_mid_line_provisos_and_compounds(tmp_path: Path) -> None:
    """Behaviour the real text does not exercise: provisos opening mid-paragraph."""
    page1 = (
        "Bangladesh Labour Act, 2006 \n \nCHAPTER I \nPRELIMINARY \n \n"
        "1. Scope.- (1) This Act applies: Provided that it does not \n"
        "apply to ships: Provided further that sub-\nsection (2) applies. \n"
        "(2) Every employer shall- \n(a) keep a register; and \n"
    )
    page2 = (
        "\nBangladesh Labour Act, 2006 \n2 \n \n(b) display a notice. \n \n"
        "2. Definitions.- In this Act,- \n"
    )
    path = tmp_path / "act.txt"
    path.write_text(page1 + "\f" + page2, encoding="utf-8")
    parsed = parse_english(path)
    texts = {u.label: u.text for u in parsed.units}
    assert texts["1(1)"] == "(1) This Act applies:"
    assert texts["1(1).proviso1"] == "Provided that it does not apply to ships:"
    assert texts["1(1).proviso2"] == "Provided further that sub-section (2) applies."
    assert texts["1(2)(b)"] == "(b) display a notice."  # page header and number removed
    assert texts["2"] == "In this Act,-"
    assert [(r.surface, r.target_label) for r in parsed.refs] == [("sub-section (2)", "1(2)")]
    assert "and (b) display a notice. 2. Definitions.-" in clean_text(path)
