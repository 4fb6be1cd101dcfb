"""What a benchmark declares for ``biasatlas run NAME --sensitivity KIND`` (issue 27).

A sensitivity run scores the same items under a small set of *named perturbations* of a
choice the paper did not fix, and reports how far the headline number moves and how many
items change their outcome (Seshadri et al. 2022 show template edits alone move bias scores
from −81 % to +162 %). Five kinds exist (:data:`KINDS`); a benchmark offers those its spec's
:class:`Sensitivity` declares:

- ``preambles``: a neutral text put before every text the model reads;
- ``paraphrases``: template paraphrases, the same slots in other meaning-preserving wordings
  (census: its predicate sets, :mod:`.census.paraphrases`);
- ``rules``: the benchmark's or the scorer's other scoring rules (sum, mean, PMI; pair variants);
- ``orders``: answer options in another order (BBQ);
- ``templates``: the prompt given plainly or through the model's chat template (``--chat-template``,
  :mod:`.chat`; DiscrimEval).

A :class:`Perturbation` is expressed as what a run already knows how to do: other factory
``options``, other model options (``model``: the pair ``variant``), a ``preamble`` put before
every probe's text by :class:`Perturbed` (for benchmarks with no preamble option of their
own), or an ``items`` function that rewrites the loaded items (BBQ's option orders). So each
perturbed run is an ordinary run, written to an ordinary run folder, its perturbation
recorded in its config.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Literal

from ..probes import (Answer, ContinuationProbe, EmbeddingProbe, PairProbe, Probe, ScorerInfo, SentenceProbe,
                      SlotProbe)
from .contract import BenchmarkResult

Kind = Literal["preambles", "paraphrases", "rules", "orders", "templates"]
KINDS: tuple[Kind, ...] = ("preambles", "paraphrases", "rules", "orders", "templates")
#: The name of the run every perturbation is compared with (its subfolder of ``--out``).
UNPERTURBED = "unperturbed"


@dataclass(frozen=True)
class Perturbation:
    """One named perturbation of a run (module docstring); ``about`` says in words what it
    changes, for the table and the card. ``items`` is recorded by ``about`` alone (a function
    has no JSON)."""

    name: str
    about: str
    options: Mapping[str, Any] = field(default_factory=dict)
    model: Mapping[str, Any] = field(default_factory=dict)
    preamble: str | None = None
    items: Callable[[Sequence[Any]], list[Any]] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if not self.name or self.name == UNPERTURBED or "/" in self.name:
            raise ValueError(f"a perturbation's name is a folder name other than {UNPERTURBED!r}, not {self.name!r}")
        object.__setattr__(self, "options", MappingProxyType(dict(self.options)))
        object.__setattr__(self, "model", MappingProxyType(dict(self.model)))

    @property
    def wraps(self) -> bool:
        """Whether the run needs :class:`Perturbed` (a preamble or an item rewrite)."""
        return self.preamble is not None or self.items is not None

    def recorded(self, kind: str) -> dict[str, Any]:
        """The perturbation as sensitivity.json and the run's config record it."""
        return {"kind": kind, "name": self.name, "about": self.about, "options": dict(self.options),
                "model": dict(self.model), "preamble": self.preamble}


@dataclass(frozen=True)
class Headline:
    """One headline number of a run, with its interval (None where the run has none)."""

    name: str
    value: float | None
    low: float | None = None
    high: float | None = None


#: A kind's perturbations for a benchmark (built, data not needed) and a scorer kind
#: (``causal-lm``, ``masked-lm``…): the rules a scorer has depend on it.
Perturbations = Callable[[Any, str], tuple[Perturbation, ...]]


@dataclass(frozen=True)
class Sensitivity:
    """A benchmark's sensitivity declaration (its spec's ``sensitivity``).

    ``kinds`` maps each kind it offers to its :data:`Perturbations`; ``headlines`` reads a
    summary's headline numbers; ``outcome`` reads one item record's outcome (None: the item has
    none, e.g. a tie), compared by item id with the unperturbed run's; ``outcome_phrase`` says in
    words what an outcome is (``which sentence is preferred``).
    """

    kinds: Mapping[str, Perturbations]
    headlines: Callable[[Mapping[str, Any]], tuple[Headline, ...]]
    outcome: Callable[[Mapping[str, Any]], Hashable | None]
    outcome_phrase: str

    def __post_init__(self) -> None:
        unknown = sorted(set(self.kinds) - set(KINDS))
        if unknown:
            raise ValueError(f"unknown sensitivity kind(s) {', '.join(unknown)}: the kinds are {', '.join(KINDS)}")


def headline(summary: Mapping[str, Any], name: str, intervals: Mapping[str, Any] | None = None) -> Headline:
    """``summary[name]`` with its interval from ``intervals`` (default: the summary's own)."""
    ints = summary.get("intervals") if intervals is None else intervals
    bounds = (ints or {}).get(name) if isinstance(ints, Mapping) else None
    low, high = (bounds[0], bounds[1]) if isinstance(bounds, Sequence) and len(bounds) == 2 else (None, None)
    value = summary.get(name)
    return Headline(name, None if value is None else float(value), low, high)


