"""The dev question set: schema, coverage, and every gold span verified against the StatuteGraph."""

from __future__ import annotations

from collections import Counter

import pytest

from labourcrew.errors import DataError, InputError
from labourcrew.eval.bench_retrieval import load_dev
from labourcrew.eval.datasets import (
    ANSWERABLE,
    CATEGORIES,
    DEFAULT_DATASET,
    DevItem,
    calibration_extension,
    is_train_schema,
    load_dataset,
    verify_dataset,
    verify_item,
)
from labourcrew.relevance.dataset import RELEVANCE_DEV_DIR, load_train


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


def _fields(rows):
    return [(r.id, r.category, r.question_bn, r.gold_sections, r.statute_version) for r in rows]


def test_the_benchmark_and_the_evaluation_read_dev_rows_identically(items):
    """One reader: the retrieval benchmark's rows of a dev-schema file are the evaluation's rows."""
    for rows in (load_dev(), load_dev([DEFAULT_DATASET])):
        assert all(isinstance(r, DevItem) for r in rows)
        assert _fields(rows) == _fields(items)
    assert sum(bool(r.gold_sections) for r in items) >= 150
    # several files: each read as the evaluation reads it, in the order given
    paths = calibration_extension()
    assert _fields(load_dev(paths)) == _fields([it for p in paths for it in load_dataset(p)])


def test_a_training_schema_file_is_read_by_the_benchmark_and_refused_by_the_evaluation():
    part = RELEVANCE_DEV_DIR / "part_G.jsonl"
    assert is_train_schema(part) and not is_train_schema(DEFAULT_DATASET)
    train = load_train(part)
    rows = load_dev([part])
    assert [r.id for r in rows] == [t.id for t in train] and len(rows) >= 50
    assert [r.question_bn for r in rows] == [t.question for t in train]
    assert [r.gold_sections for r in rows] == [list(dict.fromkeys(g for i in t.issues for g in i.gold)) for t in train]
    assert not any(isinstance(r, DevItem) for r in rows)  # no tier or gold answer is made up
    with pytest.raises(InputError) as exc:
        load_dataset(part)
    msg = str(exc.value)
    bangla = msg.index("প্রশিক্ষণ")
    assert bangla < msg.index("training-schema") and "bench retrieval --dataset" in msg
    with pytest.raises(InputError, match="folder"):
        load_dataset(RELEVANCE_DEV_DIR)
