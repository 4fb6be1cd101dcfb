"""The command line's one error path, as a table: each mistake → exit status and one line.

Every case runs :func:`biasatlas.cli.main` in this process (argv given, output captured)
and checks the exit status (2: a usage mistake, 1: a failure at run time), a fragment
of the message, that no traceback was printed, that stderr has at most three lines, and,
for every usage mistake, that no scorer was built: each one is refused before a model
loads. Two cases run the installed entry point in a subprocess (marked slow).
"""

from __future__ import annotations

import os
import subprocess
import sys
import typing
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

import biasatlas.cli as cli
from biasatlas import registry

PAIRS = ("\tsent_more\tsent_less\tstereo_antistereo\tbias_type\n"
         "0\tShe is here.\tHe is here.\tstereo\tgender\n"
         "1\tThe old man sat.\tThe young man sat.\tstereo\tage\n"
         "2\tPoor people lie.\tRich people lie.\tstereo\tsocioeconomic\n")


@dataclass
class World:
    """What a case may point at: a good pairs file, a folder to write into, the tiny model."""

    tmp: Path
    pairs: Path
    tiny_bert: Path
    built: list[str] = field(default_factory=list)


@pytest.fixture()
def world(tmp_path, monkeypatch, shared_data, tiny_bert) -> World:
    monkeypatch.setenv("BIASATLAS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("BIASATLAS_DATA_DIR", str(shared_data))
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text(PAIRS, encoding="utf-8")
    return World(tmp_path, pairs, tiny_bert)


def no_model_may_load(world: World, monkeypatch) -> None:
    """Replace every scorer factory by one that records the call and refuses to build."""
    def refuse(name: str) -> Callable[..., typing.NoReturn]:
        def factory(model: str, **_: object) -> typing.NoReturn:
            world.built.append(name)
            raise AssertionError(f"scorer {name} was built for {model}: the mistake was not caught first")
        return factory

    for name in list(registry.SCORERS):
        monkeypatch.setitem(registry.SCORERS, name, replace(registry.SCORERS[name], target=refuse(name)))
    from biasatlas.scorers.inprocess import packaged

    monkeypatch.setattr(packaged, "resolve_packaged_model", refuse("packaged conversion"))


def run_main(argv: list[str], capsys) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exited:
        cli.main(argv)
    out, err = capsys.readouterr()
    code = exited.value.code
    return (code if isinstance(code, int) else 0), out, err


# -- setups: each prepares the world and returns the command line --------------------------
def crows(*args: str) -> Callable[[World, pytest.MonkeyPatch], list[str]]:
    return lambda w, mp: ["run", "crows-pairs", "--data", str(w.pairs), *args]


def hub_unreachable(w: World, mp: pytest.MonkeyPatch) -> list[str]:
    """Online mode, nothing cached, and a hub that does not answer (the probe is replaced:
    no network is touched)."""
    from huggingface_hub import constants

    from biasatlas.scorers.inprocess import preflight

    mp.delenv("HF_HUB_OFFLINE", raising=False)
    mp.delenv("TRANSFORMERS_OFFLINE", raising=False)
    mp.setattr(constants, "HF_HUB_OFFLINE", False)
    mp.setattr(constants, "HF_HUB_CACHE", str(w.tmp / "hf-cache"))
    mp.setattr(preflight, "_endpoint_answers", lambda endpoint, timeout: False)
    return crows("--model", "bert-base-uncased")(w, mp)


def hub_offline(w: World, mp: pytest.MonkeyPatch) -> list[str]:
    """HF_HUB_OFFLINE set (as in every test) and nothing cached."""
    from huggingface_hub import constants

    from biasatlas.scorers.inprocess import preflight

    mp.setattr(constants, "HF_HUB_CACHE", str(w.tmp / "hf-cache"))
    mp.setattr(preflight, "_endpoint_answers", lambda endpoint, timeout: pytest.fail("the hub was asked"))
    return crows("--model", "bert-base-uncased")(w, mp)


def cuda_absent(w: World, mp: pytest.MonkeyPatch) -> list[str]:
    import torch

    if torch.cuda.is_available():
        pytest.skip("CUDA is present here")
    return crows("--model", str(w.tiny_bert), "--device", "cuda")(w, mp)


def missing_data(w: World, mp: pytest.MonkeyPatch) -> list[str]:
    return ["run", "crows-pairs", "--data", str(w.tmp / "nope.csv"), "--model", "fake"]


def malformed_data(w: World, mp: pytest.MonkeyPatch) -> list[str]:
    bad = w.tmp / "bad.csv"
    bad.write_text("a,b\n1,2\n", encoding="utf-8")
    return ["run", "crows-pairs", "--data", str(bad), "--model", "fake"]


def undecodable_data(w: World, mp: pytest.MonkeyPatch) -> list[str]:
    bad = w.tmp / "latin1.tsv"
    bad.write_bytes(PAIRS.replace("She", "Élise").encode("latin-1"))
    return ["run", "crows-pairs", "--data", str(bad), "--model", "fake"]


def out_at_file(w: World, mp: pytest.MonkeyPatch) -> list[str]:
    (w.tmp / "taken.txt").write_text("mine\n", encoding="utf-8")
    return crows("--model", "fake", "--out", str(w.tmp / "taken.txt"))(w, mp)


def out_at_other_run(w: World, mp: pytest.MonkeyPatch) -> list[str]:
    folder = w.tmp / "run"
    cli_ok(crows("--model", "fake", "--out", str(folder))(w, mp))
    return crows("--model", "fake", "--lowercase", "--out", str(folder))(w, mp)


def out_at_foreign_folder(w: World, mp: pytest.MonkeyPatch) -> list[str]:
    folder = w.tmp / "thesis"
    folder.mkdir()
    (folder / "chapter1.tex").write_text("\\chapter{One}\n", encoding="utf-8")
    return crows("--model", "fake", "--out", str(folder))(w, mp)


def raising(exc: BaseException) -> Callable[[World, pytest.MonkeyPatch], list[str]]:
    """A bug (or Ctrl-C) where the pairs are read."""
    def setup(w: World, mp: pytest.MonkeyPatch) -> list[str]:
        from biasatlas.benchmarks.crows_pairs import CrowsPairs

        def load(self: object) -> typing.NoReturn:
            raise exc

        mp.setattr(CrowsPairs, "load", load)
        return crows("--model", "fake")(w, mp)
    return setup


def cli_ok(argv: list[str]) -> None:
    """Run a command that must succeed (a setup step), outside the captured output."""
    with pytest.raises(SystemExit) as exited:
        cli.main(argv)
    assert exited.value.code == 0


USAGE, RUNTIME = 2, 1
# (case id, setup → argv, exit status, a fragment of the error line)
CASES: list[tuple[str, Callable[[World, pytest.MonkeyPatch], list[str]], int, str]] = [
    ("unknown option", crows("--datset", "fr"), USAGE, "no such option: --datset"),
    ("unknown command", lambda w, mp: ["runn"], USAGE, "no such command 'runn'. Did you mean 'run'?"),
    ("batch size not a number", crows("--batch-size", "abc"), USAGE,
     "'abc' is neither a positive whole number nor 'auto'"),
    ("batch size zero", crows("--batch-size", "0"), USAGE, "'0' is neither a positive whole number nor 'auto'"),
    ("threads past the ceiling", crows("--threads", "100000"), USAGE, "--threads 100000 is more than the "),
    ("OMP_NUM_THREADS past the ceiling", lambda w, mp: (mp.setenv("OMP_NUM_THREADS", "1000000"), crows()(w, mp))[1],
     USAGE, "OMP_NUM_THREADS=1000000 is more than the "),
    ("unknown dataset", lambda w, mp: ["run", "crows-pairs", "--dataset", "fr210"], USAGE,
     "'fr210' is not one of 'en', 'en-revised', 'en-revised+210', 'fr', 'fr+210', 'nl'. Did you mean 'fr+210'?"),
    ("unknown census choice", lambda w, mp: ["run", "census", "--aggregation", "pool"], USAGE,
     "Did you mean 'pooled'?"),
    ("unknown census country", lambda w, mp: ["run", "census", "--country", "se"], USAGE,
     "'se' is not one of 'us', 'uk', 'fr', 'no', 'de', 'us-bec-pro'"),
    ("census uk without a table", lambda w, mp: ["run", "census", "--country", "uk", "--model", "fake"], USAGE,
     "then run with --census FILE"),
    ("unknown zh log base", lambda w, mp: ["run", "zh-neutral", "--log-base", "3"], USAGE,
     "'3' is not one of 'e', '2', '10'"),
    ("unknown dtype", crows("--dtype", "float64"), USAGE, "'float64' is not one of 'float32', 'float16', 'bfloat16'"),
    ("variant of another scorer", crows("--variant", "aul", "--model", "fake"), USAGE,
     "unknown fake variant 'aul'. Available: hash"),
    ("variant of another scorer, packaged model", crows("--variant", "aul"), USAGE,
     "unknown causal-lm variant 'aul'. Available: sentence-ll, shared-ll"),
    ("variant of another scorer, local model", lambda w, mp: crows(
        "--variant", "shared-ll", "--model", str(w.tiny_bert))(w, mp), USAGE,
     "unknown masked-lm variant 'shared-ll'"),
    ("causal reading of a masked LM", lambda w, mp: ["run", "census", "--country", "no", "--causal-reading", "joint",
                                                     "--model", str(w.tiny_bert)], USAGE,
     "causal reading 'joint' is for causal and seq2seq LMs"),
    ("cuda absent", cuda_absent, USAGE, "CUDA is not available (torch "),
    ("unknown device", lambda w, mp: crows("--device", "gpu0", "--model", str(w.tiny_bert))(w, mp), USAGE,
     "unknown device 'gpu0'"),
    ("model folder missing", crows("--model", "./no-such-model"), USAGE, "model folder ./no-such-model does not exist"),
    ("hub id unreachable", hub_unreachable, RUNTIME,
     "model 'bert-base-uncased' is not cached and the hub"),
    ("hub id offline", hub_offline, RUNTIME,
     "model 'bert-base-uncased' is not in the Hugging Face cache and HF_HUB_OFFLINE is set"),
    ("missing data file", missing_data, USAGE, "does not exist"),
    ("missing census file", lambda w, mp: ["run", "census", "--census", str(w.tmp / "no.csv")], USAGE,
     "does not exist"),
    ("missing zh file", lambda w, mp: ["run", "zh-neutral", "--data", str(w.tmp / "no.jsonl")], USAGE,
     "does not exist"),
    ("malformed data file", malformed_data, RUNTIME, "bad.csv, line 1"),
    ("undecodable data file", undecodable_data, RUNTIME, "not UTF-8 text"),
    ("--out at a file", out_at_file, USAGE, "is a file, not a folder"),
    ("--out at another run", out_at_other_run, USAGE, "holds another run (benchmark.lowercase: False → True)"),
    ("--out at a folder that is no run", out_at_foreign_folder, USAGE,
     "holds files that are not a biasatlas run (chapter1.tex)"),
    ("internal error", raising(RuntimeError("boom")), RUNTIME,
     "internal error: RuntimeError: boom (rerun with --debug for the traceback)"),
    ("out of memory", raising(MemoryError("no room")), RUNTIME, "out of memory"),
    ("interrupted", raising(KeyboardInterrupt()), 130, "interrupted"),
]


@pytest.mark.parametrize(("setup", "status", "says"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_each_mistake_is_one_line_and_its_exit_status(world, monkeypatch, capsys, setup, status, says):
    argv = setup(world, monkeypatch)
    capsys.readouterr()
    no_model_may_load(world, monkeypatch)
    code, _, err = run_main(argv, capsys)
    assert code == status, err
    assert says in err, err
    assert "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert 1 <= len(lines) <= 3, err
    assert any(line.startswith(("error: ", "internal error: ", "interrupted")) for line in lines), err
    assert world.built == [], "a model was loaded before the mistake was reported"


def test_debug_shows_the_traceback_anywhere_on_the_line(world, monkeypatch, capsys):
    argv = raising(RuntimeError("boom"))(world, monkeypatch)
    code, _, err = run_main([*argv, "--debug"], capsys)
    assert code == 1
    assert "Traceback (most recent call last)" in err and "RuntimeError: boom" in err
    assert err.strip().splitlines()[-1] == "internal error: RuntimeError: boom"


def test_version_names_biasatlas_torch_and_transformers(capsys):
    from importlib import metadata

    code, out, err = run_main(["--version"], capsys)
    assert code == 0 and err == ""
    assert out.strip() == (f"biasatlas {metadata.version('biasatlas')}, torch {metadata.version('torch')}, "
                           f"transformers {metadata.version('transformers')}")


def test_usage_errors_name_the_help_of_their_command(world, capsys):
    code, _, err = run_main(["run", "census", "--method", "touileb"], capsys)
    assert code == 2
    first, hint = err.strip().splitlines()
    assert first == ("error: invalid value for '--method': 'touileb' is not one of 'touileb2023', 'gebnlp2022', "
                     "'bartl2020'. Did you mean 'touileb2023'?")
    assert hint == "hint: see 'biasatlas run census --help'"


def test_batch_size_auto_reaches_the_scorer_unchanged(world, monkeypatch, capsys):
    seen: dict[str, object] = {}

    def factory(model: str, **options: object) -> typing.NoReturn:
        seen.update(options)
        raise KeyboardInterrupt  # stop once the options are known

    monkeypatch.setitem(registry.SCORERS, "masked-lm", replace(registry.SCORERS["masked-lm"], target=factory))
    code, _, _ = run_main(crows("--model", str(world.tiny_bert), "--batch-size", "auto")(world, monkeypatch), capsys)
    assert code == 130 and seen["batch_size"] == "auto"


# -- the closed sets offered on the command line are the library's ---------------------------
def _choices(command: str) -> dict[str, tuple[str, ...]]:
    import typer.main

    group = typer.main.get_command(cli.app)
    run = group.commands["run"]  # type: ignore[attr-defined]
    params = run.commands[command].params
    return {p.name: tuple(str(c) for c in p.type_descriptor.choices)
            for p in params if getattr(getattr(p, "type_descriptor", None), "choices", None)}


def test_the_choices_are_the_librarys_sets():
    from biasatlas.benchmarks.census import benchmark as census
    from biasatlas.benchmarks.census.gebnlp import TEMPLATE_SETS
    from biasatlas.benchmarks.census.language import IDENTIFIER_SETS
    from biasatlas.benchmarks.census.settings import CAUSAL_READINGS, METHODS
    from biasatlas.benchmarks.census.metrics import AGGREGATIONS
    from biasatlas.benchmarks.census.scoring import NORMALISATIONS
    from biasatlas.benchmarks.crows_pairs import DATASETS
    from biasatlas.benchmarks.sensitivity import KINDS
    from biasatlas.benchmarks.zh_neutral.benchmark import LOG_BASES, UNEQUAL_MASKS
    from biasatlas.probes import MULTI_TOKEN_POLICIES
    from biasatlas.scorers.engines import EngineName
    from biasatlas.scorers.predictions.predicted import FORMATS
    from biasatlas.values import DTYPE_ALIASES, DTYPES
    from biasatlas.scorers.start import START_TOKENS
    from biasatlas.scorers.served.http import SERVED_APIS
    from biasatlas.scorers.served.tokens import SINGLE_TOKEN_CHOICES

    scorer_sets = {"start_token": START_TOKENS, "scorer": ("auto", *registry.SCORERS), "predictions_format": FORMATS,
                   "variant": tuple(dict.fromkeys(v for s in registry.SCORERS.values() for v in s.variants)),
                   "dtype": (*DTYPES, *DTYPE_ALIASES), "multi_token": MULTI_TOKEN_POLICIES,
                   "engine": typing.get_args(EngineName), "sensitivity": KINDS, "served_api": SERVED_APIS,
                   "single_token": SINGLE_TOKEN_CHOICES}
    assert _choices("crows-pairs") == {"dataset": tuple(DATASETS), **scorer_sets}
    assert _choices("zh-neutral") == {"log_base": tuple(LOG_BASES), "unequal_masks": UNEQUAL_MASKS, **scorer_sets}
    assert _choices("census") == {
        "country": census.COUNTRIES, "aggregation": AGGREGATIONS, "normalisation": ("auto", *NORMALISATIONS),
        "method": METHODS, "template_set": tuple(TEMPLATE_SETS), "identifiers": IDENTIFIER_SETS,
        "causal_reading": ("auto", *CAUSAL_READINGS), **scorer_sets}


def test_every_run_command_takes_the_same_sampling_options():
    import typer.main

    run = typer.main.get_command(cli.app).commands["run"]  # type: ignore[attr-defined]
    for command in ("crows-pairs", "census", "zh-neutral"):
        params = {p.name: p for p in run.commands[command].params}
        for name in ("limit", "sample", "seed"):
            assert name in params, (command, name)
        assert params["seed"].help == "Seed of --sample and of the bootstrap intervals."


def test_packaged_models_are_described_as_quantised(capsys):
    from biasatlas.scorers.inprocess.packaged import PACKAGED_MODELS

    assert set(cli.PACKAGED_NOTES) == set(PACKAGED_MODELS)
    code, out, _ = run_main(["list"], capsys)
    assert code == 0
    flat = " ".join(out.replace("│", " ").split())
    assert "Q4_K_M (4-bit) dequantised to float32" in flat and "instruction-tuned" in flat
    assert "Q4_1 (4-bit) dequantised to float32" in flat
    import typer.main

    run = typer.main.get_command(cli.app).commands["run"]  # type: ignore[attr-defined]
    for command in ("crows-pairs", "census", "zh-neutral"):
        model = next(p for p in run.commands[command].params if p.name == "model")
        # short (issue 22: "a short --model help"), but what the weights are is never left out
        assert "(4-bit quantised, dequantised to float32): gemma-3-270m (base model), smollm2-135m " \
               "(instruction-tuned); more in 'biasatlas list'." in model.help


# -- the real entry point --------------------------------------------------------------------
def _subprocess(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "biasatlas", *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "HF_HUB_OFFLINE": "1"})


@pytest.mark.slow
def test_the_installed_command_prints_two_lines_for_a_typo():
    done = _subprocess("run", "crows-pairs", "--datset", "fr")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.splitlines() == ["error: no such option: --datset (Possible options: --data, --dataset, "
                                        "--dtype)", "hint: see 'biasatlas run crows-pairs --help'"]


@pytest.mark.slow
def test_the_installed_command_prints_its_version():
    done = _subprocess("--version")
    assert done.returncode == 0 and done.stdout.startswith("biasatlas ")


# -- the preflight checks themselves (biasatlas.scorers.inprocess.preflight), as the library sees them ----
def test_the_library_refuses_the_same_mistakes_before_loading(tmp_path, monkeypatch):
    from huggingface_hub import constants

    from biasatlas.errors import ModelError, UnknownName
    from biasatlas.scorers.inprocess import preflight

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hf-cache"))
    with pytest.raises(ModelError, match="HF_HUB_OFFLINE is set"):
        registry.load_scorer("bert-base-uncased", "masked-lm")
    with pytest.raises(UnknownName, match="unknown fake variant 'aul'"):
        registry.load_scorer("fake", variant="aul")
    with pytest.raises(UnknownName, match="unknown dtype 'float64'"):
        registry.load_scorer("x", "masked-lm", dtype="float64")
    assert preflight.check_model_reachable("gemma-3-270m") is None  # packaged: no network, no cache


def _cache_config(cache: Path, repo: str, revision: str = "main") -> None:
    """The Hugging Face cache layout for one file: refs/<revision> → snapshots/<commit>/config.json."""
    folder = cache / ("models--" + repo.replace("/", "--"))
    commit = "a" * 40
    (folder / "refs").mkdir(parents=True)
    (folder / "refs" / revision).write_text(commit, encoding="utf-8")
    (folder / "snapshots" / commit).mkdir(parents=True)
    (folder / "snapshots" / commit / "config.json").write_text("{}", encoding="utf-8")


def test_a_cached_hub_id_passes_without_asking_the_hub(tmp_path, monkeypatch):
    from huggingface_hub import constants

    from biasatlas.errors import ModelError
    from biasatlas.scorers.inprocess import preflight

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path))
    monkeypatch.setattr(preflight, "_endpoint_answers", lambda endpoint, timeout: pytest.fail("the hub was asked"))
    _cache_config(tmp_path, "org/cached-model")
    preflight.check_model_reachable("org/cached-model")
    with pytest.raises(ModelError, match="'org/cached-model' is not in the Hugging Face cache"):
        preflight.check_model_reachable("org/cached-model", revision="v2")  # another revision: not cached


