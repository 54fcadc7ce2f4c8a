"""What every metric reads (:class:`EvalRun`) and how scores add up (:class:`Ratio`).

The metrics are judge-free and read only the runs (paper B.6). A board run
(:class:`~labourcrew.board.run.AskResult`) or a baseline's output is first reduced, by
:mod:`labourcrew.eval.adapter`, to an :class:`EvalRun`: the facts a metric may look at (pack,
claims, citations and their checks, status, timings, the item's gold citations). Metric cores are
pure functions of one :class:`EvalRun`; nothing here imports the board, the retriever or a model.

**Scores are ratios.** Each metric scores a run as a :class:`Ratio` ``(num, den)``: per-question
metrics give ``(value, 1)``; metrics over claims or citations give counts (``(verified, cited)``).
A run the metric does not apply to gives ``den = 0`` (e.g. citation precision of a run that
released nothing). A group of runs scores ``Σ num / Σ den``, **NaN when Σ den = 0** -- undefined,
never 0. ``Σ den`` is the column's *support* (N), stored with every row, so the support-weighted
average of the category rows equals the overall row exactly, column by column (NaN categories,
whose support is 0, drop out). For per-question metrics defined on every item the support is the
item count.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from labourcrew.statute.ids import is_section_label, label_within, section_of_label

__all__ = [
    "Ratio",
    "PackEntry",
    "EvalCitation",
    "EvalClaim",
    "EvalRun",
    "Metric",
    "PerRunMetric",
    "gold_matches",
    "nan_if_empty",
]

ReleaseLiteral = Literal["TGLO", "DEGRADED", "UNDECIDED"]


class Ratio(BaseModel):
    """A metric's score on one run or a group: ``num / den``; undefined (NaN) when ``den == 0``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    num: float = Field(default=0.0, description="Numerator (sum of per-unit values).")
    den: float = Field(default=0.0, ge=0.0, description="Denominator: how many units were scored (support).")

    @property
    def value(self) -> float:
        """``num / den``, NaN when ``den == 0``."""
        return self.num / self.den if self.den > 0 else math.nan

    def __add__(self, other: Ratio) -> Ratio:
        return Ratio(num=self.num + other.num, den=self.den + other.den)

    @classmethod
    def of(cls, value: float | None) -> Ratio:
        """A per-run value (weight 1); None or NaN gives the undefined ratio ``(0, 0)``."""
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return cls()
        return cls(num=float(value), den=1.0)

    @classmethod
    def total(cls, ratios: Iterable[Ratio]) -> Ratio:
        """Sum of ratios (numerators and denominators added)."""
        num = den = 0.0
        for r in ratios:
            num += r.num
            den += r.den
        return cls(num=num, den=den)


UNDEFINED = Ratio()


# ---------------------------------------------------------------- the run as metrics see it


class PackEntry(BaseModel):
    """One unit on the Evidence Pack."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    node_id: str = Field(description="Node id (a StatuteGraph id, or a chunk id in chunking ablations).")
    label: str = Field(description="ASCII label, e.g. '27(1)'; the chunk id's tail for non-structural chunks.")
    sections: list[str] = Field(description="ASCII section labels the unit lies in or covers (several for chunks).")
    container: bool = Field(
        default=False,
        description="True when the unit holds whole sections or cuts across them (chapter, section text, window).",
    )
    hop_depth: int = Field(default=0, ge=0, description="Link Hopper depth (0: retrieved directly).")


class EvalCitation(BaseModel):
    """One citation of a claim, with every check the metrics need."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    node_id: str = Field(description="Cited node id.")
    label: str = Field(description="Cited unit's label ('' when the node is unknown).")
    sections: list[str] = Field(description="Section labels the cited unit lies in or covers.")
    container: bool = Field(default=False, description="As PackEntry.container.")
    on_pack: bool = Field(description="The cited node is on the run's Evidence Pack (the ledger).")
    checker_ok: bool | None = Field(
        description="Citation Checker outcome as the run recorded it (node on the pack, span verbatim); "
        "None if not run."
    )
    statute_ok: bool = Field(
        description="Independent re-check: the node exists in the statute and the span occurs verbatim "
        "(normalised) in its text."
    )
    linked: list[str] = Field(
        default_factory=list,
        description=(
            "Node ids the cited unit needs on the pack (retrieval.link_hopper.required_links: its provisos and "
            "resolved cross-references, chapter units excluded)."
        ),
    )


