"""Mining writes never follow a planted symlink and leave no temporaries behind
(docs/mining.md, "Resuming")."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from biasatlas.errors import UsageError
from biasatlas.mining import MiningConfig, run_pipeline
from biasatlas.atomic import atomic_open, atomic_write, stale_temporaries

LINES = [
    "他在学校里认真学习，每天都很早起床。",
    "那个男童在公园里玩得很开心。",
    "父亲这个角色在家庭教育中非常重要。",
    "这位女士在会上提出了很多建设性的意见。",
]
VICTIM = b"precious bytes, not the dataset card\n"


@pytest.fixture
def victim(tmp_path) -> Path:
    path = tmp_path / "elsewhere" / "victim.txt"
    path.parent.mkdir()
    path.write_bytes(VICTIM)
    return path


def test_a_symlink_at_the_final_path_is_replaced_not_written_through(tmp_path, victim):
    target = tmp_path / "out" / "card.md"
    target.parent.mkdir()
    target.symlink_to(victim)
    atomic_write(target, "new card\n")
    assert victim.read_bytes() == VICTIM
    assert not target.is_symlink() and target.read_text(encoding="utf-8") == "new card\n"
    assert os.listdir(target.parent) == ["card.md"]


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "card.md"
    target.write_text("old\n", encoding="utf-8")
    with pytest.raises(RuntimeError), atomic_open(target) as handle:
        handle.write("half")
        raise RuntimeError("crash mid-write")
    assert target.read_text(encoding="utf-8") == "old\n"
    assert os.listdir(tmp_path) == ["card.md"]


def test_temporaries_get_fresh_names_and_stale_ones_are_removed(tmp_path, victim):
    target = tmp_path / "x.jsonl"
    stale_file = tmp_path / ".x.jsonl.abc123de.tmp"
    stale_file.write_text("left by a killed run", encoding="utf-8")
    stale_link = tmp_path / ".x.jsonl.zz999999.tmp"
    stale_link.symlink_to(victim)
    others = [tmp_path / ".x.jsonl.manifest.json.abc123de.tmp", tmp_path / "x.jsonl.tmp"]
    for other in others:
        other.write_text("not a temporary of x.jsonl", encoding="utf-8")
    assert sorted(stale_temporaries(target)) == sorted([stale_file, stale_link])
    with atomic_open(target) as handle:
        (temporary,) = stale_temporaries(target)  # the one being written, a new name
        assert temporary not in (stale_file, stale_link) and not temporary.is_symlink()
        handle.write("row\n")
    assert victim.read_bytes() == VICTIM
    assert sorted(os.listdir(tmp_path)) == sorted(["elsewhere", "x.jsonl"] + [p.name for p in others])
    assert oct(target.stat().st_mode & 0o777) == oct(0o666 & ~_umask())


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def test_pipeline_never_writes_through_symlinks_planted_in_the_output_folder(tmp_path, victim):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(LINES * 2) + "\n", encoding="utf-8")
    config = MiningConfig(shard_bytes=200, export_annotation=True)
    clean = run_pipeline([corpus], tmp_path / "clean", config)

    out = tmp_path / "out"
    finals = ["candidates.jsonl", "dataset_card.md", "dataset_card.json", "stages/match.json",
              "stages/match/shard-00000.jsonl", "stages/match/shard-00000.jsonl.manifest.json",
              "stages/names/shard-00001.jsonl", "stages/dedupe/candidates.jsonl",
              "annotation/annotator_1.csv"]
    planted = [out / name for name in finals] + [out / f"{name}.tmp" for name in finals]
    for link in planted:  # at every final path and at the fixed temporary names of old
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(victim)

    try:
        report = run_pipeline([corpus], out, config)
    finally:  # checked even when the run fails on what it wrote through a link
        assert victim.read_bytes() == VICTIM, "a write went through a planted symlink"
    for name in finals:
        assert not (out / name).is_symlink() and (out / name).is_file(), name
    assert report.candidates_path.read_bytes() == clean.candidates_path.read_bytes()
    assert (out / "annotation" / "annotator_1.csv").read_bytes() == \
        (clean.out_dir / "annotation" / "annotator_1.csv").read_bytes()
    leftovers = [p for p in out.rglob("*.tmp") if p not in planted]
    assert leftovers == []


@pytest.mark.parametrize("link", ["stages", "stages/dedupe", "annotation", "stages/match"])
def test_a_folder_link_planted_in_the_output_folder_is_refused_before_any_write(tmp_path, link):
    # Issue 21, item 6: mkdir and mkstemp went through stages/dedupe -> the victim's folder,
    # and the rename replaced the victim's own candidates.jsonl.
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    victim_folder = tmp_path / "victim"
    victim_folder.mkdir()
    (victim_folder / "candidates.jsonl").write_bytes(VICTIM)
    (victim_folder / "annotator_1.csv").write_bytes(VICTIM)
    out = tmp_path / "out"
    (out / link).parent.mkdir(parents=True, exist_ok=True)
    (out / link).symlink_to(victim_folder, target_is_directory=True)
    with pytest.raises(UsageError) as info:
        run_pipeline([corpus], out, MiningConfig(export_annotation=True))
    assert str(out / link) in str(info.value) and "symbolic link" in str(info.value)
    assert "\n" not in str(info.value)
    assert sorted(os.listdir(victim_folder)) == ["annotator_1.csv", "candidates.jsonl"]
    assert all(p.read_bytes() == VICTIM for p in victim_folder.iterdir())
    assert [p for p in out.rglob("*") if not p.is_symlink() and p.is_file()] == []  # nothing written


def test_the_output_folder_itself_may_be_a_link(tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "out").symlink_to(real, target_is_directory=True)
    report = run_pipeline([corpus], tmp_path / "out", MiningConfig())
    assert (real / "candidates.jsonl").read_bytes() == report.candidates_path.read_bytes()
