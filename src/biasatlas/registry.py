"""Registries: plain dicts of names to factories, with "did you mean" errors.

Benchmarks and scorers are looked up by name here only, so ``biasatlas list`` and the CLI
show the same set. Benchmarks map to the module that exports their ``SPEC``, imported on
first use, so a benchmark kept elsewhere is added with one :func:`register_benchmark`.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import TYPE_CHECKING, Any, cast

from .errors import did_you_mean

if TYPE_CHECKING:
    from .benchmarks.base import BenchmarkSpec
    from .probes import Reads


def lookup(kind: str, table: dict[str, Any], name: str) -> Any:
    if name not in table:
        raise did_you_mean(kind, name, table)
    return table[name]


def _fake(model: str = "fake", variant: str | None = None, **_: Any) -> Any:
    from .scorers.fake import FakeScorer

    return FakeScorer(variant=variant or "hash")


ScorerTarget = str | Callable[..., Any]
"""A scorer's entry: ``"package.module:Class"``, imported on first use (so ``biasatlas
--help`` imports no torch), or any callable; either is called as ``target(model=…, **options)``."""

SCORERS: dict[str, ScorerTarget] = {
    "masked-lm": "biasatlas.scorers.masked_lm:MaskedLMScorer",
    "causal-lm": "biasatlas.scorers.causal_lm:CausalLMScorer",
    "seq2seq": "biasatlas.scorers.seq2seq:Seq2SeqScorer",
    "fake": _fake,
}
VARIANTS: dict[str, tuple[str, ...]] = {
    "masked-lm": ("nangia", "modified-tokens", "aul"),
    "causal-lm": ("sentence-ll", "shared-ll"),
    "seq2seq": ("sentence-ll",),
    "fake": ("hash",),
}
#: What each scorer's answers are (:class:`~biasatlas.probes.ScorerInfo`'s ``reads``), known
#: before its model loads, so a benchmark that cannot read them refuses the run first.
READS: dict[str, Reads] = {"masked-lm": "masked", "causal-lm": "sequence", "seq2seq": "sequence", "fake": "sequence"}


def register_scorer(name: str, target: ScorerTarget, *, variants: tuple[str, ...] = (),
                    reads: Reads | None = None) -> None:
    """Make ``name`` a scorer for :func:`load_scorer` (and ``--scorer NAME``), in one line:
    ``register_scorer("served-bert", "mypkg.served:ServedScorer")``.

    The scorer says what its answers mean through its ``info``
    (:class:`~biasatlas.probes.ScorerInfo`), so benchmarks need no entry of their own.
    ``variants`` are listed by ``biasatlas list``; ``reads``, when given, lets a benchmark
    refuse the scorer before its model loads. Registering a name again replaces it.
    """
    SCORERS[name] = target
    VARIANTS[name] = tuple(variants)
    READS.pop(name, None)
    if reads is not None:
        READS[name] = reads


def scorer_factory(name: str) -> Callable[..., Any]:
    target = lookup("scorer", SCORERS, name)
    if callable(target):
        return target
    module, _, attribute = str(target).partition(":")
    return getattr(import_module(module), attribute)  # type: ignore[no-any-return]


def scorer_kind(model: str, *, trust_remote_code: bool = False, revision: str | None = None) -> str:
    """Pick a scorer from a model's architecture (its config's ``architectures``).

    ``trust_remote_code`` is passed explicitly: left unset, transformers would ask on a
    terminal whether to run a folder's own config code, and a "y" would run it.
    """
    from .scorers.loading import read_config, resolve
    from .scorers.preflight import check_model_reachable

    from .scorers.packaged import is_packaged_model

    if model == "fake":
        return "fake"
    if is_packaged_model(model):  # both are causal LMs: known without converting the GGUF first
        return "causal-lm"
    check_model_reachable(model, revision)  # before transformers retries an unreachable hub
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


#: The scorers that load a transformers model by name: their ``model`` must be reachable.
_HUB_SCORERS = ("masked-lm", "causal-lm", "seq2seq")


def load_scorer(model: str, scorer: str = "auto", **kw: Any) -> Any:
    """The scorer ``scorer`` (or, with ``"auto"``, the one the model's architecture calls
    for) on ``model``, built with the keyword options (``variant``, ``device`` …).

    Everything that can be checked without the weights is checked first (scorer name,
    device, dtype, variant, that the model is reachable), so a wrong setting fails in a
    second with one line rather than after the model loads.
    """
    if scorer != "auto":
        lookup("scorer", SCORERS, scorer)
    preflight(kw)
    if scorer == "auto":
        kind = scorer_kind(model, trust_remote_code=bool(kw.get("trust_remote_code")), revision=kw.get("revision"))
    else:
        kind = scorer
        if kind in _HUB_SCORERS:
            from .scorers.preflight import check_model_reachable

            check_model_reachable(model, kw.get("revision"))
    check_variant(kind, kw.get("variant"))
    factory = scorer_factory(kind)
    if kw.get("variant") is None:
        kw.pop("variant", None)
    return factory(model=model, **kw)


def preflight(options: dict[str, Any]) -> None:
    """Check the device and dtype options (when given) before anything loads."""
    from .scorers.preflight import check_device, check_dtype

    if options.get("device") is not None:
        check_device(str(options["device"]))
    if options.get("dtype") is not None:
        check_dtype(str(options["dtype"]))


def check_variant(kind: str, variant: str | None) -> None:
    """Refuse a variant the scorer ``kind`` does not have (a masked-LM variant asked of a
    causal LM would otherwise be recorded under a name it never meant)."""
    known = VARIANTS.get(kind, ())
    if variant is not None and known and variant not in known:
        raise did_you_mean(f"{kind} variant", variant, known)


# -- benchmarks -----------------------------------------------------------------------------------
#: Benchmark name → the module exporting its ``SPEC`` (a :class:`~biasatlas.benchmarks.base.BenchmarkSpec`),
#: imported on first use so that ``biasatlas list`` and ``--help`` load no benchmark code.
BENCHMARKS: dict[str, str] = {
    "crows-pairs": "biasatlas.benchmarks.crows_pairs",
    "census": "biasatlas.benchmarks.census",
    "zh-neutral": "biasatlas.benchmarks.zh_neutral",
}


def register_benchmark(name: str, module: str) -> None:
    """Add a benchmark kept outside biasatlas: ``module`` (a dotted import path) exports ``SPEC``.

    One line makes it runnable (:func:`load_benchmark`) and known to the report, the
    leaderboard and ``biasatlas compare``; the spec is imported when first needed.
    """
    BENCHMARKS[name] = module


def benchmark_spec(name: str) -> BenchmarkSpec:
    """The spec registered as ``name``; :class:`~biasatlas.errors.UnknownName` says what is available."""
    spec = getattr(import_module(lookup("benchmark", BENCHMARKS, name)), "SPEC", None)
    if spec is None or spec.name != name:
        raise TypeError(f"module {BENCHMARKS[name]} registered as benchmark {name!r} does not export "
                        f"a SPEC named {name!r}")
    return cast("BenchmarkSpec", spec)


def find_spec(name: str) -> BenchmarkSpec | None:
    """The spec registered as ``name``, or ``None`` (a run of a benchmark this install does not know)."""
    return benchmark_spec(name) if name in BENCHMARKS else None


def benchmark_specs() -> list[BenchmarkSpec]:
    """Every registered spec, in registration order (the order of the report's leaderboards)."""
    return [benchmark_spec(name) for name in BENCHMARKS]


def load_benchmark(name: str, **kw: Any) -> Any:
    """The benchmark registered as ``name``, built from keyword options (its spec's ``factory``)."""
    return benchmark_spec(name).factory(**kw)
