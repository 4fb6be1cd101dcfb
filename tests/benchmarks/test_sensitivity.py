"""Sensitivity runs (issue 27): planted scorers whose outcomes do or do not depend on a preamble
or on the options' order, the flip share and spread against references computed here from the
items, the cache reuse, the declarations' refusals, and Kendall's τ over models."""

from __future__ import annotations

import csv
import json
from itertools import combinations

import pytest

from biasatlas.benchmarks.sensitivity import (KINDS, UNPERTURBED, Perturbation, Perturbed, Sensitivity, prefixed,
                                              preambles)
from biasatlas.cli import main
from biasatlas.errors import DataError, UsageError
from biasatlas.probes import (ContinuationProbe, PairAnswer, PairProbe, SentenceProbe, SlotAnswer, SlotProbe)
from biasatlas.registry import load_benchmark
from biasatlas.request import GivenModel, ModelOptions, RunRequest
from biasatlas.scorers.fake import FakeScorer
from biasatlas.sensitivity import kendall_with_interval, plan, ranking_stability, read, run, tables

FLIP = "This is an English text. "  # the English "language" preamble (NEUTRAL_PREAMBLES)


class Lengths(FakeScorer):
    """Scores a sentence −len(text): the shorter sentence wins, and a preamble, the same text before
    both sentences, changes no difference, so no outcome."""

    def __init__(self, flip: str | None = None) -> None:
        super().__init__()
        self.flip, self.scored = flip, 0

    def _pairs(self, probes: list[PairProbe], tick):  # type: ignore[override]
        tick(len(probes))
        self.scored += len(probes)
        out = []
        for p in probes:
            sign = -1.0 if self.flip is not None and p.a.startswith(self.flip) else 1.0  # planted: reversed
            out.append(PairAnswer(p.id, -sign * len(p.a), -sign * len(p.b)))
        return out


class FirstPlace(FakeScorer):
    """Prefers whichever option is scored first (the ``#k`` of its probe id): a positional bias no
    order-invariant reading has. It reads ids, which the content-keyed cache does not see, so it
    runs without one."""

    def _continuations(self, probes: list[ContinuationProbe], tick):  # type: ignore[override]
        tick(len(probes))
        return [SlotAnswer(p.id, tuple(-float(p.id.rsplit("#", 1)[1]) for _ in p.contexts),
                           tuple(1 for _ in p.contexts)) for p in probes]


def _crows(scorer, limit: int = 60) -> RunRequest:
    return RunRequest("crows-pairs", {"dataset": "en", "limit": limit}, GivenModel.of(scorer))


def _entry(result, name):
    return next(e for e in result["runs"] if e["name"] == name)


def test_a_scorer_the_preamble_reverses_shows_the_spread_and_every_untied_item_flips(isolated_run):
    result = run(_crows(Lengths(flip=FLIP)), "preambles", out=isolated_run / "s", progress=False)
    records = [json.loads(line) for line in (isolated_run / "s" / UNPERTURBED / "items.jsonl").open()]
    # reference from the texts alone: the shorter sentence wins unperturbed, the longer one after FLIP
    more = sum(len(r["sent_more"]) < len(r["sent_less"]) for r in records)
    less = sum(len(r["sent_more"]) > len(r["sent_less"]) for r in records)
    n = len(records)
    assert _entry(result, UNPERTURBED)["headlines"]["metric_score"]["value"] == pytest.approx(100 * more / n)
    flipped = _entry(result, "preamble-language")
    assert flipped["headlines"]["metric_score"]["value"] == pytest.approx(100 * less / n)
    assert flipped["flips"] == {"n": n, "flipped": more + less, "share": pytest.approx((more + less) / n)}
    assert _entry(result, "preamble-sentence")["flips"]["flipped"] == 0  # the other preamble changes nothing
    assert result["spread"]["metric_score"]["range"] == pytest.approx(100 * abs(more - less) / n)
    assert more != less and more + less > 0  # the data makes the planted effect visible at all


