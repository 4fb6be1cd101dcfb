"""A run's request: what to run (:class:`RunRequest`), on which model (:class:`ModelOptions`,
:mod:`biasatlas.model_options`) and where to score it (:class:`EngineOptions`,
:mod:`biasatlas.engine_options`); all three are importable from here.

Each edge builds one request (the command line, a suite file, :func:`biasatlas.evaluate`)
and hands it whole to the runner (:func:`biasatlas.api.execute`): an option exists once, as
a field of those records, and is read where it takes effect (DESIGN.md: "a run's settings
travel as one frozen object"; HELM's ``AdapterSpec``). Checks that need nothing but the values
run when a record is built (closed sets, batch size, variant names; a benchmark's options
against its factory's annotations, :func:`~biasatlas.option_fields.check_type`); checks that
ask the machine run in :meth:`ModelOptions.preflight`, before any weights load. Field metadata
(:func:`~biasatlas.option_fields.option`) says which options never change a score
(``unscored``: left out of the recorded request, so a rerun on another GPU is the same run),
which are recorded only when set (``when_set``: older run folders lack them), and the help of
the command line's flag of the same name (``biasatlas run``'s flags are these fields).

The package's modules, top to bottom (each imports only those below it; ``[tool.importlinter]``):
:mod:`.run` (:class:`RunRequest`) over :mod:`.keywords` (which keywords are the benchmark's, the
model's, the engine's). The two option records stay beside the package, in
:mod:`biasatlas.model_options` and :mod:`biasatlas.engine_options` (each scorer family declares
its options there), and are re-exported here with the names ``biasatlas.request`` always offered.

Nothing heavy is imported here: the registry, the scorers and torch load inside the methods.
"""

from ..engine_options import EngineOptions
from ..model_options import DEFAULT_MODEL, PREDICTION_OPTIONS, GivenModel, ModelOptions
from ..option_fields import check_label, check_type, literal_values
from ..values import check_batch_size
from .keywords import benchmark_options, split_options
from .run import RunRequest

__all__ = ["DEFAULT_MODEL", "PREDICTION_OPTIONS", "EngineOptions", "GivenModel", "ModelOptions", "RunRequest",
           "benchmark_options", "check_batch_size", "check_label", "check_type", "literal_values", "split_options"]
