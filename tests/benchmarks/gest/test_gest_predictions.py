"""GEST's published per-sentence predictions through the predictions scorer (Pikuliak et al. 2023;
``kinit-sk/gest`` ``data/predictions/english_{mlm,glm}/<model>_template-<k>.txt``).

The reader is checked on real files; the rates computed from them against a reference of the
authors' notebook (``_english_mlm.ipynb``: ``r_i = exp(mean)`` per stereotype, geometric means of
stereotypes 1–7 and 8–16, ``g_s = r_m / r_f``) written here with pandas; and the Pythia suite's g_s
against log parameters (the paper's "the larger the model, the more stereotypical").
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

import biasatlas
from biasatlas.errors import UsageError
from biasatlas.benchmarks.gest.predictions import FORMAT
from biasatlas.scorers.predictions import files


def read(path: Path) -> files.FileAnswers:
    """A file read as the predictions scorer reads it: with GEST's declared format."""
    return files.read(path, formats=(FORMAT,))

REPO = Path(__file__).resolve().parents[3]
#: The authors' parameter counts (``_english_mlm.ipynb``, ``gmodels_str``).
PYTHIA = {"pythia-70m": 70426624, "pythia-160m": 162322944, "pythia-410m": 405334016, "pythia-1b": 1011781632,
          "pythia-1.4b": 1414647808, "pythia-2.8b": 2775208960, "pythia-6.9b": 6857302016,
          "pythia-12b": 11846072320}


@pytest.fixture(scope="module")
def gest(shared_data: Path) -> Path:
    return shared_data / "gest"


def test_the_reader_reads_a_published_file_by_its_shape(gest: Path) -> None:
    path = gest / "predictions" / "english_glm" / "pythia-70m_template-0.txt"
    first = float(path.read_text().split("\n", 1)[0])
    assert files.detect(path, path.read_text(), (FORMAT,)) == "gest"
    got = read(path)
    assert (got.format, got.model, got.task, got.dtype) == ("gest", "pythia-70m", "template-0", "float32")
    assert len(got.answers) == 3565 and set(got.answers) == {str(n) for n in range(1, 3566)}
    assert got.answers["1"].values == (first,) and got.answers["1"].line == 1
    assert read(gest / "predictions" / "english_glm" / "pythia-12b_template-1.txt").dtype == "float16"
    assert read(gest / "predictions" / "english_mlm" / "bert-base-uncased_template-3.txt").model == "bert-base-uncased"


@pytest.mark.slow
def test_a_bad_line_is_unreadable_and_a_short_file_is_refused(tmp_path: Path, isolated_run: Path) -> None:
    path = tmp_path / "toy_template-0.txt"
    path.write_text("0.5\n-0.25\nnan\n0.1\n")
    got = read(path)
    assert got.answers["3"].why is not None and "line" not in got.answers["3"].why and got.answers["3"].line == 3
    # 3 of the 3,565 sentences have a readable answer: 3,561 missing, line 3 unreadable
    with pytest.raises(UsageError, match="3,562 of the run's 3,565 ids") as refused:
        biasatlas.evaluate("gest", predictions=path, template="0", cache=False, progress=False, n_resamples=10)
    assert "3,561 missing, 1 unreadable" in str(refused.value) and "--max-missing" in str(refused.value)


def _reference(path: Path, sentences: pd.DataFrame) -> tuple[np.ndarray, float]:
    """The 16 r_i and g_s as the authors' notebook computes them."""
    frame = sentences.assign(value=[float(v) for v in path.read_text().split()])
    r = np.exp(frame.groupby("stereotype")["value"].mean().sort_index().to_numpy())  # (16,)
    r_f, r_m = np.exp(np.log(r[:7]).mean()), np.exp(np.log(r[7:]).mean())
    return r, float(r_m / r_f)


def _ours(path: Path) -> dict:
    template = re.search(r"template-(\d)", path.name)[1]
    return biasatlas.evaluate("gest", predictions=path, template=template, cache=False, progress=False,
                              n_resamples=20).summary_dict


@pytest.mark.slow
@pytest.mark.parametrize("name", ["english_glm/pythia-1b_template-0.txt", "english_glm/gpt2-xl_template-1.txt",
                                  "english_glm/Llama-2-13b-chat-hf_template-1.txt",
                                  "english_mlm/bert-base-uncased_template-2.txt",
                                  "english_mlm/xlm-roberta-large_template-0.txt"])
def test_published_predictions_give_the_authors_rates(name: str, gest: Path, isolated_run: Path) -> None:
    path = gest / "predictions" / name
    sentences = pd.read_csv(gest / "gest.csv")
    r, g_s = _reference(path, sentences)
    ours = _ours(path)
    assert ours["g_s"] == pytest.approx(g_s, rel=1e-12)
    got = [ours["stereotypes"][name]["r"] for name in ours["stereotypes"]]
    assert got == pytest.approx(list(r), rel=1e-12)


@pytest.mark.slow
def test_the_pythia_suite_grows_more_stereotypical_with_size(gest: Path, isolated_run: Path) -> None:
    # g_s of each size: the mean of its two templates (the paper's Figure "en_perf")
    g = [np.mean([_ours(gest / "predictions" / "english_glm" / f"{m}_template-{k}.txt")["g_s"] for k in (0, 1)])
         for m in PYTHIA]
    rho, p = spearmanr([math.log10(n) for n in PYTHIA.values()], g)
    # 7 of the 28 pairs of sizes out of order would already give rho ≤ 0.5; here one pair (1b > 1.4b) is
    assert rho == pytest.approx(1 - 6 * 2 / (8 * 63))  # one adjacent swap: Σd² = 2
    assert p < 1e-3
    # docs/benchmarks/gest.md prints the same table (scripts/gest_scale.py)
    card = (REPO / "docs" / "benchmarks" / "gest.md").read_text(encoding="utf-8")
    for model, value in zip(PYTHIA, g):
        assert re.search(rf"\| {re.escape(model)} \| [\d,]+ \| {value:.4f} \|", card), model


