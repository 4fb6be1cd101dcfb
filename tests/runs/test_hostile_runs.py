"""Careless or hostile runs, table-driven: each one is refused with a one-line message
before anything is lost, or gives a clear error instead of a wrong number with exit 0.

Every case runs the real command line (``python -m biasatlas``) and checks the exit code,
the message, that no traceback was printed, and that the victim's bytes are unchanged.
"""

from __future__ import annotations

import json
import os
import pty
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from filelock import FileLock

from biasatlas.runs.folder import LOCK_FILE

PAIRS = ("\tsent_more\tsent_less\tstereo_antistereo\tbias_type\n"
         "0\tShe is here.\tHe is here.\tstereo\tgender\n"
         "1\tThe old man sat.\tThe young man sat.\tstereo\tage\n")


def cli(*args: str, env: dict[str, str] | None = None, timeout: int = 240) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "biasatlas", *args], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})})


def one_line_error(done: subprocess.CompletedProcess, *words: str, status: int = 1) -> None:
    assert done.returncode == status, done.stderr  # 2: a usage mistake; 1: bad contents, at run time
    assert "Traceback" not in done.stderr, done.stderr
    for word in words:
        assert word in done.stderr, done.stderr


@pytest.fixture()
def pairs(tmp_path: Path) -> Path:
    path = tmp_path / "pairs.tsv"
    path.write_text(PAIRS, encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("BIASATLAS_CACHE_DIR", str(tmp_path / "cache"))


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


# -- 1–3: run folders are owned ------------------------------------------------------------------
@pytest.mark.slow  # over a second: the full suite runs it, the fast loop does not
def test_out_at_a_model_folder_is_refused_and_the_model_untouched(tiny_bert, pairs, tmp_path):
    model = tmp_path / "model"
    shutil.copytree(tiny_bert, model)
    before = snapshot(model)
    done = cli("run", "crows-pairs", "--data", str(pairs), "--model", str(model), "--out", str(model))
    one_line_error(done, "not a biasatlas run", status=2)
    assert "loading model" not in done.stderr  # refused before the model loads
    assert snapshot(model) == before
    forced = cli("run", "crows-pairs", "--data", str(pairs), "--model", "fake", "--out", str(model),
                 "--force")  # --force never replaces a folder that is not a run folder
    one_line_error(forced, "not a biasatlas run", status=2)
    assert snapshot(model) == before


@pytest.mark.slow
def test_out_at_another_run_is_refused_unless_forced(pairs, tmp_path):
    out = tmp_path / "run"
    first = cli("run", "crows-pairs", "--data", str(pairs), "--model", "fake", "--out", str(out))
    assert first.returncode == 0, first.stderr
    before = snapshot(out)
    again = cli("run", "crows-pairs", "--data", str(pairs), "--model", "fake", "--out", str(out))
    assert again.returncode == 0, again.stderr  # the same request: rewritten identically
    assert snapshot(out)["summary.json"] == before["summary.json"]
    other = cli("run", "crows-pairs", "--data", str(pairs), "--model", "fake", "--lowercase",
                "--out", str(out))
    one_line_error(other, "another run", "lowercase", "--force", status=2)
    assert snapshot(out) == snapshot(out) and snapshot(out)["config.json"] == before["config.json"]
    forced = cli("run", "crows-pairs", "--data", str(pairs), "--model", "fake", "--lowercase",
                 "--out", str(out), "--force")
    assert forced.returncode == 0, forced.stderr
    assert json.loads((out / "config.json").read_text())["benchmark"]["lowercase"] is True


def test_a_second_writer_fails_at_once(pairs, tmp_path):
    out = tmp_path / "busy"
    out.mkdir()
    with FileLock(str(out / LOCK_FILE), timeout=0):  # another run holds the folder
        started = time.monotonic()
        done = cli("run", "crows-pairs", "--data", str(pairs), "--model", "fake", "--out", str(out))
        assert time.monotonic() - started < 60
    one_line_error(done, "being written by another biasatlas run", status=2)
    assert not (out / "summary.json").exists()


def test_out_at_a_file_is_refused_before_scoring(pairs, tmp_path):
    victim = tmp_path / "notes.txt"
    victim.write_text("keep me", encoding="utf-8")
    done = cli("run", "crows-pairs", "--data", str(pairs), "--model", "fake", "--out", str(victim))
    one_line_error(done, "is a file", status=2)
    assert victim.read_text(encoding="utf-8") == "keep me"


# -- 4, 6, 7, 8: meaningless input is refused -----------------------------------------------------
@pytest.mark.slow
def test_model_folder_without_tokenizer_files_is_refused(tiny_bert, pairs, tmp_path):
    model = tmp_path / "no-tokenizer"
    model.mkdir()
    for name in ("config.json", "model.safetensors"):
        shutil.copy(tiny_bert / name, model / name)
    done = cli("run", "crows-pairs", "--data", str(pairs), "--model", str(model))
    one_line_error(done, "tokenizer is empty")


BAD_ARGS = [
    ("limit negative", ("crows-pairs", "--limit", "-5"), "--limit"),
    ("limit zero", ("crows-pairs", "--limit", "0"), "--limit"),
    ("batch size zero", ("crows-pairs", "--batch-size", "0"), "--batch-size"),
    ("batch size negative", ("crows-pairs", "--batch-size", "-3"), "--batch-size"),
    ("sample zero", ("census", "--country", "no", "--sample", "0"), "--sample"),
]


@pytest.mark.slow  # over a second: the full suite runs it, the fast loop does not
@pytest.mark.parametrize("name,args,option", BAD_ARGS, ids=[b[0] for b in BAD_ARGS])
def test_non_positive_counts_are_usage_errors(pairs, name, args, option):
    data = ("--data", str(pairs)) if args[0] == "crows-pairs" else ()
    done = cli("run", *args, *data, "--model", "fake")
    one_line_error(done, option, status=2)


@pytest.mark.slow  # over a second: the full suite runs it, the fast loop does not
def test_fraction_scale_census_is_refused(tmp_path):
    table = tmp_path / "uk.csv"
    table.write_text("occupation,female_pct\nNurses,0.89\nCivil engineers,0.14\n", encoding="utf-8")
    done = cli("run", "census", "--country", "uk", "--census", str(table), "--model", "fake")
    one_line_error(done, "fractions", "female_pct", str(table))


def test_header_only_crows_file_is_an_error(tmp_path):
    path = tmp_path / "header.tsv"
    path.write_text(PAIRS.splitlines(keepends=True)[0], encoding="utf-8")
    done = cli("run", "crows-pairs", "--data", str(path), "--model", "fake")
    one_line_error(done, "no pairs", str(path))


@pytest.mark.slow  # over a second: the full suite runs it, the fast loop does not
def test_duplicate_id_near_the_end_of_a_large_file_is_found_in_seconds(tmp_path):
    from biasatlas.benchmarks.crows_pairs import read_pairs
    from biasatlas.errors import DataError

    rows = [f"{i}\tA{i} is here.\tB{i} is here.\tstereo\tage\n" for i in range(200_000)]
    rows.append("199990\tA is here.\tB is here.\tstereo\tage\n")
    path = tmp_path / "big.tsv"
    path.write_text(PAIRS.splitlines(keepends=True)[0] + "".join(rows), encoding="utf-8")
    started = time.monotonic()
    with pytest.raises(DataError, match="duplicate pair id '199990'") as err:
        read_pairs(path)
    assert err.value.line == 200_002  # the header, 200,000 rows, then the duplicate
    assert time.monotonic() - started < 30  # the quadratic check took minutes at 50,000 rows


# -- 9: no code runs without --trust-remote-code ------------------------------------------------
def remote_code_folder(tmp_path: Path, tiny_bert: Path) -> tuple[Path, Path]:
    """A model folder whose config names custom code that writes a marker file when imported."""
    folder, marker = tmp_path / "custom", tmp_path / "code-ran"
    shutil.copytree(tiny_bert, folder)
    config = json.loads((folder / "config.json").read_text())
    config.update(model_type="marker-bert", auto_map={"AutoConfig": "configuration_marker.MarkerConfig"})
    (folder / "config.json").write_text(json.dumps(config))
    (folder / "configuration_marker.py").write_text(
        f"from pathlib import Path\nPath({str(marker)!r}).write_text('ran')\n"
        "from transformers import BertConfig\n\n"
        "class MarkerConfig(BertConfig):\n    model_type = 'marker-bert'\n")
    return folder, marker


@pytest.mark.slow
def test_custom_code_does_not_run_without_the_flag(tiny_bert, pairs, tmp_path):
    folder, marker = remote_code_folder(tmp_path, tiny_bert)
    done = cli("run", "crows-pairs", "--data", str(pairs), "--model", str(folder))
    one_line_error(done, str(folder))
    assert not marker.exists()


@pytest.mark.slow
def test_custom_code_does_not_run_on_a_terminal_answering_yes(tiny_bert, pairs, tmp_path):
    """On a terminal, transformers asks whether to run a folder's code when the flag is left
    unset; a "y" typed there must not run it (the flag is always passed explicitly)."""
    folder, marker = remote_code_folder(tmp_path, tiny_bert)
    pid, fd = pty.fork()
    if pid == 0:  # the child: the CLI on a pseudo-terminal
        os.environ["BIASATLAS_CACHE_DIR"] = str(tmp_path / "cache")
        os.execv(sys.executable, [sys.executable, "-m", "biasatlas", "run", "crows-pairs",
                                  "--data", str(pairs), "--model", str(folder)])
    output, deadline = b"", time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 1.0)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            output += chunk
            if b"[y/N]" in chunk or b"trust_remote_code" in chunk:
                os.write(fd, b"y\n")
    _, status = os.waitpid(pid, 0)
    assert not marker.exists(), output.decode(errors="replace")
    assert os.waitstatus_to_exitcode(status) == 1, output.decode(errors="replace")  # ModelError: run time
    assert b"Traceback" not in output


