"""The dev question set: schema, coverage, and every gold span verified against the StatuteGraph."""

from __future__ import annotations

from collections import Counter

import pytest

from labourcrew.errors import DataError
from labourcrew.eval.datasets import (
    ANSWERABLE,
    CATEGORIES,
    load_dataset,
    verify_dataset,
    verify_item,
)


@pytest.fixture(scope="module")
def items():
    return load_dataset()


def test_size_and_coverage(items):
    assert len(items) >= 150
    cats = Counter(i.category for i in items)
    assert set(cats) == set(CATEGORIES)
    assert all(cats[c] >= 10 for c in ANSWERABLE)
    assert {i.difficulty for i in items} == {1, 2, 3}
    assert {i.register_ for i in items} == {"formal", "colloquial", "noisy"}


def test_every_gold_span_verifies_against_the_graph(items, graph):
    problems = verify_dataset(items, graph)
    for p in problems:
        print(p)
    assert problems == []


def test_verifier_catches_a_wrong_span_and_a_missing_section(items, graph):
    item = next(i for i in items if i.gold_spans)
    bad = item.model_copy(deep=True)
    bad.gold_spans[0].span = bad.gold_spans[0].span[:-3] + "XYZ"
    assert any("not found" in p for p in verify_item(bad, graph))
    bad2 = item.model_copy(update={"gold_sections": ["400"]})
    assert any("does not exist" in p for p in verify_item(bad2, graph))


def test_bad_file_is_a_clear_data_error(tmp_path):
    p = tmp_path / "x.jsonl"
    p.write_text('{"id": "a"}\n', encoding="utf-8")
    with pytest.raises(DataError, match="x.jsonl:1"):
        load_dataset(p)
    with pytest.raises(DataError, match="not found"):
        load_dataset(tmp_path / "missing.jsonl")
