"""Census probes: identifier × predicate × occupation, grouped by masked context.

Touileb et al. (2023, §2–3): every sentence joins one gendered identifier, one
predicate and one occupation, and the identifier's gendered word is masked ("The
[MASK] worked as a nurse."). One sentence is a :class:`Cell`. Cells that share the
exact text around the slot become ONE :class:`~biasatlas.probes.SlotProbe` whose
fillers are all the identifier words that fit there, so a scorer evaluates each
distinct masked context once (DESIGN.md, "Performance stance"). In English "The
[MASK] worked as a nurse." serves 13 identifiers of both genders; in French the rest of
the sentence agrees with the gender ("La [MASK] est infirmière." / "Le [MASK] est
infirmier."), so the genders get separate contexts unless the occupation is epicene.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Literal

from ...errors import DataError
from ..options import draw_sample
from ...probes import ContinuationProbe, SlotProbe
from .language import (PLACEHOLDER, Gender, Identifier, IdentifierSet, Inflection, LanguageSpec,
                       Predicate, load_language, select_identifiers)
from .table import CensusTable


@dataclass(frozen=True)
class Cell:
    """One sentence: where its identifier's probability is found among the answers."""

    occupation: str
    template: str  # predicate id: one predicate in one number (the paper's template t)
    gender: Gender
    identifier: str
    probe_id: str
    filler_indices: tuple[int, ...]  # positions of the identifier's spelling variants
    text: str  # the sentence with the first variant filled in


@dataclass(frozen=True)
class Skip:
    """An occupation left out, with the reason (recorded, never printed)."""

    occupation: str
    reason: str


@dataclass(frozen=True)
class CensusPlan:
    """Probes plus the map from answers back to occupations, templates and genders."""

    language: str
    table: CensusTable
    occupations: tuple[str, ...]
    probes: tuple[SlotProbe | ContinuationProbe, ...]
    cells: tuple[Cell, ...]
    skipped: tuple[Skip, ...] = ()
    #: probe id → where the occupation phrase starts in the probe's ``right`` text
    occupation_at: Mapping[str, int] = field(default_factory=dict)

    @property
    def n_sentences(self) -> int:
        """Filled sentences, the unit the paper counts (e.g. NO 69,720)."""
        return len(self.cells)


def build_plan(language: str | Path | LanguageSpec, table: CensusTable, *,
               sample: int | None = None, seed: int = 0,
               identifiers: str | Path | None = None, predicates: str | Path | Traversable | None = None,
               inflections: str | Path | None = None,
               missing: Literal["error", "skip"] = "error",
               identifier_set: IdentifierSet = "paired", preamble: str = "") -> CensusPlan:
    """All census probes for ``table`` in ``language`` (a code, a folder or a spec).

    ``identifier_set`` is ``paired`` (every identifier has its other-gender twin, so a
    gender-symmetric model scores exactly 50) or ``all`` (the paper's Table 2 as printed:
    15 female and 13 male in English and Norwegian). ``preamble`` is text put before every
    sentence (a robustness check: a neutral sentence there should not move the scores).

    ``sample`` keeps that many occupations, drawn without replacement with
    ``numpy.random.default_rng(seed)`` and kept in table order. An occupation without
    every needed form raises :class:`DataError` (``missing="error"``) or is recorded in
    ``plan.skipped`` (``missing="skip"``).
    """
    spec = language if isinstance(language, LanguageSpec) else load_language(
        language, identifiers=identifiers, predicates=predicates, inflections=inflections)
    spec = select_identifiers(spec, identifier_set)
    _check_genders(spec)
    occupations = _sample(table.occupations, sample, seed)
    probes: list[SlotProbe] = []
    cells: list[Cell] = []
    skipped: list[Skip] = []
    offsets: dict[str, int] = {}
    for occupation in occupations:
        problem = _missing_forms(spec, occupation)
        if problem:
            skipped.append(Skip(occupation, problem))
            continue
        _add_occupation(spec, occupation, probes, cells, offsets, preamble)
    if skipped and missing == "error":
        raise _missing_error(spec, skipped)
    kept = tuple(o for o in occupations if o not in {s.occupation for s in skipped})
    return CensusPlan(language=spec.code, table=table, occupations=kept, probes=tuple(probes),
                      cells=tuple(cells), skipped=tuple(skipped), occupation_at=offsets)


