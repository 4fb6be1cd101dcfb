"""Scorers: the only code that touches a model. See :mod:`biasatlas.scorers.base`."""
