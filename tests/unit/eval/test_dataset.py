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


def test_calibration_extension_verifies_and_restates_nothing(items, graph):
    """The added calibration questions (``data/eval/cal_v2_*.jsonl``): gold spans verify, ids are new,
    and none restates a dev question, a training question or a demo question."""
    from labourcrew.eval.datasets import calibration_extension
    from labourcrew.relevance.dataset import dev_overlap, load_train
    from labourcrew.ui.ask import EXAMPLES

    paths = calibration_extension()
    assert paths, "no calibration extension files"
    extra = [it for p in paths for it in load_dataset(p)]
    assert len(extra) >= 250
    assert verify_dataset(extra, graph) == []
    ids = [it.id for it in extra]
    assert len(set(ids)) == len(ids) and not set(ids) & {it.id for it in items}
    from types import SimpleNamespace

    as_train = [SimpleNamespace(id=it.id, question=it.question_bn) for it in extra]  # dev_overlap reads these two
    ref = [i.question_bn for i in items] + [t.question for t in load_train()] + list(EXAMPLES)
    assert dev_overlap(as_train, ref, threshold=0.5) == []
    assert {it.category for it in extra} == set(CATEGORIES)
