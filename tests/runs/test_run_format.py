"""Owner files carry a ``format_version``, and census records its method as ``method`` (issue 20).

Run folders written before (format 1) hold ``.biasatlas-run.json`` without a
``format_version``, and census's config recorded the method as ``variant``. Such a folder
must still be its own run's (a rerun resumes it, a suite skips it as finished), read under
the new name (pairing in compare, provenance, the sensitivity runs' reruns), and a folder
of a newer format is refused in one line. The format-1 folders here are written by hand
in that format's exact shape: the key order and ``json.dumps`` arguments of eb28fe0's
``Census.config()`` and ``claim_run_folder``, shown literally in :func:`old_owner` and
:func:`old_config` (the files that commit wrote for the run of :func:`_census`).
"""

from __future__ import annotations

import hashlib
import json
from importlib.resources import files
from pathlib import Path

import pytest

import biasatlas
from biasatlas.benchmarks.census.benchmark import VERSION as CENSUS_VERSION
from biasatlas.report.compare import pairing_differences
from biasatlas.runs.folder import RunFolderError, same_request, upgraded
from biasatlas.runs.format import FORMAT_VERSION, renamed_config

CENSUS = {"country": "no", "sample": 4}


def _no_table_sha256() -> str:
    return hashlib.sha256(files("biasatlas.benchmarks.census").joinpath("tables/no_ssb.csv").read_bytes()).hexdigest()


def _old_bench(**unbound: object) -> dict[str, object]:
    """Census's config of format 1 for :data:`CENSUS`, in ``Census.config()``'s key order: the
    method under ``variant``, third. Its ``version`` is the benchmark's today (eb28fe0 wrote "1"; a
    bump changes that value and nothing else of these files)."""
    return {"benchmark": "census", "version": CENSUS_VERSION, "variant": "touileb2023", "country": "no",
            "dataset": "census-no", "data": "biasatlas:census/tables/no_ssb.csv", "data_sha256": _no_table_sha256(),
            "census": None, "language": "no", "inflections": None, "sample": 4, "seed": 0, "limit": None,
            "aggregation": "mean-prob", "normalisation": unbound.get("normalisation", "auto"),
            "normalisation_requested": "auto", "template_set": None, "missing": "error", "n_resamples": 1000,
            "identifiers": "paired", "causal_reading": unbound.get("causal_reading", "auto"), "preamble": "",
            "multi_token_policy": unbound.get("multi_token_policy", "unknown")}


def old_owner() -> str:
    """eb28fe0's ``.biasatlas-run.json`` of :func:`_census`: the request, sorted, no format_version."""
    return json.dumps({"benchmark": _old_bench(),
                       "model": {"dtype": "float32", "model": "fake", "revision": None, "scorer": "auto",
                                 "trust_remote_code": False, "variant": None}}, indent=2, sort_keys=True)


def old_config() -> str:
    """eb28fe0's ``config.json`` of :func:`_census`: the config bound to the fake scorer (a
    likelihood scorer: template normalisation, the conditional reading)."""
    bench = _old_bench(normalisation="template", causal_reading="conditional",
                       multi_token_policy="not scored (conditional reading)")
    scorer = {"scorer": "fake", "model": "fake", "variant": "hash", "boost": [], "bias": 0.0}
    return json.dumps({"benchmark": bench, "scorer": scorer}, indent=2, ensure_ascii=False)


def _census(out: Path, **options: object) -> biasatlas.EvaluationRun:
    return biasatlas.evaluate("census", model="fake", out=out, progress=False, **{**CENSUS, **options})


def _format_1(folder: Path) -> None:
    """Rewrite a census run folder's config.json and owner file as format 1 wrote them."""
    (folder / "config.json").write_text(old_config(), encoding="utf-8")
    (folder / ".biasatlas-run.json").write_text(old_owner(), encoding="utf-8")


def _as_format_1(text: str, *, owner: bool) -> str:
    """Any census run's config.json or owner file in format 1's shape: ``method`` back under
    ``variant`` in its place, no ``format_version``; the old writer's ``json.dumps`` arguments."""
    record = json.loads(text)
    record.pop("format_version", None)
    record["benchmark"] = {("variant" if k == "method" else k): v for k, v in record["benchmark"].items()}
    return json.dumps(record, indent=2, sort_keys=True) if owner else json.dumps(record, indent=2, ensure_ascii=False)


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.name not in ("timing.json",)}


