"""Real Act text for retrieval tests, by a simple ad-hoc extraction (independent of the parser)."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

REPO = Path(__file__).resolve().parents[3]
BN_2025 = REPO / "data/statute/bn/act-952_bdlaws_2026-03-29.html"
EN_2018 = REPO / "data/statute/en/Bangladesh-Labour-Act-2006_English-Upto-2018.txt"


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@pytest.fixture(scope="session")
def bn_sections() -> dict[str, str]:
    """NFC section title -> section body of the 2025 Bangla text (each ``div.row.lineremoves``)."""
    soup = BeautifulSoup(BN_2025.read_text(encoding="utf-8"), "lxml")
    out: dict[str, str] = {}
    for row in soup.select("div.row.lineremoves"):
        head, body = row.select_one("div.txt-head"), row.select_one("div.txt-details")
        if head is not None and body is not None:
            out.setdefault(unicodedata.normalize("NFC", _clean(head.get_text(" "))), _clean(body.get_text(" ")))
    assert len(out) > 300, "extraction broke: the 2025 text has ~369 section blocks"
    return out


@pytest.fixture(scope="session")
def bn_paragraphs() -> list[str]:
    """Every non-empty ``<p>`` of the 2025 Bangla section bodies, in document order."""
    soup = BeautifulSoup(BN_2025.read_text(encoding="utf-8"), "lxml")
    paras = [_clean(p.get_text(" ")) for d in soup.select("div.txt-details") for p in d.find_all("p")]
    paras = [p for p in paras if p]
    assert len(paras) > 800
    return paras


@pytest.fixture(scope="session")
def en_paragraphs() -> list[str]:
    """Blank-line separated blocks of the English text (running headers dropped)."""
    raw = EN_2018.read_text(encoding="utf-8").replace("\f", "\n")
    raw = re.sub(r"(?m)^\s*(Bangladesh Labour Act, 2006|\d+)\s*$", "", raw)  # running header, page no.
    blocks = [_clean(b) for b in re.split(r"\n\s*\n", raw)]
    blocks = [b for b in blocks if len(b) > 40]
    assert len(blocks) > 200
    return blocks
