"""The team's dev question set (``data/eval/dev_v1.jsonl``): schema, loading and gold-span verification.

Each line is one :class:`DevItem`. Its base :class:`DevQuestion` (id, category, Bangla question,
gold labels, version) is what the retrieval benchmark reads; :func:`load_questions` also reads a
file in the training schema (:class:`~labourcrew.relevance.dataset.TrainItem`, e.g.
``data/relevance_dev/``) as ``DevQuestion`` rows through :func:`question_from_train` -- the one
place that conversion lives. :func:`load_dataset` (the evaluation's reader) refuses such a file
with a message naming ``bench retrieval --dataset``: the evaluation reports tiers, gold answers and
abstention, which training rows do not have. Gold citations are checked against the StatuteGraph: every
``gold_sections`` label must exist in the item's statute version, and every gold span must occur
verbatim (after :func:`~labourcrew.statute.normalize.normalize` on both sides, the same rule the
Citation Checker applies) in the unit it names or one of that unit's descendants.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from labourcrew.errors import DataError, InputError
from labourcrew.graph.statute_graph import REPO_ROOT, StatuteGraph
from labourcrew.relevance.dataset import TrainItem, load_train
from labourcrew.statute.normalize import normalize

__all__ = ["DevQuestion", "DevItem", "GoldSpan", "Category", "CATEGORIES", "ANSWERABLE", "load_dataset",
           "load_questions", "question_from_train", "is_train_schema", "verify_item", "verify_dataset",
           "DEFAULT_DATASET", "calibration_extension"]

DEFAULT_DATASET = REPO_ROOT / "data" / "eval" / "dev_v1.jsonl"


def calibration_extension() -> list[Path]:
    """The calibration-only question files ``data/eval/cal_v2_*.jsonl`` (dev format), sorted by name.

    They are used only to calibrate the Trust Gate (``data/calibration/README.md``): never to train,
    tune or report, so every training or development set is checked against them.
    """
    return sorted((REPO_ROOT / "data" / "eval").glob("cal_v2_*.jsonl"))

Category = Literal[
    "direct_factual",
    "definitional",
    "procedural",
    "conditional",
    "comparative",
    "multi_hop",
    "hypothetical",
    "unanswerable",
    "adversarial",
]
CATEGORIES: tuple[str, ...] = get_args(Category)
# Categories whose gold answer is grounded in the Act (the other two test abstention).
ANSWERABLE = CATEGORIES[:7]


class GoldSpan(BaseModel):
    """A verbatim gold citation."""

    model_config = ConfigDict(extra="forbid")

    section: str = Field(description="ASCII label of the unit containing the span, e.g. '27(1)'.")
    span: str = Field(min_length=1, description="Verbatim substring of that unit's text.")


class DevQuestion(BaseModel):
    """A question with its gold labels: what the retrieval benchmark reads of a dev or training row."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, serialize_by_alias=True)

    id: str = Field(description="Stable item id, e.g. 'devA-001' or 'trG-0001'.")
    category: Category = Field(description="Question category (paper's seven + unanswerable + adversarial).")
    question_bn: str = Field(min_length=1, description="The question in Bangla (as a user would type it).")
    gold_sections: list[str] = Field(default_factory=list, description="Governing units' ASCII labels.")
    statute_version: str = Field(default="2025", description="Statute version the gold refers to.")


class DevItem(DevQuestion):
    """One dev-set question with gold answer and gold citations (the evaluation's record)."""

    difficulty: int = Field(ge=1, le=3, description="Tier: 1 easy, 2 medium, 3 hard.")
    # "register" would shadow a BaseModel attribute: the JSON key is kept through an alias.
    register_: Literal["formal", "colloquial", "noisy"] = Field(
        alias="register", description="Language register of the question."
    )
    question_en: str = Field(min_length=1, description="English translation of the question.")
    gold_answer_bn: str = Field(description="Gold answer in Bangla.")
    gold_answer_en: str = Field(description="Gold answer in English.")
    gold_spans: list[GoldSpan] = Field(default_factory=list, description="Verbatim gold citations.")


def question_from_train(item: TrainItem) -> DevQuestion:
    """A training-schema row as a benchmark question: its issues' ``gold`` units, in order without
    repeats, are its gold labels (qualifiers are what an answer needs, not what retrieval must find).
    """
    gold = list(dict.fromkeys(lab for iss in item.issues for lab in iss.gold))
    return DevQuestion(id=item.id, category=item.category, question_bn=item.question, gold_sections=gold,
                       statute_version=item.statute_version)


