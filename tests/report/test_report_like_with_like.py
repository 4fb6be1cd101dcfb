"""A report compares like with like and says what each number is of (issue 49, items 1–5):

1. the cross-model figure has a row per run (a model's runs on two datasets are two rows);
2. every leaderboard and provenance names the subset a run scored (DiscrimEval's --scenarios, BBQ's
   --category), never "– means all items" beside a subset;
3. a served or harness-scored packaged model is cited by its paper, a served one never by its URL;
4. BBQ's likelihood and generated runs are paired each with their own kind, the dataset in every heading;
5. the warning mark is a run's own, not every run of the same model's.

Runs are built by hand (planted summaries), so each expectation is the arithmetic of the plant.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from biasatlas.display.style import style
from biasatlas.display.tables import WARNING_MARK
from biasatlas.registry import find_spec
from biasatlas.report.cite import SMOLLM2, model_references
from biasatlas.report.compare import comparison_pairs, compare_runs
from biasatlas.report.sections import provenance
from biasatlas.runs.view import SHARED_SUBSET, RunView, SubsetKey
from biasatlas.scorers.served.facts import served_weights


def _set(n_amb: int = 4, n_dis: int = 6) -> dict[str, Any]:
    return {"accuracy_amb": 50.0, "accuracy_dis": 70.0, "bias_amb": 10.0, "bias_dis": -5.0, "n": n_amb + n_dis,
            "n_amb": n_amb, "n_dis": n_dis, "degenerate": None,
            "intervals": {"bias_amb": [0.0, 20.0], "bias_dis": [-15.0, 5.0]}}


def _bbq(model: str, dataset: str = "en", *, bench: dict[str, Any] | None = None, name: str = "") -> RunView:
    summary = {"benchmark": "bbq", "dataset": dataset, "model": model, **_set(), "sets": {"Age": _set()}}
    view = RunView(Path(name or f"{model}-{dataset}"), {"benchmark": {"dataset": dataset, **(bench or {})}},
                   summary, (), label=model)
    return replace(view, subset_keys=find_spec("bbq").contract.subset_keys)


def test_a_models_runs_on_two_datasets_are_two_rows_of_the_figure() -> None:
    from biasatlas.report.across import across_models_plots
    from biasatlas.report.document import _run_report

    runs = [_bbq(m, d) for m in ("model-a", "model-b") for d in ("en", "nl")]
    with style():
        (plot,) = [p for p in across_models_plots([_run_report(r, i) for i, r in enumerate(runs)])
                   if p.figure.axes[0].get_yticklabels()]
    ticks = {t.get_text() for t in plot.figure.axes[0].get_yticklabels()}
    assert ticks == {"model-a · en", "model-a · nl", "model-b · en", "model-b · nl"}  # was {"model-a", "model-b"}
    one = [_bbq(m, "en") for m in ("model-a", "model-b")]
    with style():
        (plot,) = across_models_plots([_run_report(r, i) for i, r in enumerate(one)])
    assert {t.get_text() for t in plot.figure.axes[0].get_yticklabels()} == {"model-a", "model-b"}
    assert "(en)" in plot.figure.axes[0].get_title() or "(en)" in plot.caption


def test_a_subset_is_named_in_words_from_the_benchmarks_own_options() -> None:
    keys = {k.key: k for k in find_spec("discrim-eval").contract.subset_keys}
    assert keys["scenarios"] == SubsetKey("scenarios", None, drawn=True)
    assert {"limit", "sample"} <= set(keys)
    assert "category" in {k.key for k in find_spec("bbq").contract.subset_keys}
    view = RunView(Path("d"), {"benchmark": {"scenarios": 2, "seed": 7, "limit": None, "sample": None}},
                   {"benchmark": "discrim-eval", "model": "m"}, (), subset_keys=tuple(keys.values()))
    assert view.subset == "scenarios 2 (seed 7)"
    assert replace(view, config={"benchmark": {"limit": None}}).subset == "all items"
    old = RunView(Path("o"), {"benchmark": {"sample": 12, "seed": 0}}, {"benchmark": "x", "model": "m"}, ())
    assert old.subset_keys == SHARED_SUBSET and old.subset == "sample 12 (seed 0)"


def test_every_leaderboard_row_and_the_provenance_name_the_subset() -> None:
    from biasatlas.report.tables import leaderboard

    whole, age = _bbq("model-a"), _bbq("model-b", bench={"category": "Age", "limit": 10})
    (table,) = leaderboard([whole, age])
    column = table.columns.index("items scored")
    assert [row[column] for row in table.rows] == ["all items", "limit 10; category Age"]
    assert "means all items" not in table.caption and "limit" not in table.columns
    facts = dict(provenance(age).facts)
    assert facts["items scored"] == "limit 10; category Age" and "limit" not in facts


def test_the_warning_mark_is_the_runs_own(monkeypatch) -> None:
    from biasatlas.report import tables

    flagged_run = _bbq("gemma", "en")
    others = [_bbq("gemma", "nl"), _bbq("other", "en")]
    monkeypatch.setattr(tables, "run_headlines",
                        lambda r: (SimpleNamespace(flagged=r.path == flagged_run.path),))
    (table,) = tables.leaderboard([flagged_run, *others])
    marked = [(row[0], row[1]) for row in table.rows if str(row[0]).endswith(WARNING_MARK)]
    assert len(marked) == 1 and marked[0][0] == f"gemma{WARNING_MARK}"
    assert len(table.rows) == 3


def test_likelihood_and_generated_runs_pair_each_with_their_own_kind() -> None:
    lik = [_bbq(f"lik-{i}", name=f"lik-{i}") for i in range(2)]
    gen = [_bbq(f"gen-{i}", bench={"answers": "generated"}, name=f"gen-{i}") for i in range(2)]
    pairs = [(a.label, b.label) for a, b in comparison_pairs([lik[0], gen[0], lik[1], gen[1]])]
    assert pairs == [("lik-0", "lik-1"), ("gen-0", "gen-1")]  # was lik-0 against all three


def test_a_comparison_heading_names_its_dataset(tmp_path: Path) -> None:
    from report_fixtures import crows_run
    from biasatlas.report import load_run

    a = load_run(crows_run(tmp_path / "a", model="m-a"))
    b = load_run(crows_run(tmp_path / "b", model="m-b"))
    comparison = compare_runs(a, b)
    assert comparison.title == f"crows-pairs ({a.dataset}): m-a vs m-b" and a.dataset


def _served(scorer: dict[str, Any], label: str | None = None) -> RunView:
    summary = {"benchmark": "crows-pairs", "model": "smollm2 @ http://127.0.0.1:8000/v1",
               **({"label": label} if label else {})}
    return RunView(Path("s"), {"scorer": scorer}, summary, ())


def test_a_served_or_harness_packaged_model_is_cited_by_its_paper(tmp_path: Path) -> None:
    folder = tmp_path / "smollm2-135m--0.1.2"
    folder.mkdir()
    (folder / "config.json").write_text("{}", encoding="utf-8")
    (folder / "biasatlas-packaged.json").write_text('{"name": "smollm2-135m"}', encoding="utf-8")
    weights = served_weights(str(folder))
    assert set(weights["file_sha256"]) == {"config.json"} and weights["packaged"] == {"name": "smollm2-135m"}
    assert served_weights(str(tmp_path / "elsewhere")) == {} and served_weights(None) == {}
    served = _served({"scorer": "served", "served_model": "smollm2", **weights})
    assert model_references(served) == (SMOLLM2,)
    harness = RunView(Path("h"), {"scorer": {"scorer": "predictions", "model": "smollm2-135m--0.1.2"}},
                      {"benchmark": "bbq", "model": "smollm2-135m--0.1.2"}, ())
    assert model_references(harness) == (SMOLLM2,)
    (unknown,) = model_references(_served({"scorer": "served", "served_model": "smollm2"}, label="SmolLM2 (vLLM)"))
    fields = dict(unknown.fields)
    assert "SmolLM2 (vLLM)" in fields["title"] and "127.0.0.1" not in unknown.bibtex()


def test_seven_series_look_different_and_the_axis_is_not_their_names_joined() -> None:
    """Issue 49, item 11: DiscrimEval's seven terms shared colour-and-marker pairs."""
    from biasatlas.display.dots import MARKERS, SERIES_COLOURS
    from biasatlas.report.across import _figure
    from biasatlas.report.document import RunReport

    looks = {(SERIES_COLOURS[k % len(SERIES_COLOURS)], MARKERS[k % len(MARKERS)]) for k in range(7)}
    assert len(looks) == 7 and len(set(SERIES_COLOURS[:7])) == 7
    heads = tuple(SimpleNamespace(neutral=0.0, label=f"term-{i}", value=float(i), interval=(i - 1.0, i + 1.0),
                                  n=10, controls=()) for i in range(7))
    runs = [RunReport(_bbq(m), (), SimpleNamespace(facts=()), i, (), heads) for i, m in enumerate(("a", "b"))]
    with style():
        plot = _figure("discrim-eval", 0.0, runs)
    axis = plot.figure.axes[0].get_xlabel()
    assert "term-0, term-1" not in axis and "legend" in axis


