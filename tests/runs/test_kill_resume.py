"""Every benchmark and census method, killed for real halfway, resumes to the same bytes
(issue 34: "resume byte-identical for every benchmark and method").

``test_resume.py`` kills crows-pairs, census (touileb2023) and zh-neutral with SIGKILL; this
adds the rest, each with SIGKILL and with Ctrl-C (SIGINT: the run keeps its finished batches
and exits 130): census bartl2020 and gebnlp2022, StereoSet, BBQ, WinoBias, Winogender, SEAT
and WEAT (word vectors), and Ctrl-C on the three ``test_resume.py`` covers. A run stops itself
right after its first commit of answers to the cache (:mod:`stopping`: a known point, never a
race with the test), is rerun with the same command, and compared file by file with an
uninterrupted run of a fresh cache. Census bartl2020 runs on a BERT whose floats move with
the batch a row is computed in (:func:`test_repeated_probes.batch_sensitive_bert`), the model
on which a resumed run differed before repeated probes were scored once.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from test_repeated_probes import batch_sensitive_bert
from test_resume import FILES, _cached, _env, _run, _zh_data

# name → (the run's arguments, the model fixture, extra options)
CASES = {
    # the default batch size: BEC-Pro's prior repeated in chunk 3 gets other bits there than in chunk 0
    "census-bartl2020": (["census", "--method", "bartl2020", "--country", "us"], "bert4", ["--batch-size", "64"]),
    "census-gebnlp2022": (["census", "--method", "gebnlp2022", "--country", "no"], "tiny_bert", []),
    "census-touileb2023": (["census", "--country", "no", "--sample", "40"], "tiny_bert", []),
    "crows-pairs": (["crows-pairs", "--dataset", "fr+210", "--limit", "300"], "tiny_bert", []),
    "zh-neutral": (["zh-neutral", "--data", "{tmp}/zh.jsonl"], "tiny_chinese_bert", []),
    "stereoset": (["stereoset", "--split", "dev", "--limit", "150"], "tiny_bert", []),
    "bbq": (["bbq", "--category", "Age", "--limit", "400"], "tiny_gpt2", []),
    "winobias": (["winobias", "--limit", "120"], "tiny_bert", []),
    "winogender": (["winogender"], "tiny_bert", []),
    "seat": (["seat", "--tests", "sent-weat6,sent-weat7,sent-weat8"], "tiny_bert", ["--scorer", "encoder"]),
    "weat": (["weat", "--n-resamples", "100"], "weat_vectors", ["--scorer", "word-vectors"]),
}
COVERED = {("census-touileb2023", "KILL"), ("crows-pairs", "KILL"), ("zh-neutral", "KILL")}  # by test_resume.py
STOPPING = Path(__file__).with_name("stopping.py")


@pytest.fixture(scope="module")
def bert4(shared_data, tmp_path_factory) -> Path:
    return batch_sensitive_bert(tmp_path_factory.mktemp("bert4"), shared_data)


@pytest.fixture(scope="module")
def weat_vectors(shared_data) -> Path:
    return shared_data / "weat" / "weat_w2v.txt"  # the GoogleNews vectors of WEAT's words


@pytest.fixture(scope="module")
def clean_runs(shared_data, tmp_path_factory, request):
    """``clean(case)``: the run folder of one uninterrupted run of ``case`` on a fresh cache, made
    once for both signals, and its data folder."""
    made: dict[str, tuple[Path, Path]] = {}

    def clean(case: str) -> tuple[Path, Path]:
        if case not in made:
            root = tmp_path_factory.mktemp(case)
            _zh_data(root)
            model = request.getfixturevalue(CASES[case][1])
            _run(_command(case, model, root / "clean", root), _env(shared_data, root / "cache"))
            made[case] = root / "clean", root
        return made[case]

    return clean


def _command(case: str, model: Path, out: Path, data: Path) -> list[str]:
    args, _, extra = CASES[case]
    size = [] if "--batch-size" in extra else ["--batch-size", "16"]
    return [sys.executable, "-m", "biasatlas", "run", *(a.format(tmp=data) for a in args), *extra, *size,
            "--model", str(model), "--out", str(out)]


def _stopped(cmd: list[str], env: dict[str, str], sig: str) -> tuple[int, str]:
    """Run ``cmd`` (a ``biasatlas`` command line), stopping itself with ``SIG{sig}`` right after its
    first answers are committed (:mod:`stopping`); its exit status and stderr."""
    assert cmd[1:3] == ["-m", "biasatlas"]
    done = subprocess.run([cmd[0], str(STOPPING), sig, *cmd[3:]], env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, timeout=900)
    return done.returncode, done.stderr


@pytest.mark.slow  # two runs of a tiny model each, beside one uninterrupted run per case: several seconds
@pytest.mark.parametrize(("case", "sig"), [(c, s) for c in CASES for s in ("KILL", "INT") if (c, s) not in COVERED])
def test_a_run_stopped_halfway_resumes_to_the_same_bytes(case, sig, request, clean_runs, shared_data, tmp_path):
    clean, data = clean_runs(case)
    model = request.getfixturevalue(CASES[case][1])
    n_probes = json.loads((clean / "summary.json").read_text())["provenance"]["n_probes"]

    env, out = _env(shared_data, tmp_path / "cache"), tmp_path / "out"
    status, err = _stopped(_command(case, model, out, data), env, sig)
    if sig == "INT":  # Ctrl-C: what was kept is said, exit status 130
        assert status == 130, err
        assert "rerun the same command to resume" in err
    else:
        assert status == -signal.SIGKILL
    at_stop = _cached(tmp_path / "cache")
    assert 0 < at_stop < n_probes
    assert not (out / "summary.json").exists()  # an unfinished folder never looks finished

    _run(_command(case, model, out, data), env)
    timing = json.loads((out / "timing.json").read_text())
    assert timing["scored"] > 0 and timing["cache_hits"] >= at_stop
    for name in (*FILES, "items.parquet"):
        if (clean / name).exists() or (out / name).exists():
            assert (out / name).read_bytes() == (clean / name).read_bytes(), name
