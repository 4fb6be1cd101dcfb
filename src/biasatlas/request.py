"""A run's request: what to run (:class:`RunRequest`), on which model (:class:`ModelOptions`)
and where to score it (:class:`EngineOptions`).

Each edge builds one request (the command line, a suite file, :func:`biasatlas.evaluate`)
and hands it whole to the runner (:func:`biasatlas.api.execute`): an option exists once, as
a field here, and is read where it takes effect (DESIGN.md: "a run's settings travel as one
frozen object"; HELM's ``AdapterSpec``). Checks that need nothing but the values run when a
record is built (closed sets, batch size, variant names); checks that ask the machine (the
device, the dtype, that the model exists, which scorer its architecture calls for, whether
the benchmark can read that scorer's answers) run in :meth:`ModelOptions.preflight`, before
any weights load. Field metadata says which options never change a score (``unscored``: left
out of the recorded request, so a rerun on another GPU is the same run), which are
recorded only when set (``when_set``: older run folders lack them), and the help of the
command line's flag of the same name (``biasatlas run``'s flags are these fields).

Nothing heavy is imported here: the registry, the scorers and torch load inside the methods.
"""

from __future__ import annotations

import inspect
import os
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from .errors import UsageError, did_you_mean
from .probes import MultiToken, ScorerInfo
from .scorers.base import DEFAULT_BATCH_SIZE
from .scorers.engines import EngineName
from .scorers.predicted import PredictionsFormat
from .scorers.ray_preflight import DEFAULT_TIMEOUT
from .scorers.served_http import DEFAULT_CONCURRENCY, DEFAULT_KEY_ENV, Endpoint, is_endpoint
from .scorers.served_http import DEFAULT_TIMEOUT as SERVED_TIMEOUT
from .scorers.start import START_TOKENS, StartToken
from .values import BatchSize, Dtype, canonical_dtype, check_batch_size, check_device_name

if TYPE_CHECKING:
    from .benchmarks.base import Benchmark
    from .scorers.engines import ScoringEngine

__all__ = ["DEFAULT_MODEL", "EngineOptions", "GivenModel", "ModelOptions", "RunRequest", "check_batch_size",
           "literal_values", "split_options"]

#: The model a run uses when none is named: the packaged multilingual Gemma 3 270M.
DEFAULT_MODEL = "gemma-3-270m"
#: The model options only a predictions run reads (``--predictions`` and its settings).
PREDICTION_OPTIONS: tuple[str, ...] = ("predictions", "predictions_format", "predictions_field", "max_missing",
                                       "max_extra")
#: Benchmark factory parameters that are not options: set by the benchmark itself or by ``bind(info)``.
NOT_OPTIONS: frozenset[str] = frozenset({"name", "VERSION", "scorer"})


def _option(default: Any, help: str, *, unscored: bool = False, when_set: bool = False,
            minimum: float | None = None, metavar: str | None = None, by_version: bool = False) -> Any:
    """A field with what the run record and the command line need to know of it: ``unscored``,
    it changes how scores are computed, never what they are (left out of the recorded request);
    ``when_set``, it is recorded only when set (older run folders lack it); ``by_version``, a
    benchmark's default fills it where the run sets none, and the request records it only when
    the run set it (the benchmark's version names its default; the scorer's provenance records
    the value in effect); ``help`` and ``minimum`` and ``metavar`` (its placeholder) for
    ``biasatlas run``'s flag of the same name."""
    return field(default=default, metadata={"help": help, "unscored": unscored, "when_set": when_set,
                                            "minimum": minimum, "metavar": metavar, "by_version": by_version})


def literal_values(hint: Any) -> tuple[Any, ...]:
    """The values a ``Literal`` hint allows, or the ``Literal`` arms of a union (``Auto | Reading``)
    allow; () for a hint with none. How the suite and the command line read a closed set."""
    if typing.get_origin(hint) is Literal:
        return typing.get_args(hint)
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return tuple(c for arm in typing.get_args(hint) for c in literal_values(arm))
    return ()


