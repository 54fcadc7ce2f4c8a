"""Annotation queue and recalibration on real offline board runs (issue 5: Annotate, Calibration)."""

from __future__ import annotations

import json
import math

import pytest

from labourcrew.audit.spans import locate_span
from labourcrew.errors import DataError, InputError
from labourcrew.gate.annotation_queue import (
    agreement,
    build_queue,
    calibration_questions,
    claim_key,
    progress,
    queue_items,
    resolved_labels,
    run_claim_key,
    split_key,
)
from labourcrew.gate.labels import Label, LabelStore, cohens_kappa
from labourcrew.gate.recalibration import (
    history,
    load_validation,
    propose,
    regate,
    save_new_record,
    status_changes,
)
from labourcrew.ledger.gate import CalibrationRecord
from labourcrew.retrieval.thesaurus import load_thesaurus

QUESTIONS = (
    "একজন স্থায়ী শ্রমিক চাকরি ছাড়তে চাইলে কত দিনের নোটিশ দিতে হবে?",
    "শ্রমিক বছরে কয়দিন নৈমিত্তিক ছুটি পান?",
    "ধারা ৪০০ অনুযায়ী ওভারটাইমের হার কত?",
)


def _record(tau: float, created: str = "2026-01-01T00:00:00+00:00", alpha: float = 0.1) -> CalibrationRecord:
    return CalibrationRecord(tau=tau, alpha=alpha, n=30, empirical_risk=0.0, bound=0.05, labels_sha256="a" * 64,
                             created=created, grid_size=3)


@pytest.fixture(scope="module")
def runs(graph):
    """Three offline runs without the vector index (lexical + exact retrieval), τ = 0.5."""
    from labourcrew.board.build import build_board
    from labourcrew.board.run import ask
    from labourcrew.retrieval.pipeline import Retriever
    from labourcrew.settings import load_settings
    from labourcrew.wiring import make_deps

    settings = load_settings()
    deps = make_deps(settings, graph=graph, retrieval=Retriever.lexical_only(settings, graph), calibration=_record(0.5))
    board = build_board(settings, deps)
    return [ask(q, board=board, save=False) for q in QUESTIONS]


def _label(key: str, annotator: str, label: str) -> Label:
    return Label(claim_id=key, run_id=split_key(key)[0], annotator=annotator, label=label,
                 created="2026-01-01T00:00:00+00:00")


def test_claim_key_round_trip_and_bad_input():
    assert split_key(claim_key("run1", "w1")) == ("run1", "w1")
    for bad in (("", "w1"), ("r", ""), ("a:b", "w1")):
        with pytest.raises(InputError):
            claim_key(*bad)
    with pytest.raises(InputError):
        split_key("no-separator")


def test_queue_items_carry_the_full_unit_text_of_every_citation(runs):
    items = queue_items(runs)
    assert len(items) == sum(len(r.claims) for r in runs) > 0
    # Content keys: two sides quoting the same span for one question share a key (and a label).
    assert all(i.key.startswith("ck1:") for i in items) and len({i.key for i in items}) <= len(items)
    for item in items:
        for ev in item.evidence:
            assert ev.unit_text and locate_span(ev.unit_text, ev.span) is not None


def test_build_queue_order_progress_and_skips(runs):
    items = queue_items(runs)
    uniq = list(dict.fromkeys(i.key for i in items))
    a, b, c = uniq[0], uniq[1], uniq[-1]
    labels = [_label(a, "rahim", "faithful"), _label(c, "karim", "unfaithful")]
    todo = build_queue(items, labels, "rahim", skipped=[b])
    keys = [i.key for i in todo]
    assert a not in keys and len(keys) == len(set(keys))  # already labelled by rahim; one item per key
    assert keys.index(c) == len(keys) - 2  # unlabelled claims first, then labelled by others
    assert keys[-1] == b  # skipped goes last
    p = progress(items, labels, "rahim")
    assert (p.total, p.mine, p.labelled, p.double, p.remaining) == (len(uniq), 1, 2, 0, len(uniq) - 1)
    # another system's claims come after the current system's
    other = items[0].model_copy(update={"settings_hash": "other"})
    assert build_queue([other, *items[1:]], [], "x", current_system=items[1].settings_hash)[-1].key == other.key
    # the disagreement queue: only keys whose annotators disagree and nobody adjudicated
    disputed = [_label(b, "p", "faithful"), _label(b, "q", "unfaithful")]
    assert [i.key for i in build_queue(items, disputed, "p", disputed_only=True)] == [b]
    assert not build_queue(items, [*disputed, _label(b, "adjudicator-ai", "faithful")], "p", disputed_only=True)
    with pytest.raises(InputError):
        build_queue(items, labels, "  ")


