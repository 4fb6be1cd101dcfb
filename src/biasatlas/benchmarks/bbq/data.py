"""BBQ and its multilingual family read into one typed record (METHODS-MORE.md §2-4).

Every dataset is a three-option question over a context: two people and one "unknown"
answer. What differs is the format and how the *biased* option is known:

- ``en`` (Parrish et al. 2022): the category ``.jsonl`` files, and ``target_loc`` from the
  authors' ``additional_metadata.csv`` joined on (example_id, category, question_index) as
  their R script merges it: a key listed twice there (64 Gender_identity rows) weighs an
  example twice, a key whose ``target_loc`` is NA (16 rows) drops it.
- ``mbbq-*`` (Neplenbroek et al. 2024): BBQ's schema, no metadata file. Our reading (the
  repository stops at per-answer scores): the option whose English group tag is among
  ``stereotyped_groups`` (``F``/``M`` also match the gender words, translated in nl/es/tr;
  ``low SES`` matches ``lowSES``) is the stereotyped one; for non-negative questions the biased answer is the
  other person, BBQ's polarity rule. An item where not exactly one option matches has none.
- ``kobbq`` (Jin et al. 2024): ``biased_answer`` is given per question; unknown is the third
  choice; the template is the sample id before its a/b/c/d context letter.
- ``cbbq`` (Huang & Xiong): the gender CSVs; the stereotyped option is the one naming the
  group in ``bias_targeted_groups`` (女性: a word with 女 or 妈; 变性人: one starting 变性),
  flipped for non-negative questions as in BBQ; unknown is ``ans2``.
- ``esbbq``, ``cabbq`` (Ruiz-Fernández et al. 2025): BBQ's schema with a template id, the
  authors' answer types and ``question_type`` (:mod:`.esbbq`); unknown is ``ans2``.
"""

from __future__ import annotations

import ast
import csv
import functools
import io
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from ...compressed import gunzip
from ...errors import DataError, MissingInput
from ...textfiles import json_objects
from ..fetch import DataFile, locate
from . import esbbq, ids, sources

DATASETS: tuple[str, ...] = ("en", "mbbq-nl", "mbbq-es", "mbbq-tr", "mbbq-en", "kobbq", "cbbq", "esbbq", "cabbq")
LANGUAGE: dict[str, str] = {"en": "en", "mbbq-nl": "nl", "mbbq-es": "es", "mbbq-tr": "tr", "mbbq-en": "en",
                            "kobbq": "ko", "cbbq": "zh", "esbbq": "es", "cabbq": "ca"}
MBBQ_CATEGORIES: tuple[str, ...] = ("Age", "Disability_status", "Gender_identity", "Physical_appearance", "SES",
                                    "Sexual_orientation")
CATEGORIES: dict[str, tuple[str, ...]] = {
    "en": tuple(sources.BBQ_FILES), **dict.fromkeys(("mbbq-nl", "mbbq-es", "mbbq-tr", "mbbq-en"), MBBQ_CATEGORIES),
    # KoBBQ's categories as its sample ids spell them (its bbq_category column is often empty)
    "kobbq": ("age", "disability_status", "domestic_area_of_origin", "educational_background",
              "family_structure", "gender_identity", "physical_appearance", "political_orientation",
              "race_ethnicity_nationality", "religion", "ses", "sexual_orientation"),
    "cbbq": ("gender",), "esbbq": esbbq.CATEGORIES, "cabbq": esbbq.CATEGORIES}
#: EsBBQ's and CaBBQ's files share their names: under ``$BIASATLAS_DATA_DIR`` each is read from
#: the sub-folder named after its dataset when there is one (:func:`find`).
_FILES_OF = {"esbbq": sources.ESBBQ_FILES, "cabbq": sources.CABBQ_FILES}
#: Group words an MBBQ tag may carry for a ``stereotyped_groups`` entry: the gender tags are
#: translated (nl, es, tr, as they occur in the data), the others stay English.
_GROUP_WORDS = {"f": {"f", "woman", "girl", "vrouw", "meisje", "mujer", "chica", "kadın", "kız"},
                "m": {"m", "man", "boy", "jongen", "hombre", "chico", "adam", "erkek çocuk"},
                "low ses": {"lowses"}}


#: The id prefix of an MBBQ control-set item: ``control/`` + its regular twin's id.
CONTROL_PREFIX = "control/"


