"""The Bangla parser on the real official text (both versions); counts from data/statute/PROVENANCE.md."""

from __future__ import annotations

import re

import pytest

from labourcrew.graph.statute_graph import REPO_ROOT, SOURCES
from labourcrew.statute.model import Level
from labourcrew.statute.parse_bn import _PROVISO, page_text, parse_bangla

DATA = REPO_ROOT / "data"
LETTERED_2018 = ["3A", "28A", "78A", "90A", "94A", "124A", "140A", "185A", "196A", "202A", "263A", "348A"]
NEW_2025 = ["61A", "151A", "196B", "203A", "307A", "307B", "318A", "319A", "332A", "345A", "345B", "345C", "348B", "348C"]


@pytest.fixture(scope="module", params=["2018", "2025"])
def parsed(request):
    version = request.param
    path = DATA / SOURCES[version]
    return version, parse_bangla(path, version), path.read_text(encoding="utf-8")


def _sections(units):
    return [u for u in units if u.level == Level.SECTION]


def test_twenty_one_chapters(parsed):
    _, p, _ = parsed
    chapters = [u for u in p.units if u.level == Level.CHAPTER]
    assert [u.chapter for u in chapters] == list(range(1, 22))


def test_section_numbers_1_to_354_without_253_262(parsed):
    _, p, _ = parsed
    nums = {int(re.match(r"\d+", u.label).group()) for u in _sections(p.units)}
    assert sorted(set(range(1, 355)) - nums) == list(range(253, 263))


def test_lettered_sections_exactly_as_provenance(parsed):
    version, p, _ = parsed
    lettered = [u.label for u in _sections(p.units) if not u.label.isdigit()]
    expected = LETTERED_2018 if version == "2018" else LETTERED_2018 + NEW_2025

    def key(s):
        return int(re.match(r"\d+", s).group()), s

    assert sorted(lettered, key=key) == sorted(expected, key=key)


def test_every_proviso_opener_is_its_own_unit(parsed):
    version, p, html = parsed
    provisos = [u for u in p.units if u.level == Level.PROVISO]
    assert len(provisos) == {"2018": 103, "2025": 105}[version]
    # every proviso unit opens with exactly one opener, and the further provisos ("আরও/আরো/আরোও")
    # that share a paragraph with the previous proviso were split off
    for u in provisos:
        assert _PROVISO.match(u.text.lstrip("[ ")), u.label
        assert len(_PROVISO.findall(u.text)) == 1, u.label
    further = sum(not u.text.lstrip("[ ").startswith("তবে") for u in provisos)
    assert further == {"2018": 14, "2025": 15}[version]


def test_explanations(parsed):
    version, p, _ = parsed
    assert sum(u.level == Level.EXPLANATION for u in p.units) == {"2018": 12, "2025": 14}[version]


def test_2025_omits_184_and_2018_has_it():
    new = parse_bangla(DATA / SOURCES["2025"], "2025")
    old = parse_bangla(DATA / SOURCES["2018"], "2018")
    s184_new = next(u for u in new.units if u.node_id == "2025:184")
    s184_old = next(u for u in old.units if u.node_id == "2018:184")
    assert s184_new.omitted and not s184_old.omitted


def test_unit_text_is_verbatim_substring_of_the_page(parsed):
    _, p, html = parsed
    page = page_text(html)
    missing = [u.node_id for u in p.units if u.text and u.text not in page]
    assert missing == []


def test_every_paragraph_lands_in_exactly_one_unit(parsed):
    """The units' texts, concatenated in order, reproduce the section bodies' text (nothing lost, nothing twice)."""
    from bs4 import BeautifulSoup


    _, p, html = parsed
    import unicodedata

    soup = BeautifulSoup(unicodedata.normalize("NFC", html), "lxml")
    body_chars = 0
    for d in soup.select("div.txt-details"):
        for fn in d.select("span.footnote"):
            fn.decompose()
        body_chars += len(re.sub(r"\s+", "", d.get_text("")))
    unit_chars = sum(len(re.sub(r"\s+", "", u.text)) for u in p.units if u.level != Level.CHAPTER)
    # The only text not in units is each section's leading number ("২৭। ", "[৬১ক। ").
    numbers = sum(len(re.sub(r"\s+", "", u.marker or "")) + 1 for u in _sections(p.units) if u.marker)
    assert 0 <= body_chars - unit_chars - numbers <= 2 * len(_sections(p.units))


def test_ids_deterministic_and_unique(parsed):
    version, p, _ = parsed
    again = parse_bangla(DATA / SOURCES[version], version)
    assert [u.node_id for u in p.units] == [u.node_id for u in again.units]
    assert [u.text for u in p.units] == [u.text for u in again.units]
    assert len({u.node_id for u in p.units}) == len(p.units)


def test_labels_in_official_english_style():
    p = parse_bangla(DATA / SOURCES["2025"], "2025")
    ids = {u.node_id for u in p.units}
    for expected in ["2025:27", "2025:2(10)", "2025:151A(2)", "2025:345C", "2025:2(12A)(a)", "2025:1(4)(j)(1)",
                     "2025:2(1A).proviso1"]:
        assert expected in ids, expected


def test_numbered_list_inside_clause_does_not_overwrite_subsection():
    p = parse_bangla(DATA / SOURCES["2025"], "2025")
    by = {u.node_id: u for u in p.units}
    assert by["2025:1(1)"].text.startswith("(১) এই আইন")
    assert by["2025:1(4)(j)(1)"].text == "(১) রেল বিভাগ;"
    assert by["2025:1(4)(j)(1)"].level == Level.ITEM
    # A list under sub-section 202(6) uses (১)..(৫) again: items, not duplicate sub-sections.
    assert by["2025:202(6)(1)"].level == Level.ITEM
    assert by["2025:202(7)"].level == Level.SUBSECTION


def test_amendment_notes_kept_as_metadata_not_text():
    p = parse_bangla(DATA / SOURCES["2025"], "2025")
    by = {u.node_id: u for u in p.units}
    d = by["2025:1(4)(d)"]  # clause (ঘ) omitted by the 2025 Ordinance, named only in its footnote
    assert d.omitted and d.text.startswith("[***]")
    assert d.notes and d.notes[0].action == "omitted" and d.notes[0].year == 2025
    g = by["2025:1(4)(g)"]
    assert g.notes[0].action == "inserted" and g.notes[0].year == 2013
    assert "সন্নিবেশিত" not in g.text


def test_proviso_edges_point_from_rule_to_proviso():
    p = parse_bangla(DATA / SOURCES["2025"], "2025")
    by = {u.node_id: u for u in p.units}
    rule = by["2025:2(1A)"]
    assert rule.provisos == ["2025:2(1A).proviso1"]
    assert by["2025:2(1A).proviso1"].parent == "2025:2(1A)"
