"""A run refused before it wrote anything gives its claim back (issue 49, item 6), and only then."""

from __future__ import annotations

from pathlib import Path

from biasatlas.runs.folder import LOCK_FILE, OWNER_FILE, claim_run_folder, unclaim_run_folder

REQUEST = {"benchmark": {"name": "toy"}, "model": {"model": "fake"}}


def test_a_folder_the_claim_made_goes_with_it(tmp_path: Path) -> None:
    out = tmp_path / "run"
    claim_run_folder(out, REQUEST).release()
    assert {p.name for p in out.iterdir()} <= {OWNER_FILE, LOCK_FILE} and (out / OWNER_FILE).is_file()
    unclaim_run_folder(out, created=True)
    assert not out.exists()


def test_an_existing_empty_folder_stays_and_anything_written_is_kept(tmp_path: Path) -> None:
    kept = tmp_path / "kept"
    kept.mkdir()
    claim_run_folder(kept, REQUEST).release()
    unclaim_run_folder(kept, created=False)
    assert kept.is_dir() and not any(kept.iterdir())
    written = tmp_path / "written"
    claim_run_folder(written, REQUEST).release()
    (written / "items.jsonl").write_text("{}\n", encoding="utf-8")
    unclaim_run_folder(written, created=True)
    assert (written / OWNER_FILE).is_file() and (written / "items.jsonl").is_file()
