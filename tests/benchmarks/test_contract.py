"""Contract: every registered benchmark, read from the registry alone (DESIGN.md, "Tests in layers"; issue 35).

Each spec carries ``example``, the options of a tiny run of it. One parametrised test runs every registered
benchmark with them through the real runner (load, probes, score, write a run folder, read it back typed)
and through its paired comparison: A against A differs by zero everywhere, A against a mirrored A (every
ordering of its answers reversed) differs somewhere. The options are checked from their declarations: a value
outside an option's ``Literal`` or flag choices is refused, and so is a subset no run can mean. Nothing here
names a benchmark; a new one is covered by registering it with an example.

The scorer is :class:`ContractScorer`, the fake scorer's hashes, reporting whichever scorer kind the benchmark
accepts (its own refusal says which: a benchmark that reads vectors refuses a likelihood scorer); the tiny
transformers models run every benchmark too, or are refused with :class:`UnsupportedProbe`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import typing
from pathlib import Path
from typing import Any, Literal

import pytest

from biasatlas import registry
from biasatlas.api import evaluate as run_benchmark
from biasatlas.api import with_detectable
from biasatlas.benchmarks.base import BenchmarkSpec
from biasatlas.benchmarks.options import Options, options_of
from biasatlas.errors import UnknownName, UnsupportedProbe, UsageError
from biasatlas.power import DETECTABLE_KEY
from biasatlas.probes import EmbeddingAnswer, EmbeddingProbe, ScorerInfo
from biasatlas.registry import load_scorer
from biasatlas.report.document import build_report
from biasatlas.request import benchmark_options
from biasatlas.runs.load import load_run
from biasatlas.runs.typed import encode
from biasatlas.runs.view import RunView
from biasatlas.scorers.fake import FakeScorer

NAMES = list(registry.BENCHMARKS)
#: The fake scorer's scores lie in (-20, 0] (scorers/fake.py): reflected inside it, every comparison reverses.
LOWEST = -20.0
DIMENSIONS = 16
REFUSED = (UsageError, UnknownName, ValueError)


class ContractScorer(FakeScorer):
    """The fake scorer's hash of each text, answering what ``info`` says it reads (a likelihood of each
    text, or a vector of it), under the scorer kind the benchmark accepts.

    ``mirrored``: every answer changed so that outcomes change, the same rule for every benchmark: each
    log-probability reflected inside the fake's range (``-20 - score``: of any two answers the higher
    becomes the lower, so every preferred option, sentence or filler becomes the other), and each
    vector's first coordinate negated (a cosine between two vectors changes)."""

    def __init__(self, info: ScorerInfo, *, mirrored: bool = False) -> None:
        super().__init__()
        self._info, self.mirrored = info, mirrored

    @property
    def info(self) -> ScorerInfo:
        return self._info

    def _text_score(self, text: str) -> float:
        score = super()._text_score(text)
        return LOWEST - score if self.mirrored else score

    def _embeddings(self, probes: list[EmbeddingProbe], tick: Any) -> list[EmbeddingAnswer]:
        tick(len(probes))
        return [EmbeddingAnswer(p.id, self._vector(p.text), 1) for p in probes]

    def _vector(self, text: str) -> tuple[float, ...]:
        digest = hashlib.sha256(text.encode("utf-8")).digest()
        vector = [b / 127.5 - 1.0 for b in digest[:DIMENSIONS]]
        if self.mirrored:
            vector[0] = -vector[0]
        return tuple(vector)

    def describe(self) -> dict[str, Any]:
        described = {**super().describe(), "scorer": self._info.kind}
        return {**described, "model": "fake-mirrored"} if self.mirrored else described


def accepted_info(spec: BenchmarkSpec) -> ScorerInfo:
    """The first scorer, the fake first and then the registered kinds, whose answers the benchmark reads:
    what its ``bind`` refuses is read from the benchmark, never named here."""
    bench = spec.factory(**spec.example)
    candidates = [ScorerInfo("fake", "sequence")]
    candidates += [ScorerInfo(s.name, s.reads) for s in registry.SCORERS.values() if s.reads not in (None, "given")]
    for info in candidates:
        try:
            bench.bind(info)
        except UnsupportedProbe:
            continue
        return info
    raise AssertionError(f"{spec.name} accepts no registered scorer kind")


def _run(spec: BenchmarkSpec, out: Path, *, mirrored: bool = False) -> RunView:
    """A run of the spec's example by the real runner into ``out``, read back by the checking reader."""
    scorer = ContractScorer(accepted_info(spec), mirrored=mirrored)
    run_benchmark(spec.name, model=scorer, out=out, cache=False, progress=False, **spec.example)
    return load_run(out)


