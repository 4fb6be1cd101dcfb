"""Matplotlib figures as inline SVG for a self-contained page.

Text is drawn as paths (``svg.fonttype = 'path'``), so Chinese, French and Norwegian
labels look the same on a machine without the fonts. Every id in a figure gets the
figure's prefix, because several SVGs inlined in one HTML document share one id space
(matplotlib names clip paths and markers by hash, and two figures can collide).
Hover text is an SVG ``<title>`` child, which browsers show as a tooltip with no script;
ElementTree escapes it, and characters XML cannot hold at all are replaced.
"""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
ET.register_namespace("", SVG_NS)
ET.register_namespace("xlink", XLINK_NS)
_HREF = f"{{{XLINK_NS}}}href"
_URL = re.compile(r"url\(#([^)]+)\)")


@dataclass(frozen=True)
class Plot:
    """A figure plus what the page needs around it.

    ``tooltips`` maps an artist's gid to its hover text; a list gives one text per marker
    of a scatter collection, in the order of its points.
    """

    figure: Any
    caption: str
    tooltips: Mapping[str, str | Sequence[str]] = field(default_factory=dict)


def to_svg(plot: Plot, prefix: str) -> str:
    """The figure as an ``<svg>`` element string, ids prefixed, tooltips attached."""
    buffer = io.StringIO()
    plot.figure.savefig(buffer, format="svg", metadata={"Date": None})
    root = ET.fromstring(buffer.getvalue())
    for meta in root.findall(f"{{{SVG_NS}}}metadata"):
        root.remove(meta)
    _prefix_ids(root, prefix)
    _attach_tooltips(root, {f"{prefix}-{gid}": text for gid, text in plot.tooltips.items()})
    _title(root, plot.caption)
    root.set("role", "img")
    root.set("class", "figure")
    return ET.tostring(root, encoding="unicode")


def _prefix_ids(root: ET.Element, prefix: str) -> None:
    for element in root.iter():
        if "id" in element.attrib:
            element.set("id", f"{prefix}-{element.get('id')}")
        href = element.get(_HREF)
        if href and href.startswith("#"):
            element.set(_HREF, f"#{prefix}-{href[1:]}")
        for key, value in element.attrib.items():
            if "url(#" in value:
                element.set(key, _URL.sub(lambda m: f"url(#{prefix}-{m.group(1)})", value))


def _attach_tooltips(root: ET.Element, tooltips: Mapping[str, str | Sequence[str]]) -> None:
    if not tooltips:
        return
    targets = [e for e in root.iter() if e.get("id") in tooltips]
    for element in targets:
        text = tooltips[element.get("id", "")]
        if isinstance(text, str):
            _title(element, text)
            continue
        markers = list(element.iter(f"{{{SVG_NS}}}use"))
        for marker, label in zip(markers, text):
            _title(marker, label)


#: What XML 1.0 cannot hold, even escaped: control characters (but tab and newlines) and lone surrogates.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(text: object) -> str:
    """Text an SVG ``<title>`` can hold: characters XML forbids become U+FFFD."""
    return _NOT_XML.sub("\ufffd", str(text))


def _title(element: ET.Element, text: str) -> None:
    title = ET.Element(f"{{{SVG_NS}}}title")
    title.text = xml_text(text)
    element.insert(0, title)
