"""Saved predictions read into one shape: answers by id, and what could not be read.

A predictions file is another program's answers to a benchmark's items: the authors'
published outputs, or another harness's per-item log. Each format is recognised by its own
shape (:func:`detect`; ``--predictions-format`` overrides) and read into :class:`FileAnswers`:
for each id the scores of the item's options in the benchmark's order (higher preferred; a
chosen option is 1 and the others 0), or why the answer cannot be read. Nothing is dropped:
an unreadable row keeps its id and reason, a duplicated id is unreadable. A file that cannot be
read as its format at all (a gzip stream cut short, JSON that stops mid-way, CSV that the csv
module refuses) is one :class:`~biasatlas.errors.DataError` naming it, and the line where known.

Formats (ids as biasatlas's benchmarks name their items and sentences):

- ``stereoset``: the StereoSet authors' ``predictions_<model>.json`` (Nadeem et al. 2021,
  ``code/eval_discriminative_models.py``): ``{"intrasentence": [{"id", "score"}], "intersentence": …}``,
  one score per candidate sentence, keyed by the sentence id; recognised by parsing, in any layout.
- ``bbq-unifiedqa`` and ``bbq-scores``: BBQ's published outputs (UnifiedQA's answer texts, RoBERTa's and
  DeBERTaV3's logits), read by BBQ's own readers (:mod:`biasatlas.benchmarks.bbq.predictions`).
- ``lm-eval``: lm-evaluation-harness's ``samples_<task>_<date>.jsonl`` (``--log_samples``) for its
  ``bbq*``, ``crows_pairs_*`` and ``discrim_eval_explicit`` tasks: each document's log-likelihoods
  (``filtered_resps``), or the text ``bbq_generate`` generated.
- ``crows-results``: the per-pair ``results_<model>.csv`` of the CrowS-Pairs scripts (Nangia et al.'s
  ``metric.py``; Dutch CrowS-Pairs' ``mlm_metric.py``): both sentences' scores, keyed by the pair id
  or, under pandas' blank index, by row (:mod:`.crows_results`).
- ``gest``: GEST's ``<model>_template-<k>.txt`` (Pikuliak et al. 2023): one number per line, line ``n``
  the ``n``-th sentence's score (GEST's own reader: :mod:`biasatlas.benchmarks.gest.predictions`).
- ``plain``: CSV or JSON Lines of ``id`` and ``answer`` (an option's index) or option scores
  (CSV: ``score_0``, ``score_1``, …; JSON: ``"scores": [...]``, optionally ``"texts"``).

A benchmark's own format is declared in its spec (``prediction_formats``, a
:class:`~.predicted.PredictionFormat`; its lm-eval documents ``lm_eval_docs``) with the reader in its
``predictions.py``: the registry hands them to :func:`read`, which asks them after the generic shapes,
so a new one touches no file here. The readers are ``tests/scorers/test_prediction_files.py``'s subject;
:mod:`.scorer` joins the answers to a run's probes.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import json
import zlib
from functools import partial
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ...errors import DataError, MissingInput, UsageError, did_you_mean
from ...hashing import sha256_file
from .crows_results import DECLARED_ENCODINGS, is_results, read_crows_results
from .lm_eval import read_lm_eval
from .plain import read_plain
from .predicted import (FORMATS, Answer, Collect, FileAnswers, LmEvalDocs, PredictionFormat, Reader, finite)



def _text(path: Path) -> str:
    """The file's text: its bytes (gunzipped where they are gzip's), decoded. A file that cannot be read,
    a gzip stream cut short or damaged, and bytes that are not UTF-8 are each a DataError naming it."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise DataError(f"cannot read: {exc.strerror or exc}", path=path) from None
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
            raise DataError(f"not a whole gzip file ({exc})", path=path) from None
    declared = DECLARED_ENCODINGS.get(hashlib.sha256(raw).hexdigest())
    if declared is not None:  # a published file known by its bytes to be stored so (never a guess)
        return raw.decode(declared)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(f"cannot be read as UTF-8 text ({exc})", path=path) from exc


