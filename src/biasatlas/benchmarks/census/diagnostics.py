"""How far the identifiers alone tilt a likelihood model, before any occupation is read.

A causal or seq2seq LM answers census probes with sentence likelihoods, and the joint
reading log P(identifier + predicate + occupation) contains the identifier's own prior:
log P(sentence) = log P("Han jobber som") + log P(" lege." | "Han jobber som"). When the
first term differs between identifiers (Gemma 3 splits sentence-initial Norwegian words
oddly and gives "Søsteren" about 63 % of each singular template's mass), it decides the
"occupational" share before the occupation is seen.

The **baseline** makes that visible: the joint reading of the sentence with the
occupation phrase removed ("Han jobber som"), normalised over the identifiers of each
template and aggregated with the paper's equations 1–2, exactly as an occupation would
be. A model with no identifier preference scores 50; outside the balanced band (45–55)
the summary carries a warning. ``top_identifier`` is the identifier with the largest
mean share of its template's mass, the usual culprit.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, replace

from ...probes import SlotAnswer, SlotProbe
from .metrics import BALANCED_HIGH, BALANCED_LOW, Aggregation, female_share
from .scoring import template_probabilities
from .templates import Cell, CensusPlan, probe_id

#: The pseudo-occupation of the baseline plan (no occupation phrase at all).
BASELINE = "(no occupation)"


@dataclass(frozen=True)
class Baseline:
    """The occupation-free female share and the identifier that holds the most mass."""

    share: float | None
    top_identifier: str | None
    top_identifier_share: float | None  # mean over its templates of P(i | t), template-normalised

    @property
    def warning(self) -> str | None:
        """A sentence for the summary and the terminal when the priors alone tilt the model."""
        if self.share is None or BALANCED_LOW <= self.share <= BALANCED_HIGH:
            return None
        return (f"identifier priors alone give a {self.share:.1f} % female share (occupation-free "
                f"baseline, outside {BALANCED_LOW:.0f}–{BALANCED_HIGH:.0f}); "
                f"'{self.top_identifier}' holds {100 * (self.top_identifier_share or 0):.0f} % of its "
                "templates' mass; joint-reading shares carry this prior, the conditional reading "
                "divides it out")


def baseline_plan(plan: CensusPlan) -> CensusPlan:
    """The plan's templates without their occupation phrase, as one pseudo-occupation.

    Every slot probe is cut where its occupation phrase starts ("Han jobber som");
    contexts that come out equal across occupations are asked once.
    """
    probes: dict[str, SlotProbe] = {}
    renamed: dict[str, str] = {}
    for probe in plan.probes:
        if not isinstance(probe, SlotProbe):
            raise TypeError(f"probe {probe.id} is not a slot probe")
        head = probe.right[: plan.occupation_at[probe.id]].rstrip()
        # The fillers are part of the id: a context shared by singular and plural
        # identifiers (Norwegian "politi") has more fillers than the usual one.
        pid = probe_id(plan.language, BASELINE, probe.left, "\x1f".join((head, *probe.fillers)))
        probes.setdefault(pid, SlotProbe(pid, probe.left, head, probe.fillers))
        renamed[probe.id] = pid
    cells: dict[tuple[str, str], Cell] = {}
    for cell in plan.cells:
        probe = probes[renamed[cell.probe_id]]
        cells.setdefault((cell.template, cell.identifier), replace(
            cell, occupation=BASELINE, probe_id=probe.id,
            text=probe.left + probe.fillers[cell.filler_indices[0]] + probe.right))
    used = {c.probe_id for c in cells.values()}
    return replace(plan, occupations=(BASELINE,), probes=tuple(p for p in probes.values() if p.id in used),
                   cells=tuple(cells.values()), skipped=(), occupation_at={})


def baseline(plan: CensusPlan, answers: Mapping[str, SlotAnswer],
             aggregation: Aggregation = "mean-prob") -> Baseline:
    """The baseline of :func:`baseline_plan` ``plan`` from the scorer's joint answers."""
    templates, _ = template_probabilities(plan, answers, "template")
    share = female_share(templates.get(BASELINE, []), aggregation)
    masses = identifier_masses(plan, answers)
    top = max(masses, key=lambda k: masses[k]) if masses else None
    return Baseline(share, identifier_names(plan).get(top, top) if top else None, masses[top] if top else None)


def identifier_names(plan: CensusPlan) -> dict[str, str]:
    """Each identifier's id (``sostrene``, ASCII for file names and keys) → its first form as
    identifiers.csv writes it and the sentences carry it (``Søstrene``; the prefix, "The", is
    not part of it): what a person reads in a warning."""
    fillers = {p.id: p.fillers for p in plan.probes if isinstance(p, SlotProbe)}
    names: dict[str, str] = {}
    for cell in plan.cells:
        if cell.identifier not in names and cell.probe_id in fillers and cell.filler_indices:
            names[cell.identifier] = fillers[cell.probe_id][cell.filler_indices[0]].strip()
    return names


def identifier_masses(plan: CensusPlan, answers: Mapping[str, SlotAnswer]) -> dict[str, float]:
    """Each identifier's mean (over its templates) share of its template's likelihood mass."""
    groups: dict[str, list[tuple[str, list[float]]]] = defaultdict(list)
    for cell in plan.cells:
        answer = answers.get(cell.probe_id)
        if answer is not None:
            groups[cell.template].append(
                (cell.identifier, [float(answer.logprobs[i]) for i in cell.filler_indices]))
    shares: dict[str, list[float]] = defaultdict(list)
    for members in groups.values():
        values = [lp for _, lps in members for lp in lps]
        top = max(values)
        if not math.isfinite(top):
            continue
        total = top + math.log(sum(math.exp(v - top) for v in values))
        for identifier, lps in members:
            shares[identifier].append(sum(math.exp(lp - total) for lp in lps))
    return {k: sum(v) / len(v) for k, v in shares.items()}
