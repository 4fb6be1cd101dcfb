"""Benchmarks: one module each; they build probes and compute the published metric."""
