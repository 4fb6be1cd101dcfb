"""BBQ's generated reading (``--answers generated``, issue 38): the model writes its answer and a protocol,
chosen by ``--parser``, says what is asked, how the text maps to an option and how the answers are scored.

Each protocol is one record (:class:`.protocol.GeneratedProtocol`) declared by its module, its rule beside it:
:mod:`.lm_eval` (lm-evaluation-harness's ``bbq_generate``; its rule :mod:`.lm_eval_parse`), :mod:`.kobbq`
(KoBBQ's own; :mod:`.kobbq_parse`, its per-prompt table :mod:`.kobbq_view`) and :mod:`.mbbq` (MBBQ's own; the
authors' vocabulary read at run time by :mod:`.mbbq_upstream`). :mod:`.table` lists them, once: every choice
between them reads it. :mod:`.reading` is the benchmark's side, the mixin of :class:`..benchmark.BBQ` that
hands each step to the protocol in use.
"""
