"""Fault injection for any :class:`~labourcrew.ledger.roles.RoleBackend` (``LABOURCREW_FAULT_RATE``).

:class:`FaultInjectingBackend` wraps a backend; each role call fails with probability ``rate``, in
one of three ways chosen at random:

* ``exception`` -- raises :class:`~labourcrew.errors.TransientRoleError` (a dropped connection);
* ``timeout`` -- waits ``timeout_s`` then raises :class:`~labourcrew.errors.TransientRoleError`
  (a request that timed out);
* ``malformed`` -- returns a truncated JSON string instead of the role's output model (the board
  must detect it and treat it as a transient failure).

The draws are deterministic for a given seed **and independent of thread scheduling**: the n-th
call with a given (method, input) pair always gets the same fate, whatever the other parallel
calls do. Every injected fault is recorded in :attr:`FaultInjectingBackend.events`.
"""

from __future__ import annotations

import hashlib
import logging
import random
import threading
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from labourcrew.errors import InputError, TransientRoleError
from labourcrew.ledger.roles import (
    BackendWrapper,
    CallUsage,
    RoleBackend,
)

__all__ = ["FaultKind", "FAULT_KINDS", "FaultEvent", "FaultInjectingBackend"]

logger = logging.getLogger(__name__)

FaultKind = Literal["exception", "timeout", "malformed"]
FAULT_KINDS: tuple[FaultKind, ...] = ("exception", "timeout", "malformed")


class FaultEvent(BaseModel):
    """One injected fault."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    method: str = Field(description="Backend method, e.g. 'counsel'.")
    kind: FaultKind = Field(description="exception, timeout or malformed.")
    key: str = Field(description="Short hash of the call's input.")
    n: int = Field(ge=0, description="How many earlier calls had the same method and input.")


def _input_key(payload: Any) -> str:
    if isinstance(payload, BaseModel):
        blob = payload.model_dump_json()
    else:
        blob = repr(payload)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


class FaultInjectingBackend(BackendWrapper):
    """Wraps ``inner`` and makes its calls fail at ``rate`` (module docstring).

    Args:
        inner: the backend to wrap.
        rate: failure probability per call, in [0, 1].
        seed: seed of the draws.
        kinds: fault kinds to choose from (uniformly).
        timeout_s: how long a simulated timeout waits before raising (seconds).

    Raises:
        InputError: rate outside [0, 1] or no fault kind.
    """

    def __init__(
        self,
        inner: RoleBackend,
        rate: float,
        seed: int = 0,
        *,
        kinds: Sequence[FaultKind] = FAULT_KINDS,
        timeout_s: float = 0.002,
    ) -> None:
        if not 0.0 <= rate <= 1.0:
            raise InputError(f"fault rate must be in [0, 1], got {rate}")
        if not kinds:
            raise InputError("at least one fault kind is needed")
        super().__init__(inner)
        self.rate = rate
        self.seed = seed
        self.kinds = tuple(kinds)
        self.timeout_s = timeout_s
        self.events: list[FaultEvent] = []
        self.calls = 0
        self._seen: Counter[tuple[str, str]] = Counter()
        self._lock = threading.Lock()

    def _draw(self, method: str, payload: Any) -> FaultKind | None:
        key = _input_key(payload)
        with self._lock:
            n = self._seen[(method, key)]
            self._seen[(method, key)] += 1
            self.calls += 1
        rng = random.Random(f"{self.seed}:{method}:{key}:{n}")
        if rng.random() >= self.rate:
            return None
        kind = self.kinds[rng.randrange(len(self.kinds))]
        with self._lock:
            self.events.append(FaultEvent(method=method, kind=kind, key=key, n=n))
        logger.info("injected %s fault into %s", kind, method)
        return kind

    def _fail(self, method: str, kind: FaultKind) -> str:
        if kind == "exception":
            raise TransientRoleError(f"injected fault: {method} call failed (connection reset)")
        if kind == "timeout":
            time.sleep(self.timeout_s)
            raise TransientRoleError(f"injected fault: {method} call timed out after {self.timeout_s:g} s")
        return '{"claims": [{"text": "'  # malformed: truncated JSON

    def _usage(self) -> CallUsage:
        return CallUsage(backend=self.name, llm_calls=0)

    def _call(self, method: str, inp: Any) -> tuple[Any, CallUsage]:
        kind = self._draw(method, inp)
        if kind is not None:
            return self._fail(method, kind), self._usage()
        return super()._call(method, inp)

    def counts(self) -> dict[str, int]:
        """Injected faults per kind (and ``calls``: all calls seen)."""
        with self._lock:
            out = dict(Counter(e.kind for e in self.events))
            out["calls"] = self.calls
        return out
