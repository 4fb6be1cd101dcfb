"""Suites: a grid of benchmarks × models, read from one TOML file, run into one folder (docs/suites.md).

The package's modules, top to bottom (each imports only those below it; ``[tool.importlinter]``):

- :mod:`.grid`: the suite file read and checked whole (:func:`read_suite`, :func:`grid_suite` for
  ``run A,B -m X,Y``), its cells run through the runner, the report and leaderboard written;
- :mod:`.sensitivity`: a cell's ``sensitivity`` and ``exclude_flagged``: its planned runs, its
  claims, when it is finished, the ranking stability over its models;
- :mod:`.cell`: a cell (:class:`Cell`) and how it runs (``CellRun``);
- :mod:`.folder` and :mod:`.values`: the suite's output folder, claimed as a run folder is; a
  suite file's TOML values read as the options' types.

The names below are the suite's public surface, as ``biasatlas.suite`` offered them when it
was one module.
"""

from .grid import Cell, Suite, SuiteError, SuiteResult, grid_suite, read_suite, run_suite, write_report

__all__ = ["Cell", "Suite", "SuiteError", "SuiteResult", "grid_suite", "read_suite", "run_suite", "write_report"]
