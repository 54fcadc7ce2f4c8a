"""A golden ledger: one question on the real Act through the offline board, compared field by field
with the committed snapshot, so no phase changes its output unnoticed.

Regenerate after an intended change: ``UPDATE_GOLDEN=1 pytest tests/board/test_golden_ledger.py``
and review the diff of ``tests/board/snapshots/golden_casual_leave.json``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from labourcrew.board.run import ask

SNAPSHOT = Path(__file__).parent / "snapshots" / "golden_casual_leave.json"
QUESTION = "নৈমিত্তিক ছুটি বছরে কত দিন পাওয়া যায়?"
# Volatile per run: ids, clocks, and the settings hash (the fixture's runs_dir is a fresh temporary folder).
VOLATILE = {"run_id", "created", "latency_s", "latency_ms", "timings_ms", "elapsed_s", "settings_hash"}


def _stable(value):
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in sorted(value.items()) if k not in VOLATILE}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    if isinstance(value, float):
        return round(value, 6)
    return value


def test_golden_ledger(offline_board):
    result = ask(QUESTION, board=offline_board, save=False)
    got = _stable(json.loads(result.to_json()))
    if os.environ.get("UPDATE_GOLDEN") == "1":
        SNAPSHOT.write_text(json.dumps(got, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    assert SNAPSHOT.exists(), "no golden snapshot committed (regenerate it, see the module docstring)"
    want = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    changed = sorted(k for k in set(want) | set(got) if want.get(k) != got.get(k))
    assert changed == [], f"ledger fields changed: {changed} (regenerate the snapshot if intended)"
    # the snapshot is real: it holds claims quoting 115 and a status
    assert want["status"] in {"TGLO", "DEGRADED", "UNDECIDED"}
    assert any("115" in json.dumps(c, ensure_ascii=False) for c in want["claims"])
    # 115's quote carries its tea-garden proviso, and the opinion says that proviso once, not again
    # from the employer's separate proviso claim.
    assert got["opinion_bn"].count("চা-বাগানের") == 1
