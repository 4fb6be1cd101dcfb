"""Reading gzip-compressed data files (the shared copies of MBBQ, KoBBQ, CBBQ and StereoSet's test
split are ``.gz``): every way such a file can be bad is one :class:`~biasatlas.errors.DataError`
naming the file and what is wrong, never a bare ``EOFError`` (which click turns into a silent
abort) or a ``zlib.error`` (an internal error).
"""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path

from .errors import DataError

__all__ = ["GZIP_MAGIC", "gunzip"]

#: The two bytes every gzip member starts with (RFC 1952 §2.3.1: ID1 = 31, ID2 = 139).
GZIP_MAGIC = b"\x1f\x8b"


def gunzip(raw: bytes, path: Path | str) -> bytes:
    """The decompressed bytes of ``raw``, the contents of the gzip file ``path``; a
    :class:`DataError` naming ``path`` when it is not gzip, is cut short, or is damaged."""
    if raw[:2] != GZIP_MAGIC:
        raise DataError("not a gzip file (it does not start with gzip's bytes 1f 8b): give the file itself, "
                        "or decompress it and drop the .gz", path=path)
    try:
        return gzip.decompress(raw)
    except EOFError:
        raise DataError("truncated gzip file (its compressed data ends early: an interrupted download or copy?); "
                        "fetch it again", path=path) from None
    except (zlib.error, OSError) as exc:  # gzip.BadGzipFile (a bad header, a CRC or length mismatch) is an OSError
        raise DataError(f"damaged gzip data ({exc}); fetch it again", path=path) from None
