"""The in-process wing: scorers that load a model's weights into this process and read it there.

A newcomer starts at :mod:`.causal_lm` (a decoder's log-likelihoods and greedy texts), :mod:`.masked_lm`
(pseudo-log-likelihoods, with :mod:`.reveal` and :mod:`.nsp` beside it), :mod:`.seq2seq`, :mod:`.encoder`
(embeddings) and :mod:`.word_vectors` (static vectors, no torch). :mod:`.loading` turns a name into a model
and tokenizer (a hub id, a folder, an :class:`~.inmemory.InMemoryModel`, or a packaged GGUF:
:mod:`.packaged`); :mod:`.preflight` checks a device and a model's reachability before anything loads.
What every wing shares (batching, resume, engines, spans, the start token) sits one floor down, in
:mod:`biasatlas.scorers`; this wing imports neither of the other two.
"""
