"""Token alignment of minimal pairs (Nangia et al. 2020, reference ``metric.py`` ``get_span``).

The two sentences' token sequences are aligned with ``difflib.SequenceMatcher(None, a, b)``
(default ``autojunk``, as the reference); the positions inside its ``equal`` blocks are
the shared, unmodified tokens U of METHODS.md §2, special tokens included.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence


def shared_positions(a: Sequence[int], b: Sequence[int]) -> tuple[list[int], list[int]]:
    """Positions of the shared tokens in ``a`` and in ``b``, in order (equal lengths)."""
    matcher = difflib.SequenceMatcher(None, [str(x) for x in a], [str(x) for x in b])
    in_a: list[int] = []
    in_b: list[int] = []
    for tag, a0, a1, b0, b1 in matcher.get_opcodes():
        if tag == "equal":
            in_a.extend(range(a0, a1))
            in_b.extend(range(b0, b1))
    return in_a, in_b