@dataclass(frozen=True)
class Example:
    """One question: ``options`` in data order, ``label`` the gold index, ``unknown`` the index
    of the "unknown" option, ``target`` the option a biased answer picks (None: not known, the
    item is skipped). ``template`` groups an item's variants (bootstrap unit); ``weight`` is
    how many rows the authors' merge gives it; ``control``: an MBBQ control-set item;
    ``question_type``: EsBBQ/CaBBQ's own label of a question (pro-stereo, anti-stereo, n/a), which
    their disambiguated bias score reads instead of ``label == target`` (:mod:`.esbbq`)."""

    id: str
    category: str
    template: str
    polarity: str
    ambiguous: bool
    context: str
    question: str
    options: tuple[str, ...]
    label: int
    unknown: int
    target: int | None
    label_type: str = "label"
    weight: int = 1
    control: bool = False
    #: Each option's ``answer_info`` list as the data gives it (BBQ-schema sets only; empty otherwise):
    #: lm-evaluation-harness's ``bbq_generate`` parser names a person by these group words too.
    groups: tuple[tuple[str, ...], ...] = ()
    question_type: str | None = None

    @property
    def group(self) -> str:
        """The authors' reporting group: the category, split off as ``(names)`` for name proxies."""
        return f"{self.category} (names)" if self.label_type == "name" else self.category


def find(spec: DataFile, folder: Path | None, subfolder: str | None = None) -> tuple[Path, bool]:
    """The file ``spec`` names and whether it is gzip-compressed: under ``folder`` (searched
    recursively, the plain name or ``name.gz``) when one is given, else the shared lookup
    (:func:`~..fetch.locate`), where a ``name.gz`` under ``$BIASATLAS_DATA_DIR`` serves too (the
    shared MBBQ copy is compressed). ``subfolder``: a file name two datasets share (EsBBQ and
    CaBBQ) is read from ``$BIASATLAS_DATA_DIR/<subfolder>`` when that folder exists, since the
    lookup by name alone would take whichever sorts first."""
    data_dir = os.environ.get("BIASATLAS_DATA_DIR")
    if folder is None and subfolder and data_dir and (Path(data_dir) / subfolder).is_dir():
        folder = Path(data_dir) / subfolder
    if folder is None:
        shared = locate(spec, gzip_ok=True)
        return shared, shared.name == spec.name + ".gz"
    for name, is_packed in ((spec.name, False), (spec.name + ".gz", True)):
        found = sorted(Path(folder).rglob(name))
        if found:
            return found[0], is_packed
    raise MissingInput(f"no {spec.name} (or {spec.name}.gz) under this folder", path=folder)


def _text(path: Path, packed: bool) -> str:
    raw = path.read_bytes()
    try:
        return (gunzip(raw, path) if packed else raw).decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(f"cannot be read as UTF-8 text ({exc})", path=path) from exc


def _field(record: Mapping[str, object], name: str, path: Path, line: int) -> object:
    """A record's field, present and not NaN or infinite (``json.loads`` reads both: an ``example_id`` of
    NaN would have made the id ``…/nan``)."""
    if name not in record:
        raise DataError("missing", path=path, line=line, field=name)
    value = record[name]
    if isinstance(value, float) and not math.isfinite(value):
        raise DataError(f"expected a finite value, got {value!r}", path=path, line=line, field=name)
    return value


def answer_info(record: Mapping[str, object]) -> tuple[tuple[str, ...], ...]:
    """Each option's ``answer_info`` list (checked by :func:`_bbq_record` first)."""
    info = record["answer_info"]
    return tuple(tuple(str(x) for x in info[f"ans{i}"]) for i in range(3))  # type: ignore[index]


def _bbq_record(record: Mapping[str, object], path: Path, line: int
                ) -> tuple[tuple[str, ...], tuple[str, ...], int, int]:
    """(options, their group tags, label, the unknown option) of one BBQ-schema record, checked."""
    info = _field(record, "answer_info", path, line)
    options = tuple(str(_field(record, f"ans{i}", path, line)) for i in range(3))
    if not isinstance(info, dict) or any(not isinstance(info.get(f"ans{i}"), list) for i in range(3)):
        raise DataError("needs ans0..ans2 as [text, group] lists", path=path, line=line, field="answer_info")
    tags = tuple(str(info[f"ans{i}"][-1]) for i in range(3))
    label = _field(record, "label", path, line)
    if isinstance(label, bool) or label not in (0, 1, 2):  # True == 1 is no label
        raise DataError(f"must be 0, 1 or 2, not {label!r}", path=path, line=line, field="label")
    lowered = [t.lower() for t in tags]
    if lowered.count("unknown") != 1:
        raise DataError("needs exactly one option tagged 'unknown'", path=path, line=line, field="answer_info")
    return options, tags, (0, 1, 2).index(label), lowered.index("unknown")