def json_document(path: Path, text: str) -> Any:
    """``text`` parsed as one JSON document, or a DataError naming the line where it stops being JSON
    (a file cut short) or saying it nests too deeply for the parser."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(f"not JSON: {exc.msg}", path=path, line=exc.lineno) from None
    except RecursionError:
        raise DataError("not JSON: nested too deeply to read", path=path) from None


def json_value(line: str) -> Any:
    """One line parsed as JSON, or None where it is not a JSON value of its own."""
    try:
        return json.loads(line)
    except (json.JSONDecodeError, RecursionError):
        return None


def cells(line: str) -> list[str]:
    """A line's CSV cells; none where it is no CSV line (a quoted field past the csv module's limit)."""
    try:
        return next(csv.reader([line]), [])
    except csv.Error:
        return []


def detect(path: Path, text: str, formats: Sequence[PredictionFormat] = ()) -> str:
    """The format a file's shape says (module docstring), or a DataError naming the shapes known. A text
    opening with ``{`` is parsed, whatever its layout: one JSON document (StereoSet's, pretty-printed as
    the authors' or on one line as ``json.dump`` writes it), or JSON Lines when its first line is a JSON
    value of its own; neither (a document cut short) is a DataError naming the line. ``formats`` (the
    benchmarks' declared ones: GEST's) are asked last, in their order."""
    stripped = text.lstrip()
    first = stripped.split("\n", 1)[0]
    record = json_value(first) if first.startswith("{") else None
    if first.startswith("{") and record is None:  # one document over several lines, or one cut short
        record = json_document(path, text)
    if isinstance(record, dict) and {"intrasentence", "intersentence"} & set(record):
        return "stereoset"
    if isinstance(record, dict):
        if {"doc_id", "doc", "filtered_resps"} <= set(record):
            return "lm-eval"
        if "id" in record:
            return "plain"
    header = cells(first)
    if is_results(stripped):
        return "crows-results"
    if "id" in header:
        return "plain"
    for declared in formats:
        if declared.looks_like(text):
            return declared.name
    raise DataError("not a predictions file of a known shape (StereoSet's predictions JSON, BBQ's UnifiedQA "
                    "JSON Lines or df_bbq.csv, lm-evaluation-harness's samples_*.jsonl, a CrowS-Pairs results CSV, "
                    "a CSV/JSON Lines with an 'id' column, or GEST's one number per line); name the format with "
                    "--predictions-format", path=path)


def read(path: Path | str, format: str | None = None, field: str | None = None,
         formats: Sequence[PredictionFormat] = (), lm_eval_docs: Sequence[LmEvalDocs] = ()
         ) -> FileAnswers:
    """The file's answers in ``format`` (default: the one its shape says); ``field`` picks one
    model's answers from a file holding several (UnifiedQA's ``race``/``arc``/``qonly``,
    ``df_bbq.csv``'s ``model``); ``formats`` are those the benchmarks declare (their readers are theirs),
    and ``lm_eval_docs`` their documents in lm-eval's samples files."""
    path = Path(path)
    if not path.is_file():
        raise MissingInput("no such predictions file", path=path)
    if format is not None and format not in FORMATS:
        raise did_you_mean("predictions format", format, FORMATS)
    text = _text(path)
    chosen = format or detect(path, text, formats)
    readers: dict[str, Reader] = {**READERS, "lm-eval": partial(read_lm_eval, docs=lm_eval_docs),
                                  **{declared.name: declared.read for declared in formats}}
    if chosen not in readers:
        raise UsageError(f"predictions format {chosen!r} is read by the benchmark that declares it, and none "
                         "declared it here")
    reader = readers[chosen]
    answers, about = reader(path, text, field)
    model = about.pop("model", None) or path.name.split(".")[0]
    return FileAnswers(path, sha256_file(path), chosen, answers, model, **about)


# -- StereoSet ------------------------------------------------------------------------------------
def read_stereoset(path: Path, text: str, field: str | None) -> tuple[dict[str, Answer], dict[str, Any]]:
    """Sentence id → its score (one value). The model is the file name's second ``_`` field, as the
    authors' ``evaluation.py`` names each result (``predictions_gpt2-medium_ModelNSP_GPT2LM.json``)."""
    document = json_document(path, text)
    if not isinstance(document, dict):
        raise DataError("not a JSON object", path=path)
    out = Collect()
    for task in ("intrasentence", "intersentence"):
        rows = document.get(task, [])
        if not isinstance(rows, list):
            raise DataError(f"expected a list of {{'id', 'score'}}, got {type(rows).__name__}", path=path, field=task)
        for i, row in enumerate(rows):
            key = row.get("id") if isinstance(row, dict) else None
            if not isinstance(key, str):
                raise DataError("expected {'id': string, 'score': number}", path=path, field=f"{task}[{i}]")
            score = row.get("score")
            if isinstance(score, (int, float)) and not isinstance(score, bool):
                out.add(key, finite((float(score),), None))
            else:
                out.add(key, Answer(why=f"{task}[{i}].score is {score!r}, not a number"))
    parts = path.name.split("_")
    return out.answers, {"model": parts[1] if len(parts) > 2 and parts[0] == "predictions" else None,
                         "harness": "StereoSet (Nadeem et al. 2021)"}


READERS: dict[str, Reader] = {
    "stereoset": read_stereoset, "lm-eval": read_lm_eval, "crows-results": read_crows_results, "plain": read_plain}
