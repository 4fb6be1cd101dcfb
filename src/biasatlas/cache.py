"""A score cache that makes runs resumable and safe to overlap.

Key: what determines a score — the scorer's fingerprint (model file hashes or revision,
scorer kind, variant and parameters; not the batch size or device, which must not change
scores) and the probe's content (kind and text, not its id). Value: the answer, as JSON
(floats round-trip exactly; nothing is ever unpickled). SQLite in WAL mode lets two runs
read and write one cache at once; each chunk of answers is committed as soon as it is
computed, so a run killed at any point loses at most the chunk in flight.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path

from .probes import (Answer, ContinuationProbe, PairAnswer, PairProbe, Probe, SentenceAnswer,
                     SlotAnswer, SlotProbe)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS answers (
    scorer TEXT NOT NULL,
    probe TEXT NOT NULL,
    answer TEXT NOT NULL,
    PRIMARY KEY (scorer, probe)
) WITHOUT ROWID
"""
_KINDS = {"pair": PairAnswer, "slot": SlotAnswer, "sentence": SentenceAnswer}


def probe_key(probe: Probe) -> str:
    """A hash of the probe's content; the id is left out so renamed items still hit."""
    if isinstance(probe, PairProbe):
        parts = ("pair", probe.a, probe.b)
    elif isinstance(probe, SlotProbe):
        parts = ("slot", probe.left, probe.right, *probe.fillers)
    elif isinstance(probe, ContinuationProbe):
        parts = ("continuation", probe.continuation, *probe.contexts)
    else:
        parts = ("sentence", probe.text)
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()


def _encode(answer: Answer) -> str:
    kind = {PairAnswer: "pair", SlotAnswer: "slot", SentenceAnswer: "sentence"}[type(answer)]
    fields = {k: v for k, v in asdict(answer).items() if k != "id"}
    return json.dumps({"kind": kind, **fields})


def _decode(probe_id: str, payload: str) -> Answer:
    data = json.loads(payload)
    cls = _KINDS[data.pop("kind")]
    data = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
    return cls(id=probe_id, **data)


class ScoreCache:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, timeout=60.0, isolation_level=None)
        self._db.execute("PRAGMA busy_timeout=60000")
        # Switching a new database to WAL needs it to ourselves, and SQLite answers "locked"
        # at once rather than waiting when two runs start together: take turns.
        from filelock import FileLock

        with FileLock(str(self.path) + ".lock", timeout=120):
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(_SCHEMA)

    def get(self, scorer: str, probes: Iterable[Probe]) -> dict[str, Answer]:
        """Cached answers for ``probes``, keyed by probe id."""
        by_key: dict[str, list[str]] = {}
        for probe in probes:
            by_key.setdefault(probe_key(probe), []).append(probe.id)
        found: dict[str, Answer] = {}
        keys = list(by_key)
        for start in range(0, len(keys), 500):  # SQLite caps the number of parameters
            chunk = keys[start:start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(
                f"SELECT probe, answer FROM answers WHERE scorer = ? AND probe IN ({marks})",
                (scorer, *chunk))
            for key, payload in rows:
                for probe_id in by_key[key]:
                    found[probe_id] = _decode(probe_id, payload)
        return found

    def put(self, scorer: str, probes: Iterable[Probe], answers: dict[str, Answer]) -> None:
        """Store answers in one transaction (all of the chunk, or none of it)."""
        rows = [(scorer, probe_key(p), _encode(answers[p.id])) for p in probes if p.id in answers]
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.executemany("INSERT OR REPLACE INTO answers VALUES (?, ?, ?)", rows)

    def count(self, scorer: str | None = None) -> int:
        if scorer is None:
            return self._db.execute("SELECT COUNT(*) FROM answers").fetchone()[0]
        return self._db.execute("SELECT COUNT(*) FROM answers WHERE scorer = ?", (scorer,)).fetchone()[0]

    def close(self) -> None:
        self._db.close()


def default_cache_path() -> Path:
    from .benchmarks.fetch import cache_dir

    return cache_dir() / "scores.sqlite"