def _common(record: Mapping[str, object], prefix: str, path: Path, line: int) -> dict[str, object]:
    category = str(_field(record, "category", path, line))
    condition = _field(record, "context_condition", path, line)
    if condition not in ("ambig", "disambig"):
        raise DataError(f"must be ambig or disambig, not {condition!r}", path=path, line=line,
                        field="context_condition")
    index = str(_field(record, "question_index", path, line))
    return {"id": prefix + ids.item_id(category, _field(record, 'example_id', path, line)), "category": category,
            "template": f"{category}/{index}", "polarity": str(_field(record, "question_polarity", path, line)),
            "ambiguous": condition == "ambig", "context": str(_field(record, "context", path, line)),
            "question": str(_field(record, "question", path, line))}


def read_metadata(path: Path, packed: bool = False) -> dict[tuple[str, str, str], list[tuple[int | None, str]]]:
    """``additional_metadata.csv``: (example_id, category, question_index) → every row's
    (target_loc or None for NA, label_type), duplicates kept as the R merge keeps them."""
    rows: dict[tuple[str, str, str], list[tuple[int | None, str]]] = {}
    reader = csv.DictReader(io.StringIO(_text(path, packed)))
    for line, row in enumerate(reader, start=2):
        for name in ("example_id", "category", "question_index", "target_loc", "label_type"):
            if row.get(name) is None:
                raise DataError("missing", path=path, line=line, field=name)
        loc = row["target_loc"]
        if loc not in ("0", "1", "2", "NA"):
            raise DataError(f"must be 0, 1, 2 or NA, not {loc!r}", path=path, line=line, field="target_loc")
        key = (row["example_id"], row["category"], row["question_index"])
        rows.setdefault(key, []).append((None if loc == "NA" else int(loc), row["label_type"]))
    return rows


def read_bbq(path: Path, metadata: Mapping[tuple[str, str, str], list[tuple[int | None, str]]],
             packed: bool = False) -> list[Example]:
    """One BBQ category file with ``target_loc``/``label_type`` joined from the metadata; an
    example the metadata lacks gets no target (skipped, as the R script's NA filter drops it)."""
    out = []
    for line, record in json_objects(_text(path, packed), path):
        options, _, label, unknown = _bbq_record(record, path, line)
        common = _common(record, "", path, line)
        key = (str(record["example_id"]), str(common["category"]), str(record["question_index"]))
        meta = [m for m in metadata.get(key, []) if m[0] is not None]
        target, label_type = (meta[0] if meta else (None, "label"))
        out.append(Example(**common, options=options, label=label,  # type: ignore[arg-type]
                           unknown=unknown, target=target,
                           label_type=label_type, weight=max(len(meta), 1), groups=answer_info(record)))
    return out


def stereotyped_option(tags: tuple[str, ...], groups: object) -> int | None:
    """The one option whose group tag is among ``groups`` (MBBQ, module docstring), else None."""
    wanted: set[str] = set()
    for g in groups if isinstance(groups, list) else []:
        wanted |= _GROUP_WORDS.get(str(g).lower(), {str(g).lower()})
    matches = [i for i, t in enumerate(tags) if t.lower() != "unknown" and t.lower() in wanted]
    return matches[0] if len(matches) == 1 else None


def _flipped(stereotyped: int | None, unknown: int, polarity: str) -> int | None:
    """BBQ's polarity rule: a non-negative question's biased answer is the other person."""
    if stereotyped is None or polarity == "neg":
        return stereotyped
    return next(i for i in range(3) if i not in (stereotyped, unknown))


def read_mbbq(path: Path, *, control: bool, packed: bool = False) -> list[Example]:
    """One MBBQ file (regular or control set); ids carry ``control/`` for the control set."""
    out = []
    for line, record in json_objects(_text(path, packed), path):
        options, tags, label, unknown = _bbq_record(record, path, line)
        common = _common(record, CONTROL_PREFIX if control else "", path, line)
        meta = record.get("additional_metadata")
        groups = meta.get("stereotyped_groups") if isinstance(meta, dict) else None
        target = _flipped(stereotyped_option(tags, groups), unknown, str(common["polarity"]))
        out.append(Example(**common, options=options, label=label, unknown=unknown,  # type: ignore[arg-type]
                           target=target, control=control, groups=answer_info(record)))
    return out


