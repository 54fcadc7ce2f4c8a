"""The relevance features do not depend on the process's hash seed (set iteration order)."""

from __future__ import annotations

import os
import subprocess
import sys

from labourcrew.settings import REPO_ROOT

# Twelve words whose IDF values a plain ``sum`` over the set adds up to 13.999999999999998, 14.0 or
# 14.000000000000002 depending on PYTHONHASHSEED; the *_rank features then flipped from run to run.
_SCRIPT = """
from labourcrew.relevance.features import _share
words = frozenset(f"w{i}" for i in range(12))
idf = {f"w{i}": v for i, v in enumerate([0.1, 0.7, 0.2, 0.3, 1.1, 2.3, 0.45, 3.3, 0.9, 1.7, 0.05, 2.9])}
half = frozenset(f"w{i}" for i in range(0, 12, 2))
print(repr(_share(words | {"x"}, words, idf)), repr(_share(words | {"x"}, half, idf)))
"""


def test_idf_shares_are_the_same_under_every_hash_seed() -> None:
    outs = set()
    for seed in ("0", "1", "2", "4"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(REPO_ROOT)}
        res = subprocess.run([sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True, timeout=120, check=True)
        outs.add(res.stdout.strip())
    assert len(outs) == 1, outs