class EvalClaim(BaseModel):
    """One claim of a run."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    claim_id: str = Field(description="Claim id within the run.")
    side: str = Field(description="worker, employer or interpreter (baselines: 'rag' or a side).")
    challenge_to: str | None = Field(default=None, description="Claim this one challenges.")
    accepted: bool = Field(description="Released in the answer (configurations without a gate: every claim).")
    verdict: Literal["SUPPORT", "REFUTE", "NEI"] | None = Field(default=None, description="Trust Auditor verdict.")
    direction: Literal["missing_condition", "extra_condition"] | None = Field(
        default=None, description="How a not-supported claim departs from its evidence."
    )
    trust_score: float | None = Field(default=None, description="Composite trust score (None without a gate).")
    citations: list[EvalCitation] = Field(description="The claim's citations.")
    human_label: Literal["faithful", "unfaithful", "unsure"] | None = Field(
        default=None, description="Annotation-store label of this claim, when one exists."
    )


class EvalRun(BaseModel):
    """One item answered under one configuration, reduced to what the metrics read."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    item_id: str = Field(description="Dev-set item id.")
    category: str = Field(description="Item category.")
    tier: int = Field(ge=1, le=3, description="Item difficulty tier.")
    gold_sections: list[str] = Field(default_factory=list, description="Gold ASCII labels of the item.")
    answerable: bool = Field(description="The Act settles the question (every category but 'unanswerable').")
    config: str = Field(description="Configuration name.")
    run_id: str = Field(default="", description="Run id (board runs) or '' for baselines.")
    has_gate: bool = Field(description="The configuration has a Trust Gate (release status defined).")
    status: ReleaseLiteral | None = Field(description="Release status; None without a gate or when the run halted.")
    halted: bool = Field(
        default=False, description="The run ended without an answer of its own (crash, halt on failure, gate failure)."
    )
    failed_roles: list[str] = Field(default_factory=list, description="Roles that failed irrecoverably.")
    retried_roles: int = Field(default=0, ge=0, description="Role invocations that succeeded only after a retry.")
    latency_s: float | None = Field(default=None, description="Wall-clock seconds of the run.")
    retrieval_rounds: int | None = Field(default=None, description="Retrieval rounds (1 + re-entries).")
    deliberation_rounds: int | None = Field(default=None, description="Counsel rounds in the last retrieval round.")
    llm_calls: int | None = Field(default=None, description="Chat-model calls over the run.")
    sequential_llm_calls: int | None = Field(default=None, description="Chat-model calls on the critical path.")
    pack: list[PackEntry] = Field(default_factory=list, description="The Evidence Pack, best first.")
    claims: list[EvalClaim] = Field(default_factory=list, description="Every claim (answer claims: accepted ones).")
    coverage_share: float | None = Field(
        default=None, description="Share of the primary issue covered by the released claims (Trust Gate coverage)."
    )
    premise_errors: list[str] = Field(default_factory=list, description="Premise problems the run found.")

    def released(self) -> list[EvalClaim]:
        """Claims in the answer (accepted; a halted run released nothing)."""
        if self.halted:
            return []
        return [c for c in self.claims if c.accepted]

    def pack_ids(self) -> frozenset[str]:
        """Node ids on the pack."""
        return frozenset(p.node_id for p in self.pack)


# ---------------------------------------------------------------- gold matching


def gold_matches(gold: str, label: str, sections: Sequence[str], container: bool) -> bool:
    """Whether a unit (``label`` within ``sections``) counts as finding the gold label ``gold``.

    The rule of the retrieval benchmark (:func:`labourcrew.eval.bench_retrieval.gold_found`),
    extended to chunks: a gold *section* (``27``) is found by any unit of that section; a gold
    *sub-unit* (``27(3A)``) by that unit, one of its descendants, its section's header unit, or a
    container (whole section, chapter, window) covering the section.
    """
    sec = section_of_label(gold)
    if is_section_label(gold):
        return gold in sections
    if container:
        return sec in sections
    if label_within(label, gold):
        return True
    return label == sec  # the section header unit


def nan_if_empty(values: Sequence[float]) -> float:
    """Mean of ``values``; NaN for an empty sequence."""
    return math.fsum(values) / len(values) if values else math.nan


# ---------------------------------------------------------------- metric classes


class Metric(ABC):
    """A metric: a name, a description and a pure scoring core over one run.

    Subclasses set :attr:`name` (the results column) and :attr:`description`, and implement
    :meth:`score`. Aggregation is always :meth:`Ratio.total` (module docstring).
    """

    name: ClassVar[str]
    description: ClassVar[str]
    unit: ClassVar[str] = "question"  # what one unit of support is: question, claim, citation, link, pair

    @abstractmethod
    def score(self, run: EvalRun) -> Ratio:
        """The run's score; ``Ratio()`` (den 0) when the metric does not apply to the run."""

    def aggregate(self, runs: Iterable[EvalRun]) -> Ratio:
        """Sum of the runs' scores."""
        return Ratio.total(self.score(r) for r in runs)

    def __call__(self, runs: Iterable[EvalRun]) -> float:
        """The group value (NaN when undefined)."""
        return self.aggregate(runs).value


class PerRunMetric(Metric):
    """A metric with one value per run (weight 1): implement :meth:`value` (None = undefined)."""

    @abstractmethod
    def value(self, run: EvalRun) -> float | None:
        """The run's value, or None when the metric does not apply."""

    def score(self, run: EvalRun) -> Ratio:
        return Ratio.of(self.value(run))
