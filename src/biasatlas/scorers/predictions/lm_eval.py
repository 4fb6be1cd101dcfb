"""lm-evaluation-harness's per-item logs (``--log_samples``) read as predictions.

``samples_<task>_<date>.jsonl`` holds one line per document: the ``doc`` as the task loaded it,
the requests (``arguments``: each choice's context and continuation) and, in ``filtered_resps``,
each choice's ``[log-likelihood, is_greedy]`` (0.4.13 writes both as strings). The harness's
version, the model's name and dtype are in the ``results_<date>.json`` written beside it.

Read here: the multiple-choice ``bbq*`` tasks, the ``crows_pairs_*`` tasks and ``discrim_eval_explicit``;
the ``winogender_*`` tasks are refused with the reason (:data:`WINOGENDER_ASKS_ANOTHER_QUESTION`).

- ``bbq``: 12 choices (``tasks/bbq/utils.py``, ``doc_to_choice``): the item's two people in data
  order, then ten "unknown" strings. Each of the item's three options gets the best
  log-likelihood among the choices that stand for it (a person's own text; the unknown option,
  every other string), so the option chosen is the harness's argmax mapped to the item's options,
  whatever order the unknown strings come in: read by the benchmark (its declared
  :class:`~.predicted.LmEvalDocs`, :mod:`biasatlas.benchmarks.bbq.predictions`), whose id rule it is.
- ``bbq_generate``: the one generated text (``filtered_resps``), kept as it is, for ``bbq --answers
  generated`` to parse by its rule (``--parser``, lm-eval's by default), as it parses a model's.
- ``crows_pairs_*``: two choices, ``[sent_more, sent_less]``, each scored as a whole sentence
  after an empty context. The id is the document's ``id`` where the loaded data has one (the shared
  copy does; the hub copy's columns were not checked), else its position ``doc_id``.
- ``discrim_eval_explicit``: read by the benchmark, which declares its documents
  (:class:`~.predicted.LmEvalDocs`; :mod:`biasatlas.benchmarks.discrim_eval.predictions`), so its item-id
  rule has one writer, its own.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ...errors import DataError
from ...textfiles import json_objects
from .predicted import Answer, Collect, LmEvalDocs, finite

#: lm-eval's ``winogender_*`` tasks ask which referent a pronoun names (its choices are the
#: occupation and the participant after "'She' refers to the"): coreference accuracy, the question
#: Rudinger et al. 2018 put to coreference systems. biasatlas's ``winogender`` asks which pronoun a
#: model expects in the slot (a female share per occupation against BLS). One file cannot answer the
#: other's question, so such a file is refused rather than read as something it is not.
WINOGENDER_ASKS_ANOTHER_QUESTION = (
    "lm-evaluation-harness's winogender tasks score which referent the pronoun names (coreference "
    "accuracy); biasatlas's winogender reads which pronoun the model expects in the slot, so these "
    "samples cannot answer it: run `biasatlas run winogender --model …` on the model instead")

_NAME = re.compile(r"^samples_(?P<task>.+)_(?P<date>\d{4}-\d\d-\d\dT[\d.\-]+)\.jsonl(\.gz)?$")


def read_lm_eval(path: Path, text: str, field: str | None, docs: Sequence[LmEvalDocs] = ()
                 ) -> tuple[dict[str, Answer], dict[str, Any]]:
    """Id → the options' log-likelihoods (module docstring), with the harness's provenance; ``docs`` are the
    documents the benchmarks declare and read themselves (DiscrimEval's)."""
    named = _NAME.match(path.name)
    task = named.group("task") if named else None
    about = _results(path, named.group("date") if named else None, task)
    out = Collect()
    for number, record in json_objects(text, path):
        doc = record.get("doc")
        if not isinstance(doc, dict):
            raise DataError("no 'doc' object", path=path, line=number, field="doc")
        if "sent_more" in doc and "sent_less" in doc:
            out.add(str(doc.get("id", record.get("doc_id"))), _pair(record, doc, number))
        elif declared := next((d for d in docs if d.matches(doc)), None):
            for key, answer in declared.read(record, doc, number):
                out.add(key, answer)
        elif {"occupation", "participant", "pronoun"} <= set(doc):
            raise DataError(WINOGENDER_ASKS_ANOTHER_QUESTION, path=path, line=number, field="doc")
        else:
            raise DataError(f"a document of task {task or '?'} is not BBQ's, CrowS-Pairs' or DiscrimEval's (keys: "
                            f"{', '.join(sorted(doc))})", path=path, line=number, field="doc")
    return out.answers, {**about, "task": task}


def _results(path: Path, date: str | None, task: str | None) -> dict[str, Any]:
    """The harness's version, the model's name and dtype from ``results_<date>.json`` beside the file."""
    about: dict[str, Any] = {"harness": "lm-evaluation-harness"}
    results = path.with_name(f"results_{date}.json") if date else None
    if results is None or not results.is_file():
        return about
    try:  # provenance only: a results file that cannot be read leaves it unknown, as a missing one does
        document = json.loads(results.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):  # ValueError: not UTF-8, not JSON
        return about
    if not isinstance(document, dict):
        return about
    config = document.get("config")
    config = config if isinstance(config, dict) else {}
    dtype = str(config.get("model_dtype") or "").removeprefix("torch.")
    model = document.get("model_name") or config.get("model_args")
    return {**about, "harness_version": document.get("lm_eval_version"),
            "model": Path(str(model)).name if model else None, "dtype": dtype or "unknown",
            "harness_printed": _printed(document, task)}


def _printed(document: Mapping[str, Any], task: str | None) -> dict[str, float] | None:
    """The task's numbers as the harness printed them (``results[task]``: ``amb_bias_score,none`` →
    ``amb_bias_score``), finite ones only, standard errors left out; None where there are none."""
    results = document.get("results")
    numbers = results.get(task) if isinstance(results, dict) and task else None
    if not isinstance(numbers, dict):
        return None
    out = {key.split(",")[0]: float(value) for key, value in numbers.items()
           if isinstance(value, (int, float)) and not isinstance(value, bool) and "_stderr" not in key
           and key != "sample_len" and math.isfinite(value)}
    return out or None


def choices(record: Mapping[str, Any]) -> tuple[list[str], list[float]] | str:
    """Each choice's continuation text (without the target delimiter's space) and log-likelihood,
    or why they cannot be read."""
    arguments = record.get("arguments")
    responses = record.get("filtered_resps")
    if not isinstance(arguments, dict) or not isinstance(responses, list):
        return "no 'arguments' or 'filtered_resps'"
    texts = [str(a.get("arg_1", "")) if isinstance(a, dict) else "" for a in arguments.values()]
    try:
        values = [float(r[0]) for r in responses]
    except (TypeError, ValueError, IndexError, KeyError):
        return f"filtered_resps {str(responses)[:80]} holds no log-likelihoods (a generation task?)"
    if len(values) != len(texts):
        return f"{len(texts)} choices but {len(values)} responses"
    return [t[1:] if t.startswith(" ") else t for t in texts], values


def generated(record: Mapping[str, Any]) -> str | None:
    """A ``generate_until`` task's answer (``bbq_generate``): ``filtered_resps`` is one string, the text
    the model generated, cut at the task's ``until``; None for a log-likelihood task's pairs."""
    responses = record.get("filtered_resps")
    if isinstance(responses, list) and len(responses) == 1 and isinstance(responses[0], str):
        return responses[0]
    return None


def _pair(record: Mapping[str, Any], doc: Mapping[str, Any], line: int) -> Answer:
    read = choices(record)
    if isinstance(read, str):
        return Answer(why=read, line=line)
    texts, values = read
    if len(values) != 2:
        return Answer(why=f"{len(values)} choices, not the pair's 2", line=line)
    answer = finite(tuple(values), line)
    return Answer(answer.values, (str(doc["sent_more"]), str(doc["sent_less"])), answer.why, line)
