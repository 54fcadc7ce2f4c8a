"""Prompt files of the language roles: one loader, validated placeholders, a hash per template.

Every language role (paper App. D) has one Markdown file ``prompts/<role>.md``, named by
:class:`~labourcrew.ledger.roles.Role`. A file is split at a line holding only ``<!-- user -->``:

* the part above is the **system** message -- the role's instructions. It may hold no
  placeholders, so nothing a user typed can ever sit among the instructions (the question is
  data, not instructions);
* the part below is the **user** message -- the role's input, with placeholders.

A placeholder is ``{field}`` where ``field`` is a field of the role's input model
(:data:`ROLE_INPUTS`); any other brace (a JSON example) is literal text, so nothing needs
escaping. At load time every placeholder must name a field of the input model and every field must
be used (a field the template forgets is input the model never sees): either mistake is a
:class:`~labourcrew.errors.ConfigError`.

Values are rendered into plain text by :func:`render_value`: the Evidence Pack as one block per
unit (``[node_id]`` header then the verbatim text), claims as one JSON object per line, lists as
bullets, empty values as ``(none)``. The fence tags the templates use (``<question>`` ...) are
stripped from inserted values so a question cannot close its own fence.

Each :class:`PromptTemplate` carries ``sha256``, the hex digest of the template text as read
(UTF-8, universal newlines), which every run records (``prompt_hashes``).

Errors:
    ConfigError: a prompt file is missing or unreadable, has an unknown/missing placeholder, or
        puts a placeholder in the system part.
    InputError: :meth:`PromptTemplate.render` got a mapping that is not a valid role input.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from labourcrew.errors import ConfigError, InputError
from labourcrew.ledger.records import Claim, EvidencePack
from labourcrew.ledger.roles import (
    LANGUAGE_ROLES,
    AuditBatchInput,
    CounselInput,
    InterpreterInput,
    Role,
)
from labourcrew.settings import REPO_ROOT

__all__ = [
    "PROMPTS_DIR",
    "USER_MARKER",
    "IssueSpotterInput",
    "ROLE_INPUTS",
    "PromptTemplate",
    "RenderedPrompt",
    "placeholders",
    "load_prompt",
    "render_prompt",
    "render_value",
    "prompt_hashes",
]

logger = logging.getLogger(__name__)

PROMPTS_DIR: Path = REPO_ROOT / "prompts"
USER_MARKER = "<!-- user -->"
EMPTY = "(none)"

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_MARKER = re.compile(r"^[ \t]*<!--\s*user\s*-->[ \t]*$", re.MULTILINE)
# Fence tags used by the templates; removed from inserted values (see module docstring).
_FENCE = re.compile(
    r"</?\s*(?:question|evidence|claims?|other_claims|cited_texts|issues|facts|unit)\b[^>]*>",
    re.IGNORECASE,
)


class IssueSpotterInput(BaseModel):
    """What the Issue Spotter sees: the question only (paper §3.3)."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(description="The user's question, verbatim.")


ROLE_INPUTS: dict[Role, type[BaseModel]] = {
    Role.ISSUE_SPOTTER: IssueSpotterInput,
    Role.WORKER_COUNSEL: CounselInput,
    Role.EMPLOYER_COUNSEL: CounselInput,
    Role.LEGAL_INTERPRETER: InterpreterInput,
    Role.TRUST_AUDITOR: AuditBatchInput,  # every claim of a round; one claim for the per-claim fallback
}


@dataclass(frozen=True)
class RenderedPrompt:
    """A prompt ready to send.

    Attributes:
        role: the role it belongs to.
        system: the system message (instructions; no user data).
        user: the user message (the rendered input).
        sha256: hex digest of the *template* (not of the rendered text), for run records.
    """

    role: Role
    system: str
    user: str
    sha256: str

    @property
    def text(self) -> str:
        """System and user parts joined (for inspection and tests)."""
        return f"{self.system}\n\n{self.user}" if self.system else self.user


@dataclass(frozen=True)
class PromptTemplate:
    """A validated prompt file of one role.

    Attributes:
        role: the role.
        path: the file it was read from.
        system: the system part (verbatim; no placeholders).
        user: the user part with ``{field}`` placeholders.
        fields: the placeholders used (all fields of the role's input model).
        sha256: hex digest (64 chars) of the template text.
    """

    role: Role
    path: Path
    system: str
    user: str
    fields: frozenset[str]
    sha256: str

    def render(self, inp: BaseModel | Mapping[str, Any]) -> RenderedPrompt:
        """Fill the placeholders from a role input.

        Args:
            inp: an instance of ``ROLE_INPUTS[role]`` or a mapping validated into it.

        Returns:
            The rendered prompt; inserted values are never re-scanned for placeholders.

        Raises:
            InputError: a mapping that does not validate as the role's input.
            TypeError: an input model of another role.
        """
        model = ROLE_INPUTS[self.role]
        if isinstance(inp, Mapping):
            try:
                inp = model.model_validate(dict(inp))
            except ValidationError as exc:
                raise InputError(f"invalid input for role {self.role}: {exc.error_count()} error(s)") from exc
        if not isinstance(inp, model):
            raise TypeError(f"role {self.role} takes {model.__name__}, got {type(inp).__name__}")
        values = {name: render_value(getattr(inp, name)) for name in self.fields}
        user = _PLACEHOLDER.sub(lambda m: values[m.group(1)], self.user)
        return RenderedPrompt(role=self.role, system=self.system, user=user, sha256=self.sha256)


def placeholders(text: str) -> list[str]:
    """Placeholder names in ``text``, in order of first appearance."""
    return list(dict.fromkeys(_PLACEHOLDER.findall(text)))


