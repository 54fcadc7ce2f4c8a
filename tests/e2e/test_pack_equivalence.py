"""One Evidence Pack assembly: the board's pack is the one ``retrieve`` returns for the same question
(same units, order, provenance and learned relevance), on dev questions with the real index."""

from __future__ import annotations

import pytest

from labourcrew.board.run import stream
from labourcrew.eval.datasets import load_dataset

QUESTIONS = [it.question_bn for it in load_dataset() if it.category != "unanswerable"][::16][:8]


def _pack_rows(pack):
    return [(i.node_id, round(i.provenance, 6), i.relevance, i.hop_depth, i.via) for i in pack.items]


@pytest.mark.parametrize("question", QUESTIONS)
def test_board_pack_equals_retrieve_pack(question, pipeline, calibrated_board):
    expected = pipeline.retrieve(question, "2025").evidence_pack
    first_pack = None
    for node, update in stream(question, version="2025", board=calibrated_board, save=False):
        if node == "link_hopper" and first_pack is None:
            first_pack = update["pack"]
    assert first_pack is not None
    assert _pack_rows(first_pack) == _pack_rows(expected)
    assert [(e.source, e.target) for e in first_pack.hop_trace] == [(e.source, e.target) for e in expected.hop_trace]
    assert any(i.provenance < 1.0 for i in expected.items)  # one provenance rule, not a constant
    assert all(i.relevance is not None for i in expected.items)  # the learned rerank ran on both paths
