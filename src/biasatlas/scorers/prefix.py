"""Shared prefixes: the decoder runs once over tokens that several rows of a batch begin with.

A causal LM's states at a position depend only on the tokens up to it, so rows that begin
with the same tokens have the same states there. Census sentences share long prefixes
(every occupation after "The woman works as a"), CrowS-Pairs sentences often share their
first words. :func:`shared_states` runs each distinct shared prefix once (keeping its
key/value cache), then each row's remaining tokens against its prefix's cache, and reads
the hidden states a batch's picks ask for. The arithmetic is the same as one forward per
row; only the order of floating-point sums changes (the parity tests hold it to 1e-4).

Which rows share: :func:`prefix_groups` sorts the rows by their tokens and joins
neighbours whose common prefix is at least ``min_shared`` tokens. A prefix saves its
length once per extra row, and costs one more forward pass, so short prefixes are not
worth sharing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .batching import long_tensor, pad_ids, to_device

#: Shorter common prefixes are left unshared: a forward's fixed cost is worth ~32 tokens
#: of arithmetic on 2 CPU cores (causal_lm.CPU_FORWARD_OVERHEAD), split over a group's rows.
MIN_SHARED = 6
#: Sharing runs two or three forwards where one did, and pads prefixes and suffixes
#: separately; below this share of tokens saved it lost time (CrowS-Pairs saves ~8 %
#: within its batches and ran 4.3 → 4.9 s shared; census saves ~45 %).
WORTH_SHARING = 0.25


@dataclass(frozen=True)
class Group:
    """Rows ``members`` (indices into the batch) that all begin with ``length`` equal tokens."""

    members: tuple[int, ...]
    length: int


def _common(a: Sequence[int], b: Sequence[int], limit: int) -> int:
    n = 0
    while n < limit and n < len(a) and n < len(b) and a[n] == b[n]:
        n += 1
    return n


def prefix_groups(rows: Sequence[Sequence[int]], min_shared: int = MIN_SHARED) -> list[Group]:
    """Groups of two or more rows sharing a prefix of at least ``min_shared`` tokens.

    Each group's ``length`` leaves every member at least one token of its own, so each
    row has a suffix to run. Rows in no group are left out.

    >>> prefix_groups([[1, 2, 3, 4, 5], [9, 9], [1, 2, 3, 4, 6, 7], [1, 2, 3, 4]], min_shared=3)
    [Group(members=(3, 0, 2), length=3)]
    """
    order = sorted(range(len(rows)), key=lambda i: tuple(rows[i]))
    groups: list[Group] = []
    members: list[int] = []
    length = 0
    for i in order:
        if members:
            shared = _common(rows[members[0]], rows[i], length)
            shared = min(shared, len(rows[i]) - 1)
            if shared >= min_shared:
                members.append(i)
                length = shared
                continue
            if len(members) > 1:
                groups.append(Group(tuple(members), length))
        members, length = [i], len(rows[i]) - 1
    if len(members) > 1:
        groups.append(Group(tuple(members), length))
    return groups


def groups_worth_sharing(rows: Sequence[Sequence[int]], min_shared: int = MIN_SHARED) -> list[Group]:
    """The rows' :func:`prefix_groups` if sharing them saves at least :data:`WORTH_SHARING`
    of the rows' tokens (each group's prefix, once per extra row), else none."""
    groups = prefix_groups(rows, min_shared)
    saved = sum((len(g.members) - 1) * g.length for g in groups)
    return groups if saved and saved >= WORTH_SHARING * sum(len(r) for r in rows) else []


def prefix_batches(rows: Sequence[Any], max_rows: int, max_tokens: int,
                   min_shared: int = MIN_SHARED) -> list[list[Any]]:
    """``rows`` (with ``.ids``) in token order, cut into batches of ≤ ``max_rows`` rows
    whose tokens *after sharing* stay ≤ ``max_tokens``.

    Token order puts rows with a common prefix side by side, so a batch holds whole groups
    (length order, :func:`~.batching.token_batches`, scatters them). A row costs the tokens
    it does not share with the row before it.
    """
    ordered = sorted(rows, key=lambda r: tuple(r.ids))
    batches: list[list[Any]] = []
    cost = 0
    for i, row in enumerate(ordered):
        shared = _common(ordered[i - 1].ids, row.ids, len(row.ids) - 1) if i else 0
        new = len(row.ids) - (shared if shared >= min_shared else 0)
        if batches and len(batches[-1]) < max_rows and cost + new <= max_tokens:
            batches[-1].append(row)
            cost += new
        else:
            batches.append([row])
            cost = len(row.ids)
    return batches


def shared_states(base: Any, rows: Sequence[Sequence[int]], groups: Sequence[Group],
                  rows_at: Sequence[int], positions: Sequence[int], pad_id: int, device: str) -> Any:
    """Hidden states ``[M, H]`` of ``base`` (a decoder stack: ids -> states) at
    (``rows_at[m]``, ``positions[m]``) for each pick m, sharing the prefixes of ``groups``
    (:func:`prefix_groups` of ``rows``).

    Rows in no group run in one ordinary forward; each group's prefix runs once with its
    cache kept, and the group's rows continue from it (their positions numbered on from
    the prefix, the prefix batch's padding masked out).
    """
    import torch

    grouped = [i for g in groups for i in g.members]
    plain = sorted(set(range(len(rows))) - set(grouped))
    # Three sources of states; each pick reads one: (source, index in it, position in it).
    sources: list[Any] = [None, None, None]  # plain rows, suffixes (rows in group order), prefixes
    at: dict[int, tuple[int, int, int]] = {i: (0, k, 0) for k, i in enumerate(plain)}  # row -> source, index, start
    start: dict[int, tuple[int, int]] = {}  # grouped row -> (its group, the prefix length)
    if plain:
        sources[0] = _forward(base, [rows[i] for i in plain], pad_id, device)
    if groups:
        sources[2], sources[1] = _grouped_forward(base, rows, groups, pad_id, device)
        start = {i: (gi, g.length) for gi, g in enumerate(groups) for i in g.members}
        at.update({i: (1, k, start[i][1]) for k, i in enumerate(grouped)})
    picks = [(2, start[r][0], p) if at[r][0] == 1 and p < at[r][2] else (at[r][0], at[r][1], p - at[r][2])
             for r, p in zip(rows_at, positions)]
    source, index, position = (long_tensor(v, device) for v in zip(*picks))
    # Each pick reads its own source: gather every source at every pick (indices clamped
    # into range), keep the right one. A selection by ``nonzero()`` would wait for the
    # device; these gathers are [M, H] copies, and selecting changes no value.
    out = None
    for kind, states in enumerate(sources):
        if states is None:
            continue
        at_index = index.clamp(max=states.shape[0] - 1)
        at_position = position.clamp(max=states.shape[1] - 1)
        read = states[at_index, at_position]  # [M, H]
        out = read if out is None else torch.where((source == kind)[:, None], read, out)
    return out


def _forward(base: Any, rows: Sequence[Sequence[int]], pad_id: int, device: str) -> Any:
    ids, mask = pad_ids(rows, pad_id)
    return base(input_ids=to_device(ids, device), attention_mask=to_device(mask, device), use_cache=False)[0]


def _grouped_forward(base: Any, rows: Sequence[Sequence[int]], groups: Sequence[Group], pad_id: int,
                     device: str) -> tuple[Any, Any]:
    """States of each group's prefix ``[G, Lp, H]`` and of its rows' suffixes ``[R, Ls, H]``
    (rows in group order)."""
    import torch

    prefix_ids, prefix_mask = pad_ids([rows[g.members[0]][:g.length] for g in groups], pad_id)
    prefix_ids, prefix_mask = to_device(prefix_ids, device), to_device(prefix_mask, device)
    out = base(input_ids=prefix_ids, attention_mask=prefix_mask, use_cache=True)
    cache = getattr(out, _cache_argument(base))  # the output names it as the forward does
    members = [(gi, i) for gi, g in enumerate(groups) for i in g.members]
    owner = long_tensor([gi for gi, _ in members], device)
    cache.batch_select_indices(owner)  # one copy of its group's prefix cache per row
    suffix_ids, suffix_mask = pad_ids([rows[i][groups[gi].length:] for gi, i in members], pad_id)
    suffix_ids, suffix_mask = to_device(suffix_ids, device), to_device(suffix_mask, device)
    starts = long_tensor([groups[gi].length for gi, _ in members], device)
    width = prefix_ids.shape[1]
    # Each row's padding repeats its last real position: numbered on (start + arange(widest
    # suffix)), a group with a long prefix and short suffixes asked a learned position table
    # (GPT-2) for positions past every real row of the batch (issue 34 item 7). Padding is masked
    # out as a key and never read, so no real row's value changes.
    lasts = starts + suffix_mask.sum(dim=1) - 1  # [R]
    position_ids = torch.minimum(starts[:, None] + torch.arange(suffix_ids.shape[1], device=device)[None, :],
                                 lasts[:, None])  # [R, Ls]
    states = base(input_ids=suffix_ids, attention_mask=torch.cat([prefix_mask[owner], suffix_mask], dim=1),
                  position_ids=position_ids, use_cache=True, **{_cache_argument(base): cache},
                  cache_position=torch.arange(width, width + suffix_ids.shape[1], device=device))[0]
    return out[0], states


def _cache_argument(base: Any) -> str:
    """``cache`` since transformers 5.2x, ``past_key_values`` before (deprecated since)."""
    import inspect

    return "cache" if "cache" in inspect.signature(base.forward).parameters else "past_key_values"
