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
"""

from __future__ import annotations

import os
from importlib.resources.abc import Traversable
from pathlib import Path

from .errors import DataError, MissingInput

#: What :func:`read_text` accepts: a path, or a packaged resource (``importlib.resources``).
Source = str | os.PathLike[str] | Traversable


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
