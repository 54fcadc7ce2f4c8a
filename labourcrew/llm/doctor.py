"""Endpoint doctor: is an OpenAI-compatible chat endpoint usable by the ``openai`` backend?

:func:`check_endpoint` asks the endpoint three things, with ``httpx`` directly (no LangChain, no
OpenAI client, no LabourCrew settings), and returns a :class:`DoctorReport`:

1. **reachable / models** -- ``GET {base_url}/models``: does an HTTP server answer, and which model
   ids (and, for llama.cpp, aliases) does it list? ``model_listed`` says whether ``model`` is one.
2. **json_schema_honoured** -- one tiny ``POST {base_url}/chat/completions`` with
   ``response_format={"type": "json_schema", ...}`` (``strict: false``, exactly as the backend
   sends it) and ``temperature: 0``; the reply's ``message.content`` must parse as JSON and
   validate against the probe schema (two required keys, an enum and a boolean, nothing else).
   A server that enforces the schema as a grammar passes even with a nonsense model; one that
   ignores ``response_format`` passes only if its model happens to follow the instructions.
3. **round_trip_s** -- wall time of that chat call (None when no HTTP reply came back).

It never raises for endpoint trouble: every problem becomes one line in ``errors``, Bangla first,
then English, e.g. ``"সার্ভারে পৌঁছানো যায়নি / endpoint not reachable: ..."``. The API key is
sent as ``Authorization: Bearer <key>`` when given and is removed from every message.

Pure module: the ``doctor`` CLI sub-command (wired elsewhere) only prints the report.
"""

from __future__ import annotations

import json
import time
from typing import Any, Literal

import httpx
from pydantic import BaseModel, ConfigDict, Field, ValidationError, computed_field

__all__ = ["DoctorReport", "ProbeReply", "PROBE_SCHEMA", "check_endpoint"]


