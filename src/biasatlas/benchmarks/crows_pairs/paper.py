"""Published CrowS-Pairs numbers, shown beside ours only when a run repeats the paper's setting.

Sources (METHODS.md §2, "Numbers to compare against"):

- Nangia et al. (2020), original English set (dataset ``en``, 1,508 pairs): metric score
  only, for the three models of the reference script (bert-base-uncased, roberta-large,
  albert-xxlarge-v2). The script lower-cases both sentences for the uncased models (BERT,
  ALBERT) and not for RoBERTa.
- Névéol et al. (2022), 1,677 pairs: French (``fr+210``) and revised English
  (``en-revised+210``); metric / stereo / anti-stereo scores, and per-category metric
  scores from the paper's category table (summary in ``papers/french-crows-pairs-summary.txt``,
  Knowl 7). The English evaluation there left out the untranslatable and US-specific pairs,
  so our ``en-revised+210`` runs score a few more pairs than the paper did.

Like for like only (:func:`comparability`): a paper's value stands beside a run's only when
the run read the paper's data file in full, prepared it as the paper did (lower-cased as
the script's model table says, the text otherwise as stored: no trimming, no NFC),
scored it with the paper's method (masked-lm, variant ``nangia``) and used the paper's
checkpoint, identified by *provenance*: a hub load of one of the entry's hub ids with a
recorded revision, or a local folder whose file hashes are those of a known checkpoint
(:data:`KNOWN_FILES`). A folder's name proves nothing: any weights can sit in a folder
called ``camembert-base``. Which checkpoint and casing a paper used is not always stated;
``note`` says what we assumed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ...runs.view import RunView
from .benchmark import DATASETS

# Paper category names → our category keys (files.CATEGORIES).
_ORDER = ("race-color", "gender", "socioeconomic", "nationality", "religion", "age",
          "sexual-orientation", "physical-appearance", "disability", "autre")


@dataclass(frozen=True)
class PaperScores:
    """One model's published CrowS-Pairs scores on one dataset, and the setting behind them.

    ``checkpoints`` are hub ids (the short legacy id and the owner/name id of one
    repository); ``n_items`` is the number of pairs the paper scored, ``None`` where the
    paper does not say; ``lowercase`` is whether the paper lower-cased both sentences.
    """

    source: str
    dataset: str
    model: str
    checkpoints: tuple[str, ...]
    metric: float
    stereo: float | None = None
    antistereo: float | None = None
    by_category: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    n_items: int | None = None
    lowercase: bool = True
    scorer: str = "masked-lm"
    variant: str = "nangia"
    note: str = ""

    @property
    def checkpoint(self) -> str:
        """The checkpoint's name for sentences: its first hub id."""
        return self.checkpoints[0]


def _cats(*values: float) -> Mapping[str, float]:
    """Per-category scores in the paper's row order (ethnicity/colour first, other last)."""
    if len(values) != len(_ORDER):
        raise ValueError(f"expected {len(_ORDER)} category scores, got {len(values)}")
    return MappingProxyType(dict(zip(_ORDER, values)))


_NEVEOL = "Névéol et al. 2022"
_NANGIA = "Nangia et al. 2020"
# The Névéol et al. paper text does not say how it cased the input; its script's model
# table does (French CrowS-Pairs metric.py, co-author mirror JulienBez/MemoireMaster,
# `__lmname2model`, third field "uncased"): True for bert, albert, camembert,
# camembert_large, flaubert, flaubert_large, mbert and fralbert, cased models included;
# False for roberta (roberta-large) alone. The nyu-mll/crows-pairs script's: bert and
# albert True, roberta False.
_FR_CASING = ("casing as in the French script's model table: lower-cased for every model but RoBERTa "
              "(the paper does not say)")
_NANGIA_CASING = "casing as in the reference script: lower-cased for the uncased BERT and ALBERT, kept for RoBERTa"
_EN_SUBSET = "the paper's English set left out untranslatable and US-specific pairs"


