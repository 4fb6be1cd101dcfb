"""Scorers: the only code that touches a model. See :mod:`biasatlas.scorers.base`.

This floor is the engine every scorer shares: :mod:`.base` (the :class:`~.base.Scorer` a plugin
subclasses), :mod:`.batching` and :mod:`.batch_size`, :mod:`.engines` (in this process, in workers,
on Ray) with :mod:`.threads`, :mod:`.resume` and :mod:`.job` (Ctrl-C keeps what ran), :mod:`.spans`
and :mod:`.alignment` (which tokens are whose), :mod:`.start` and :mod:`.chat_tokens` (what a text is
read after), :mod:`.generation` and :mod:`.prefix`, and the :mod:`.fake` scorer. Above it, three
wings that never import each other: :mod:`.inprocess` (a model's weights loaded here),
:mod:`.served` (a model behind a server) and :mod:`.predictions` (numbers from a file).
"""
