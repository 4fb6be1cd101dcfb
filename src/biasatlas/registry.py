"""Registries: plain dicts of names to factories, with "did you mean" errors.

Benchmarks and scorers are looked up by name here only, so ``biasatlas list`` and the CLI
show the same set. Benchmarks map to the module that exports their ``SPEC``, imported on
first use; installed packages (biasatlas itself included) declare them as entry points of
the ``biasatlas.benchmarks`` group, so a benchmark shipped in its own package needs no edit
here, and :func:`register_benchmark` adds one for the current process only.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import TYPE_CHECKING, Any, cast

from .errors import ModelError, UsageError, did_you_mean
from .scorers.fake import FakeScorer
from .scorers.inprocess.loading import read_config, resolve
from .scorers.inprocess.packaged import is_packaged_model
from .scorers.inprocess.preflight import check_device, check_model_reachable
from .scorers.served.http import is_endpoint
from .scorers.spec import ScorerSpec, ScorerTarget
from .values import canonical_dtype

if TYPE_CHECKING:
    from .benchmarks.base import BenchmarkSpec
    from .probes import Reads


def lookup(kind: str, table: dict[str, Any], name: str) -> Any:
    if name not in table:
        raise did_you_mean(kind, name, table)
    return table[name]


def _fake(model: str = "fake", variant: str | None = None, **_: Any) -> Any:
    return FakeScorer(variant=variant or "hash")


def _predictions(**options: Any) -> Any:
    """The predictions scorer, reading the formats (and lm-eval documents) every benchmark declares beside
    its generic ones."""
    from .scorers.predictions.scorer import from_file

    return from_file(**declared_predictions(), **options)


def declared_predictions() -> dict[str, Any]:
    """What the registered benchmarks declare of saved predictions, as :func:`~.scorers.predictions.files.read`
    takes it: their ``formats`` (GEST's, BBQ's) and ``lm_eval_docs`` (BBQ's, DiscrimEval's), in the
    benchmarks' order."""
    specs = benchmark_specs()
    return {"formats": tuple(f for spec in specs for f in spec.prediction_formats),
            "lm_eval_docs": tuple(d for spec in specs for d in spec.lm_eval_docs)}


#: Every scorer, one row each (:class:`~.scorers.spec.ScorerSpec`): what builds it, its variants,
#: what its answers are and whether it generates, all known before its model loads.
SCORERS: dict[str, ScorerSpec] = {spec.name: spec for spec in (
    ScorerSpec("masked-lm", "biasatlas.scorers.inprocess.masked_lm:MaskedLMScorer",
               ("nangia", "modified-tokens", "aul"), reads="masked", generates=False),
    ScorerSpec("causal-lm", "biasatlas.scorers.inprocess.causal_lm:CausalLMScorer",
               ("sentence-ll", "shared-ll"), reads="sequence", generates=True),
    ScorerSpec("seq2seq", "biasatlas.scorers.inprocess.seq2seq:Seq2SeqScorer", ("sentence-ll",),
               reads="sequence", generates=False),
    ScorerSpec("encoder", "biasatlas.scorers.inprocess.encoder:EncoderScorer", ("hidden-states",),
               reads="embedding", generates=False),
    ScorerSpec("word-vectors", "biasatlas.scorers.inprocess.word_vectors:WordVectorScorer", ("lookup",),
               reads="embedding", generates=False),
    ScorerSpec("served", "biasatlas.scorers.served:served_scorer", ("sentence-ll",), reads="sequence",
               generates=True),
    ScorerSpec("fake", _fake, ("hash",), reads="sequence", generates=False),
    # a predictions file says whether it holds generated answers once it is read
    ScorerSpec("predictions", _predictions, ("given",), reads="given"),
)}


def register_scorer(name: str, target: ScorerTarget, *, variants: tuple[str, ...] = (),
                    reads: Reads | None = None, generates: bool | None = None) -> None:
    """Make ``name`` a scorer for :func:`load_scorer` (and ``--scorer NAME``), in one line:
    ``register_scorer("served-bert", "mypkg.served:ServedScorer")``.

    The scorer says what its answers mean through its ``info``
    (:class:`~biasatlas.probes.ScorerInfo`), so benchmarks need no entry of their own.
    ``variants`` are listed by ``biasatlas list``; ``reads`` (and ``generates``), when given, let a
    benchmark refuse the scorer before its model loads. Registering a name again replaces it.
    """
    SCORERS[name] = ScorerSpec(name, target, tuple(variants), reads, generates)


