"""Reading the text files users hand to biasatlas: one encoding policy for all of them.

**The policy.** A text file is UTF-8. A leading byte-order mark (the bytes ``EF BB BF``
that Excel and Notepad write) is dropped. Anything else (Windows-1252, Latin-1, GBK,
UTF-16, a multi-byte sequence cut short) is refused with a
:class:`~biasatlas.errors.DataError` naming the file, the line and the byte offset of the
first byte that is not UTF-8, and asking for the file to be saved again as UTF-8.

**Why refuse rather than guess.** Windows-1252 maps all but five byte values to a
character, so a fallback to it accepts almost any file, GBK or Latin-1 included, and
returns wrong characters without a word: ``Maître`` saved as Latin-1 would come back as
an occupation the census table does not hold. An error that names the byte is cheaper.

**Declared encodings.** A caller that reads a source known to be in another encoding
(the DARES statistics files behind the shipped French census table are Windows-1252)
passes ``encoding=``: a documented fact about one named source, not a guess. Decoding
with it is strict too, and a leading U+FEFF is dropped as well.

>>> decode_text(b"\\xef\\xbb\\xbfoccupation,female_pct\\n", path="t.csv")
'occupation,female_pct\\n'
>>> decode_text(b"occupation\\nMa\\x9ctre\\n", path="t.csv")
Traceback (most recent call last):
    ...
biasatlas.errors.DataError: file t.csv, line 2: not UTF-8 text (byte 0x9C at offset 13): save it as UTF-8
>>> decode_text(b"occupation\\nMa\\x9ctre\\n", path="t.csv", encoding="cp1252")
'occupation\\nMaœtre\\n'

**JSON Lines.** A JSON Lines file is split on ``\\n`` alone, the format's one separator
(a ``\\r`` before it is dropped). ``str.splitlines`` is not that split: it also breaks at
U+0085, U+2028 and U+2029, which ``json.dumps(..., ensure_ascii=False)`` leaves raw
inside strings, so a CrowS-Pairs sentence holding U+2028 used to be written on one line
and read back as two halves of invalid JSON. :func:`json_line` writes those three as
``\\u`` escapes (other tools that use ``splitlines`` then read our files too) and
:func:`json_lines` reads every file, ours or not, on ``\\n`` alone.

>>> json_line({"s": "a\\u2028b"})
'{"s": "a\\\\u2028b"}'
>>> list(json_lines('{"s": "a\\u2028b"}\\r\\n\\n[1]'))
[(1, '{"s": "a\\u2028b"}'), (3, '[1]')]
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Sequence
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from .errors import DataError, MissingInput

#: What :func:`read_text` accepts: a path, or a packaged resource (``importlib.resources``).
Source = str | os.PathLike[str] | Traversable

#: The line breaks of ``str.splitlines`` that JSON does not escape under ``ensure_ascii=False``
#: (it escapes every control character below U+0020 itself).
_RAW_BREAKS = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def decode_text(data: bytes, *, path: object, encoding: str | None = None) -> str:
    """The text of a whole file's bytes under the module's policy (see above).

    ``path`` only labels the error. Line and byte offset count from the start of ``data``.
    """
    return decode_line(data, path=path, line=1, offset=0, encoding=encoding)


def decode_line(data: bytes, *, path: object, line: int, offset: int,
                encoding: str | None = None) -> str:
    """Bytes that start at byte ``offset`` (on line ``line``) of a file, for streaming readers.

    The same policy as :func:`decode_text`; a byte-order mark is dropped only at offset 0,
    the start of the file.
    """
    try:
        text = data.decode(encoding or "utf-8")
    except UnicodeDecodeError as exc:
        bad_line = line + data.count(b"\n", 0, exc.start)
        what = "UTF-8" if encoding is None else encoding
        raise DataError(f"not {what} text (byte 0x{data[exc.start]:02X} at offset "
                        f"{offset + exc.start}): save it as UTF-8", path=path, line=bad_line) from None
    except LookupError:
        raise ValueError(f"unknown encoding {encoding!r}") from None
    return text.removeprefix("\ufeff") if offset == 0 else text


def read_text(path: Source, *, encoding: str | None = None) -> str:
    """Read and decode a file; a missing or unreadable file is a DataError naming it."""
    try:
        data = path.read_bytes() if isinstance(path, Traversable) else Path(path).read_bytes()
    except FileNotFoundError:
        raise DataError("file not found", path=path) from None
    except IsADirectoryError:
        raise DataError("a folder, not a file", path=path) from None
    except OSError as exc:
        raise DataError(f"cannot read: {exc.strerror or exc}", path=path) from None
    return decode_text(data, path=path, encoding=encoding)


def json_line(value: object, **dumps: object) -> str:
    """``value`` as one JSON Lines record (without its ``\\n``): ``json.dumps`` keeping
    non-ASCII readable, with U+0085, U+2028 and U+2029 escaped so that no reader, however
    it splits lines, breaks the record. Keyword arguments go to :func:`json.dumps`.

    The escapes are exact: outside strings JSON holds none of the three characters, and
    inside one ``\\u2028`` decodes to the same string.
    """
    return json.dumps(value, ensure_ascii=False, **dumps).translate(_RAW_BREAKS)  # type: ignore[arg-type]


def json_lines_text(values: Iterable[object], **dumps: object) -> str:
    """A whole JSON Lines file: one :func:`json_line` per value, each ended by ``\\n``."""
    return "".join(json_line(value, **dumps) + "\n" for value in values)


def json_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) of a JSON Lines text, split on ``\\n`` only, blank lines left out.

    A ``\\r`` ending a line is dropped (a file saved with Windows line ends), nothing else:
    U+2028 and its kind stay inside the line, where a JSON string may hold them raw.
    """
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.removesuffix("\r")
        if line.strip():
            yield number, line