def check_type(name: str, value: object, hint: Any) -> None:
    """Refuse ``value`` for the option ``name`` unless it is of the type ``hint`` (a field's or
    a benchmark factory's annotation) with a :class:`UsageError` naming the option and what
    it takes. Checked once, where a request is built, so that ``lowercase="no"`` is refused
    rather than read as true and ``tie_decimals="3"`` is not a TypeError deep in the scoring.
    A bool is no number here (``tie_decimals=True``), and a string is no list (``pairs="ab"``).
    A ``Literal`` asks for its values' type only: the record's own check names a string
    outside the set with its choices (``unknown dtype 'x'. Available: …``)."""
    if not _fits(value, hint):
        wanted = " or ".join(dict.fromkeys(_describe(a) for a in _arms(hint)))
        raise UsageError(f"option {name!r} takes {wanted}, not {value!r}")


def _arms(hint: Any) -> tuple[Any, ...]:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return typing.get_args(hint)
    return (hint,)


def _fits(value: object, hint: Any) -> bool:
    """Whether ``value`` is of type ``hint`` (the hints options use: unions, ``Literal``,
    ``tuple[X, ...]``, paths, and the plain types; anything else is taken on trust)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any or hint is object:
        return True
    if origin in (typing.Union, types.UnionType):
        return any(_fits(value, arm) for arm in args)
    if origin is Literal:
        return type(value) in {type(a) for a in args}
    if origin is tuple:
        return isinstance(value, (list, tuple)) and all(_fits(v, args[0] if args else Any) for v in value)
    simple: dict[Any, Callable[[object], bool]] = {
        type(None): lambda v: v is None,
        bool: lambda v: isinstance(v, bool),
        int: lambda v: isinstance(v, int) and not isinstance(v, bool),
        float: lambda v: isinstance(v, int | float) and not isinstance(v, bool),
        str: lambda v: isinstance(v, str),
        os.PathLike: lambda v: isinstance(v, str | os.PathLike),
    }
    check = simple.get(os.PathLike if hint is Path else hint)
    if check is not None:
        return check(value)
    return not isinstance(hint, type) or isinstance(value, hint)


def _describe(hint: Any) -> str:
    """How an error names what a type takes (``True or False``, ``a whole number`` …)."""
    if typing.get_origin(hint) is Literal:
        return " or ".join(repr(a) for a in typing.get_args(hint))
    if typing.get_origin(hint) is tuple:
        return "a list"
    names = {type(None): "None", bool: "True or False", int: "a whole number", float: "a number",
             str: "a string", Path: "a path"}
    return names.get(hint, getattr(hint, "__name__", str(hint)))


def _check_fields(record: Any) -> None:
    """Each field of a dataclass ``record`` against its annotation (:func:`check_type`)."""
    hints = typing.get_type_hints(type(record))
    for f in fields(record):
        check_type(f.name, getattr(record, f.name), hints[f.name])


def check_label(label: object) -> str:
    """A run's label as reports show it: text on one line, not empty (``--label``, ``report
    --label DIR=NAME``)."""
    if not isinstance(label, str) or not label.strip() or any(c in label for c in "\n\r"):
        raise UsageError(f"a label is one line of text, not {label!r}")
    return label.strip()


@dataclass(frozen=True)
class ModelOptions:
    """How the scorer is built: the model and the options of ``biasatlas run``'s model flags.

    ``scorer`` is ``"auto"`` (from the model's architecture) or a registered scorer;
    ``variant`` one of that scorer's pair-scoring variants; ``multi_token`` the masked-LM
    policy for fillers of several tokens (default: the benchmark's, else ``joint``);
    ``device_map`` accelerate's placement (``"auto"``: a model larger than one GPU over several).
    """

    model: str = _option(DEFAULT_MODEL, "Hub id, local model folder, 'fake', a packaged model, or an "
                         "OpenAI-compatible server's URL (http://127.0.0.1:8000/v1: docs/serving.md)",
                         metavar="<name|folder|url>")
    scorer: str = _option("auto", "Scorer (auto: from the model's architecture).")
    variant: str | None = _option(None, "Pair-scoring variant; each scorer has its own (see 'biasatlas list').")
    batch_size: BatchSize = _option(DEFAULT_BATCH_SIZE, "Rows (masked copies or sentences) per forward pass, "
                                    "or auto.", unscored=True)
    device: str = _option("cpu", "cpu, cuda, cuda:1, mps …", unscored=True, metavar="<device>")
    dtype: Dtype = _option("float32", "float32 (default), or bfloat16/float16 on GPU "
                                      "(bf16, fp16, fp32 accepted).")
    revision: str | None = _option(None, "Hub revision (commit, tag, branch).", metavar="<rev>")
    trust_remote_code: bool = _option(False, "Allow a hub model's own code to run.")
    multi_token: MultiToken | None = _option(None, "Masked LMs, for fillers of several tokens (default: joint, "
                                             "or the benchmark's published policy: first-token for census "
                                             "gebnlp2022, reveal for stereoset).", when_set=True)
    device_map: str | None = _option(None, "accelerate's placement, e.g. auto: a model larger than one GPU over "
                                     "several.", unscored=True, metavar="<auto|…>")
    served_model: str | None = _option(None, "With --model URL: the model's id on that server (default: the only "
                                       "one it serves).", when_set=True, metavar="<id>")
    served_prefix: str | None = _option(None, "With --model URL: text before every prompt, never scored: the "
                                        "model's start token, e.g. '<|im_start|>', where the server adds none.",
                                        when_set=True, metavar="<text>")
    concurrency: int = _option(DEFAULT_CONCURRENCY, "With --model URL: requests in flight at once.",
                               unscored=True, minimum=1)
    api_key_env: str | None = _option(None, f"With --model URL: the environment variable holding the API key "
                                      f"(default: {DEFAULT_KEY_ENV}, when set). A key is never an option.",
                                      unscored=True, metavar="<VAR>")
    request_timeout: float = _option(SERVED_TIMEOUT, "With --model URL: seconds one request may take before it "
                                     "is retried.", unscored=True, minimum=0, metavar="<seconds>")
    start_token: StartToken | None = _option(
        None, "Causal LMs, what each text is read after: always (the start token before every text), "
        "empty-context (lm-evaluation-harness 0.4.13: the start token before an empty context only, else the "
        "tokenizer's own start) or first-only (the original StereoSet: the first token after the start token "
        "alone, the rest without it). Default: the benchmark's reference's (its card).", when_set=True,
        by_version=True)
    predictions: Path | None = _option(None, "Score a saved predictions file instead of a model: the authors' "
                                       "published outputs or another harness's, joined to the items by id "
                                       "(docs/predictions.md).", when_set=True, metavar="<file>")
    predictions_format: PredictionsFormat | None = _option(None, "The predictions file's format (default: "
                                                           "recognised by its shape).", when_set=True)
    predictions_field: str | None = _option(None, "Which model's answers, where the file holds several "
                                            "(UnifiedQA: race, arc, qonly; df_bbq.csv: its model).", when_set=True,
                                            metavar="<name>")
    max_missing: float = _option(0.0, "Predictions: the largest share (0-1) of the run's ids that may lack a "
                                 "readable answer (default 0: none).", unscored=True, minimum=0, metavar="<share>")
    max_extra: float = _option(0.0, "Predictions: the largest share (0-1) of the file's ids that may match no "
                               "item (default 0: none).", unscored=True, minimum=0, metavar="<share>")

    def __post_init__(self) -> None:
        from .probes import MULTI_TOKEN_POLICIES
        from .registry import SCORERS, VARIANTS, check_variant

        if not isinstance(self.model, str) or not self.model:
            raise UsageError("option 'model' takes a hub id, a folder, a packaged model's name or 'fake'")
        # the values every scorer checks the same way (biasatlas.values), held as checked: bf16 as
        # bfloat16 (the record holds torch's name), AUTO as auto
        object.__setattr__(self, "dtype", canonical_dtype(self.dtype))
        object.__setattr__(self, "batch_size", check_batch_size(self.batch_size))
        check_device_name(self.device)
        _check_fields(self)
        if is_endpoint(self.model):  # a URL with user-info is refused before it is recorded anywhere
            Endpoint.parse(self.model)
        if self.scorer != "auto" and self.scorer not in SCORERS:
            raise did_you_mean("scorer", self.scorer, ["auto", *SCORERS])
        if self.scorer == "auto":
            known = {v for names in VARIANTS.values() for v in names}
            if self.variant is not None and self.variant not in known:
                raise did_you_mean("variant", self.variant, known)
        else:
            check_variant(self.scorer, self.variant)
        if self.multi_token is not None and self.multi_token not in MULTI_TOKEN_POLICIES:
            raise did_you_mean("multi-token policy", self.multi_token, MULTI_TOKEN_POLICIES)
        if self.start_token is not None and self.start_token not in START_TOKENS:
            raise did_you_mean("start token convention", self.start_token, START_TOKENS)
        self._check_predictions()

    def _check_predictions(self) -> None:
        """A predictions run names its file and nothing of a model: the file is the model's answers
        (its name comes from the file; ``--label`` renames the run)."""
        if self.predictions is None:
            if self.scorer == "predictions":
                raise UsageError("--scorer predictions reads a file: name it with --predictions FILE")
            return
        if not Path(self.predictions).is_file():
            from .errors import MissingInput

            raise MissingInput("no such predictions file", path=self.predictions)
        if self.model != DEFAULT_MODEL or self.scorer not in ("auto", "predictions"):
            raise UsageError("--predictions scores a file's answers: leave out --model and --scorer (the file "
                             "names its model; --label renames the run)")
        for name in ("max_missing", "max_extra"):
            if not 0 <= getattr(self, name) <= 1:
                raise UsageError(f"{name} is a share between 0 and 1, not {getattr(self, name)!r}")

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
        from .scorers.preflight import check_model_reachable

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
        of a masked LM), from what the kind's answers mean (``registry.READS``), before the load.
        A registered scorer that does not declare what it reads is checked after its load."""
        self.bound(benchmark, kind)

    def bound(self, benchmark: Benchmark, kind: str) -> Benchmark:
        """``benchmark`` set up as a ``kind`` scorer of these options will bind it (its probes are
        then the run's), refusing the pair as :meth:`check_fits` says; unbound for a scorer
        that does not declare what it reads."""
        from .registry import READS

        reads = READS.get(kind)
        if reads is None:
            return benchmark
        policy = (self.multi_token or "joint") if reads == "masked" else None
        bound: Benchmark = benchmark.bind(ScorerInfo(kind=kind, reads=reads, multi_token=policy, dtype=self.dtype))
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
            from .hashing import sha256_file

            return {"scorer": "predictions", "predictions": str(self.predictions),
                    "predictions_sha256": sha256_file(self.predictions),
                    "predictions_format": self.predictions_format, "predictions_field": self.predictions_field}
        return {f.name: getattr(self, f.name) for f in fields(self) if not f.metadata.get("unscored")
                and not (f.metadata.get("when_set") and getattr(self, f.name) is None)}


@dataclass(frozen=True)
class GivenModel(ModelOptions):
    """Model options for a model already in memory (``evaluate(name, model=...)``): ``given``
    is a :class:`~biasatlas.scorers.base.Scorer`, used as it is, or an
    :class:`~biasatlas.scorers.inmemory.InMemoryModel`, handed to the scorer its architecture
    calls for as a loaded model's is. ``model`` is its label. Built by :meth:`of`; it scores in
    this process only (a Ray worker cannot be sent it)."""

    given: Any = field(default=None, repr=False, compare=False, metadata={"unscored": True})

    @classmethod
    def of(cls, given: Any, **options: Any) -> GivenModel:
        """Options for ``given``: a Scorer, or a (model, tokenizer) pair or InMemoryModel, whose
        dtype and device are the defaults (it is never converted or moved)."""
        from .scorers.base import Scorer
        from .scorers.inmemory import InMemoryModel

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
        from .scorers.inmemory import InMemoryModel

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


@dataclass(frozen=True)
class EngineOptions:
    """Where the chunks are scored (docs/scale.md): in this process, or on a Ray actor pool of
    ``workers`` scorers (``ray_address`` joins a cluster; ``worker_gpus`` defaults to 1 with a
    CUDA device); ``threads`` torch's CPU threads (:mod:`biasatlas.scorers.threads`). None of them
    changes a score, so none is part of a run's recorded request."""

    engine: EngineName = _option("local", "local (default) | ray: score the same chunks on a Ray actor pool "
                                 "(docs/scale.md).")
    ray_address: str | None = _option(None, "Join this Ray cluster ('auto', 'ray://head:10001'); default: a local "
                                      "instance.", metavar="<address>")
    workers: int = _option(1, "Ray workers, one scorer each.", minimum=1)
    worker_cpus: float = _option(1.0, "CPUs per Ray worker.", minimum=0)
    worker_gpus: float | None = _option(None, "GPUs per Ray worker (default: 1 with --device cuda, else 0).",
                                        minimum=0)
    ray_timeout: float = _option(DEFAULT_TIMEOUT, "Seconds to wait for the Ray cluster at --ray-address to answer.",
                                 metavar="<seconds>", minimum=0)
    threads: int | None = _option(None, "CPU threads torch scores with (default: the CPUs this process can get "
                                  "that other processes leave idle; OMP_NUM_THREADS if set). Ray: per worker.",
                                  unscored=True, minimum=1, metavar="<N>")

    def __post_init__(self) -> None:
        from typing import get_args

        _check_fields(self)
        if self.engine not in get_args(EngineName):
            raise did_you_mean("engine", str(self.engine), get_args(EngineName))
        if isinstance(self.workers, bool) or not isinstance(self.workers, int) or self.workers < 1:
            raise UsageError(f"workers must be a whole number of at least 1, not {self.workers!r}")
        for name in ("worker_cpus", "worker_gpus", "ray_timeout"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int | float) or value < 0):
                raise UsageError(f"{name} must be a number of at least 0, not {value!r}")
        if self.threads is not None and self.threads < 1:
            raise UsageError(f"threads must be a whole number of at least 1, not {self.threads!r}")
        if self.ray_timeout == 0:  # a connect of no time at all never succeeds
            raise UsageError("ray_timeout must be more than 0 seconds")

    def build(self, model: ModelOptions) -> ScoringEngine:
        """The engine; Ray workers build their own scorers from ``model`` (a picklable bound method)."""
        from .scorers.engines import make_engine

        return make_engine(self.engine, model.build, workers=self.workers, worker_cpus=self.worker_cpus,
                           worker_gpus=self.worker_gpus, address=self.ray_address, device=model.device,
                           threads=self.threads, timeout=self.ray_timeout)


def split_options(options: Mapping[str, Any]) -> tuple[dict[str, Any], ModelOptions, EngineOptions]:
    """Keyword options (``evaluate``'s, a suite cell's) split by field name into the benchmark's,
    a :class:`ModelOptions` (a :class:`GivenModel` when ``model`` is an object, not a name)
    and an :class:`EngineOptions`."""
    model_names = {f.name for f in fields(ModelOptions)}
    engine_names = {f.name for f in fields(EngineOptions)}
    chosen = {k: v for k, v in options.items() if k in model_names}
    given = chosen.get("model")
    model = GivenModel.of(chosen.pop("model"), **chosen) if given is not None and not isinstance(given, str) \
        else ModelOptions(**chosen)
    engine = EngineOptions(**{k: v for k, v in options.items() if k in engine_names})
    return {k: v for k, v in options.items() if k not in model_names | engine_names}, model, engine


def benchmark_options(factory: Callable[..., Any]) -> dict[str, inspect.Parameter]:
    """The keyword options a benchmark's factory takes (``dataset``, ``lowercase``, ``sample`` …)."""
    parameters = inspect.signature(factory).parameters
    return {name: p for name, p in parameters.items()
            if name not in NOT_OPTIONS and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


@dataclass(frozen=True)
class RunRequest:
    """One run: a benchmark (a registered name with its factory's ``options``, or an object
    already built, then with none), the model and the engine. Built once at an edge and
    handed whole to :func:`biasatlas.api.execute`. ``exclude_flagged`` scores only the items
    the data lint finds nothing on (``--exclude-flagged``; a benchmark whose spec lints)."""

    benchmark: str | Benchmark
    options: Mapping[str, Any] = field(default_factory=dict)
    model: ModelOptions = ModelOptions()
    engine: EngineOptions = EngineOptions()
    exclude_flagged: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "options", types.MappingProxyType(dict(self.options)))
        if isinstance(self.model, GivenModel) and self.engine.engine != "local":
            raise UsageError(f"{self.model.model} lives in this process: engine={self.engine.engine!r} needs a "
                             "model by name or folder, which each worker loads")
        check_type("exclude_flagged", self.exclude_flagged, bool)
        if not isinstance(self.benchmark, str):
            if self.options:
                raise UsageError(f"options ({', '.join(self.options)}) go with a benchmark name; "
                                 f"{self.benchmark.name!r} is already built")
            return
        from .registry import benchmark_spec

        factory = benchmark_spec(self.benchmark).factory
        known = benchmark_options(factory)
        hints = typing.get_type_hints(factory)
        for key, value in self.options.items():
            if key not in known:
                raise did_you_mean(f"{self.benchmark} option", key, known)
            check_type(key, value, hints.get(key, Any))

    @cached_property
    def bench(self) -> Benchmark:
        """The benchmark, built once (its data is not loaded here)."""
        from .registry import load_benchmark

        if isinstance(self.benchmark, str):
            return load_benchmark(self.benchmark, **self.options)  # type: ignore[no-any-return]
        return self.benchmark

    @cached_property
    def scored_benchmark(self) -> Benchmark:
        """The benchmark as the run scores it: where its spec lints its data, wrapped so that the
        summary records the lint (and, with ``exclude_flagged``, only the clean items are scored)."""
        from .benchmarks.linted import Linted
        from .registry import find_spec

        spec = find_spec(self.bench.name)
        if spec is None or spec.lint_items is None:
            if self.exclude_flagged:
                raise UsageError(f"exclude_flagged: {self.bench.name} has no data lint (biasatlas lint lists "
                                 "the benchmarks that have)")
            return self.bench
        return Linted(self.bench, spec.lint_items, self.exclude_flagged)

    @cached_property
    def scorer_options(self) -> ModelOptions:
        """The model options with the benchmark's published scorer settings filled in."""
        return self.model.for_benchmark(self.bench)

    def recorded(self) -> dict[str, Any]:
        """What makes two runs the same run (the run folder records it; a rerun compares it):
        the benchmark's settings and the model options that change scores (those a benchmark's
        version defaults, ``by_version``, only as the run set them)."""
        model = self.scorer_options.recorded()
        for f in fields(ModelOptions):
            if f.metadata.get("by_version") and getattr(self.model, f.name) is None:
                model.pop(f.name, None)
        return {"benchmark": self.scored_benchmark.config(), "model": model}