def test_an_answering_hub_lets_an_uncached_id_through(tmp_path, monkeypatch):
    from huggingface_hub import constants

    from biasatlas.scorers.inprocess import preflight

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path))
    asked: list[str] = []
    monkeypatch.setattr(preflight, "_endpoint_answers", lambda endpoint, timeout: asked.append(endpoint) or True)
    monkeypatch.setattr(preflight, "_reachable", set())
    preflight.check_model_reachable("org/online-model")
    preflight.check_model_reachable("org/online-model")  # remembered: asked once
    assert asked == [constants.ENDPOINT]


def test_the_hub_probe_counts_any_http_answer_and_nothing_else():
    import http.server
    import socket
    import threading

    from biasatlas.scorers.inprocess.preflight import _endpoint_answers

    class NotFound(http.server.BaseHTTPRequestHandler):
        def do_HEAD(self) -> None:  # noqa: N802 (the handler's required name)
            self.send_response(404)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), NotFound)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        assert _endpoint_answers(f"http://127.0.0.1:{server.server_port}", 3.0)  # a 404 is an answer
    finally:
        server.shutdown()
    with socket.socket() as sock:  # a port nobody listens on: refused at once
        sock.bind(("127.0.0.1", 0))
        closed = sock.getsockname()[1]
    assert not _endpoint_answers(f"http://127.0.0.1:{closed}", 3.0)


