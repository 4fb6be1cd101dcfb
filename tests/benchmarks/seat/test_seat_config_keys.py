"""SEAT/WEAT's config.json keys are the ones written before issue 35 (the data folder recorded once,
as ``data``): a rerun into a folder written then compares its recorded config with this one, so an
extra key (``data_dir``: null) would refuse every such rerun as "another run"."""

from __future__ import annotations

import json

from biasatlas.benchmarks.seat import Seat, Weat

#: The keys of 7d1b88d's AssociationBenchmark.config(), in its order (WEAT adds ``lowercase``).
SEAT_KEYS = ["benchmark", "version", "tests", "data", "data_sha256", "pooling", "n_samples", "seed", "n_resamples"]


def _folder(tmp_path):
    test = {role: {"category": role, "examples": [f"{role}{i}" for i in range(2)]}
            for role in ("targ1", "targ2", "attr1", "attr2")}
    folder = tmp_path / "tests"
    folder.mkdir()
    (folder / "mine.jsonl").write_text(json.dumps(test))
    return folder


def test_seat_config_records_the_data_folder_once_as_data(tmp_path):
    folder = _folder(tmp_path)
    config = Seat(data_dir=folder).config()
    assert list(config) == SEAT_KEYS
    assert config["data"] == str(folder)


def test_weat_config_keys_are_seats_then_lowercase(tmp_path):
    assert list(Weat(data_dir=_folder(tmp_path)).config()) == [*SEAT_KEYS, "lowercase"]


def test_seat_config_without_a_folder_names_the_fetched_data(shared_data, monkeypatch):
    monkeypatch.setenv("BIASATLAS_DATA_DIR", str(shared_data))
    config = Seat(tests="weat1").config()
    assert list(config) == SEAT_KEYS
    assert config["data"] == "bias-bench data/seat"
