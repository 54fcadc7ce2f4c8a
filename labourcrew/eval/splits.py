"""Calibration / reporting split of the dev set (paper B.5: calibration data kept apart from evaluation).

The Trust Gate's threshold τ is calibrated on claims from the **calibration** split; every number
the project reports comes from the **report** split, so no reported item ever influenced τ.

The split is deterministic, seeded, stratified by category and disjoint:

* items are grouped by category (the strata);
* inside a category they are ordered by tier (difficulty), then by a seeded hash of their id
  (``sha256(f"{seed}:{id}")``), so the order is a fixed pseudo-random permutation per tier;
* walking that order, item ``i`` (0-based) goes to calibration exactly when
  ``floor((i + 1) * f) > floor(i * f)`` for the calibration fraction ``f`` -- a systematic
  sample, so each category gets ``floor(n * f)`` (or one more) calibration items spread evenly
  over its tiers.

The split is written once to ``data/eval/splits.json`` (committed) and loaded from there, so a
change to the algorithm never silently moves items between splits; :func:`load_splits` checks
that the two lists are disjoint and name only items of the dataset.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from labourcrew.errors import DataError, InputError
from labourcrew.eval.datasets import CATEGORIES, DEFAULT_DATASET, DevItem, load_dataset
from labourcrew.graph.statute_graph import REPO_ROOT

__all__ = [
    "SPLITS_PATH",
    "SPLIT_NAMES",
    "DEFAULT_SEED",
    "DEFAULT_CALIBRATION_FRACTION",
    "SplitName",
    "Splits",
    "make_splits",
    "load_splits",
    "select_split",
    "dataset_sha256",
]

logger = logging.getLogger(__name__)

SPLITS_PATH = REPO_ROOT / "data" / "eval" / "splits.json"
SplitName = Literal["calibration", "report", "all"]
SPLIT_NAMES: tuple[str, ...] = ("calibration", "report", "all")
DEFAULT_SEED = 6
DEFAULT_CALIBRATION_FRACTION = 0.6
"""Why 60 %: the calibration must label at least 300 claims of the deployed board (paper B.5); the
offline board states ~3.4 candidate claims per question (549 on the 160 dev items), so ~90
calibration questions are needed -- 96 here (326 candidate claims), leaving 64 for reporting."""


class Splits(BaseModel):
    """The persisted split (``data/eval/splits.json``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    dataset: str = Field(description="Dataset path the split was made from (relative to the repo root).")
    dataset_sha256: str = Field(description="sha256 of the dataset file when the split was made.")
    seed: int = Field(description="Seed of the per-item hash order.")
    calibration_fraction: float = Field(gt=0.0, lt=1.0, description="Share of each category sent to calibration.")
    strata: Literal["category"] = Field(default="category", description="Stratification key.")
    calibration: list[str] = Field(description="Item ids of the calibration split (dataset order).")
    report: list[str] = Field(description="Item ids of the reporting split (dataset order).")
    counts: dict[str, dict[str, int]] = Field(
        description="category -> {'calibration': n, 'report': n} (for people; recomputed on load)."
    )

    @model_validator(mode="after")
    def _disjoint(self) -> Splits:
        both = set(self.calibration) & set(self.report)
        if both:
            raise ValueError(f"calibration and report splits overlap: {sorted(both)[:5]}")
        for name, ids in (("calibration", self.calibration), ("report", self.report)):
            if len(set(ids)) != len(ids):
                raise ValueError(f"duplicate ids in the {name} split")
        return self

    def ids(self, split: SplitName) -> list[str]:
        """Ids of ``split`` (``all``: calibration and report)."""
        if split == "calibration":
            return list(self.calibration)
        if split == "report":
            return list(self.report)
        return [*self.calibration, *self.report]


def dataset_sha256(path: Path | str) -> str:
    """sha256 (hex) of a dataset file's bytes."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _order_key(seed: int, item: DevItem) -> tuple[int, str]:
    return item.difficulty, hashlib.sha256(f"{seed}:{item.id}".encode()).hexdigest()


def make_splits(
    items: Sequence[DevItem],
    *,
    seed: int = DEFAULT_SEED,
    calibration_fraction: float = DEFAULT_CALIBRATION_FRACTION,
    dataset: Path | str = DEFAULT_DATASET,
) -> Splits:
    """Split ``items`` (module docstring: stratified by category, systematic over tiers).

    Args:
        items: the dataset.
        seed: seed of the hash order.
        calibration_fraction: share of each category for calibration, in (0, 1).
        dataset: path of the dataset file (recorded with its sha256 when it exists).

    Returns:
        The :class:`Splits` (not written; see :meth:`Splits.model_dump_json`).

    Raises:
        InputError: fraction outside (0, 1) or no items.
    """
    if not 0.0 < calibration_fraction < 1.0:
        raise InputError(f"calibration_fraction must be in (0, 1), got {calibration_fraction}")
    if not items:
        raise InputError("cannot split an empty dataset")
    cal: set[str] = set()
    cats = [c for c in CATEGORIES if any(i.category == c for i in items)]
    for cat in cats:
        members = sorted((i for i in items if i.category == cat), key=lambda i: _order_key(seed, i))
        for k, item in enumerate(members):
            if math.floor((k + 1) * calibration_fraction) > math.floor(k * calibration_fraction):
                cal.add(item.id)
    calibration = [i.id for i in items if i.id in cal]
    report = [i.id for i in items if i.id not in cal]
    path = Path(dataset)
    try:
        rel = path.resolve().relative_to(REPO_ROOT).as_posix()
    except ValueError:
        rel = str(path)
    return Splits(
        dataset=rel,
        dataset_sha256=dataset_sha256(path) if path.is_file() else "",
        seed=seed,
        calibration_fraction=calibration_fraction,
        calibration=calibration,
        report=report,
        counts=_counts(items, set(calibration)),
    )


def _counts(items: Sequence[DevItem], cal: set[str]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for item in items:
        row = out.setdefault(item.category, {"calibration": 0, "report": 0})
        row["calibration" if item.id in cal else "report"] += 1
    return out


def write_splits(splits: Splits, path: Path | str = SPLITS_PATH) -> Path:
    """Write ``splits`` as indented JSON (sorted keys). Returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(splits.model_dump(mode="json"), indent=1, sort_keys=True, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    return path


def load_splits(path: Path | str = SPLITS_PATH, items: Sequence[DevItem] | None = None) -> Splits:
    """Read the persisted split and check it against the dataset.

    Args:
        path: the splits file.
        items: the dataset to check against (default: the dataset the split names).

    Raises:
        DataError: missing or malformed file, overlapping splits, or ids not in the dataset.
    """
    path = Path(path)
    try:
        splits = Splits.model_validate_json(path.read_bytes())
    except FileNotFoundError as exc:
        raise DataError(
            f"no split file at {path}", help_message="Create it: python -m labourcrew eval --make-splits"
        ) from exc
    except (ValidationError, ValueError) as exc:
        raise DataError(f"split file {path} is malformed: {exc}") from exc
    if items is None:
        items = load_dataset(REPO_ROOT / splits.dataset)
    known = {i.id for i in items}
    unknown = [i for i in splits.ids("all") if i not in known]
    if unknown:
        raise DataError(f"split file {path} names items not in the dataset: {unknown[:5]}")
    missing = [i for i in known if i not in set(splits.ids("all"))]
    if missing:
        logger.warning("%d dataset items are in neither split (new items?): %s", len(missing), sorted(missing)[:5])
    return splits


def select_split(items: Sequence[DevItem], split: SplitName, splits: Splits | None = None) -> list[DevItem]:
    """The items of ``split`` in dataset order (``all``: every item, even ones in neither split).

    Raises:
        InputError: unknown split name.
        DataError: the split file is missing or inconsistent.
    """
    if split not in SPLIT_NAMES:
        raise InputError(f"unknown split {split!r}; known: {', '.join(SPLIT_NAMES)}")
    if split == "all":
        return list(items)
    splits = splits or load_splits(items=items)
    wanted = set(splits.ids(split))
    return [i for i in items if i.id in wanted]
