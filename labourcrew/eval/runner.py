"""The evaluation harness: every dev item through a configuration, saved, resumable, scored.

``python -m labourcrew eval --dataset data/eval/dev_v1.jsonl [--config NAME] [--split report]
[--backend offline|openai] --json`` (see :mod:`labourcrew.cli.eval`).

**Runs.** Each item is answered by the configuration's board (:func:`labourcrew.board.run.ask`)
or baseline, and the run is saved under ``<runs_dir>/eval/<config>/`` -- board runs in the board's
own format (:func:`~labourcrew.board.run.load_run` reopens them), baseline runs as
:class:`~labourcrew.eval.baselines.BaselineResult` JSON. Items run in parallel threads
(``workers``, default 2: the Milvus Lite file allows one process, threads share it).

**Resume.** ``<runs_dir>/eval/index.jsonl`` maps a run key to its file; the key hashes the item's
content, the configuration's run signature (:meth:`~labourcrew.eval.ablations.EvalConfig.signature`),
the settings hash, the calibration record in force (τ, labels hash, n), :data:`HARNESS_VERSION` and the
package's code (:func:`code_fingerprint`: a changed check, such as a new skeptic rule, changes verdicts without
changing any setting, and a resumed run of the older code would be reported as this system's; seen 2026-12-07).
A finished item is never rerun while its key matches; configurations that differ only post hoc
(gate checks off, halt on failure) share runs.

**Results.** :func:`summarise` rows per category, per tier and overall
(:mod:`labourcrew.eval.metrics`) go to ``data/eval/results/<config>[.<split>].json`` (committed;
the dashboard's Evaluation page reads ``data/eval/results/*.json``), the paper suite to
``data/eval/results/paper_suite[.<split>].json``. Shape: ``{"configs": {name: {"kind", "group",
"overall", "by_category", "by_tier", ...}}, <run information>}``; NaN (undefined) is written as
``null``.
"""

from __future__ import annotations

import functools
import json
import logging
import math
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from labourcrew.errors import DataError, InputError
from labourcrew.eval.ablations import (
    DEFAULT_FAULT_RATE,
    SUITE,
    ChunkRetrieval,
    EvalConfig,
    VariantRetrieval,
    config_hash,
    merged_overrides,
    suite_configs,
)
from labourcrew.eval.adapter import (
    LabelMap,
    UnitFacts,
    UnitResolver,
    from_ask_result,
    from_baseline,
)
from labourcrew.eval.datasets import DEFAULT_DATASET, DevItem, load_dataset
from labourcrew.eval.metrics import (
    METRICS,
    OVERALL,
    EvalRun,
    identity_errors,
    summarise,
)
from labourcrew.eval.splits import SplitName, dataset_sha256, select_split
from labourcrew.fileio import write_json_atomic, write_text_atomic
from labourcrew.gate.crc import fail_closed_record
from labourcrew.gate.recalibration import regate_with_checks
from labourcrew.gate.system import calibration_for
from labourcrew.graph.statute_graph import REPO_ROOT, StatuteGraph
from labourcrew.ledger.gate import CalibrationRecord
from labourcrew.retrieval.thesaurus import Thesaurus, load_thesaurus
from labourcrew.settings import Settings, environ, load_settings

__all__ = [
    "HARNESS_VERSION",
    "RESULTS_DIR",
    "EvalOptions",
    "EvalResources",
    "ConfigRun",
    "RunStore",
    "config_settings",
    "run_config",
    "run_configs",
    "results_payload",
    "write_results",
    "results_path",
    "format_table",
    "export_claims",
    "load_labels",
]

logger = logging.getLogger(__name__)

