"""The package version, in a module of its own at the bottom of the layers, so that the
pipeline's provenance and the report's footer read it without importing the package root
(whose ``evaluate`` comes from :mod:`biasatlas.api`, above both)."""

__version__ = "0.1.0"