def read_kobbq(path: Path, packed: bool = False) -> list[Example]:
    """KoBBQ's test samples (TSV): sample_id = category-template{a..d}-sample-{amb|dis}-{bsd|cnt}."""
    out = []
    reader = csv.DictReader(io.StringIO(_text(path, packed)), delimiter="\t")
    for line, row in enumerate(reader, start=2):
        sample = row.get("sample_id") or ""
        parts = sample.split("-")
        if len(parts) != 5 or parts[3] not in ("amb", "dis") or parts[4] not in ("bsd", "cnt"):
            raise DataError(f"not category-template-sample-amb|dis-bsd|cnt: {sample!r}", path=path, line=line,
                            field="sample_id")
        try:
            choices = tuple(str(c) for c in ast.literal_eval(row.get("choices") or ""))
        except (ValueError, SyntaxError) as exc:
            raise DataError("not a list literal", path=path, line=line, field="choices") from exc
        for name in ("biased_answer", "answer"):
            if len(choices) != 3 or row.get(name) not in choices:
                raise DataError("not one of the 3 choices", path=path, line=line, field=name)
        out.append(Example(id=f"kobbq/{sample}", category=parts[0],
                           template=f"{parts[0]}-{parts[1][:-1]}", polarity=parts[4], ambiguous=parts[3] == "amb",
                           context=row.get("context") or "", question=row.get("question") or "", options=choices,
                           label=choices.index(row["answer"]), unknown=2,
                           target=choices.index(row["biased_answer"]), label_type=row.get("label_annotation") or ""))
    return out


def _cbbq_stereotyped(options: tuple[str, ...], group: str) -> int | None:
    if group == "女性":
        matches = [i for i in (0, 1) if "女" in options[i] or "妈" in options[i]]
    elif group == "变性人":
        matches = [i for i in (0, 1) if options[i].startswith("变性")]
    else:
        matches = [i for i in (0, 1) if group in options[i]]
    return matches[0] if len(matches) == 1 else None


def read_cbbq(path: Path, packed: bool = False) -> list[Example]:
    """One CBBQ CSV (ambiguous or disambiguous contexts)."""
    out = []
    reader = csv.DictReader(io.StringIO(_text(path, packed)))
    for line, row in enumerate(reader, start=2):
        for name in ("example_id", "question_index", "question_polarity", "context_condition", "context",
                     "question", "ans0", "ans1", "ans2", "label", "bias_targeted_groups"):
            if row.get(name) is None:
                raise DataError("missing", path=path, line=line, field=name)
        if row["label"] not in ("0", "1", "2"):
            raise DataError(f"must be 0, 1 or 2, not {row['label']!r}", path=path, line=line, field="label")
        options = (row["ans0"], row["ans1"], row["ans2"])
        ambiguous = row["context_condition"] == "ambiguous"
        polarity = "neg" if row["question_polarity"] == "neg" else "nonneg"
        category = row.get("category") or "gender"
        out.append(Example(id=f"cbbq/{category}/{row['context_condition']}/{row['example_id']}", category=category,
                           template=f"{category}/{row['question_index']}", polarity=polarity, ambiguous=ambiguous,
                           context=row["context"], question=row["question"], options=options,
                           label=int(row["label"]), unknown=2,
                           target=_flipped(_cbbq_stereotyped(options, row["bias_targeted_groups"]), 2, polarity)))
    return out


