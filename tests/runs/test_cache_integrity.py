"""The score cache never lies: keys cannot collide, stored answers are checked on every
read, and a cache that cannot be used is a one-line error or a warning, never a traceback
and never a wrong score (cache.py's module docstring has the table of failures).

When the tests run as root, the permission cases run the CLI as a root that has given up
the capabilities to ignore file modes; otherwise root reads and writes any file.
"""

from __future__ import annotations

import ctypes
import json
import math
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from biasatlas.benchmarks.crows_pairs import CrowsPairs
from biasatlas.cache import TABLE, ScoreCache, _checksum, probe_key
from biasatlas.pipeline import run_benchmark
from biasatlas.runs.folder import Run
from biasatlas.probes import (ContinuationProbe, PairProbe, SentenceAnswer, SentenceProbe,
                              SlotProbe)
from biasatlas.registry import load_scorer
from biasatlas.scorers.fake import FakeScorer

HEADER = "\tsent_more\tsent_less\tstereo_antistereo\tbias_type\n"
US = "\x1f"  # the separator the first key format joined texts with
# Under the fake scorer the first pair prefers sent_more and the second does not, so the
# metric is 50; when the two share a key, a rerun reads one answer for both: 0 or 100.
COLLIDING = [(f"He{US}is", "home."), ("He", f"is{US}home.")]
PLAIN = [("She is here.", "He is here."), ("The nurse is kind.", "The doctor is kind.")]
PR_CAPBSET_DROP, CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH = 24, 1, 2  # <linux/prctl.h>, <linux/capability.h>


def _write(folder: Path, pairs: list[tuple[str, str]], name: str = "pairs.tsv") -> Path:
    path = folder / name
    rows = "".join(f"{i}\t{more}\t{less}\tstereo\tage\n" for i, (more, less) in enumerate(pairs))
    path.write_text(HEADER + rows, encoding="utf-8")
    return path


def _evaluate(data: Path, cache_path: Path | None = None, scorer: FakeScorer | None = None) -> Run:
    cache = None if cache_path is None else ScoreCache(cache_path)
    try:
        return run_benchmark(CrowsPairs(dataset=None, data=data), scorer or FakeScorer(), cache=cache)
    finally:
        if cache is not None:
            cache.close()


# ---------------------------------------------------------------------------------------
# Keys: an unambiguous encoding of kind and every field.

# (name, probe, probe): different content, so different keys; each pair collided when
# texts were joined with U+001F.
KEY_COLLISIONS = [
    ("pair texts", PairProbe("1", f"X{US}Y", "Z"), PairProbe("2", "X", f"Y{US}Z")),
    ("slot fillers", SlotProbe("1", "L", "R", (f"a{US}b",)), SlotProbe("2", "L", "R", ("a", "b"))),
    ("slot sides and fillers", SlotProbe("1", "a", "b", ("c",)), SlotProbe("2", f"a{US}b", "c", ())),
    ("continuation contexts", ContinuationProbe("1", (f"a{US}b",), "c"),
     ContinuationProbe("2", ("a", "b"), "c")),
    ("continuation text and context", ContinuationProbe("1", ("b",), f"a{US}x"),
     ContinuationProbe("2", ("x", "b"), "a")),
]


@pytest.mark.parametrize("name,first,second", KEY_COLLISIONS, ids=[k[0] for k in KEY_COLLISIONS])
def test_keys_of_different_probes_differ(name, first, second):
    assert probe_key(first) != probe_key(second)


def test_keys_ignore_the_id_and_tell_kinds_apart():
    assert probe_key(PairProbe("a", "x", "y")) == probe_key(PairProbe("b", "x", "y"))
    texts = [SentenceProbe("s", "x"), PairProbe("p", "x", ""), SlotProbe("l", "x", "", ()),
             ContinuationProbe("c", (), "x")]
    assert len({probe_key(p) for p in texts}) == len(texts)


