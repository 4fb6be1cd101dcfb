"""biasatlas: social-bias benchmarks for pretrained language models, reproduced exactly.

From Python, one call runs a benchmark (docs/python.md)::

    import biasatlas
    run = biasatlas.evaluate("crows-pairs", model="camembert-base", dataset="fr", lowercase=True)
    run.summary, run.items, run.table()
    biasatlas.load_run("runs/fr-camembert")   # a finished run folder, as the same object

``evaluate`` comes from :mod:`biasatlas.api`, ``load_run`` and ``EvaluationRun`` from
:mod:`biasatlas.evaluation`, each imported on first use (PEP 562), so ``import biasatlas``
loads no benchmark, model library or pandas.

Importing the package sets ``OMP_WAIT_POLICY=PASSIVE`` unless the environment names a policy or
torch is already imported: OpenMP reads it once, when torch loads it, and this is the one place
every entry point passes first (:func:`biasatlas.scorers.threads.passive_openmp` says why).
"""

from typing import Any

from .scorers.threads import passive_openmp
from .version import __version__

passive_openmp()

#: The names the package lends from its modules, each imported when first asked for.
_LENT = {"evaluate": "api", "EvaluationRun": "evaluation", "load_run": "evaluation"}

__all__ = ["EvaluationRun", "__version__", "evaluate", "load_run"]


def __getattr__(name: str) -> Any:
    if name in _LENT:
        from importlib import import_module

        return getattr(import_module(f".{_LENT[name]}", __name__), name)
    raise AttributeError(f"module 'biasatlas' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LENT})
