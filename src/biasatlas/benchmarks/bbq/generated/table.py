"""The generated reading's protocols, in one table: every choice between them reads it (issue 48).

``--parser`` takes ``auto`` or a row's name; ``auto`` is the dataset's own rule (the row that ``owns`` the
dataset), else the first row's (lm-eval's rule, English, as the reading always read such sets). The rule in
use is what config.json records. A rule's parser sensitivity tries the rows that ask its prompts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal

from . import kobbq, lm_eval, mbbq
from .protocol import GeneratedProtocol

#: Every rule of ``--parser``, by name; the first is the fallback of ``auto``.
PROTOCOLS: Mapping[str, GeneratedProtocol] = {p.name: p for p in (lm_eval.PROTOCOL, kobbq.PROTOCOL, mbbq.PROTOCOL,
                                                                  lm_eval.OPTION_TEXT)}
DEFAULT = next(iter(PROTOCOLS.values()))
AUTO = "auto"
#: ``--parser``'s choices, in the order ``--help`` lists them.
PARSE_RULES: tuple[str, ...] = (AUTO, *PROTOCOLS)
if TYPE_CHECKING:
    ParseRule = str
else:  # the option's type at run time: a Literal of the table's names, whose checks and messages follow it
    ParseRule = Literal[PARSE_RULES]


def own(dataset: str) -> GeneratedProtocol:
    """``auto``'s rule for ``dataset``: the row owning it, else the first."""
    return next((p for p in PROTOCOLS.values() if dataset in p.owns), DEFAULT)


def chosen(parser: str, dataset: str) -> GeneratedProtocol:
    """The rule ``--parser`` names, ``auto`` resolved for ``dataset``."""
    return own(dataset) if parser == AUTO else PROTOCOLS[parser]


def needs_generated_answers(parser: str) -> bool:
    """Whether ``--parser`` maps only generated answers: all but ``auto`` and the default rule, which a
    likelihood run leaves as they are."""
    return parser not in (AUTO, DEFAULT.name)


def kin(protocol: GeneratedProtocol) -> tuple[str, ...]:
    """The rules asking the same prompts as ``protocol`` (itself included): its parser sensitivity's runs."""
    return tuple(p.name for p in PROTOCOLS.values() if p.asks == protocol.asks)


def headline_reading(parser: str | None) -> str | None:
    """How a run's diff-bias headlines are read when its rule's headlines are those columns, else None."""
    protocol = PROTOCOLS.get(parser or "")
    return None if protocol is None else protocol.headline_reading
