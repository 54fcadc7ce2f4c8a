"""The harness: baselines and ablations through the same runner, resume, post-hoc gate, halting
without supervision, the calibration record, results files the dashboard can read."""

from __future__ import annotations

import json

import pytest

from labourcrew.eval.ablations import get_config, suite_configs
from labourcrew.eval.adapter import UnitResolver, from_ask_result
from labourcrew.eval.metrics import identity_errors
from labourcrew.eval.runner import (
    EvalOptions,
    config_settings,
    export_claims,
    results_payload,
    run_config,
    run_configs,
    write_results,
)
from labourcrew.gate.recalibration import regate_with_checks as regate
from labourcrew.gate.system import system_of
from labourcrew.ledger.gate import CalibrationRecord
from labourcrew.retrieval.thesaurus import load_thesaurus
from labourcrew.viz.evaluation import parse_results

WIRED = [
    "full",
    "single_pass_rag",
    "unconstrained_debate",
    "ret_dense",
    "ret_dense_hops_no_planner",
    "hop_0",
    "gate_no_checker",
    "chunk_sections",
    "chunk_fixed512",
    "orch_no_supervision",
]


def test_baselines_and_ablations_share_the_runner(three_items, resources, opts, tmp_path):
    runs = run_configs([get_config(n) for n in WIRED], three_items, opts=opts, res=resources)
    assert [cr.config.name for cr in runs] == WIRED
    for cr in runs:
        assert [r.item_id for r in cr.runs] == [i.id for i in three_items]
        assert all(r.config == cr.config.name for r in cr.runs)
        assert cr.ran + cr.reused == 3
        folder = opts.runs_dir / "eval" / cr.config.name
        if cr.ran:
            assert len(list(folder.glob("*.json"))) == cr.ran  # every run saved in the run folder
    by = {cr.config.name: cr for cr in runs}
    assert all(not r.has_gate and r.status is None for r in by["single_pass_rag"].runs)
    assert all(r.has_gate and r.status in ("TGLO", "DEGRADED", "UNDECIDED") for r in by["full"].runs)
    # single-pass RAG cannot abstain: it answers the unanswerable question
    assert by["single_pass_rag"].runs[2].released()
    assert by["unconstrained_debate"].runs[0].claims
    # the no-planner ablation hops; hop_0 does not
    assert all(p.hop_depth == 0 for r in by["hop_0"].runs for p in r.pack)
    # chunk packs hold whole sections / windows
    assert all(p.container for r in by["chunk_sections"].runs for p in r.pack)
    assert any(p.node_id.startswith("2025:w") for r in by["chunk_fixed512"].runs for p in r.pack)
    # one results file for all of them, readable by the dashboard, identity holding per config
    payload = results_payload(
        runs, dataset="data/eval/dev_v1.jsonl", split="all", suite="paper", groups={"wired": WIRED}
    )
    assert all(block["identity_ok"] for block in payload["configs"].values())
    for block in payload["configs"].values():
        assert identity_errors(block) == {}
    path = write_results(payload, tmp_path / "suite.json")
    parsed = parse_results(json.loads(path.read_text(encoding="utf-8")))
    assert set(parsed.configs) == set(WIRED)
    assert "gold_section_recall" in parsed.metrics
    assert {row["config"] for row in payload["table"]} == set(WIRED)


def test_resume_and_shared_runs(three_items, resources, opts):
    first = run_config(get_config("gate_categorical"), three_items, opts=opts, res=resources)
    assert (first.ran, first.reused) == (3, 0)
    again = run_config(get_config("gate_categorical"), three_items, opts=opts, res=resources)
    assert (again.ran, again.reused) == (0, 3)
    assert [r.run_id for r in again.runs] == [r.run_id for r in first.runs]
    # a post-hoc variant (gate check switched off) reuses the same board runs
    neither = run_config(get_config("gate_neither"), three_items, opts=opts, res=resources)
    assert (neither.ran, neither.reused) == (0, 3)
    assert all(c.accepted for r in neither.runs for c in r.claims) or not any(r.claims for r in neither.runs)
    # an edited item is rerun, the others are not
    edited = [three_items[0].model_copy(update={"gold_answer_en": "edited"}), *three_items[1:]]
    third = run_config(get_config("gate_categorical"), edited, opts=opts, res=resources)
    assert (third.ran, third.reused) == (1, 2)
    fresh = run_config(
        get_config("gate_categorical"),
        three_items,
        opts=EvalOptions(**{**opts.__dict__, "resume": False}),
        res=resources,
    )
    assert fresh.ran == 3