def read_escabbq(path: Path, dataset: str, packed: bool = False) -> list[Example]:
    """One EsBBQ/CaBBQ category file (:mod:`.esbbq`): ``ans2`` must be the "unknown" placeholder,
    shown as the language's first paraphrase; the target is the pro-stereotypical person."""
    out = []
    for line, record in json_objects(_text(path, packed), path):
        options, tags, label, unknown = _bbq_record(record, path, line)
        if unknown != 2 or options[2] != esbbq.PLACEHOLDER:
            raise DataError(f"the unknown option must be ans2, {esbbq.PLACEHOLDER!r}", path=path, line=line,
                            field="ans2")
        condition = _field(record, "context_condition", path, line)
        if condition not in ("ambig", "disambig"):
            raise DataError(f"must be ambig or disambig, not {condition!r}", path=path, line=line,
                            field="context_condition")
        category, polarity = str(_field(record, "category", path, line)), str(
            _field(record, "question_polarity", path, line))
        out.append(Example(
            id=f"{dataset}/{category}/{_field(record, 'instance_id', path, line)}", category=category,
            template=f"{category}/{_field(record, 'template_id', path, line)}", polarity=polarity,
            ambiguous=condition == "ambig", context=str(_field(record, "context", path, line)),
            question=str(_field(record, "question", path, line)),
            options=(*options[:2], esbbq.UNKNOWNS[dataset][0]), label=label, unknown=2,
            target=esbbq.pro_stereo_option(tags, _field(record, "stereotyped_groups", path, line), polarity),
            question_type=esbbq.checked_question_type(_field(record, "question_type", path, line), path, line)))
    return out


def files(dataset: str, categories: tuple[str, ...], control: bool) -> list[tuple[str, DataFile]]:
    """(reader kind, file) for ``dataset``'s ``categories``: what :func:`read` reads."""
    if dataset == "en":
        return [("bbq", sources.BBQ_FILES[c]) for c in categories]
    if dataset.startswith("mbbq-"):
        language = LANGUAGE[dataset]
        sets = (False, True) if control else (False,)
        return [("control" if c_set else "mbbq", sources.MBBQ_FILES[(c, language, c_set)])
                for c_set in sets for c in categories]
    if dataset == "kobbq":
        return [("kobbq", sources.KOBBQ_TEST)]
    if dataset in _FILES_OF:
        return [(dataset, _FILES_OF[dataset][c]) for c in categories]
    return [("cbbq", f) for f in sources.CBBQ_GENDER]


class Stamp(NamedTuple):
    """One file as read: its path, whether it is gzip-compressed, and its size, modification
    time and inode, so an edited or replaced file is a new stamp (and read again)."""

    path: str
    packed: bool
    size: int
    mtime_ns: int
    inode: int


def stamp(path: Path, packed: bool) -> Stamp:
    info = path.stat()
    return Stamp(str(path), packed, info.st_size, info.st_mtime_ns, info.st_ino)


@functools.lru_cache(maxsize=4)
def _metadata(meta: Stamp) -> Mapping[tuple[str, str, str], list[tuple[int | None, str]]]:
    return read_metadata(Path(meta.path), meta.packed)


@functools.lru_cache(maxsize=64)
def _examples(kind: str, file: Stamp, meta: Stamp | None) -> tuple[Example, ...]:
    """One file's examples, parsed once per stamp: a run loads its data (the lint and the run's
    items) and its config names the files, and each read of the English set parsed all eleven
    files and the 86,000-row metadata again (about 3 s each)."""
    path, packed = Path(file.path), file.packed
    if kind == "bbq":
        assert meta is not None
        return tuple(read_bbq(path, _metadata(meta), packed))
    if kind in ("mbbq", "control"):
        return tuple(read_mbbq(path, control=kind == "control", packed=packed))
    if kind in _FILES_OF:
        return tuple(read_escabbq(path, kind, packed))
    return tuple(read_kobbq(path, packed) if kind == "kobbq" else read_cbbq(path, packed))


def read(dataset: str, categories: tuple[str, ...], control: bool, folder: Path | None) -> tuple[list[Example],
                                                                                                list[Path]]:
    """Every example of the chosen files, in file order, and the paths read (each file parsed
    once while its stamp stays the same: :func:`_examples`). A file without examples (of the chosen
    categories, for KoBBQ's one file) is refused naming it: an empty category file was a run of
    nothing, exit 0."""
    paths: list[Path] = []
    meta = None
    if dataset == "en":
        meta_path, packed = find(sources.BBQ_METADATA, folder)
        meta, paths = stamp(meta_path, packed), [meta_path]
    examples: list[Example] = []
    for kind, spec in files(dataset, categories, control):
        path, packed = find(spec, folder, dataset if dataset in _FILES_OF else None)
        paths.append(path)
        found = _examples(kind, stamp(path, packed), meta if kind == "bbq" else None)
        chosen = [e for e in found if e.category in categories] if kind == "kobbq" else list(found)
        if not chosen:
            of = f" of {', '.join(categories)}" if found else ""
            raise DataError(f"no examples{of} in the file", path=path)
        examples += chosen
    return examples, paths
