"""DiscrimEval's documents in lm-evaluation-harness's samples files (``discrim_eval_explicit``), read by
the benchmark that owns their ids.

Tamkin et al. 2023, the task's ``doc_to_choice``: four choices, ``yes``, ``Yes``, ``no``, ``No``, each
after the prompt and its answer cue; each log-likelihood answers the DiscrimEval probe of that form,
``{prompt}.{form}``. The prompt's id is the one the benchmark gives the data row
(:func:`.data.prompt_id`, its one writer), made of the ``doc``'s ``decision_question_id``, ``age``,
``gender`` and ``race`` (lower-cased, as lm-eval's ``process_results`` reads them):
``q47-a20-female-white``; a (scenario, person) is unique in the set. The spec declares :data:`DOCS`, so
the generic lm-eval reader (:mod:`biasatlas.scorers.predictions.lm_eval`) hands these documents here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...scorers.predictions.lm_eval import choices
from ...scorers.predictions.predicted import Answer, LmEvalDocs, finite
from .data import prompt_id

#: lm-eval's ``discrim_eval_explicit`` choices, in its order (DiscrimEval's own answer forms).
DISCRIM_FORMS = ("yes", "Yes", "no", "No")


def is_discrim_doc(doc: Mapping[str, Any]) -> bool:
    return "decision_question_id" in doc and "filled_template" in doc


def read_discrim_doc(record: Mapping[str, Any], doc: Mapping[str, Any], line: int) -> list[tuple[str, Answer]]:
    """One answer per form, keyed ``{prompt}.{form}``: that form's log-likelihood, or all four why not."""
    prompt = prompt_id(doc.get("decision_question_id"), doc.get("age"), str(doc.get("gender")), str(doc.get("race")))
    keys = [f"{prompt}.{form}" for form in DISCRIM_FORMS]
    read = choices(record)
    if isinstance(read, str):
        return [(k, Answer(why=read, line=line)) for k in keys]
    texts, values = read
    if tuple(texts) != DISCRIM_FORMS:
        why = f"choices {texts} are not DiscrimEval's {list(DISCRIM_FORMS)}"
        return [(k, Answer(why=why, line=line)) for k in keys]
    return [(k, finite((v,), line)) for k, v in zip(keys, values)]


#: What DiscrimEval's spec declares: its lm-eval documents and their reader.
DOCS = LmEvalDocs("discrim_eval_explicit", is_discrim_doc, read_discrim_doc)
