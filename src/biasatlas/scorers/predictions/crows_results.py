"""The per-pair results files of the CrowS-Pairs scripts (Nangia et al. 2020, ``metric.py``) and of
Dutch CrowS-Pairs (Strazda & Spanakis 2025, ``code/mlm_metric.py``): format ``crows-results``.

Both scripts write one row per pair with pandas' ``to_csv``: a leading index column, then
``sent_more, sent_less, sent_more_score, sent_less_score, score, stereo_antistereo, bias_type``.
The scores are each sentence's pseudo-log-likelihood, already rounded to 3 decimals; ``score`` is
1 when ``sent_more`` scores higher (the authors' pair outcome, which our metric recomputes from
the two scores and does not read). The shape is recognised by those columns (:func:`is_results`).

**The join.** The leading column decides how a row meets a pair. Headed ``id`` (the Dutch files,
whose index the authors replaced by the dataset's own ``id``: Nangia et al.'s ids of the 1,463 pairs
kept, 0 to 1507 with 45 gaps), it is the pair's id. Blank (pandas' own index, the English and French
files), it is the row's position, not the dataset's id (the same ids with the same gaps there, so an
id join would pair row 7 with id 7, which is no pair, and every later row with another pair):
the file is keyed by row (:attr:`~.predicted.FileAnswers.keys`) and answers a run of the whole
dataset it was made from, in order. Either way each row keeps its two sentences, so the scorer
checks that the file's pair is the run's pair, and which way round (:func:`~.scorer.listed_swapped`:
exact texts first, then equal once runs of whitespace are one space, since the Dutch results hold a
no-break space where the dataset has a space in 9 sentences and lost one sentence's trailing
newline, then once case is folded too).

**Encoding.** The Dutch results files are Mac Roman, as the Dutch dataset is (byte 0x91 = ë); a
single-byte encoding decodes any bytes, so it is never guessed: it is declared for the three
published files by their sha256 (:data:`DECLARED_ENCODINGS`), and any other file is UTF-8.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ...errors import DataError, UsageError
from .predicted import Answer, Collect, csv_rows, finite

#: The columns after the index that every results file of the scripts holds.
COLUMNS = ("sent_more", "sent_less", "sent_more_score", "sent_less_score", "score", "stereo_antistereo",
           "bias_type")
#: The published files stored in an encoding other than UTF-8, by sha256 (Dutch CrowS-Pairs @ 7cf51965,
#: ``results/results_mlms/dutch_mlms/``; the shared copy's MANIFEST.tsv).
DECLARED_ENCODINGS: Mapping[str, str] = {
    "c726168db39afe1648d15ca05ce56d87b2c599a1dcebe19745aaa2c5cf012349": "mac_roman",  # results_robbert.csv
    "c0c200f00fe33f1c4f7719cc580ec39ab69d2e971b3df1b7af52a8ba0fb2ae2d": "mac_roman",  # results_bertje.csv
    "0b1354e57985a459f1dfcd88654603b15fb9c53e6b5b3aa19bbfda786571d23e": "mac_roman",  # results_mbert.csv
}
#: The checkpoint behind each ``--lm_model`` name of the Dutch authors' ``mlm_metric.py``, which names
#: its output ``results_<name>.csv``.
AUTHORS_MODELS: Mapping[str, str] = {
    "robbert": "pdelobelle/robbert-v2-dutch-base", "bertje": "GroNLP/bert-base-dutch-cased",
    "mbert": "bert-base-multilingual-cased", "bert": "bert-base-uncased", "roberta": "roberta-large",
    "camembert": "camembert-base", "flaubert": "flaubert/flaubert_base_uncased"}


def _header(text: str) -> tuple[list[str], str]:
    """The first line's cells and its delimiter (``;`` where it splits out more cells: the English
    BERT file)."""
    first = text.split("\n", 1)[0].rstrip("\r")
    delimiter = ";" if first.count(";") > first.count(",") else ","
    try:
        return next(csv.reader([first], delimiter=delimiter), []), delimiter
    except csv.Error:  # no header of ours (a quoted field past the csv module's limit)
        return [], delimiter


def is_results(text: str) -> bool:
    """Whether ``text`` has a results file's shape: an index column, then :data:`COLUMNS`."""
    header, _ = _header(text)
    return len(header) == len(COLUMNS) + 1 and tuple(header[1:]) == COLUMNS


def read_crows_results(path: Path, text: str, field: str | None) -> tuple[dict[str, Answer], dict[str, Any]]:
    """Pair id (or row position, a blank index) → ``(sent_more_score, sent_less_score)`` with the two
    sentences as ``texts`` (module docstring); a score that is no finite number is unreadable."""
    header, delimiter = _header(text)
    if tuple(header[1:]) != COLUMNS:
        raise DataError(f"not a CrowS-Pairs results file: expected an index column and {', '.join(COLUMNS)}; "
                        f"found {header}", path=path, line=1)
    by_row = header[0].strip() == ""
    reader = csv.reader(io.StringIO(text, newline=None), delimiter=delimiter)
    next(reader)
    out = Collect()
    position = 0
    line = 2
    for cells in csv_rows(reader, path):
        if not any(c.strip() for c in cells):
            line = reader.line_num + 1
            continue
        row = dict(zip(header, cells))
        key = str(position) if by_row else row[header[0]].strip()
        if len(cells) != len(header):
            out.add(key, Answer(why=f"{len(cells)} cells, the header has {len(header)}", line=line))
        else:
            out.add(key, _answer(row, line))
        position += 1
        line = reader.line_num + 1
    stem = path.name.split(".")[0]
    name = stem.removeprefix("results_")
    return out.answers, {"model": AUTHORS_MODELS.get(name, stem), "keys": "row" if by_row else "id",
                         "harness": "CrowS-Pairs metric.py results (Nangia et al. 2020; Dutch CrowS-Pairs "
                                    "mlm_metric.py, Strazda & Spanakis 2025)"}


def _answer(row: Mapping[str, str], line: int) -> Answer:
    try:
        values = (float(row["sent_more_score"]), float(row["sent_less_score"]))
    except ValueError:
        return Answer(why="sent_more_score / sent_less_score are not both numbers", line=line)
    answer = finite(values, line)
    return answer if answer.why else Answer(values=values, texts=(row["sent_more"], row["sent_less"]), line=line)


def rows_to_ids(answers: Mapping[str, Answer], probe_ids: Sequence[str]) -> dict[str, Answer]:
    """A row-keyed file's answers by the run's pair ids: row ``i`` answers the ``i``-th pair. Only a run
    of the whole file's pairs in order can be so joined, so the counts must agree (a UsageError
    otherwise, before any pair is scored); the sentences then confirm each pair
    (:func:`~.scorer.listed_swapped`)."""
    if len(probe_ids) != len(answers):
        raise UsageError(f"this results file is keyed by row position (a blank index column), so it answers "
                         f"a run of all {len(answers):,} pairs of the file it was made from, in order; this run "
                         f"asks for {len(probe_ids):,} (leave out --limit, --sample and --bias-type)")
    return {pid: answers[str(i)] for i, pid in enumerate(probe_ids)}
