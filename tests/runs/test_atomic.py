"""Every file biasatlas writes gets the permissions a plain ``open`` would give (0666 less the
umask), not the temporary file module's 0600: run folders, ``report --out``, suite outputs and
downloaded data files all go through one writer (biasatlas.atomic)."""

from __future__ import annotations

import hashlib
import io
import os
from pathlib import Path

import pytest

import biasatlas
from biasatlas.atomic import atomic_open, atomic_write

# umask → expected mode, worked by hand: 0666 & ~0022 = 0644, & ~0027 = 0640, & ~0002 = 0664.
MODES = [(0o022, 0o644), (0o027, 0o640), (0o002, 0o664)]


@pytest.fixture(params=MODES, ids=lambda m: oct(m[0]))
def umask(request):
    mask, expected = request.param
    old = os.umask(mask)
    yield expected
    os.umask(old)


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def test_the_writer_follows_the_umask_set_after_import(tmp_path, umask):
    atomic_write(tmp_path / "a.txt", "text")
    atomic_write(tmp_path / "b.bin", b"\x00bytes")
    with atomic_open(tmp_path / "c.txt") as handle:
        handle.write("streamed")
    assert [_mode(tmp_path / n) for n in ("a.txt", "b.bin", "c.txt")] == [umask] * 3
    assert (tmp_path / "b.bin").read_bytes() == b"\x00bytes"


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "x.json"
    atomic_write(target, "old")
    with pytest.raises(RuntimeError), atomic_open(target) as handle:
        handle.write("half")
        raise RuntimeError("killed")
    assert target.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.json"]


def test_run_folder_and_report_out_get_the_umask_permissions(tmp_path, umask, monkeypatch, shared_data):
    from biasatlas.cli import main

    monkeypatch.setenv("BIASATLAS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("BIASATLAS_DATA_DIR", str(shared_data))
    run = tmp_path / "run"
    biasatlas.evaluate("crows-pairs", model="fake", dataset="en", limit=5, out=run, progress=False)
    written = sorted(p for p in run.iterdir() if p.stat().st_size)  # the claim's empty lock file aside
    assert {p.name for p in written} >= {"config.json", "items.jsonl", "summary.json"}
    assert {p.name: _mode(p) for p in written} == {p.name: umask for p in written}
    for name in ("report.html", "report.md"):
        with pytest.raises(SystemExit) as exited:
            main(["report", str(run), "--out", str(tmp_path / name)])
        assert exited.value.code == 0
        assert _mode(tmp_path / name) == umask, name


def test_a_downloaded_data_file_gets_the_umask_permissions(tmp_path, umask, monkeypatch):
    from biasatlas.benchmarks import fetch

    payload = b"sent_more,sent_less\n"
    spec = fetch.DataFile("pairs.csv", "https://example.invalid/pairs.csv", hashlib.sha256(payload).hexdigest())
    monkeypatch.delenv("BIASATLAS_DATA_DIR", raising=False)
    monkeypatch.setattr(fetch, "cache_dir", lambda: tmp_path / "cache")
    monkeypatch.setattr(fetch.urllib.request, "urlopen", lambda url, timeout: io.BytesIO(payload))
    path = fetch.locate(spec)
    assert path.read_bytes() == payload and _mode(path) == umask


# -- durability (issue 21, item 13): synced to disk, and a killed write's leftovers cleaned up ----------
def test_the_data_is_synced_before_the_rename_and_the_folder_after(tmp_path, monkeypatch):
    import stat

    import biasatlas.atomic as atomic

    events: list[tuple[str, str]] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        kind = "folder" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file"
        events.append(("fsync", kind))
        real_fsync(fd)

    def replace(src, dst) -> None:
        events.append(("rename", Path(dst).name))
        real_replace(src, dst)

    monkeypatch.setattr(atomic.os, "fsync", fsync)
    monkeypatch.setattr(atomic.os, "replace", replace)
    atomic_write(tmp_path / "summary.json", "{}")
    assert events == [("fsync", "file"), ("rename", "summary.json"), ("fsync", "folder")]


def test_a_rerun_removes_what_a_killed_write_left_in_the_run_folder(tmp_path):
    # A kill between mkstemp and the rename leaves ".NAME.<random>.tmp" (14 MB after one kill
    # in the issue); the rerun's write of NAME removes it, and nothing else.
    from shared_data import shared_data_dir

    out, data = tmp_path / "run", shared_data_dir() / "crows-pairs-en" / "crows_pairs_anonymized.csv"
    biasatlas.evaluate("crows-pairs", model="fake", data=data, limit=4, out=out, cache=False, progress=False)
    summary = (out / "summary.json").read_bytes()
    (out / "summary.json").unlink()  # killed while the run folder was being written
    left = [out / ".items.jsonl.k1ll3d.tmp", out / ".summary.json.x7q2rz.tmp"]
    for path in left:
        path.write_bytes(b"\x00" * 4096)
    kept = out / ".items.jsonl.my.notes.tmp"  # a dot in the random part: not a temporary of ours
    kept.write_text("mine", encoding="utf-8")
    biasatlas.evaluate("crows-pairs", model="fake", data=data, limit=4, out=out, cache=False, progress=False)
    assert not any(path.exists() for path in left)
    assert kept.read_text(encoding="utf-8") == "mine"
    assert (out / "summary.json").read_bytes() == summary
