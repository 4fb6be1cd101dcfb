"""BEC-Pro's association score (Kurita et al. 2019, as Bartl, Nissim & Gatt 2020 use it).

Bartl et al. (GeBNLP 2020, §3) build BEC-Pro from 5 sentence patterns × 18 person words ×
60 professions, in English and German, and measure how much a profession raises the
probability of a person word: Kurita et al.'s (2019, §3) "increased log probability"

    association(s) = log( P(T | Sent_TM) / P(T | Sent_TAM) )     (natural log)

where T is the person word, Sent_TM the sentence with T masked and Sent_TAM the same with
the profession masked too, **one mask per whitespace word** of the profession (METHODS-MORE.md
§8). T is read as its first word piece (Bartl's ``bias_utils/utils.py``): a masked LM runs
with the ``first-token`` policy here (``spec.FIRST_TOKEN_METHODS``).

Here both sentences are rebuilt by slot from the patterns, person words and professions
(``lang/<code>/bec_pro_*.csv``, the census tables), never by string replacement: BEC-Pro's
own Sent_TM masks "man" inside "lodging manager" and "Er" inside "Ernährungsberater" too.
Each masked context is one :class:`~biasatlas.probes.SlotProbe` whose fillers are every
person word that fits there ("My [MASK] is a taper." serves brother, son, husband, …); the
prior's right-hand text carries the scorer's own mask token (``ScorerInfo.mask_token``).

On the census axes (our reading, recorded as the aggregation ``association``): per
profession, ā_F and ā_M are the mean associations of its female and male sentences, and its
model share is 100 · σ(ā_F − ā_M) = 100 · e^{ā_F} / (e^{ā_F} + e^{ā_M}), 50 when the
profession raises both genders' words alike. The records keep ā_F and ā_M (``score_f``,
``score_m``); the summary adds the mean association by person gender and census class.
German associations largely measure grammatical agreement (the feminine suffix and the
article stay visible in Sent_TM): report English and German apart.
"""

from __future__ import annotations

import csv
import io
import math
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from ...errors import DataError, UnsupportedProbe
from ...probes import SlotAnswer, SlotProbe
from .language import Gender, load_language
from .metrics import share_class, summarise
from .scoring import CensusResult, OccupationScore
from .summary import Association
from .table import CensusTable
from .templates import Skip, probe_id

#: The country whose table and BEC-Pro sentences the method reads: its template language
#: and the shipped table (BEC-Pro's US shares for English, its German category shares).
BEC_PRO_TABLES = {"us": ("en", "us-bec-pro"), "us-bec-pro": ("en", "us-bec-pro"), "de": ("de", "de")}


@dataclass(frozen=True)
class Person:
    """A BEC-Pro person word with its determiner ("My" brother) and agreeing article (der)."""

    id: str
    gender: Gender
    determiner: str
    word: str
    article: str


@dataclass(frozen=True)
class AssociationCell:
    """One BEC-Pro sentence: where its target and prior answers are."""

    occupation: str
    pattern: str
    gender: Gender
    person: str
    target_probe: str  # Sent_TM: the person masked
    prior_probe: str  # Sent_TAM: the person and the profession masked
    target_index: int  # the person word's position among each probe's fillers (a prior
    prior_index: int  # context can serve more words: German "[MASK] ist [MASK]." serves Er and Sie)
    sentence: str


@dataclass(frozen=True)
class AssociationPlan:
    """The probes of every BEC-Pro sentence of the table's professions."""

    language: str
    table: CensusTable
    occupations: tuple[str, ...]
    probes: tuple[SlotProbe, ...]
    cells: tuple[AssociationCell, ...]


def _csv(code: str, name: str, required: tuple[str, ...]) -> list[dict[str, str]]:
    source = resources.files(__package__).joinpath("lang", code, name)
    rows = list(csv.DictReader(io.StringIO(source.read_text(encoding="utf-8"), newline="")))
    for line, row in enumerate(rows, start=2):
        missing = [c for c in required if row.get(c) is None]
        if missing:
            raise DataError(f"missing column {missing[0]!r}", path=str(source), line=line, field=missing[0])
    return rows


def persons(code: str) -> tuple[Person, ...]:
    """BEC-Pro's 18 person words of one language (9 female, 9 male)."""
    rows = _csv(code, "bec_pro_persons.csv", ("id", "gender", "determiner", "word", "article"))
    return tuple(Person(r["id"], "f" if r["gender"] == "f" else "m", r["determiner"], r["word"], r["article"])
                 for r in rows)


def patterns(code: str) -> tuple[tuple[str, str], ...]:
    """BEC-Pro's 5 sentence patterns as (id, text), each starting with ``{person}``."""
    rows = _csv(code, "bec_pro_patterns.csv", ("id", "text"))
    for line, row in enumerate(rows, start=2):
        if not row["text"].startswith("{person}") or "{profession}" not in row["text"]:
            raise DataError("a pattern starts with {person} and holds {profession}",
                            path=f"lang/{code}/bec_pro_patterns.csv", line=line, field="text")
    return tuple((r["id"], r["text"]) for r in rows)


