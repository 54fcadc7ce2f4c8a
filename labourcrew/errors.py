"""One error tree for LabourCrew.

    LabourCrewError                 base; carries ``retryable`` and ``help_message``
    ├── InputError                  bad user input (unknown section/version, empty or oversized text)
    ├── ConfigError                 bad or missing settings (model path, endpoint, preset)
    ├── DataError                   statute/eval data missing or malformed
    ├── IndexNotBuiltError          the vector index is missing; run ``python -m labourcrew index build``
    ├── EvidenceError               Evidence Exchange Protocol violation (off-ledger citation)
    └── RoleError                   a board role failed
        ├── TransientRoleError      retryable: timeout, rate limit, malformed model output
        └── PermanentRoleError      not retryable: refusal, schema never satisfied

Callers show ``help_message`` to people; the CLI maps ``InputError`` to exit code 2.
"""

from __future__ import annotations

__all__ = [
    "LabourCrewError",
    "InputError",
    "ConfigError",
    "DataError",
    "IndexNotBuiltError",
    "EvidenceError",
    "RoleError",
    "TransientRoleError",
    "PermanentRoleError",
]


class LabourCrewError(Exception):
    """Base error. ``retryable`` tells the Supervisor whether a retry may help."""

    retryable: bool = False
    default_help = "See the README for usage."

    def __init__(self, message: str, *, help_message: str | None = None, retryable: bool | None = None):
        super().__init__(message)
        self.help_message = help_message or self.default_help
        if retryable is not None:
            self.retryable = retryable


class InputError(LabourCrewError):
    default_help = "Check the question, section number or version you gave."


class ConfigError(LabourCrewError):
    default_help = "Check your LABOURCREW_* settings or the preset file."


class DataError(LabourCrewError):
    default_help = "The data under data/ is missing or damaged; restore it from git."


class IndexNotBuiltError(LabourCrewError):
    default_help = "Build the index first: python -m labourcrew index build"


class EvidenceError(LabourCrewError):
    default_help = "A claim may only cite node ids already on the Formal Case Ledger."


class RoleError(LabourCrewError):
    default_help = "A board role failed; the Supervisor records it in role_status."


class TransientRoleError(RoleError):
    retryable = True


class PermanentRoleError(RoleError):
    retryable = False
