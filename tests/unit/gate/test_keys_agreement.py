"""Content keys and their migration, the label policy, κ/AC1 (issue 11)."""

from __future__ import annotations

import json

import pytest

from labourcrew.errors import DataError
from labourcrew.gate.agreement import agreement_report, bootstrap_ci, gwet_ac1
from labourcrew.gate.labels import Label, LabelStore, cohens_kappa, content_key, rekey, resolve_labels
from labourcrew.gate.recalibration import import_labels, legacy_key_map, load_calibration_set
from labourcrew.settings import REPO_ROOT

CAL = REPO_ROOT / "data" / "calibration"


def _lab(key: str, who: str, label: str) -> Label:
    return Label(claim_id=key, annotator=who, label=label, created="2026-01-01T00:00:00+00:00")


def test_content_key_ignores_order_spelling_and_whitespace_but_not_content():
    a = content_key("2025", "নৈমিত্তিক ছুটি  কত দিন?", [("2025:115", "দশ দিনের"), ("2025:115.proviso1", "তবে")])
    b = content_key("2025", "নৈমিত্তিক ছুটি কত দিন?", [("2025:115.proviso1", "তবে "), ("2025:115", "দশ  দিনের")])
    assert a == b and a.startswith("ck1:")
    assert content_key("2018", "নৈমিত্তিক ছুটি কত দিন?", [("2025:115", "দশ দিনের")]) != a
    assert content_key("2025", "অন্য প্রশ্ন?", [("2025:115", "দশ দিনের")]) != content_key(
        "2025", "নৈমিত্তিক ছুটি কত দিন?", [("2025:115", "দশ দিনের")])


def test_migration_maps_every_legacy_key_and_merges_equal_labels(tmp_path):
    rows = load_calibration_set(CAL / "calibration_set.v1.jsonl")  # the first system's claims (legacy keys)
    mapping = legacy_key_map(rows)
    assert len(mapping) == 335 and len(set(mapping.values())) == 257
    old = [_lab(k, "dev", r.label) for k, r in zip(mapping, rows, strict=True)]
    new, missing = rekey(old, mapping)
    assert not missing and len(new) == 257 and {lab.claim_id for lab in new} == set(mapping.values())
    first, second = next((k1, k2) for k1 in mapping for k2 in mapping if k1 < k2 and mapping[k1] == mapping[k2])
    with pytest.raises(DataError):
        rekey([_lab(first, "x", "faithful"), _lab(second, "x", "unfaithful")], mapping)
    # the committed store holds content keys only, both annotators and the adjudicator under their names
    lines = [json.loads(x) for x in (CAL / "labels.jsonl").read_text().splitlines()]
    assert all(x["claim_id"].startswith("ck1:") for x in lines)
    assert {x["annotator"] for x in lines} >= {"dev-team-ai", "pass2-ai-annotator", "adjudicator-ai", "annotator-L1-ai"}
    # importing legacy-keyed labels lands them on content keys
    src = tmp_path / "p.jsonl"
    src.write_text(json.dumps({"key": first, "label": "faithful", "rationale": "r"}) + "\n", encoding="utf-8")
    store = LabelStore(tmp_path / "s.sqlite")
    assert import_labels(store, src, rows, annotator="someone") == (1, [])
    assert store.get(mapping[first], "someone").rationale == "r"


def test_label_policy_adjudicated_then_agreed_then_single():
    labels = [_lab("k1", "a", "faithful"), _lab("k1", "b", "unfaithful"), _lab("k1", "adjudicator-ai", "faithful"),
              _lab("k2", "a", "faithful"), _lab("k2", "b", "faithful"), _lab("k3", "a", "unfaithful"),
              _lab("k4", "a", "faithful"), _lab("k4", "b", "unfaithful"), _lab("k5", "a", "unsure")]
    res = resolve_labels(labels)
    assert (res["k1"].label, res["k1"].source) == ("faithful", "adjudicated")
    assert (res["k2"].label, res["k2"].source) == ("faithful", "agreed")
    assert (res["k3"].label, res["k3"].source) == ("unfaithful", "single")
    assert (res["k4"].label, res["k4"].source) == ("unfaithful", "disputed")
    assert res["k5"].faithful is None


def test_kappa_and_ac1_on_a_hand_computed_example():
    a = ["faithful", "faithful", "unfaithful", "unfaithful"]
    b = ["faithful", "unfaithful", "unfaithful", "unfaithful"]
    # p_o = 3/4; κ: p_e = .5·.25 + .5·.75 = .5 -> κ = .5; AC1: π = (.375, .625), p_e = 2·.375·.625 = .46875
    assert cohens_kappa(a, b) == pytest.approx(0.5)
    assert gwet_ac1(a, b) == pytest.approx(9 / 17)
    lo, hi = bootstrap_ci(a * 10, b * 10, gwet_ac1, n_boot=300, seed=1)
    assert lo <= 9 / 17 <= hi and bootstrap_ci(a * 10, b * 10, gwet_ac1, n_boot=300, seed=1) == (lo, hi)
    labels = [_lab(f"k{i}", "A", x) for i, x in enumerate(a)] + [_lab(f"k{i}", "B", x) for i, x in enumerate(b)]
    labels.append(_lab("k0", "adjudicator-ai", "unfaithful"))  # never a rater
    rep = agreement_report(labels, "A", "B", n_boot=200)
    assert rep["n"] == 4 and rep["kappa"] == pytest.approx(0.5) and rep["disagreements"] == ["k1"]


def test_committed_agreement_report():
    rep = json.loads((CAL / "agreement.json").read_text())
    assert rep["first"] == "dev-team-ai" and rep["second"] == "pass2-ai-annotator" and rep["n"] >= 100
    assert rep["kappa_ci95"][0] <= rep["kappa"] <= rep["kappa_ci95"][1]
    assert rep["ac1_ci95"][0] <= rep["ac1"] <= rep["ac1_ci95"][1]
    adjudicated = {x["claim_id"] for x in map(json.loads, (CAL / "labels.jsonl").read_text().splitlines())
                   if x["annotator"] == "adjudicator-ai"}
    assert set(rep["disagreements"]) == adjudicated  # every disagreement adjudicated