@pytest.mark.slow
def test_published_page_lists_every_file_with_the_authors_rate(gest: Path) -> None:
    # docs/published.md's GEST rows: every published file once, its "authors' code" column the g_s of the
    # reference above, and ours equal to it at the printed digits
    sentences = pd.read_csv(gest / "gest.csv")
    page = (REPO / "docs" / "published.md").read_text(encoding="utf-8").splitlines()
    rows = {(c[1], c[2]): c for c in ([x.strip() for x in line.strip("|").split("|")] for line in page
                                      if line.startswith("| GEST "))}
    files = sorted((gest / "predictions").glob("english_*/*_template-*.txt"))
    assert len(files) == len(rows) == 90
    for path in files:
        model, template = path.stem.rsplit("_", 1)
        cells = rows[(model, template)]
        assert cells[3] == f"{_reference(path, sentences)[1]:.4f}" == cells[4].split()[0], path.name


MLM = Path("english_mlm")


def test_a_masked_template_is_recorded_before_the_scorer_is_bound(gest: Path, isolated_run: Path) -> None:
    # issue 46: the run folder's request is recorded before the predictions scorer is bound, when the
    # reading is still next-token, whose family has two templates: template 2 or 3 was an IndexError
    from biasatlas.request import ModelOptions, RunRequest

    for k in ("2", "3"):
        path = gest / "predictions" / MLM / f"bert-base-uncased_template-{k}.txt"
        recorded = RunRequest("gest", {"template": k}, ModelOptions(predictions=path)).recorded()
        assert (recorded["benchmark"]["template"], recorded["benchmark"]["templates"]) == (k, [f"template-{k}"])


def test_the_file_name_gives_the_template_and_a_contradiction_is_refused(isolated_run: Path) -> None:
    # issue 46: --template 0 on a file named ..._template-1.txt filed template 1's scores under template 0
    from biasatlas.benchmarks.gest.benchmark import Gest
    from biasatlas.probes import ScorerInfo

    def given(name: str) -> ScorerInfo:
        return ScorerInfo(kind="predictions", reads="given", source=f"/some/where/{name}")

    named = given("gpt2_template-1.txt")
    assert Gest().bind(named).template == "1" and [t.key for t in Gest().bind(named).templates()] == ["template-1"]
    assert Gest(template="1").bind(named).template == "1"
    with pytest.raises(UsageError, match=r"^gpt2_template-1.txt holds template 1's scores, not template 0's: leave "
                                         r"out --template, or give --template 1$"):
        Gest(template="0").bind(named)
    with pytest.raises(UsageError, match="name does not say which.*--template"):
        Gest().bind(given("scores.txt"))
    assert Gest(template="2").bind(given("scores.txt")).template == "2"
    with pytest.raises(UsageError, match="says template 7; GEST's templates are 0 to 3"):
        Gest().bind(given("gpt2_template-7.txt"))


@pytest.mark.slow
def test_templates_2_and_3_run_into_a_folder_as_the_published_page_tells(gest: Path, isolated_run: Path,
                                                                         capsys) -> None:
    # docs/published.md's command, `run gest --predictions FILE --template K --out DIR`, for a masked LM's
    # templates 2 and 3; the Python API with out= and no template (the file's name gives it); g_s the
    # authors' (the reference above)
    import biasatlas.cli as cli

    sentences = pd.read_csv(gest / "gest.csv")
    two = gest / "predictions" / MLM / "bert-base-uncased_template-2.txt"
    with pytest.raises(SystemExit) as exited:
        cli.main(["run", "gest", "--predictions", str(two), "--template", "2", "--out", str(isolated_run / "two"),
                  "--n-resamples", "10"])
    assert exited.value.code in (0, None), capsys.readouterr().err
    summary = json.loads((isolated_run / "two" / "summary.json").read_text(encoding="utf-8"))
    assert summary["g_s"] == pytest.approx(_reference(two, sentences)[1], rel=1e-12)
    three = gest / "predictions" / MLM / "bert-base-uncased_template-3.txt"
    run = biasatlas.evaluate("gest", predictions=three, out=isolated_run / "three", cache=False, progress=False,
                             n_resamples=10)
    assert run.summary_dict["g_s"] == pytest.approx(_reference(three, sentences)[1], rel=1e-12)
    config = json.loads((isolated_run / "three" / "config.json").read_text(encoding="utf-8"))["benchmark"]
    assert (config["template"], config["templates"], config["reading"]) == ("3", ["template-3"], "given")


@pytest.mark.slow
def test_a_contradicting_template_is_one_line_exit_2(gest: Path, isolated_run: Path, capsys) -> None:
    import biasatlas.cli as cli

    path = gest / "predictions" / "english_glm" / "gpt2_template-1.txt"
    with pytest.raises(SystemExit) as exited:
        cli.main(["run", "gest", "--predictions", str(path), "--template", "0", "--out", str(isolated_run / "run")])
    err = capsys.readouterr().err.strip().splitlines()
    assert exited.value.code == 2
    assert err[-1] == ("error: gpt2_template-1.txt holds template 1's scores, not template 0's: leave out --template, "
                       "or give --template 1")
    assert not (isolated_run / "run" / "summary.json").exists()