HARNESS_VERSION = "2"
"""Bump when what a run *is* changes (not when metrics change: metrics are recomputed from runs)."""
RESULTS_DIR = REPO_ROOT / "data" / "eval" / "results"
TABLE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("gold_section_recall", "GSR"),
    ("gold_section_hit", "GSH"),
    ("citation_based_precision", "CBP"),
    ("gate_verified_citation_precision", "GVCP"),
    ("unsupported_claim_rate", "unsup"),
    ("evidence_coverage", "cov"),
    ("path_completeness", "path"),
    ("tglo_rate", "TGLO"),
    ("degraded_rate", "DEGR"),
    ("undecided_rate", "UNDEC"),
    ("failed_run_rate", "fail"),
    ("abstention_correct", "abst"),
    ("claim_acceptance_rate", "acc"),
    ("contradiction_residual", "contr"),
    ("risk_direction_index", "RDI"),
    ("latency_s", "lat_s"),
)


@dataclass(frozen=True)
class EvalOptions:
    """Run-wide options (the CLI's flags).

    Attributes:
        preset: settings preset (None: ``LABOURCREW_PRESET`` or offline).
        backend: ``offline`` / ``openai`` (None: the preset's).
        gate_mode: gate mode for configurations that do not set one (None: the settings').
        fault_rate: fault rate of configurations with ``faults`` (None: ``LABOURCREW_FAULT_RATE``
            or :data:`DEFAULT_FAULT_RATE`).
        workers: parallel items (threads).
        resume: reuse finished runs.
        runs_dir: root of saved runs (None: ``settings.runs_dir``); runs go to ``<root>/eval``.
        labels_path: annotation store for the false-accept rate (None: next to the calibration
            record, when it exists).
    """

    preset: str | None = None
    backend: str | None = None
    gate_mode: str | None = None
    fault_rate: float | None = None
    workers: int = 2
    resume: bool = True
    runs_dir: Path | None = None
    labels_path: Path | None = None

    def suite_fault_rate(self) -> float:
        if self.fault_rate is not None:
            return self.fault_rate
        env = environ("LABOURCREW_FAULT_RATE")
        if env:
            try:
                rate = float(env)
            except ValueError as exc:
                raise InputError(f"LABOURCREW_FAULT_RATE must be a number, got {env!r}") from exc
            if rate > 0:
                return rate
        return DEFAULT_FAULT_RATE


def config_settings(config: EvalConfig, opts: EvalOptions) -> Settings:
    """Effective settings of a configuration: preset < run-wide options < the configuration's own.

    Raises:
        ConfigError: invalid settings (e.g. the openai backend without a model).
    """
    base: dict[str, Any] = {"board": {"fault_rate": opts.suite_fault_rate() if config.faults else 0.0}}
    if not config.reentry:  # the Supervisor never re-enters retrieval (gap check and requests alike)
        base["board"]["max_retrieval_rounds"] = 0
    if opts.backend:
        base["board"]["backend"] = opts.backend
    if opts.gate_mode:
        base["gate"] = {"mode": opts.gate_mode}
    if opts.runs_dir is not None:
        base["runs_dir"] = str(opts.runs_dir)
    return load_settings(opts.preset, **merged_overrides(base, config.overrides))