# -- damaged model folders: one line, never a traceback -------------------------------------------
def _truncate_weights(folder: Path) -> None:
    weights = folder / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[: weights.stat().st_size // 2])


DAMAGED_MODELS = [
    ("invalid config JSON", lambda f: (f / "config.json").write_text("{not json"), "not a valid JSON"),
    ("no model_type", lambda f: (f / "config.json").write_text('{"architectures": ["X"]}'), "model_type"),
    ("unknown model_type", lambda f: (f / "config.json").write_text('{"model_type": "no-such-x"}'),
     "no-such-x"),
    ("truncated weights", _truncate_weights, "cannot load"),
]


@pytest.mark.parametrize("name,damage,words", DAMAGED_MODELS, ids=[d[0] for d in DAMAGED_MODELS])
@pytest.mark.slow
def test_damaged_model_folders_are_one_line_errors(tiny_bert, pairs, tmp_path, name, damage, words):
    folder = tmp_path / "model"
    shutil.copytree(tiny_bert, folder)
    damage(folder)
    done = cli("run", "crows-pairs", "--data", str(pairs), "--model", str(folder))
    one_line_error(done, words, str(folder))


# -- inputs that used to end in a traceback -----------------------------------------------------
@pytest.mark.slow  # over a second: the full suite runs it, the fast loop does not
def test_skip_missing_with_no_matching_occupation_is_an_error(tmp_path):
    table = tmp_path / "uk.csv"
    table.write_text("occupation,female_pct\nAstronaut of the sea,40\nCloud painter,60\n", encoding="utf-8")
    done = cli("run", "census", "--country", "uk", "--census", str(table), "--skip-missing", "--model", "fake")
    one_line_error(done, "no occupation", "--inflections")


@pytest.mark.parametrize("name,suffix,content,field", [
    ("superscript offset", ".csv", "sentence,keyword,offset,pair\n他是医生。,他,²,他/她\n", "offset"),
    ("lone surrogate", ".jsonl",
     '{"sentence": "\\ud800他是医生。", "keyword": "他", "offset": 1, "pair": "他/她"}\n', "sentence"),
])
def test_hostile_zh_rows_are_one_line_errors(tmp_path, name, suffix, content, field):
    path = tmp_path / f"zh{suffix}"
    path.write_text(content, encoding="utf-8")
    done = cli("run", "zh-neutral", "--data", str(path), "--model", "fake")
    one_line_error(done, str(path), "line", repr(field))