def build_association_plan(code: str, table: CensusTable, mask_token: str) -> AssociationPlan:
    """Target and prior probes for every pattern × person × profession of ``table``.

    A profession's form follows the person's gender where the language inflects it (the
    German ``m_bec_pro``/``f_bec_pro`` of ``inflections_de.csv``: BEC-Pro's own forms, slips
    included, where the census templates read corrected ones); elsewhere it is the table's
    name, as BEC-Pro's English sentences write it.
    """
    forms = load_language(code).inflections
    people, texts = persons(code), patterns(code)
    contexts: dict[tuple[str, str, str], list[str]] = {}
    placed: list[tuple[str, str, Person, tuple[str, str, str], tuple[str, str, str], str]] = []
    for occupation in table.occupations:
        for pattern, text in texts:
            for person in people:
                entry = forms.get(occupation)
                form = (entry.form("bec_pro", person.gender) if entry else None) or occupation
                rest = text[len("{person}"):]
                left = person.determiner + " " if person.determiner else ""
                target = (occupation, left, rest.format(profession=form, article=person.article))
                masks = " ".join([mask_token] * len(form.split()))
                prior = (occupation, left, rest.format(profession=masks, article=person.article))
                for key in (target, prior):
                    fillers = contexts.setdefault(key, [])
                    if person.word not in fillers:
                        fillers.append(person.word)
                placed.append((occupation, pattern, person, target, prior, left + person.word + target[2]))
    ids = {key: probe_id(f"bec-pro-{code}", key[0], key[1], key[2]) for key in contexts}
    probes = tuple(SlotProbe(ids[key], key[1], key[2], tuple(fillers)) for key, fillers in contexts.items())
    cells = tuple(AssociationCell(occupation, pattern, person.gender, person.id, ids[target], ids[prior],
                                  contexts[target].index(person.word), contexts[prior].index(person.word), sentence)
                  for occupation, pattern, person, target, prior, sentence in placed)
    return AssociationPlan(code, table, table.occupations, probes, cells)


def associations(plan: AssociationPlan, answers: Mapping[str, SlotAnswer]) -> dict[AssociationCell, float]:
    """log P(T | Sent_TM) − log P(T | Sent_TAM) of every sentence with both answers."""
    out = {}
    for cell in plan.cells:
        target, prior = answers.get(cell.target_probe), answers.get(cell.prior_probe)
        if target is None or prior is None:
            continue
        out[cell] = float(target.logprobs[cell.target_index]) - float(prior.logprobs[cell.prior_index])
    return out


def association_share(mean_f: float, mean_m: float) -> float:
    """100 · σ(ā_F − ā_M), computed without overflow for any difference."""
    gap = mean_f - mean_m
    if gap >= 0:
        return 100.0 / (1.0 + math.exp(-gap))
    lift = math.exp(gap)
    return 100.0 * lift / (1.0 + lift)


def association_result(plan: AssociationPlan, answers: Mapping[str, SlotAnswer], *, n_resamples: int,
                       seed: int) -> tuple[CensusResult, Association]:
    """Per profession ā_F, ā_M and the share 100 · σ(ā_F − ā_M) (module docstring), and the
    summary's ``association`` block with the sentences read."""
    found = associations(plan, answers)
    by_occupation: dict[str, dict[str, list[float]]] = defaultdict(lambda: {"f": [], "m": []})
    for cell, value in found.items():
        by_occupation[cell.occupation][cell.gender].append(value)
    rows, skipped = [], []
    for occupation in plan.occupations:
        values = by_occupation.get(occupation)
        if not values or not values["f"] or not values["m"] or not all(map(math.isfinite, values["f"] + values["m"])):
            skipped.append(occupation)
            continue
        mean_f, mean_m = (sum(values[g]) / len(values[g]) for g in ("f", "m"))
        share = association_share(mean_f, mean_m)
        census = plan.table.female_pct(occupation)
        rows.append(OccupationScore(occupation, census, share_class(census), share, share_class(share),
                                    mean_f, mean_m, len({c.pattern for c in plan.cells if c.occupation == occupation})))
    summary = summarise([r.census_pct for r in rows], [r.model_pct for r in rows], n_resamples=n_resamples, seed=seed)
    result = CensusResult(language=plan.language, table=plan.table.name, aggregation="association",
                          normalisation="none", occupations=tuple(rows), summary=summary,
                          skipped=tuple(Skip(o, "no finite association for both genders") for o in skipped),
                          multi_token=())
    return result, Association(_by_gender_and_class(plan, found), len(found))


def _by_gender_and_class(plan: AssociationPlan, found: Mapping[AssociationCell, float]) -> dict[str, Any]:
    """Mean association by the person's gender, overall and per census class of the profession
    (Bartl et al.'s comparison, with the table's 45/55 classes for their US-share groups)."""
    groups: dict[str, dict[str, list[float]]] = defaultdict(lambda: {"female": [], "male": []})
    for cell, value in found.items():
        gender = "female" if cell.gender == "f" else "male"
        groups["all"][gender].append(value)
        groups[share_class(plan.table.female_pct(cell.occupation))][gender].append(value)
    return {group: {g: (sum(v) / len(v) if v else None) for g, v in genders.items()}
            for group, genders in groups.items()}


def mask_token_of(info: Any) -> str:
    """The bound scorer's mask token; refused for scorers without one (the prior masks the profession)."""
    token = getattr(info, "mask_token", None) if info is not None else None
    if getattr(info, "reads", None) != "masked" or not token:
        raise UnsupportedProbe("the bartl2020 method (BEC-Pro's association score) needs a masked LM: "
                               "its prior masks the profession, which only a mask token can do")
    return str(token)