def test_agreement_and_conservative_resolution(runs):
    keys = list(dict.fromkeys(i.key for i in queue_items(runs)))[:4]
    first = ["faithful", "faithful", "unfaithful", "faithful"]
    second = ["faithful", "unfaithful", "unfaithful", "unsure"]
    labels = [_label(k, "a", x) for k, x in zip(keys, first, strict=True)]
    labels += [_label(k, "b", x) for k, x in zip(keys, second, strict=True)]
    labels.append(_label(keys[0], "c", "unsure"))
    pairs = {(p.first, p.second): p for p in agreement(labels)}
    assert pairs[("a", "b")].shared == 3
    assert pairs[("a", "b")].kappa == pytest.approx(cohens_kappa(first[:3], second[:3]))
    assert math.isnan(pairs[("a", "c")].kappa) and pairs[("a", "c")].shared == 0
    decided, unsure = resolved_labels(labels)
    assert decided[keys[0]] is True and decided[keys[1]] is False  # any unfaithful label wins
    assert decided[keys[3]] is True and unsure == 0
    _, only_unsure = resolved_labels([_label(keys[0], "c", "unsure")])
    assert only_unsure == 1


def test_calibration_questions_group_labelled_claims_per_run(runs):
    labelled = [r for r in runs if r.claims][:2]
    labels = [_label(run_claim_key(r, c), "a", "faithful") for r in labelled for c in r.claims[:2]]
    labels.append(_label("gone-run:w1", "a", "faithful"))
    data = calibration_questions(runs, labels)
    assert data.run_ids == [r.run_id for r in labelled]
    keys = {lab.claim_id for lab in labels} - {"gone-run:w1"}
    assert data.n_claims == len(keys) and data.n_orphan == 1
    # every claim whose content key is labelled counts (a second side quoting the same span too)
    first = labelled[0]
    assert data.questions[0] == [(c.trust_score, True) for c in first.claims if run_claim_key(first, c) in keys]


def test_regate_reproduces_the_saved_decision(runs, graph):
    rec = _record(0.5)
    for r in runs:
        g = regate(r, rec, graph, thesaurus=load_thesaurus())
        assert g.status == r.status and g.accepted_ids == [c.claim_id for c in r.accepted()]
    closed = regate(runs[0], _record(math.inf), graph, thesaurus=load_thesaurus())
    assert closed.status.value == "UNDECIDED" and not closed.accepted_ids
    changes = status_changes(runs, rec, _record(math.inf), graph, thesaurus=load_thesaurus())
    assert [c.changed for c in changes] == [bool(r.accepted()) for r in runs]


def test_propose_fails_closed_with_too_few_questions_and_not_at_alpha_half(runs):
    r = next(r for r in runs if r.claims)
    labels = [_label(run_claim_key(r, c), "a", "faithful") for c in r.claims]
    few = propose(runs, labels, alpha=0.1, labels_sha256="x", method="crc")
    assert math.isinf(few.record.tau) and few.record.n == 1
    assert math.isinf(propose(runs, labels, alpha=0.5, labels_sha256="x").record.tau)  # LTT: 1 question is too few
    ok = propose(runs, labels, alpha=0.5, labels_sha256="x", method="crc")
    assert ok.record.tau == pytest.approx(min(c.trust_score for c in r.claims)) and ok.record.labels_sha256 == "x"


def test_save_new_record_keeps_every_record(tmp_path):
    current = tmp_path / "calibration" / "trust_gate.json"
    first, archived = save_new_record(_record(0.7, "2026-01-01T00:00:00+00:00"), current)
    assert archived is None and first.name == "trust_gate.20260101T000000Z.json"
    second, archived = save_new_record(_record(0.6, "2026-02-01T00:00:00+00:00"), current)
    assert archived is None  # the first record already has its timestamped copy
    assert CalibrationRecord.load(current).tau == 0.6
    # a record written by another tool (no timestamped copy) is archived before replacement
    _record(0.9, "2026-03-01T00:00:00+00:00").save(current)
    _, archived = save_new_record(_record(0.5, "2026-04-01T00:00:00+00:00"), current)
    assert archived is not None and CalibrationRecord.load(archived).tau == 0.9
    taus = [rec.tau for _, rec in history(current)]
    assert taus[0] == 0.5 and sorted(taus[1:]) == [0.5, 0.6, 0.7, 0.9]


def test_load_validation(tmp_path):
    path = tmp_path / "validation.json"
    assert load_validation(path) is None
    path.write_text(json.dumps({"splits": 500, "mean_far_calibrated": 0.08}), encoding="utf-8")
    assert load_validation(path)["splits"] == 500
    path.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(DataError):
        load_validation(path)


def test_label_store_keys_from_the_queue_round_trip(tmp_path, runs):
    store = LabelStore(tmp_path / "labels.sqlite")
    item = queue_items(runs)[0]
    store.add(item.key, "rahim", "faithful", run_id=item.run_id)
    assert progress([item], store.list(), "rahim").mine == 1