def test_a_code_change_reruns_what_a_settings_change_would_not(three_items, resources, opts, monkeypatch):
    """A new skeptic rule changed 44 calibration verdicts without touching a setting; a resumed eval reused the
    older code's runs and reported them as this system's. The run key holds the package's code fingerprint."""
    from labourcrew.eval import runner

    first = run_config(get_config("gate_categorical"), three_items, opts=opts, res=resources)
    assert first.ran + first.reused == 3
    assert len(runner.code_fingerprint()) == 64 and runner.code_fingerprint() == runner.code_fingerprint()
    monkeypatch.setattr(runner, "code_fingerprint", lambda: "0" * 64)  # as if a .py file had changed
    again = run_config(get_config("gate_categorical"), three_items, opts=opts, res=resources)
    assert (again.ran, again.reused) == (3, 0)


def test_regate_with_both_checks_reproduces_the_categorical_gate(three_items, resources, opts, graph):
    cr = run_config(get_config("gate_categorical"), three_items, opts=opts, res=resources)
    for record in cr.records:
        accepted, status, share = regate(record, graph, checker=True, auditor=True, thesaurus=load_thesaurus())
        assert accepted == {c.claim_id: c.accepted for c in record.claims}
        assert status == record.status.value
        assert share == pytest.approx(record.coverage.share)


def test_no_supervision_halts_where_the_supervisor_degrades(three_items, resources, tmp_path):
    opts = EvalOptions(
        gate_mode="categorical",
        runs_dir=tmp_path / "runs",
        fault_rate=0.35,
        workers=2,
        labels_path=tmp_path / "none.sqlite",
    )
    halted = run_config(get_config("orch_no_supervision"), three_items, opts=opts, res=resources)
    supervised = run_config(get_config("orch_no_retry"), three_items, opts=opts, res=resources)
    assert supervised.ran == 0  # same board runs, halting is post hoc
    assert halted.settings.board.fault_rate == 0.35 and halted.settings.board.role_retries == 0
    assert any(r.failed_roles for r in halted.runs), "fault injection at 0.35 should fail some role"
    for h, s in zip(halted.runs, supervised.runs, strict=True):
        assert h.halted == bool(h.failed_roles)
        assert not h.released() if h.halted else h.released() == s.released()
        assert s.halted == ("trust_gate" in s.failed_roles)


def test_calibration_record_loading(three_items, resources, tmp_path, monkeypatch):
    cal_path = tmp_path / "cal" / "trust_gate.json"
    opts = EvalOptions(
        gate_mode="calibrated", runs_dir=tmp_path / "runs", workers=1, labels_path=tmp_path / "none.sqlite"
    )
    monkeypatch.setenv("LABOURCREW_GATE__CALIBRATION_PATH", str(cal_path))
    closed = run_config(get_config("full"), three_items, opts=opts, res=resources)
    assert closed.calibration is not None and closed.calibration.fail_closed
    assert all(r.status == "UNDECIDED" and not r.released() for r in closed.runs)
    CalibrationRecord(
        tau=0.5,
        alpha=0.10,
        n=64,
        empirical_risk=0.05,
        bound=0.08,
        labels_sha256="abc",
        created="2026-01-01T00:00:00+00:00",
        grid_size=100,
        system=system_of(config_settings(get_config("full"), opts)),  # fitted for the system that runs
    ).save(cal_path)
    opened = run_config(get_config("full"), three_items, opts=opts, res=resources)
    assert opened.ran == 3  # a new calibration record invalidates the earlier runs
    assert opened.calibration.tau == 0.5 and opened.calibration.labels_sha256 == "abc"
    assert all(c.trust_score >= 0.5 for r in opened.records for c in r.claims if c.accepted)
    assert any(r.released() for r in opened.runs)
    payload = results_payload([opened], dataset="data/eval/dev_v1.jsonl", split="all")
    assert payload["tau"] == 0.5 and payload["configs"]["full"]["calibration_n"] == 64
    closed_payload = results_payload([closed], dataset="data/eval/dev_v1.jsonl", split="all")
    assert closed_payload["tau"] == "inf"
    assert closed_payload["configs"]["full"]["overall"]["gate_verified_citation_precision"] is None  # NaN -> null