def _neveol(dataset: str, model: str, checkpoints: tuple[str, ...], scores: tuple[float, float, float],
            cats: Mapping[str, float], note: str = "", lowercase: bool = True) -> PaperScores:
    """A Névéol et al. entry: 1,677 pairs in French; the English pair count is not stated.
    ``lowercase`` is the French script's table's flag for the model (``_FR_CASING``)."""
    n_items = 1677 if dataset == "fr+210" else None
    notes = ([_EN_SUBSET] if dataset != "fr+210" else []) + ([note] if note else []) + [_FR_CASING]
    return PaperScores(_NEVEOL, dataset, model, checkpoints, *scores, cats, n_items=n_items, lowercase=lowercase,
                       note="; ".join(notes))


_CAMEMBERT = ("camembert-base", "almanach/camembert-base")
_FLAUBERT = ("flaubert/flaubert_base_cased", "flaubert/flaubert_base_uncased")
_FRALBERT = ("qwant/fralbert-base",)
_MBERT = ("bert-base-multilingual-cased", "google-bert/bert-base-multilingual-cased")
_BERT = ("bert-base-uncased", "google-bert/bert-base-uncased")
_ROBERTA = ("roberta-large", "FacebookAI/roberta-large")
_ALBERT = ("albert-xxlarge-v2", "albert/albert-xxlarge-v2")

# Per-category columns, Knowl 7 (order: race-color, gender, socioeconomic, nationality,
# religion, age, sexual-orientation, physical-appearance, disability, other).
PAPER_SCORES: tuple[PaperScores, ...] = (
    _neveol("fr+210", "CamemBERT", _CAMEMBERT, (59.3, 58.5, 65.9),
            _cats(58.6, 54.8, 64.3, 60.1, 69.6, 61.1, 50.5, 58.3, 63.6, 53.9)),
    _neveol("fr+210", "FlauBERT", _FLAUBERT, (53.7, 53.6, 55.4),
            _cats(51.4, 51.7, 54.1, 53.0, 63.5, 58.9, 47.2, 51.4, 65.2, 61.5),
            note="the paper says FlauBERT base without the casing; the script's table loads "
                 "flaubert/flaubert_base_uncased"),
    _neveol("fr+210", "FrALBERT", _FRALBERT, (55.9, 57.7, 44.1),
            _cats(56.7, 47.7, 58.2, 60.5, 72.2, 38.9, 81.3, 40.3, 42.4, 53.9)),
    _neveol("fr+210", "mBERT", _MBERT, (50.9, 51.3, 48.8),
            _cats(47.3, 48.0, 56.1, 53.4, 51.3, 54.4, 55.0, 51.4, 54.5, 46.1)),
    _neveol("en-revised+210", "mBERT", _MBERT, (52.9, 54.2, 45.2),
            _cats(54.4, 46.2, 52.4, 50.9, 56.8, 50.5, 65.6, 59.7, 50.8, 27.3)),
    _neveol("en-revised+210", "BERT", _BERT, (61.3, 61.8, 58.6),
            _cats(59.3, 58.4, 57.1, 60.6, 71.2, 53.9, 65.6, 66.7, 61.5, 72.7)),
    _neveol("en-revised+210", "RoBERTa", _ROBERTA, (65.1, 66.6, 56.7),
            _cats(62.9, 58.4, 67.2, 64.8, 71.2, 71.4, 65.6, 76.4, 69.2, 63.6),
            note="checkpoint roberta-large, as in the French script's table", lowercase=False),
    PaperScores(_NANGIA, "en", "BERT-base", _BERT, 60.5, n_items=1508, lowercase=True, note=_NANGIA_CASING),
    PaperScores(_NANGIA, "en", "RoBERTa-large", _ROBERTA, 64.1, n_items=1508, lowercase=False,
                note=_NANGIA_CASING),
    PaperScores(_NANGIA, "en", "ALBERT-xxlarge-v2", _ALBERT, 67.0, n_items=1508, lowercase=True,
                note=_NANGIA_CASING),
)


@dataclass(frozen=True)
class KnownFiles:
    """The sha256 of files that identify a published checkpoint in a local folder."""

    checkpoint: str
    files: Mapping[str, str]