# -- the record, unit by unit ------------------------------------------------------------------------------
def test_a_renamed_key_takes_its_new_name_in_its_place():
    assert list(renamed_config({"a": 1, "variant": "x", "b": 2}, (("variant", "method"),))) == ["a", "method", "b"]
    # Written after the rename: both keys kept as they are (the old name may mean something else now).
    assert renamed_config({"variant": "nangia", "method": "x"}, (("variant", "method"),)) == \
        {"variant": "nangia", "method": "x"}


def test_format_1_is_upgraded_and_format_2_is_read_as_it_is():
    request = {"benchmark": {"benchmark": "census", "method": "touileb2023"}, "model": {"model": "fake"}}
    old = {"benchmark": {"benchmark": "census", "variant": "touileb2023"}, "model": {"model": "fake"}}
    renames = (("variant", "method"),)
    assert upgraded(old, renames) == request
    assert upgraded({**request, "format_version": FORMAT_VERSION}, renames) == request
    # format 2 is never renamed: a "variant" there is what it says.
    kept = {"benchmark": {"variant": "x"}, "format_version": 2}
    assert upgraded(kept, renames) == {"benchmark": {"variant": "x"}}
    assert same_request(old, request, renames)
    assert not same_request(old, request)  # without the spec's renames the old key is another setting


@pytest.mark.parametrize(("version", "says"), [
    (3, "written by a newer biasatlas (format_version 3; this one reads 1 to 2)"),
    ("2", "records an unknown format_version '2'"),
    (True, "records an unknown format_version True"),
    (0, "records an unknown format_version 0"),
])
def test_a_format_this_version_cannot_read_is_refused(version, says):
    with pytest.raises(RunFolderError) as refused:
        same_request({"benchmark": {}, "format_version": version}, {"benchmark": {}},
                     where=Path("x/.biasatlas-run.json"))
    assert str(refused.value).startswith("x/.biasatlas-run.json ") and says in str(refused.value)


# -- the bytes that change ---------------------------------------------------------------------------------
def test_the_hand_written_format_1_is_what_the_old_writer_wrote(isolated_run):
    """:func:`old_config`/:func:`old_owner` and :func:`_as_format_1` of today's files agree, so
    each change of the new format is exactly: config.json's ``"variant"`` → ``"method"`` (same
    line, same value), the owner file's key moved to its sorted place and ``format_version`` added."""
    _census(Path("new"))
    config = Path("new/config.json").read_text(encoding="utf-8")
    owner = Path("new/.biasatlas-run.json").read_text(encoding="utf-8")
    assert _as_format_1(config, owner=False) == old_config()
    assert _as_format_1(owner, owner=True) == old_owner()
    assert config == old_config().replace('    "variant": "touileb2023",\n', '    "method": "touileb2023",\n')
    lines = owner.splitlines()
    old_lines = old_owner().splitlines()
    assert sorted(set(lines) - set(old_lines)) == ['    "method": "touileb2023",', '  "format_version": 2,']
    assert sorted(set(old_lines) - set(lines)) == ['    "variant": "touileb2023",']


# -- a format-1 folder is still its own run's ---------------------------------------------------------------
def test_a_format_1_census_folder_reruns_as_its_own(isolated_run):
    _census(Path("old"))
    _format_1(Path("old"))
    before = _files(Path("old"))
    again = _census(Path("old"))  # refused as "another run" (benchmark.variant → None) without the upgrade
    after = _files(Path("old"))
    assert {name for name in before if before[name] != after[name]} == {"config.json", ".biasatlas-run.json"}
    assert json.loads(after[".biasatlas-run.json"])["format_version"] == FORMAT_VERSION
    assert again.config["benchmark"]["method"] == "touileb2023"


def test_a_format_1_folder_of_other_settings_is_still_another_run(isolated_run):
    _census(Path("old"))
    _format_1(Path("old"))
    with pytest.raises(RunFolderError, match="holds another run") as refused:
        _census(Path("old"), method="gebnlp2022")
    message = str(refused.value)
    assert "benchmark.method: 'touileb2023' → 'gebnlp2022'" in message and "variant" not in message


