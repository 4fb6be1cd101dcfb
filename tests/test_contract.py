"""Contract: every benchmark runs with every scorer (DESIGN.md, "Tests in layers"), and every
registered benchmark brings a card, a `biasatlas run` command and a row here.

Each pair either produces a summary with the benchmark's documented keys and one record
per scored item, or — only where a scorer cannot answer the benchmark's probe kind —
raises UnsupportedProbe with a reason (seq2seq models do not score CrowS-Pairs pairs).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from biasatlas.benchmarks.bbq import BBQ
from biasatlas.benchmarks.census.benchmark import Census
from biasatlas.benchmarks.crows_pairs import CrowsPairs
from biasatlas.benchmarks.seat import Seat, Weat
from biasatlas.benchmarks.stereoset import StereoSet
from biasatlas.benchmarks.winobias import WinoBias
from biasatlas.benchmarks.winogender import Winogender
from biasatlas.benchmarks.zh_neutral import ZhNeutral
from biasatlas import registry
from biasatlas.api import with_detectable
from biasatlas.runs.view import RunView
from biasatlas.errors import UnsupportedProbe
from biasatlas.pipeline import run_benchmark
from biasatlas.power import DETECTABLE_KEY
from biasatlas.registry import load_scorer
from biasatlas.report.document import build_report

KEYS = {
    "crows-pairs": {"n", "metric_score", "stereo_score", "antistereo_score", "neutral", "by_category", "intervals"},
    "census": {"normative", "descriptive", "descriptive_by_class", "n_occupations", "n_probes",
               "n_forward_passes", "intervals"},
    "zh-neutral": {"bias_score", "leaning", "n", "by_pair", "intervals"},
    "stereoset": {"n", "lms", "ss", "icat", "tasks", "intervals", "reading"},
    "bbq": {"n", "accuracy_amb", "accuracy_dis", "bias_amb", "bias_dis", "abstain_amb", "abstain_dis", "degenerate",
            "sets", "intervals", "rule", "reading"},
    "seat": {"n_tests", "n_scored", "mean_abs_d", "n_significant", "tests", "pooling"},
    "weat": {"n_tests", "n_scored", "mean_abs_d", "n_significant", "tests", "n_oov", "oov_words"},
    "winobias": {"n", "pro_pct", "diff", "sets", "by_majority", "occupations", "intervals", "reading"},
    "winogender": {"n_contexts", "female_pct", "pearson", "spearman", "by_referent", "gotcha", "intervals", "reading"},
}
#: Benchmarks that read vectors: the likelihood scorers are refused, the vector scorers run them.
EMBEDDING = {"seat": ("encoder", "tiny_bert"), "weat": ("word-vectors", None)}


def _benchmark(name: str, shared_data):
    if name == "crows-pairs":
        fr = shared_data / "crows-pairs-fr/crows_pairs_FR_languagearc_contribution+210.csv"
        return CrowsPairs(dataset=None, data=fr, limit=12)
    if name == "census":
        return Census(country="no", sample=2, n_resamples=50)
    if name == "bbq":
        # 3 questions (9 options): the masked-LM pseudo-likelihood of 6 was the slowest case here
        return BBQ(data=shared_data / "bbq", category="Religion", limit=3, n_resamples=50)
    if name == "stereoset":
        return StereoSet(data=shared_data / "stereoset/dev.json", limit=3, n_resamples=50)
    if name in EMBEDDING:
        return (Seat if name == "seat" else Weat)(tests="weat6,weat9", n_resamples=20)
    if name == "winobias":
        return WinoBias(data=shared_data / "winobias", limit=3, n_resamples=50)
    if name == "winogender":
        return Winogender(data=shared_data / "winogender", limit=4, n_resamples=50)
    return ZhNeutral(limit=8, n_resamples=50)


@pytest.mark.parametrize("benchmark", sorted(KEYS))
@pytest.mark.parametrize("scorer,model", [("fake", None), ("masked-lm", "tiny_bert"),
                                          ("causal-lm", "tiny_gpt2"), ("seq2seq", "tiny_bart")])
def test_every_benchmark_with_every_scorer(benchmark, scorer, model, request, shared_data):
    if benchmark == "zh-neutral" and scorer == "masked-lm":
        model = "tiny_chinese_bert"  # a Latin-script vocabulary has no Chinese characters
    path = "fake" if model is None else str(request.getfixturevalue(model))
    built = load_scorer(path, scorer)
    bench = _benchmark(benchmark, shared_data)
    if benchmark in EMBEDDING:
        with pytest.raises(UnsupportedProbe, match="embedding probes"):
            run_benchmark(bench, built)
        return
    if benchmark == "crows-pairs" and scorer == "seq2seq":
        with pytest.raises(UnsupportedProbe, match="pair probes"):
            run_benchmark(bench, built)
        return
    run = run_benchmark(bench, built)
    assert KEYS[benchmark] <= set(run.summary), KEYS[benchmark] - set(run.summary)
    assert run.summary["benchmark"] == benchmark and run.summary["scorer"] == scorer
    assert run.records, "no item was scored"
    assert run.summary["provenance"]["n_probes"] > 0
    _has_headlines(run)


def _has_headlines(run) -> None:
    """The runner's detectable effects and the report's headlines work on this summary (docs/defensible.md)."""
    recorded = with_detectable(run.summary, run.config, run.records)[DETECTABLE_KEY]
    saved = json.loads(json.dumps(run.summary, default=str), parse_constant=lambda _: None)  # as written: no NaN
    view = RunView(Path("run"), run.config, saved, run.records)
    heads = build_report([view], compare=False).runs[0].headlines
    assert heads and set(recorded) == {h.name for h in heads}
    _declares_directions(view, heads)


def _declares_directions(view, heads) -> None:
    """Every metric of the run declares which way it reads (issue 40), and a headline's metric reads
    the way the headline says: best at its neutral value (``farther``) or lower (``higher`` is more biased)."""
    from biasatlas.display.direction import direction_of
    from biasatlas.report.tables import metric_rows

    directions = registry.benchmark_spec(view.benchmark).view.directions
    rows = metric_rows(view)
    assert rows and [r.metric for r in rows if direction_of(r.metric, directions) is None] == []
    for h in heads:
        d = direction_of(h.name, directions)
        expected = (None, h.neutral) if h.more_biased == "farther" else (False, None)
        assert d is not None and (d.higher_is_better, d.ideal) == expected, h.name


@pytest.mark.parametrize("benchmark", sorted(EMBEDDING))
def test_the_vector_benchmarks_with_their_scorers(benchmark, request, shared_data, monkeypatch):
    monkeypatch.setenv("BIASATLAS_DATA_DIR", str(shared_data))
    scorer, model = EMBEDDING[benchmark]
    path = str(shared_data / "weat/weat_w2v.txt") if model is None else str(request.getfixturevalue(model))
    run = run_benchmark(_benchmark(benchmark, shared_data), load_scorer(path, scorer))
    assert KEYS[benchmark] <= set(run.summary), KEYS[benchmark] - set(run.summary)
    assert run.summary["benchmark"] == benchmark and run.summary["scorer"] == scorer
    assert [r["test"] for r in run.records] == ["weat6", "weat9"] and run.summary["provenance"]["n_probes"] > 0
    _has_headlines(run)


# -- over the registry: what every registered benchmark must bring ---------------------------------
@pytest.mark.parametrize("name", list(registry.BENCHMARKS))
def test_every_registered_benchmark_has_a_card_a_command_and_a_contract_row(name):
    from pathlib import Path

    from biasatlas.cli.run import build_command
    from biasatlas.request import benchmark_options

    spec = registry.benchmark_spec(name)
    assert (Path(__file__).resolve().parents[1] / "docs" / "benchmarks" / f"{name}.md").is_file(), "no card"
    assert name in KEYS, "no row in this contract test"
    assert spec.description, "no line for 'biasatlas run --help'"
    for option in benchmark_options(spec.factory):
        assert spec.flag(option).help, f"option {option!r} has no Flag(help=…) in the spec's flags"
    flags = {p.name for p in build_command(name).params}
    assert set(benchmark_options(spec.factory)) <= flags and {"model", "engine", "out"} <= flags


@pytest.mark.parametrize("name", list(registry.BENCHMARKS))
def test_no_benchmark_option_shares_a_name_with_a_model_engine_or_run_option(name):
    """evaluate() splits its keywords by name, and a command has one flag per name."""
    from dataclasses import fields

    from biasatlas.request import EngineOptions, ModelOptions, benchmark_options

    taken = {f.name for record in (ModelOptions, EngineOptions) for f in fields(record)}
    taken |= {"out", "force", "cache", "refresh", "progress", "log", "no_cache"}
    assert not set(benchmark_options(registry.benchmark_spec(name).factory)) & taken