def is_train_schema(path: Path | str) -> bool:
    """Whether a JSONL file's first row is in the training schema (has ``issues``), not the dev schema.

    A missing, empty or non-JSON file answers False (the dev reader then names the problem).
    """
    try:
        first = next((ln for ln in Path(path).read_text(encoding="utf-8").splitlines() if ln.strip()), "")
        row = json.loads(first) if first else None
    except (OSError, ValueError):
        return False
    return isinstance(row, dict) and "issues" in row


def load_dataset(path: Path | str = DEFAULT_DATASET) -> list[DevItem]:
    """Read a JSONL dataset in the dev schema: one :class:`DevItem` per non-blank line, in file order.

    Raises:
        InputError: the path is a folder, or the file is in the training schema (e.g. ``data/relevance_dev/*.jsonl``); the
            message (Bangla, then English) names ``bench retrieval --dataset`` as the tool for it.
        DataError: the file is missing, a line is not JSON, or an item breaks the schema
            (the message names the line).
    """
    path = Path(path)
    if not path.exists():
        raise DataError(f"dataset not found: {path}")
    if path.is_dir():
        raise InputError(f"{path} একটি ফোল্ডার; একটি JSONL ফাইল দিন — {path} is a folder; give one JSONL file")
    if is_train_schema(path):
        # Training rows have no tier, gold answer or abstention category, which the evaluation reports.
        raise InputError(
            f"{path} প্রশিক্ষণ-ধাঁচের ফাইল (TrainItem, issues সহ); eval কেবল dev-ধাঁচের ফাইল পড়ে। এর প্রশ্নে "
            f"উদ্ধার মাপতে চালান: python -m labourcrew bench retrieval --dataset {path} — {path} is a "
            "training-schema file (TrainItem, with issues); eval reads dev-schema files only (tiers, gold "
            f"answers, abstention categories). To measure retrieval on it: python -m labourcrew bench retrieval "
            f"--dataset {path}"
        )
    items: list[DevItem] = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            items.append(DevItem.model_validate_json(line))
        except ValidationError as exc:
            raise DataError(f"{path}:{n}: {exc.errors()[0]['msg']} at {exc.errors()[0]['loc']}") from exc
    ids = [i.id for i in items]
    if len(set(ids)) != len(ids):
        raise DataError(f"{path}: duplicate item ids")
    return items


def load_questions(path: Path | str) -> list[DevQuestion]:
    """Read one JSONL file as benchmark questions: a dev-schema file through :func:`load_dataset`
    (so the benchmark and the evaluation read its rows identically), a training-schema file through
    :func:`~labourcrew.relevance.dataset.load_train` and :func:`question_from_train`.

    Raises:
        DataError: as :func:`load_dataset` or :func:`~labourcrew.relevance.dataset.load_train`.
    """
    if is_train_schema(path):
        return [question_from_train(it) for it in load_train(path)]
    return list(load_dataset(path))


def verify_item(item: DevItem, graph: StatuteGraph) -> list[str]:
    """Problems with one item's gold citations (empty list when all verify)."""
    problems: list[str] = []
    v = item.statute_version
    for label in item.gold_sections:
        u = graph.units.get(f"{v}:{label}")
        if u is None:
            problems.append(f"{item.id}: gold section {label} does not exist in {v}")
        elif u.omitted:
            problems.append(f"{item.id}: gold section {label} is omitted in {v}")
    for gs in item.gold_spans:
        node = graph.units.get(f"{v}:{gs.section}")
        if node is None:
            problems.append(f"{item.id}: span's unit {gs.section} does not exist in {v}")
            continue
        span = normalize(gs.span)
        texts = [node.text_norm, *(d.text_norm for d in graph.descendants(node.node_id))]
        if not any(span in t for t in texts):
            problems.append(f"{item.id}: span not found verbatim in {gs.section}: {gs.span[:60]!r}")
    if item.category in ANSWERABLE and not item.gold_sections:
        problems.append(f"{item.id}: answerable item without gold sections")
    return problems


def verify_dataset(items: list[DevItem], graph: StatuteGraph) -> list[str]:
    """All problems in a dataset (empty list when every gold citation verifies)."""
    return [p for it in items for p in verify_item(it, graph)]


def main(argv: list[str] | None = None) -> int:
    """``python -m labourcrew.eval.datasets [FILE]``: verify gold spans, print problems, exit 1 if any."""
    import sys

    from labourcrew.graph.statute_graph import load_graph

    args = argv if argv is not None else sys.argv[1:]
    items = load_dataset(args[0] if args else DEFAULT_DATASET)
    problems = verify_dataset(items, load_graph())
    for p in problems:
        print(p)
    print(json.dumps({"items": len(items), "problems": len(problems)}))
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
