"""SEAT and WEAT as biasatlas benchmarks (May et al. 2019; Caliskan et al. 2017; METHODS-MORE.md §5).

Each item is one association test (:class:`.data.AssociationTest`); its probes ask one
:class:`~biasatlas.probes.EmbeddingProbe` per word or sentence of X, Y, A and B, and its score
is the effect size d, the one-sided permutation p-value (:mod:`.statistic`), a bootstrap
interval for d, and, across the tests of the run, Holm's adjusted p.

- ``seat`` reads a sentence encoder (``--scorer encoder``): every text pooled as ``pooling``
  names (recorded; :data:`~biasatlas.probes.POOLINGS`). Default: all 50 tests,
  ``mean`` pooling (bias-bench's reading).
- ``weat`` reads static word vectors (``--scorer word-vectors``). Default: WEAT 1–10.
  A word the vectors lack is out of vocabulary: it is left out of its test, listed in the
  test's record (``oov``) and counted in the summary, never dropped silently. With
  ``lowercase=True`` a missing word is looked up lower-cased before it counts as missing
  (the WEFE ``weat_w2v.txt`` holds the WEAT names lower-cased); the record names each such
  word (``lowercased``).

When OOV words leave |X| ≠ |Y|, the permutation runs over the partitions of X∪Y into sets of
the sizes left (the references assume equal sizes and never meet this case).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from ...errors import MissingInput, UnsupportedProbe, did_you_mean
from ...hashing import sha256_file
from ...probes import Answer, EmbeddingAnswer, EmbeddingProbe, Pooling, Probe, ScorerInfo
from ...stats import holm
from ..contract import BenchmarkResult
from ..fetch import locate
from ..options import UNRECORDED, Options, option
from . import statistic
from .data import FILES, ROLES, WEAT_1_10, AssociationTest, read_test
from .summary import summarise

# 1: first version (Caliskan et al.'s statistic as sent-bias and bias-bench compute it).
# 2: a sentence repeating an earlier probe's gets its vector (issue 34 item 6): SEAT's tests share
#    sentences (11,977 probes, 5,433 texts), each now encoded once, so forward-pass counts fall.
VERSION = "2"


@dataclass(frozen=True)
class Probed:
    """One word or sentence of a test as asked: its role (``targ1`` …), text, and probe ids
    (its own, then the lower-cased form's where one is asked)."""

    role: str
    text: str
    ids: tuple[str, ...]


@dataclass(frozen=True)
class AssociationBenchmark(Options):
    """What SEAT and WEAT share: their options, declared once (:mod:`..options`), their probes and
    the statistic.

    ``tests``: comma-separated test names (default: the benchmark's own set); ``data_dir``: a
    folder of SEAT-format ``.jsonl`` files instead of the fetched ones (all of them when
    ``tests`` is not given). ``n_samples``: the permutation threshold and sample count (exact
    when the partitions number at most this); ``seed``: the sampled p-values and the
    bootstrap; ``n_resamples``: bootstrap resamples of d's interval. A run is the tests it
    names, so neither takes ``limit`` nor ``sample``.
    """

    VERSION: ClassVar[str] = VERSION
    UNIT: ClassVar[str] = "tests"
    #: config.json as SEAT wrote it before issue 35: the data folder as ``data``, no subset beyond seed
    #: and resamples (:attr:`Options.RECORDED`).
    RECORDED: ClassVar[tuple[str, ...]] = ("tests", "data", "data_sha256", "pooling", "n_samples", "seed",
                                           "n_resamples")

    limit: int | None = field(default=None, init=False, repr=False)  # not an option here: see above
    sample: int | None = field(default=None, init=False, repr=False)
    # the subset's two that SEAT takes, with its own help, in their place after the options below
    seed: int = option(0, "Seed of the sampled p-values and the bootstrap (bias-bench 0, sent-bias 1111).",
                       keyword_only=True)
    n_resamples: int = option(1000, "Bootstrap resamples of d's interval.", keyword_only=True, minimum=1)
    tests: str | None = option(None, "Comma-separated test names (weat6,sent-weat6,…); default: the benchmark's "
                                     "set.", subset="chosen")
    data_dir: Path | None = option(None, "A folder of SEAT-format .jsonl test files instead of the fetched ones.")
    n_samples: int = option(statistic.N_SAMPLES, "Permutations: exact when the partitions number at most this, "
                            "else this many sampled (sent-bias and bias-bench: 100000).", minimum=2)

    def check(self) -> None:
        """Every named test is one of the data's."""
        known = self._available()
        for name in self._names():
            if name not in known:
                raise did_you_mean("test", name, known)

    # -- which tests --------------------------------------------------------------------------
    @property
    def pooling_used(self) -> str:
        return "mean"

    def default_tests(self) -> tuple[str, ...]:
        return tuple(FILES)

    def _available(self) -> tuple[str, ...]:
        if self.data_dir is None:
            return tuple(FILES)
        if not Path(self.data_dir).is_dir():
            raise MissingInput("no such folder", path=self.data_dir)
        names = tuple(sorted(p.name.removesuffix(".jsonl") for p in Path(self.data_dir).glob("*.jsonl")))
        if not names:  # else a run of no tests
            raise MissingInput("no SEAT test files (*.jsonl) in this folder", path=self.data_dir)
        return names

    def _names(self) -> tuple[str, ...]:
        if self.tests:
            return tuple(t.strip() for t in self.tests.split(",") if t.strip())
        return self._available() if self.data_dir is not None else self.default_tests()

    def path(self, name: str) -> Path:
        return Path(self.data_dir) / f"{name}.jsonl" if self.data_dir is not None else locate(FILES[name])

    def load(self) -> list[AssociationTest]:
        return [read_test(self.path(name), name) for name in self._names()]

    # -- probes ---------------------------------------------------------------------------------
    def asked(self, test: AssociationTest) -> list[Probed]:
        out = []
        for role, words in zip(ROLES, test.sets()):
            for i, text in enumerate(words.examples):
                out.append(Probed(role, text, self._ids(f"{test.name}:{role}:{i}", text)))
        return out

    def _ids(self, base: str, text: str) -> tuple[str, ...]:
        return (base,)

    def probes(self, items: Sequence[AssociationTest]) -> list[Probe]:
        probes: list[Probe] = []
        for test in items:
            for p in self.asked(test):
                texts = (p.text, p.text.lower())
                probes += [EmbeddingProbe(pid, text, self.pooling_used) for pid, text in zip(p.ids, texts)]
        return probes

    # -- scores ---------------------------------------------------------------------------------
    def score(self, items: Sequence[AssociationTest], answers: Mapping[str, Answer]) -> BenchmarkResult:
        records = [self._record(test, answers) for test in items]
        scored = [r for r in records if r["d"] is not None]
        for r, p in zip(scored, holm([r["p"] for r in scored])):
            r["p_holm"] = p
        skipped = [{"id": r["id"], "reason": r["skip_reason"]} for r in records if r["d"] is None]
        summary = summarise(records, pooling=self.pooling_used, n_samples=self.n_samples, seed=self.seed)
        return BenchmarkResult(summary, records, skipped)

    def _vectors(self, test: AssociationTest, answers: Mapping[str, Answer]) -> tuple[dict[str, list[Any]], dict]:
        """Per role the vectors found; and the OOV and lower-cased words, by role."""
        found: dict[str, list[Any]] = {role: [] for role in ROLES}
        oov: dict[str, list[str]] = {role: [] for role in ROLES}
        lowered: dict[str, list[str]] = {role: [] for role in ROLES}
        for p in self.asked(test):
            got = [(i, answers.get(pid)) for i, pid in enumerate(p.ids)]
            first = next(((i, a) for i, a in got if isinstance(a, EmbeddingAnswer)), None)
            if first is None:
                oov[p.role].append(p.text)
                continue
            if first[0] > 0:
                lowered[p.role].append(p.text)
            found[p.role].append(first[1].vector)
        return found, {"oov": oov, "lowercased": lowered}

    def _zero_vectors(self, test: AssociationTest, answers: Mapping[str, Answer]) -> list[str]:
        """The test's words whose vector (the one :meth:`_vectors` reads) is all zeros."""
        zero = []
        for p in self.asked(test):
            first = next((a for a in map(answers.get, p.ids) if isinstance(a, EmbeddingAnswer)), None)
            if first is not None and not np.any(np.asarray(first.vector)):
                zero.append(repr(p.text))
        return zero

    def _record(self, test: AssociationTest, answers: Mapping[str, Answer]) -> dict[str, Any]:
        found, words = self._vectors(test, answers)
        sizes = {role: len(found[role]) for role in ROLES}
        record: dict[str, Any] = {
            "id": test.name, "test": test.name, **{f"{r}_category": s.category for r, s in zip(ROLES, test.sets())},
            **{f"n_{r}": n for r, n in sizes.items()}, "n_oov": sum(len(v) for v in words["oov"].values()),
            **words, "d": None, "d_low": None, "d_high": None, "p": None, "p_method": None, "p_mc_error": None,
            "partitions": None, "p_holm": None, "skip_reason": None}
        if min(sizes.values()) < 1 or sizes["targ1"] + sizes["targ2"] < 3:
            return record | {"skip_reason": "too few words with a vector in a set"}
        zero = self._zero_vectors(test, answers)
        if zero:  # a cosine divides by the norm: every s(w, A, B) would be NaN, not equal (issue 34 item 12)
            return record | {"skip_reason": f"a zero vector has no direction, so no cosine: {', '.join(zero[:5])}"
                                            + (f" and {len(zero) - 5} more" if len(zero) > 5 else "")}
        x, y, a, b = (np.asarray(found[r], dtype=np.float64) for r in ROLES)
        targets = np.concatenate([x, y])
        cos_a, cos_b = statistic.cosines(targets, a), statistic.cosines(targets, b)
        s = cos_a.mean(axis=1) - cos_b.mean(axis=1)
        d = statistic.effect_size(s[:len(x)], s[len(x):])
        if d is None:
            return record | {"skip_reason": "every s(w, A, B) is equal: no effect size"}
        p = statistic.p_value(s[:len(x)], s[len(x):], n_samples=self.n_samples, seed=self.seed)
        interval = statistic.bootstrap_interval(cos_a, cos_b, len(x), n_resamples=self.n_resamples, seed=self.seed)
        return record | {"d": d, "d_low": interval[0] if interval else None,
                         "d_high": interval[1] if interval else None, "p": p.p, "p_method": p.method,
                         "p_mc_error": p.mc_error, "partitions": p.partitions}

    # -- the contract's other hooks ------------------------------------------------------------------
    def refuse(self, info: ScorerInfo) -> None:
        """Refuse a scorer that answers no vectors (its kind says so before any load)."""
        if info.reads != "embedding":
            raise UnsupportedProbe(f"{self.name} reads vectors (embedding probes); the {info.kind} scorer answers "
                                   "likelihoods: pass --scorer encoder (any transformers model) or "
                                   "--scorer word-vectors (a vectors file)")

    def provenance(self) -> dict[str, Any]:
        """The tests run, the folder read, one digest over the tests' names and file digests (the run's
        data in one field), and the pooling that made each vector."""
        names = self._names()
        digests = {name: sha256_file(self.path(name)) for name in names}
        return {"tests": list(names), "data": str(self.data_dir) if self.data_dir is not None else
                "bias-bench data/seat",
                "data_sha256": hashlib.sha256("\n".join(f"{k} {v}" for k, v in digests.items()).encode()).hexdigest(),
                "pooling": self.pooling_used,
                # the folder is recorded once, as ``data`` above: config.json had no ``data_dir`` before issue 35,
                # and a rerun into a folder written then compares the two configs key for key
                "data_dir": UNRECORDED}


@dataclass(frozen=True)
class Seat(AssociationBenchmark):
    """SEAT (May et al. 2019): every text pooled as ``pooling`` by the encoder scorer."""

    name: ClassVar[str] = "seat"

    pooling: Pooling = option("mean", "How a text becomes one vector: first (sent-bias BERT), cls, mean "
                                      "(bias-bench), mean-no-special, last (causal LMs).", keyword_only=True)

    @property
    def pooling_used(self) -> str:
        return self.pooling

    def refuse(self, info: ScorerInfo) -> None:
        """Refuse word vectors too: they would look SEAT's sentences up as single words."""
        if info.kind == "word-vectors":
            raise UnsupportedProbe("seat pools sentences with a sentence encoder (--scorer encoder); static word "
                                   "vectors are WEAT's: biasatlas run weat --scorer word-vectors --model FILE")
        super().refuse(info)


@dataclass(frozen=True)
class Weat(AssociationBenchmark):
    """WEAT (Caliskan et al. 2017) on static word vectors: WEAT 1–10 by default."""

    name: ClassVar[str] = "weat"
    RECORDED: ClassVar[tuple[str, ...]] = (*AssociationBenchmark.RECORDED, "lowercase")

    lowercase: bool = option(False, "Look a missing word up lower-cased before it counts as out of vocabulary.",
                             keyword_only=True, switch=(False, True))

    def default_tests(self) -> tuple[str, ...]:
        return WEAT_1_10

    @property
    def pooling_used(self) -> str:
        return "word"  # a word-vector scorer reads the word itself

    def refuse(self, info: ScorerInfo) -> None:
        """Refuse a sentence encoder: WEAT reads one static vector per word, which no pooling of an
        encoder is. An encoder on WEAT's word lists is SEAT's word-level tests (``weat1`` …)."""
        if info.kind == "encoder":
            raise UnsupportedProbe("weat reads static word vectors (--scorer word-vectors --model FILE); a sentence "
                                   "encoder on WEAT's word lists is SEAT's word-level tests: biasatlas run seat "
                                   "--tests weat1,weat2,... --scorer encoder")
        super().refuse(info)

    def _ids(self, base: str, text: str) -> tuple[str, ...]:
        return (base, base + ":lower") if self.lowercase and text.lower() != text else (base,)