def test_a_newer_format_is_refused_in_one_line(isolated_run, capsys):
    import biasatlas.cli as cli

    _census(Path("new"))
    owner = Path("new/.biasatlas-run.json")
    owner.write_text(json.dumps({**json.loads(owner.read_text(encoding="utf-8")), "format_version": 3}),
                     encoding="utf-8")
    with pytest.raises(SystemExit) as exited:
        cli.main(["run", "census", "-m", "fake", "--country", "no", "--sample", "4", "--out", "new"])
    err = capsys.readouterr().err
    assert exited.value.code != 0 and err.count("\n") == 1
    assert err.startswith("error: new/.biasatlas-run.json was written by a newer biasatlas (format_version 3")


def test_a_format_1_census_folder_reads_its_method_under_the_new_name(isolated_run):
    _census(Path("old"))
    _census(Path("new"))
    _format_1(Path("old"))
    old, new = biasatlas.load_run("old"), biasatlas.load_run("new")
    assert old.config == new.config and "variant" not in old.config["benchmark"]
    from biasatlas.report import load_run as load_view

    assert pairing_differences(load_view("old"), load_view("new")) == ()
    Path("old/config.json").write_text(old_config().replace('"touileb2023"', '"gebnlp2022"'), encoding="utf-8")
    assert pairing_differences(load_view("old"), load_view("new")) == ("method: A gebnlp2022, B touileb2023",)


def test_the_provenance_shows_a_format_1_config_under_the_new_name(isolated_run):
    from biasatlas.report import build_report, load_runs, render_html

    _census(Path("old"))
    _format_1(Path("old"))
    page = render_html(build_report(load_runs(["old"]), n_resamples=50))
    assert "&#34;method&#34;: &#34;touileb2023&#34;" in page or '"method": "touileb2023"' in page
    assert '"variant": "touileb2023"' not in page and "&#34;variant&#34;: &#34;touileb2023&#34;" not in page


SUITE = """\
[[benchmark]]
name = "census"
country = "no"
sample = 4

[[model]]
id = "fake"
"""


def test_a_suite_skips_a_finished_format_1_cell(isolated_run):
    from biasatlas.suite import read_suite, run_suite

    Path("suite.toml").write_text(SUITE, encoding="utf-8")
    first = run_suite(read_suite(Path("suite.toml")), Path("out"), progress=False)
    (cell,) = first.ran
    for name, owner in (("config.json", False), (".biasatlas-run.json", True)):
        path = Path("out", cell, name)
        path.write_text(_as_format_1(path.read_text(encoding="utf-8"), owner=owner), encoding="utf-8")
    assert '"variant": "touileb2023"' in Path("out", cell, ".biasatlas-run.json").read_text(encoding="utf-8")
    assert run_suite(read_suite(Path("suite.toml")), Path("out"), progress=False).skipped == (cell,)


@pytest.mark.slow  # about a second: six census runs on the fake scorer
def test_a_format_1_sensitivity_folder_reruns_as_its_own(isolated_run):
    from biasatlas.request import ModelOptions, RunRequest
    from biasatlas.sensitivity import run

    request = RunRequest("census", dict(CENSUS), ModelOptions(model="fake"))
    first = run(request, "rules", out=Path("sens"), progress=False)
    runs = sorted(p.parent for p in Path("sens").rglob(".biasatlas-run.json"))
    assert len(runs) == len(first["runs"]) > 1
    for folder in runs:
        for name, owner in (("config.json", False), (".biasatlas-run.json", True)):
            path = folder / name
            path.write_text(_as_format_1(path.read_text(encoding="utf-8"), owner=owner), encoding="utf-8")
    assert run(request, "rules", out=Path("sens"), progress=False) == first  # each claimed as its own rerun


def test_a_census_sensitivity_setting_is_hashed_as_before_the_rename(isolated_run):
    """sensitivity.json's ``setting`` (which models' runs are ranked together) is the sha256 of the
    unperturbed run's benchmark config without its data path: hashed under format 1's names, so a
    census sensitivity folder written before the rename ranks with one written after."""
    from biasatlas.request import ModelOptions, RunRequest
    from biasatlas.sensitivity import run

    result = run(RunRequest("census", dict(CENSUS), ModelOptions(model="fake")), "preambles", progress=False)
    bench = json.loads(old_config())["benchmark"]
    del bench["data"]
    assert result["setting"] == hashlib.sha256(json.dumps(bench, sort_keys=True).encode()).hexdigest()
