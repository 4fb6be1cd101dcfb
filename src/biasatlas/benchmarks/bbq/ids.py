"""BBQ's item-id rule, written once: the data reader (:mod:`.data`) and every predictions reader
(:mod:`.predictions`: the authors' UnifiedQA and RoBERTa/DeBERTaV3 outputs, lm-evaluation-harness's
samples) name an item by it, so a file's answers join the run's items by construction."""

from __future__ import annotations


def item_id(category: object, example_id: object) -> str:
    """A BBQ item's id, ``{category}/{example_id}`` (a control's id adds its prefix before it)."""
    return f"{category}/{example_id}"
