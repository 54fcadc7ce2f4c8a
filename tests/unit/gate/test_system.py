"""The record's system vs the running one, and a re-run finding its label by content key (issue 11)."""

from __future__ import annotations

import math

from labourcrew.gate.annotation_queue import run_claim_key
from labourcrew.gate.crc import load_calibration
from labourcrew.gate.recalibration import load_calibration_set, load_label_file
from labourcrew.gate.system import mismatch, system_of
from labourcrew.ledger.gate import CalibrationRecord
from labourcrew.settings import REPO_ROOT, load_settings

CAL = REPO_ROOT / "data" / "calibration"


def _record(system=None) -> CalibrationRecord:
    return CalibrationRecord(tau=0.5, alpha=0.1, n=30, empirical_risk=0.0, bound=0.05, labels_sha256="t",
                             created="x", grid_size=3, method="ltt", delta=0.1, system=system)


def test_another_system_fails_closed_in_bangla_and_english_or_runs_uncalibrated(tmp_path):
    here = system_of(load_settings())
    other = here.model_copy(update={"backend": "openai", "model": "qwen"})
    path = tmp_path / "trust_gate.json"
    _record(other).save(path)
    closed = load_calibration(path, 0.1, system=here)
    assert math.isinf(closed.tau) and closed.fallback == "none"
    assert closed.note.startswith("ক্যালিব্রেশন রেকর্ডটি অন্য সিস্টেমের") and "backend openai != offline" in closed.note
    fallback = load_calibration(path, 0.1, system=here, on_mismatch="categorical")
    assert math.isinf(fallback.tau) and fallback.fallback == "categorical"
    assert load_calibration(path, 0.1, system=other).tau == 0.5  # the same system uses its τ
    _record(None).save(path)
    assert math.isinf(load_calibration(path, 0.1, system=here).tau)  # a record that does not say: not trusted
    changed = system_of(load_settings(trust={"w_span": 0.2}))
    assert mismatch(here, changed) is not None and mismatch(here, here) is None


def test_a_mismatched_record_never_gives_tglo(graph):
    from labourcrew.board.run import ask
    from labourcrew.retrieval.pipeline import Retriever
    from labourcrew.wiring import make_board

    settings = load_settings()
    fallback = _record().model_copy(update={"tau": math.inf, "fallback": "categorical", "note": "অন্য — other"})
    board = make_board(settings, graph=graph, retrieval=Retriever.lexical_only(settings, graph), calibration=fallback)
    res = ask("একটি প্রতিষ্ঠানে ন্যূনতম কতটি প্রাথমিক চিকিৎসা বাক্স রাখতে হয়?", board=board, save=False)
    assert res.status.value in {"DEGRADED", "UNDECIDED"}
    if res.status.value == "DEGRADED":
        assert "uncalibrated" in res.status_reason


def test_a_rerun_of_a_calibration_question_finds_its_existing_label(graph):
    from labourcrew.board.run import ask
    from labourcrew.retrieval.pipeline import Retriever
    from labourcrew.wiring import make_board

    rows = load_calibration_set(CAL / "calibration_set.jsonl")
    labels, _ = load_label_file(CAL / "labels.jsonl")
    keys = {lab.claim_id for lab in labels}
    # devA-005 (first-aid boxes, s.89): its quotes are stable under lexical-only retrieval
    question = next(r.question for r in rows if r.item_id == "devA-005")
    settings = load_settings()
    board = make_board(settings, graph=graph, retrieval=Retriever.lexical_only(settings, graph))
    res = ask(question, board=board, save=False)
    found = [run_claim_key(res, c) for c in res.claims if c.evidence and run_claim_key(res, c) in keys]
    assert found, "a re-run that produces the same claim must find its label by content key"
