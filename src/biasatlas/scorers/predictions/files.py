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
- ``bbq-unifiedqa``: BBQ's ``results/UnifiedQA/preds_<Category>.jsonl`` (Parrish et al. 2022): the data
  record plus the generated answer text under ``<model>_pred_<format>``; the text becomes an option
  by the rules of the authors' ``BBQ_calculate_bias_score.R`` (:func:`unifiedqa_option`).
- ``bbq-scores``: BBQ's ``results/RoBERTa_and_DeBERTaV3/df_bbq.csv``: ``index, ans0, ans1, ans2,
  model, cat``, one row per example and model, the options' logits.
- ``lm-eval``: lm-evaluation-harness's ``samples_<task>_<date>.jsonl`` (``--log_samples``) for its
  ``bbq*``, ``crows_pairs_*`` and ``discrim_eval_explicit`` tasks: each document's log-likelihoods
  (``filtered_resps``), or the text ``bbq_generate`` generated.
- ``crows-results``: the per-pair ``results_<model>.csv`` of the CrowS-Pairs scripts (Nangia et al.'s
  ``metric.py``; Dutch CrowS-Pairs' ``mlm_metric.py``): both sentences' scores, keyed by the pair id
  or, under pandas' blank index, by row (:mod:`.crows_results`).
- ``gest``: GEST's ``<model>_template-<k>.txt`` (Pikuliak et al. 2023): one number per line, line ``n``
  the ``n``-th sentence's score (:mod:`.gest`).
- ``plain``: CSV or JSON Lines of ``id`` and ``answer`` (an option's index) or option scores
  (CSV: ``score_0``, ``score_1``, …; JSON: ``"scores": [...]``, optionally ``"texts"``).

The readers are ``tests/scorers/test_prediction_files.py``'s subject; :mod:`.scorer` joins the
answers to a run's probes.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import re
import zlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ...errors import DataError, MissingInput, UsageError, did_you_mean
from ...hashing import sha256_file
from ...textfiles import json_objects
from .crows_results import DECLARED_ENCODINGS, is_results, read_crows_results
from .gest import looks_like_gest, read_gest
from .lm_eval import read_lm_eval
from .plain import read_plain
from .predicted import FORMATS, Answer, Collect, FileAnswers, csv_rows, finite



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


def _json_value(line: str) -> Any:
    """One line parsed as JSON, or None where it is not a JSON value of its own."""
    try:
        return json.loads(line)
    except (json.JSONDecodeError, RecursionError):
        return None


def _cells(line: str) -> list[str]:
    """A line's CSV cells; none where it is no CSV line (a quoted field past the csv module's limit)."""
    try:
        return next(csv.reader([line]), [])
    except csv.Error:
        return []


def detect(path: Path, text: str) -> str:
    """The format a file's shape says (module docstring), or a DataError naming the shapes known. A text
    opening with ``{`` is parsed, whatever its layout: one JSON document (StereoSet's, pretty-printed as
    the authors' or on one line as ``json.dump`` writes it), or JSON Lines when its first line is a JSON
    value of its own; neither (a document cut short) is a DataError naming the line."""
    stripped = text.lstrip()
    first = stripped.split("\n", 1)[0]
    record = _json_value(first) if first.startswith("{") else None
    if first.startswith("{") and record is None:  # one document over several lines, or one cut short
        record = json_document(path, text)
    if isinstance(record, dict) and {"intrasentence", "intersentence"} & set(record):
        return "stereoset"
    if isinstance(record, dict):
        if {"doc_id", "doc", "filtered_resps"} <= set(record):
            return "lm-eval"
        if "example_id" in record and any("_pred_" in k for k in record):
            return "bbq-unifiedqa"
        if "id" in record:
            return "plain"
    header = _cells(first)
    if set(BBQ_SCORES_COLUMNS) <= set(header):
        return "bbq-scores"
    if is_results(stripped):
        return "crows-results"
    if "id" in header:
        return "plain"
    if looks_like_gest(text):
        return "gest"
    raise DataError("not a predictions file of a known shape (StereoSet's predictions JSON, BBQ's UnifiedQA "
                    "JSON Lines or df_bbq.csv, lm-evaluation-harness's samples_*.jsonl, a CrowS-Pairs results CSV, "
                    "a CSV/JSON Lines with an 'id' column, or GEST's one number per line); name the format with "
                    "--predictions-format", path=path)


def read(path: Path | str, format: str | None = None, field: str | None = None) -> FileAnswers:
    """The file's answers in ``format`` (default: the one its shape says); ``field`` picks one
    model's answers from a file holding several (UnifiedQA's ``race``/``arc``/``qonly``,
    ``df_bbq.csv``'s ``model``)."""
    path = Path(path)
    if not path.is_file():
        raise MissingInput("no such predictions file", path=path)
    if format is not None and format not in FORMATS:
        raise did_you_mean("predictions format", format, FORMATS)
    text = _text(path)
    chosen = format or detect(path, text)
    reader: Callable[[Path, str, str | None], tuple[dict[str, Answer], dict[str, Any]]] = READERS[chosen]
    answers, about = reader(path, text, field)
    model = about.pop("model", None) or path.name.split(".")[0]
    return FileAnswers(path, sha256_file(path), chosen, answers, model, **about)


#: ``df_bbq.csv``'s columns (BBQ's ``results/RoBERTa_and_DeBERTaV3``).
BBQ_SCORES_COLUMNS = ("index", "ans0", "ans1", "ans2", "model", "cat")


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


# -- BBQ -------------------------------------------------------------------------------------------
def unifiedqa_option(prediction: str, record: Mapping[str, Any]) -> int | None:
    """The option a UnifiedQA answer names, by the authors' ``BBQ_calculate_bias_score.R``: the
    prediction loses a final ``pantsu``'s missing ``it``, its final period and ``o'brien``'s
    apostrophe; an option loses ``}`` and its final period; both are trimmed and lower-cased and
    must be equal. Failing that, the first option (0, 1, 2) whose ``answer_info`` text's first two
    words (a regular expression, as ``str_detect`` reads it) occur in the lower-cased prediction;
    an option text of one word has no two words (R's ``word`` gives NA) and never matches so.
    None when nothing matches (the R script drops the row)."""
    said = re.sub(r"pantsu$", "pantsuit", prediction)
    said = re.sub(r"\.$", "", said).replace("o'brien", "obrien")
    options = [re.sub(r"\.$", "", str(record.get(f"ans{i}", "")).replace("}", "")) for i in range(3)]
    for i, option in enumerate(options):
        if said.lower().strip() == option.lower().strip():
            return i
    info = record.get("answer_info") if isinstance(record.get("answer_info"), dict) else {}
    for i in range(3):
        entry = info.get(f"ans{i}") if isinstance(info, dict) else None
        words = str(entry[0]).split(" ") if isinstance(entry, list) and entry else []
        if len(words) >= 2:
            try:
                if re.search(" ".join(words[:2]).lower(), said.lower()):
                    return i
            except re.error:
                continue
    return None


def _bbq_key(record: Mapping[str, Any], id_field: str = "example_id", category_field: str = "category") -> str:
    return f"{record.get(category_field)}/{record.get(id_field)}"


def read_unifiedqa(path: Path, text: str, field: str | None) -> tuple[dict[str, Answer], dict[str, Any]]:
    """``{category}/{example_id}`` → the option the generated text names. ``field`` is the
    input format (``race``, ``arc``, ``qonly``); the model, ``<model>-<format>``. The R script reads
    the question-only baseline in ambiguous contexts only: its disambiguated rows are unreadable."""
    out = Collect()
    records = list(json_objects(text, path))
    if not records:
        raise DataError("no answers", path=path)
    column = _prediction_column(path, records[0][1], field)
    for number, record in records:
        prediction = record.get(column)
        key = _bbq_key(record)
        if not isinstance(prediction, str):
            out.add(key, Answer(why=f"{column} is {prediction!r}, not text", line=number))
        elif column.endswith("_qonly") and record.get("context_condition") == "disambig":
            out.add(key, Answer(why="the question-only baseline is not read in disambiguated contexts (R script)",
                                line=number))
        else:
            option = unifiedqa_option(prediction, record)
            out.add(key, Answer(chosen=option, line=number) if option is not None else
                    Answer(why=f"the answer {prediction!r} names no option (R script's matching)", line=number))
    model, _, form = column.partition("_pred_")
    return out.answers, {"model": f"{model}-{form}", "field": form,
                         "harness": "BBQ authors' UnifiedQA outputs (Parrish et al. 2022)"}


def _prediction_column(path: Path, record: Mapping[str, Any], field: str | None) -> str:
    """The ``<model>_pred_<format>`` key ``field`` names (the only one, when none is named)."""
    columns = sorted(k for k in record if "_pred_" in k)
    names = [k.split("_pred_", 1)[1] for k in columns]
    if field is None and len(columns) != 1:
        raise UsageError(f"{path} holds the answers of {len(columns)} inputs ({', '.join(names)}): "
                         "name one with --predictions-field")
    chosen = columns[0] if field is None else dict(zip(names, columns)).get(field)
    if chosen is None:
        raise did_you_mean("predictions field", str(field), names)
    return chosen


def read_bbq_scores(path: Path, text: str, field: str | None) -> tuple[dict[str, Answer], dict[str, Any]]:
    """``df_bbq.csv``: ``{cat}/{index}`` → the three logits of the rows of model ``field``."""
    reader = csv.DictReader(io.StringIO(text))
    rows = list(csv_rows(reader, path))
    lacking = [c for c in BBQ_SCORES_COLUMNS if c not in (reader.fieldnames or ())]
    if lacking:
        raise DataError(f"no column {', '.join(map(repr, lacking))} (df_bbq.csv has {', '.join(BBQ_SCORES_COLUMNS)})",
                        path=path, line=1)
    models = sorted({r.get("model") or "" for r in rows})
    if field is None and len(models) != 1:
        raise UsageError(f"{path} holds the scores of {len(models)} models ({', '.join(models)}): name one with "
                         "--predictions-field")
    chosen = models[0] if field is None else field
    if chosen not in models:
        raise did_you_mean("predictions field", chosen, models)
    out = Collect()
    for number, row in enumerate(rows, start=2):
        if row.get("model") != chosen:
            continue
        try:
            values = tuple(float(row[f"ans{i}"]) for i in range(3))
        except (TypeError, ValueError):
            out.add(_bbq_key(row, "index", "cat"), Answer(why="ans0..ans2 are not all numbers", line=number))
            continue
        out.add(_bbq_key(row, "index", "cat"), finite(values, number))
    return out.answers, {"model": chosen, "field": chosen,
                         "harness": "BBQ authors' RoBERTa/DeBERTaV3 outputs (Parrish et al. 2022)"}



READERS: dict[str, Callable[[Path, str, str | None], tuple[dict[str, Answer], dict[str, Any]]]] = {
    "stereoset": read_stereoset, "bbq-unifiedqa": read_unifiedqa, "bbq-scores": read_bbq_scores,
    "lm-eval": read_lm_eval, "crows-results": read_crows_results, "plain": read_plain, "gest": read_gest}
