"""``python -m labourcrew doctor``: check an OpenAI-compatible endpoint before pointing the board at it.

Reads the endpoint from the settings (``LABOURCREW_LLM__BASE_URL``, ``LABOURCREW_LLM__MODEL``,
``LABOURCREW_LLM__API_KEY``, ``LABOURCREW_LLM__TIMEOUT_S``) unless ``--base-url`` / ``--model`` are
given, and prints whether it is reachable, lists the model, honours ``response_format`` json_schema,
and one round-trip time (:func:`labourcrew.llm.doctor.check_endpoint`). Exit 0 when all hold, 1 when
the endpoint answers but something is missing, 2 on bad input.
"""

from __future__ import annotations

import argparse
import json

from labourcrew.errors import InputError

__all__ = ["register", "cmd_doctor"]


def cmd_doctor(a: argparse.Namespace) -> int:
    """Run the endpoint check and print its report."""
    from labourcrew.llm.doctor import check_endpoint
    from labourcrew.settings import load_settings

    llm = load_settings().llm
    base_url = a.base_url or (str(llm.base_url) if llm.base_url else None)
    model = a.model or llm.model
    if not base_url or not model:
        raise InputError(
            "এন্ডপয়েন্ট বা মডেল দেওয়া হয়নি — no endpoint or model: give --base-url and --model "
            "(or set LABOURCREW_LLM__BASE_URL and LABOURCREW_LLM__MODEL)"
        )
    key = llm.api_key.get_secret_value() if llm.api_key is not None else None
    report = check_endpoint(base_url, model, key, a.timeout or llm.timeout_s)
    if a.json:
        print(json.dumps(report.model_dump(mode="json"), ensure_ascii=False))
    else:
        mark = {True: "হ্যাঁ / yes", False: "না / no"}
        print(f"endpoint {report.base_url}  model {report.model}")
        print(f"  পৌঁছানো যায় / reachable: {mark[report.reachable]}")
        print(f"  মডেল তালিকায় / model listed: {mark[report.model_listed]}")
        print(f"  json_schema মানে / honoured: {mark[report.json_schema_honoured]}")
        if report.round_trip_s is not None:
            print(f"  এক বার আসা-যাওয়া / one round trip: {report.round_trip_s:.1f} s")
        for e in report.errors:
            print(f"  - {e}")
    return 0 if report.ok else 1


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``doctor`` sub-command."""
    p = sub.add_parser("doctor", help="check an OpenAI-compatible endpoint (reachable, model, json_schema, latency)")
    p.add_argument("--base-url", help="e.g. http://127.0.0.1:11434/v1 (default: settings)")
    p.add_argument("--model", help="model name (default: settings)")
    p.add_argument("--timeout", type=float, help="seconds per request (default: LABOURCREW_LLM__TIMEOUT_S)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_doctor)
