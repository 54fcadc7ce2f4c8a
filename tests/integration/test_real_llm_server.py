"""LabourCrew's ``openai`` backend against a REAL OpenAI-compatible server (llama.cpp via the
``xllamacpp`` wheel) serving a tiny random model built in this session (see conftest.py).

Everything goes through the command line (``python -m labourcrew ask ... --json --no-save``,
``statute show``, ``eval``) with ``LABOURCREW_*`` environment variables; no LabourCrew module is
imported, so the package internals may move freely.

The model writes schema-valid nonsense (the server turns ``response_format`` json_schema into a
grammar). What must hold whatever it writes:

* every run ends with a status (TGLO / DEGRADED / UNDECIDED) and a reason, exit code 0, no traceback;
* no released claim cites a node that is not in the statute, or a span that is not verbatim in the
  cited unit (checked against ``statute show <section> --json``);
* role calls, tokens and latency are recorded in the output, and agree with what the server saw;
* a timeout, a dropped connection and a corrupted reply each end the run with a status and a reason
  naming the failure (or one clear error line), never a traceback; the API key never appears;
* ``eval --backend openai --limit 2 --out FILE`` writes its report.

Bugs found this way were pinned as strict xfails until fixed (then the marker was removed and
the test asserts the fix): a reply body that is not JSON reached the board as a bare
JSONDecodeError / UnicodeDecodeError (not a RoleError, so never retried), and the chat calls of
failed role attempts were missing from the run's ``llm_calls`` and token counts.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow

STATUSES = {"TGLO", "DEGRADED", "UNDECIDED"}
LANGUAGE_ROLES = ("issue_spotter", "worker_counsel", "employer_counsel", "legal_interpreter", "trust_auditor")
QUESTIONS = [
    "নৈমিত্তিক ছুটি বছরে কত দিন?",  # casual leave, s.115
    "আমার মালিক ৩ মাসের বেতন দেয় নাই, আমি কী করতে পারি?",  # unpaid wages
]


def ask(lc, question: str, env: dict[str, str], timeout: float = 240):
    return lc("ask", question, "--json", "--no-save", env=env, timeout=timeout)


def _no_leaks(res, api_key: str) -> None:
    assert "Traceback" not in res.stderr, res.describe()
    assert api_key not in res.stdout and api_key not in res.stderr, "the API key leaked into the output"


def ended_with_status(res, api_key: str) -> dict[str, Any]:
    """The run's JSON after checking it ended cleanly with a status and a reason."""
    _no_leaks(res, api_key)
    assert res.returncode == 0, res.describe()
    out = res.json()
    assert out["status"] in STATUSES, res.describe()
    assert out["status_reason"].strip(), res.describe()
    assert out.get("error") in (None, ""), res.describe()
    return out


def failure_text(out: dict[str, Any]) -> str:
    """Status reason plus every failed role's recorded error."""
    errors = [f"{r}: {s.get('error')}" for r, s in out["role_status"].items() if s.get("status") == "failed"]
    return "\n".join([out["status_reason"], *errors])


def assert_failed_cleanly(res, api_key: str, words: tuple[str, ...]) -> str:
    """A faulty endpoint: exit 0 with UNDECIDED/DEGRADED and a reason naming the failure, or one clear
    error line (exit 1/2) -- never a traceback. Returns the reason text."""
    _no_leaks(res, api_key)
    if res.returncode != 0:
        lines = [ln for ln in res.stderr.splitlines() if ln.strip() and not re.match(r"(WARNING|INFO|DEBUG) ", ln)]
        assert res.returncode in (1, 2) and len(lines) == 1 and lines[0].startswith("ত্রুটি — error:"), res.describe()
        reason = lines[0]
    else:
        out = ended_with_status(res, api_key)
        assert out["status"] in ("UNDECIDED", "DEGRADED"), res.describe()
        failed = [r for r, s in out["role_status"].items() if s.get("status") == "failed"]
        assert failed, f"a faulty endpoint but no role failed:\n{res.describe()}"
        assert set(failed) <= set(LANGUAGE_ROLES), f"non-language roles failed: {failed}"
        reason = failure_text(out)
        assert any(r in out["status_reason"] for r in failed), f"the status reason does not name the failed roles:\n{reason}"
    assert any(w in reason.lower() for w in words), f"reason does not say what failed ({words}):\n{reason}"
    return reason


# ------------------------------------------------------------------------------------ the checker


