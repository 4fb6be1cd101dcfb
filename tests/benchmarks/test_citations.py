"""Every benchmark and every dataset choice cites its papers; models and biasatlas itself are cited.

The expected keys are written here from the papers each benchmark card names (docs/benchmarks/),
independently of the views that declare them: a benchmark added without its citation, or a
dataset choice that loses its own paper, fails here.
"""

from __future__ import annotations

from pathlib import Path
from typing import get_args

import pytest

from biasatlas.registry import BENCHMARKS, find_spec
from biasatlas.runs.view import RunView

PARRISH, NEPLENBROEK = "parrish-etal-2022-bbq", "neplenbroek-etal-2024-mbbq"
JIN, HUANG = "jin-etal-2024-kobbq", "huang-xiong-2024-cbbq"
RUIZ = "ruizfernandez-etal-2025-esbbq-cabbq"
NANGIA, NEVEOL = "nangia-etal-2020-crows", "neveol-etal-2022-french"
TOUILEB23, TOUILEB22 = "touileb-etal-2023-measuring", "touileb-etal-2022-occupational"
BARTL, KURITA = "bartl-etal-2020-unmasking", "kurita-etal-2019-measuring"
MAY, CALISKAN = "may2019measuring", "caliskan2017semantics"

#: (benchmark, summary fields) → the keys its run must cite, in order.
EXPECTED: list[tuple[str, dict[str, str], list[str]]] = [
    ("bbq", {"dataset": "en"}, [PARRISH]),
    *[("bbq", {"dataset": f"mbbq-{lang}"}, [PARRISH, NEPLENBROEK]) for lang in ("nl", "es", "tr", "en")],
    ("bbq", {"dataset": "kobbq"}, [PARRISH, JIN]),
    ("bbq", {"dataset": "cbbq"}, [PARRISH, HUANG]),
    *[("bbq", {"dataset": d}, [PARRISH, RUIZ]) for d in ("esbbq", "cabbq")],
    ("crows-pairs", {"dataset": "en"}, [NANGIA]),
    *[("crows-pairs", {"dataset": d}, [NANGIA, NEVEOL]) for d in ("fr", "fr+210", "en-revised", "en-revised+210")],
    ("crows-pairs", {"dataset": "nl"}, [NANGIA, "strazda-spanakis-2025-dutch"]),
    *[("census", {"country": c, "method": "touileb2023"}, [TOUILEB23]) for c in ("us", "uk", "fr", "no")],
    *[("census", {"country": c, "method": "touileb2023"}, [TOUILEB23, BARTL]) for c in ("de", "us-bec-pro")],
    ("census", {"country": "no", "method": "gebnlp2022"}, [TOUILEB23, TOUILEB22]),
    *[("census", {"country": c, "method": "bartl2020"}, [TOUILEB23, BARTL, KURITA]) for c in ("us", "de")],
    ("stereoset", {"dataset": "dev"}, ["nadeem-etal-2021-stereoset"]),
    ("stereoset", {"dataset": "test"}, ["nadeem-etal-2021-stereoset"]),
    ("winogender", {}, ["rudinger-etal-2018-gender"]),
    ("winobias", {}, ["zhao-etal-2018-gender"]),
    ("zh-neutral", {"dataset": "demo"}, ["zhao-etal-2021-zhong"]),
    ("seat", {}, [MAY, CALISKAN]),
    ("weat", {}, [MAY, CALISKAN]),
    ("gest", {}, ["pikuliak2023women"]),
    ("discrim-eval", {}, ["tamkin2023evaluating"]),
]


def _run(benchmark: str, fields: dict[str, str]) -> RunView:
    return RunView(Path("run"), {}, {"benchmark": benchmark, "model": "m", **fields}, ())


def _keys(benchmark: str, fields: dict[str, str]) -> list[str]:
    spec = find_spec(benchmark)
    assert spec is not None, benchmark
    return [ref.key for ref in spec.view.references(_run(benchmark, fields))]


@pytest.mark.parametrize("benchmark, fields, keys", EXPECTED)
def test_each_benchmark_and_dataset_cites_its_papers(benchmark, fields, keys):
    assert _keys(benchmark, fields) == keys


def test_every_shipped_benchmark_and_dataset_choice_is_checked_above():
    from biasatlas.benchmarks.bbq.data import DATASETS as BBQ_DATASETS
    from biasatlas.benchmarks.census.benchmark import COUNTRIES
    from biasatlas.benchmarks.crows_pairs.benchmark import DATASETS as CROWS_DATASETS
    from biasatlas.benchmarks.stereoset.benchmark import StereoSet

    shipped = {name for name, module in BENCHMARKS.items() if module.startswith("biasatlas.")}
    assert shipped <= {b for b, _, _ in EXPECTED}
    covered = {(b, f.get("dataset") or f.get("country")) for b, f, _ in EXPECTED}
    assert {("bbq", d) for d in BBQ_DATASETS} <= covered
    assert {("crows-pairs", d) for d in CROWS_DATASETS} <= covered
    assert {("census", c) for c in COUNTRIES} <= covered
    splits = get_args(StereoSet.__dataclass_fields__["split"].type) or ("dev", "test")
    assert {("stereoset", s) for s in splits} <= covered
    for benchmark in shipped:  # and a run of any of them cites at least one paper
        assert _keys(benchmark, {}), benchmark


def _model_run(model: str, scorer: dict[str, object]) -> RunView:
    return RunView(Path("run"), {"scorer": {"model": model, **scorer}}, {"benchmark": "seat", "model": model}, ())


def test_the_packaged_minilm_cites_minilm_and_sentence_bert():
    from biasatlas.report.cite import model_references

    refs = model_references(_model_run("all-minilm-l6-v2", {"scorer": "encoder"}))
    assert [r.key for r in refs] == ["wang-etal-2020-minilm", "reimers-gurevych-2019-sentence"]
    assert refs[0].field("title").startswith("{MiniLM}: Deep Self-Attention Distillation")


@pytest.mark.parametrize("scorer, shown", [
    ({"scorer": "word-vectors", "file_sha256": "ab" * 32}, "file sha256: " + "ab" * 32),
    ({"scorer": "masked-lm", "in_memory": {"state_sha256": "cd" * 32}}, "state sha256: " + "cd" * 32),
    ({"scorer": "masked-lm", "file_sha256": {"model.safetensors": "ef" * 32}}, "model.safetensors " + "ef" * 32),
    ({"scorer": "masked-lm", "revision": "0123456789abcdef"}, "revision 0123456789abcdef"),
])
def test_a_recorded_sha256_is_cited_never_weights_not_recorded(scorer, shown):
    from biasatlas.report.cite import model_references

    (ref,) = model_references(_model_run("glove.txt", scorer))
    assert shown in ref.field("note") and "not recorded" not in ref.field("note")


def test_weights_not_recorded_only_when_nothing_identifies_them():
    from biasatlas.report.cite import model_references

    (ref,) = model_references(_model_run("some/model", {"scorer": "masked-lm"}))
    assert ref.field("note") == "weights not recorded"


def test_the_report_cites_biasatlas_itself_last(tmp_path):
    from biasatlas.report import build_report, load_runs, render
    from report_fixtures import crows_run

    bib = render(build_report(load_runs([crows_run(tmp_path / "c")]), compare=False), "bibtex")
    entries = [line for line in bib.splitlines() if line.startswith("@")]
    assert entries[0] == "@inproceedings{nangia-etal-2020-crows,"
    assert entries[-1].startswith("@software{biasatlas-")
    assert "  version = {" in bib.split("@software")[1]
