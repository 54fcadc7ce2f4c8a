"""The calibration/report split: deterministic, seeded, stratified by category, disjoint, persisted."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from labourcrew.errors import DataError, InputError
from labourcrew.eval.splits import (
    DEFAULT_CALIBRATION_FRACTION,
    SPLITS_PATH,
    Splits,
    load_splits,
    make_splits,
    select_split,
    write_splits,
)


def test_committed_split_matches_the_algorithm_and_the_dataset(dev_items):
    stored = load_splits(SPLITS_PATH, dev_items)
    assert set(stored.calibration).isdisjoint(stored.report)
    assert set(stored.calibration) | set(stored.report) == {i.id for i in dev_items}
    again = make_splits(dev_items, seed=stored.seed, calibration_fraction=stored.calibration_fraction)
    assert (again.calibration, again.report) == (stored.calibration, stored.report)


def test_stratified_by_category(dev_items):
    s = make_splits(dev_items)
    cal = set(s.calibration)
    for cat, n in Counter(i.category for i in dev_items).items():
        k = sum(1 for i in dev_items if i.category == cat and i.id in cal)
        assert k == math.floor(n * DEFAULT_CALIBRATION_FRACTION)
        assert s.counts[cat] == {"calibration": k, "report": n - k}
    # tiers are spread: each category with two or more tiers sends more than one tier to calibration
    tiers = {c: {i.difficulty for i in dev_items if i.category == c and i.id in cal} for c in s.counts}
    assert sum(len(t) > 1 for t in tiers.values()) >= 7


def test_seeded(dev_items):
    assert make_splits(dev_items, seed=1).calibration == make_splits(dev_items, seed=1).calibration
    assert make_splits(dev_items, seed=1).calibration != make_splits(dev_items, seed=2).calibration


def test_select_and_errors(dev_items, tmp_path):
    s = make_splits(dev_items)
    path = write_splits(s, tmp_path / "splits.json")
    loaded = load_splits(path, dev_items)
    assert [i.id for i in select_split(dev_items, "report", loaded)] == loaded.report
    assert len(select_split(dev_items, "all")) == len(dev_items)
    with pytest.raises(InputError):
        select_split(dev_items, "train")  # type: ignore[arg-type]
    with pytest.raises(InputError):
        make_splits(dev_items, calibration_fraction=1.0)
    with pytest.raises(DataError):
        load_splits(tmp_path / "missing.json", dev_items)
    bad = s.model_dump()
    bad["report"] = bad["report"] + bad["calibration"][:1]
    (tmp_path / "bad.json").write_text(__import__("json").dumps(bad), encoding="utf-8")
    with pytest.raises(DataError):
        load_splits(tmp_path / "bad.json", dev_items)
    with pytest.raises(ValueError):
        Splits(**bad)
