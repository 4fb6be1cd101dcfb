"""A bad ``.gz`` data file is one error naming the file and what is wrong (issue 34, item 10):
cut short (``EOFError``, which click turned into a silent abort: one blank line, exit 1), damaged
(``zlib.error`` / a CRC mismatch, an internal error), or not gzip at all; for every reader that
opens gzip (BBQ's family, StereoSet) and for the command line.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

import biasatlas.cli as cli
from biasatlas.compressed import gunzip
from biasatlas.errors import DataError

TEXT = b'{"example_id": 0}\n' * 2000


def _truncated() -> bytes:
    whole = gzip.compress(TEXT)
    return whole[: len(whole) // 2]


def _damaged() -> bytes:
    whole = bytearray(gzip.compress(TEXT))
    whole[20:40] = bytes(20)  # inside the deflate stream: an invalid block or a CRC mismatch
    return bytes(whole)


BAD = {"truncated": (_truncated, "truncated gzip file"), "damaged": (_damaged, "damaged gzip data"),
       "not gzip": (lambda: TEXT, "not a gzip file")}


@pytest.mark.parametrize("case", sorted(BAD))
def test_gunzip_names_the_file_and_the_fault(case):
    make, says = BAD[case]
    with pytest.raises(DataError, match=f"file x.gz: {says}"):
        gunzip(make(), Path("x.gz"))


def test_gunzip_reads_a_good_file():
    assert gunzip(gzip.compress(TEXT), "x.gz") == TEXT


@pytest.mark.parametrize("case", sorted(BAD))
def test_stereoset_split_names_the_file_and_the_fault(tmp_path, case):
    from biasatlas.benchmarks.stereoset.data import read_split

    make, says = BAD[case]
    path = tmp_path / "dev.json.gz"
    path.write_bytes(make())
    with pytest.raises(DataError, match=f"{path.name}: {says}"):
        read_split(path)


@pytest.mark.parametrize("case", sorted(BAD))
def test_mbbq_on_the_command_line_says_file_and_fault(tmp_path, monkeypatch, capsys, shared_data, case):
    make, says = BAD[case]
    folder = tmp_path / "mbbq"
    folder.mkdir()
    (folder / "Age_control_nl.jsonl.gz").write_bytes((shared_data / "mbbq" / "Age_control_nl.jsonl.gz").read_bytes())
    (folder / "Age_nl.jsonl.gz").write_bytes(make())
    monkeypatch.setenv("BIASATLAS_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.raises(SystemExit) as exited:
        cli.main(["run", "bbq", "--dataset", "mbbq-nl", "--category", "Age", "--data", str(folder),
                  "--model", "fake", "--limit", "3"])
    err = capsys.readouterr().err
    assert exited.value.code == 1
    assert err.strip() == err.strip().splitlines()[0]  # one line
    assert f"error: file {folder / 'Age_nl.jsonl.gz'}: {says}" in err


def test_an_untranslated_eof_is_an_internal_error_not_a_silent_abort(monkeypatch, capsys, tmp_path):
    import biasatlas.report

    def ends_early(*args: object, **kw: object) -> None:
        raise EOFError("Compressed file ended before the end-of-stream marker was reached")

    monkeypatch.setattr(biasatlas.report, "load_runs", ends_early)
    with pytest.raises(SystemExit) as exited:
        cli.main(["report", str(tmp_path)])
    err = capsys.readouterr().err
    assert exited.value.code == 1
    assert err.startswith("internal error: EOFError: Compressed file ended"), err