def test_latex_says_a_constant_column_once_and_keeps_the_rest() -> None:
    """Issue 49, item 12: five constant columns of fifteen shrank a LaTeX leaderboard to 4 pt."""
    from biasatlas.display.tables import Table
    from biasatlas.report.latex import _constant_columns_said

    table = Table("T", ("model", "dataset", "n", "score"), (("a", "en", 10, 1.5), ("b", "en", 10, 2.5)), "Cap.")
    said = _constant_columns_said(table)
    assert said.columns == ("model", "score") and said.rows == (("a", 1.5), ("b", 2.5))
    assert said.caption == "Cap. Every row: dataset en; n 10."
    alone = Table("T", ("model", "n"), (("a", 10),))
    assert _constant_columns_said(alone) is alone  # one row: every column is its own, nothing is said twice


def test_bbq_leaderboard_says_the_reading_and_the_parsed_share() -> None:
    from biasatlas.benchmarks.bbq.summary import BBQRunSummary
    from biasatlas.benchmarks.bbq.view import examples_cell, reading_cell

    def summary(**extra: Any) -> BBQRunSummary:
        return BBQRunSummary.read({"benchmark": "bbq", "model": "m", **_set(2, 4), **extra}, Path("summary.json"))

    generated = summary(parser="lm-eval", unparsed=18, chat_template="model (sha256 ab12)")
    assert reading_cell(generated) == "generated (lm-eval), chat template"
    assert examples_cell(generated) == "6 of 24 parsed"
    plain = summary(chat_template="none (the model has one)")
    assert reading_cell(plain) == "likelihood" and examples_cell(plain) == 6


