"""The relevance development set (data/relevance_dev/): verified against the StatuteGraph like the
training set (test_train_data), never trained on, no restatement of a dev, calibration, training or demo question, and
readable by the retrieval benchmark with each issue's gold units as its gold labels."""

from __future__ import annotations

import pytest

from labourcrew.eval.bench_retrieval import load_dev
from labourcrew.eval.datasets import calibration_extension, load_dataset
from labourcrew.relevance.dataset import (
    RELEVANCE_DEV_DIR,
    TrainItem,
    coverage,
    dev_overlap,
    dev_questions,
    load_train,
)

from .test_train_data import _demo_questions


@pytest.fixture(scope="module")
def items() -> list[TrainItem]:
    return load_train(RELEVANCE_DEV_DIR)


def test_size_registers_and_contrast(items, graph):
    cov = coverage(items, graph)
    assert cov["items"] >= 500 and cov["chapters"] == 21 and cov["sections"] >= 180
    share = cov["register_share"]
    assert share["formal"] <= 0.40 and share["colloquial"] >= 0.30 and share["noisy"] >= 0.15 and share["english"] >= 0.05
    # contrastive: most items name a sibling of their gold unit that shares its words but does not govern
    graph_sec = {lab: lab.split("(")[0].split(".")[0] for it in items for lab in [*it.gold_labels(), *it.near_miss]}
    sibling = sum(any(graph_sec[n] in {graph_sec[g] for g in it.gold_labels()} for n in it.near_miss) for it in items)
    assert sibling >= 0.9 * len(items)
    assert all(it.author.startswith("helper-train-") for it in items)


def test_never_trained_on_and_no_restatement(items):
    train = load_train()
    assert not {it.id for it in items} & {it.id for it in train}
    assert not {it.question for it in items} & {it.question for it in train}
    cal = [it.question_bn for path in calibration_extension() for it in load_dataset(path)]
    assert dev_overlap(items, [*dev_questions(), *cal]) == []
    assert dev_overlap(items, _demo_questions()) == []
    assert dev_overlap(items, [it.question for it in train], threshold=0.8) == []


def test_the_benchmark_reads_issue_gold_units_as_gold_labels(items):
    rows = load_dev([RELEVANCE_DEV_DIR])
    assert [r.id for r in rows] == [it.id for it in items]
    story = next(it for it in items if it.kind == "story")
    row = next(r for r in rows if r.id == story.id)
    assert row.question_bn == story.question and row.category == story.category
    assert row.gold_sections == list(dict.fromkeys(g for iss in story.issues for g in iss.gold))
    assert len(story.issues) >= 2
    # qualifiers are what an answer needs, not what retrieval must find
    qualified = next(it for it in items if any(set(iss.qualifiers) - {g for i in it.issues for g in i.gold} for iss in it.issues))
    extra = {q for iss in qualified.issues for q in iss.qualifiers} - {g for iss in qualified.issues for g in iss.gold}
    assert extra and not extra & set(next(r for r in rows if r.id == qualified.id).gold_sections)


def test_parts_with_a_blind_second_pass_keep_only_items_both_annotators_agree_on(items):
    """Parts with a ``second_pass/labels_<part>.jsonl`` (M-P) were labelled again by a fresh session that saw only
    the question and the shuffled candidate labels: an item stays only when the second annotator marked every
    gold unit as governing or qualifying (G/Q) and every near miss as not governing (N)."""
    import json

    folder = RELEVANCE_DEV_DIR / "second_pass"
    passes = sorted(folder.glob("labels_*.jsonl"))
    assert [p.stem[-1] for p in passes] == ["M", "N", "O", "P"]
    by_id = {it.id: it for it in items}
    for path in passes:
        part = path.stem[-1]
        second = {r["id"]: r for r in map(json.loads, path.read_text(encoding="utf-8").splitlines())}
        kept = [it for it in items if it.id.startswith(f"tr{part}-")]
        assert kept and len(second) > len(kept)  # disputed items were dropped, not relabelled
        for it in kept:
            labels = second[it.id]["labels"]
            assert set(labels) == {*it.gold_labels(), *it.near_miss}, it.id  # the same candidates, blind
            assert all(labels[g] in {"G", "Q"} for iss in it.issues for g in iss.gold), it.id
            assert all(labels[n] == "N" for n in it.near_miss), it.id
            assert second[it.id]["annotator"] != by_id[it.id].author
