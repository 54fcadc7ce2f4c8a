"""``python -m labourcrew doctor``: a closed port is reported (exit 1, Bangla first); no endpoint is bad input."""

from __future__ import annotations

import socket

from labourcrew.cli import main


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_closed_port_is_reported(capsys, monkeypatch):
    monkeypatch.delenv("LABOURCREW_LLM__BASE_URL", raising=False)
    code = main(["doctor", "--base-url", f"http://127.0.0.1:{_closed_port()}/v1", "--model", "m", "--timeout", "2"])
    out = capsys.readouterr().out
    assert code == 1
    assert "reachable: না / no" in out and "সার্ভারে পৌঁছানো যায়নি" in out


def test_no_endpoint_is_bad_input(capsys, monkeypatch):
    monkeypatch.delenv("LABOURCREW_LLM__BASE_URL", raising=False)
    monkeypatch.delenv("LABOURCREW_LLM__MODEL", raising=False)
    assert main(["doctor"]) == 2
    assert capsys.readouterr().err.startswith("এন্ডপয়েন্ট")
