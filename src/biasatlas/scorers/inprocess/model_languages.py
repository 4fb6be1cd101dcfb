"""What a packaged model was trained to read: a note for a run on data in a language it was not
trained on (SmolLM2 is English-only), shown beside the run's table.
"""

from __future__ import annotations

from .packaged import PACKAGED_MODELS


#: How the benchmarks name their data's language (``French``, ``Norwegian templates``, ``ko``) → ISO 639-1.
_LANGUAGE_CODES = {"english": "en", "french": "fr", "norwegian": "no", "german": "de", "chinese": "zh",
                   "korean": "ko", "dutch": "nl", "spanish": "es", "turkish": "tr"}


def language_note(model: str, language: str | None) -> str | None:
    """A sentence for a run of the packaged ``model`` on data in ``language`` (a benchmark's own
    naming) that the model was not trained for (SmolLM2 is English-only); None otherwise, or when
    the model is no packaged one, is multilingual, or the language is unknown."""
    spec = PACKAGED_MODELS.get(model)
    if spec is None or spec.languages is None or not language:
        return None
    word = language.split()[0].lower()
    code = _LANGUAGE_CODES.get(word, word)
    if code in spec.languages:
        return None
    others = [n for n, m in PACKAGED_MODELS.items() if m.languages is None or code in m.languages]
    names = {c: w.capitalize() for w, c in _LANGUAGE_CODES.items()}
    trained = ", ".join(names.get(c, c) for c in spec.languages)
    return (f"note: {model} was trained on {trained} text only, and this run's text is {names.get(code, language)}: "
            "its scores say little about the model's bias in that language"
            + (f" ({others[0]} is multilingual)" if others else ""))
