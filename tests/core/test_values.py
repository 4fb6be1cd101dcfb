"""One check per value (biasatlas.values): the batch size, the dtype and the device are read the
same way by every entry that takes them (the run request, a suite file's model table, the
command line's parser, every scorer's constructor): each spelling is accepted by all of them
or refused by all of them, with the same message.

The scorers' constructors are stopped at the model's lookup, which comes right after the checks,
so no model loads: reaching it means the values were accepted."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer

from biasatlas import registry
from biasatlas.cli.options import batch_size as batch_size_flag
from biasatlas.errors import UnknownName, UsageError
from biasatlas.request import ModelOptions, split_options
from biasatlas.scorers.inprocess import causal_lm, encoder, masked_lm, preflight, seq2seq
from biasatlas.scorers.served import completions as served
from biasatlas.suite import SuiteError
from biasatlas.suite.grid import _model
from biasatlas.values import canonical_dtype, check_batch_size, check_device_name


class Reached(Exception):
    """Raised where a scorer's constructor looks its model up: its option checks have passed."""


@pytest.fixture
def stopped(monkeypatch):
    """Each scorer's constructor, stopped where it would look its model up."""
    def stop(*args, **kwargs):
        raise Reached

    for module in (masked_lm, causal_lm, seq2seq, encoder):
        monkeypatch.setattr(module, "resolve", stop)
    monkeypatch.setattr(served.Endpoint, "parse", stop)
    return {"masked-lm": masked_lm.MaskedLMScorer, "causal-lm": causal_lm.CausalLMScorer,
            "seq2seq": seq2seq.Seq2SeqScorer, "encoder": encoder.EncoderScorer, "served": served.ServedScorer}


def _suite(name: str, value: object) -> object:
    """The model table ``{id = "fake", name = value}`` as a suite file reads it."""
    _, (options, _, _, _) = _model(Path("suite.toml"), 1, {"id": "fake", name: value}, {}, Path("."))
    return getattr(options, name)


def _entries(name: str, stopped: dict) -> dict:
    """Every reading of the option ``name``: what it holds the value as (None for a scorer,
    stopped before it holds anything), or the UsageError it refuses it with."""
    readers = {
        "the check": {"batch_size": check_batch_size, "dtype": canonical_dtype, "device": check_device_name}[name],
        "ModelOptions": lambda v: getattr(ModelOptions(model="fake", **{name: v}), name),
        "evaluate's keywords": lambda v: getattr(split_options({name: v})[1], name),
        "a suite file": lambda v: _suite(name, v),
    }
    for kind, cls in stopped.items():
        if name != "device" or kind != "served":  # a server's device is its own
            model = "http://127.0.0.1:1/v1" if kind == "served" else "m"
            readers[kind] = lambda v, cls=cls, model=model: cls(model, **{name: v})
    return readers


def _outcome(read, value):
    try:
        return ("accepted", read(value))
    except Reached:
        return ("accepted", None)
    except SuiteError as exc:  # the suite names the file, table and key before the message
        return ("refused", str(exc).removeprefix(f"{exc.path}: {exc.where}: "))
    except (UsageError, UnknownName) as exc:  # a name outside a closed set says which it meant
        return ("refused", str(exc))


def _agree(name: str, value: object, stopped: dict, held: object) -> None:
    outcomes = {entry: _outcome(read, value) for entry, read in _entries(name, stopped).items()}
    verdicts = {entry: verdict for entry, (verdict, _) in outcomes.items()}
    assert set(verdicts.values()) == {verdicts["the check"]}, outcomes
    said = {entry: text for entry, (_, text) in outcomes.items() if text is not None}
    if verdicts["the check"] == "refused":
        assert set(said.values()) == {said["the check"]}, said
    else:  # the records that hold it hold it as the check returns it
        assert set(said.values()) == {held}, said


@pytest.mark.parametrize(("value", "held"), [(1, 1), (64, 64), ("auto", "auto"), ("AUTO", "auto"),
                                             ("Auto", "auto")])
