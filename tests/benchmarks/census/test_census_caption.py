"""The census table's caption says what the scores count and how they were read: the class
counts, the multi-token policy, the sentences, contexts and forward passes, the correlations'
p values, and a GeBNLP 2022 run's binary agreement. An earlier terminal-only renderer printed
these; the report's caption lost them, so the terminal and every report format lack them."""

from __future__ import annotations

import io
import json
from collections import Counter

import pytest
from rich.console import Console

import biasatlas
from biasatlas.benchmarks.census.view import census_tables
from biasatlas.report import build_report, load_run, render
from biasatlas.report.sections import run_terminal
from report_fixtures import census_run


def _words(text: str) -> str:
    """Whitespace collapsed: the terminal wraps a caption anywhere between words."""
    return " ".join(text.split())


def _terminal(run) -> str:
    console = Console(width=100, record=True, file=io.StringIO())
    console.print(run_terminal(run))
    return _words(console.export_text())


def _counts(records, key: str) -> str:
    c = Counter(r[key] for r in records)
    return f"{c['female']}/{c['male']}/{c['balanced']}"


@pytest.fixture
def fake_run(isolated_run):
    def run(**options):
        folder = isolated_run / options.get("method", "touileb2023")
        biasatlas.evaluate("census", model="fake", country="no", sample=6, out=str(folder), **options)
        return load_run(folder)
    return run


def test_the_caption_counts_the_classes_and_the_work(fake_run):
    run = fake_run()
    summary = json.loads((run.path / "summary.json").read_text(encoding="utf-8"))
    expected = (f"Occupations per class (female/male/balanced): census {_counts(run.records, 'census_class')}, "
                f"model {_counts(run.records, 'model_class')}.")
    multi = summary["multi_token"]
    work = f"{summary['n_probes']:,} sentences; {summary['n_contexts']:,} contexts."  # the fake counts no passes
    reading = (f"Identifiers {summary['identifiers']}; multi-token policy {multi['policy']}, "
               f"{multi['n_identifiers']} identifiers split into several tokens.")
    p = f"Pearson {summary['pearson']:.3f} (p = {summary['pearson_p']:.2g})"
    caption = census_tables(run)[0].caption
    for part in (expected, work, reading, p):
        assert part in caption
    report = build_report([run], compare=False)
    for shown in (_terminal(run), _words(render(report, "md")), _words(render(report, "html"))):
        assert expected in shown and work in shown and reading in shown


def test_a_gebnlp_run_states_its_binary_agreement(fake_run):
    run = fake_run(method="gebnlp2022")
    # the predecessor's flag F > M against the census flag (> 50 % women), as a % of occupations
    agree = [(r["score_f"] > r["score_m"]) == (r["census_female_pct"] > 50) for r in run.records]
    expected = (f"GeBNLP 2022 binary agreement (F > M vs census > 50 %): {100 * sum(agree) / len(agree):.1f} %, "
                "template set jobber_som.")
    assert expected in census_tables(run)[0].caption and expected in _terminal(run)


def test_a_summary_without_the_facts_has_no_sentence_for_them(tmp_path):
    """A folder written before the facts were recorded (the report fixture has none) reads as
    it did: no empty "census 0/0/0" sentence."""
    caption = census_tables(load_run(census_run(tmp_path / "old")))[0].caption
    assert "Pearson 0.610 (p = 0.06), Spearman 0.550 (p = 0.1)" in caption
    assert not any(word in caption for word in ("per class", "multi-token", "sentences", "binary agreement"))