def test_colliding_texts_keep_their_own_answers_through_real_runs(tmp_path):
    data = _write(tmp_path, COLLIDING)
    uncached = _evaluate(data)
    assert uncached.summary["metric_score"] == 50.0  # the data does what the comment says
    first = _evaluate(data, tmp_path / "c.sqlite")
    rerun = _evaluate(data, tmp_path / "c.sqlite")
    assert rerun.timing["cache_hits"] == 2
    for run in (first, rerun):
        assert run.records == uncached.records
        assert run.summary == uncached.summary


# ---------------------------------------------------------------------------------------
# Values: checked on every read; a refused row is rescored and overwritten.


def _flip_digit(payload: str, checksum: str, **_: str) -> tuple[str, str]:
    """A bit of rot: the first digit of score_a changes, the checksum does not."""
    def flip(match: re.Match) -> str:
        return match.group(1) + str((int(match.group(2)) + 5) % 10)

    return re.sub(r'("score_a": -?)(\d)', flip, payload, count=1), checksum


def _resigned(payload: str) -> Callable[..., tuple[str, str]]:
    """A payload written with a valid checksum: what a buggy or older writer would leave."""
    def mutate(scorer: str, key: str, **_: str) -> tuple[str, str]:
        return payload, _checksum(scorer, key, payload)

    return mutate


def _nan_payload(value: str) -> str:
    return f'{{"kind": "pair", "score_a": {value}, "score_b": -1.0, "n_scored_a": 0, "n_scored_b": 0}}'


MUTATIONS: dict[str, Callable[..., tuple[str, str]]] = {
    "flipped digit": _flip_digit,
    "another probe's row": lambda other_payload, other_checksum, **_: (other_payload, other_checksum),
    "garbled checksum": lambda payload, **_: (payload, "0" * 64),
    "truncated value": lambda payload, checksum, **_: (payload[:-7], checksum),
    "answer of another kind": _resigned('{"kind": "sentence", "logprob": -1.0, "n_tokens": 1}'),
    "NaN": _resigned(_nan_payload("NaN")),
    "infinity": _resigned(_nan_payload("-Infinity")),
}


def _stored(db: Path) -> dict[str, tuple[str, str, str]]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute(f"SELECT scorer, probe, answer, sha256 FROM {TABLE}").fetchall()
    return {key: (scorer, payload, checksum) for scorer, key, payload, checksum in rows}


@pytest.mark.parametrize("mutation", list(MUTATIONS))
def test_a_damaged_answer_is_refused_rescored_and_repaired(tmp_path, capsys, mutation):
    data, db = _write(tmp_path, PLAIN), tmp_path / "c.sqlite"
    uncached = _evaluate(data)
    _evaluate(data, db)
    target, other = (probe_key(PairProbe(str(i), *pair)) for i, pair in enumerate(PLAIN))
    rows = _stored(db)
    scorer, payload, checksum = rows[target]
    new_payload, new_checksum = MUTATIONS[mutation](
        scorer=scorer, key=target, payload=payload, checksum=checksum,
        other_payload=rows[other][1], other_checksum=rows[other][2])
    assert new_payload != payload or new_checksum != checksum
    with sqlite3.connect(db) as conn:
        conn.execute(f"UPDATE {TABLE} SET answer = ?, sha256 = ? WHERE probe = ?",
                     (new_payload, new_checksum, target))
    capsys.readouterr()

    damaged = _evaluate(data, db)
    assert damaged.records == uncached.records and damaged.summary == uncached.summary
    assert (damaged.timing["cache_rejected"], damaged.timing["scored"]) == (1, 1)
    assert "1 stored answer(s) failed their checksum" in capsys.readouterr().err
    repaired = _evaluate(data, db)  # the rescored answer replaced the damaged row
    assert (repaired.timing["cache_rejected"], repaired.timing["scored"]) == (0, 0)
    assert _stored(db)[target] == (scorer, payload, checksum)


