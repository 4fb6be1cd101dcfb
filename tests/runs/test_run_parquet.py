"""``items.parquet``: the run's records again, for dataframe users, when pyarrow is installed.

Same records as ``items.jsonl``, one type per column (mixed columns made consistent),
written atomically, the same bytes every time (a resumed run's folder is byte-identical
to an uninterrupted one's), and nothing at all without pyarrow.
"""

from __future__ import annotations

import importlib.util
import io
import json
import math

import pytest

from biasatlas.runs.folder import PARQUET_FILE, RUN_FILES, Run, claim_run_folder, items_parquet, write_run
from report_fixtures import real_run, write_crows_tsv

pq = pytest.importorskip("pyarrow.parquet")

MIXED = [{"id": "1", "score": 1, "ratio": 0.5, "flag": None, "ok": True, "extra": {"k": [1, 2]}, "mix": 3},
         {"id": "2", "score": 2, "ratio": 2, "flag": "identical sentences", "ok": False, "mix": "three"},
         {"id": "3", "score": None, "ratio": math.nan, "ok": None, "mix": None, "late": "only here"}]


def _table(data: bytes):
    return pq.read_table(io.BytesIO(data))


def test_columns_get_one_type_each():
    table = _table(items_parquet(MIXED))
    types = {f.name: str(f.type) for f in table.schema}
    assert types == {"id": "string", "score": "int64", "ratio": "double", "flag": "string", "ok": "bool",
                     "extra": "string", "mix": "string", "late": "string"}
    rows = table.to_pylist()
    assert [r["score"] for r in rows] == [1, 2, None]
    assert [r["ratio"] for r in rows] == [0.5, 2.0, None]  # int and float → float; NaN → null, as in JSONL
    assert [r["extra"] for r in rows] == ['{"k": [1, 2]}', None, None]  # an object: its JSON text
    assert [r["mix"] for r in rows] == ["3", '"three"', None]  # a number beside a string: JSON text of each
    assert [r["late"] for r in rows] == [None, None, "only here"]  # a field some records lack: null


def test_writing_twice_gives_the_same_bytes(tmp_path):
    run = Run({"benchmark": {}, "scorer": {}}, {"benchmark": "x"}, MIXED)
    first = (write_run(run, tmp_path / "a") / PARQUET_FILE).read_bytes()
    again = (write_run(run, tmp_path / "a") / PARQUET_FILE).read_bytes()
    other = (write_run(run, tmp_path / "b") / PARQUET_FILE).read_bytes()
    assert first == again == other
    assert not [p for p in (tmp_path / "a").iterdir() if p.name.startswith(f".{PARQUET_FILE}.")]  # no temporaries


def test_a_real_run_holds_the_same_records_as_items_jsonl(tmp_path):
    from biasatlas.benchmarks.crows_pairs import CrowsPairs

    data = write_crows_tsv(tmp_path / "pairs.tsv")
    folder = real_run(CrowsPairs(dataset=None, data=data), tmp_path / "run")
    jsonl = [json.loads(line) for line in (folder / "items.jsonl").read_text(encoding="utf-8").splitlines()]
    rows = _table((folder / PARQUET_FILE).read_bytes()).to_pylist()
    assert rows == jsonl  # every field of every record, types as written
    assert PARQUET_FILE in RUN_FILES  # a rerun into the folder recognises it as the run's own
    claim_run_folder(folder, {"benchmark": {}, "scorer": {}}, force=True).release()


def test_without_pyarrow_nothing_is_written_and_no_stale_copy_stays(tmp_path, monkeypatch):
    run = Run({"benchmark": {}, "scorer": {}}, {"benchmark": "x"}, MIXED)
    folder = write_run(run, tmp_path / "r")
    assert (folder / PARQUET_FILE).is_file()
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pyarrow" else real(name, *a))
    assert items_parquet(MIXED) is None
    write_run(run, folder)
    assert not (folder / PARQUET_FILE).exists()
    assert sorted(p.name for p in folder.iterdir()) == ["config.json", "items.jsonl", "skipped.jsonl", "summary.json",
                                                        "timing.json"]
