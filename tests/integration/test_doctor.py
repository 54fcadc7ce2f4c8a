"""The endpoint doctor (labourcrew/llm/doctor.py) against the real tiny llama.cpp server of
conftest.py, a proxy in front of it that strips ``response_format``, and a closed port."""

from __future__ import annotations

import socket
import time

import pytest

from labourcrew.llm.doctor import DoctorReport, check_endpoint

pytestmark = pytest.mark.slow

UNREACHABLE = "সার্ভারে পৌঁছানো যায়নি / endpoint not reachable"


def test_real_server_is_healthy(llm_server) -> None:
    report = check_endpoint(llm_server.base_url, llm_server.model, "lc-doctor-key-0000", timeout_s=30)
    print(f"\n{report.model_dump_json(indent=1)}")
    assert isinstance(report, DoctorReport)
    assert report.reachable
    assert llm_server.model in report.models
    assert report.model_listed
    # llama.cpp enforces response_format json_schema as a grammar: even a random model complies
    assert report.json_schema_honoured, report.errors
    assert report.round_trip_s is not None and 0 < report.round_trip_s < 30
    assert report.errors == []
    assert report.ok
    assert "lc-doctor-key-0000" not in report.model_dump_json()


def test_unknown_model_is_named(llm_server) -> None:
    report = check_endpoint(llm_server.base_url + "/", "no-such-model", None, timeout_s=30)
    assert report.reachable and not report.model_listed and not report.ok
    assert report.base_url == llm_server.base_url
    assert any(e.startswith("মডেলটি তালিকায় নেই / model 'no-such-model' is not listed") for e in report.errors), report.errors


def test_ignored_json_schema_is_detected(proxy) -> None:
    """The same server and model, but a proxy drops ``response_format``: the random model's free
    text is not valid against the probe schema, and the doctor says so."""
    stripper = proxy("strip_format")
    report = check_endpoint(stripper.base_url, "tiny", None, timeout_s=30)
    assert report.reachable and report.model_listed
    assert not report.json_schema_honoured and not report.ok
    assert any(e.startswith("JSON schema মানা হয়নি / json_schema not honoured:") for e in report.errors), report.errors
    assert stripper.chat_records(), "the probe did not go through the proxy"


def test_closed_port_is_unreachable() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    started = time.perf_counter()
    report = check_endpoint(f"http://127.0.0.1:{port}/v1", "tiny", "lc-doctor-key-0000", timeout_s=5)
    elapsed = time.perf_counter() - started
    print(f"\n{report.errors}")
    assert not report.reachable and not report.ok
    assert report.models == [] and not report.model_listed and not report.json_schema_honoured
    assert report.round_trip_s is None
    assert len(report.errors) == 1 and report.errors[0].startswith(UNREACHABLE + ": "), report.errors
    assert "\n" not in report.errors[0] and "lc-doctor-key-0000" not in report.errors[0]
    assert elapsed < 5, f"a refused connection should fail fast, took {elapsed:.1f} s"


def test_bad_arguments_raise() -> None:
    with pytest.raises(ValueError, match="base_url"):
        check_endpoint("127.0.0.1:8000/v1", "tiny", None, timeout_s=1)
    with pytest.raises(ValueError, match="timeout_s"):
        check_endpoint("http://127.0.0.1:8000/v1", "tiny", None, timeout_s=0)
