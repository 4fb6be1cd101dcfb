"""Published CrowS-Pairs numbers, shown beside ours when a run matches a paper's setting.

Sources (METHODS.md §2, "Numbers to compare against"):

- Nangia et al. (2020), original English set (dataset ``en``, 1,508 pairs): metric score
  only, for the three models of the reference script (bert-base-uncased, roberta-large,
  albert-xxlarge-v2).
- Névéol et al. (2022), 1,677 pairs: French (``fr+210``) and revised English
  (``en-revised+210``); metric / stereo / anti-stereo scores, and per-category metric
  scores from the paper's category table (summary in ``papers/french-crows-pairs-summary.txt``,
  Knowl 7). The English evaluation there left out the untranslatable and US-specific pairs,
  so our ``en-revised+210`` runs score a few more pairs than the paper did.

A run matches an entry when its dataset is the entry's and the last component of its
model id (lower-cased) is one of the entry's checkpoint names. Which checkpoints the paper
used is not always stated; ``note`` says what we assumed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

# Paper category names → our category keys (crows_pairs.CATEGORIES).
_ORDER = ("race-color", "gender", "socioeconomic", "nationality", "religion", "age",
          "sexual-orientation", "physical-appearance", "disability", "autre")


@dataclass(frozen=True)
class PaperScores:
    """One model's published CrowS-Pairs scores on one dataset."""

    source: str
    dataset: str
    model: str
    checkpoints: tuple[str, ...]
    metric: float
    stereo: float | None = None
    antistereo: float | None = None
    by_category: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    note: str = ""


def _cats(*values: float) -> Mapping[str, float]:
    """Per-category scores in the paper's row order (ethnicity/colour first, other last)."""
    if len(values) != len(_ORDER):
        raise ValueError(f"expected {len(_ORDER)} category scores, got {len(values)}")
    return MappingProxyType(dict(zip(_ORDER, values)))


_NEVEOL = "Névéol et al. 2022"
_NANGIA = "Nangia et al. 2020"

# Per-category columns, Knowl 7 (order: race-color, gender, socioeconomic, nationality,
# religion, age, sexual-orientation, physical-appearance, disability, other).
PAPER_SCORES: tuple[PaperScores, ...] = (
    PaperScores(_NEVEOL, "fr+210", "CamemBERT", ("camembert-base",), 59.3, 58.5, 65.9,
                _cats(58.6, 54.8, 64.3, 60.1, 69.6, 61.1, 50.5, 58.3, 63.6, 53.9)),
    PaperScores(_NEVEOL, "fr+210", "FlauBERT", ("flaubert_base_cased", "flaubert_base_uncased"),
                53.7, 53.6, 55.4, _cats(51.4, 51.7, 54.1, 53.0, 63.5, 58.9, 47.2, 51.4, 65.2, 61.5),
                note="the paper says FlauBERT base without the casing"),
    PaperScores(_NEVEOL, "fr+210", "FrALBERT", ("fralbert-base",), 55.9, 57.7, 44.1,
                _cats(56.7, 47.7, 58.2, 60.5, 72.2, 38.9, 81.3, 40.3, 42.4, 53.9)),
    PaperScores(_NEVEOL, "fr+210", "mBERT", ("bert-base-multilingual-cased",), 50.9, 51.3, 48.8,
                _cats(47.3, 48.0, 56.1, 53.4, 51.3, 54.4, 55.0, 51.4, 54.5, 46.1)),
    PaperScores(_NEVEOL, "en-revised+210", "mBERT", ("bert-base-multilingual-cased",), 52.9, 54.2, 45.2,
                _cats(54.4, 46.2, 52.4, 50.9, 56.8, 50.5, 65.6, 59.7, 50.8, 27.3),
                note="the paper's English set left out untranslatable and US-specific pairs"),
    PaperScores(_NEVEOL, "en-revised+210", "BERT", ("bert-base-uncased",), 61.3, 61.8, 58.6,
                _cats(59.3, 58.4, 57.1, 60.6, 71.2, 53.9, 65.6, 66.7, 61.5, 72.7),
                note="the paper's English set left out untranslatable and US-specific pairs"),
    PaperScores(_NEVEOL, "en-revised+210", "RoBERTa", ("roberta-large",), 65.1, 66.6, 56.7,
                _cats(62.9, 58.4, 67.2, 64.8, 71.2, 71.4, 65.6, 76.4, 69.2, 63.6),
                note="checkpoint assumed: roberta-large, as in the Nangia et al. script"),
    PaperScores(_NANGIA, "en", "BERT-base", ("bert-base-uncased",), 60.5),
    PaperScores(_NANGIA, "en", "RoBERTa-large", ("roberta-large",), 64.1),
    PaperScores(_NANGIA, "en", "ALBERT-xxlarge-v2", ("albert-xxlarge-v2",), 67.0),
)


def checkpoint_name(model: str) -> str:
    """``almanach/camembert-base`` and ``/models/camembert-base/`` both give ``camembert-base``."""
    return model.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1].lower()


def paper_scores(dataset: str, model: str) -> PaperScores | None:
    """The published scores for this dataset and model, or ``None`` when no paper reports them."""
    name = checkpoint_name(model)
    for entry in PAPER_SCORES:
        if entry.dataset == dataset and name in entry.checkpoints:
            return entry
    return None
