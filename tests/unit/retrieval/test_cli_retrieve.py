"""CLI: index build/status, retrieve (single and --batch), bad input -> exit code 2."""

from __future__ import annotations

import json
import shutil

import pytest

from labourcrew.cli import main
from labourcrew.settings import load_settings


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    base = load_settings()
    tmp = tmp_path_factory.mktemp("cli")
    cache = tmp / "embed_cache"
    if base.index.embed_cache_dir.exists():
        shutil.copytree(base.index.embed_cache_dir, cache)
    mp = pytest.MonkeyPatch()
    mp.setenv("LABOURCREW_INDEX__URI", str(tmp / "cli.db"))
    mp.setenv("LABOURCREW_INDEX__EMBED_CACHE_DIR", str(cache))
    yield tmp
    mp.undo()


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def built(env):
    assert main(["index", "build", "--version", "2025", "--json"]) == 0
    return env


def test_index_build_then_status(built, capsys):
    code, out, _ = _run(capsys, "index", "build", "--version", "2025", "--json")
    assert code == 0
    (v,) = json.loads(out)["versions"]
    assert v["version"] == "2025" and v["skipped"] is True  # second build: nothing to do
    code, out, _ = _run(capsys, "index", "status", "--json")
    assert code == 0
    rows = {r["version"]: r for r in json.loads(out)["collections"]}
    assert rows["2025"]["exists"] and rows["2025"]["current"] and rows["2025"]["count"] == v["units"]
    assert not rows["en-2018"]["exists"]


def test_retrieve_json(built, capsys):
    code, out, _ = _run(capsys, "retrieve", "শ্রমিক বছরে কত দিনের নৈমিত্তিক ছুটি পায়?", "--version", "2025", "--json")
    assert code == 0
    data = json.loads(out)
    assert {"question_type", "plan", "evidence_pack", "hop_trace", "timings_ms"} <= set(data)
    assert data["question_type"] == "direct_factual"
    first = data["evidence_pack"][0]
    assert {"node_id", "section", "level", "channels", "score", "text"} <= set(first)
    assert first["section"] == "115" and first["text"]
    for e in data["hop_trace"]:
        assert set(e) == {"source", "edge", "target", "depth"}
    assert data["plan"]["k"] >= 1 and isinstance(data["plan"]["queries"], list)


def test_retrieve_text_output(built, capsys):
    code, out, _ = _run(capsys, "retrieve", "ধারা ২৭")
    assert code == 0 and "2025:27" in out and "question type" in out
    assert "warning" not in out  # section 27 exists: nothing to warn about


def test_retrieve_says_a_named_section_does_not_exist(built, capsys):
    # A new user's trial: "ধারা ৯৯৯" printed results with no word that section 999 is not in the Act.
    code, out, _ = _run(capsys, "retrieve", "ধারা ৯৯৯ কী বলে?")
    assert code == 0
    first = out.splitlines()[0]
    assert first.startswith("সতর্কতা (warning): ") and first.index("ধারা ৯৯৯ আইনে নেই") < first.index("section 999")
    assert "section 999 does not exist in the 2025 text (the Act has sections 1-354)" in first
    code, out, _ = _run(capsys, "retrieve", "ধারা ৯৯৯ কী বলে?", "--json")
    data = json.loads(out)
    assert len(data["warnings"]) == 1 and "section 999 does not exist in the 2025 text" in data["warnings"][0]
    assert data["evidence_pack"]  # the search itself is unchanged: it still returns what it found


def test_retrieve_batch_passes_fields_through(built, capsys, tmp_path):
    batch = tmp_path / "q.jsonl"
    rows = [
        {"id": "a", "question_bn": "মজুরী কত দিনের মধ্যে পরিশোধ করতে হবে?", "gold_sections": ["123"]},
        {"id": "b", "question_bn": "অধিকাল কাজের ভাতা কত?", "extra": {"x": 1}},
    ]
    batch.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n\n", encoding="utf-8")
    code, out, _ = _run(capsys, "retrieve", "--batch", str(batch))
    assert code == 0
    lines = [json.loads(x) for x in out.splitlines()]
    assert [x["id"] for x in lines] == ["a", "b"]
    assert lines[0]["gold_sections"] == ["123"] and lines[1]["extra"] == {"x": 1}
    assert all(x["retrieval"]["evidence_pack"] for x in lines)


@pytest.mark.parametrize(
    "argv",
    [
        ["retrieve", "   "],
        ["retrieve", "😀🙏!!"],
        ["retrieve", "ক" * 5000],
        ["retrieve", "নৈমিত্তিক ছুটি", "--version", "2030"],
        ["retrieve"],  # neither a question nor --batch
        ["index", "build", "--version", "1999"],
    ],
)
def test_bad_input_exits_2(built, capsys, argv):
    code = None
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse rejects bad choices itself, also with code 2
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    # Bangla first, English second, one line (argparse's own usage errors are English)
    assert ("\u0980" <= err[0] <= "\u09ff" and " — " in err) or "error" in err
    assert err.strip().count("\n") == 0 or err.startswith("usage")


def test_bad_batch_file_exits_2(built, capsys, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question_bn": "ঠিক আছে"}\nnot json\n', encoding="utf-8")
    code, _, err = _run(capsys, "retrieve", "--batch", str(bad))
    assert code == 2 and "bad.jsonl:2" in err
    code, _, err = _run(capsys, "retrieve", "--batch", str(tmp_path / "missing.jsonl"))
    assert code == 2


def test_retrieve_without_index_is_a_clear_error(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("LABOURCREW_INDEX__URI", str(tmp_path / "nothing.db"))
    code, _, err = _run(capsys, "retrieve", "নৈমিত্তিক ছুটি কত দিন?")
    assert code == 1 and "index build" in err