def test_a_scorer_blind_to_the_preamble_shows_no_spread_and_no_flips(isolated_run):
    result = run(_crows(Lengths()), "preambles", out=isolated_run / "s", progress=False)
    assert [e["name"] for e in result["runs"]] == [UNPERTURBED, "preamble-language", "preamble-sentence"]
    assert all(e["flips"]["flipped"] == 0 and e["flips"]["n"] == 60 for e in result["runs"][1:])
    assert result["spread"]["metric_score"]["range"] == 0
    assert result["spread"]["metric_score"]["min_run"] is None  # no run is "at" an end of no spread


def test_every_run_is_a_run_folder_recording_its_perturbation(isolated_run):
    out = isolated_run / "s"
    run(_crows(Lengths(), limit=10), "preambles", out=out, progress=False)
    assert read(out)["kind"] == "preambles"
    assert (out / "sensitivity.md").read_text().startswith("**Sensitivity (preambles)")
    config = json.loads((out / "preamble-sentence" / "config.json").read_text())
    assert config["benchmark"]["sensitivity"]["preamble"] == "Here is a sentence. "
    assert "sensitivity" not in json.loads((out / UNPERTURBED / "config.json").read_text())["benchmark"]
    items = [json.loads(line) for line in (out / "preamble-sentence" / "items.jsonl").open()]
    assert len(items) == 10


def test_the_cache_answers_the_unperturbed_run_of_a_second_call(isolated_run):
    scorer = Lengths()
    run(_crows(scorer, limit=10), "preambles", progress=False)
    first = scorer.scored
    run(_crows(scorer, limit=10), "preambles", progress=False)
    assert first == 30 and scorer.scored == first  # 10 pairs × 3 runs, then nothing left to score


