"""Registries: plain dicts of names to factories, with "did you mean" errors.

Benchmarks and scorers are looked up by name here only, so ``biasatlas list`` and the CLI
show the same set.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .errors import did_you_mean


def lookup(kind: str, table: dict[str, Any], name: str) -> Any:
    if name not in table:
        raise did_you_mean(kind, name, table)
    return table[name]


def _masked(**kw: Any) -> Any:
    from .scorers.masked_lm import MaskedLMScorer

    return MaskedLMScorer(**kw)


def _causal(**kw: Any) -> Any:
    from .scorers.causal_lm import CausalLMScorer

    return CausalLMScorer(**kw)


def _seq2seq(**kw: Any) -> Any:
    from .scorers.seq2seq import Seq2SeqScorer

    return Seq2SeqScorer(**kw)


def _fake(model: str = "fake", variant: str | None = None, **_: Any) -> Any:
    from .scorers.fake import FakeScorer

    return FakeScorer(variant=variant or "hash")


SCORERS: dict[str, Callable[..., Any]] = {
    "masked-lm": _masked, "causal-lm": _causal, "seq2seq": _seq2seq, "fake": _fake,
}
VARIANTS: dict[str, tuple[str, ...]] = {
    "masked-lm": ("nangia", "modified-tokens", "aul"),
    "causal-lm": ("sentence-ll", "shared-ll"),
    "seq2seq": ("sentence-ll",),
    "fake": ("hash",),
}


def scorer_kind(model: str, *, trust_remote_code: bool = False, revision: str | None = None) -> str:
    """Pick a scorer from a model's architecture (its config's ``architectures``).

    ``trust_remote_code`` is passed explicitly: left unset, transformers would ask on a
    terminal whether to run a folder's own config code, and a "y" would run it.
    """
    from .scorers.loading import read_config, resolve

    if model == "fake":
        return "fake"
    config = read_config(resolve(model), trust_remote_code=trust_remote_code, revision=revision)
    archs = config.architectures or []
    for arch in archs:
        if arch.endswith(("ForMaskedLM", "WithLMHeadModel")) and "GPT" not in arch:
            return "masked-lm"
        if arch.endswith("ForCausalLM") or arch.endswith("LMHeadModel"):
            return "causal-lm"
        if arch.endswith("ForConditionalGeneration"):
            return "seq2seq"
    from .errors import ModelError

    raise ModelError(f"cannot tell which scorer suits {model} (architectures: {archs}); "
                     "pass --scorer masked-lm|causal-lm|seq2seq")


def load_scorer(model: str, scorer: str = "auto", **kw: Any) -> Any:
    kind = scorer if scorer != "auto" else scorer_kind(
        model, trust_remote_code=bool(kw.get("trust_remote_code")), revision=kw.get("revision"))
    factory = lookup("scorer", SCORERS, kind)
    if kw.get("variant") is None:
        kw.pop("variant", None)
    return factory(model=model, **kw)


def _crows_pairs(**kw: Any) -> Any:
    from .benchmarks.crows_pairs import CrowsPairs

    return CrowsPairs(**kw)


def _census(**kw: Any) -> Any:
    from .benchmarks.census.benchmark import Census

    return Census(**kw)


def _zh_neutral(**kw: Any) -> Any:
    from .benchmarks.zh_neutral import ZhNeutral

    return ZhNeutral(**kw)


BENCHMARKS: dict[str, Callable[..., Any]] = {
    "crows-pairs": _crows_pairs,
    "census": _census,
    "zh-neutral": _zh_neutral,
}


def load_benchmark(name: str, **kw: Any) -> Any:
    return lookup("benchmark", BENCHMARKS, name)(**kw)