class ProbeReply(BaseModel):
    """What the json_schema probe asks for (its JSON Schema is :data:`PROBE_SCHEMA`)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    answer: Literal["হ্যাঁ", "না"] = Field(description="Bangla yes or no.")
    ok: bool = Field(description="Always true.")


PROBE_SCHEMA: dict[str, Any] = ProbeReply.model_json_schema()

_PROBE_SYSTEM = (
    "You check that structured output works. Reply with one JSON object and nothing else, valid "
    "against this JSON Schema: " + json.dumps(PROBE_SCHEMA, ensure_ascii=False)
)
_PROBE_USER = 'উত্তর দিন: {"answer": "হ্যাঁ", "ok": true}'
_PROBE_MAX_TOKENS = 64


class DoctorReport(BaseModel):
    """What :func:`check_endpoint` found out about one endpoint and model."""

    model_config = ConfigDict(extra="forbid")

    base_url: str = Field(description="The endpoint base URL checked (trailing slash removed).")
    model: str = Field(description="The model name checked.")
    reachable: bool = Field(default=False, description="An HTTP reply came back from the endpoint.")
    models: list[str] = Field(default_factory=list, description="Model ids (and aliases) the endpoint lists.")
    model_listed: bool = Field(default=False, description="``model`` is among ``models``.")
    json_schema_honoured: bool = Field(
        default=False, description="A json_schema request came back as JSON valid against its schema."
    )
    json_schema_reply: str | None = Field(
        default=None, description="The probe's reply content (first 300 characters), for diagnosis."
    )
    round_trip_s: float | None = Field(
        default=None, ge=0.0, description="Seconds for the json_schema probe call; None without a reply."
    )
    errors: list[str] = Field(default_factory=list, description="Problems found, Bangla first, then English.")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def ok(self) -> bool:
        """True when the endpoint is reachable, lists the model and honours json_schema."""
        return self.reachable and self.model_listed and self.json_schema_honoured and not self.errors


def _redact(text: str, api_key: str | None) -> str:
    if api_key and len(api_key) >= 4:
        text = text.replace(api_key, "[redacted]")
    return " ".join(text.split())


def _body_excerpt(resp: httpx.Response, api_key: str | None) -> str:
    try:
        text = resp.text
    except (UnicodeDecodeError, httpx.HTTPError):
        text = repr(resp.content[:200])
    return _redact(text, api_key)[:200]


def _transport_error(exc: httpx.HTTPError, what: str, timeout_s: float, api_key: str | None) -> tuple[bool, str]:
    """(reached, message) for an httpx error raised while doing ``what``."""
    detail = _redact(f"{type(exc).__name__}: {exc}", api_key)[:300]
    if isinstance(exc, httpx.ConnectTimeout):
        return False, f"সার্ভারে পৌঁছানো যায়নি / endpoint not reachable: connect timed out after {timeout_s:g} s ({what}): {detail}"
    if isinstance(exc, httpx.TimeoutException):
        return True, f"সময়সীমা পেরিয়ে গেছে / timed out after {timeout_s:g} s waiting for {what}: {detail}"
    if isinstance(exc, httpx.ConnectError | httpx.UnsupportedProtocol | httpx.LocalProtocolError):
        return False, f"সার্ভারে পৌঁছানো যায়নি / endpoint not reachable: {detail}"
    return True, f"সংযোগ বিচ্ছিন্ন হয়েছে / connection failed during {what}: {detail}"


def _status_error(resp: httpx.Response, what: str, api_key: str | None) -> str:
    code = resp.status_code
    body = _body_excerpt(resp, api_key)
    if code in (401, 403):
        return f"API কী গ্রহণ করা হয়নি / API key rejected (HTTP {code}) for {what}: {body}"
    if code == 404:
        return f"ঠিকানাটি পাওয়া যায়নি / not found (HTTP 404) for {what}; is base_url right (often ends in /v1)? {body}"
    return f"সার্ভার ত্রুটি জানিয়েছে / HTTP {code} for {what}: {body}"


def _model_names(payload: Any) -> list[str]:
    names: list[str] = []
    entries = payload.get("data") if isinstance(payload, dict) else payload
    if isinstance(entries, list):
        for entry in entries:
            if isinstance(entry, dict):
                if isinstance(entry.get("id"), str):
                    names.append(entry["id"])
                names += [a for a in entry.get("aliases") or [] if isinstance(a, str)]
            elif isinstance(entry, str):
                names.append(entry)
    return list(dict.fromkeys(names))


def _check_probe_content(content: Any) -> str | None:
    """None when the probe reply is valid, else why not (English; the caller adds the Bangla)."""
    if not isinstance(content, str) or not content.strip():
        return "the reply has no text content"
    try:
        data = json.loads(content)
    except json.JSONDecodeError as exc:
        return f"the reply is not JSON ({exc.msg} at {exc.pos})"
    try:
        ProbeReply.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(root)"
        return f"the reply does not match the schema ({exc.error_count()} error(s); first at {where}: {first['msg']})"
    return None


def check_endpoint(base_url: str, model: str, api_key: str | None, timeout_s: float) -> DoctorReport:
    """Check an OpenAI-compatible endpoint for the ``openai`` backend (see the module docstring).

    Args:
        base_url: the endpoint base URL, e.g. ``"http://127.0.0.1:8000/v1"``.
        model: the model name the backend would send.
        api_key: the API key, or None (no ``Authorization`` header is sent).
        timeout_s: timeout of each of the two HTTP requests, in seconds (> 0).

    Returns:
        A :class:`DoctorReport`; endpoint problems are in its ``errors``, never raised.

    Raises:
        ValueError: ``base_url`` is not an http(s) URL, ``model`` is empty, or ``timeout_s <= 0``
            (these are the caller's mistakes, not the endpoint's).
    """
    base = (base_url or "").strip().rstrip("/")
    if not base.startswith(("http://", "https://")):
        raise ValueError(f"base_url must start with http:// or https://, got {base_url!r}")
    if not model or not model.strip():
        raise ValueError("model must not be empty")
    if not timeout_s > 0:
        raise ValueError(f"timeout_s must be > 0, got {timeout_s!r}")
    report = DoctorReport(base_url=base, model=model)
    headers = {"Accept": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"

    with httpx.Client(timeout=httpx.Timeout(timeout_s), headers=headers, follow_redirects=False, trust_env=False) as client:
        # 1. reachable / models
        try:
            resp = client.get(f"{base}/models")
        except httpx.HTTPError as exc:
            reached, message = _transport_error(exc, "GET /models", timeout_s, api_key)
            report.reachable = reached
            report.errors.append(message)
            if not reached:
                return report
        else:
            report.reachable = True
            if resp.status_code == 200:
                try:
                    report.models = _model_names(resp.json())
                except (ValueError, UnicodeDecodeError):
                    report.errors.append(
                        "মডেলের তালিকা বোঝা যায়নি / GET /models did not return JSON: " + _body_excerpt(resp, api_key)
                    )
            else:
                report.errors.append(_status_error(resp, "GET /models", api_key))
        report.model_listed = model in report.models
        if report.models and not report.model_listed:
            shown = ", ".join(report.models[:10])
            report.errors.append(f"মডেলটি তালিকায় নেই / model {model!r} is not listed by the endpoint (listed: {shown})")

        # 2. json_schema honoured / 3. round trip
        body = {
            "model": model,
            "messages": [{"role": "system", "content": _PROBE_SYSTEM}, {"role": "user", "content": _PROBE_USER}],
            "temperature": 0,
            "max_tokens": _PROBE_MAX_TOKENS,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "doctor_probe", "schema": PROBE_SCHEMA, "strict": False},
            },
        }
        started = time.perf_counter()
        try:
            resp = client.post(f"{base}/chat/completions", json=body)
        except httpx.HTTPError as exc:
            reached, message = _transport_error(exc, "the json_schema request", timeout_s, api_key)
            report.reachable = report.reachable or reached
            report.errors.append(message)
            return report
        report.round_trip_s = round(time.perf_counter() - started, 4)
        report.reachable = True
        if resp.status_code != 200:
            report.errors.append(
                "json_schema অনুরোধ ব্যর্থ / the json_schema request failed: "
                + _status_error(resp, "POST /chat/completions", api_key)
            )
            return report
        try:
            payload = resp.json()
            message = payload["choices"][0]["message"]
        except (ValueError, UnicodeDecodeError, KeyError, IndexError, TypeError):
            report.errors.append(
                "উত্তরটি বোঝা যায়নি / the chat reply is not an OpenAI chat completion: " + _body_excerpt(resp, api_key)
            )
            return report
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            report.json_schema_reply = _redact(content, api_key)[:300]
        problem = _check_probe_content(content)
        if problem is None:
            report.json_schema_honoured = True
        else:
            report.errors.append(f"JSON schema মানা হয়নি / json_schema not honoured: {problem}")
    return report