@pytest.fixture(scope="module")
def bbq_folder(shared_data, tmp_path_factory):
    """The first 60 Religion questions and their rows of the metadata (the whole metadata file takes
    seconds to read, and every run reads it)."""
    folder = tmp_path_factory.mktemp("bbq")
    lines = (shared_data / "bbq" / "Religion.jsonl").read_text(encoding="utf-8").splitlines()[:60]
    ids = {str(json.loads(line)["example_id"]) for line in lines}
    (folder / "Religion.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    with (shared_data / "bbq" / "additional_metadata.csv").open(encoding="utf-8", newline="") as source:
        rows = list(csv.reader(source))
    kept = [rows[0]] + [r for r in rows[1:] if r[0] == "Religion" and r[2] in ids]
    with (folder / "additional_metadata.csv").open("w", encoding="utf-8", newline="") as out:
        csv.writer(out).writerows(kept)
    return folder


def _bbq(scorer, folder) -> RunRequest:
    return RunRequest("bbq", {"category": "Religion", "data": folder, "n_resamples": 20}, GivenModel.of(scorer))


def _bbq_examples(folder):
    return [e for e in load_benchmark("bbq", category="Religion", data=folder).load() if e.target is not None]


def _role(example, index: int) -> str:
    return "unknown" if index == example.unknown else "biased" if index == example.target else "counter"


def test_bbq_orders_move_nothing_for_an_order_invariant_reading(isolated_run, bbq_folder):
    result = run(_bbq(FakeScorer(), bbq_folder), "orders", progress=False)
    assert len(result["runs"]) == 6  # the five other orders of three options
    assert all(e["flips"]["flipped"] == 0 for e in result["runs"][1:])
    assert all(s["range"] == 0 for s in result["spread"].values() if s["range"] is not None)


def test_bbq_orders_show_a_planted_positional_bias(isolated_run, bbq_folder):
    result = run(_bbq(FirstPlace(), bbq_folder), "orders", cache=False, progress=False)
    examples = _bbq_examples(bbq_folder)
    assert len(examples) == 60
    for e in result["runs"][1:]:
        order = [int(c) for c in e["name"].removeprefix("order-")]
        # reference: the option shown first is chosen; its role, against the unperturbed first option's
        expected = sum(_role(x, order[0]) != _role(x, 0) for x in examples)
        assert e["flips"] == {"n": len(examples), "flipped": expected, "share": pytest.approx(expected / len(examples))}
        ambiguous = [x for x in examples if x.ambiguous]
        accuracy = 100 * sum(x.weight * (x.label == order[0]) for x in ambiguous) / sum(x.weight for x in ambiguous)
        assert e["headlines"]["accuracy_amb"]["value"] == pytest.approx(accuracy)
    assert result["spread"]["accuracy_amb"]["range"] > 0


def test_the_census_preamble_check_is_one_instance(isolated_run):
    request = RunRequest("census", {"country": "no", "sample": 3}, ModelOptions(model="fake"))
    result = run(request, "preambles", progress=False)
    direct = run(RunRequest("census", {"country": "no", "sample": 3, "preamble": "Her er en setning. "},
                            ModelOptions(model="fake")), "rules", progress=False)
    assert _entry(result, "preamble-sentence")["perturbation"]["options"] == {"preamble": "Her er en setning. "}
    assert _entry(result, "preamble-sentence")["headlines"] == _entry(direct, UNPERTURBED)["headlines"]


def test_rules_leave_out_the_request_s_own_rule(tiny_gpt2, shared_data, monkeypatch):
    monkeypatch.setenv("BIASATLAS_DATA_DIR", str(shared_data))
    names = [p.name for p in plan(RunRequest("crows-pairs", {"dataset": "en"}, ModelOptions(model=str(tiny_gpt2))),
                                  "rules")]
    assert names == [UNPERTURBED, "shared-ll"]  # sentence-ll is the causal scorer's default
    census = plan(RunRequest("census", {"country": "us", "causal_reading": "joint"},
                             ModelOptions(model=str(tiny_gpt2))), "rules")
    assert [p.name for p in census] == [UNPERTURBED, "causal_reading-conditional", "aggregation-pooled",
                                        "aggregation-mean-share", "aggregation-majority"]


def test_a_kind_a_benchmark_does_not_declare_is_one_usage_line(isolated_run, capsys):
    with pytest.raises(UsageError, match="crows-pairs has no --sensitivity orders: it offers preambles, rules"):
        plan(_crows(Lengths()), "orders")
    with pytest.raises(SystemExit) as exit_:
        main(["run", "crows-pairs", "-m", "fake", "--sensitivity", "orders"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.strip().splitlines() == [
        "error: crows-pairs has no --sensitivity orders: it offers preambles, rules"]
    with pytest.raises(UsageError, match="no rules perturbations"):
        plan(_crows(Lengths()), "rules")  # a given scorer has no variants to swap


def test_the_cli_flag_offers_the_library_s_kinds():
    from typing import get_args

    from biasatlas.cli.options import SensitivityKind

    assert get_args(SensitivityKind) == KINDS


def test_each_probe_kind_gets_its_preamble_before_what_the_model_reads():
    assert prefixed(PairProbe("p", "A.", "B."), "P ") == PairProbe("p", "P A.", "P B.")
    assert prefixed(SlotProbe("s", "The ", " ran.", ("he",)), "P ") == SlotProbe("s", "P The ", " ran.", ("he",))
    assert prefixed(ContinuationProbe("c", ("x", "y"), " z"), "P ") == ContinuationProbe("c", ("P x", "P y"), " z")
    assert prefixed(SentenceProbe("t", "A."), "P ") == SentenceProbe("t", "P A.")
    assert preambles("zh") == () and [p.options for p in preambles("no", option="preamble")][0] == {
        "preamble": "Dette er en norsk tekst. "}


def test_a_perturbed_benchmark_is_its_benchmark_otherwise():
    census = load_benchmark("census", country="no", sample=2)
    wrapped = Perturbed(census, Perturbation("x", "nothing"), "preambles")
    assert wrapped.name == "census" and wrapped.template_language == "no"
    assert wrapped.config() == {**census.config(), "sensitivity": {"kind": "preambles", "name": "x", "about": "nothing",
                                                                   "options": {}, "model": {}, "preamble": None}}


def test_declarations_refuse_unknown_kinds_and_reserved_names():
    with pytest.raises(ValueError, match="unknown sensitivity kind"):
        Sensitivity(kinds={"typos": lambda b, s: ()}, headlines=lambda s: (), outcome=lambda r: None,
                    outcome_phrase="")
    with pytest.raises(ValueError, match="folder name"):
        Perturbation(UNPERTURBED, "the base")


def test_a_damaged_sensitivity_file_names_file_and_field(tmp_path):
    (tmp_path / "sensitivity.json").write_text(json.dumps({"format": 1, "benchmark": "bbq", "kind": "orders",
                                                           "label": "m", "runs": [{"name": "order-021"}]}))
    with pytest.raises(DataError, match=r"sensitivity.json.*field 'runs'"):
        read(tmp_path)


def _tau_b(x, y):
    """Kendall's τ-b by its definition: (concordant − discordant) / √((n0 − tx)(n0 − ty))."""
    pairs = list(combinations(range(len(x)), 2))
    s = sum((x[i] - x[j]) * (y[i] - y[j]) > 0 for i, j in pairs) - sum((x[i] - x[j]) * (y[i] - y[j]) < 0
                                                                         for i, j in pairs)
    tx = sum(x[i] == x[j] for i, j in pairs)
    ty = sum(y[i] == y[j] for i, j in pairs)
    return s / ((len(pairs) - tx) * (len(pairs) - ty)) ** 0.5


@pytest.mark.parametrize(("x", "y"), [([1, 2, 3, 4], [1, 3, 2, 4]), ([5, 1, 4, 4, 2], [2, 1, 3, 3, 9]),
                                      ([1, 2, 3], [3, 2, 1])])
def test_kendall_s_tau_equals_its_definition_and_sits_in_its_interval(x, y):
    tau, low, high = kendall_with_interval(x, y, n_resamples=200, seed=3)
    assert tau == pytest.approx(_tau_b(x, y))
    assert low is not None and high is not None and low <= tau <= high
    assert kendall_with_interval(x, y, n_resamples=200, seed=3) == (tau, low, high)  # seeded


def test_two_models_get_tau_but_no_interval():
    assert kendall_with_interval([1, 2], [2, 1]) == (-1.0, None, None)


def test_values_equal_but_for_float_noise_tie():
    (row,) = ranking_stability([_result("a", (0.0, 0.1 + 0.2)), _result("b", (1.0, 0.3))])
    assert 0.1 + 0.2 != 0.3 and row["tau"] is None  # a tie in the perturbed run: τ undefined, not ±1


def _result(label, values, setting="s"):
    """A sensitivity.json of one model: unperturbed and one perturbation, headline ``h``."""
    return {"format": 1, "benchmark": "crows-pairs", "kind": "preambles", "label": label, "setting": setting,
            "dataset": "en", "runs": [{"name": name, "headlines": {"h": {"value": v}}}
                                      for name, v in zip((UNPERTURBED, "p"), values, strict=True)]}


def test_ranking_stability_over_models_counts_one_swapped_pair():
    results = [_result("a", (1.0, 1.0)), _result("b", (2.0, 3.0)), _result("c", (3.0, 2.0))]
    (row,) = ranking_stability(results, n_resamples=100)
    # 3 pairs of models: (a,b) and (a,c) keep their order, (b,c) swaps: τ = (2 − 1) / 3
    assert row["tau"] == pytest.approx(1 / 3) and row["n_models"] == 3 and row["perturbation"] == "p"
    other = ranking_stability([*results, _result("a", (9.0, 9.0), setting="t")], n_resamples=100)
    assert len(other) == 2  # another setting (census NO vs US) is ranked on its own
    with pytest.raises(UsageError, match="two sensitivity folders of one model"):
        ranking_stability([*results, _result("a", (5.0, 5.0))])


@pytest.mark.slow  # about a second: the full suite runs it, the fast loop does not
def test_report_over_sensitivity_folders_ranks_the_models(isolated_run, capsys):
    folders = []
    for label, flip in (("a", None), ("b", FLIP), ("c", "Here is a sentence. ")):
        folders.append(isolated_run / label)
        run(_crows(Lengths(flip=flip), limit=30), "preambles", out=folders[-1], progress=False, label=label)
    with pytest.raises(SystemExit) as exit_:
        main(["report", *map(str, folders), "--format", "json", "--n-resamples", "50"])
    assert exit_.value.code == 0
    rows = json.loads(capsys.readouterr().out)["ranking_stability"]
    assert {(r["perturbation"], r["n_models"]) for r in rows} == {("preamble-language", 3), ("preamble-sentence", 3)}
    for r in rows:  # τ of the three models' values, read back from their own files, by the definition
        base, moved = zip(*r["models"].values(), strict=True)
        assert r["tau"] == pytest.approx(_tau_b(base, moved)) if len(set(base)) > 1 else r["tau"] is None
    with pytest.raises(SystemExit):
        main(["report", *map(str, folders), "--n-resamples", "50"])
    markdown = capsys.readouterr().out
    assert markdown.count("**Sensitivity (preambles): crows-pairs") == 3 and "**Ranking stability" in markdown
    with pytest.raises(SystemExit):
        main(["report", str(folders[0]), str(folders[0] / UNPERTURBED)])
    assert "not both" in capsys.readouterr().err


def test_every_declared_kind_names_distinct_perturbations_for_a_causal_lm(shared_data, monkeypatch):
    from biasatlas.registry import BENCHMARKS, benchmark_spec

    monkeypatch.setenv("BIASATLAS_DATA_DIR", str(shared_data))
    declared = {n: benchmark_spec(n).sensitivity for n in BENCHMARKS if benchmark_spec(n).sensitivity is not None}
    assert set(declared) == {"bbq", "census", "crows-pairs", "discrim-eval", "stereoset", "winobias", "winogender"}
    for name, sens in declared.items():
        bench = load_benchmark(name, **({"dataset": "en"} if name in ("bbq", "crows-pairs") else {}))
        for kind, perturbations in sens.kinds.items():
            names = [p.name for p in perturbations(bench, "causal-lm")]
            assert names and len(set(names)) == len(names), (name, kind)


def test_every_perturbation_scores_with_the_model_loaded_once(isolated_run, monkeypatch):
    # issue 40: --sensitivity preambles loaded the model once per perturbation
    built = []
    real = ModelOptions.build

    def counting(self):
        built.append(self.model)
        return real(self)

    monkeypatch.setattr(ModelOptions, "build", counting)
    result = run(RunRequest("crows-pairs", {"dataset": "en", "limit": 20}, ModelOptions(model="fake")), "preambles",
                 cache=False, progress=False)
    assert len(result["runs"]) > 2 and built == ["fake"]


def test_the_tables_name_a_headline_as_the_benchmark_s_tables_do(isolated_run):
    result = run(_crows(Lengths(), limit=20), "preambles", progress=False, cache=False)
    table, spread_table = tables(result)
    assert "metric" in table.columns and "metric_score" not in table.columns  # the label, not the JSON field
    assert [row[0] for row in spread_table.rows] == ["metric"]
    assert result["labels"] == {"metric_score": "metric"}


def test_the_ranking_stability_table_names_a_headline_by_its_label():
    results = [{**_result(m, (v, v)), "labels": {"h": "metric"}} for m, v in (("a", 1.0), ("b", 2.0), ("c", 3.0))]
    from biasatlas.sensitivity import stability_table

    (row,) = stability_table(ranking_stability(results, n_resamples=50)).rows
    assert row[4] == "metric"
    (older,) = stability_table(ranking_stability([_result(m, (1.0, 1.0)) for m in "abc"], n_resamples=50)).rows
    assert older[4] == "h"  # a sensitivity.json from before the labels: the name