# Local copies of a published checkpoint, identified by file hash ({filename: sha256}).
# Empty: we hold no authoritative hashes and cannot download the checkpoints to compute
# them. To add one, hash the files of a pristine snapshot of the hub repository at a known
# revision (``biasatlas.hashing.file_hashes(folder)`` gives what a run records), and list at
# least the weights and the tokenizer files:
#     KnownFiles("almanach/camembert-base", MappingProxyType({"model.safetensors": "<sha256>",
#                                                             "sentencepiece.bpe.model": "<sha256>"})),
# Until then a local folder never gets a paper column, whatever it is called.
KNOWN_FILES: tuple[KnownFiles, ...] = ()

# A hub id: ``name`` or ``owner/name``; a path (``/…``, ``./…``, ``C:\\…``) never matches.
_HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*(/[A-Za-z0-9][\w.-]*)?")


@dataclass(frozen=True)
class Comparability:
    """Whether a run may stand beside a published entry, and if not, every reason why."""

    entry: PaperScores
    reasons: tuple[str, ...]

    @property
    def comparable(self) -> bool:
        return not self.reasons

    def sentence(self) -> str:
        """What the report prints when the paper's values are left out."""
        return (f"Paper values not shown: not comparable with {self.entry.source} {self.entry.model}: "
                + "; ".join(self.reasons) + ".")


def comparability(run: RunView, entry: PaperScores) -> Comparability:
    """Check dataset, subset, casing, text preparation, method and model provenance; every
    mismatch is a reason."""
    reasons = [*_data_reasons(run, entry), *_subset_reasons(run, entry), *_casing_reasons(run, entry),
               *_text_reasons(run.benchmark_config), *_method_reasons(run, entry),
               *_model_reasons(run.scorer_config, entry)]
    return Comparability(entry, tuple(reasons))


def _data_reasons(run: RunView, entry: PaperScores) -> list[str]:
    """Same dataset name and the published file's bytes (a renamed or edited file is not it)."""
    if run.benchmark != "crows-pairs" or run.dataset != entry.dataset:
        return [f"dataset {run.dataset or 'unknown'} (the paper: {entry.dataset})"]
    published = DATASETS[entry.dataset].sha256 if entry.dataset in DATASETS else None
    if published and run.data_sha256 != published:
        return [f"data file is not the published {entry.dataset} file (sha256 "
                f"{str(run.data_sha256 or 'not recorded')[:12]}, expected {published[:12]})"]
    return []


def _subset_reasons(run: RunView, entry: PaperScores) -> list[str]:
    """All of the paper's pairs: no limit, no sample, no bias-type filter, none skipped, the paper's count."""
    bench, n = run.benchmark_config, run.summary.get("n")
    total = f"{_count(entry.n_items)} pairs" if entry.n_items else "the pairs"
    reasons = []
    limit = bench.get("limit")
    if limit is not None and not (entry.n_items and isinstance(limit, int) and limit >= entry.n_items):
        reasons.append(f"limit {_count(limit)} of {total}")
    if bench.get("sample") is not None:
        reasons.append(f"a sample of {_count(bench['sample'])} of {total}")
    if bench.get("bias_types"):
        reasons.append(f"bias type {', '.join(map(str, bench['bias_types']))} only (the paper: every category)")
    skipped = run.summary.get("n_skipped") or 0
    if not reasons and skipped:
        reasons.append(f"{_count(skipped)} pair(s) not scored")
    elif not reasons and entry.n_items and n != entry.n_items:
        reasons.append(f"{_count(n)} of {total} scored")
    return reasons


def _count(value: Any) -> str:
    """1677 → ``1,677``; anything that is not a whole number as it is."""
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


def _casing_reasons(run: RunView, entry: PaperScores) -> list[str]:
    lowercase = run.benchmark_config.get("lowercase")
    if lowercase is None:
        return ["lower-casing not recorded"]
    if bool(lowercase) != entry.lowercase:
        return ["not lower-cased (the paper lower-cased both sentences)" if entry.lowercase
                else "lower-cased (the paper kept the casing)"]
    return []