def _parse(role: Role, path: Path, text: str) -> PromptTemplate:
    model = ROLE_INPUTS[role]
    where = path.name
    parts = _MARKER.split(text)
    if len(parts) > 2:
        raise ConfigError(f"{where}: the '{USER_MARKER}' line occurs {len(parts) - 1} times; use it once")
    marker = len(parts) == 2
    system, user = (parts[0].strip(), parts[1].strip()) if marker else ("", text.strip())
    if not user:
        raise ConfigError(f"{where}: the user part is empty")
    if marker and placeholders(system):
        raise ConfigError(
            f"{where}: placeholders {placeholders(system)} are in the system part",
            help_message=f"Move them below the '{USER_MARKER}' line; user data never goes into instructions.",
        )
    used = placeholders(user)
    known = set(model.model_fields)
    unknown = [p for p in used if p not in known]
    missing = sorted(known - set(used))
    if unknown or missing:
        problems = []
        if unknown:
            problems.append(f"unknown placeholder(s) {unknown}")
        if missing:
            problems.append(f"missing placeholder(s) {missing}")
        raise ConfigError(
            f"{where}: {'; '.join(problems)} for role {role} ({model.__name__})",
            help_message=f"Placeholders of {where} must be exactly the fields of {model.__name__}: {sorted(known)}.",
        )
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return PromptTemplate(
        role=role, path=path, system=system, user=user, fields=frozenset(used), sha256=digest
    )


@lru_cache(maxsize=64)
def _load(role: Role, path: Path, mtime_ns: int) -> PromptTemplate:
    # mtime in the key so an edited prompt is re-read (the Streamlit app is long-lived).
    text = path.read_text(encoding="utf-8")
    template = _parse(role, path, text)
    logger.debug("prompt %s loaded: sha256=%s", role, template.sha256[:12])
    return template


def load_prompt(role: Role | str, prompts_dir: Path | None = None) -> PromptTemplate:
    """Load and validate ``<prompts_dir>/<role>.md`` (cached until the file changes).

    Args:
        role: a language role (:data:`~labourcrew.ledger.roles.LANGUAGE_ROLES`) or its name.
        prompts_dir: folder of the prompt files; default :data:`PROMPTS_DIR`.

    Returns:
        The validated :class:`PromptTemplate`.

    Raises:
        ConfigError: unknown or non-language role, missing/unreadable file, bad placeholders.
    """
    try:
        role = Role(str(role))
    except ValueError:
        raise ConfigError(f"unknown role {role!r}") from None
    if role not in ROLE_INPUTS:
        raise ConfigError(f"role {role} has no prompt: it is deterministic")
    path = (prompts_dir or PROMPTS_DIR) / f"{role.value}.md"
    try:
        mtime = path.stat().st_mtime_ns
        return _load(role, path.resolve(), mtime)
    except FileNotFoundError:
        raise ConfigError(
            f"prompt file missing: {path}", help_message="Restore prompts/<role>.md from git."
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read prompt file {path}: {exc}") from exc


def render_prompt(role: Role | str, inp: BaseModel | Mapping[str, Any], prompts_dir: Path | None = None) -> RenderedPrompt:
    """``load_prompt(role, prompts_dir).render(inp)``."""
    return load_prompt(role, prompts_dir).render(inp)


def prompt_hashes(roles: Iterable[Role] = LANGUAGE_ROLES, prompts_dir: Path | None = None) -> dict[str, str]:
    """Template sha256 per role name, for the run record.

    Raises:
        ConfigError: as :func:`load_prompt`.
    """
    return {str(r): load_prompt(r, prompts_dir).sha256 for r in roles}


# ---------------------------------------------------------------- rendering values


def _defang(text: str) -> str:
    return _FENCE.sub("", text)


def _format_pack(pack: EvidencePack) -> str:
    if not pack.items:
        return EMPTY
    blocks = []
    for item in pack.items:
        where = f"section {item.section}" if item.section else "chapter"
        how = "+".join(item.channels)
        if item.hop_depth:
            how += f", reached via {item.via} (hop {item.hop_depth})"
        blocks.append(f"[{item.node_id}] ({where}, {item.level.value}; {how})\n{_defang(item.text)}")
    return "\n\n".join(blocks)


def _claim_dict(claim: Claim) -> dict[str, Any]:
    return {
        "claim_id": claim.claim_id,
        "side": claim.side.value,
        "text": _defang(claim.text),
        "citations": [{"node_id": r.node_id, "span": _defang(r.span)} for r in claim.evidence],
        "challenge_to": claim.challenge_to,
        "confidence": claim.confidence,
    }


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=False)


def render_value(value: Any) -> str:
    """Plain-text rendering of one input field (see the module docstring for the formats).

    Args:
        value: a field value of a role input model.

    Returns:
        Text to insert in place of the placeholder; ``(none)`` for an empty value.
    """
    if value is None:
        return EMPTY
    if isinstance(value, EvidencePack):
        return _format_pack(value)
    if isinstance(value, Claim):
        return _json(_claim_dict(value))
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, str):
        return _defang(value) if value.strip() else EMPTY
    if isinstance(value, bool | int | float):
        return str(value)
    if isinstance(value, Mapping):
        if not value:
            return EMPTY
        # node_id -> verbatim text (AuditBatchInput.cited_texts) reads best as unit blocks.
        return "\n\n".join(f"[{k}]\n{_defang(str(v))}" for k, v in value.items())
    if isinstance(value, list | tuple):
        if not value:
            return EMPTY
        if all(isinstance(v, Claim) for v in value):
            return "\n".join(_json(_claim_dict(c)) for c in value)
        return "\n".join(f"- {render_value(v)}" for v in value)
    if isinstance(value, BaseModel):
        return _defang(value.model_dump_json())
    return _defang(str(value))
