"""The context map's features: how a ranking score stands among its question's candidates."""

from __future__ import annotations

import math

import numpy as np
import pytest

from labourcrew.relevance.features import CONTEXT_FEATURES, NO_RIVAL, context_features

COL = {f: k for k, f in enumerate(CONTEXT_FEATURES)}


def test_columns_read_the_question_s_other_candidates():
    raw = np.array([2.0, 1.0, 0.5, -1.0])
    secs = ["2025:46", "2025:46", "2025:119", "2025:118"]
    f = context_features(raw, secs)
    assert f.shape == (4, len(CONTEXT_FEATURES))
    assert np.allclose(f[:, COL["raw_gap"]], [0.0, 1.0, 1.5, 3.0])
    assert np.allclose(f[:, COL["raw_rank"]], np.log1p([0, 1, 2, 3]))
    share = np.exp(raw - 2.0) / np.exp(raw - 2.0).sum()
    assert np.allclose(f[:, COL["share"]], share) and f[:, COL["share"]].sum() == pytest.approx(1.0)
    assert f[0, COL["section_share"]] == pytest.approx(share[0] + share[1])  # 46's two units together
    assert f[1, COL["raw_minus_rival"]] == pytest.approx(1.0 - 0.5)  # rival section 119 at 0.5
    assert f[2, COL["section_margin"]] == pytest.approx(0.5 - 2.0)  # 119 trails 46
    assert np.allclose(f[:, COL["raw_top"]], 2.0) and np.allclose(f[:, COL["top_margin"]], 1.5)
    assert np.allclose(f[:, COL["log_candidates"]], math.log(4))


def test_a_question_with_one_section_has_no_rival_and_an_empty_one_no_rows():
    f = context_features(np.array([1.0, 0.0]), ["2025:27", "2025:27"])
    assert np.allclose(f[:, COL["top_margin"]], NO_RIVAL) and np.allclose(f[:, COL["section_margin"]], NO_RIVAL)
    assert context_features(np.zeros(0), []).shape == (0, len(CONTEXT_FEATURES))