class _NaNScorer(FakeScorer):
    """NaN for any sentence containing 'broken': a numerically failing model."""

    def _text_score(self, text: str) -> float:
        return math.nan if "broken" in text else super()._text_score(text)


def test_a_cached_nan_from_a_failing_model_becomes_a_recorded_skip(tmp_path):
    data, db = _write(tmp_path, [PLAIN[0], ("A broken one.", "A fine one.")]), tmp_path / "c.sqlite"
    first = _evaluate(data, db, _NaNScorer())
    assert ScoreCache(db).count() == 1  # the NaN answer was not stored
    key = probe_key(PairProbe("1", "A broken one.", "A fine one."))
    scorer = first.summary["provenance"]["scorer_fingerprint"]
    nan = _nan_payload("NaN")
    with sqlite3.connect(db) as conn:  # as if an older version had stored it
        conn.execute(f"INSERT INTO {TABLE} VALUES (?, ?, ?, ?)",
                     (scorer, key, nan, _checksum(scorer, key, nan)))

    again = _evaluate(data, db, _NaNScorer())
    assert again.timing["cache_rejected"] == 1
    assert [r["id"] for r in again.records] == ["0"]
    assert any(s["id"] == "1" and "non-finite" in s["reason"] for s in again.skipped)
    assert again.summary == first.summary
    assert ScoreCache(db).count() == 1  # and the NaN row is gone


def test_non_finite_answers_are_never_stored(tmp_path):
    cache = ScoreCache(tmp_path / "c.sqlite")
    probes = [SentenceProbe("n", "x"), SentenceProbe("i", "y"), SentenceProbe("f", "z")]
    cache.put("fp", probes, {"n": SentenceAnswer("n", math.nan, 1),
                             "i": SentenceAnswer("i", -math.inf, 1),
                             "f": SentenceAnswer("f", -1.0, 1)})
    assert cache.get("fp", probes) == {"f": SentenceAnswer("f", -1.0, 1)}


def test_reveal_answers_keep_their_pieces_and_other_rows_read_as_before(tmp_path):
    from biasatlas.cache import _encode
    from biasatlas.probes import SlotAnswer

    cache = ScoreCache(tmp_path / "c.sqlite")
    probes = [SlotProbe("r", "The ", " left.", ("schoolgirl", "boy")), SlotProbe("j", "A ", ".", ("cat",))]
    reveal = SlotAnswer("r", (-3.0, -1.0), (2, 1), ((-1.0, -2.0), (-1.0,)))  # the pieces sum to the logprobs
    joint = SlotAnswer("j", (-0.5,), (1,))
    cache.put("fp", probes, {"r": reveal, "j": joint})
    assert cache.get("fp", probes) == {"r": reveal, "j": joint}  # nested tuples come back as tuples
    assert "piece_logprobs" not in _encode(joint)  # a row without pieces is written as it always was
    # a stored answer whose pieces do not match its fillers is refused (one filler's pieces for two)
    cache.put("fp2", probes[:1], {"r": SlotAnswer("r", (-3.0, -1.0), (2, 1), ((-1.0, -2.0),))})
    assert cache.get("fp2", probes[:1]) == {}


def test_rows_of_the_first_key_format_are_never_read(tmp_path):
    db = tmp_path / "c.sqlite"
    with sqlite3.connect(db) as conn:  # a cache as the first format wrote it
        conn.execute("CREATE TABLE answers (scorer TEXT, probe TEXT, answer TEXT, "
                     "PRIMARY KEY (scorer, probe)) WITHOUT ROWID")
        conn.execute("INSERT INTO answers VALUES (?, ?, ?)",
                     ("fp", probe_key(SentenceProbe("s", "x")),
                      json.dumps({"kind": "sentence", "logprob": -9.0, "n_tokens": 1})))
    assert ScoreCache(db).get("fp", [SentenceProbe("s", "x")]) == {}


# ---------------------------------------------------------------------------------------
# Files that cannot be used: through the CLI, with its exit code and stderr.


