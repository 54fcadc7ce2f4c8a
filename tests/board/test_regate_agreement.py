"""The board's Trust Gate and the re-gating of a saved run read a question the same way
(gate.trust_gate.gate_inputs) and settle its status by the same rules (gate.trust_gate.settle): parts,
false premises and withheld qualifiers, on the real Act with the offline board."""

from __future__ import annotations

import pytest

from labourcrew.board.run import ask
from labourcrew.gate.recalibration import regate, regate_with_checks
from labourcrew.gate.trust_gate import gate_inputs, premise_errors
from labourcrew.ledger.records import ReleaseStatus
from labourcrew.retrieval.issue_spotter import spot_issues
from labourcrew.retrieval.thesaurus import load_thesaurus

from .conftest import finite_calibration

QUESTIONS = [
    # a false premise in one part, the other part answerable: DEGRADED, the other part released
    "ধারা ৪০০ কী বলে? নৈমিত্তিক ছুটি বছরে কত দিন?",
    # a false premise in the only part: nothing released
    "ধারা ৪০০ অনুযায়ী ওভারটাইমের হার কত?",
    # a rule with a proviso that bears on the question
    "নৈমিত্তিক ছুটি বছরে কত দিন?",
    # two parts, one of them outside the Act
    "মাতৃত্বকালীন ছুটি কত দিন? ক্রিকেট খেলার নিয়ম কী?",
]


@pytest.mark.parametrize("question", QUESTIONS)
def test_regating_a_saved_run_reproduces_the_boards_decision(question, offline_board, graph):
    r = ask(question, board=offline_board, save=False)
    accepted, status, share = regate_with_checks(r, graph, checker=True, auditor=True, thesaurus=load_thesaurus())
    assert accepted == {c.claim_id: c.accepted for c in r.claims}
    assert status == r.status.value
    assert share == pytest.approx(r.coverage.share)
    again = regate(r, finite_calibration(), graph, mode="categorical", thesaurus=load_thesaurus())
    assert again.status == r.status
    assert [p.answered for p in again.parts] == [p.answered for p in r.opinion.parts]


def test_the_premise_case_releases_the_free_part_in_both_paths(offline_board, graph):
    r = ask(QUESTIONS[0], board=offline_board, save=False)
    assert r.status == ReleaseStatus.DEGRADED and any(c.accepted for c in r.claims)
    accepted, status, _ = regate_with_checks(r, graph, checker=False, auditor=False, thesaurus=load_thesaurus())
    # with both checks off every claim is released -- the premise blocks only its own part
    assert all(accepted.values()) and status == ReleaseStatus.DEGRADED.value


def test_each_part_carries_its_own_false_premise(graph):
    q = "ধারা ২৭(৯) কী বলে? ধারা ৪০০ কী বলে?"
    inputs = gate_inputs(graph, spot_issues(q), q, "2025", thesaurus=load_thesaurus())
    assert len(inputs.premise_errors) == 2
    first, second = inputs.parts
    # 27(9) is answered from section 27 (its nearest provision) and blocks nothing; 400 blocks its part
    assert first.premise_error is None
    assert second.premise_error is not None and "৪০০" in second.premise_error and "২৭" not in second.premise_error
    assert inputs.premise_errors == premise_errors(["27(9)", "400"], {"27(9)": "2025:27", "400": None}, "2025", graph)
