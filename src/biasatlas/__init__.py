"""biasatlas: social-bias benchmarks for pretrained language models, reproduced exactly.

From Python, one call runs a benchmark (docs/python.md)::

    import biasatlas
    run = biasatlas.evaluate("crows-pairs", model="camembert-base", dataset="fr", lowercase=True)
    run.summary, run.items, run.table()
    biasatlas.load_run("runs/fr-camembert")   # a finished run folder, as the same object

``evaluate``, ``load_run`` and ``EvaluationRun`` come from :mod:`biasatlas.api`, imported on
first use (PEP 562), so ``import biasatlas`` loads no benchmark, model library or pandas.
"""

from typing import Any

from .version import __version__

#: The names :mod:`biasatlas.api` lends the package, imported when first asked for.
_FROM_API = ("EvaluationRun", "evaluate", "load_run")

__all__ = ["EvaluationRun", "__version__", "evaluate", "load_run"]


def __getattr__(name: str) -> Any:
    if name in _FROM_API:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'biasatlas' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_FROM_API})
