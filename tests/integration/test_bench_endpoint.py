"""``python -m labourcrew bench llm`` against the REAL llama.cpp server (see conftest.py): the
configured endpoint against the offline default on one reporting-split question, driven through
the command line only.

The proxy caps every chat request at 2 tokens, so the server answers each one quickly (HTTP 200,
usage filled in, ``finish_reason=length``) and every language role fails after its retries: the
benchmark must still finish, say which roles failed, and count exactly the requests and tokens the
server answered (the proxy sees them all), with the ratios openai ÷ offline computed from the two
sides it prints.
"""

from __future__ import annotations

import math

import pytest

pytestmark = pytest.mark.slow

LANGUAGE_ROLES = {"issue_spotter", "worker_counsel", "employer_counsel", "legal_interpreter", "trust_auditor"}
METRICS = ("calls_per_question_mean", "critical_path_per_question_mean", "tokens_in_per_question_mean",
           "tokens_out_per_question_mean", "p50_s", "p95_s")
STATUSES = ("TGLO", "DEGRADED", "UNDECIDED")


def test_bench_llm_counts_what_the_server_answered(lc, proxy) -> None:
    counter = proxy("max_tokens=2")
    res = lc("bench", "llm", "--llm-limit", "1", "--json", env=lc.openai_env(counter.base_url), timeout=300)
    assert "Traceback" not in res.stderr, res.describe()
    assert lc.api_key not in res.stdout and lc.api_key not in res.stderr, "the API key leaked into the output"
    assert res.returncode == 0, res.describe()
    out = res.json()
    seen = counter.chat_records()
    print(f"\nbench llm: {res.seconds:.1f} s; server answered {len(seen)} chat requests")

    assert out["n"] == 1 and len(out["items"]) == 1 and out["model"] == "tiny"
    assert out["endpoint"] == counter.base_url
    off, on = out["offline"], out["openai"]
    assert on["backend"] == "openai:tiny" and off["backend"] == "one-call-per-role"

    # every chat request the server answered is in the record, with its tokens
    assert seen and all(r.status == 200 and r.finish_reason == "length" for r in seen), seen
    server = (len(seen), sum(r.usage["prompt_tokens"] for r in seen), sum(r.usage["completion_tokens"] for r in seen))
    assert (on["llm_calls_total"], on["tokens_in_total"], on["tokens_out_total"]) == server, (on, server)
    assert on["calls_per_question_mean"] == on["llm_calls_total"]  # one question
    assert 0 < on["critical_path_per_question_mean"] <= on["calls_per_question_mean"]

    # statuses and failed roles
    for side in (off, on):
        assert side["n"] == 1 and sum(side["statuses"].get(k, 0) for k in STATUSES) == 1, side["statuses"]
    assert on["questions_with_failed_roles"] == 1 and on["failed_roles"], on
    assert set(on["failed_roles"]) <= LANGUAGE_ROLES, on["failed_roles"]
    assert on["statuses"]["UNDECIDED"] + on["statuses"]["DEGRADED"] == 1, on["statuses"]
    assert off["questions_with_failed_roles"] == 0 and off["tokens_in_total"] == 0

    # the ratios are openai ÷ offline of what is printed (undefined where the offline side is 0)
    assert set(out["ratios"]) == set(METRICS)
    for key in METRICS:
        want = on[key] / off[key] if off[key] else None
        got = out["ratios"][key]
        assert (got is None) if want is None else math.isclose(got, want, rel_tol=1e-9), (key, got, want)
    print(f"  calls/question openai {on['calls_per_question_mean']} vs offline {off['calls_per_question_mean']} "
          f"(x{out['ratios']['calls_per_question_mean']:.2f}); failed roles {on['failed_roles']}")


def test_bench_llm_prints_the_table(lc, proxy) -> None:
    """The same run as text: the table a user reads, one row per measure, openai ÷ offline."""
    counter = proxy("max_tokens=2")
    res = lc("bench", "llm", "--llm-limit", "1", env=lc.openai_env(counter.base_url), timeout=300)
    assert "Traceback" not in res.stderr and res.returncode == 0, res.describe()
    assert lc.api_key not in res.stdout and lc.api_key not in res.stderr, "the API key leaked into the output"
    print("\n" + res.stdout)
    lines = res.stdout.splitlines()
    assert lines[0].startswith("board openai vs offline default: the same 1 report-split question(s)")
    assert any("openai ÷ offline" in line for line in lines)
    total = next(line for line in lines if line.strip().startswith("chat calls (total)"))
    assert total.split()[-1] == str(len(counter.chat_records())), (total, len(counter.chat_records()))
    assert any(line.strip().startswith("TGLO / DEGRADED / UNDECIDED") for line in lines)
    assert any(line.strip().startswith("failed roles (questions):") for line in lines)
