"""Fault injection (LABOURCREW_FAULT_RATE): 200 offline runs at rate 0.3 never crash.

Every run must end with a release status, every injected failure that exhausted its retries must
be visible in ``role_status``, and retries must be observed. The board is built once and the
retrieval results are memoised (retrieval is deterministic); the board itself runs 200 times.
"""

from __future__ import annotations

from collections import Counter

import pytest

from labourcrew.board.build import build_board
from labourcrew.board.deps import BoardDeps
from labourcrew.board.faults import FaultInjectingBackend
from labourcrew.board.run import ask
from labourcrew.errors import TransientRoleError
from labourcrew.ledger.records import EvidencePack, ReleaseStatus
from labourcrew.ledger.roles import CounselInput
from labourcrew.settings import load_settings
from labourcrew.wiring import make_backend

QUESTIONS = [
    "স্থায়ী শ্রমিক কত দিনের নোটিশ দিয়ে চাকরি থেকে ইস্তফা দিতে পারেন?",
    "প্রসূতি কল্যাণ সুবিধা কত দিনের জন্য পাওয়া যায়?",
    "মজুরী কত দিনের মধ্যে পরিশোধ করিতে হইবে?",
    "উৎসব ছুটি কত দিন পাওয়া যায়?",
    "ক্রিকেট খেলার নিয়ম কী?",
]


def test_fault_draws_are_seeded_and_independent_of_call_order(offline, graph) -> None:
    inp_a = CounselInput(side="worker", question="a", pack=EvidencePack())
    inp_b = CounselInput(side="employer", question="b", pack=EvidencePack())

    def fates(order):
        fb = FaultInjectingBackend(offline, rate=0.5, seed=7, kinds=("exception",))
        out = {}
        for inp in order:
            for n in range(6):
                try:
                    fb.counsel(inp)
                    out[(inp.side, n)] = "ok"
                except TransientRoleError:
                    out[(inp.side, n)] = "fault"
        return out

    assert fates([inp_a, inp_b]) == fates([inp_b, inp_a])
    assert set(fates([inp_a]).values()) == {"ok", "fault"}


def test_settings_fault_rate_wraps_the_backend(graph, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LABOURCREW_FAULT_RATE", "0.3")
    backend = make_backend(load_settings("offline"), graph)
    assert isinstance(backend, FaultInjectingBackend) and backend.rate == 0.3
    assert backend.name == "offline-extractive"


def test_200_runs_at_fault_rate_0_3_never_crash(graph, lexical, offline, base_settings, calibration) -> None:
    faulty = FaultInjectingBackend(offline, rate=0.3, seed=2024)
    board = build_board(base_settings, BoardDeps(graph=graph, retrieval=lexical, backend=faulty, calibration=calibration))
    statuses: Counter[str] = Counter()
    failed_calls = retried_calls = runs_with_failure = 0
    for i in range(200):
        r = ask(QUESTIONS[i % len(QUESTIONS)], board=board, save=False)
        assert r.error is None, r.error  # the board itself never stopped
        assert r.status in set(ReleaseStatus)
        statuses[r.status.value] += 1
        failed = [c for c in r.role_calls if c.status.status == "failed"]
        failed_calls += len(failed)
        retried_calls += sum(1 for c in r.role_calls if c.status.status == "retried")
        runs_with_failure += bool(failed)
        for c in failed:  # every failure is visible, with its error and attempts
            assert r.role_status[c.status.role]["status"] == "failed"
            assert c.status.error and c.status.attempts >= 1
        if failed and r.status == ReleaseStatus.TGLO:
            pytest.fail("a run with a failed role was released TGLO")
    injected = faulty.counts()
    print(f"\n200 runs at fault rate 0.3: statuses={dict(statuses)} injected={injected} "
          f"retried calls={retried_calls} failed calls={failed_calls} runs with a failed role={runs_with_failure}")
    assert injected.get("exception", 0) and injected.get("timeout", 0) and injected.get("malformed", 0)
    assert retried_calls > 0 and failed_calls > 0
    assert sum(statuses.values()) == 200