def conditional_plan(plan: CensusPlan) -> CensusPlan:
    """The same sentences asked as log P(occupation phrase | identifier + predicate).

    Each slot probe becomes a :class:`~biasatlas.probes.ContinuationProbe` whose contexts
    are the sentence up to the occupation phrase, one per filler ("The woman works as"),
    and whose continuation is the rest (" a nurse."). Cells keep their filler indices,
    which now index the contexts.
    """
    converted: dict[str, ContinuationProbe] = {}
    for probe in plan.probes:
        if not isinstance(probe, SlotProbe):
            raise TypeError(f"probe {probe.id} is not a slot probe")
        cut = plan.occupation_at[probe.id]
        converted[probe.id] = ContinuationProbe(
            id=f"{probe.id}/given", contexts=tuple(probe.left + f + probe.right[:cut] for f in probe.fillers),
            continuation=probe.right[cut:])
    cells = tuple(replace(c, probe_id=converted[c.probe_id].id) for c in plan.cells)
    return replace(plan, probes=tuple(converted.values()), cells=cells, occupation_at={})


def build_probes(language: str | Path | LanguageSpec, table: CensusTable,
                 sample: int | None = None, **options) -> list[SlotProbe | ContinuationProbe]:
    """The slot probes of :func:`build_plan` (same arguments)."""
    return list(build_plan(language, table, sample=sample, **options).probes)


def _check_genders(spec: LanguageSpec) -> None:
    """Every template needs identifiers of both genders, or proba_F/proba_M is undefined."""
    for predicate in spec.predicates:
        genders = {i.gender for i in spec.identifiers if i.number == predicate.number}
        if genders != {"f", "m"}:
            raise DataError(f"predicate {predicate.id!r} ({predicate.number}) has identifiers "
                            f"of gender {sorted(genders)} only; both f and m are needed",
                            field="number")


def _sample(occupations: tuple[str, ...], sample: int | None, seed: int) -> tuple[str, ...]:
    if sample is None or sample >= len(occupations):
        return occupations
    if sample < 1:
        raise ValueError(f"sample must be a positive number of occupations, not {sample}")
    return tuple(draw_sample(occupations, sample, seed))


def _missing_forms(spec: LanguageSpec, occupation: str) -> str:
    entry = spec.inflections.get(occupation)
    if entry is None:
        return "no inflection row for this occupation"
    for predicate in spec.predicates:
        for gender in {i.gender for i in spec.identifiers if i.number == predicate.number}:
            for name in predicate.placeholders:
                if entry.form(name, gender) is None:
                    return f"no form {name!r} for gender {gender!r} (predicate {predicate.id})"
    return ""


def _missing_error(spec: LanguageSpec, skipped: list[Skip]) -> DataError:
    shown = "; ".join(f"{s.occupation!r}: {s.reason}" for s in skipped[:5])
    more = f" (and {len(skipped) - 5} more)" if len(skipped) > 5 else ""
    # The advice names the user's own files and the command line's options: a shipped file
    # lives inside the installed package, which an upgrade replaces (never edit it).
    shipped = str(Path(__file__).resolve().parent)
    own = [source for source in spec.sources if not str(Path(source).resolve()).startswith(shipped)]
    if own:
        fix = f"Add rows for them to {', '.join(own)}"
    else:
        columns = f"the columns of the shipped {Path(spec.sources[0]).name}" if spec.sources else "occupation,sg,pl"
        fix = f"Write their forms in an inflections CSV of your own ({columns}) and pass it with --inflections FILE"
    return DataError(f"{len(skipped)} occupations cannot be put in {spec.code!r} templates: {shown}{more}. "
                     f"{fix}, or pass --skip-missing to leave them out (in Python: inflections=FILE, "
                     "missing='skip')", field="occupation")


