"""The run folder: everything that claims, writes, reads and checks one (DESIGN.md, "Layout").

The modules sit at different layers (``[tool.importlinter]`` in pyproject.toml), low to high:

- :mod:`.checks`, then :mod:`.format` and :mod:`.typed`: the field checks a run folder's
  JSON is read with; the owner file's ``format_version`` and the renamed config keys; a
  benchmark's summary.json read back typed from its dataclass's hints (the core layers).
- :mod:`.view`: a finished run folder as the report reads it (``RunView``), checked on load;
  below the presentation primitives that draw it.
- :mod:`.folder`: ``Run``, written atomically, claimed and locked, and the rerun check.
- :mod:`.load`: ``load_run(s)``, the checking reader with each benchmark's contract from the
  registry.

A finished run as one object (``EvaluationRun``, what :func:`biasatlas.evaluate` returns and
:func:`biasatlas.load_run` reads back) lives above, in :mod:`biasatlas.evaluation`: it draws the
report's terminal tables, and nothing here imports the report.

This package imports nothing itself, so importing one module loads no layer above it.
"""
