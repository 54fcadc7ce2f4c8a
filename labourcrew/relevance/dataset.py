"""The relevance training set (``data/train/*.jsonl``): schema, loading and verification.

Each line is one :class:`TrainItem`: a question as a user would write it, split into the issues it
raises; each issue names the units that *govern* its answer (``gold``), the provisos, explanations
or definitions the answer needs (``qualifiers``) and, optionally, a verbatim ``span`` of the first
gold unit. ``near_miss`` lists units that share the question's words but do not govern it (hard
negatives). Labels are ASCII unit labels of the StatuteGraph (``27(4)``, ``115.proviso1``,
``2(65)``); every one is verified against the graph (exists, not omitted; span verbatim after
:func:`~labourcrew.statute.normalize.normalize`, the Citation Checker's rule).

Nothing here is used for measurement: the dev set (``data/eval/dev_v1.jsonl``) stays held out, and
:func:`dev_overlap` guards against paraphrases of its questions.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from labourcrew.errors import DataError
from labourcrew.graph.statute_graph import REPO_ROOT, StatuteGraph
from labourcrew.statute.normalize import normalize

__all__ = ["TrainIssue", "TrainItem", "TRAIN_DIR", "RELEVANCE_DEV_DIR", "load_train", "verify_train_item", "verify_train",
           "coverage", "dev_overlap", "REGISTERS", "ANSWER_TYPES"]

TRAIN_DIR = REPO_ROOT / "data" / "train"
RELEVANCE_DEV_DIR = REPO_ROOT / "data" / "relevance_dev"
"""Questions in the training schema that no model is trained on: the relevance development set, for
choosing features and training recipes without touching the dev set's calibration questions."""
DEV_SET = REPO_ROOT / "data" / "eval" / "dev_v1.jsonl"
REGISTERS = ("formal", "colloquial", "noisy", "english")
ANSWER_TYPES = ("number", "duration", "amount", "condition", "procedure", "definition", "yes_no", "rule")


class TrainIssue(BaseModel):
    """One issue raised by a training question, with the units that answer it."""

    model_config = ConfigDict(extra="forbid")

    sub_question: str = Field(min_length=1, description="The issue as one short Bangla question.")
    gold: list[str] = Field(min_length=1, description="ASCII labels of the units that govern the answer.")
    qualifiers: list[str] = Field(
        default_factory=list,
        description="Provisos, explanations or definitions the answer needs (ASCII labels).",
    )
    span: str | None = Field(default=None, description="Verbatim answering phrase of gold[0] (or a descendant).")
    answer_type: Literal["number", "duration", "amount", "condition", "procedure", "definition", "yes_no",
                         "rule"] = Field(default="rule", description="What kind of answer the issue asks for.")
    facts_needed: list[str] = Field(
        default_factory=list,
        description="Facts the answer depends on that the question may not state, e.g. 'years_of_service'.",
    )


class TrainItem(BaseModel):
    """One hand-written training question."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, serialize_by_alias=True)

    id: str = Field(description="Stable id, e.g. 'trA-0001'.")
    author: str = Field(min_length=1, description="Who wrote the item (person or agent session).")
    register_: Literal["formal", "colloquial", "noisy", "english"] = Field(
        alias="register", description="Register as users write: formal, colloquial (চলিত), noisy, english."
    )
    kind: Literal["single", "story"] = Field(description="single question, or a long multi-issue story.")
    category: Literal["direct_factual", "definitional", "procedural", "conditional", "comparative",
                      "multi_hop", "hypothetical"] = Field(description="Question category (dev-set names).")
    question: str = Field(min_length=1, description="The question exactly as a user would type it.")
    question_en: str | None = Field(default=None, description="English gloss (optional).")
    issues: list[TrainIssue] = Field(min_length=1, description="The issues the question raises.")
    near_miss: list[str] = Field(
        default_factory=list, description="Units sharing words with the question that do not govern it."
    )
    statute_version: Literal["2025"] = Field(default="2025", description="Statute version of the labels.")

    def gold_labels(self) -> list[str]:
        """Every governing or qualifying label of every issue, in order, without repeats."""
        out: list[str] = []
        for iss in self.issues:
            for lab in (*iss.gold, *iss.qualifiers):
                if lab not in out:
                    out.append(lab)
        return out


def load_train(path: Path | str = TRAIN_DIR) -> list[TrainItem]:
    """Read every ``*.jsonl`` under a folder (or one file), in sorted file order.

    Raises:
        DataError: missing path, a line that is not valid JSON or breaks the schema (file and line
            named), or a duplicate id across files.
    """
    path = Path(path)
    files = sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
    if not files or not all(f.exists() for f in files):
        raise DataError(f"training data not found: {path}")
    items: list[TrainItem] = []
    for f in files:
        for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                items.append(TrainItem.model_validate_json(line))
            except ValidationError as exc:
                err = exc.errors()[0]
                raise DataError(f"{f.name}:{n}: {err['msg']} at {err['loc']}") from exc
    dup = [i for i, c in Counter(it.id for it in items).items() if c > 1]
    if dup:
        raise DataError(f"duplicate training ids: {dup[:5]}")
    return items


def _unit_problem(graph: StatuteGraph, item: TrainItem, label: str, what: str) -> str | None:
    u = graph.units.get(f"{item.statute_version}:{label}")
    if u is None:
        return f"{item.id}: {what} {label} does not exist in {item.statute_version}"
    if u.omitted:
        return f"{item.id}: {what} {label} is omitted in {item.statute_version}"
    return None


def verify_train_item(item: TrainItem, graph: StatuteGraph) -> list[str]:
    """Problems with one item's labels and spans (empty when all verify)."""
    v = item.statute_version
    problems: list[str] = []
    gold_sections: set[str] = set()
    for iss in item.issues:
        for lab in iss.gold:
            p = _unit_problem(graph, item, lab, "gold")
            problems += [p] if p else []
        for lab in iss.qualifiers:
            p = _unit_problem(graph, item, lab, "qualifier")
            problems += [p] if p else []
        for lab in (*iss.gold, *iss.qualifiers):
            u = graph.units.get(f"{v}:{lab}")
            if u is not None and u.section:
                gold_sections.add(u.section)
        if iss.span and not problems:
            node = graph.units[f"{v}:{iss.gold[0]}"]
            span = normalize(iss.span)
            texts = [node.text_norm, *(d.text_norm for d in graph.descendants(node.node_id))]
            if not any(span in t for t in texts):
                problems.append(f"{item.id}: span not found verbatim in {iss.gold[0]}: {iss.span[:60]!r}")
    for lab in item.near_miss:
        p = _unit_problem(graph, item, lab, "near_miss")
        if p:
            problems.append(p)
            continue
        u = graph.units[f"{v}:{lab}"]
        if lab in item.gold_labels() or (u.section in gold_sections and u.label == u.section):
            problems.append(f"{item.id}: near_miss {lab} is (or contains) a gold unit")
    if item.kind == "story" and len(item.issues) < 2:
        problems.append(f"{item.id}: a story must raise at least two issues")
    return problems