# -- load, probes, score, write, read, and the paired comparison -----------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_every_registered_benchmark_runs_its_example_writes_and_reads_it_back_typed(name, isolated_run):
    spec = registry.benchmark_spec(name)
    assert spec.example, f"{name}'s spec has no example (the options of a tiny run: BenchmarkSpec.example)"
    view = _run(spec, isolated_run / "a")
    assert view.benchmark == name and view.records, "no item was scored"
    assert view.summary["provenance"]["n_probes"] > 0
    assert isinstance(view.typed_summary, spec.summary_type)
    # one type written and read: every key the typed summary holds is written with that value
    saved = json.loads((view.path / "summary.json").read_text(encoding="utf-8"))
    typed = encode(view.typed_summary)
    assert {key: saved.get(key, "<missing>") for key in typed} == _as_json(typed)
    assert json.loads((view.path / "config.json").read_text(encoding="utf-8"))["benchmark"]["benchmark"] == name
    if registry.BENCHMARKS[name].startswith("biasatlas."):  # biasatlas's own have headlines; a plugin may not
        _has_headlines(view, spec)


def _as_json(value: Any) -> Any:
    """``value`` as summary.json holds it (no NaN: null)."""
    return json.loads(json.dumps(value, default=str), parse_constant=lambda _: None)


@pytest.mark.parametrize("name", [n for n in NAMES if registry.benchmark_spec(n).view.paired is not None])
def test_the_paired_comparison_finds_no_difference_between_a_run_and_itself_and_one_from_a_mirrored_run(
        name, isolated_run):
    spec = registry.benchmark_spec(name)
    paired = spec.view.paired
    assert paired is not None
    a, mirrored = _run(spec, isolated_run / "a"), _run(spec, isolated_run / "b", mirrored=True)
    same = paired.test(a, load_run(a.path), n_resamples=50, seed=0)
    assert same.tests and same.n_paired == len(a.records) and (same.n_only_a, same.n_only_b) == (0, 0)
    assert [t.scope for t in same.tests if t.difference is not None], "no row has a difference to compare"
    for t in same.tests:
        assert t.difference in (0.0, None), f"{t.scope} {t.quantity}: A against A differs by {t.difference}"
        assert (t.ci_low, t.ci_high) in ((0.0, 0.0), (None, None)), f"{t.scope}: {t.ci_low, t.ci_high}"
    shifted = paired.test(a, mirrored, n_resamples=50, seed=0)
    assert shifted.n_paired == len(a.records)
    moved = [t for t in shifted.tests if t.difference is not None and math.isfinite(t.difference)
             and t.difference != 0.0]
    assert moved, f"every row of A against a mirrored A reads zero difference: {shifted.tests}"


# -- the options, checked from their declarations --------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_every_benchmark_declares_its_options_once(name):
    """Built on :class:`Options`, every option declared with :func:`~biasatlas.benchmarks.options.option`
    (its help and choices beside it), none in the spec: so the checks below read every option."""
    spec = registry.benchmark_spec(name)
    assert isinstance(spec.factory, type) and issubclass(spec.factory, Options), f"{name} is not built on Options"
    assert set(benchmark_options(spec.factory)) == {f.name for f in options_of(spec.factory)}
    assert not getattr(spec, "flags", None), "flags declared in the spec, not with the options"


def closed_sets(spec: BenchmarkSpec) -> dict[str, tuple[Any, ...]]:
    """Each option whose declaration names its values (a ``Literal`` type, or the flag's choices,
    by group where grouped), and those values."""
    hints = typing.get_type_hints(spec.factory) if isinstance(spec.factory, type) else {}
    out: dict[str, tuple[Any, ...]] = {}
    for option in benchmark_options(spec.factory):
        flag = spec.flag(option)
        values = tuple(flag.choices)
        if flag.grouped is not None:
            values += tuple(v for group in flag.grouped[1].values() for v in group)
        values += _literal(hints.get(option))
        if values:
            out[option] = values
    return out


def _literal(hint: Any) -> tuple[Any, ...]:
    for arm in (hint, *typing.get_args(hint)):
        if typing.get_origin(arm) is Literal:
            return typing.get_args(arm)
    return ()


@pytest.mark.parametrize("name", NAMES)
def test_every_option_with_a_closed_set_refuses_a_value_outside_it(name, isolated_run):
    spec = registry.benchmark_spec(name)
    spec.factory(**spec.example)  # the example itself is fine
    closed = closed_sets(spec)
    for option, values in closed.items():
        bad = "no-such-value"
        assert bad not in values
        with pytest.raises(REFUSED):
            spec.factory(**{**spec.example, option: bad})
            pytest.fail(f"{name} accepted {option}={bad!r} (its values: {values})")


