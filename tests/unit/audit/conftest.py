"""Real statute text for the audit tests: sections and sentences of the Bangla Act (2026-03-29)."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from labourcrew.statute.normalize import collapse_ws, normalize

ACT_HTML = Path(__file__).resolve().parents[3] / "data/statute/bn/act-952_bdlaws_2026-03-29.html"
_SENTENCE_END = re.compile(r"(?<=[৷।])\s+")


@cache
def act_sections() -> tuple[str, ...]:
    """Every section body of the Act with amendment notes removed, whitespace collapsed."""
    soup = BeautifulSoup(ACT_HTML.read_text(encoding="utf-8"), "lxml")
    for note in soup.select("span.footnote"):
        note.decompose()
    texts = (collapse_ws(div.get_text(" ")) for div in soup.select("div.txt-details"))
    return tuple(t for t in texts if t)


@cache
def act_sentences() -> tuple[tuple[int, str], ...]:
    """(section index, sentence) pairs: dari-terminated pieces of 20-300 normalised characters."""
    out = []
    for i, text in enumerate(act_sections()):
        for sentence in _SENTENCE_END.split(text):
            if 20 <= len(normalize(sentence)) <= 300:
                out.append((i, sentence))
    return tuple(out)


class _Short(tuple):
    """A tuple with a one-line repr, so hypothesis failure reports stay readable."""

    def __repr__(self) -> str:
        return f"<{len(self)} items from {ACT_HTML.name}>"


@pytest.fixture(scope="session")
def sections() -> tuple[str, ...]:
    return _Short(act_sections())


@pytest.fixture(scope="session")
def sentences() -> tuple[tuple[int, str], ...]:
    return _Short(act_sentences())
