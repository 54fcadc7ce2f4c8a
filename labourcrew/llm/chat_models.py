"""Chat-model factory for the ``openai`` backend: ``langchain-openai`` ``ChatOpenAI`` from settings.

One function, :func:`make_chat_model`, builds the client for one role from
:class:`~labourcrew.settings.LLMSettings`: ``base_url`` (any OpenAI-compatible endpoint: OpenAI,
vLLM, llama.cpp server, Ollama), the role's model (:meth:`LLMSettings.model_for`), temperature,
timeout, and ``max_retries=0`` -- retries belong to the board's ``RetryPolicy``, so a transient
failure reaches the Supervisor instead of being retried invisibly inside the client.

The client always speaks the Chat Completions API (``use_responses_api=False``): it is the one
every OpenAI-compatible server implements.

The API key. It stays a :class:`~pydantic.SecretStr` until it is handed to the client (whose own
repr masks it); it is never logged, hashed or put into an exception message. When no key is set:
``OPENAI_API_KEY`` from the environment is used if present; otherwise a local endpoint
(``base_url`` set) gets the placeholder key ``"EMPTY"`` (vLLM's convention; local servers ignore
it), and the default OpenAI endpoint is a :class:`~labourcrew.errors.ConfigError`.

:func:`redact` removes a secret (and anything shaped like an OpenAI key) from text; the backend
runs every error message through it.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING

from pydantic import SecretStr

from labourcrew.errors import ConfigError
from labourcrew.settings import LLMSettings, environ

if TYPE_CHECKING:  # langchain-openai is imported inside the factory so the app starts fast
    from langchain_openai import ChatOpenAI

__all__ = ["LOCAL_PLACEHOLDER_KEY", "make_chat_model", "resolve_api_key", "redact"]

logger = logging.getLogger(__name__)

LOCAL_PLACEHOLDER_KEY = "EMPTY"
# OpenAI-style keys (sk-..., sk-proj-...), also the masked forms servers echo back (sk-ab***yz).
_KEYLIKE = re.compile(r"\bsk-[A-Za-z0-9_\-*]{4,}")


def resolve_api_key(llm: LLMSettings) -> SecretStr:
    """The key to send: settings, else ``OPENAI_API_KEY``, else a placeholder for local servers.

    Raises:
        ConfigError: no key anywhere and ``base_url`` is the default (OpenAI) endpoint.
    """
    if llm.api_key is not None and llm.api_key.get_secret_value().strip():
        return llm.api_key
    env = environ("OPENAI_API_KEY")
    if env:
        return SecretStr(env)
    if llm.base_url is not None:
        return SecretStr(LOCAL_PLACEHOLDER_KEY)
    raise ConfigError(
        "no API key for the OpenAI endpoint",
        help_message=(
            "Set LABOURCREW_LLM__API_KEY (or OPENAI_API_KEY), or point LABOURCREW_LLM__BASE_URL "
            "at a local OpenAI-compatible server."
        ),
    )


def make_chat_model(llm: LLMSettings, role: str) -> ChatOpenAI:
    """Build the ``ChatOpenAI`` client one board role talks to.

    Args:
        llm: the ``llm`` settings group.
        role: role name (a :class:`~labourcrew.ledger.roles.Role` value); picks the model through
            ``llm.model_for(role)``.

    Returns:
        A ``ChatOpenAI`` with ``temperature=llm.temperature``, ``timeout=llm.timeout_s``
        (seconds), ``max_retries=0`` and the Chat Completions API.

    Raises:
        ConfigError: no model configured for the role, or no API key (see :func:`resolve_api_key`).
    """
    model = llm.model_for(str(role))
    if not model:
        raise ConfigError(
            f"no model configured for role {role}",
            help_message="Set LABOURCREW_LLM__MODEL (or llm.role_models in the preset).",
        )
    from langchain_openai import ChatOpenAI

    client = ChatOpenAI(
        model=model,
        base_url=llm.base_url,
        api_key=resolve_api_key(llm),
        temperature=llm.temperature,
        timeout=llm.timeout_s,
        max_retries=0,
        use_responses_api=False,
    )
    logger.debug("chat model for %s: %s at %s", role, model, llm.base_url or "default endpoint")
    return client


def redact(text: str, *secrets: SecretStr | str | None) -> str:
    """``text`` with every given secret and every OpenAI-shaped key replaced by ``[redacted]``.

    Args:
        text: any message (exception text, server error body).
        *secrets: secrets to remove (``None`` and empty ones are ignored).
    """
    for secret in secrets:
        value = secret.get_secret_value() if isinstance(secret, SecretStr) else secret
        if value and len(value) >= 4:
            text = text.replace(value, "[redacted]")
    return _KEYLIKE.sub("[redacted]", text)
