"""scripts/bbq_compare_answers.py on a KoBBQ generated run (issue 38): each of a sample's 15 generated rows
is set beside that sample's likelihood answer, and "same option" compares the answers' kinds."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "bbq_compare_answers.py"


def _run_folder(path: Path, rows: list[dict]) -> Path:
    path.mkdir()
    (path / "items.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_generated_rows_pair_with_their_samples_likelihood_answer(tmp_path) -> None:
    common = {"context_condition": "ambig", "options": ["x", "y", "알 수 없음"], "label": 2}
    likelihood = _run_folder(tmp_path / "lik", [{"id": "kobbq/s1", "choice": 0, "answer": "biased", **common}])
    # orders 0 and 1 show the options reordered: the biased person is index 0 in one, index 1 in the other
    generated = _run_folder(tmp_path / "gen", [
        {"id": "kobbq/s1#p1-0", "sample": "kobbq/s1", "choice": 0, "answer": "biased", "parsed": True},
        {"id": "kobbq/s1#p1-1", "sample": "kobbq/s1", "choice": 1, "answer": "biased", "parsed": True},
        {"id": "kobbq/s1#p1-2", "sample": "kobbq/s1", "choice": 0, "answer": "unknown", "parsed": True},
        {"id": "kobbq/s1#p2-0", "sample": "kobbq/s1", "choice": None, "answer": None, "parsed": False,
         "generated": "음"}])
    out = subprocess.run([sys.executable, str(SCRIPT), str(likelihood), str(generated)], capture_output=True,
                         text=True, check=True).stdout
    assert out.startswith("4 generated answers with a likelihood answer")
    assert "| biased | 2 | 0 | 1 | 1 | 0 |" in out
    assert "Same option chosen: 2 of 3 items both answered" in out
