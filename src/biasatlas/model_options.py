"""On which model a run scores: :class:`ModelOptions` (a model by name, folder, packaged name,
server URL or predictions file) and :class:`GivenModel` (a model already in memory).

Checks that need nothing but the values run when a record is built (closed sets, batch size,
dtype, device name, variant names); checks that ask the machine (the device, the dtype, that
the model exists, which scorer its architecture calls for, whether the benchmark can read that
scorer's answers) run in :meth:`ModelOptions.preflight`, before any weights load. The fields are
``biasatlas run``'s model flags (:func:`~biasatlas.option_fields.option`). Nothing heavy is
imported here: the registry, the scorers and torch load inside the methods.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any

from .errors import UsageError, did_you_mean
from .option_fields import check_fields, option
from .probes import MultiToken, ScorerInfo
from .scorers.batch_size import DEFAULT_BATCH_SIZE
from .scorers.predictions.options import PREDICTION_OPTIONS, PredictionOptions
from .scorers.served.http import is_endpoint
from .scorers.served.options import ServedOptions
from .scorers.start import START_TOKENS, StartToken
from .values import BatchSize, Dtype, canonical_dtype, check_batch_size, check_device_name

if TYPE_CHECKING:
    from .benchmarks.base import Benchmark

__all__ = ["DEFAULT_MODEL", "PREDICTION_OPTIONS", "GivenModel", "ModelOptions"]

#: The model a run uses when none is named: the packaged multilingual Gemma 3 270M.
DEFAULT_MODEL = "gemma-3-270m"
@dataclass(frozen=True, kw_only=True)
class _ScorerChoice:
    """What every scorer is built from: the model, the scorer and its variant, and the in-process settings
    (batch size, device, dtype, revision, remote code, multi-token policy, placement)."""

    model: str = option(DEFAULT_MODEL, "Hub id, local model folder, 'fake', a packaged model, or an "
                         "OpenAI-compatible server's URL (http://127.0.0.1:8000/v1: docs/serving.md)",
                         metavar="<name|folder|url>")
    scorer: str = option("auto", "Scorer (auto: from the model's architecture).")
    variant: str | None = option(None, "Pair-scoring variant; each scorer has its own (see 'biasatlas list').")
    batch_size: BatchSize = option(DEFAULT_BATCH_SIZE, "Rows (masked copies or sentences) per forward pass, "
                                    "or auto.", unscored=True)
    device: str = option("cpu", "cpu, cuda, cuda:1, mps …", unscored=True, metavar="<device>")
    dtype: Dtype = option("float32", "float32 (default), or bfloat16/float16 on GPU "
                                      "(bf16, fp16, fp32 accepted).")
    revision: str | None = option(None, "Hub revision (commit, tag, branch).", metavar="<rev>")
    trust_remote_code: bool = option(False, "Allow a hub model's own code to run.")
    multi_token: MultiToken | None = option(None, "Masked LMs, for fillers of several tokens (default: joint, "
                                             "or the benchmark's published policy: first-token for census "
                                             "gebnlp2022, reveal for stereoset).", when_set=True)
    device_map: str | None = option(None, "accelerate's placement, e.g. auto: a model larger than one GPU over "
                                     "several.", unscored=True, metavar="<auto|…>")


@dataclass(frozen=True, kw_only=True)
class _StartTokenOption:
    """What each text is read after: the causal LMs' convention, in process and served."""

    start_token: StartToken | None = option(
        None, "Causal LMs, what each text is read after: always (the start token before every text), "
        "empty-context (lm-evaluation-harness 0.4.13: the start token before an empty context only, else the "
        "tokenizer's own start) or first-only (the original StereoSet: the first token after the start token "
        "alone, the rest without it). Default: the benchmark's reference's (its card).", when_set=True,
        by_version=True)


