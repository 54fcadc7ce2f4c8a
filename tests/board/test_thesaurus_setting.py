"""The Trust Gate reads a question with the thesaurus the settings configure (``relevance.thesaurus_path``),
the same one retrieval expands it with: a word only a configured thesaurus knows is not "nothing matched"."""

from __future__ import annotations

import json

from labourcrew.board.run import ask
from labourcrew.gate.trust_gate import NOT_MATCHED, gate_inputs
from labourcrew.retrieval.issue_spotter import spot_issues
from labourcrew.retrieval.thesaurus import load_thesaurus

WORD = "zqxwv"  # in no text of the Act and in no concept of the committed thesaurus


def _thesaurus_file(tmp_path):
    path = tmp_path / "terms.json"
    path.write_text(json.dumps({"version": 1, "reviewed_by": "test", "concepts": [
        {"id": "casual_leave_alias", "act_terms": ["নৈমিত্তিক ছুটি"], "user_terms_roman": [WORD], "sections": ["115"]},
    ]}, ensure_ascii=False), encoding="utf-8")
    return path


def test_gate_inputs_consult_the_thesaurus_they_are_given(graph, tmp_path) -> None:
    spotting = spot_issues(WORD)
    assert gate_inputs(graph, spotting, WORD, "2025", thesaurus=load_thesaurus()).nothing_matched
    configured = load_thesaurus(_thesaurus_file(tmp_path))
    assert not gate_inputs(graph, spotting, WORD, "2025", thesaurus=configured).nothing_matched


def test_the_boards_gate_uses_the_configured_thesaurus(make_board, offline, offline_board, tmp_path) -> None:
    plain = ask(WORD, board=offline_board, save=False)
    assert plain.status_reason.startswith(NOT_MATCHED[0])  # the committed thesaurus does not know the word
    board = make_board(offline, relevance={"thesaurus_path": str(_thesaurus_file(tmp_path))})
    r = ask(WORD, board=board, save=False)
    assert not r.status_reason.startswith(NOT_MATCHED[0])
    # retrieval expanded the question with the same thesaurus: section 115 (casual leave) was found
    assert any(i.node_id.startswith("2025:115") for i in r.evidence_pack.items)


def test_the_board_loads_its_thesaurus_once_and_an_injected_one_serves_planner_and_gate(
    base_settings, offline_board, tmp_path
) -> None:
    import dataclasses

    from labourcrew.board.build import build_board

    # build_board gives the deps the settings' thesaurus
    assert offline_board.deps.thesaurus is load_thesaurus(base_settings.relevance.thesaurus_path)
    deps = dataclasses.replace(offline_board.deps, thesaurus=load_thesaurus(_thesaurus_file(tmp_path)))
    # the settings still name the committed thesaurus: only the injected one knows the word
    r = ask(WORD, board=build_board(base_settings, deps), save=False)
    assert not r.status_reason.startswith(NOT_MATCHED[0])  # the gate read the question with it
    assert any(i.node_id.startswith("2025:115") for i in r.evidence_pack.items)  # the planner expanded with it
