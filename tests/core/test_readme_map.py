"""The README's file map names every module of the package, and nothing that is gone (issue 48, item 8).

The map is the block under "Architecture (file map)". Its entries are the lines whose first
word is a file or a folder, indented two spaces per level under ``src/biasatlas/``; the lines
indented further continue the entry above. A module counts as named when its file name is
written in its own folder's part of the map: the folder's entry and the entries of its files,
not the entries of its sub-folders. A benchmark's folder is named as a whole (its files are
the benchmark's own business, docs/benchmarks/ has them). ``__init__.py`` and ``__main__.py``
need no line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "biasatlas"
HEADING = "## Architecture (file map)"
ENTRY = re.compile(r"^( *)([A-Za-z_][\w./]*)(?=\s|$)")
NAME = re.compile(r"(?<![\w/.-])([A-Za-z_]\w*(?:\.py|/))(?![\w])")
CONTINUED = 16  # a line indented this far or further continues the entry above


@dataclass
class Entry:
    """One entry of the map: its first word, its indent, its lines, its sub-entries."""

    name: str
    indent: int
    lines: list[str]
    children: list[Entry] = field(default_factory=list)

    @property
    def folder(self) -> bool:
        return self.name.endswith("/")

    def own_text(self) -> str:
        """The folder's own part: its lines and its files' lines, sub-folders by name only."""
        parts = [self.lines[0].replace(self.name, "", 1), *self.lines[1:]]
        for child in self.children:
            parts += [child.name] if child.folder else child.lines
        return "\n".join(parts)


def _block(readme: str) -> list[str]:
    after = readme.split(HEADING, 1)[1]
    return after.split("```", 2)[1].splitlines()[1:]


def _tree(lines: list[str]) -> Entry:
    """The map's entries nested by indent, under one root holding the top-level entries."""
    root = Entry("", -1, [])
    stack = [root]
    for line in lines:
        match = ENTRY.match(line)
        if match and len(match.group(1)) < CONTINUED:
            entry = Entry(match.group(2), len(match.group(1)), [line])
            while stack[-1].indent >= entry.indent:
                stack.pop()
            stack[-1].children.append(entry)
            stack.append(entry)
        elif line.strip():
            stack[-1].lines.append(line)
    return root


def _package_map() -> Entry:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    top = _tree(_block(readme))
    return next(e for e in top.children if e.name == "src/biasatlas/")


def _folders(entry: Entry, path: Path) -> list[tuple[Path, Entry]]:
    """Every folder entry of the map with the package folder it stands for."""
    found = [(path, entry)]
    for child in entry.children:
        if child.folder and not (path.name == "benchmarks" and path.parent == PACKAGE):
            found += _folders(child, path / child.name.rstrip("/"))
    return found


def _named(text: str) -> set[str]:
    return set(NAME.findall(text))


def _members(folder: Path) -> set[str]:
    """What a folder's part of the map must name: its modules and its packages."""
    modules = {p.name for p in folder.glob("*.py") if p.name not in {"__init__.py", "__main__.py"}}
    packages = {p.name + "/" for p in folder.iterdir() if (p / "__init__.py").is_file()}
    return modules | packages


def test_every_module_is_in_the_map() -> None:
    """Each mapped folder names its modules and sub-packages, so by induction every package is mapped."""
    folders = dict(_folders(_package_map(), PACKAGE))
    missing = [f"{(folder / name).relative_to(PACKAGE)}" for folder, entry in folders.items()
               for name in sorted(_members(folder) - _named(entry.own_text()))]
    assert not missing, f"README's file map lacks these modules (add each in its folder's part): {missing}"


def test_the_map_names_nothing_that_is_gone() -> None:
    """Every file or folder the map names in a folder's part exists in that folder."""
    folders = dict(_folders(_package_map(), PACKAGE))
    stale = [f"{(folder / name).relative_to(PACKAGE)}" for folder, entry in folders.items()
             for name in sorted(_named(entry.own_text()))
             if not (folder / name.rstrip("/")).exists()]
    assert not stale, f"README's file map names what the tree lacks: {stale}"


def test_the_check_finds_a_missing_module(tmp_path: Path) -> None:
    """The parser sees a file left out and a file named in the wrong folder (planted map)."""
    block = ["src/biasatlas/", "  a/            the a package: one.py", "    two.py        a file",
             "                  continued, naming three.py", "  four.py       a root module"]
    tree = _tree(block)
    package = tree.children[0]
    a = package.children[0]
    assert _named(a.own_text()) == {"one.py", "two.py", "three.py"}
    assert _named(package.own_text()) == {"a/", "four.py"}