@pytest.fixture(scope="module")
def world() -> Iterator[Path]:
    """A folder an unprivileged user can enter (pytest's own tmp folders are private)."""
    root = Path(tempfile.mkdtemp(prefix="biasatlas-cache-"))
    root.chmod(0o755)
    _write(root, PLAIN).chmod(0o644)
    yield root
    for folder, _, _ in os.walk(root):
        Path(folder).chmod(0o777)
    shutil.rmtree(root)


@pytest.fixture(scope="module")
def uncached_table(world) -> str:
    done = _cli(world, world / "unused", "--no-cache")
    assert done.returncode == 0, done.stderr
    return done.stdout


def _obey_file_modes() -> None:
    """Run the child as a root that obeys file modes: drop the capabilities that let root
    ignore them from the bounding set, which execve then applies (capabilities(7))."""
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    for capability in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
        if prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "cannot drop a capability")


@pytest.fixture(scope="module")
def modes_obeyed(world) -> None:
    """Skip, saying why, where file modes cannot be made to bind (root without CAP_SETPCAP)."""
    secret = world / "secret"
    secret.write_text("x")
    secret.chmod(0)
    try:
        done = subprocess.run([sys.executable, "-c", f"open({str(secret)!r}).read()"],
                              capture_output=True, preexec_fn=_child_setup())
    except subprocess.SubprocessError as exc:
        pytest.skip(f"cannot run a child that obeys file modes: {exc}")
    if done.returncode == 0:
        pytest.skip("file modes do not bind here: a file of mode 000 could be read")


def _child_setup() -> Callable[[], None] | None:
    return _obey_file_modes if os.geteuid() == 0 else None


def _cli(world: Path, cache_dir: Path, *extra: str,
         unprivileged: bool = False) -> subprocess.CompletedProcess:
    env = {**os.environ, "BIASATLAS_CACHE_DIR": str(cache_dir), "HOME": str(world)}
    return subprocess.run([sys.executable, "-m", "biasatlas", "run", "crows-pairs", "--data",
                           str(world / "pairs.tsv"), "--model", "fake", *extra],
                          env=env, cwd=world, capture_output=True, text=True, timeout=300,
                          preexec_fn=_child_setup() if unprivileged else None)


def _fill(cache_dir: Path, pairs: list[tuple[str, str]] = PLAIN) -> Path:
    """A cache holding the answers the CLI's fake scorer gives for ``pairs``."""
    cache_dir.mkdir(mode=0o777)
    cache_dir.chmod(0o777)
    data = _write(cache_dir, pairs, "fill.tsv")
    cache = ScoreCache(cache_dir / "scores.sqlite")
    run_benchmark(CrowsPairs(dataset=None, data=data), load_scorer("fake", "auto", variant=None), cache=cache)
    cache.close()
    return cache_dir / "scores.sqlite"


def _corrupt(cache_dir: Path) -> tuple[Path, Path]:
    cache_dir.mkdir()
    (cache_dir / "scores.sqlite").write_bytes(b"these bytes are not a database\n" * 200)
    return cache_dir, cache_dir / "scores.sqlite"


def _parent_is_file(cache_dir: Path) -> tuple[Path, Path]:
    cache_dir.write_text("a file where the cache folder should be\n")
    return cache_dir, cache_dir


def _ancestor_is_file(cache_dir: Path) -> tuple[Path, Path]:
    cache_dir.write_text("a file above the cache folder\n")
    return cache_dir / "deeper", cache_dir


def _path_is_folder(cache_dir: Path) -> tuple[Path, Path]:
    (cache_dir / "scores.sqlite").mkdir(parents=True)
    return cache_dir, cache_dir / "scores.sqlite"


def _unreadable(cache_dir: Path) -> tuple[Path, Path]:
    db = _fill(cache_dir)
    db.chmod(0)
    return cache_dir, db