#: The text preparations the papers' scripts never made (benchmark.CrowsPairs), and how a
#: run that made one is told apart. Runs before benchmark version 2 recorded neither and
#: trimmed every sentence.
_AS_STORED = (("strip_whitespace", "edge whitespace stripped"), ("unicode_nfc", "NFC-normalised"))


def _text_reasons(bench: Mapping[str, Any]) -> list[str]:
    """The paper scored the text as stored: a run that trimmed or normalised it is not like for like."""
    if any(key not in bench for key, _ in _AS_STORED):
        return ["text preparation not recorded (runs before version 2 stripped edge whitespace)"]
    return [f"{label} (the paper scored the text as stored)" for key, label in _AS_STORED if bench[key]]


def _method_reasons(run: RunView, entry: PaperScores) -> list[str]:
    scorer = run.summary.get("scorer") or run.scorer_config.get("scorer")
    variant = run.variant or run.scorer_config.get("variant")
    if scorer != entry.scorer:
        return [f"scorer {scorer or 'unknown'} (the paper: {entry.scorer})"]
    if variant != entry.variant:
        return [f"variant {variant or 'unknown'} (the paper: {entry.variant})"]
    return []


def _model_reasons(scorer: Mapping[str, Any], entry: PaperScores) -> list[str]:
    """Provenance only: the hub id with its revision, or the local files' hashes; never a name."""
    if scorer.get("file_sha256"):
        if identify_files(scorer["file_sha256"]) in _lower(entry.checkpoints):
            return []
        return [f"local folder: weights not identified as {entry.checkpoint} by file hash"]
    if "revision" not in scorer:
        return ["model provenance not recorded (neither a hub revision nor file hashes)"]
    hub_id = str(scorer.get("location") or scorer.get("model") or "")
    if not _HUB_ID.fullmatch(hub_id) or hub_id.lower() not in _lower(entry.checkpoints):
        return [f"model {hub_id or 'unknown'} is not {' or '.join(entry.checkpoints)}"]
    if not scorer.get("revision"):
        return [f"hub revision of {hub_id} not recorded"]
    return []


def _lower(names: tuple[str, ...]) -> set[str]:
    return {n.lower() for n in names}


def identify_files(file_sha256: Mapping[str, Any]) -> str | None:
    """The checkpoint whose known files all appear with these hashes, or ``None``."""
    for known in KNOWN_FILES:
        if known.files and all(file_sha256.get(name) == sha for name, sha in known.files.items()):
            return known.checkpoint.lower()
    return None


def identified_checkpoint(scorer: Mapping[str, Any]) -> str | None:
    """The hub id the run's provenance proves (hub load, or known local files), lower-cased."""
    if scorer.get("file_sha256"):
        return identify_files(scorer["file_sha256"])
    location = str(scorer.get("location") or scorer.get("model") or "")
    if "revision" in scorer and _HUB_ID.fullmatch(location):
        return location.lower()
    return None


def _short_name(model: str) -> str:
    """The last part of a model name, for finding which entry a run *claims* to be."""
    return model.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1].lower()


def paper_entry(run: RunView) -> PaperScores | None:
    """The published entry for this run's dataset and model, comparable or not.

    Found by the checkpoint the provenance proves, else by the model's name; the name only
    decides which entry to *explain* a mismatch against, never whether values are shown.
    """
    if run.benchmark != "crows-pairs":
        return None
    entries = [e for e in PAPER_SCORES if e.dataset == run.dataset]
    proven = identified_checkpoint(run.scorer_config)
    by_proof = [e for e in entries if proven in _lower(e.checkpoints)]
    name = _short_name(run.model)
    by_name = [e for e in entries if name in {_short_name(c) for c in e.checkpoints}]
    return next(iter(by_proof or by_name), None)


def paper_check(run: RunView) -> Comparability | None:
    """The run against its published entry; ``None`` when no paper reports this model and dataset."""
    entry = paper_entry(run)
    return None if entry is None else comparability(run, entry)


def comparable_paper(run: RunView) -> PaperScores | None:
    """The entry whose values may be shown beside this run, or ``None``."""
    check = paper_check(run)
    return check.entry if check is not None and check.comparable else None