@pytest.mark.parametrize("name", NAMES)
def test_every_benchmark_refuses_a_subset_no_run_can_mean(name, isolated_run):
    """``--limit`` and ``--sample`` together, and either at zero, the same for every benchmark that takes
    them (issue 35: ``StereoSet(limit=5, sample=3)`` was accepted where ``BBQ(limit=5, sample=3)`` was not;
    SEAT's run is the tests it names: no limit, no sample), and no bootstrap of zero resamples."""
    spec = registry.benchmark_spec(name)
    options = set(benchmark_options(spec.factory))
    example = {k: v for k, v in spec.example.items() if k not in ("limit", "sample")}
    bad_subsets = [bad for bad in ({"limit": 5, "sample": 3}, {"limit": 0}, {"sample": 0}, {"n_resamples": 0})
                   if set(bad) <= options]
    assert bad_subsets, f"{name} takes none of limit, sample, n_resamples"
    for bad in bad_subsets:
        with pytest.raises(REFUSED):
            spec.factory(**{**example, **bad})
            pytest.fail(f"{name} accepted {bad}")


# -- with the tiny transformers models --------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("scorer,model", [("masked-lm", "tiny_bert"), ("causal-lm", "tiny_gpt2"),
                                          ("seq2seq", "tiny_bart")])
def test_every_benchmark_with_every_likelihood_scorer(name, scorer, model, request, isolated_run):
    """A benchmark runs with each tiny model, or says by :class:`UnsupportedProbe` that it cannot read
    that scorer's answers (a vector benchmark) or the scorer that it cannot answer its probes."""
    spec = registry.benchmark_spec(name)
    bench = spec.factory(**spec.example)
    if scorer == "masked-lm" and spec.language(bench) == "Chinese":
        model = "tiny_chinese_bert"  # a Latin-script vocabulary has no Chinese characters
    built = load_scorer(str(request.getfixturevalue(model)), scorer)
    try:
        run = run_benchmark(name, model=built, cache=False, progress=False, **spec.example)
    except UnsupportedProbe as refused:
        assert "probe" in str(refused) or scorer in str(refused), str(refused)
        return
    summary = run.summary_dict
    assert summary["benchmark"] == name and summary["scorer"] == scorer
    assert run.records, "no item was scored"
    assert summary["provenance"]["n_probes"] > 0
    _has_headlines(RunView(Path("run"), run.config, _as_json(summary), run.records), spec)


def _has_headlines(view: RunView, spec: BenchmarkSpec) -> None:
    """The runner's detectable effects and the report's headlines work on this summary (docs/defensible.md)."""
    recorded = with_detectable(view.summary, view.config, [dict(r) for r in view.records])[DETECTABLE_KEY]
    heads = build_report([view], compare=False).runs[0].headlines
    assert heads and set(recorded) == {h.name for h in heads}
    _declares_directions(view, heads, spec)


def _declares_directions(view: RunView, heads: Any, spec: BenchmarkSpec) -> None:
    """Every metric of the run declares which way it reads (issue 40), and a headline's metric reads
    the way the headline says: best at its neutral value (``farther``) or lower (``higher`` is more biased)."""
    from biasatlas.display.direction import direction_of
    from biasatlas.report.tables import metric_rows

    directions = spec.view.directions
    rows = metric_rows(view)
    assert rows and [r.metric for r in rows if direction_of(r.metric, directions) is None] == []
    for h in heads:
        d = direction_of(h.name, directions)
        expected = (None, h.neutral) if h.more_biased == "farther" else (False, None)
        assert d is not None and (d.higher_is_better, d.ideal) == expected, h.name


# -- over the registry: what every registered benchmark must bring ---------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_every_registered_benchmark_has_a_card_a_command_and_an_example(name):
    from biasatlas.cli.run import build_command

    spec = registry.benchmark_spec(name)
    assert (Path(__file__).resolve().parents[2] / "docs" / "benchmarks" / f"{name}.md").is_file(), "no card"
    assert spec.example, "no example: the options of a tiny run, which this contract test runs"
    assert set(spec.example) <= set(benchmark_options(spec.factory)), "the example sets what is no option"
    assert spec.description, "no line for 'biasatlas run --help'"
    for option in benchmark_options(spec.factory):
        assert spec.flag(option).help, f"option {option!r} declares no help"
    flags = {p.name for p in build_command(name).params}
    assert set(benchmark_options(spec.factory)) <= flags and {"model", "engine", "out"} <= flags


@pytest.mark.parametrize("name", NAMES)
def test_no_benchmark_option_shares_a_name_with_a_model_engine_or_run_option(name):
    """evaluate() splits its keywords by name, and a command has one flag per name."""
    from biasatlas.request import EngineOptions, ModelOptions

    taken = {f.name for record in (ModelOptions, EngineOptions) for f in dataclasses.fields(record)}
    taken |= {"out", "force", "cache", "refresh", "progress", "log", "no_cache"}
    assert not set(benchmark_options(registry.benchmark_spec(name).factory)) & taken