class EvalResources:
    """What every configuration of one process shares: the StatuteGraph, the retrieval port over
    the Milvus Lite index (opened once), the offline backend and the chunk indexes.

    Args:
        settings: settings used to open the index.
        graph: the StatuteGraph (default :func:`~labourcrew.graph.statute_graph.load_graph`).
        port: a retrieval port to use instead of the index (tests: lexical retrieval).
        chat_model_factory: ``role -> LangChain chat model`` for configurations on the ``openai``
            backend (tests: a scripted fake chat model); None: ``ChatOpenAI`` from the settings.
    """

    def __init__(self, settings: Settings, *, graph: StatuteGraph | None = None, port: Any = None,
                 chat_model_factory: Any = None):
        from labourcrew.graph.statute_graph import load_graph

        self.settings = settings
        self.graph = graph or load_graph()
        self._port = port
        self._own_port = port is None
        self.chat_model_factory = chat_model_factory
        self._offline: Any = None
        self._chunks: dict[str, ChunkRetrieval] = {}
        self._lock = threading.Lock()

    def port(self) -> Any:
        """The full retrieval port (pipeline over the index, opened on first use).

        Raises:
            IndexNotBuiltError: no index.
        """
        with self._lock:
            if self._port is None:
                from labourcrew.wiring import make_retrieval

                logging.getLogger("grpc._server").setLevel(logging.CRITICAL)  # Milvus Lite noise
                self._port = make_retrieval(self.settings, self.graph)
            return self._port

    def offline_backend(self) -> Any:
        with self._lock:
            if self._offline is None:
                from labourcrew.deliberation.extractive import OfflineBackend

                self._offline = OfflineBackend(self.graph, self.settings.offline)
            return self._offline

    def chunk_port(self, chunking: str, settings: Settings) -> ChunkRetrieval:
        with self._lock:
            if chunking not in self._chunks:
                encoder = None
                port = self._port
                if port is not None:
                    encoder = getattr(port, "encoder", None)
                root = settings.runs_dir / "eval" / "embed_cache"
                self._chunks[chunking] = ChunkRetrieval(
                    self.graph,
                    chunking,
                    settings,
                    encoder=encoder,  # type: ignore[arg-type]
                    cache_dir=root if encoder is not None else None,
                )
            return self._chunks[chunking]

    def close(self) -> None:
        if self._own_port and self._port is not None and hasattr(self._port, "close"):
            self._port.close()
            self._port = None


class RunStore:
    """The run index ``<root>/index.jsonl``: run key -> saved file (append-only, last line wins)."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.index = self.root / "index.jsonl"
        self._lock = threading.Lock()
        self._entries: dict[str, dict[str, str]] = {}
        if self.index.is_file():
            for line in self.index.read_text(encoding="utf-8").splitlines():
                try:
                    row = json.loads(line)
                    self._entries[row["key"]] = row
                except (ValueError, KeyError):
                    logger.warning("skipping a malformed line of %s", self.index)

    def get(self, key: str) -> dict[str, str] | None:
        """The entry of ``key`` when its file still exists."""
        row = self._entries.get(key)
        if row is None or not (self.root / row["file"]).is_file():
            return None
        return row

    def put(self, key: str, *, file: Path, fmt: str, config: str, item_id: str) -> None:
        row = {
            "key": key,
            "file": Path(file).relative_to(self.root).as_posix(),
            "format": fmt,
            "config": config,
            "item_id": item_id,
        }
        with self._lock:
            self._entries[key] = row
            with self.index.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(row, sort_keys=True) + "\n")


@dataclass
class ConfigRun:
    """One configuration's runs over the items."""

    config: EvalConfig
    settings: Settings
    calibration: CalibrationRecord | None
    runs: list[EvalRun]
    reused: int = 0
    ran: int = 0
    seconds: float = 0.0
    records: list[Any] = field(default_factory=list)


def _calibration_fingerprint(cal: CalibrationRecord | None) -> list[Any] | None:
    if cal is None:
        return None
    return [("inf" if math.isinf(cal.tau) else cal.tau), cal.labels_sha256, cal.n, cal.alpha]


ABLATION_NOTE = ("এই অ্যাবলেশনের জন্য কোনো ক্যালিব্রেশন নেই: রেকর্ডটি পূর্ণ সিস্টেমের, আর এখানে অনুসন্ধান বা লিংক-হপ আলাদা, "
                 "তাই স্কোরও আলাদা — no calibration for this ablation: the record is for the full system, and retrieval or "
                 "hops differ here, so the scores do too")


