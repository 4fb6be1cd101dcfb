"""Sensitivity runs (``biasatlas run NAME --sensitivity KIND``, docs/sensitivity.md): one request
scored under a benchmark's named perturbations, and what is read from those runs.

The package's modules, top to bottom (each imports only those below it; ``[tool.importlinter]``):

- :mod:`.runner`: the plan (the unperturbed run and one per perturbation), the runs through
  :func:`biasatlas.api.execute`, the spread and flips of their headlines;
- :mod:`.results`: ``sensitivity.json`` written and read back, its tables, and Kendall's τ of
  several models' rankings; folders only, never a model.

The names below are those ``biasatlas.sensitivity`` offered when it was one module.
"""

from .results import (FORMAT, SENSITIVITY_FILE, TABLE_FILE, kendall_with_interval, ranking_stability, read, report,
                      stability_table, tables, write)
from .runner import UNPERTURBED, Planned, compare, declaration, flips, perturbed, plan, run, setting, spread

__all__ = ["FORMAT", "SENSITIVITY_FILE", "TABLE_FILE", "UNPERTURBED", "Planned", "compare", "declaration", "flips",
           "kendall_with_interval", "perturbed", "plan", "ranking_stability", "read", "report", "run", "setting",
           "spread", "stability_table", "tables", "write"]