def test_degenerate_sets_are_one_notice_per_reason_control_sets_first() -> None:
    from biasatlas.benchmarks.bbq.view import _degenerate_notices

    why = "never answers 'unknown' ({n} ambiguous items): ambiguous accuracy is 0"
    found = [("control Age", why.format(n=2)), ("Age", why.format(n=3)), ("SES", why.format(n=1)),
             ("Race", "always answers 'unknown' (4 items): no answer names a person, so no bias score")]
    notices = _degenerate_notices(found)
    assert notices == ["BBQ 3 sets (control Age, Age, SES): bias score degenerate: never answers 'unknown': "
                       "ambiguous accuracy is 0.",
                       "BBQ Race: bias score degenerate: always answers 'unknown': no answer names a person, "
                       "so no bias score."]


def test_a_report_compares_exactly_the_pairs_it_is_given(tmp_path: Path) -> None:
    import pytest
    from report_fixtures import crows_run

    from biasatlas.errors import UsageError
    from biasatlas.report import build_report, load_run

    runs = [load_run(crows_run(tmp_path / name, model=f"m-{name}")) for name in ("a", "b", "c")]
    default = build_report(runs)
    assert [(c.label_a, c.label_b) for c in default.comparisons] == [("m-a", "m-b"), ("m-a", "m-c")]
    chosen = build_report(runs, pairs=[(str(tmp_path / "c"), str(tmp_path / "b"))])
    assert [(c.label_a, c.label_b) for c in chosen.comparisons] == [("m-c", "m-b")]
    with pytest.raises(UsageError, match="not one of the report's run folders"):
        build_report(runs, pairs=[(str(tmp_path / "a"), str(tmp_path / "none"))])


def test_base_plain_against_instruct_through_its_own_template_is_compared_with_a_note() -> None:
    """Issue 49, item 15: "each model as it is meant to be used" is the comparison an auditor means."""
    from biasatlas.report.compare import as_meant, pairing_differences

    def run(model: str, choice: str, label: str) -> RunView:
        return replace(_bbq(model, bench={"chat_template": choice}, name=model),
                       summary={**_bbq(model).summary, "chat_template": label})

    base = run("gemma", "none", "none (the model has none)")
    instruct = run("smollm2", "model", "model (sha256 0123456789ab)")
    assert pairing_differences(base, instruct) == ()
    assert "gemma has no chat template" in as_meant(base, instruct)
    stripped = run("smollm2", "none", "none (the model has one)")  # an instruct model asked without its own
    assert as_meant(stripped, instruct) == ""
    assert any(d.startswith("chat template") for d in pairing_differences(stripped, instruct))


def test_a_served_model_is_labelled_by_its_served_name_not_its_address() -> None:
    from biasatlas.runs.view import model_name

    assert model_name("smollm2 @ http://127.0.0.1:8000/v1") == "smollm2 (served)"
    assert model_name("/models/bert") == "bert" and model_name("org/model @ home") == "org/model @ home"
