"""A score cache that makes runs resumable and safe to overlap, and that never lies.

Key: what determines a score — the scorer's fingerprint (model file hashes or revision,
scorer kind, variant and parameters; not the batch size or device, which must not change
scores) and the probe's content: the sha256 of a JSON array of the probe's kind and every
field (not its id). JSON quotes each string, so no two probes share a key however their
texts are cut; the first format joined texts with U+001F, and the pairs (``X␟Y``, ``Z``)
and (``X``, ``Y␟Z``) read each other's answers. Value: the answer, as JSON (floats
round-trip exactly; nothing is ever unpickled), and beside it the sha256 of scorer, key
and value together. A row whose checksum fails, that does not decode to the answer its
probe asks for, or that holds a NaN or infinity is no answer: it is counted, reported in
one warning, rescored and overwritten.

Schema version 2 lives in its own table, :data:`TABLE`. Caches written by earlier
versions keep their old ``answers`` table, which is never read again (their keys could
collide); delete the file to reclaim the space.

SQLite in WAL mode lets two runs read and write one cache at once; each chunk of answers
is committed as soon as it is computed, so a run killed at any point loses at most the
chunk in flight.

When the cache cannot be used as it is, the rule is: what can be read is used, and a
cache that cannot be read is an error, since running on without it would silently give
up resuming. Every message is one line naming the file and the fix:

=====================================  ==================================================
cache file is corrupt (not SQLite)     :class:`CacheError`: delete it or ``--no-cache``
cache file cannot be read              :class:`CacheError`: fix permissions or ``--no-cache``
cache path, or a folder above it, is   :class:`CacheError`: point ``BIASATLAS_CACHE_DIR``
a file                                 at a folder or ``--no-cache``
cache path is a folder                 :class:`CacheError`: move it away or ``--no-cache``
file, folder or file system read-only  warning; cached answers are used, new ones not saved
no file yet, and none can be created   warning; the run goes on without a cache
saving fails during a run (disk full)  warning; the run finishes, later chunks not saved
=====================================  ==================================================
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import sys
from collections.abc import Iterable, Mapping
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .errors import BiasAtlasError
from .probes import (Answer, ContinuationProbe, EmbeddingAnswer, EmbeddingProbe, GenerationAnswer, GenerationProbe,
                     NextSentenceProbe, PairAnswer, PairProbe, Probe, SentenceAnswer, SentenceProbe, SlotAnswer,
                     SlotProbe)
from .scorers.base import _finite  # one definition of a usable number, shared with scorers
from .paths import scores_path

TABLE = "answers_v2"
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS {TABLE} (
    scorer TEXT NOT NULL,
    probe TEXT NOT NULL,
    answer TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    PRIMARY KEY (scorer, probe)
) WITHOUT ROWID
"""
_KINDS = {"pair": PairAnswer, "slot": SlotAnswer, "sentence": SentenceAnswer, "embedding": EmbeddingAnswer,
          "generation": GenerationAnswer}
_ANSWERED_BY = {PairProbe: PairAnswer, SlotProbe: SlotAnswer, ContinuationProbe: SlotAnswer,
                SentenceProbe: SentenceAnswer, EmbeddingProbe: EmbeddingAnswer, NextSentenceProbe: SentenceAnswer,
                GenerationProbe: GenerationAnswer}
_BROKEN = {sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT}
# PairAnswer's token counts were first named n_scored_a/_b. Rows keep those names, so
# caches written before the rename still read and new rows are byte-identical to theirs.
_STORED_NAMES = {"pair": {"n_tokens_a": "n_scored_a", "n_tokens_b": "n_scored_b"}}
_FIELD_NAMES = {kind: {v: k for k, v in names.items()} for kind, names in _STORED_NAMES.items()}


class CacheError(BiasAtlasError):
    """The score cache cannot be used as it is; the message names the file and the fix."""


def probe_key(probe: Probe) -> str:
    """A hash of the probe's content; the id is left out so renamed items still hit."""
    return _sha256(json.dumps(_content(probe)))


