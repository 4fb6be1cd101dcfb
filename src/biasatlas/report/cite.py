"""What to cite for a report: the papers behind its benchmarks and the models it used.

Each benchmark's view lists its papers (``references`` in its ``view.py``: CrowS-Pairs adds
Névéol et al. 2022 for the datasets that paper published). A model is cited by its paper
where biasatlas packages it (``gemma-3-270m``: the Gemma 3 technical report;
``smollm2-135m``: the SmolLM2 paper), and otherwise by a ``@misc`` entry naming the model
id and the exact weights the run read: the hub revision, or the sha256 of each file of a
local folder, from the run's provenance. Entries are listed once each, benchmarks first,
in the order of the runs. The fake scorer is no model: nothing is cited for it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..display.cite import Reference, bibtex_key, bibtex_text
from ..runs.view import RunView, model_name
from ..registry import find_spec

#: Gemma 3 technical report (arXiv:2503.19786), for the packaged ``gemma-3-270m``.
GEMMA_3 = Reference("gemmateam-2025-gemma3", "misc", (
    ("title", "Gemma 3 Technical Report"), ("author", "{Gemma Team}"), ("year", "2025"),
    ("eprint", "2503.19786"), ("archivePrefix", "arXiv"), ("primaryClass", "cs.CL")))
#: The SmolLM2 paper (Ben Allal et al. 2025, arXiv:2502.02737), for the packaged ``smollm2-135m``.
SMOLLM2 = Reference("benallal-etal-2025-smollm2", "misc", (
    ("title", "{SmolLM2}: When Smol Goes Big -- Data-Centric Training of a Small Language Model"),
    ("author", r"Ben Allal, Loubna and Lozhkov, Anton and Bakouch, Elie and Mart{\'\i}n Bl{\'a}zquez, Gabriel and "
               r"Penedo, Guilherme and Tunstall, Lewis and Marafioti, Andr{\'e}s and Kydl{\'\i}{\v{c}}ek, Hynek and "
               r"Piqueres Laj{\'a}r{\'\i}n, Agust{\'\i}n and Srivastav, Vaibhav and Lochner, Joshua and "
               r"Fahlgren, Caleb and Nguyen, Xuan-Son and Fourrier, Cl{\'e}mentine and Burtenshaw, Ben and "
               r"Larcher, Hugo and Zhao, Haojun and Zakka, Cyril and Morlon, Mathieu and Raffel, Colin and "
               r"von Werra, Leandro and Wolf, Thomas"),
    ("year", "2025"), ("eprint", "2502.02737"), ("archivePrefix", "arXiv"), ("primaryClass", "cs.CL")))
#: The packaged models (``--model`` names) and their papers.
PACKAGED_PAPERS: Mapping[str, Reference] = {"gemma-3-270m": GEMMA_3, "smollm2-135m": SMOLLM2}


def report_references(runs: Sequence[RunView]) -> tuple[Reference, ...]:
    """Every entry once (by key): the runs' benchmarks' papers, then their models."""
    entries: dict[str, Reference] = {}
    for run in runs:
        spec = find_spec(run.benchmark)
        for ref in spec.view.references(run) if spec is not None else ():
            entries.setdefault(ref.key, ref)
    for run in runs:
        model = model_reference(run)
        if model is not None:
            entries.setdefault(model.key, model)
    return tuple(entries.values())


def model_reference(run: RunView) -> Reference | None:
    """The packaged model's paper, or a ``@misc`` of the model id and its weights; ``None``
    for the fake scorer."""
    scorer = run.scorer_config
    if scorer.get("scorer") == "fake":
        return None
    if run.model in PACKAGED_PAPERS:
        return PACKAGED_PAPERS[run.model]
    revision = scorer.get("revision")
    hashes = scorer.get("file_sha256")
    name = model_name(run.model)  # a local folder by its base name: where it sat is no part of a citation
    fields: list[tuple[str, str]] = [("title", bibtex_text(name))]
    if isinstance(hashes, Mapping) and hashes:
        files = "; ".join(f"{name} {digest}" for name, digest in sorted(hashes.items()))
        fields += [("howpublished", "local model files"), ("note", bibtex_text(f"file sha256: {files}"))]
        tag = _short_digest(hashes)
    elif revision:
        fields += [("howpublished", "Hugging Face Hub model"), ("note", bibtex_text(f"revision {revision}"))]
        tag = str(revision)[:8]
    else:
        fields.append(("note", "weights not recorded"))
        tag = ""
    return Reference(bibtex_key("model", name, tag), "misc", tuple(fields))


def _short_digest(hashes: Mapping[str, object]) -> str:
    """Eight hex digits standing for a folder's files: the key differs when the weights do."""
    import hashlib

    text = "\n".join(f"{name} {digest}" for name, digest in sorted(hashes.items()))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]


def to_bibtex(references: Sequence[Reference], version: str) -> str:
    """The entries as one ``.bib`` file, a comment line on top (BibTeX ignores text outside entries)."""
    head = (f"% BibTeX of the benchmarks and models in a biasatlas {version} report. "
            "Chinese titles need a CJK-capable setup (XeLaTeX with xeCJK, or biblatex).\n\n")
    return head + "\n".join(ref.bibtex() for ref in references)