def refuse_duplicate_columns(header: Sequence[str], *, path: object, blank_ok: bool = True) -> None:
    """Refuse a CSV or TSV header that names a column twice, naming file and column.

    ``csv.DictReader`` keeps the last copy's cell under the name, so a table with two
    ``female_pct`` columns would be scored from whichever came last, without a word. Pass
    the names as the reader matches them (stripped, lower-cased …). Blank names are
    columns no reader asks for by name; ``blank_ok=False`` checks them too, for a reader
    that does (CrowS-Pairs' id column has a blank header).
    """
    first: dict[str, int] = {}
    for position, name in enumerate(header, start=1):
        if blank_ok and not name.strip():
            continue
        earlier = first.setdefault(name, position)
        if earlier != position:
            raise DataError(f"the header names column {name!r} twice (columns {earlier} and "
                            f"{position}): rename or remove one", path=path, line=1, field=name)


def json_objects(text: str, path: object) -> Iterator[tuple[int, dict[str, Any]]]:
    """The objects of a JSON Lines text, each with its line number (:func:`json_lines`: split on
    ``\\n`` only, blank lines skipped); a line that is not JSON, or not an object, is a
    DataError naming ``path`` and the line."""
    for number, raw in json_lines(text):
        try:
            row = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise DataError(f"not JSON: {exc.msg}", path=path, line=number) from exc
        except RecursionError:  # the parser's own limit: a line of 100,000 "["
            raise DataError("not JSON: nested too deeply to read", path=path, line=number) from None
        if not isinstance(row, dict):
            raise DataError(f"expected a JSON object, got {type(row).__name__}", path=path, line=number)
        yield number, row


def input_file(path: str | os.PathLike[str]) -> Path:
    """``path`` if it names a regular file a reader can open; else a :class:`MissingInput`
    saying what it is instead: missing, a folder (a suite's ``data = "."``), or another kind
    of file (``/dev/null``, a pipe), which a reader would take for an empty file or wait on."""
    path = Path(path)
    if path.is_file():
        return path
    if path.is_dir():
        raise MissingInput("is a folder, not a data file", path=path)
    if path.exists():
        raise MissingInput("is not a regular file (a device or a pipe): name a data file", path=path)
    raise MissingInput("no such file", path=path)