@dataclass(frozen=True)
class ModelOptions(PredictionOptions, _StartTokenOption, ServedOptions, _ScorerChoice):
    """How the scorer is built: the model and the options of ``biasatlas run``'s model flags.

    ``scorer`` is ``"auto"`` (from the model's architecture) or a registered scorer;
    ``variant`` one of that scorer's pair-scoring variants; ``multi_token`` the masked-LM
    policy for fillers of several tokens (default: the benchmark's, else ``joint``);
    ``device_map`` accelerate's placement (``"auto"``: a model larger than one GPU over several).
    Each scorer family declares its own options (:class:`~.scorers.served.options.ServedOptions`,
    :class:`~.scorers.predictions.options.PredictionOptions`); the bases are listed last first because
    a dataclass orders its fields from its last base to its first, and that order is the flags' in
    ``--help``, a suite's keys and config.json's keys: the scorer's choice, the served options, the start
    token, the predictions file.
    """

    def __post_init__(self) -> None:
        from .probes import MULTI_TOKEN_POLICIES
        from .registry import SCORERS, all_variants, check_variant

        if not isinstance(self.model, str) or not self.model:
            raise UsageError("option 'model' takes a hub id, a folder, a packaged model's name or 'fake'")
        # the values every scorer checks the same way (biasatlas.values), held as checked: bf16 as
        # bfloat16 (the record holds torch's name), AUTO as auto
        object.__setattr__(self, "dtype", canonical_dtype(self.dtype))
        object.__setattr__(self, "batch_size", check_batch_size(self.batch_size))
        check_device_name(self.device)
        check_fields(self)
        self.check_served(self.model)
        if self.scorer != "auto" and self.scorer not in SCORERS:
            raise did_you_mean("scorer", self.scorer, ["auto", *SCORERS])
        if self.scorer == "auto":
            known = all_variants()
            if self.variant is not None and self.variant not in known:
                raise did_you_mean("variant", self.variant, known)
        else:
            check_variant(self.scorer, self.variant)
        if self.multi_token is not None and self.multi_token not in MULTI_TOKEN_POLICIES:
            raise did_you_mean("multi-token policy", self.multi_token, MULTI_TOKEN_POLICIES)
        if self.start_token is not None and self.start_token not in START_TOKENS:
            raise did_you_mean("start token convention", self.start_token, START_TOKENS)
        self.check_single_token()
        self.check_predictions(self.scorer, self.model != DEFAULT_MODEL or self.scorer not in ("auto", "predictions"))

    def for_benchmark(self, benchmark: Benchmark) -> ModelOptions:
        """These options with the benchmark's published scorer settings filled in where none
        was given (its spec's ``scorer_defaults``: census ``gebnlp2022`` scores ``first-token``)."""
        from .registry import find_spec

        spec = find_spec(benchmark.name)
        defaults = spec.scorer_defaults(benchmark) if spec is not None else {}
        return replace(self, **{k: v for k, v in defaults.items() if getattr(self, k) is None})

    def kind(self) -> str:
        """The scorer kind: ``scorer``, or the one the model's architecture calls for (its config only)."""
        from .registry import scorer_kind

        if self.predictions is not None:
            return "predictions"
        if self.scorer != "auto":
            return self.scorer
        return scorer_kind(self.model, trust_remote_code=self.trust_remote_code, revision=self.revision)

    def preflight(self, benchmark: Benchmark | None = None) -> str:
        """Everything decidable before the weights load: the device and dtype, that the model
        exists, the scorer its architecture calls for, that the variant is that scorer's, and
        that ``benchmark`` can read its answers. Returns the scorer kind."""
        from .registry import check_variant, preflight
        from .scorers.inprocess.preflight import check_model_reachable

        preflight({"device": self.device, "dtype": self.dtype})
        if (self.model != "fake" and self.scorer != "fake" and not is_endpoint(self.model)
                and self.predictions is None):
            check_model_reachable(self.model, self.revision)
        kind = self.kind()
        check_variant(kind, self.variant)
        if benchmark is not None:
            self.check_fits(benchmark, kind)
        return kind

    def check_fits(self, benchmark: Benchmark, kind: str) -> None:
        """The benchmark's own refusal of this scorer (census: an explicit causal reading asked
        of a masked LM), from what the kind's answers mean (its ``ScorerSpec.reads``), before the load.
        A registered scorer that does not declare what it reads is checked after its load."""
        self.bound(benchmark, kind)

    def bound(self, benchmark: Benchmark, kind: str) -> Benchmark:
        """``benchmark`` set up as a ``kind`` scorer of these options will bind it (its probes are
        then the run's), refusing the pair as :meth:`check_fits` says; unbound for a scorer
        that does not declare what it reads."""
        from .registry import SCORERS

        spec = SCORERS.get(kind)
        reads = None if spec is None else spec.reads
        if spec is None or reads is None:
            return benchmark
        policy = (self.multi_token or "joint") if reads == "masked" else None
        source = None if self.predictions is None else str(self.predictions)
        bound: Benchmark = benchmark.bind(ScorerInfo(kind=kind, reads=reads, multi_token=policy, dtype=self.dtype,
                                                     generates=spec.generates, source=source))
        return bound

    def loading(self) -> str:
        """The line a run prints while the scorer is built."""
        if self.predictions is not None:
            return f"reading predictions {self.predictions} …"
        return f"loading model {self.model} …"

    def build(self) -> Any:
        """The scorer, through :func:`biasatlas.registry.load_scorer`, given every set option
        its factory names (``multi_token`` only reaches the masked LM's; the fake scorer,
        which loads nothing, ignores the rest)."""
        from .registry import load_scorer, scorer_factory

        kind = self.kind()
        return load_scorer(self._source(), kind, **_accepted(scorer_factory(kind), self._scorer_kwargs()))

    def _source(self) -> Any:
        """What the scorer's factory gets as its ``model``: the name (a :class:`GivenModel`, the object)."""
        return self.model

    def _scorer_kwargs(self) -> dict[str, Any]:
        own = set() if self.predictions is not None else set(PREDICTION_OPTIONS)  # a model's scorer never gets them
        return {f.name: getattr(self, f.name) for f in fields(ModelOptions)
                if f.name not in ("model", "scorer", *own) and getattr(self, f.name) is not None}

    def recorded(self) -> dict[str, Any]:
        """The options that change scores, as the run folder records them; a predictions run
        records its file and the file's sha256 (the same bytes elsewhere are the same run), and
        nothing of a model."""
        if self.predictions is not None:
            return self.recorded_predictions()
        return {f.name: getattr(self, f.name) for f in fields(self) if not f.metadata.get("unscored")
                and not (f.metadata.get("when_set") and getattr(self, f.name) is None)}