def test_released_claim_check_catches_bad_claims(lc, statute) -> None:
    """The checker used below is not vacuous: spans quoted from real statute units pass (the
    offline run's released claims, if any, and claims made from its Evidence Pack); the same claims
    with an edited span or a foreign node id fail."""
    out = ended_with_status(ask(lc, QUESTIONS[0], lc.env()), lc.api_key)
    assert statute.problems(out) == []
    items = [it for it in out["evidence_pack"]["items"] if len(it["text"].strip()) >= 20][:3]
    assert len(items) >= 2, "the offline run's Evidence Pack has too few units with text"
    made = {"claims": [
        {"claim_id": f"p{i}", "accepted": True,
         "evidence": [{"node_id": it["node_id"], "section": it["section"], "span": it["text"][:60]}]}
        for i, it in enumerate(items)
    ]}
    assert statute.problems(made) == []

    forged = copy.deepcopy(made)
    forged["claims"][0]["evidence"][0]["span"] += " এবং দ্বিগুণ মজুরি"
    assert [p for p in statute.problems(forged) if "not verbatim" in p], statute.problems(forged)
    forged["claims"][1]["evidence"][0].update(node_id="2025:999(9)", section="999")
    assert [p for p in statute.problems(forged) if "not in the statute" in p], statute.problems(forged)
    rejected = copy.deepcopy(forged)
    for c in rejected["claims"]:
        c["accepted"] = False  # withheld claims are not released: not checked
    assert statute.problems(rejected) == []


# --------------------------------------------------------------------------- the healthy server


@pytest.mark.parametrize("question", QUESTIONS, ids=["casual_leave", "unpaid_wages"])
def test_ask_through_real_server(lc, llm_server, proxy, statute, question: str) -> None:
    counter = proxy("pass")  # a pass-through proxy, only to count what reached the server
    res = ask(lc, question, lc.openai_env(counter.base_url))
    out = ended_with_status(res, lc.api_key)
    print(f"\n[{question}] {out['status']}: {out['status_reason']} ({res.seconds:.1f} s)")

    # which backend answered
    assert out["backend"] == f"openai:{llm_server.model}"
    for role in LANGUAGE_ROLES:
        status = out["role_status"].get(role)
        if status is not None:
            assert status["backend"] == f"openai:{llm_server.model}", (role, status)
    assert len(out.get("prompt_hashes") or {}) == len(LANGUAGE_ROLES), out.get("prompt_hashes")

    # released claims are grounded in the statute, whatever the model wrote
    assert statute.problems(out) == []
    if out["status"] == "TGLO":
        assert any(c["accepted"] for c in out["claims"])
    # the model's nonsense citations were refused by the Evidence Exchange Protocol, with reasons
    for rej in out.get("rejected_by_eep") or []:
        assert rej.get("code") and rej.get("reason"), rej

    # role calls, tokens and latency are recorded
    assert out["latency_s"] > 0
    assert out["role_calls"], "no role calls recorded"
    for call in out["role_calls"]:
        assert call["stage"] and call["status"]["status"] in ("ok", "retried", "failed"), call
        assert call["status"]["latency_ms"] >= 0, call
    ok_language = [s for r, s in out["role_status"].items() if r in LANGUAGE_ROLES and s["status"] == "ok"]
    seen = counter.chat_records()
    assert seen, "no chat request reached the real server"
    assert ok_language, f"no language role succeeded against the healthy server:\n{failure_text(out)}"
    assert all(s["llm_calls"] >= 1 and s["tokens_in"] > 0 and s["tokens_out"] > 0 for s in ok_language), ok_language
    assert all(s["latency_ms"] > 0 for s in ok_language), ok_language
    recorded_calls = sum(u["llm_calls"] for u in out["usage"])
    recorded_in = sum(s["tokens_in"] for s in out["role_status"].values())
    recorded_out = sum(s["tokens_out"] for s in out["role_status"].values())
    server_in = sum((r.usage or {}).get("prompt_tokens", 0) for r in seen)
    server_out = sum((r.usage or {}).get("completion_tokens", 0) for r in seen)
    assert recorded_calls == sum(s["llm_calls"] for s in out["role_status"].values()), out["usage"]
    assert 0 < recorded_calls <= len(seen)
    assert 0 < recorded_in <= server_in and 0 < recorded_out <= server_out
    print(f"  chat requests seen by the server: {len(seen)}, recorded llm_calls: {recorded_calls}; "
          f"prompt tokens seen: {server_in}, recorded: {recorded_in}")


# ----------------------------------------------------------------------------- faulty endpoints


def test_timeout(lc, llm_server) -> None:
    res = ask(lc, QUESTIONS[0], lc.openai_env(llm_server.base_url, LABOURCREW_LLM__TIMEOUT_S="0.01"))
    print("\n" + assert_failed_cleanly(res, lc.api_key, ("timeout", "timed out")))


def test_dropped_connection(lc, proxy) -> None:
    dropper = proxy("drop")
    res = ask(lc, QUESTIONS[0], lc.openai_env(dropper.base_url))
    assert dropper.chat_records(), "no request reached the server through the proxy"
    print("\n" + assert_failed_cleanly(res, lc.api_key, ("connection", "disconnect", "incomplete", "closed")))


_RUNS: dict[str, Any] = {}


