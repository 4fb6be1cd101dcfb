"""Paraphrased predicate sets: the census templates reworded, meaning kept (issue 27).

Seshadri et al. (2022) show that rewording templates alone moves template bias scores a long
way. Touileb et al. (2023, Table 5) fixed one wording per language ("works as a", "jobber som",
"est"); a *paraphrase set* keeps every slot, number and tense of those predicates and rewords
the predicate ("is employed as a", "has a job as a"). A set is a ``predicates_NAME.csv`` beside
a language's ``predicates.csv`` (same columns), so a user's language folder can carry its own.

The shipped sets are the toolkit's, written for this check and checked by no native speaker
or annotator: they are not the paper's (docs/benchmarks/census.md, "Sensitivity runs").
``Census(predicates=NAME)`` (``--predicates NAME``) or ``predicates=FILE`` (a CSV of the user's)
replaces the predicates of one run; ``--sensitivity paraphrases`` runs every set of the
template language, each as one perturbation.
"""

from __future__ import annotations

from importlib.resources.abc import Traversable
from pathlib import Path

from ...errors import UnknownName
from ..sensitivity import Perturbation
from .language import language_folder, read_predicates
from .settings import CensusSettings

PREFIX, SUFFIX = "predicates_", ".csv"


def predicate_sets(language: str | Path) -> tuple[str, ...]:
    """The names of a language's paraphrase sets (its ``predicates_NAME.csv`` files), sorted."""
    folder = language_folder(language)
    names = (f.name[len(PREFIX):-len(SUFFIX)] for f in folder.iterdir()
             if f.name.startswith(PREFIX) and f.name.endswith(SUFFIX))
    return tuple(sorted(n for n in names if n))


def predicates_source(language: str | Path, value: str) -> Traversable | Path:
    """The predicates file ``value`` names: a set of the language, else a CSV path of the user's.

    A set name is tried first, so a set is never shadowed by a stray file of that name in the
    working folder; anything else must look like a file (a ``.csv`` name or a path), or the
    error lists the language's sets.
    """
    sets = predicate_sets(language)
    if value in sets:
        return language_folder(language).joinpath(f"{PREFIX}{value}{SUFFIX}")
    path = Path(value)
    if value.lower().endswith(SUFFIX) or len(path.parts) > 1 or path.is_file():
        return path  # read_predicates names this file in any error (file not found, line, field)
    listed = ", ".join(sets) or "none"
    raise UnknownName(f"no predicate set {value!r} for {language!s} templates: its sets are {listed}; "
                      "or give a predicates CSV (id,number,tense,text)")


def paraphrases(census: CensusSettings, scorer: str) -> tuple[Perturbation, ...]:
    """``--sensitivity paraphrases``: one run per paraphrase set of the template language (the
    paper's method only: gebnlp2022 and bartl2020 read templates of their own)."""
    if census.method != "touileb2023":
        return ()
    return tuple(Perturbation(f"paraphrase-{name}", f"predicates {name!r} ({_first_wording(census, name)} …)",
                              options={"predicates": name})
                 for name in predicate_sets(census.template_language))


def _first_wording(census: CensusSettings, name: str) -> str:
    """The set's first predicate as text ("is employed as a"), for the table's caption."""
    first = read_predicates(predicates_source(census.template_language, name))[0]
    return first.text.split("{", 1)[0].strip()