def test_adapter_rechecks_citations_against_the_statute(three_items, resources, opts, graph):
    cr = run_config(get_config("gate_categorical"), three_items[:1], opts=opts, res=resources)
    record = cr.records[0]
    assert record.claims and all(c.statute_ok for r in cr.runs for cl in r.claims for c in cl.citations)
    first = record.claims[0]
    bad_ev = first.evidence[0].model_copy(update={"span": first.evidence[0].span + " অতিরিক্ত শব্দ"})
    tampered = record.model_copy(
        update={"claims": [first.model_copy(update={"evidence": [bad_ev]}), *record.claims[1:]]}
    )
    run = from_ask_result(tampered, three_items[0], "t", UnitResolver(graph))
    assert run.claims[0].citations[0].statute_ok is False
    assert run.claims[0].citations[0].checker_ok is first.evidence[0].verified  # as the run recorded it


def test_unconstrained_debate_claims_off_the_ledger_are_unsupported(three_items, graph):
    from labourcrew.eval.adapter import from_baseline
    from labourcrew.eval.baselines import BaselineResult
    from labourcrew.eval.metrics.unsupported_claim_rate import UnsupportedClaimRate
    from labourcrew.ledger.records import (
        Claim,
        EvidenceItem,
        EvidencePack,
        EvidenceRef,
        Side,
    )

    on, off = graph.units["2025:33(1)"], graph.units["2025:115"]
    pack = EvidencePack(
        items=[
            EvidenceItem(
                node_id=on.node_id,
                section=on.section,
                level=on.level,
                text=on.text,
                channels=["dense"],
                score=1.0,
                provenance=1.0,
            )
        ]
    )
    claims = [
        Claim(
            claim_id="w1",
            side=Side.WORKER,
            text=on.text,
            evidence=[EvidenceRef(node_id=on.node_id, span=on.text)],
            confidence=1,
        ),
        Claim(
            claim_id="e1",
            side=Side.EMPLOYER,
            text=off.text,
            evidence=[EvidenceRef(node_id=off.node_id, span=off.text)],
            confidence=1,
        ),
    ]
    result = BaselineResult(
        run_id="r",
        created="2026-01-01",
        baseline="unconstrained_debate",
        question="q",
        statute_version="2025",
        backend="offline",
        question_type="procedural",
        pack=pack,
        claims=claims,
        latency_s=0.1,
        retrieval_rounds=1,
        deliberation_rounds=1,
        llm_calls=0,
        sequential_llm_calls=0,
        coverage_share=1.0,
    )
    run = from_baseline(result, three_items[0], "unconstrained_debate", UnitResolver(graph))
    assert [c.citations[0].on_pack for c in run.claims] == [True, False]
    assert [c.citations[0].statute_ok for c in run.claims] == [True, True]  # verbatim, but never on the ledger
    assert UnsupportedClaimRate()([run]) == 0.5


def test_export_candidate_claims(three_items, resources, opts, tmp_path, graph):
    cr = run_config(get_config("gate_categorical"), three_items, opts=opts, res=resources)
    n = export_claims(cr, three_items, tmp_path / "claims.jsonl", graph)
    rows = [json.loads(x) for x in (tmp_path / "claims.jsonl").read_text(encoding="utf-8").splitlines()]
    assert n == len(rows) == sum(len(r.claims) for r in cr.records)
    assert rows and all(r["citations"] and r["citations"][0]["unit_text"] for r in rows)
    assert {r["run_id"] for r in rows} <= {rec.run_id for rec in cr.records}


def test_suite_covers_every_group():
    names = [c.name for c in suite_configs()]
    assert len(names) == len(set(names))
    for must in (
        "single_pass_rag",
        "unconstrained_debate",
        "ret_dense",
        "ret_dense_lexical",
        "ret_dense_hops_no_planner",
        "chunk_fixed512",
        "chunk_chapters",
        "chunk_sections",
        "hop_0",
        "hop_3",
        "gate_no_checker",
        "gate_no_auditor",
        "gate_neither",
        "gate_calibrated",
        "orch_no_supervision",
        "orch_full",
    ):
        assert must in names


def test_an_ablation_that_changes_retrieval_gets_no_calibration(three_items, resources, opts):
    """A dense-only run is another system (fewer rivals, higher relevance): the full system's τ must not release
    its claims. The settings fingerprint cannot see a configuration's channels, so the runner fails it closed."""
    from labourcrew.eval.runner import ABLATION_NOTE, changes_scores

    assert changes_scores(get_config("ret_dense")) and changes_scores(get_config("hop_0"))
    assert not changes_scores(get_config("full")) and not changes_scores(get_config("gate_categorical"))
    dense = run_config(get_config("ret_dense"), three_items, opts=opts, res=resources)
    assert dense.calibration is not None and dense.calibration.tau == float("inf")
    assert dense.calibration.note == ABLATION_NOTE and ABLATION_NOTE.index("অ্যাবলেশন") < ABLATION_NOTE.index("ablation")
