"""Records of the retrieval phase that cross into later phases (paper §3.3, B.2).

:class:`QuestionType` (the Issue Spotter's types, keys of the retrieval ceilings), the Issue
Spotter's :class:`IssueSpotting`, the Retrieval Planner's :class:`RetrievalPlan` and a later role's
:class:`PlannerRequest` for more evidence (clamped by the ceilings before it runs).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from labourcrew.statute.model import EdgeType

__all__ = ["QuestionType", "Language", "Register", "IssueSpotting", "RetrievalPlan", "PlannerRequest"]


class QuestionType(StrEnum):
    """Question types the Issue Spotter assigns; each has its own retrieval ceilings (paper B.2)."""

    DIRECT_FACTUAL = "direct_factual"
    DEFINITIONAL = "definitional"
    PROCEDURAL = "procedural"
    CONDITIONAL = "conditional"
    HYPOTHETICAL = "hypothetical"
    COMPARATIVE = "comparative"
    MULTI_HOP = "multi_hop"


Language = Literal["bn", "en", "bn-latn", "mixed"]


Register = Literal["formal", "colloquial", "noisy"]


class IssueSpotting(BaseModel):
    """What the Issue Spotter found in a question (paper §3.3)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    question: str = Field(description="The question as given (whitespace collapsed, NFC).")
    question_type: QuestionType = Field(description="One of the 7 question types (paper B.2).")
    language: Language = Field(description="bn, en, bn-latn (romanised Bangla) or mixed.")
    text_register: Register = Field(description="Register of the question: formal, colloquial or noisy.")
    section_labels: list[str] = Field(
        default_factory=list, description="ASCII labels of the sections the question names, e.g. ['27(3A)']."
    )
    concepts: list[str] = Field(default_factory=list, description="Keys of CONCEPTS found, in table order.")
    concept_terms: list[str] = Field(
        default_factory=list, description="The Act's Bangla wording of those concepts (query expansion)."
    )
    sub_questions: list[str] = Field(
        default_factory=list, description="Parts of a comparative/multi-hop question (empty otherwise)."
    )
    cues: list[str] = Field(default_factory=list, description="Cue words that fired, for inspection.")
    parts: list[str] = Field(
        default_factory=list,
        description="Parts of a multi-part question (each asks something on its own); empty for a one-part question.",
    )
    injection: list[str] = Field(
        default_factory=list,
        description="Instruction-like text (prompt injection) found in the question; ignored for answering.",
    )


class RetrievalPlan(BaseModel):
    """What the Statute Retriever and the Link Hopper will do for one question."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    question_type: QuestionType = Field(description="Question type whose ceilings apply.")
    queries: list[str] = Field(default_factory=list, description="Sub-queries, each run separately.")
    expansion_terms: list[str] = Field(
        default_factory=list,
        description="The Act's Bangla wording of the concepts found; appended to lexical queries only.",
    )
    dense_expansion: bool = Field(
        default=False,
        description=(
            "Also append expansion_terms to the dense query. Set for questions not written in Bangla "
            "script: e5-small alone matches English/romanised text to the Bangla Act poorly."
        ),
    )
    k: int = Field(ge=1, description="Units kept per sub-query after fusion.")
    hops: int = Field(ge=0, description="Link Hopper depth (0: no hopping).")
    edge_types: set[EdgeType] = Field(description="Edge types the Link Hopper may follow.")
    seeds: list[str] = Field(
        default_factory=list, description="Node ids named exactly (exact channel / hop seeds)."
    )
    question: str | None = Field(
        default=None,
        description="The user's question, when the queries are not it (a re-entry's seed-only plan): "
                    "the learned rerank scores the units against it.",
    )

    @model_validator(mode="after")
    def _something_to_do(self) -> Self:
        if not self.queries and not self.seeds:
            raise ValueError("a retrieval plan needs at least one query or one seed node")
        return self


class PlannerRequest(BaseModel):
    """A follow-up retrieval: the Supervisor's evidence gap or the Trust Auditor's request."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seeds: list[str] = Field(default_factory=list, description="Node ids to start hopping from.")
    edge_types: set[EdgeType] = Field(
        default_factory=lambda: {EdgeType.PROVISO, EdgeType.CROSS_REF},
        description="Edge types to follow from the seeds.",
    )
    hop_budget: int = Field(default=1, ge=0, description="Hops requested (clamped by the ceilings).")
    queries: list[str] = Field(default_factory=list, description="Optional text queries to run too.")
    k: int = Field(default=5, ge=1, description="Units per query requested (clamped).")
    question_type: QuestionType = Field(
        default=QuestionType.MULTI_HOP, description="Question type whose ceilings bound the request."
    )