def repeats(probes: Iterable[Probe]) -> dict[str, str]:
    """Each probe whose content an earlier probe has (the same :func:`probe_key`), by id, with
    that first probe's id. A run scores the first only and copies its answer: the cache holds
    one answer per content, so a resumed run answers every copy with the one value kept, and an
    uninterrupted run must give the copies that value too, not one computed in another chunk's
    batches (BEC-Pro's prior "My [MASK] is a [MASK] [MASK]." serves every two-word profession)."""
    first: dict[str, str] = {}
    out: dict[str, str] = {}
    for probe in probes:
        origin = first.setdefault(probe_key(probe), probe.id)
        if origin != probe.id:
            out[probe.id] = origin
    return out


def _content(probe: Probe) -> list:
    """The probe's kind and every field, as a JSON-ready list: an unambiguous encoding."""
    if isinstance(probe, PairProbe):
        return ["pair", probe.a, probe.b]
    if isinstance(probe, SlotProbe):
        return ["slot", probe.left, probe.right, list(probe.fillers)]
    if isinstance(probe, ContinuationProbe):
        return ["continuation", list(probe.contexts), probe.continuation]
    if isinstance(probe, SentenceProbe):
        return ["sentence", probe.text]
    if isinstance(probe, EmbeddingProbe):
        return ["embedding", probe.text, probe.pooling]
    if isinstance(probe, NextSentenceProbe):
        return ["next-sentence", probe.first, probe.second]
    if isinstance(probe, GenerationProbe):
        user = [] if probe.user is None else [probe.user]  # only a chat endpoint's: a text prompt's key as it was
        return ["generation", probe.prompt, probe.max_new_tokens, list(probe.stop), *user]
    raise TypeError(f"not a probe: {probe!r}")


def _sha256(text: str) -> str:
    # json.dumps escapes non-ASCII, so even a lone surrogate encodes.
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _checksum(scorer: str, key: str, payload: str) -> str:
    """Covers the row's key too: a value moved to another probe's row fails its check."""
    return _sha256(json.dumps([scorer, key, payload]))


def _encode(answer: Answer) -> str:
    kind = {PairAnswer: "pair", SlotAnswer: "slot", SentenceAnswer: "sentence",
            EmbeddingAnswer: "embedding", GenerationAnswer: "generation"}[type(answer)]
    names = _STORED_NAMES.get(kind, {})
    # an empty piece_logprobs (every policy but reveal) is left out: such rows read as before
    fields = {names.get(k, k): v for k, v in asdict(answer).items() if k != "id" and (k != "piece_logprobs" or v)}
    return json.dumps({"kind": kind, **fields}, allow_nan=False)


def _decode(probe: Probe, payload: str) -> Answer | None:
    """The answer ``payload`` holds for ``probe``, or None when it is not a usable one."""
    try:
        data = json.loads(payload)
        kind = data.pop("kind")
        cls, names = _KINDS[kind], _FIELD_NAMES.get(kind, {})
        data = {names.get(k, k): _tuples(v) for k, v in data.items()}
        answer = cls(id=probe.id, **data)
        usable = _fits(probe, answer) and _finite(answer)
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    return answer if usable else None


def _tuples(value: Any) -> Any:
    """JSON's lists as the answers' tuples, nested ones too (``piece_logprobs``)."""
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def _fits(probe: Probe, answer: Answer) -> bool:
    """The answer is of the kind the probe asks for, with one number per filler or context."""
    if type(answer) is not _ANSWERED_BY[type(probe)]:
        return False
    if isinstance(probe, (SlotProbe, ContinuationProbe)):
        wanted = len(probe.fillers if isinstance(probe, SlotProbe) else probe.contexts)
        pieces = getattr(answer, "piece_logprobs", ())
        return (len(answer.logprobs) == len(answer.n_tokens) == wanted  # type: ignore[union-attr, arg-type]
                and len(pieces) in (0, wanted))
    return True


def _warn(message: str) -> None:
    """One line on stderr: the CLI's user sees it beside the progress bar, as with ``error:``."""
    print(f"warning: {message}", file=sys.stderr, flush=True)


