"""Presentation primitives shared by every benchmark's view and by the report.

Below the benchmarks in the layers (DESIGN.md, "Layout"): a benchmark's ``view.py`` builds
its tables, plots and paired tests from these, and :mod:`biasatlas.report` assembles what
the views return into one document. Nothing here names a benchmark.

- :mod:`.tables`: the report's :class:`~.tables.Table` and its typed cells, rendered to the
  terminal, Markdown and CSV with one formatting rule.
- :mod:`.svg`: matplotlib figures as inline SVG with tooltips.
- :mod:`.style`: the figures' fonts, colours and label fitting.
- :mod:`.labels`: point labels placed inside the plot area without collisions.
- :mod:`.cite`: BibTeX entries (the papers each benchmark's view lists).
- :mod:`.paired`: the record a paired test between two runs returns.

The run folder as the report reads it (``RunView``), its field checks and the typed
summary reader are :mod:`biasatlas.runs.view`, :mod:`biasatlas.runs.checks` and
:mod:`biasatlas.runs.typed`, below this package.
"""
