"""Measurements that need human-style labels of the system's own claims (reporting split only).

``python -m labourcrew.eval.labelled CLAIMS.jsonl LABELS.jsonl [--split report]`` joins the claims
an ``eval --export-claims`` run wrote (each with its content key, trust score and whether the gate
released it) with labels keyed by the same content key, and reports:

* ``trust_auc`` -- ROC AUC of the trust score against faithful (1) / unfaithful (0) labels. It
  depends on the claim mix: a system that adds many low-scored unfaithful claims gains AUC without
  answering better, hence also
* ``top_claim_faithful`` -- among questions with a labelled candidate claim, the share whose
  best-scored claim is faithful (``top_claim_faithful_gold``: faithful and citing a gold section);
* ``faithful_gold_release`` -- among answerable questions, the share that released at least one
  claim labelled faithful whose cited unit lies in a gold section;
* ``release_rate`` / ``selective_risk`` -- share of questions releasing anything, and among those
  the share whose released claims include an unfaithful one (the Trust Gate's risk, Learn-then-Test
  form); ``unlabelled_released`` counts released claims without a label (reported, never guessed);
* the same per category.

These labels are for measurement: nothing is tuned or calibrated on them.
"""

from __future__ import annotations

import json
import math
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from labourcrew.eval.datasets import ANSWERABLE, load_dataset
from labourcrew.gate.labels import Label, resolve_labels
from labourcrew.settings import REPO_ROOT
from labourcrew.statute.ids import section_of_label, split_node_id

__all__ = ["measure", "load_labels_by_key", "load_claims", "REPORT_CLAIMS", "REPORT_LABELS"]

# The reporting split's exported claims and their measurement-only labels (data/eval/README.md).
REPORT_CLAIMS = REPO_ROOT / "data" / "eval" / "claims_report.jsonl"
REPORT_LABELS = REPO_ROOT / "data" / "eval" / "labels_report.jsonl"


def load_claims(path: Path) -> list[dict[str, Any]]:
    """The claims an ``eval --export-claims`` run wrote (one JSON object per line)."""
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


def load_labels_by_key(path: Path) -> dict[str, str]:
    """Content key -> label (``faithful``/``unfaithful``/``unsure``) of a label JSONL.

    Rows carry the key as ``key`` (``data/eval/labels_report.jsonl``) or ``claim_id`` (a label store
    export); several annotators of one key resolve by the one label policy,
    :func:`~labourcrew.gate.labels.resolve_labels` (a disagreement counts as unfaithful).
    """
    rows = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            rows.append(Label(claim_id=row.get("key") or row["claim_id"], annotator=row.get("annotator") or "unknown",
                              label=row["label"], created=row.get("created", "")))
    return {key: res.label for key, res in resolve_labels(rows).items()}


def _auc(pos: list[float], neg: list[float]) -> float:
    if not pos or not neg:
        return math.nan
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def measure(claims: list[dict[str, Any]], labels: dict[str, str], dataset_path: Path | None = None,
            tau: float | None = None) -> dict[str, Any]:
    """The measurements of the module docstring over exported claims and their labels.

    Args:
        claims: exported claims (``eval --export-claims``).
        labels: content key -> label.
        dataset_path: the dev set (default ``data/eval/dev_v1.jsonl``).
        tau: re-decide release as ``trust_score >= tau`` (a calibrated gate's threshold; ``inf``
            releases nothing); None keeps each claim's own ``accepted`` flag.
    """
    if tau is not None:
        claims = [{**c, "accepted": bool(c.get("accepted")) and c["trust_score"] >= tau} for c in claims]
    items = {d.id: d for d in (load_dataset(dataset_path) if dataset_path else load_dataset())}
    by_item: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for c in claims:
        by_item[c["item_id"]].append(c)
    pos = [c["trust_score"] for c in claims if labels.get(c["content_key"]) == "faithful"]
    neg = [c["trust_score"] for c in claims if labels.get(c["content_key"]) == "unfaithful"]

    def cites_gold(c: dict[str, Any], i: str) -> bool:
        gold_secs = {section_of_label(g) for g in items[i].gold_sections}
        return any(section_of_label(split_node_id(e["node_id"])[1]) in gold_secs for e in c["citations"])

    def summary(ids: list[str]) -> dict[str, Any]:
        answerable = [i for i in ids if items[i].category in ANSWERABLE and items[i].gold_sections]
        top = [max(cs, key=lambda c: c["trust_score"]) for cs in
               ([c for c in by_item.get(i, []) if labels.get(c["content_key"]) in ("faithful", "unfaithful")] for i in ids)
               if cs]
        top_ok = [c for c in top if labels[c["content_key"]] == "faithful"]
        hit = 0
        releasing = unsafe = unlabelled = 0
        for i in ids:
            released = [c for c in by_item.get(i, []) if c.get("accepted")]
            if released:
                releasing += 1
                if any(labels.get(c["content_key"]) == "unfaithful" for c in released):
                    unsafe += 1
                unlabelled += sum(c["content_key"] not in labels for c in released)
            if i in answerable:
                hit += any(labels.get(c["content_key"]) == "faithful" and cites_gold(c, i) for c in released)
        return {
            "questions": len(ids), "answerable": len(answerable),
            "faithful_gold_release": round(hit / len(answerable), 3) if answerable else None,
            "release_rate": round(releasing / len(ids), 3) if ids else None,
            "selective_risk": round(unsafe / releasing, 3) if releasing else None,
            "releasing": releasing, "unsafe_releasing": unsafe, "unlabelled_released": unlabelled,
            "top_claim_faithful": round(len(top_ok) / len(top), 3) if top else None,
            "top_claim_faithful_gold": round(sum(cites_gold(c, c["item_id"]) for c in top_ok) / len(top), 3) if top else None,
        }

    ids = sorted({c["item_id"] for c in claims} | set(by_item))
    out = {"claims": len(claims), "labelled": sum(c["content_key"] in labels for c in claims),
           "faithful": len(pos), "unfaithful": len(neg), "trust_auc": round(_auc(pos, neg), 4),
           "overall": summary(ids)}
    cats = sorted({items[i].category for i in ids})
    out["by_category"] = {cat: summary([i for i in ids if items[i].category == cat]) for cat in cats}
    return out


def main(argv: list[str] | None = None) -> int:
    """CLI: ``CLAIMS LABELS [TAU]``; prints JSON."""
    args = argv if argv is not None else sys.argv[1:]
    claims = load_claims(Path(args[0]))
    labels = load_labels_by_key(Path(args[1]))
    tau = float(args[2]) if len(args) > 2 else None
    print(json.dumps(measure(claims, labels, tau=tau), ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