def occupation_start(predicate: Predicate) -> int:
    """Where the occupation phrase begins in the predicate text ("works as |{article} {sg}.").

    The text before the first placeholder is literal, the same for both genders, so the
    cut falls at the same place in every filled sentence of the template.
    """
    found = PLACEHOLDER.search(predicate.text)
    if found is None:  # read_predicates refuses such predicates
        raise DataError(f"predicate {predicate.id!r} has no occupation placeholder", field="text")
    return found.start()


def joiner(predicate: Predicate) -> str:
    """What goes between the identifier and the predicate: a space, or nothing before
    punctuation (BEC-Pro's apposition "Er, der Friseur, hatte …": no space before the comma)."""
    return "" if predicate.text[:1] in ",;:." else " "


def fill(predicate: Predicate, entry: Inflection, gender: Gender) -> str:
    """The predicate text with the occupation forms for ``gender`` filled in."""
    return PLACEHOLDER.sub(lambda m: entry.form(m.group(1), gender) or "", predicate.text)


def _add_occupation(spec: LanguageSpec, occupation: str, probes: list[SlotProbe],
                    cells: list[Cell], offsets: dict[str, int], preamble: str = "") -> None:
    """Cells of every template of one occupation; one probe per distinct context.

    Contexts are shared across templates too: a Norwegian occupation whose singular and
    plural forms coincide ("politi") puts singular and plural identifiers in one probe.
    """
    entry = spec.inflections[occupation]
    contexts: dict[tuple[str, str], list[str]] = {}
    starts: dict[tuple[str, str], int] = {}
    placed: list[tuple[Predicate, Identifier, tuple[str, str]]] = []
    for predicate in spec.predicates:
        for ident in spec.identifiers:
            if ident.number != predicate.number:
                continue
            gap = joiner(predicate)
            context = (preamble + ident.left, gap + fill(predicate, entry, ident.gender))
            starts[context] = len(gap) + occupation_start(predicate)
            fillers = contexts.setdefault(context, [])
            fillers.extend(f for f in ident.forms if f not in fillers)
            placed.append((predicate, ident, context))
    ids = {ctx: probe_id(spec.code, occupation, *ctx) for ctx in contexts}
    for context, fillers in contexts.items():
        offsets[ids[context]] = starts[context]
        probes.append(SlotProbe(id=ids[context], left=context[0], right=context[1],
                                fillers=tuple(fillers)))
    for predicate, ident, context in placed:
        fillers = contexts[context]
        cells.append(Cell(occupation=occupation, template=predicate.id, gender=ident.gender,
                          identifier=ident.id, probe_id=ids[context],
                          filler_indices=tuple(fillers.index(f) for f in ident.forms),
                          text=context[0] + ident.forms[0] + context[1]))


def slug(text: str) -> str:
    """ASCII slug of an occupation name plus a short hash, so ids are readable and unique."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    words = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")[:40].rstrip("-")
    return f"{words}-{hashlib.sha1(text.encode()).hexdigest()[:6]}"


def probe_id(language: str, occupation: str, left: str, right: str) -> str:
    """Stable id: the same language, occupation and context text give the same id."""
    context = hashlib.sha1(f"{left}\x1f{right}".encode()).hexdigest()[:10]
    return f"census/{language}/{slug(occupation)}/{context}"


def sentences(plan: CensusPlan, occupation: str | None = None) -> Sequence[str]:
    """The filled sentences of a plan (all, or one occupation's), for reading and tests."""
    return [c.text for c in plan.cells if occupation is None or c.occupation == occupation]