def scorer_spec(name: str) -> ScorerSpec:
    """The registered scorer ``name``, or a "did you mean" error."""
    return lookup("scorer", SCORERS, name)  # type: ignore[no-any-return]


def scorer_factory(name: str) -> Callable[..., Any]:
    return scorer_spec(name).factory()


def scorer_variants(name: str) -> tuple[str, ...]:
    """The variants of the scorer ``name`` (none for a name not registered)."""
    spec = SCORERS.get(name)
    return () if spec is None else spec.variants


def all_variants() -> tuple[str, ...]:
    """Every registered scorer's variants, each once, in the registry's order (the CLI's choices)."""
    return tuple(dict.fromkeys(v for spec in SCORERS.values() for v in spec.variants))


def scorer_kind(model: str, *, trust_remote_code: bool = False, revision: str | None = None) -> str:
    """Pick a scorer from a model's architecture (its config's ``architectures``).

    ``trust_remote_code`` is passed explicitly: left unset, transformers would ask on a
    terminal whether to run a folder's own config code, and a "y" would run it.
    """
    if model == "fake":
        return "fake"
    if is_endpoint(model):  # a server's URL: the served causal scorer (docs/serving.md)
        return "served"
    if is_packaged_model(model):  # both are causal LMs: known without converting the GGUF first
        return "causal-lm"
    check_model_reachable(model, revision)  # before transformers retries an unreachable hub
    config = read_config(resolve(model), trust_remote_code=trust_remote_code, revision=revision)
    return kind_of_architectures(model, config.architectures or [])


def kind_of_architectures(model: str, archs: list[str]) -> str:
    """The scorer for the first of ``archs`` (class names such as ``BertForMaskedLM``) that
    names one: a config's ``architectures``, or an in-memory model's class."""
    for arch in archs:
        if arch.endswith(("ForMaskedLM", "WithLMHeadModel")) and "GPT" not in arch:
            return "masked-lm"
        # BERT's and ALBERT's pretraining class holds the masked-LM head beside the NSP head (the
        # StereoSet card finds NSP by it); ELECTRA's is its discriminator, which has no LM head
        if arch.endswith("ForPreTraining") and not arch.startswith("Electra"):
            return "masked-lm"
        if arch.endswith("ForCausalLM") or arch.endswith("LMHeadModel"):
            return "causal-lm"
        if arch.endswith("ForConditionalGeneration"):
            return "seq2seq"

    raise ModelError(f"cannot tell which scorer suits {model} (architectures: {archs}); "
                     "pass --scorer masked-lm|causal-lm|seq2seq")


#: The scorers that load a transformers model by name: their ``model`` must be reachable.
_HUB_SCORERS = ("masked-lm", "causal-lm", "seq2seq", "encoder")


def load_scorer(model: Any, scorer: str = "auto", **kw: Any) -> Any:
    """The scorer ``scorer`` (or, with ``"auto"``, the one the model's architecture calls
    for) on ``model``, built with the keyword options (``variant``, ``device`` …). ``model``
    is a name, or anything else a scorer's factory takes (an
    :class:`~biasatlas.scorers.inprocess.inmemory.InMemoryModel`, with ``scorer`` named).

    Everything that can be checked without the weights is checked first (scorer name,
    device, dtype, variant, that the model is reachable), so a wrong setting fails in a
    second with one line rather than after the model loads.
    """
    if scorer != "auto":
        lookup("scorer", SCORERS, scorer)
    preflight(kw)
    if kw.get("dtype") is not None:  # an alias (bf16) reaches the scorer by its torch name

        kw["dtype"] = canonical_dtype(kw["dtype"])
    if scorer == "auto":
        kind = scorer_kind(model, trust_remote_code=bool(kw.get("trust_remote_code")), revision=kw.get("revision"))
    else:
        kind = scorer
        if kind in _HUB_SCORERS and isinstance(model, str):  # a model in memory has nothing to reach

            check_model_reachable(model, kw.get("revision"))
    check_variant(kind, kw.get("variant"))
    factory = scorer_factory(kind)
    if kw.get("variant") is None:
        kw.pop("variant", None)
    return factory(model=model, **kw)


def preflight(options: dict[str, Any]) -> None:
    """Check the device and dtype options (when given) before anything loads."""
    if options.get("device") is not None:
        check_device(options["device"])
    if options.get("dtype") is not None:
        canonical_dtype(options["dtype"])