def changes_scores(config: EvalConfig) -> bool:
    """Whether a board configuration changes what the trust score is computed from without changing any setting
    (retrieval channels, hop depth, the planner, the chunking, re-entry): the settings fingerprint cannot see it,
    so the full system's calibration record does not hold for it (a dense-only run scored fewer rivals, rated its
    units higher and released 28 % of the reporting split under τ = 0.939, unlabelled; 2026-12-07).
    """
    return (config.channels is not None or config.hops is not None or not config.planner
            or config.chunking != "structure" or not config.reentry)


@functools.cache
def code_fingerprint() -> str:
    """sha256 of the ``labourcrew`` package's Python sources (paths and bytes, in path order), computed once."""
    import hashlib

    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(path.relative_to(root).as_posix().encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def run_key(item: DevItem, config: EvalConfig, settings: Settings, calibration: CalibrationRecord | None) -> str:
    """The resume key of one item under one configuration (module docstring)."""
    import hashlib

    blob = {
        "item": item.model_dump(mode="json"),
        "signature": config.signature(),
        "settings": settings.hash(),
        "calibration": _calibration_fingerprint(calibration) if config.runner == "board" else None,
        "harness": HARNESS_VERSION,
        "code": code_fingerprint(),
    }
    return hashlib.sha256(json.dumps(blob, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def _backend(config: EvalConfig, settings: Settings, res: EvalResources) -> Any:
    from labourcrew.wiring import make_backend

    base = res.offline_backend() if settings.board.backend == "offline" else None
    backend = make_backend(settings, res.graph, base=base, chat_model_factory=res.chat_model_factory)
    return backend


def _port(config: EvalConfig, settings: Settings, res: EvalResources) -> Any:
    if config.chunking != "structure":
        res.port()  # the chunk port borrows the index's encoder
        return res.chunk_port(config.chunking, settings)
    port = res.port()
    if config.channels is not None or config.hops is not None or not config.planner:
        port = VariantRetrieval(
            port,
            channels=config.channels,
            hops=config.hops,
            planner=config.planner,
            pack_cap=settings.retrieval.pack_cap,
        )
    return port


def _build_board(config: EvalConfig, settings: Settings, res: EvalResources, calibration: CalibrationRecord) -> Any:
    from labourcrew.wiring import make_board

    return make_board(settings, graph=res.graph, retrieval=_port(config, settings, res),
                      backend=_backend(config, settings, res), calibration=calibration)


def _resolver(config: EvalConfig, settings: Settings, res: EvalResources, versions: Iterable[str]) -> UnitResolver:
    chunks: dict[str, UnitFacts] = {}
    if config.chunking != "structure":
        port = res.chunk_port(config.chunking, settings)
        for v in set(versions):
            chunks.update(port.facts(v))
    return UnitResolver(res.graph, chunks)


def load_labels(path: Path | None, records: Iterable[Any] = ()) -> LabelMap:
    """Human labels of the claims of ``records`` by (run id, claim id), from an annotation store.

    Labels are found by content key (:func:`~labourcrew.gate.annotation_queue.run_claim_key`) and
    resolved by :func:`~labourcrew.gate.labels.resolve_labels` -- the same policy calibration uses.
    Empty without a store.
    """
    if path is None or not Path(path).is_file():
        return {}
    from labourcrew.gate.annotation_queue import run_claim_key
    from labourcrew.gate.labels import LabelStore, resolve_labels

    resolved = resolve_labels(LabelStore(path).list())
    out: dict[tuple[str, str], str] = {}
    for rec in records:
        for c in getattr(rec, "claims", []) or []:
            if not getattr(c, "evidence", None) or not hasattr(rec, "statute_version"):
                continue
            res = resolved.get(run_claim_key(rec, c))
            if res is not None:
                out[(rec.run_id, c.claim_id)] = res.label
    return out


def _save_baseline(result: Any, folder: Path, item_id: str) -> Path:
    return write_json_atomic(folder / f"{item_id}_{result.run_id}.baseline.json", result.model_dump(mode="json"),
                             indent=1)


def _answer(
    config: EvalConfig, item: DevItem, *, board: Any, settings: Settings, res: EvalResources, backend: Any, folder: Path
) -> tuple[Any, Path, str]:
    if config.runner == "board":
        from labourcrew.board.run import ask, run_filename

        result = ask(item.question_bn, version=item.statute_version, board=board, save=True, runs_dir=folder)
        return result, folder / run_filename(result), "ask"
    from labourcrew.eval import baselines

    port = _port(config, settings, res)
    if config.runner == "single_pass_rag":
        result = baselines.single_pass_rag(
            item.question_bn, item.statute_version, graph=res.graph, port=port, settings=settings
        )
    else:
        result = baselines.unconstrained_debate(
            item.question_bn, item.statute_version, graph=res.graph, port=port, backend=backend, settings=settings
        )
    return result, _save_baseline(result, folder, item.id), "baseline"


def _load(entry: Mapping[str, str], root: Path) -> Any:
    path = root / entry["file"]
    if entry["format"] == "ask":
        from labourcrew.board.run import load_run

        return load_run(path)
    from labourcrew.eval.baselines import BaselineResult

    try:
        return BaselineResult.model_validate_json(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise DataError(f"{path} is not a readable baseline run: {exc}") from exc


def _adapt(
    config: EvalConfig, record: Any, item: DevItem, resolver: UnitResolver, graph: StatuteGraph, labels: LabelMap,
    thesaurus: Thesaurus,
) -> EvalRun:
    from labourcrew.eval.baselines import BaselineResult

    if isinstance(record, BaselineResult):
        return from_baseline(record, item, config.name, resolver)
    post: dict[str, Any] = {}
    if config.regate:
        accepted, status, share = regate_with_checks(record, graph, checker=config.gate_checker, auditor=config.gate_auditor,
                                                    thesaurus=thesaurus)
        post = {"accepted": accepted, "status": status, "coverage_share": share}
    elif config.chunking != "structure":
        # The board's gate looks cited ids up in the StatuteGraph for coverage; a window id is not
        # there and a chapter id has no section text: recompute coverage on the chunks' own text.
        def context_of(node_id: str) -> str:
            f = resolver.facts(node_id)
            return f.text if f is not None else ""

        _, status, share = regate_with_checks(record, graph, keep_acceptance=True, context_of=context_of,
                                              thesaurus=thesaurus)
        post = {"status": status, "coverage_share": share}
    return from_ask_result(
        record, item, config.name, resolver, halt_on_failure=config.halt_on_failure, labels=labels, **post
    )


def run_config(
    config: EvalConfig,
    items: Sequence[DevItem],
    *,
    opts: EvalOptions,
    res: EvalResources,
    progress: Callable[[str], None] | None = None,
) -> ConfigRun:
    """Run (or reuse) every item under one configuration and reduce the runs for the metrics.

    Returns:
        A :class:`ConfigRun` (runs in item order; ``reused``/``ran`` counts; wall-clock seconds).

    Raises:
        ConfigError / IndexNotBuiltError: the configuration cannot be built.
    """
    t0 = time.perf_counter()
    settings = config_settings(config, opts)
    calibration = (
        calibration_for(settings) if config.runner == "board" else None
    )
    if calibration is not None and changes_scores(config) and not calibration.fail_closed:
        calibration = fail_closed_record(calibration.alpha, ABLATION_NOTE)
    root = settings.runs_dir / "eval"
    store = RunStore(root)
    folder = root / config.name
    keys = {it.id: run_key(it, config, settings, calibration) for it in items}
    records: dict[str, Any] = {}
    reused = 0
    if opts.resume:
        for it in items:
            entry = store.get(keys[it.id])
            if entry is None:
                continue
            try:
                records[it.id] = _load(entry, root)
                reused += 1
            except DataError as exc:
                logger.warning("rerunning %s/%s: %s", config.name, it.id, exc)
    todo = [it for it in items if it.id not in records]
    if config.chunking != "structure":
        res.port()
        res.chunk_port(config.chunking, settings).prepare(sorted({it.statute_version for it in items}))
    if todo:
        board = _build_board(config, settings, res, calibration) if config.runner == "board" else None  # type: ignore[arg-type]
        backend = _backend(config, settings, res) if config.runner == "unconstrained_debate" else None
        done = [0]
        lock = threading.Lock()

        def one(it: DevItem) -> tuple[str, Any]:
            result, path, fmt = _answer(
                config, it, board=board, settings=settings, res=res, backend=backend, folder=folder
            )
            store.put(keys[it.id], file=path, fmt=fmt, config=config.name, item_id=it.id)
            with lock:
                done[0] += 1
                if progress and (done[0] % 10 == 0 or done[0] == len(todo)):
                    progress(f"{config.name}: {done[0]}/{len(todo)} items run ({reused} reused)")
            return it.id, result

        workers = max(1, min(opts.workers, len(todo)))
        if workers == 1:
            results = [one(it) for it in todo]
        else:
            with ThreadPoolExecutor(max_workers=workers, thread_name_prefix=f"eval-{config.name}") as pool:
                results = list(pool.map(one, todo))
        records.update(dict(results))
    resolver = _resolver(config, settings, res, {it.statute_version for it in items})
    labels = load_labels(opts.labels_path or settings.gate.calibration_path.parent / "labels.sqlite",
                         records.values())
    thesaurus = load_thesaurus(settings.relevance.thesaurus_path)
    runs = [_adapt(config, records[it.id], it, resolver, res.graph, labels, thesaurus) for it in items]
    out = ConfigRun(
        config=config,
        settings=settings,
        calibration=calibration,
        runs=runs,
        reused=reused,
        ran=len(todo),
        seconds=round(time.perf_counter() - t0, 2),
        records=[records[it.id] for it in items],
    )
    logger.info("%s: %d items (%d run, %d reused) in %.1f s", config.name, len(items), out.ran, reused, out.seconds)
    return out


def run_configs(
    configs: Sequence[EvalConfig],
    items: Sequence[DevItem],
    *,
    opts: EvalOptions,
    res: EvalResources,
    progress: Callable[[str], None] | None = None,
) -> list[ConfigRun]:
    """:func:`run_config` for each configuration, in order (one process, shared resources)."""
    return [run_config(c, items, opts=opts, res=res, progress=progress) for c in configs]


# ---------------------------------------------------------------- results


def _json_safe(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


def results_payload(
    runs: Sequence[ConfigRun],
    *,
    dataset: Path | str,
    split: str,
    suite: str | None = None,
    groups: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, Any]:
    """The results JSON (module docstring) for one or more configurations."""
    first = runs[0]
    configs: dict[str, Any] = {}
    for cr in runs:
        block = summarise(cr.runs, METRICS)
        errors = identity_errors(block)
        if errors:  # cannot happen by construction; reported rather than assumed
            logger.error("%s: category rows do not reproduce the overall row: %s", cr.config.name, errors)
        cal = cr.calibration
        configs[cr.config.name] = {
            "kind": cr.config.kind,
            "group": cr.config.group,
            "description": cr.config.description,
            "runner": cr.config.runner,
            "gate_mode": cr.settings.gate.mode,
            "backend": cr.settings.board.backend,
            "fault_rate": cr.settings.board.fault_rate,
            "settings_hash": cr.settings.hash(),
            "signature": config_hash(cr.config)[:12],
            "tau": None if cal is None else ("inf" if math.isinf(cal.tau) else cal.tau),
            "calibration_n": None if cal is None else cal.n,
            "runs": {"items": len(cr.runs), "ran": cr.ran, "reused": cr.reused, "seconds": cr.seconds},
            "identity_ok": not errors,
            **block,
        }
    path = Path(dataset)
    board = next((cr for cr in runs if cr.config.runner == "board"), first)
    cal = board.calibration
    payload: dict[str, Any] = {
        "schema": "labourcrew-eval/1",
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "dataset": _rel(path),
        "dataset_sha256": dataset_sha256(path) if path.is_file() else "",
        "split": split,
        "n_items": len(first.runs),
        "backend": first.settings.board.backend,
        "gate_mode": board.settings.gate.mode,
        "tau": None if cal is None else ("inf" if math.isinf(cal.tau) else cal.tau),
        "calibration_note": None if cal is None else (cal.note or ""),
        "harness_version": HARNESS_VERSION,
        "configs": configs,
    }
    if suite:
        payload["suite"] = suite
        payload["groups"] = {g: list(n) for g, n in (groups or {}).items()}
        payload["table"] = comparison_rows(payload)
    return _json_safe(payload)


def _rel(path: Path) -> str:
    try:
        return path.resolve().relative_to(REPO_ROOT).as_posix()
    except ValueError:
        return str(path)


def comparison_rows(payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One overall row per (group, configuration) of a suite payload: the comparison table."""
    rows = []
    groups = payload.get("groups") or {"all": list(payload["configs"])}
    for group, names in groups.items():
        for name in names:
            block = payload["configs"].get(name)
            if block is None:
                continue
            o = block[OVERALL]
            row = {"group": group, "config": name, "kind": block["kind"], "n": o["n"]}
            row.update({m.name: o.get(m.name) for m in METRICS})
            row["rdi_ci"] = (o.get("intervals") or {}).get("risk_direction_index")
            row["latency_p50_s"] = (o.get("latency_percentiles") or {}).get("p50_s")
            rows.append(row)
    return rows


def results_path(name: str, split: str, out_dir: Path = RESULTS_DIR) -> Path:
    """``<out_dir>/<name>.json`` for the whole dataset, ``<name>.<split>.json`` for a split."""
    return Path(out_dir) / (f"{name}.json" if split == "all" else f"{name}.{split}.json")


def write_results(payload: Mapping[str, Any], path: Path) -> Path:
    """Write a results payload (indented, sorted keys, ``null`` for NaN) atomically."""
    return write_json_atomic(path, payload, indent=1, allow_nan=False)


def _fmt(v: Any, width: int) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return f"{'n/a':>{width}}"
    return f"{v:>{width}.3f}" if isinstance(v, float) else f"{v!s:>{width}}"


def format_table(payload: Mapping[str, Any], *, by_category: bool = True) -> str:
    """Plain-text tables: the overall row of every configuration (grouped for a suite), then, for
    a single configuration, its per-category and per-tier rows. NaN prints as ``n/a``.
    """
    head = f"{'config':<28}{'n':>5}" + "".join(f"{short:>7}" for _, short in TABLE_COLUMNS)
    lines = [
        f"dataset {payload.get('dataset')} split {payload.get('split')} · backend {payload.get('backend')} · "
        f"gate {payload.get('gate_mode')} (τ {payload.get('tau')})",
        head,
        "-" * len(head),
    ]
    groups = payload.get("groups") or {"": list(payload["configs"])}
    for group, names in groups.items():
        if group:
            lines.append(f"[{group}]")
        for name in names:
            block = payload["configs"].get(name)
            if block is None:
                continue
            o = block[OVERALL]
            lines.append(f"{name:<28}{o['n']:>5}" + "".join(_fmt(o.get(m), 7) for m, _ in TABLE_COLUMNS))
    if by_category and len(payload["configs"]) == 1:
        ((name, block),) = payload["configs"].items()
        for key, title in (("by_category", "category"), ("by_tier", "tier")):
            lines += ["", f"{name} by {title}", head, "-" * len(head)]
            for group, row in block[key].items():
                lines.append(f"{group:<28}{row['n']:>5}" + "".join(_fmt(row.get(m), 7) for m, _ in TABLE_COLUMNS))
        ci = (block[OVERALL].get("intervals") or {}).get("risk_direction_index")
        pct = block[OVERALL].get("latency_percentiles") or {}
        lines += [
            "",
            f"RDI 95% CI (bootstrap over questions): {ci}",
            f"latency p50/p95 (s): {pct.get('p50_s')}/{pct.get('p95_s')}",
        ]
    legend = ", ".join(f"{short}={m}" for m, short in TABLE_COLUMNS)
    lines += ["", f"columns: {legend}"]
    return "\n".join(lines)


# ---------------------------------------------------------------- calibration support


def export_claims(run: ConfigRun, items: Sequence[DevItem], path: Path, graph: StatuteGraph) -> int:
    """Write every candidate claim of a board configuration's runs as JSONL, for labelling.

    One line per claim: ``content_key`` (the label-store key), ``statute_version``, ``system`` (the
    fingerprint of the system that produced it, :func:`labourcrew.gate.system.system_of`), ``run_id``, ``claim_id``, ``item_id``, ``category``, ``question``,
    ``side``, ``text``, ``trust_score``, ``verdict``, ``accepted``, ``run_file`` and ``citations``
    (``node_id``, ``label``, ``span``, ``verified``, ``unit_text``: the cited unit's verbatim text).
    Claims of one question share ``run_id`` (CRC's loss is per question).

    Returns:
        Number of claims written.

    Raises:
        InputError: the configuration is not a board configuration.
    """
    if run.config.runner != "board":
        raise InputError("only board configurations have gated candidate claims to export")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    from labourcrew.gate.annotation_queue import run_claim_key
    from labourcrew.gate.system import system_of

    n = 0
    by_id = {it.id: it for it in items}
    system = system_of(run.settings).model_dump(mode="json")
    lines: list[str] = []
    for item_id, record in zip((r.item_id for r in run.runs), run.records, strict=True):
        item = by_id[item_id]
        for c in record.claims:
            cits = []
            for e in c.evidence:
                u = graph.units.get(e.node_id)
                cits.append(
                    {
                        "node_id": e.node_id,
                        "label": u.label if u else "",
                        "span": e.span,
                        "verified": e.verified,
                        "unit_text": u.text if u else "",
                    }
                )
            row = {
                "content_key": run_claim_key(record, c) if c.evidence else "",
                "statute_version": record.statute_version,
                "system": system,
                "run_id": record.run_id,
                "claim_id": c.claim_id,
                "item_id": item.id,
                "category": item.category,
                "question": record.question,
                "side": c.side.value,
                "text": c.text,
                "trust_score": c.trust_score,
                "verdict": c.verdict.value if c.verdict else None,
                "accepted": c.accepted,
                "citations": cits,
            }
            lines.append(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
            n += 1
    write_text_atomic(path, "".join(lines))
    return n


def default_items(
    dataset: Path | str = DEFAULT_DATASET, split: SplitName = "all", limit: int | None = None
) -> list[DevItem]:
    """The dataset's items in ``split`` (first ``limit`` of them when given).

    Raises:
        DataError: unreadable dataset or split file.
        InputError: unknown split, or ``limit`` < 1.
    """
    items = select_split(load_dataset(dataset), split)
    if limit is not None:
        if limit < 1:
            raise InputError(f"--limit must be >= 1, got {limit}")
        items = items[:limit]
    if not items:
        raise InputError(f"no items in split {split!r} of {dataset}")
    return items


def suite_groups(groups: Sequence[str] | None = None) -> dict[str, list[str]]:
    """The suite's group -> configuration names (selected groups)."""
    chosen = list(groups or SUITE)
    return {g: list(SUITE[g]) for g in chosen}


__all__ += ["default_items", "suite_groups", "suite_configs", "comparison_rows", "run_key"]
