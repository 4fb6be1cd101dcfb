"""The predictions wing's options (``--predictions FILE`` and its settings), declared here as a
benchmark's ``ChatOptions`` is declared: a dataclass of :func:`~biasatlas.option_fields.option` fields,
composed into :class:`~biasatlas.model_options.ModelOptions` as one of its bases, so the flags, the run
record and a suite's keys come from these declarations and a new predictions option is one field here.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from ...errors import MissingInput, UsageError
from ...option_fields import option
from .predicted import PredictionsFormat


@dataclass(frozen=True, kw_only=True)
class PredictionOptions:
    """A saved predictions file in place of a model: the file, its format, which model's answers, and
    how many ids may be missing or extra."""

    predictions: Path | None = option(None, "Score a saved predictions file instead of a model: the authors' "
                                       "published outputs or another harness's, joined to the items by id "
                                       "(docs/predictions.md).", when_set=True, metavar="<file>")
    predictions_format: PredictionsFormat | None = option(None, "The predictions file's format (default: "
                                                           "recognised by its shape).", when_set=True)
    predictions_field: str | None = option(None, "Which model's answers, where the file holds several "
                                            "(UnifiedQA: race, arc, qonly; df_bbq.csv: its model).", when_set=True,
                                            metavar="<name>")
    max_missing: float = option(0.0, "Predictions: the largest share (0-1) of the run's ids that may lack a "
                                 "readable answer (default 0: none).", unscored=True, minimum=0, metavar="<share>")
    max_extra: float = option(0.0, "Predictions: the largest share (0-1) of the file's ids that may match no "
                               "item (default 0: none).", unscored=True, minimum=0, metavar="<share>")

    def check_predictions(self, scorer: str, names_a_model: bool) -> None:
        """A predictions run names its file and nothing of a model (``names_a_model``: a ``--model`` or a
        ``--scorer`` other than predictions): the file is the model's answers (its name comes from the
        file; ``--label`` renames the run)."""
        if self.predictions is None:
            if scorer == "predictions":
                raise UsageError("--scorer predictions reads a file: name it with --predictions FILE")
            return
        if not Path(self.predictions).is_file():
            raise MissingInput("no such predictions file", path=self.predictions)
        if names_a_model:
            raise UsageError("--predictions scores a file's answers: leave out --model and --scorer (the file "
                             "names its model; --label renames the run)")
        for name in ("max_missing", "max_extra"):
            if not 0 <= getattr(self, name) <= 1:
                raise UsageError(f"{name} is a share between 0 and 1, not {getattr(self, name)!r}")

    def recorded_predictions(self) -> dict[str, Any]:
        """A predictions run's record: its file and the file's sha256 (the same bytes elsewhere are the
        same run), and nothing of a model."""
        from ...hashing import sha256_file

        file = Path(str(self.predictions))
        return {"scorer": "predictions", "predictions": str(self.predictions),
                "predictions_sha256": sha256_file(file),
                "predictions_format": self.predictions_format, "predictions_field": self.predictions_field}


#: The model options only a predictions run reads (``--predictions`` and its settings).
PREDICTION_OPTIONS: tuple[str, ...] = tuple(f.name for f in fields(PredictionOptions))