# (name, setup: the cache folder to use and the path the message must name, what it says)
ERRORS = [
    ("corrupt file", _corrupt, "is corrupt (file is not a database): delete it or run with --no-cache"),
    ("parent is a file", _parent_is_file, "is a file, not a folder; point BIASATLAS_CACHE_DIR at a folder"),
    ("a folder above is a file", _ancestor_is_file, "is a file, not a folder; point BIASATLAS_CACHE_DIR"),
    ("cache path is a folder", _path_is_folder, "is a folder, not a file: move it away or run with --no-cache"),
    ("unreadable file", _unreadable, "cannot be read (Permission denied): fix its permissions"),
]


@pytest.mark.parametrize("name,setup,says", ERRORS, ids=[e[0] for e in ERRORS])
def test_unusable_caches_are_one_line_errors(world, modes_obeyed, tmp_path, name, setup, says):
    cache_dir, named = setup(world / tmp_path.name)
    done = _cli(world, cache_dir, unprivileged=True)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, done.stderr
    assert f"{named} {says}" in errors[0]


def _read_only_file(cache_dir: Path) -> None:
    _fill(cache_dir).chmod(0o444)


def _read_only_folder(cache_dir: Path) -> None:
    _fill(cache_dir).chmod(0o666)
    cache_dir.chmod(0o555)


def _read_only_folder_without_cache(cache_dir: Path) -> None:
    cache_dir.mkdir()
    cache_dir.chmod(0o555)


def _read_only_file_missing_answers(cache_dir: Path) -> None:
    _fill(cache_dir, PLAIN[:1]).chmod(0o444)


# (name, setup, warning, answers reused, answers in the cache after the run)
WARNINGS = [
    ("read-only file, every answer cached", _read_only_file, "cannot be written (the file is not writable)", 2, 2),
    ("read-only file, one answer missing", _read_only_file_missing_answers, "cannot be written (the file", 1, 1),
    ("read-only folder, every answer cached", _read_only_folder, "cannot be written (its folder", 2, 2),
    ("read-only folder, no cache yet", _read_only_folder_without_cache, "cannot be created (its folder", 0, None),
]


@pytest.mark.parametrize("name,setup,warning,reused,stored", WARNINGS, ids=[w[0] for w in WARNINGS])
@pytest.mark.slow
def test_read_only_caches_are_used_with_a_warning(world, modes_obeyed, uncached_table, tmp_path, name, setup,
                                                  warning, reused, stored):
    cache_dir = world / tmp_path.name
    setup(cache_dir)
    db = cache_dir / "scores.sqlite"
    before = db.read_bytes() if db.exists() else None
    done = _cli(world, cache_dir, unprivileged=True)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout == uncached_table  # the same scores as a run without a cache
    warnings = [line for line in done.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and warning in warnings[0] and str(db) in warnings[0], done.stderr
    assert (f"reused {reused} cached answers" in done.stderr) == bool(reused)
    if stored is None:
        assert not db.exists()
    else:
        assert db.read_bytes() == before
        assert ScoreCache(db).count() == stored


@pytest.mark.slow
def test_the_cli_warns_once_about_damaged_answers_and_repairs_them(world, uncached_table, tmp_path):
    db = _fill(world / tmp_path.name)
    with sqlite3.connect(db) as conn:  # rot in both answers: -3.14… becomes -13.14…
        conn.execute(f"UPDATE {TABLE} SET answer = replace(answer, '\"score_a\": -', '\"score_a\": -1')")
    done = _cli(world, db.parent)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert done.stdout == uncached_table
    warnings = [line for line in done.stderr.splitlines() if line.startswith("warning:")]
    assert warnings == [f"warning: score cache {db}: 2 stored answer(s) failed their checksum "
                        "or were not finite numbers; scoring them again"]
    bench = CrowsPairs(dataset=None, data=world / "pairs.tsv")
    cache = ScoreCache(db)
    fingerprint = load_scorer("fake", "auto", variant=None).fingerprint()
    assert len(cache.get(fingerprint, bench.probes(bench.load()))) == 2 and cache.rejected == 0