class ScoreCache:
    """Answers by (scorer fingerprint, probe content); see the module docstring for failures.

    ``writable`` is False when the cache can only be read (answers are then used but not
    saved) or could not be opened at all (every lookup misses). ``rejected`` counts the
    stored answers refused so far (failed checksum, wrong shape, not finite).
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.rejected = 0
        self._db, read_only = _open(self.path)
        self.writable = self._db is not None and read_only is None
        if self._db is None:
            _warn(f"score cache {self.path} cannot be created ({read_only}): running without "
                  "it, so an interrupted run will start over")
        elif read_only is not None:
            _warn(f"score cache {self.path} cannot be written ({read_only}): using the answers "
                  "it holds, saving no new ones")

    def get(self, scorer: str, probes: Iterable[Probe]) -> dict[str, Answer]:
        """Cached answers for ``probes``, keyed by probe id; refused rows count as misses."""
        by_key: dict[str, list[Probe]] = {}
        for probe in probes:
            by_key.setdefault(probe_key(probe), []).append(probe)
        found: dict[str, Answer] = {}
        db = self._db
        if db is None:
            return found
        keys, refused = list(by_key), 0
        for start in range(0, len(keys), 500):  # SQLite caps the number of parameters
            for key, payload, checksum in self._rows(db, scorer, keys[start:start + 500]):
                same = by_key[key]  # probes with one content: one row, one verdict
                valid = checksum == _checksum(scorer, key, payload)
                answer = _decode(same[0], payload) if valid else None
                if answer is None:
                    refused += 1
                    continue
                found.update({p.id: replace(answer, id=p.id) for p in same})
        if refused:
            self.rejected += refused
            _warn(f"score cache {self.path}: {refused} stored answer(s) failed their checksum "
                  "or were not finite numbers; scoring them again")
        return found

    def _rows(self, db: sqlite3.Connection, scorer: str, keys: list[str]) -> list[tuple[str, str, str]]:
        marks = ",".join("?" * len(keys))
        try:
            return db.execute(f"SELECT probe, answer, sha256 FROM {TABLE} "
                              f"WHERE scorer = ? AND probe IN ({marks})", (scorer, *keys)).fetchall()
        except sqlite3.Error as exc:
            raise _unusable(self.path, exc) from exc

    def put(self, scorer: str, probes: Iterable[Probe], answers: Mapping[str, Answer]) -> None:
        """Store answers in one transaction (all of the chunk, or none of it).

        A probe of the chunk left without an answer (the scorer could not answer it, or
        its answer was not finite) loses any row it had: that row was refused on reading.
        A failure to save is a warning, not an error: this run's answers are still good.
        """
        db = self._db
        if db is None or not self.writable:
            return
        probes = list(probes)
        usable = {p.id for p in probes if p.id in answers and _finite(answers[p.id])}
        rows = [_row(scorer, p, answers[p.id]) for p in probes if p.id in usable]
        stale = [(scorer, probe_key(p)) for p in probes if p.id not in usable]
        try:
            with db:
                db.execute("BEGIN IMMEDIATE")
                db.executemany(f"DELETE FROM {TABLE} WHERE scorer = ? AND probe = ?", stale)
                db.executemany(f"INSERT OR REPLACE INTO {TABLE} VALUES (?, ?, ?, ?)", rows)
        except sqlite3.Error as exc:
            self.writable = False
            _warn(f"cannot save answers to score cache {self.path} ({exc}): the run goes on "
                  "without saving; run with --no-cache to silence this")

    def count(self, scorer: str | None = None) -> int:
        if self._db is None:
            return 0
        if scorer is None:
            return self._db.execute(f"SELECT COUNT(*) FROM {TABLE}").fetchone()[0]
        return self._db.execute(f"SELECT COUNT(*) FROM {TABLE} WHERE scorer = ?", (scorer,)).fetchone()[0]

    def close(self) -> None:
        if self._db is not None:
            self._db.close()


def _row(scorer: str, probe: Probe, answer: Answer) -> tuple[str, str, str, str]:
    key, payload = probe_key(probe), _encode(answer)
    return scorer, key, payload, _checksum(scorer, key, payload)


def _open(path: Path) -> tuple[sqlite3.Connection | None, str | None]:
    """A connection and, when it can only read, why; no connection when none can be made."""
    _make_folder(path)
    _check_readable(path)
    if path.exists() and not os.access(path, os.W_OK):
        return _open_read_only(path, _why_read_only(path, "the file is not writable"))
    try:
        return _open_writable(path), None
    except TimeoutError as exc:  # filelock.Timeout: another process holds the lock
        raise CacheError(f"score cache {path} stayed locked by another process ({exc}): "
                         "retry, or run with --no-cache") from exc
    except OSError as exc:  # the lock file cannot be created: a read-only folder
        why = _why_read_only(path, exc.strerror or str(exc))
    except sqlite3.Error as exc:
        if _code(exc) in _BROKEN:
            raise _unusable(path, exc) from exc
        why = _why_read_only(path, str(exc))
    if not path.exists():
        return None, why
    return _open_read_only(path, why)


def _why_read_only(path: Path, otherwise: str) -> str:
    """Why ``path`` cannot be written, in words the user can act on."""
    folder = next((p for p in path.parents if p.exists()), path.parent)
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return f"the file system holding {folder} is read-only"
    except OSError:
        pass
    if not os.access(folder, os.W_OK):
        return f"its folder {folder} is not writable"
    if path.exists() and not os.access(path, os.W_OK):
        return "the file is not writable"
    return otherwise


def _make_folder(path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError) as exc:
        above = next((p for p in path.parents if p.is_file()), path.parent)
        raise CacheError(f"score cache {path} cannot be created: {above} is a file, not a "
                         "folder; point BIASATLAS_CACHE_DIR at a folder or run with --no-cache") from exc
    except OSError:
        pass  # a read-only place: _open finds the file missing and goes on without a cache


def _check_readable(path: Path) -> None:
    try:
        with open(path, "rb"):
            pass
    except FileNotFoundError:
        return
    except IsADirectoryError as exc:
        raise CacheError(f"score cache {path} is a folder, not a file: move it away or run "
                         "with --no-cache") from exc
    except OSError as exc:
        raise CacheError(f"score cache {path} cannot be read ({exc.strerror}): fix its "
                         "permissions, delete it, or run with --no-cache") from exc


def _open_writable(path: Path) -> sqlite3.Connection:
    # Switching a new database to WAL needs it to ourselves, and SQLite answers "locked"
    # at once rather than waiting when two runs start together: take turns.
    from filelock import FileLock

    with FileLock(str(path) + ".lock", timeout=120):
        db = sqlite3.connect(path, timeout=60.0, isolation_level=None)
        try:
            db.execute("PRAGMA busy_timeout=60000")
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(_SCHEMA)
        except BaseException:
            db.close()
            raise
    return db


def _open_read_only(path: Path, why: str) -> tuple[sqlite3.Connection | None, str]:
    """Open without writing a byte; ``immutable`` when not even WAL's index can be created.

    ``immutable`` reads no lock and no WAL, which is safe here: without a ``-shm`` file
    no WAL writer can be at work. A cache without the current table holds no answers.
    """
    uri = f"file:{quote(str(path.resolve()))}?mode=ro"
    try:
        db = _connect_read_only(uri)
    except sqlite3.OperationalError:
        try:
            db = _connect_read_only(uri + "&immutable=1")
        except sqlite3.Error as exc:
            raise _unusable(path, exc) from exc
    except sqlite3.Error as exc:
        raise _unusable(path, exc) from exc
    if db is None:
        return None, f"{why}, and it holds no answers of this version"
    return db, why


def _connect_read_only(uri: str) -> sqlite3.Connection | None:
    db = sqlite3.connect(uri, uri=True, timeout=60.0, isolation_level=None)
    try:
        found = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                           (TABLE,)).fetchone()
    except BaseException:
        db.close()
        raise
    if found is None:
        db.close()
        return None
    return db


def _unusable(path: Path, exc: sqlite3.Error) -> CacheError:
    """The one-line error for a cache SQLite cannot read, with the fix."""
    if _code(exc) in _BROKEN:
        return CacheError(f"score cache {path} is corrupt ({exc}): delete it or run with --no-cache")
    return CacheError(f"score cache {path} cannot be read ({exc}): delete it or run with --no-cache")


def _code(exc: sqlite3.Error) -> int:
    """SQLite's primary result code (``SQLITE_NOTADB``…), 0 for the module's own errors."""
    return (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF


def default_cache_path() -> Path:
    return scores_path()