class _FakeCuda:
    def __init__(self, available: bool, count: int) -> None:
        self.available, self.count = available, count

    def is_available(self) -> bool:
        return self.available

    def device_count(self) -> int:
        return self.count


@pytest.mark.parametrize(("build", "available", "count", "device", "says"), [
    (None, False, 0, "cuda", "CUDA is not available (torch 2.0, CPU-only build); use --device cpu"),
    ("12.4", False, 0, "cuda", "CUDA is not available (torch 2.0, CUDA 12.4 build, no GPU visible)"),
    ("12.4", True, 2, "cuda:2", "this machine has 2 CUDA device(s) (cuda:0 … cuda:1)"),
])
def test_cuda_refusals_name_the_torch_build(build, available, count, device, says):
    from types import SimpleNamespace

    import torch

    from biasatlas.errors import UsageError
    from biasatlas.scorers.inprocess.preflight import _check_cuda

    fake = SimpleNamespace(__version__="2.0", version=SimpleNamespace(cuda=build), cuda=_FakeCuda(available, count))
    with pytest.raises(UsageError) as refused:
        _check_cuda(device, torch.device(device).index, fake)
    assert says in str(refused.value)
    _check_cuda("cuda:1", 1, SimpleNamespace(__version__="2.0", version=SimpleNamespace(cuda="12.4"),
                                             cuda=_FakeCuda(True, 2)))  # present: passes
