"""BBQ's saved predictions, read by the benchmark whose item ids they carry.

- ``bbq-unifiedqa``: BBQ's ``results/UnifiedQA/preds_<Category>.jsonl`` (Parrish et al. 2022): the data
  record plus the generated answer text under ``<model>_pred_<format>``; the text becomes an option
  by the rules of the authors' ``BBQ_calculate_bias_score.R`` (:func:`unifiedqa_option`).
- ``bbq-scores``: BBQ's ``results/RoBERTa_and_DeBERTaV3/df_bbq.csv``: ``index, ans0, ans1, ans2,
  model, cat``, one row per example and model, the options' logits.
- lm-evaluation-harness's ``bbq*`` documents (:data:`DOCS`): 12 choices, each of the item's three options
  the best log-likelihood among the choices that stand for it, or ``bbq_generate``'s generated text.

Every id is :func:`.ids.item_id`'s, the one writer of BBQ's id rule (``{category}/{example_id}``), which
the data reader calls too. The spec declares :data:`FORMATS` and :data:`DOCS`, so the predictions scorer
(:mod:`biasatlas.scorers.predictions`) reads these files with no BBQ code of its own.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...errors import DataError, UsageError, did_you_mean
from ...scorers.predictions.files import cells, json_value
from ...scorers.predictions.lm_eval import choices, generated
from ...scorers.predictions.predicted import Answer, Collect, LmEvalDocs, PredictionFormat, csv_rows, finite
from ...textfiles import json_objects
from .ids import item_id

#: ``df_bbq.csv``'s columns (BBQ's ``results/RoBERTa_and_DeBERTaV3``).
BBQ_SCORES_COLUMNS = ("index", "ans0", "ans1", "ans2", "model", "cat")


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
        key = item_id(record.get("category"), record.get("example_id"))
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
        key = item_id(row.get("cat"), row.get("index"))
        try:
            values = tuple(float(row[f"ans{i}"]) for i in range(3))
        except (TypeError, ValueError):
            out.add(key, Answer(why="ans0..ans2 are not all numbers", line=number))
            continue
        out.add(key, finite(values, number))
    return out.answers, {"model": chosen, "field": chosen,
                         "harness": "BBQ authors' RoBERTa/DeBERTaV3 outputs (Parrish et al. 2022)"}


def read_bbq_doc(record: Mapping[str, Any], doc: Mapping[str, Any], line: int) -> list[tuple[str, Answer]]:
    """One line of lm-eval's ``bbq*`` samples (:mod:`biasatlas.scorers.predictions.lm_eval`): the item's id
    and its three options' best log-likelihoods, or the text ``bbq_generate`` generated."""
    return [(item_id(doc.get("category"), doc.get("example_id")), _doc_answer(record, doc, line))]


def _doc_answer(record: Mapping[str, Any], doc: Mapping[str, Any], line: int) -> Answer:
    text = generated(record)
    if text is not None:
        return Answer(texts=tuple(str(doc.get(f"ans{i}", "")) for i in range(3)), line=line, generated=text)
    read = choices(record)
    if isinstance(read, str):
        return Answer(why=read, line=line)
    texts, values = read
    options = [str(doc.get(f"ans{i}", "")) for i in range(3)]
    info = doc.get("answer_info") if isinstance(doc.get("answer_info"), dict) else {}
    unknown = [i for i in range(3) if isinstance(info, dict) and isinstance(info.get(f"ans{i}"), list)
               and info[f"ans{i}"] and str(info[f"ans{i}"][-1]).lower() == "unknown"]
    if len(unknown) != 1:
        return Answer(why="answer_info marks no single option 'unknown'", line=line)
    best: dict[int, float] = {}
    for text, value in zip(texts, values):
        people = [i for i in range(3) if i != unknown[0] and options[i] == text]
        i = people[0] if people else unknown[0]
        best[i] = max(value, best.get(i, value))  # a best of 0.0 (log 1) is a value like any other
    if len(best) != 3:
        return Answer(why="a person's option is among none of the choices", line=line)
    answer = finite(tuple(best[i] for i in range(3)), line)
    return Answer(answer.values, tuple(options), answer.why, line)


def looks_like_unifiedqa(text: str) -> bool:
    """A JSON Lines file whose first record is a BBQ data record with a ``<model>_pred_<format>`` key."""
    record = json_value(text.lstrip().split("\n", 1)[0])
    return isinstance(record, dict) and "example_id" in record and any("_pred_" in k for k in record)


def looks_like_scores(text: str) -> bool:
    """A CSV whose header holds ``df_bbq.csv``'s columns."""
    return set(BBQ_SCORES_COLUMNS) <= set(cells(text.lstrip().split("\n", 1)[0]))


def is_bbq_doc(doc: Mapping[str, Any]) -> bool:
    return "example_id" in doc and "ans0" in doc


#: The formats BBQ's spec declares, and its lm-eval documents.
FORMATS = (PredictionFormat("bbq-unifiedqa", read_unifiedqa, looks_like_unifiedqa),
           PredictionFormat("bbq-scores", read_bbq_scores, looks_like_scores))
DOCS = LmEvalDocs("bbq", is_bbq_doc, read_bbq_doc)