def test_every_entry_accepts_a_batch_size_alike(stopped, value, held):
    _agree("batch_size", value, stopped, held)


@pytest.mark.parametrize("value", [0, -3, 8.0, 2.5, "16", "8.0", " auto", "big", True, None])
def test_every_entry_refuses_a_batch_size_alike(stopped, value):
    _agree("batch_size", value, stopped, None)
    assert _outcome(check_batch_size, value) == (
        "refused", f"batch size '{value}' is neither a positive whole number nor 'auto'")


@pytest.mark.parametrize(("value", "held"), [("float32", "float32"), ("bf16", "bfloat16"), ("BF16", "bfloat16"),
                                             ("Float16", "float16"), ("fp32", "float32")])
def test_every_entry_accepts_a_dtype_alike(stopped, value, held):
    _agree("dtype", value, stopped, held)


@pytest.mark.parametrize("value", ["float64", "bfloat", "", 32, None])
def test_every_entry_refuses_a_dtype_alike(stopped, value):
    _agree("dtype", value, stopped, None)


@pytest.mark.parametrize("value", ["cpu", "cuda", "cuda:1", "mps"])
def test_every_entry_accepts_a_device_name_alike(stopped, monkeypatch, value):
    # whether this machine has the device is the suite's next question (torch's), not the name's
    monkeypatch.setattr(preflight, "check_device", lambda device: None)
    monkeypatch.setattr(registry, "check_device", lambda device: None)  # where the suite's preflight reads it
    _agree("device", value, stopped, value)


@pytest.mark.parametrize("value", ["CUDA", "gpu0", "cuda:x", "cuda:", "", 0, None])
def test_every_entry_refuses_a_device_name_alike(stopped, value):
    _agree("device", value, stopped, None)
    with pytest.raises(UsageError) as before_loading:  # the machine's check (torch) refuses it the same way
        registry.preflight({"device": value if value is not None else "None"})
    assert str(before_loading.value) == _outcome(check_device_name, value if value is not None else "None")[1]


@pytest.mark.parametrize(("text", "value"), [("16", 16), (" 16 ", 16), ("auto", "auto"), ("AUTO", "auto"),
                                             ("8.0", "8.0"), ("0", 0), ("-3", "-3"), ("big", "big")])
def test_the_command_line_reads_digits_as_a_number_then_checks_it_as_every_entry_does(text, value):
    verdict, said = _outcome(check_batch_size, value)
    try:
        got = ("accepted", batch_size_flag(text))
    except typer.BadParameter as exc:
        got = ("refused", exc.message)
    assert got == (verdict, said)


def test_the_encoder_reads_auto_as_its_own_sixteen_rows(monkeypatch):
    """The encoder searches no device memory: ``auto`` is 16 texts a batch (AUTO_ROWS), any other
    accepted size is the number itself."""
    held = {}

    def stop(model):
        raise Reached

    monkeypatch.setattr(encoder, "resolve", stop)
    for value, rows in (("auto", 16), ("AUTO", 16), (3, 3)):
        scorer = encoder.EncoderScorer.__new__(encoder.EncoderScorer)
        with pytest.raises(Reached):
            scorer.__init__("m", batch_size=value)
        held[value] = scorer.batch_size
        assert held[value] == rows


@pytest.mark.parametrize("text", ["float32", "bf16", "BF16", "Float16", "FP32", "float64", "bfloat"])
def test_the_command_line_takes_the_dtypes_every_entry_takes(text):
    """``--dtype`` lists its choices in --help (click's check, click's wording); it takes a spelling
    exactly when the one check does, and hands on what that check reads as the same dtype."""
    from biasatlas.cli.run import build_command

    verdict, held = _outcome(canonical_dtype, text)
    try:
        given = build_command("crows-pairs").make_context("run", ["--dtype", text]).params["dtype"]
    except typer.BadParameter:
        assert verdict == "refused"
    else:
        assert (verdict, canonical_dtype(given)) == ("accepted", held)
