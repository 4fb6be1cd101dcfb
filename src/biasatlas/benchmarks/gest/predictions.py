"""GEST's published per-sentence predictions (Pikuliak et al., arXiv:2311.18711; ``kinit-sk/gest``
``data/predictions/english_{mlm,glm}/<model>_template-<k>.txt``) read as a predictions file.

Each file is one model's scores under one template: one number per line and nothing else, line
``n`` the score of the ``n``-th sentence of ``gest.csv`` (a log10 male/female ratio, positive =
read as male; :mod:`.benchmark`). The id of line ``n`` is ``"n"``, the
GEST item id of that sentence. The file's name gives the model (``pythia-70m``) and the template
(``template-0``, recorded as the file's task). A line that is not a number is an unreadable answer
naming its line; a blank line is a sentence without a score (unreadable too), except trailing
ones.

The benchmark owns this reader and declares it in its spec (``prediction_formats``): the predictions
scorer reads the formats the benchmarks declare beside its generic ones (plain, lm-eval), so a
benchmark's own file shape needs no edit below the benchmarks.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from ...scorers.predictions.predicted import Answer, Collect, PredictionFormat

#: The models the authors ran in float16 (``_inference.ipynb``); every other file's model ran in float32.
_FLOAT16 = ("pythia-6.9b", "pythia-12b", "Mistral-7B", "openchat-3.5", "Llama-2-")
_NAME = re.compile(r"^(?P<model>.+)_(?P<template>template-\d+)$")


def looks_like_gest(text: str) -> bool:
    """Whether ``text`` is a column of bare numbers (its first lines each parse as one float, NaN
    included: the reader says which are not finite)."""
    lines = [line.strip() for line in text.lstrip().splitlines()[:20]]
    return bool(lines) and all(_parses(line) for line in lines if line)


def _parses(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def named_template(path: str | Path) -> str | None:
    """The template a file's name says (``pythia-70m_template-1.txt`` → ``"1"``), None where it says none."""
    named = _NAME.match(Path(path).name.split(".")[0])
    return named["template"].removeprefix("template-") if named else None


def read_gest(path: Path, text: str, field: str | None) -> tuple[dict[str, Answer], dict[str, Any]]:
    """The answers by line number, and the model and template the file's name says."""
    collect = Collect()
    for n, raw in enumerate(text.rstrip().splitlines(), start=1):
        value = _number(raw.strip())
        answer = Answer(values=(value,), line=n) if value is not None else Answer(
            why=f"{raw.strip()!r} is not a finite number", line=n)
        collect.add(str(n), answer)
    stem = path.name.split(".")[0]
    named = _NAME.match(stem)
    model = named["model"] if named else stem
    about: dict[str, Any] = {"model": model, "task": named["template"] if named else None,
                             "harness": "GEST authors' published predictions (Pikuliak et al. 2023)",
                             "dtype": "float16" if model.startswith(_FLOAT16) else "float32"}
    return collect.answers, about


#: The format GEST's spec declares (``--predictions-format gest``; recognised as a column of numbers).
FORMAT = PredictionFormat("gest", read_gest, looks_like_gest)
