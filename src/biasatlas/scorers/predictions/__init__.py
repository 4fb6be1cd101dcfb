"""The predictions wing: the ``predictions`` scorer, which answers probes from a file of numbers another
tool already computed, never from a model.

A newcomer starts at :mod:`.scorer` (the scorer: it joins a file's rows to a run's probes and checks the
file is the run's), then :mod:`.files` (which format a file is, and its reader), :mod:`.predicted` (the
typed rows every reader yields) and the generic formats: :mod:`.plain` (one id and score a row) and
:mod:`.lm_eval` (lm-evaluation-harness's samples files). This wing imports neither of the other two.
"""
