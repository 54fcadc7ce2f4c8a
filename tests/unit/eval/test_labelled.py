"""Measurement with labels (labourcrew.eval.labelled): one label policy, and a per-question metric the
claim mix cannot inflate."""

from __future__ import annotations

import json

from labourcrew.eval.datasets import load_dataset
from labourcrew.eval.labelled import load_labels_by_key, measure
from labourcrew.gate.labels import Label, resolve_labels


def test_report_labels_resolve_by_the_one_label_policy(tmp_path):
    rows = [
        {"key": "ck1:a", "annotator": "x", "label": "faithful"}, {"key": "ck1:a", "annotator": "y", "label": "faithful"},
        {"key": "ck1:b", "annotator": "x", "label": "faithful"}, {"key": "ck1:b", "annotator": "y", "label": "unfaithful"},
        {"key": "ck1:c", "annotator": "x", "label": "unfaithful"}, {"key": "ck1:c", "annotator": "y", "label": "faithful"},
        {"key": "ck1:d", "annotator": "x", "label": "unsure"},
    ]
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    got = load_labels_by_key(path)
    policy = resolve_labels([Label(claim_id=r["key"], annotator=r["annotator"], label=r["label"], created="")
                             for r in rows])
    assert got == {k: v.label for k, v in policy.items()}
    # a disagreement is unfaithful whichever annotator wrote last (the file order used to decide)
    assert got["ck1:b"] == got["ck1:c"] == "unfaithful" and got["ck1:a"] == "faithful" and got["ck1:d"] == "unsure"


def _claim(item_id: str, key: str, score: float, node_id: str) -> dict:
    return {"item_id": item_id, "content_key": key, "trust_score": score, "accepted": True,
            "citations": [{"node_id": node_id}]}


def test_top_claim_metric_is_not_inflated_by_easy_negatives():
    item = next(d for d in load_dataset() if d.gold_sections and d.category == "direct_factual")
    gold = f"{item.statute_version}:{item.gold_sections[0]}"
    claims = [_claim(item.id, "good", 0.6, gold), _claim(item.id, "bad", 0.9, gold)]
    labels = {"good": "faithful", "bad": "unfaithful"}
    before = measure(claims, labels)
    junk = [_claim(item.id, f"junk{k}", 0.1, gold) for k in range(10)]
    after = measure(claims + junk, {**labels, **{c["content_key"]: "unfaithful" for c in junk}})
    assert before["trust_auc"] == 0.0 and after["trust_auc"] > 0.9  # AUC rewards the extra easy negatives
    assert before["overall"]["top_claim_faithful"] == after["overall"]["top_claim_faithful"] == 0.0
    assert measure(claims, {"good": "faithful", "bad": "faithful"})["overall"]["top_claim_faithful_gold"] == 1.0


def test_bench_reports_the_committed_labelled_export_only_for_the_system_that_made_it():
    from labourcrew.eval.bench import _labelled_part
    from labourcrew.eval.labelled import REPORT_CLAIMS, REPORT_LABELS, load_claims
    from labourcrew.settings import load_settings

    settings = load_settings()
    part = _labelled_part(settings)
    assert part["stale"] is False, part  # the committed export is this system's (re-export after a change)
    direct = measure(load_claims(REPORT_CLAIMS), load_labels_by_key(REPORT_LABELS), tau=float(part["tau"]))
    assert part["trust_auc"] == direct["trust_auc"] and part["calibrated"] == direct["overall"]
    assert part["labelled"] == part["claims"]  # every exported claim is labelled
    other = settings.model_copy(update={"offline": settings.offline.model_copy(update={"relevance_floor": 0.5})})
    assert _labelled_part(other)["stale"] is True
