"""CLI sub-commands of the evaluation phase, registered by :func:`labourcrew.cli._load_extensions`.

* ``eval [--dataset FILE] [--config NAME ...] [--split all|calibration|report] [--backend offline|openai]
  [--gate-mode calibrated|categorical] [--workers N] [--limit N] [--no-resume] [--json]``
  -- run configurations, write ``data/eval/results/<config>[.<split>].json``, print the table;
* ``eval --suite paper [--group G ...]`` -- every baseline and ablation, one comparison table
  (``data/eval/results/paper_suite[.<split>].json``);
* ``eval --make-splits [--seed N] [--calibration-fraction F] [--force]`` -- write
  ``data/eval/splits.json``;
* ``eval --list-configs``; ``eval --config full --split calibration --export-claims FILE.jsonl``
  -- candidate claims for calibration labelling;
* ``calibrate [--claims FILE] [--labels FILE] [--method ltt|crc] [--alpha A] [--delta D] [--dry-run]``
  -- recompute the Trust Gate record from exported claims and the label store (keeps the old
  record); ``calibrate import-labels FILE --annotator NAME``, ``calibrate agreement``,
  ``calibrate validate`` -- label import by legacy or content key, the agreement report, the
  split validation;
* ``bench [--json] [--llm-limit N]`` -- the whole benchmark (:mod:`labourcrew.eval.bench`);
  ``bench retrieval`` stays the retrieval benchmark of :mod:`labourcrew.cli.retrieval`,
  ``bench board`` runs the board part only, ``bench llm [--llm-limit N]`` only the configured
  endpoint against the offline default on N reporting-split questions (default 3; an endpoint
  is ``LABOURCREW_LLM__BASE_URL`` + ``LABOURCREW_LLM__MODEL``; without one ``bench`` reports the
  part as skipped and ``bench llm`` exits 2).

Bad input raises :class:`~labourcrew.errors.InputError` (exit code 2).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from labourcrew.errors import InputError

__all__ = ["register", "cmd_eval", "cmd_bench", "cmd_calibrate"]

log = logging.getLogger(__name__)


def _quiet() -> None:
    # Milvus Lite's in-process gRPC server logs a harmless traceback per collection.
    logging.getLogger("grpc._server").setLevel(logging.CRITICAL)


def _progress(a: argparse.Namespace):
    return None if a.json else (lambda m: print(m, file=sys.stderr, flush=True))


def _opts(a: argparse.Namespace):
    from labourcrew.eval.runner import EvalOptions

    if a.workers < 1:
        raise InputError(f"--workers must be >= 1, got {a.workers}")
    if a.fault_rate is not None and not 0.0 <= a.fault_rate <= 1.0:
        raise InputError(f"--fault-rate must be in [0, 1], got {a.fault_rate}")
    return EvalOptions(
        preset=a.preset,
        backend=a.backend,
        gate_mode=a.gate_mode,
        fault_rate=a.fault_rate,
        workers=a.workers,
        resume=not a.no_resume,
        labels_path=Path(a.labels) if a.labels else None,
    )


def _make_splits(a: argparse.Namespace) -> int:
    from labourcrew.eval.datasets import load_dataset
    from labourcrew.eval.splits import SPLITS_PATH, make_splits, write_splits

    if SPLITS_PATH.exists() and not a.force:
        raise InputError(f"{SPLITS_PATH} exists; the split is fixed once made (use --force to rewrite it)")
    splits = make_splits(
        load_dataset(a.dataset), seed=a.seed, calibration_fraction=a.calibration_fraction, dataset=a.dataset
    )
    path = write_splits(splits)
    out = {
        "path": str(path),
        "calibration": len(splits.calibration),
        "report": len(splits.report),
        "counts": splits.counts,
    }
    print(json.dumps(out, ensure_ascii=False) if a.json else json.dumps(out, ensure_ascii=False, indent=1))
    return 0


def cmd_eval(a: argparse.Namespace) -> int:
    """``eval``: run configurations or the paper suite, write results, print the table."""
    from labourcrew.eval.ablations import CONFIGS, SUITE, get_config, suite_configs

    if a.make_splits:
        return _make_splits(a)
    if a.list_configs:
        rows = [
            {"name": c.name, "kind": c.kind, "group": c.group, "description": c.description} for c in CONFIGS.values()
        ]
        if a.json:
            print(json.dumps({"configs": rows, "suite": SUITE}, ensure_ascii=False))
        else:
            for r in rows:
                print(f"{r['name']:<28}{r['group']:<15}{r['description']}")
        return 0
    if a.suite and a.config:
        raise InputError("give either --suite or --config, not both")
    if a.suite and a.suite != "paper":
        raise InputError(f"unknown suite {a.suite!r}; known: paper")
    if a.group and not a.suite:
        raise InputError("--group selects groups of --suite paper")
    if a.export_claims and (a.suite or len(a.config or []) > 1):
        raise InputError("--export-claims needs exactly one board configuration (e.g. --config full)")
    from labourcrew.fileio import check_output_path

    check_output_path(a.out)  # before the run, so results are never lost to a bad path
    _quiet()
    from labourcrew.eval.runner import (
        EvalResources,
        default_items,
        export_claims,
        format_table,
        results_path,
        results_payload,
        run_configs,
        suite_groups,
        write_results,
    )
    from labourcrew.settings import load_settings

    opts = _opts(a)
    items = default_items(a.dataset, a.split, a.limit)
    configs = suite_configs(a.group) if a.suite else [get_config(n) for n in (a.config or ["full"])]
    base = load_settings(a.preset, **({"board": {"backend": a.backend}} if a.backend else {}))
    res = EvalResources(base)
    try:
        runs = run_configs(configs, items, opts=opts, res=res, progress=_progress(a))
        groups = suite_groups(a.group) if a.suite else None
        payload = results_payload(
            runs, dataset=a.dataset, split=a.split, suite="paper" if a.suite else None, groups=groups
        )
        if a.ragas:
            from labourcrew.eval.ragas_extra import ragas_metrics

            for cr in runs:
                payload["configs"][cr.config.name]["ragas"] = ragas_metrics(cr.records, items)
        name = "paper_suite" if a.suite else (configs[0].name if len(configs) == 1 else "configs")
        if not a.no_write:
            path = write_results(payload, Path(a.out) if a.out else results_path(name, a.split))
            payload["results_file"] = str(path)
        if a.export_claims:
            n = export_claims(runs[0], items, Path(a.export_claims), res.graph)
            payload["exported_claims"] = {"file": a.export_claims, "claims": n}
    finally:
        res.close()
    if a.json:
        print(json.dumps(payload, ensure_ascii=False))
    else:
        print(format_table(payload))
        for key in ("results_file", "exported_claims"):
            if key in payload:
                print(f"{key}: {payload[key]}")
    return 0


def cmd_bench(a: argparse.Namespace) -> int:
    """``bench``: the whole benchmark (``bench board``: without the retrieval part; ``bench llm``:
    only the endpoint against the offline default).
    """
    from labourcrew.eval.bench import format_bench, format_endpoint, run_bench, run_endpoint_bench
    from labourcrew.settings import load_settings

    _quiet()
    if (a.board_items is not None and a.board_items < 1) or a.throughput_items < 1:
        raise InputError("--board-items and --throughput-items must be >= 1")
    limit = getattr(a, "limit", None)
    if limit is not None and limit < 1:
        raise InputError(f"--limit must be >= 1, got {limit}")
    if a.llm_limit < 1:
        raise InputError(f"--llm-limit must be >= 1, got {a.llm_limit}")
    overrides = {}
    if getattr(a, "encoder", None):
        overrides["index__encoder"] = a.encoder
    if getattr(a, "uri", None):
        overrides["index__uri"] = a.uri
    dataset = Path(a.dataset[0]) if getattr(a, "dataset", None) else None
    progress = None if a.json else (lambda m: print(m, file=sys.stderr, flush=True))
    if getattr(a, "bench_part", "all") == "llm":
        part = run_endpoint_bench(settings=load_settings(**overrides), llm_limit=a.llm_limit, dataset=dataset,
                                  progress=progress)
        print(json.dumps(part, ensure_ascii=False, default=str) if a.json else format_endpoint(part))
        return 0
    result = run_bench(
        settings=load_settings(**overrides),
        retrieval=getattr(a, "bench_part", "all") != "board",
        cold=not getattr(a, "no_cold", False),
        board_items=a.board_items if a.board_items is not None else limit,
        throughput_items=a.throughput_items,
        llm_items=limit,
        llm_limit=a.llm_limit,
        dataset=dataset,
        limit=limit,
        progress=progress,
    )
    print(json.dumps(result, ensure_ascii=False, default=str) if a.json else format_bench(result))
    return 0


def _eval_parser(sub: argparse._SubParsersAction) -> None:
    from labourcrew.eval.datasets import DEFAULT_DATASET
    from labourcrew.eval.splits import (
        DEFAULT_CALIBRATION_FRACTION,
        DEFAULT_SEED,
        SPLIT_NAMES,
    )

    e = sub.add_parser("eval", help="evaluate the board, baselines and ablations on the dev set")
    e.add_argument("--dataset", default=str(DEFAULT_DATASET), help="dev JSONL (default data/eval/dev_v1.jsonl)")
    e.add_argument("--config", action="append", help="configuration(s) to run (default: full); see --list-configs")
    e.add_argument("--suite", help="'paper': every baseline and ablation, one comparison table")
    e.add_argument("--group", action="append", help="suite group(s) only (baselines, retrieval, chunking, ...)")
    e.add_argument("--split", default="all", choices=list(SPLIT_NAMES), help="items: all, calibration or report")
    e.add_argument("--backend", choices=["offline", "openai"], help="model backend of the language roles")
    e.add_argument("--preset", help="settings preset (default LABOURCREW_PRESET or offline)")
    e.add_argument(
        "--gate-mode",
        choices=["calibrated", "categorical"],
        help="gate mode of configurations that do not set one (default: the settings')",
    )
    e.add_argument(
        "--fault-rate", type=float, help="fault rate of the orchestration group (default LABOURCREW_FAULT_RATE or 0.02)"
    )
    e.add_argument("--workers", type=int, default=2, help="items answered in parallel (threads; default 2)")
    e.add_argument("--limit", type=int, help="only the first N items of the split")
    e.add_argument("--no-resume", action="store_true", help="rerun items even when a finished run exists")
    e.add_argument(
        "--labels", help="annotation store for the false-accept rate (default next to the calibration record)"
    )
    e.add_argument("--out", help="results file (default data/eval/results/<config|paper_suite>[.<split>].json)")
    e.add_argument("--no-write", action="store_true", help="do not write a results file")
    e.add_argument("--ragas", action="store_true", help="also compute RAGAS metrics (needs a judge endpoint and ragas)")
    e.add_argument("--export-claims", metavar="FILE.jsonl", help="write every candidate claim for labelling")
    e.add_argument("--make-splits", action="store_true", help="write data/eval/splits.json (calibration/report split)")
    e.add_argument("--seed", type=int, default=DEFAULT_SEED, help="split seed (with --make-splits)")
    e.add_argument(
        "--calibration-fraction",
        type=float,
        default=DEFAULT_CALIBRATION_FRACTION,
        help="share of each category for calibration (with --make-splits)",
    )
    e.add_argument("--force", action="store_true", help="rewrite an existing split file (with --make-splits)")
    e.add_argument("--list-configs", action="store_true", help="list the configurations and the suite")
    e.add_argument("--json", action="store_true")
    e.set_defaults(func=cmd_eval)


def cmd_calibrate(a: argparse.Namespace) -> int:
    """``calibrate``: the record from claims + labels; or import labels, agreement, validation."""
    from labourcrew.gate.recalibration import fit_from_files, load_calibration_set, save_new_record
    from labourcrew.gate.system import system_of
    from labourcrew.settings import load_settings

    settings = load_settings(a.preset)
    cal_dir = settings.gate.calibration_path.parent
    claims = Path(a.claims) if a.claims else cal_dir / "calibration_set.jsonl"
    labels = Path(a.labels) if a.labels else cal_dir / "labels.jsonl"
    action = getattr(a, "action", None) or "fit"
    out: dict = {}
    if action == "import-labels":
        from labourcrew.gate.labels import LabelStore
        from labourcrew.gate.recalibration import import_labels

        if labels.suffix != ".jsonl":
            raise InputError("--labels must be the labels.jsonl export to import into")
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            store = LabelStore(Path(tmp) / "l.sqlite")
            if labels.is_file():
                store.import_jsonl(labels)
            n, missing = import_labels(store, Path(a.file), load_calibration_set(claims), annotator=a.annotator)
            store.export_jsonl(labels)
            out = {"imported": n, "unmatched_keys": missing, "labels": str(labels), "total": len(store),
                   "labels_sha256": store.labels_sha256()}
    elif action == "agreement":
        from labourcrew.fileio import write_json_atomic
        from labourcrew.gate.agreement import agreement_report
        from labourcrew.gate.recalibration import load_label_file

        labs, sha = load_label_file(labels)
        out = agreement_report(labs, a.first, a.second, n_boot=a.n_boot, seed=a.seed)
        out["labels_sha256"] = sha
        if not a.dry_run:
            write_json_atomic(Path(a.out) if a.out else cal_dir / "agreement.json", out)
    elif action == "validate":
        from labourcrew.gate.crc import VALIDATION_FILE
        from labourcrew.gate.validation import run_validation

        out = run_validation(claims, labels, Path(a.out) if a.out else cal_dir / VALIDATION_FILE,
                             splits=a.splits, seed=a.seed, alpha=a.alpha or settings.gate.alpha,
                             delta=a.delta or settings.gate.delta)
    else:
        proposal = fit_from_files(claims, labels, method=a.method or settings.gate.method,
                                  alpha=a.alpha or settings.gate.alpha, delta=a.delta or settings.gate.delta,
                                  system=system_of(settings))
        out = {"record": proposal.record.model_dump(mode="json"), "questions": len(proposal.data.questions),
               "claims": proposal.data.n_claims}
        if proposal.record.fail_closed and proposal.record.method == "ltt":
            import dataclasses

            from labourcrew.gate.ltt import evidence_need_text, evidence_needed

            rec = proposal.record
            need = evidence_needed(proposal.data.questions, rec.alpha, rec.delta or settings.gate.delta)
            out["evidence_needed"] = {**(dataclasses.asdict(need) if need else {}),
                                      "n_questions_needed": need.n_questions_needed if need else None,
                                      "text": evidence_need_text(need, rec.alpha)[1]}
        if not a.dry_run:
            target = Path(a.out) if a.out else settings.gate.calibration_path
            stamped, archived = save_new_record(proposal.record, target)
            out.update({"written": str(target), "stamped": str(stamped), "archived": str(archived) if archived else None})
        if not a.json:  # a researcher reads the outcome first; the whole record follows
            print(_fit_summary(out, proposal.record, dry_run=a.dry_run))
    print(json.dumps(out, ensure_ascii=False) if a.json else json.dumps(out, ensure_ascii=False, indent=1))
    return 0


def _fit_summary(out: dict, record, *, dry_run: bool) -> str:
    """The lines a person reads of ``calibrate fit``: τ̂ and why, whether more labels would help, what was written."""
    lines = [f"τ̂ = {'∞ (the Trust Gate fails closed)' if record.fail_closed else f'{record.tau:.3f}'} · method "
             f"{record.method} · α {record.alpha:g} · δ {record.delta if record.delta is not None else '—'} · "
             f"{out['questions']} questions, {out['claims']} labelled claims"]
    if record.fail_closed:
        lines.append(f"why: {record.note or 'no threshold qualifies'}")
        if "evidence_needed" in out:
            lines.append(f"would more labels open it? {out['evidence_needed']['text']}")
    else:
        def num(x: float | None) -> str:
            return "—" if x is None else f"{x:.3f}"

        lines.append(f"release rate {num(record.release_rate)}, selective risk {num(record.selective_risk)}, "
                     f"p = {num(record.p_value)}")
    lines.append("dry run: nothing written" if dry_run else f"written: {out.get('written')}")
    return "\n".join(lines) + "\n\nthe record:"


def _calibrate_parser(sub: argparse._SubParsersAction) -> None:
    c = sub.add_parser("calibrate", help="recompute the Trust Gate record from exported claims and labels")
    c.add_argument("action", nargs="?", choices=["fit", "import-labels", "agreement", "validate"], default="fit")
    c.add_argument("file", nargs="?", help="labels JSONL to import (import-labels)")
    c.add_argument("--claims", help="exported claims / calibration_set.jsonl (default next to the record)")
    c.add_argument("--labels", help="label store export .jsonl or .sqlite (default data/calibration/labels.jsonl)")
    c.add_argument("--method", choices=["ltt", "crc"], help="default settings.gate.method")
    c.add_argument("--alpha", type=float, help="default settings.gate.alpha")
    c.add_argument("--delta", type=float, help="default settings.gate.delta")
    c.add_argument("--annotator", help="annotator name of imported labels")
    c.add_argument("--first", default="dev-team-ai", help="agreement: first annotator")
    c.add_argument("--second", default="pass2-ai-annotator", help="agreement: second annotator")
    c.add_argument("--n-boot", type=int, default=2000, help="agreement: bootstrap resamples")
    c.add_argument("--splits", type=int, default=1000, help="validate: random splits")
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--preset", help="settings preset")
    c.add_argument("--out", help="where to write (default: the settings' record / agreement.json / validation.json)")
    c.add_argument("--dry-run", action="store_true", help="compute and print, write nothing")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=cmd_calibrate)


def _bench_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--no-cold", action="store_true", help="skip the cold index build (minutes; whole bench only)")
    p.add_argument("--board-items", type=int, help="report-split items for board latency (default: all of them)")
    p.add_argument(
        "--throughput-items", type=int, default=24, help="items for the 1 vs 2 worker throughput (default 24)"
    )
    p.add_argument(
        "--llm-limit", type=int, default=3, metavar="N",
        help="report-split questions for the configured endpoint vs the offline default (default 3; "
        "needs LABOURCREW_LLM__BASE_URL and LABOURCREW_LLM__MODEL, else skipped)",
    )


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``eval`` and make ``bench`` run the whole benchmark (``bench board`` added).

    ``bench`` itself is created by the retrieval phase (with ``bench retrieval``); when it exists,
    its default action becomes the whole benchmark and its options are extended, else it is
    created here.
    """
    _eval_parser(sub)
    _register_train(sub)
    _calibrate_parser(sub)
    bench = sub.choices.get("bench")
    if bench is None:
        bench = sub.add_parser("bench", help="benchmarks (default: all of them)")
        bench.add_argument("--json", action="store_true")
        bench.add_argument("--dataset", action="append")
        bench.add_argument("--limit", type=int)
        bsub = bench.add_subparsers(dest="sub", required=False, parser_class=sub._parser_class)
    else:
        bsub = next(x for x in bench._actions if isinstance(x, argparse._SubParsersAction))
    _bench_options(bench)
    bench.set_defaults(func=cmd_bench, bench_part="all")
    for part, text in (("board", "board latency, LLM calls, memory and eval throughput"),
                       ("llm", "the configured OpenAI-compatible endpoint vs the offline default")):
        p = bsub.add_parser(part, help=text)
        p.add_argument("--json", action="store_true", help="print the result as JSON")
        p.add_argument("--dataset", action="append", help="dev JSONL (default data/eval/dev_v1.jsonl)")
        p.add_argument("--limit", type=int, help="at most N reporting-split questions in the board and LLM-call parts")
        _bench_options(p)
        p.set_defaults(func=cmd_bench, bench_part=part)