def run_through(lc, proxy, mode: str):
    """``ask`` through a FaultProxy in ``mode``; one run per mode per session (tests share it)."""
    if mode not in _RUNS:
        p = proxy(mode)
        res = ask(lc, QUESTIONS[0], lc.openai_env(p.base_url))
        assert p.chat_records(), f"no request reached the server through the {mode} proxy"
        _RUNS[mode] = (res, list(p.chat_records()))
    return _RUNS[mode]


@pytest.mark.parametrize("mode", ["garble_body", "garble_bytes", "garble_content"])
def test_corrupted_reply(lc, proxy, mode: str) -> None:
    res, _ = run_through(lc, proxy, mode)
    print("\n" + assert_failed_cleanly(res, lc.api_key, ("malformed", "json", "schema", "decode", "invalid")))


# ------------------------------------------------------------- bugs found here, since fixed


class UnmappedEndpointFault(Exception):
    """A corrupted reply body reached the board as a raw Python exception, not as a RoleError."""


@pytest.mark.parametrize("mode", ["garble_body", "garble_bytes"])
def test_corrupted_body_becomes_role_error(lc, proxy, mode: str) -> None:
    """The openai client raises json.JSONDecodeError / UnicodeDecodeError for a 200 reply whose body
    is not JSON; the backend classifies them as a malformed response (TransientRoleError, retried), so
    the recorded error is a classified endpoint fault, not a bare Python exception (found by this
    test, fixed in OpenAIBackend._classify)."""
    res, _ = run_through(lc, proxy, mode)
    out = ended_with_status(res, lc.api_key)
    failed = {r: s for r, s in out["role_status"].items() if s["status"] == "failed"}
    assert failed, res.describe()
    unmapped = {r: f"{s['error']} (attempts {s['attempts']})" for r, s in failed.items()
                if not str(s["error"]).startswith(("TransientRoleError", "PermanentRoleError"))}
    if unmapped:
        raise UnmappedEndpointFault(json.dumps(unmapped, ensure_ascii=False, indent=1))


class UncountedCalls(Exception):
    """The run record counts fewer chat calls / tokens than the server answered."""


def test_failed_attempts_are_counted(lc, proxy) -> None:
    """Every chat request is capped at 2 tokens by the proxy, so the real server answers each one
    (HTTP 200, usage filled in, finish_reason=length) and every language role fails after its
    retries. Those answered calls cost tokens; the run record counts them (found by this test:
    failed attempts were missing; fixed by attaching each request's usage to the raised error)."""
    res, seen = run_through(lc, proxy, "max_tokens=2")
    out = ended_with_status(res, lc.api_key)
    assert seen and all(r.status == 200 and r.finish_reason == "length" for r in seen), seen
    server_calls = len(seen)
    server_in = sum(r.usage["prompt_tokens"] for r in seen)
    server_out = sum(r.usage["completion_tokens"] for r in seen)
    statuses = out["role_status"].values()
    recorded = (sum(s["llm_calls"] for s in statuses), sum(s["tokens_in"] for s in statuses),
                sum(s["tokens_out"] for s in statuses))
    attempts = sum(s["attempts"] for r, s in out["role_status"].items() if r in LANGUAGE_ROLES)
    print(f"\nserver answered {server_calls} calls ({server_in} in / {server_out} out tokens); run records "
          f"{recorded[0]} calls ({recorded[1]} in / {recorded[2]} out), attempts {attempts}")
    assert attempts == server_calls, "role attempts should match the chat requests the server saw"
    if recorded != (server_calls, server_in, server_out):
        raise UncountedCalls(f"server {(server_calls, server_in, server_out)} != recorded {recorded}")


# ---------------------------------------------------------------------------------------- eval


def test_eval_openai_writes_report(lc, llm_server, tmp_path) -> None:
    """``eval --backend openai --limit 2`` answers two dev items through the real server and writes
    its report. (Until commit f83fb0b this crashed building the board: ``TypeError`` on
    ``prompt_hashes``, a method passed where a dict was expected.)"""
    report = tmp_path / "eval_openai.json"
    res = lc("eval", "--backend", "openai", "--limit", "2", "--out", str(report), "--json",
             env=lc.openai_env(llm_server.base_url), timeout=400)
    assert not ("TypeError" in res.stderr and "prompt_hashes" in res.stderr), (
        "eval openai wiring (architecture issue) is back: prompt_hashes TypeError\n" + res.describe())
    _no_leaks(res, lc.api_key)
    assert res.returncode == 0, res.describe()
    assert report.is_file(), res.describe()
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["n_items"] == 2 and data["backend"] == "openai", {k: data.get(k) for k in ("n_items", "backend")}
    assert data["configs"], "the report has no configuration results"
    saved = list((Path(lc.base_env["LABOURCREW_RUNS_DIR"]) / "eval").rglob("*.json"))
    assert len(saved) >= 2, f"expected the two item runs under the private runs folder, found {saved}"
