"""SQLite label store: upsert, exports, hash, Cohen's kappa, concurrent writers."""

from __future__ import annotations

import csv
import hashlib
import json
import multiprocessing as mp
import random
import sqlite3

import pytest
from sklearn.metrics import cohen_kappa_score

from labourcrew.errors import DataError, InputError
from labourcrew.gate.labels import LabelStore, cohens_kappa


@pytest.fixture()
def store(tmp_path) -> LabelStore:
    return LabelStore(tmp_path / "labels" / "labels.sqlite")


def test_add_get_list_and_upsert(store):
    store.add("c1", "ann", "faithful", run_id="r1", note="ok", rationale="ধারা ২৭(১) হুবহু")
    store.add("c2", "ann", "unsure", run_id="r2")
    store.add("c1", "bob", "unfaithful", run_id="r1")
    assert len(store) == 3
    got = store.get("c1", "ann")
    assert got.label == "faithful" and got.rationale == "ধারা ২৭(১) হুবহু" and got.run_id == "r1"
    store.add("c1", "ann", "unfaithful", run_id="r1", note="changed my mind")
    assert len(store) == 3  # UNIQUE(claim_id, annotator): replaced, not added
    assert store.get("c1", "ann").label == "unfaithful"
    assert store.get("c9", "ann") is None
    assert [(x.claim_id, x.annotator) for x in store.list()] == [("c1", "ann"), ("c1", "bob"), ("c2", "ann")]
    assert [x.claim_id for x in store.list(run_id="r1")] == ["c1", "c1"]
    assert [x.annotator for x in store.list(claim_id="c1", annotator="bob")] == ["bob"]


def test_wal_mode_is_on(store):
    with sqlite3.connect(store.path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


@pytest.mark.parametrize("label", ["FAITHFUL", "yes", "", "faithful "])
def test_bad_label_is_an_input_error(store, label):
    with pytest.raises(InputError):
        store.add("c1", "ann", label)
    assert len(store) == 0


def test_empty_ids_are_input_errors(store):
    with pytest.raises(InputError):
        store.add(" ", "ann", "faithful")
    with pytest.raises(InputError):
        store.add("c1", "", "faithful")


def test_database_rejects_bad_labels_even_behind_the_api(store):
    with sqlite3.connect(store.path) as conn, pytest.raises(sqlite3.IntegrityError):
        conn.execute("INSERT INTO labels (claim_id, annotator, label, created) VALUES ('c', 'a', 'maybe', 'now')")


def test_exports_and_hash(store, tmp_path):
    store.add("c2", "ann", "faithful", created="2026-01-01T00:00:00+00:00", note='a "quoted", note')
    store.add("c1", "ann", "unfaithful", created="2026-01-01T00:00:01+00:00", rationale="বাংলা")
    rows = [json.loads(line) for line in store.export_jsonl(tmp_path / "l.jsonl").read_text().splitlines()]
    assert [r["claim_id"] for r in rows] == ["c1", "c2"]
    with open(store.export_csv(tmp_path / "l.csv"), newline="", encoding="utf-8") as fh:
        csv_rows = list(csv.DictReader(fh))
    assert csv_rows == rows  # every field is text, so CSV and JSONL carry the same rows
    assert csv_rows[1]["note"] == 'a "quoted", note'
    h1 = store.labels_sha256()
    assert h1 == store.labels_sha256()
    assert h1 == hashlib.sha256((tmp_path / "l.jsonl").read_bytes()).hexdigest()
    store.add("c1", "ann", "faithful", created="2026-01-01T00:00:01+00:00", rationale="বাংলা")
    assert store.labels_sha256() != h1


def test_kappa_matches_sklearn_on_random_labels(store):
    rng = random.Random(11)
    a_labels, b_labels = [], []
    for i in range(120):
        a = rng.choice(["faithful", "unfaithful"])
        b = a if rng.random() < 0.7 else rng.choice(["faithful", "unfaithful"])
        store.add(f"c{i:03d}", "ann", a)
        store.add(f"c{i:03d}", "bob", b)
        a_labels.append(a)
        b_labels.append(b)
    # unsure labels and claims labelled by one annotator only are ignored
    store.add("c900", "ann", "faithful")
    store.add("c901", "ann", "unsure")
    store.add("c901", "bob", "faithful")
    expected = cohen_kappa_score(a_labels, b_labels)
    assert store.cohens_kappa() == pytest.approx(expected)
    assert store.cohens_kappa(("bob", "ann")) == pytest.approx(expected)


def test_kappa_edge_cases(store):
    with pytest.raises(InputError):
        store.cohens_kappa()  # nobody
    store.add("c1", "ann", "faithful")
    store.add("c2", "bob", "faithful")
    with pytest.raises(InputError, match="share no"):
        store.cohens_kappa()
    store.add("c1", "cat", "faithful")
    with pytest.raises(InputError, match="exactly two"):
        store.cohens_kappa()
    assert store.cohens_kappa(("ann", "cat")) == 1.0  # constant, identical labels
    assert cohens_kappa(["faithful", "unfaithful"], ["unfaithful", "faithful"]) == pytest.approx(-1.0)


def test_unusable_database_file_is_a_data_error(tmp_path):
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(DataError):
        LabelStore(bad)


def _writer(path: str, annotator: str, barrier) -> None:
    store = LabelStore(path)
    barrier.wait()
    for i in range(200):
        store.add(f"claim-{i:03d}", annotator, "faithful" if i % 3 else "unfaithful",
                  run_id=f"run-{annotator}", note=f"{annotator}:{i}", rationale=f"{annotator} " * 20)


def test_two_processes_writing_at_once_lose_nothing(tmp_path):
    path = str(tmp_path / "shared.sqlite")
    LabelStore(path)
    ctx = mp.get_context("spawn")
    barrier = ctx.Barrier(2)
    procs = [ctx.Process(target=_writer, args=(path, name, barrier)) for name in ("ann", "bob")]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
    assert [p.exitcode for p in procs] == [0, 0]
    store = LabelStore(path)
    rows = store.list()
    assert len(rows) == 400
    for row in rows:  # nothing torn: every field belongs to the same write
        i = int(row.claim_id.split("-")[1])
        assert row.note == f"{row.annotator}:{i}"
        assert row.run_id == f"run-{row.annotator}"
        assert row.rationale == f"{row.annotator} " * 20
        assert row.label == ("faithful" if i % 3 else "unfaithful")


def test_restore_undoes_one_add_and_brings_back_the_label_it_replaced(tmp_path):
    store = LabelStore(tmp_path / "l.sqlite")
    store.add("ck1:a", "rahim", "unsure", note="first")
    before = store.get("ck1:a", "rahim")
    store.add("ck1:a", "rahim", "faithful")
    store.restore("ck1:a", "rahim", before)  # undo the replacement: the earlier label is back, as it was
    assert store.get("ck1:a", "rahim") == before
    store.add("ck1:b", "rahim", "unfaithful")
    store.restore("ck1:b", "rahim", None)  # undo a first label: nothing left
    assert store.get("ck1:b", "rahim") is None and len(store) == 1