def cmd_train(a: argparse.Namespace) -> int:
    """``train relevance`` / ``train adapter``: rebuild a learned artefact from data/train (deterministic)."""
    from labourcrew.graph.statute_graph import load_graph
    from labourcrew.settings import load_settings

    settings = load_settings()
    graph = load_graph()
    if a.sub == "adapter":
        from labourcrew.eval.train_adapter import train_adapter

        record = train_adapter(settings, graph)
        print(json.dumps(record, ensure_ascii=False, indent=1) if a.json else
              f"query adapter: CV hit@10 {record['cv_hit_at_10_raw']} -> {record['cv_hit_at_10_adapted']} "
              f"on {record['items']} questions -> {settings.retrieval.query_adapter_path}")
        return 0
    from labourcrew.eval.train_relevance import train
    from labourcrew.wiring import make_retrieval, make_scorer

    retriever = make_retrieval(settings, graph, rerank=False)
    try:
        adapters = None
        if retriever.adapter is not None:
            from labourcrew.eval.train_adapter import cross_fitted_adapters

            adapters = cross_fitted_adapters(settings, graph, retriever.adapter)
        record = train(settings, retriever, lambda model: make_scorer(settings, graph, retriever, model),
                       adapters=adapters)
    finally:
        retriever.close()
    print(json.dumps(record, ensure_ascii=False, indent=1) if a.json else
          f"relevance model: CV ROC AUC {record['cv_roc_auc']}, nDCG@10 {record['cv_ndcg_at_10']}, "
          f"{record['pairs']} pairs from {record['items']} questions -> {settings.relevance.model_path}")
    return 0


def _register_train(sub: argparse._SubParsersAction) -> None:
    tr = sub.add_parser("train", help="train a learned model from data/train")
    tsub = tr.add_subparsers(dest="sub", required=True, parser_class=sub._parser_class)
    rel = tsub.add_parser("relevance", help="the relevance model (rerank, span choice, trust score)")
    rel.add_argument("--json", action="store_true")
    rel.set_defaults(func=cmd_train)
    ad = tsub.add_parser("adapter", help="the query adapter for dense search (train it before the relevance model)",
                         description="Fit the 384 x 384 query adapter on data/train (5-fold CV record included) and write "
                                     "data/models/query_adapter.json; then retrain the relevance model.")
    ad.add_argument("--json", action="store_true", help="print the training record as JSON")
    ad.set_defaults(func=cmd_train)