@dataclass(frozen=True)
class GivenModel(ModelOptions):
    """Model options for a model already in memory (``evaluate(name, model=...)``): ``given``
    is a :class:`~biasatlas.scorers.base.Scorer`, used as it is, or an
    :class:`~biasatlas.scorers.inprocess.inmemory.InMemoryModel`, handed to the scorer its architecture
    calls for as a loaded model's is. ``model`` is its label. Built by :meth:`of`; it scores in
    this process only (a Ray worker cannot be sent it)."""

    given: Any = field(default=None, repr=False, compare=False, metadata={"unscored": True})

    @classmethod
    def of(cls, given: Any, **options: Any) -> GivenModel:
        """Options for ``given``: a Scorer, or a (model, tokenizer) pair or InMemoryModel, whose
        dtype and device are the defaults (it is never converted or moved)."""
        from .scorers.base import Scorer
        from .scorers.inprocess.inmemory import InMemoryModel

        if isinstance(given, tuple) and len(given) == 2:
            given = InMemoryModel(*given)
        if isinstance(given, Scorer):
            if options:
                raise UsageError(f"a Scorer is built with its options: set {', '.join(sorted(options))} when "
                                 f"you build it, not here")
            return cls(model=str(given.describe().get("model") or type(given).__name__), given=given)
        if isinstance(given, InMemoryModel):
            return cls(**{"model": given.name, "dtype": given.dtype, "device": given.device, **options, "given": given})
        raise UsageError("model is a name (hub id, folder, packaged model or 'fake'), a Scorer, or a "
                         f"(model, tokenizer) pair; not {type(given).__name__}")

    def kind(self) -> str:
        """The given scorer's kind, or the one the in-memory model's class calls for."""
        from .registry import kind_of_architectures

        if self.scorer != "auto":
            return self.scorer
        if self._held():
            return kind_of_architectures(self.model, self.given.architectures)
        return str(self.given.info.kind)

    def preflight(self, benchmark: Benchmark | None = None) -> str:
        """:meth:`ModelOptions.preflight` with nothing to reach: a given Scorer is checked by its own
        ``info`` (what its answers are), an in-memory model by the kind its class calls for."""
        from .registry import check_variant, preflight

        kind = self.kind()
        if not self._held():
            if benchmark is not None:
                benchmark.bind(self.given.info)
            return kind
        preflight({"device": self.device, "dtype": self.dtype})
        check_variant(kind, self.variant)
        if benchmark is not None:
            self.check_fits(benchmark, kind)
        return kind

    def _held(self) -> bool:
        """Whether ``given`` is a model in memory (else a Scorer)."""
        from .scorers.inprocess.inmemory import InMemoryModel

        return isinstance(self.given, InMemoryModel)

    def loading(self) -> str:
        return f"using {self.model}: nothing to load"

    def build(self) -> Any:
        return super().build() if self._held() else self.given

    def _source(self) -> Any:
        return self.given

    def recorded(self) -> dict[str, Any]:
        """The options, and what identifies the model: an in-memory model has no name to record."""
        identity = self.given.identity() if self._held() else {"scorer_fingerprint": self.given.fingerprint()}
        return {**super().recorded(), "in_memory": identity}


def _accepted(factory: Callable[..., Any], kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """The keywords of ``kwargs`` that ``factory`` takes (all of them if it takes ``**kw``)."""
    parameters = inspect.signature(factory).parameters
    if any(p.kind is p.VAR_KEYWORD for p in parameters.values()):
        return dict(kwargs)
    return {k: v for k, v in kwargs.items() if k in parameters}
