"""BgeM3Encoder end to end on a tiny XLM-RoBERTa built here (random weights, no hub access).

The folder mimics BAAI/bge-m3's layout as FlagEmbedding loads it: ``config.json`` + weights +
tokenizer files (``AutoModel``/``AutoTokenizer``) and the two heads ``colbert_linear.pt`` and
``sparse_linear.pt`` (``EncoderOnlyEmbedderM3Runner.get_model``). The vectors are meaningless;
the test checks plumbing: dim read from the model, normalisation, sparse weights, the embedding
cache and a Milvus Lite round trip with both dense and sparse search.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

os.environ["HF_HUB_OFFLINE"] = "1"  # never touch the hub, whatever happens below
os.environ["TRANSFORMERS_OFFLINE"] = "1"

torch = pytest.importorskip("torch")
pytest.importorskip("FlagEmbedding")

from labourcrew.graph.store import MilvusStore, UnitRecord  # noqa: E402
from labourcrew.retrieval.embed_cache import CachedEncoder  # noqa: E402
from labourcrew.retrieval.encoders import BGE_M3_PATH_ENV, BgeM3Encoder, make_encoder  # noqa: E402
from labourcrew.statute.model import Level, Unit  # noqa: E402
from labourcrew.statute.normalize import normalize  # noqa: E402

HIDDEN = 32


def build_tiny_bge_m3(folder: Path, corpus: list[str]) -> Path:
    """Write a random tiny XLM-RoBERTa in bge-m3's folder layout; return the folder."""
    from tokenizers import (
        Tokenizer,
        decoders,
        models,
        normalizers,
        pre_tokenizers,
        processors,
        trainers,
    )
    from transformers import XLMRobertaConfig, XLMRobertaModel, XLMRobertaTokenizerFast

    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]  # XLM-R ids 0..3 (+ mask)
    tok = Tokenizer(models.Unigram())
    tok.normalizer = normalizers.NFKC()
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    tok.train_from_iterator(
        corpus, trainers.UnigramTrainer(vocab_size=400, special_tokens=specials, unk_token="<unk>")
    )
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>", special_tokens=[("<s>", 0), ("</s>", 2)]
    )
    fast = XLMRobertaTokenizerFast(
        tokenizer_object=tok, bos_token="<s>", eos_token="</s>", sep_token="</s>", cls_token="<s>",
        unk_token="<unk>", pad_token="<pad>", mask_token="<mask>", model_max_length=128,
    )
    assert fast.convert_tokens_to_ids(["<s>", "<pad>", "</s>", "<unk>"]) == [0, 1, 2, 3]
    fast.save_pretrained(folder)

    torch.manual_seed(0)
    config = XLMRobertaConfig(
        vocab_size=len(fast),
        hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
        max_position_embeddings=130, type_vocab_size=1, pad_token_id=1, bos_token_id=0, eos_token_id=2,
    )
    XLMRobertaModel(config).save_pretrained(folder)
    colbert = torch.nn.Linear(HIDDEN, HIDDEN)
    sparse = torch.nn.Linear(HIDDEN, 1)
    with torch.no_grad():
        sparse.bias.fill_(1.0)  # relu(w.h + 1) > 0 for most tokens: non-empty lexical weights
    torch.save(colbert.state_dict(), folder / "colbert_linear.pt")
    torch.save(sparse.state_dict(), folder / "sparse_linear.pt")
    return folder


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory, bn_paragraphs, en_paragraphs) -> Path:
    return build_tiny_bge_m3(tmp_path_factory.mktemp("bge-m3-tiny"), bn_paragraphs[:200] + en_paragraphs[:100])


@pytest.fixture(scope="module")
def encoder(tiny_model) -> BgeM3Encoder:
    return BgeM3Encoder(tiny_model, batch_size=4, max_length=64)


def test_dense_and_sparse_outputs(encoder, bn_paragraphs):
    texts = bn_paragraphs[:5]
    assert encoder.dim == HIDDEN  # read from the model, not assumed 1024
    dense = encoder.encode_passages(texts)
    assert dense.shape == (5, HIDDEN) and dense.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(dense, axis=1), 1.0, atol=1e-5)
    sparse = encoder.encode_passages_sparse(texts)
    assert len(sparse) == 5 and all(sparse)
    assert all(isinstance(k, int) and k > 3 and v > 0 for s in sparse for k, v in s.items())  # no specials
    # Batching must not change results (padding is masked).
    one_by_one = np.vstack([encoder.encode_passages([t]) for t in texts])
    np.testing.assert_allclose(one_by_one, dense, atol=1e-5)
    info = encoder.backend_info()
    assert info["name"] == "bge-m3" and info["dim"] == HIDDEN and info["fingerprint"].startswith("bge-m3-")


def test_env_path_and_factory(tiny_model, monkeypatch):
    monkeypatch.setenv(BGE_M3_PATH_ENV, str(tiny_model))
    enc = make_encoder("bge-m3", max_length=64)
    assert enc.name == "bge-m3" and enc.dim == HIDDEN and enc.sparse


def test_write_and_search_in_milvus_lite(encoder, tmp_path, bn_paragraphs, en_paragraphs):
    texts = bn_paragraphs[20:30] + en_paragraphs[20:25]
    cached = CachedEncoder(encoder, tmp_path / "cache")
    dense = cached.encode_passages(texts)
    sparse = cached.encode_passages_sparse(texts)
    records = []
    for i, (text, d, s) in enumerate(zip(texts, dense, sparse)):
        unit = Unit(
            node_id=f"2025:{i + 1}", version="2025", level=Level.SECTION, label=str(i + 1),
            section=str(i + 1), chapter=1, text=text, text_norm=normalize(text), order=i,
        )
        records.append(UnitRecord.from_unit(unit, d, s))
    with MilvusStore(str(tmp_path / "bge.db")) as store:
        store.ensure_collection("2025", encoder.name, encoder.dim, sparse=True)
        assert store.upsert("2025", encoder.name, records) == 15
    with MilvusStore(str(tmp_path / "bge.db")) as store:  # reopen
        assert store.count("2025", "bge-m3") == 15
        target = 12  # an English paragraph
        q_dense = cached.encode_queries([texts[target]])[0]  # bge-m3: same text -> same vector
        hits = store.search_dense("2025", "bge-m3", q_dense, k=3)
        assert hits[0][0] == f"2025:{target + 1}" and hits[0][1] == pytest.approx(1.0, abs=2e-3)
        q_sparse = cached.encode_queries_sparse([texts[target]])[0]
        sp_hits = store.search_sparse("2025", "bge-m3", q_sparse, k=3)
        assert sp_hits and sp_hits[0][0] == f"2025:{target + 1}"
    # The cache now holds both kinds; a second wrapper embeds nothing.
    again = CachedEncoder(encoder, tmp_path / "cache")
    calls = []
    orig = encoder._forward
    encoder._forward = lambda *a, **k: calls.append(a) or orig(*a, **k)  # type: ignore[method-assign]
    try:
        again.encode_passages(texts)
        again.encode_passages_sparse(texts)
    finally:
        encoder._forward = orig  # type: ignore[method-assign]
    assert calls == []
