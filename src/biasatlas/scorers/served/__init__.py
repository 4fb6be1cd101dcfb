"""The served wing: scorers that read a model behind an OpenAI-compatible server (vLLM, a gateway).

A newcomer starts at :mod:`.completions` (:class:`~.completions.ServedScorer`: every likelihood the
causal benchmarks ask, read from ``/v1/completions``' echoed prompt log-probabilities, and greedy
texts) and :mod:`.chat_api` (its subclass for ``/v1/chat/completions``: generated texts only). Around
them: :mod:`.http` (the client, retries, the endpoint), :mod:`.facts` (what the server says of itself),
:mod:`.checks` (the canary that proves the server's numbers are the model's), :mod:`.echo` and
:mod:`.tokens` (reading the answers back onto the prompt's tokens), :mod:`.start` and :mod:`.jobs`
(what each text is read after, and the requests), :mod:`.chat` (the served model's chat facts). What
every wing shares sits one floor down, in :mod:`biasatlas.scorers`; this wing imports neither of the
other two. :func:`served_scorer` is the registry's ``served`` entry.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...errors import UsageError

if TYPE_CHECKING:
    from .completions import ServedScorer
    from .http import ServedApi


def served_scorer(model: str, *, served_api: ServedApi | None = None, **options: Any) -> ServedScorer:
    """The served scorer of ``--served-api``: ``completions`` (the default: :class:`ServedScorer`) or ``chat``.

    The scorers are imported here, on first use, so reading a constant of :mod:`.http` (the options do)
    loads no scorer."""
    if served_api in (None, "completions"):
        from .completions import ServedScorer
        return ServedScorer(model, **options)
    if served_api != "chat":
        raise UsageError(f"--served-api is completions or chat, not {served_api!r}")
    from .chat_api import ServedChatScorer
    return ServedChatScorer(model, **options)