def check_variant(kind: str, variant: str | None) -> None:
    """Refuse a variant the scorer ``kind`` does not have (a masked-LM variant asked of a
    causal LM would otherwise be recorded under a name it never meant)."""
    known = scorer_variants(kind)
    if variant is not None and known and variant not in known:
        raise did_you_mean(f"{kind} variant", variant, known)


# -- benchmarks -----------------------------------------------------------------------------------
#: The entry-point group a benchmark package declares itself in: name → the module exporting
#: its ``SPEC``, e.g. in its pyproject.toml ``[project.entry-points."biasatlas.benchmarks"]``,
#: ``toy-pronouns = "toy_benchmark"``. biasatlas's own benchmarks are found the same way.
ENTRY_POINTS = "biasatlas.benchmarks"
#: The leaderboard order of the first benchmarks, kept from before they were entry points
#: (installers write entry points sorted by name, so the declaration order is lost): these
#: first, then every other benchmark by name. A new benchmark needs no line here.
FIRST: tuple[str, ...] = ("crows-pairs", "census", "zh-neutral")


def discover_benchmarks() -> dict[str, str]:
    """Benchmark name → module, from the installed packages' :data:`ENTRY_POINTS`.

    In :data:`FIRST`'s order, then by name (the order of the report's leaderboards). A name
    biasatlas ships is never replaced by another package's. Reads metadata only: no
    benchmark is imported.
    """
    from importlib.metadata import entry_points

    found = list(entry_points(group=ENTRY_POINTS))
    own = {ep.name: ep.module for ep in found if _distribution(ep) == "biasatlas"}
    table = {name: own[name] for name in FIRST if name in own}
    for ep in sorted(found, key=lambda ep: (_distribution(ep) != "biasatlas", ep.name)):
        table.setdefault(ep.name, ep.module)
    return table


def _distribution(ep: Any) -> str | None:
    dist = getattr(ep, "dist", None)
    return None if dist is None else str(dist.metadata["Name"])


#: Benchmark name → the module exporting its ``SPEC`` (a :class:`~biasatlas.benchmarks.base.BenchmarkSpec`),
#: imported on first use so that ``biasatlas list`` and ``--help`` load no benchmark code.
BENCHMARKS: dict[str, str] = discover_benchmarks()


def register_benchmark(name: str, module: str) -> None:
    """Add a benchmark for this process only (a notebook, a test): ``module`` exports ``SPEC``.

    An installed package declares its benchmarks in the :data:`ENTRY_POINTS` group instead,
    and every process (``biasatlas list``, ``run``, ``suite``, ``report``, ``compare``) finds them.
    """
    BENCHMARKS[name] = module


def benchmark_spec(name: str) -> BenchmarkSpec:
    """The spec registered as ``name``; :class:`~biasatlas.errors.UnknownName` says what is available."""
    if name not in BENCHMARKS and not any(module.startswith("biasatlas.") for module in BENCHMARKS.values()):
        raise UsageError(f"unknown benchmark {name!r}: not even biasatlas's own are registered, so its "
                         f"installed metadata (the {ENTRY_POINTS!r} entry points) is missing; install it "
                         "(pip install -e . in a source tree)")
    spec = getattr(import_module(lookup("benchmark", BENCHMARKS, name)), "SPEC", None)
    if spec is None or spec.name != name:
        raise TypeError(f"module {BENCHMARKS[name]} registered as benchmark {name!r} does not export "
                        f"a SPEC named {name!r}")
    return cast("BenchmarkSpec", spec)


def find_spec(name: str) -> BenchmarkSpec | None:
    """The spec registered as ``name``, or ``None`` (a run of a benchmark this install does not know)."""
    return benchmark_spec(name) if name in BENCHMARKS else None


def renamed_config(name: str) -> tuple[tuple[str, str], ...]:
    """The config keys ``name`` renamed since run folders of format 1 (its spec's
    ``renamed_config``; none for a benchmark this install does not know)."""
    spec = find_spec(name)
    return spec.renamed_config if spec is not None else ()


def benchmark_specs() -> list[BenchmarkSpec]:
    """Every registered spec, in registration order (the order of the report's leaderboards)."""
    return [benchmark_spec(name) for name in BENCHMARKS]


def load_benchmark(name: str, **kw: Any) -> Any:
    """The benchmark registered as ``name``, built from keyword options (its spec's ``factory``)."""
    return benchmark_spec(name).factory(**kw)
