"""A pinned data file in the cache is checked against its pin whenever it is read (issue 34 item 4).

Before: the sha256 was checked only when the file was downloaded, so a StereoSet dev copy
edited in the cache, in the folder named after its pin, ran silently (SS 33.3 where the
published file gives 66.7). A stamp (size, mtime_ns, inode) keeps the check cheap.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from biasatlas.benchmarks import fetch
from biasatlas.benchmarks.fetch import locate
from biasatlas.benchmarks.stereoset.data import SPLITS
from biasatlas.errors import DataError

DEV = SPLITS["dev"]


@pytest.fixture
def cached_dev(shared_data, tmp_path, monkeypatch) -> Path:
    """The published dev.json placed where a download would have put it, no data folder set."""
    monkeypatch.delenv("BIASATLAS_DATA_DIR", raising=False)
    monkeypatch.setenv("BIASATLAS_CACHE_DIR", str(tmp_path / "cache"))
    target = tmp_path / "cache" / "data" / DEV.sha256[:12] / DEV.name
    target.parent.mkdir(parents=True)
    shutil.copyfile(shared_data / "stereoset" / "dev.json", target)
    return target


def _tamper(path: Path) -> None:
    """Swap one gold label for another of the same length: the size stays, the bytes do not."""
    text = path.read_text(encoding="utf-8")
    at = text.index('"gold_label": "stereotype"')
    path.write_text(text[:at] + '"gold_label": "anti-stereotype"'[:len('"gold_label": "stereotype"')]
                    + text[at + len('"gold_label": "stereotype"'):], encoding="utf-8")


def test_the_published_copy_in_the_cache_is_read(cached_dev):
    assert locate(DEV) == cached_dev


def test_a_copy_changed_in_the_cache_is_refused_naming_the_file_and_both_digests(cached_dev):
    assert locate(DEV) == cached_dev  # verified and stamped first: the stamp must not hide the change
    _tamper(cached_dev)
    with pytest.raises(DataError) as refused:
        locate(DEV)
    message = str(refused.value)
    assert str(cached_dev) in message and DEV.sha256 in message and "delete it" in message


def test_a_changed_copy_with_the_old_size_and_mtime_is_still_caught(cached_dev):
    locate(DEV)
    before = cached_dev.stat()
    _tamper(cached_dev)
    os.utime(cached_dev, ns=(before.st_atime_ns, before.st_mtime_ns))  # an editor that restores the time
    assert cached_dev.stat().st_size == before.st_size
    # a same-size in-place write with the time put back keeps the inode: the one case a stamp
    # cannot see; a replaced file (editors, cp, git) gets a new inode
    replaced = cached_dev.with_name("new")
    shutil.copyfile(cached_dev, replaced)
    os.utime(replaced, ns=(before.st_atime_ns, before.st_mtime_ns))
    replaced.replace(cached_dev)
    with pytest.raises(DataError):
        locate(DEV)


def test_a_stamped_copy_is_not_hashed_again(cached_dev, monkeypatch):
    locate(DEV)

    def no_hashing(path):
        raise AssertionError("hashed a stamped file")

    monkeypatch.setattr(fetch, "_sha256_of", no_hashing)
    assert locate(DEV) == cached_dev


def test_the_stereoset_benchmark_refuses_a_changed_cached_dev(cached_dev):
    from biasatlas.benchmarks.stereoset import StereoSet

    _tamper(cached_dev)
    with pytest.raises(DataError):
        StereoSet(split="dev").load()
