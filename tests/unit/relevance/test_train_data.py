"""The hand-written relevance training set: every gold unit verified against the StatuteGraph,
coverage and registers as the issue asks, and no paraphrase of a held-out dev question."""

from __future__ import annotations

import pytest

from labourcrew.relevance.dataset import (
    RELEVANCE_DEV_DIR,
    TRAIN_DIR,
    TrainItem,
    coverage,
    dev_overlap,
    dev_questions,
    load_train,
    verify_train,
    verify_train_item,
)


@pytest.fixture(scope="module")
def items() -> list[TrainItem]:
    return load_train()


@pytest.mark.parametrize("folder", [TRAIN_DIR, RELEVANCE_DEV_DIR], ids=["train", "relevance_dev"])
def test_every_label_and_span_verifies_against_the_graph(folder, graph):
    problems = verify_train(load_train(folder), graph)
    assert problems == [], problems[:10]


def test_coverage_and_registers(items, graph):
    cov = coverage(items, graph)
    assert cov["items"] >= 800
    assert cov["chapters"] == 21
    assert cov["sections"] >= 250
    share = cov["register_share"]
    assert share["formal"] <= 0.40 and share["colloquial"] >= 0.30
    assert share["noisy"] >= 0.15 and share["english"] >= 0.05
    assert cov["stories"] >= 150
    assert cov["with_near_miss"] >= 0.5 * cov["items"]
    # questions whose answer is a proviso or explanation
    provisos = sum(any(".proviso" in g or ".explanation" in g for i in it.issues for g in (*i.gold, *i.qualifiers))
                   for it in items)
    assert provisos >= 100
    assert all(it.author for it in items)


def test_no_training_question_restates_a_dev_question(items):
    assert dev_overlap(items, dev_questions()) == []


def _demo_questions() -> list[str]:
    """The Ask page's example buttons and every ``ask "..."`` example in the README: measured, never trained on."""
    import re

    from labourcrew.graph.statute_graph import REPO_ROOT
    from labourcrew.ui.ask import EXAMPLES

    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    found = re.findall(r'labourcrew ask "([^"]+)"', readme)
    assert found, "the README lost its ask examples"
    return [*EXAMPLES, *found]


def test_no_training_question_restates_a_demo_question(items):
    assert dev_overlap(items, _demo_questions()) == []


def test_the_guards_can_fail(items, graph):
    it = items[0]
    bad = it.model_copy(deep=True)
    bad.issues[0].gold = ["999"]
    assert any("does not exist" in p for p in verify_train_item(bad, graph))
    bad2 = it.model_copy(deep=True)
    bad2.issues[0].span = "এই বাক্যটি আইনে নেই"
    bad2.issues[0].gold = [it.issues[0].gold[0]]
    assert any("span not found" in p for p in verify_train_item(bad2, graph))
    bad3 = it.model_copy(deep=True)
    bad3.near_miss = [it.issues[0].gold[0]]
    assert any("near_miss" in p for p in verify_train_item(bad3, graph))
    assert dev_overlap([it], [it.question]) == [(it.id, 1.0)]
