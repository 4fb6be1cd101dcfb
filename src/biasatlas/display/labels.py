"""Point labels placed without collisions, inside the plot area.

Each label is tried at a few places beside its point (right and above first, then the
other corners, then straight above or below), measured with the figure's renderer in
display pixels. It takes the first place whose box lies inside the axes and overlaps no
label placed before it, preferring places that cover the fewest other points. A label
with no such place is not drawn: the point keeps its tooltip, so nothing is lost but
clutter (a crowded plot shows fewer labels, never overlapping ones).

Call :func:`place_labels` after :func:`.style.fit`: the boxes are measured in the
figure's final geometry, and labels inside the axes do not change that geometry.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

#: Where a label may sit, in order of preference: (dx, dy) in points from the point, and
#: the text's alignment there.
PLACES: tuple[tuple[float, float, str, str], ...] = (
    (4, 3, "left", "bottom"), (4, -3, "left", "top"), (-4, 3, "right", "bottom"), (-4, -3, "right", "top"),
    (0, 5, "center", "bottom"), (0, -5, "center", "top"))
#: Pixels around a point's centre that a label should not cover (the marker's radius, and a little).
MARKER_RADIUS = 3.5


@dataclass(frozen=True)
class Box:
    """An axis-aligned box in display pixels."""

    x0: float
    y0: float
    x1: float
    y1: float

    def inside(self, other: Box) -> bool:
        return self.x0 >= other.x0 and self.y0 >= other.y0 and self.x1 <= other.x1 and self.y1 <= other.y1

    def overlaps(self, other: Box) -> bool:
        return self.x0 < other.x1 and other.x0 < self.x1 and self.y0 < other.y1 and other.y0 < self.y1

    def covers(self, x: float, y: float, radius: float) -> bool:
        return self.x0 - radius < x < self.x1 + radius and self.y0 - radius < y < self.y1 + radius


def box_of(artist: Any, renderer: Any) -> Box:
    extent = artist.get_window_extent(renderer)
    return Box(extent.x0, extent.y0, extent.x1, extent.y1)


def place_labels(ax: Any, labels: Sequence[tuple[str, float, float]],
                 points: Sequence[tuple[float, float]] = (), fontsize: float = 7, **text: Any) -> list[Any | None]:
    """Annotate ``(text, x, y)`` in data units, in order (most important first), each where it
    fits (:data:`PLACES`) inside ``ax`` without overlapping an earlier label; ``points`` are
    every marker of the plot (data units), which labels avoid covering where they can.

    Returns one entry per label: its text artist, or ``None`` where no place fitted.
    """
    renderer = ax.figure.canvas.get_renderer()
    area = box_of(ax.patch, renderer)
    markers = [tuple(xy) for xy in ax.transData.transform(points)] if len(points) else []
    placed: list[Box] = []
    out: list[Any | None] = []
    for label, x, y in labels:
        centre = tuple(ax.transData.transform((x, y)))
        best: tuple[int, Any, Box] | None = None
        for dx, dy, ha, va in PLACES:
            note = ax.annotate(label, (x, y), xytext=(dx, dy), textcoords="offset points", ha=ha, va=va,
                               fontsize=fontsize, **text)
            box = box_of(note, renderer)
            covered = sum(box.covers(mx, my, MARKER_RADIUS) for mx, my in markers if (mx, my) != centre)
            fits = box.inside(area) and not any(box.overlaps(other) for other in placed)
            if fits and (best is None or covered < best[0]):
                if best is not None:
                    best[1].remove()
                best = (covered, note, box)
            else:
                note.remove()
            if best is not None and best[0] == 0:
                break
        if best is not None:
            placed.append(best[2])
        out.append(best[1] if best is not None else None)
    return out
