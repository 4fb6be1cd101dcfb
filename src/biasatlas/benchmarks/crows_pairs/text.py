"""What CrowS-Pairs text the model sees: the file's sentences as stored, unless told otherwise.

The original scripts (nyu-mll/crows-pairs ``metric.py``, the French CrowS-Pairs
``metric.py``, bias-bench ``crows.py``) read the file with ``csv.DictReader`` over a file
opened in text mode and pass each sentence to the tokenizer untouched, lower-cased only
for the models their table marks uncased; lm-evaluation-harness passes ``sent_more`` and
``sent_less`` as stored too. So by default nothing here changes a sentence:

* edge spaces stay: in byte-level BPE (RoBERTa, GPT-2, SmolLM2, Gemma) a trailing space
  is a token of its own, and 155 pairs of the revised English +210 file and 147 of the
  French one carry one. ``strip_whitespace`` trims them (off by default);
* inner double spaces stay (no option: nothing in the originals collapses them);
* no Unicode normalisation: ``unicode_nfc`` applies NFC (off by default; every published
  file is NFC already, so it changes nothing there);
* quotes and apostrophes stay as written (no option);
* line ends: the file is read as Python's text mode reads it (universal newlines, ``\\r\\n``
  and ``\\r`` become ``\\n``, quoted cells included), which is what the originals'
  ``open()`` does; the published files hold no carriage return.

Lower-casing (``lowercase``) comes last, as the originals apply ``str.lower`` to the text
they read.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass


@dataclass(frozen=True)
class TextPrep:
    """The named, recorded changes a run makes to each sentence before scoring."""

    strip_whitespace: bool = False
    unicode_nfc: bool = False
    lowercase: bool = False

    def __call__(self, text: str) -> str:
        if self.strip_whitespace:
            text = text.strip()
        if self.unicode_nfc:
            text = unicodedata.normalize("NFC", text)
        return text.lower() if self.lowercase else text


def degenerate(sent_more: str, sent_less: str) -> str | None:
    """Why a pair cannot discriminate, if it cannot: an empty or an identical sentence."""
    if not sent_more or not sent_less:
        return "empty sentence"
    if sent_more == sent_less:
        return "identical sentences"
    return None