def verify_train(items: list[TrainItem], graph: StatuteGraph) -> list[str]:
    """All problems in the training set (empty when every label and span verifies)."""
    return [p for it in items for p in verify_train_item(it, graph)]


def coverage(items: list[TrainItem], graph: StatuteGraph) -> dict:
    """Counts the issue's targets ask for: items, registers (shares), stories, chapters, sections."""
    v = "2025"
    sections: set[str] = set()
    chapters: set[int] = set()
    for it in items:
        for lab in it.gold_labels():
            u = graph.units.get(f"{v}:{lab}")
            if u is not None and u.section:
                sections.add(u.section)
                if u.chapter:
                    chapters.add(u.chapter)
    regs = Counter(it.register_ for it in items)
    n = max(len(items), 1)
    return {
        "items": len(items),
        "register_share": {r: round(regs[r] / n, 3) for r in REGISTERS},
        "stories": sum(it.kind == "story" for it in items),
        "chapters": len(chapters),
        "sections": len(sections),
        "with_qualifier": sum(any(i.qualifiers for i in it.issues) for it in items),
        "with_near_miss": sum(bool(it.near_miss) for it in items),
        "authors": dict(Counter(it.author for it in items)),
    }


_TOKEN = re.compile(r"\w+")


def _grams(text: str, n: int = 4) -> set[str]:
    t = " ".join(_TOKEN.findall(normalize(text).lower()))
    return {t[i:i + n] for i in range(max(len(t) - n + 1, 1))}


def dev_overlap(items: list[TrainItem], dev_questions: list[str], threshold: float = 0.6) -> list[tuple[str, float]]:
    """Training items whose character-4-gram Jaccard with a dev question reaches ``threshold``.

    A paraphrase guard: the dev set is for measurement only, so no training question may restate one.
    Returns ``(item id, best Jaccard)`` pairs, worst first.
    """
    dev = [_grams(q) for q in dev_questions]
    out = []
    for it in items:
        g = _grams(it.question)
        best = max((len(g & d) / max(len(g | d), 1) for d in dev), default=0.0)
        if best >= threshold:
            out.append((it.id, round(best, 3)))
    return sorted(out, key=lambda x: -x[1])


def dev_questions(path: Path = DEV_SET) -> list[str]:
    """The held-out dev questions (``question_bn``), read only to guard against paraphrases."""
    return [json.loads(line)["question_bn"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def main(argv: list[str] | None = None) -> int:
    """``python -m labourcrew.relevance.dataset [PATH]``: verify, print problems and coverage; exit 1 on problems."""
    import sys

    from labourcrew.graph.statute_graph import load_graph

    args = argv if argv is not None else sys.argv[1:]
    items = load_train(args[0] if args else TRAIN_DIR)
    graph = load_graph()
    problems = verify_train(items, graph)
    overlap = dev_overlap(items, dev_questions())
    for p in problems:
        print(p)
    for i, j in overlap:
        print(f"{i}: too close to a dev question (char-4-gram Jaccard {j})")
    print(json.dumps({"problems": len(problems), "dev_overlap": len(overlap), **coverage(items, graph)},
                     ensure_ascii=False))
    return 1 if problems or overlap else 0


if __name__ == "__main__":
    raise SystemExit(main())