def prefixed(probe: Probe, text: str) -> Probe:
    """``probe`` with ``text`` put before every text a model reads in it: both sentences of a pair,
    a slot's left side, every context of a continuation (the continuation itself is unchanged),
    a sentence. Wherever a reading counts every token (a pseudo-log-likelihood, a per-token mean)
    the preamble's tokens count too; that is part of what the spread measures."""
    if isinstance(probe, PairProbe):
        return replace(probe, a=text + probe.a, b=text + probe.b)
    if isinstance(probe, SlotProbe):
        return replace(probe, left=text + probe.left)
    if isinstance(probe, ContinuationProbe):
        return replace(probe, contexts=tuple(text + c for c in probe.contexts))
    if isinstance(probe, SentenceProbe | EmbeddingProbe):
        return replace(probe, text=text + probe.text)
    raise TypeError(f"no preamble for a {type(probe).__name__}")


@dataclass(frozen=True)
class Perturbed:
    """A benchmark whose items (``perturbation.items``) or probes (``perturbation.preamble``) are
    perturbed, and otherwise itself: every other attribute is the wrapped benchmark's, so its
    spec's readers (language, scorer defaults) see the benchmark they know. Its config records
    the perturbation (``sensitivity``), so the run folder says what was changed."""

    inner: Any
    perturbation: Perturbation
    kind: str

    def __getattr__(self, name: str) -> Any:  # only for what the wrapper does not define itself
        if name.startswith("__") or name == "inner":  # no recursion while ``inner`` is unset (a copy)
            raise AttributeError(name)
        return getattr(self.inner, name)

    @property
    def name(self) -> str:
        return str(self.inner.name)

    @property
    def VERSION(self) -> str:  # noqa: N802 - the Benchmark protocol's spelling
        return str(self.inner.VERSION)

    def load(self) -> Sequence[Any]:
        items = self.inner.load()
        return items if self.perturbation.items is None else self.perturbation.items(items)

    def probes(self, items: Sequence[Any]) -> Sequence[Probe]:
        probes = self.inner.probes(items)
        text = self.perturbation.preamble
        return probes if text is None else [prefixed(p, text) for p in probes]

    def score(self, items: Sequence[Any], answers: Mapping[str, Answer]) -> BenchmarkResult:
        return self.inner.score(items, answers)  # type: ignore[no-any-return]

    def config(self) -> dict[str, Any]:
        return {**self.inner.config(), "sensitivity": self.perturbation.recorded(self.kind)}

    def bind(self, info: ScorerInfo) -> Perturbed:
        return replace(self, inner=self.inner.bind(info))


#: Neutral preambles by language (two each: a statement of the language, which the census
#: preamble check used first, and a plain announcement). Neither says anything of people.
NEUTRAL_PREAMBLES: Mapping[str, tuple[tuple[str, str], ...]] = MappingProxyType({
    "en": (("language", "This is an English text. "), ("sentence", "Here is a sentence. ")),
    "no": (("language", "Dette er en norsk tekst. "), ("sentence", "Her er en setning. ")),
    "fr": (("language", "Ceci est un texte en français. "), ("sentence", "Voici une phrase. ")),
    "de": (("language", "Dies ist ein deutscher Text. "), ("sentence", "Hier ist ein Satz. ")),
    "nl": (("language", "Dit is een Nederlandse tekst. "), ("sentence", "Hier is een zin. ")),
})


def preambles(language: str | None, *, option: str | None = None) -> tuple[Perturbation, ...]:
    """:data:`NEUTRAL_PREAMBLES` of ``language`` (none for a language without them), each as the
    benchmark's own ``option`` (census ``preamble``) or, without one, put before every probe's text."""
    out = []
    for name, text in NEUTRAL_PREAMBLES.get(language or "", ()):
        about = f"preamble {text.strip()!r}"
        if option is None:
            out.append(Perturbation(f"preamble-{name}", about, preamble=text))
        else:
            out.append(Perturbation(f"preamble-{name}", about, options={option: text}))
    return tuple(out)


#: The pair-scoring variants a pair benchmark's ``rules`` compare, per scorer kind (the
#: registry's variants of those kinds, METHODS.md §2).
PAIR_VARIANTS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "causal-lm": ("sentence-ll", "shared-ll"), "masked-lm": ("nangia", "modified-tokens", "aul")})


def variants(scorer: str) -> tuple[Perturbation, ...]:
    """One perturbation per pair variant of the scorer kind (:data:`PAIR_VARIANTS`)."""
    return tuple(Perturbation(v, f"pair variant {v}", model={"variant": v}) for v in PAIR_VARIANTS.get(scorer, ()))


def option_values(option: str, values: Sequence[str], what: str) -> tuple[Perturbation, ...]:
    """One perturbation per value of a factory option (``rule``: sum, mean, pmi)."""
    return tuple(Perturbation(f"{option}-{v}", f"{what} {v}", options={option: v}) for v in values)
